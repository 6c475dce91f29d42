#include "core/workflow.h"

#include <nlohmann/json.hpp>

#include <set>

#include "core/cron.h"
#include "core/json_writer.h"
#include "core/text.h"

namespace docwright {

namespace {

constexpr std::string_view kWhitespace = " \t\r\n";
// A stored trigger is a few hundred bytes; anything far larger is not one.
constexpr size_t kMaxRunTriggerJsonChars = 64 * 1024;

void TrimInPlace(std::string& s) { s = std::string(Trim(s, kWhitespace)); }

Status Refuse(std::string_view field, std::string_view why) {
  return Status::InvalidArgument(std::string(field) + " " + std::string(why));
}

// A name's rule, with the field it is for in front ("context[2]: ...").
Status CheckNamed(std::string_view field, std::string_view name) {
  Status s = CheckWorkflowName(name);
  if (s.ok()) return s;
  return Status::InvalidArgument(std::string(field) + ": " + s.message());
}

bool IsChange(std::string_view kind) { return kind == "push" || kind == "merge"; }

}  // namespace

Status CheckWorkflowName(std::string_view name) {
  bool ok = !name.empty() && name.size() <= kMaxWorkflowNameChars;
  for (size_t i = 0; ok && i < name.size(); ++i) {
    char c = name[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    ok = alnum || (i > 0 && (c == '-' || c == '_'));
  }
  if (ok) return Status();
  return Status::InvalidArgument("a name must be 1 to " + std::to_string(kMaxWorkflowNameChars) +
                                 " lowercase letters, digits, '-' and '_', starting with a "
                                 "letter or digit");
}

std::string_view ToString(TriggerKind k) {
  switch (k) {
    case TriggerKind::kSchedule:
      return "schedule";
    case TriggerKind::kPush:
      return "push";
    case TriggerKind::kMerge:
      return "merge";
    case TriggerKind::kManual:
      return "manual";
  }
  return "manual";
}

std::optional<TriggerKind> ParseTriggerKind(std::string_view s) {
  if (s == "schedule") return TriggerKind::kSchedule;
  if (s == "push") return TriggerKind::kPush;
  if (s == "merge") return TriggerKind::kMerge;
  if (s == "manual") return TriggerKind::kManual;
  return std::nullopt;
}

std::string_view ToString(PublishMode m) {
  switch (m) {
    case PublishMode::kPullRequest:
      return "pull_request";
    case PublishMode::kPush:
      return "push";
    case PublishMode::kAutomerge:
      return "automerge";
  }
  return "pull_request";
}

std::optional<PublishMode> ParsePublishMode(std::string_view s) {
  if (s == "pull_request") return PublishMode::kPullRequest;
  if (s == "push") return PublishMode::kPush;
  if (s == "automerge") return PublishMode::kAutomerge;
  return std::nullopt;
}

std::string_view ToString(RunState s) {
  switch (s) {
    case RunState::kQueued:
      return "queued";
    case RunState::kStarted:
      return "started";
    case RunState::kRefused:
      return "refused";
    case RunState::kCoalesced:
      return "coalesced";
  }
  return "refused";
}

Status CheckWorkflow(Workflow& w) {
  TrimInPlace(w.name);
  TrimInPlace(w.title);
  TrimInPlace(w.prompt);
  if (Status s = CheckNamed("name", w.name); !s.ok()) return s;

  std::optional<size_t> title_chars = Utf8Length(w.title);
  if (!title_chars) return Refuse("title", "is not valid UTF-8");
  if (*title_chars > kMaxWorkflowTitleChars) {
    return Refuse("title",
                  "must be at most " + std::to_string(kMaxWorkflowTitleChars) + " characters");
  }
  // A title is one line in lists and logs.
  if (HasControlCharacter(w.title, /*allow_line_breaks=*/false)) {
    return Refuse("title", "must not contain control characters or line breaks");
  }

  std::optional<size_t> prompt_chars = Utf8Length(w.prompt);
  if (!prompt_chars) return Refuse("prompt", "is not valid UTF-8");
  if (*prompt_chars == 0) return Refuse("prompt", "must not be empty");
  if (*prompt_chars > kMaxPromptChars) {
    return Refuse("prompt", "too long: " + std::to_string(*prompt_chars) +
                                " characters, the limit is " + std::to_string(kMaxPromptChars));
  }
  if (HasControlCharacter(w.prompt, /*allow_line_breaks=*/true)) {
    return Refuse("prompt", "must not contain control characters (other than tab and line breaks)");
  }

  WorkflowTrigger& t = w.trigger;
  switch (t.kind) {
    case TriggerKind::kSchedule: {
      TrimInPlace(t.cron);
      TrimInPlace(t.time_zone);
      if (t.time_zone.empty()) t.time_zone = "UTC";
      if (!IsKnownTimeZone(t.time_zone)) {
        return Refuse("trigger.timeZone",
                      "must be an IANA time zone this machine knows, such as Europe/Berlin or UTC");
      }
      Result<CronSchedule> schedule = CronSchedule::Parse(t.cron, t.time_zone);
      // Its messages start "cron: the minute field ...".
      if (!schedule.ok()) return Status::InvalidArgument("trigger." + schedule.status().message());
      break;
    }
    case TriggerKind::kMerge:
      if (t.repository.empty()) {
        return Refuse("trigger.repository", "is required: the context repository merged into");
      }
      if (Status s = CheckNamed("trigger.repository", t.repository); !s.ok()) return s;
      [[fallthrough]];
    case TriggerKind::kPush:
      if (!t.branch.empty()) {
        if (Status s = CheckBranchName(t.branch); !s.ok()) {
          return Refuse("trigger.branch:", s.message());
        }
      }
      break;
    case TriggerKind::kManual:
      break;
  }

  if (w.context.size() > kMaxContextRepositories) {
    return Refuse("context",
                  "may name at most " + std::to_string(kMaxContextRepositories) + " repositories");
  }
  std::set<std::string_view> seen;
  for (size_t i = 0; i < w.context.size(); ++i) {
    const std::string field = "context[" + std::to_string(i) + "]";
    if (Status s = CheckNamed(field, w.context[i]); !s.ok()) return s;
    if (!seen.insert(w.context[i]).second) {
      return Refuse(field, "names \"" + w.context[i] + "\" twice");
    }
  }

  if (w.model) {
    const std::string& m = *w.model;
    if (IsBlank(m) || m.size() > kMaxModelNameChars) {
      return Refuse("model", "must be 1 to " + std::to_string(kMaxModelNameChars) + " characters");
    }
    if (!Utf8Length(m) || HasControlCharacter(m, /*allow_line_breaks=*/false) ||
        m.find_first_of(" \t") != std::string::npos) {
      return Refuse("model", "must not contain spaces or control characters");
    }
  }

  if (w.runs_per_day < 1 || w.runs_per_day > kMaxWorkflowRunsPerDay) {
    return Refuse("runsPerDay", "must be 1 to " + std::to_string(kMaxWorkflowRunsPerDay));
  }
  return Status();
}

std::string RunTriggerJson(const RunTrigger& t) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("kind").String(t.kind);
  if (t.kind != "comment" || !t.workflow.empty()) w.Key("workflow").String(t.workflow);
  if (IsChange(t.kind)) {
    std::string_view repository = t.repository;
    if (repository.empty() && t.kind == "push") repository = "docs";
    w.Key("repository").String(repository);
    w.Key("branch").String(t.branch);
    // An unknown start (the first run of a newly watched branch) is null.
    if (t.from.empty()) {
      w.Key("from").Null();
    } else {
      w.Key("from").String(t.from);
    }
    w.Key("to").String(t.to);
  } else if (t.kind == "schedule") {
    if (t.scheduled_for) {
      w.Key("scheduledFor").String(FormatInZone(*t.scheduled_for, t.time_zone));
    } else {
      w.Key("scheduledFor").Null();
    }
    w.Key("timeZone").String(t.time_zone.empty() ? std::string_view("UTC") : t.time_zone);
  } else if (t.kind == "comment") {
    w.Key("url").String(t.url);
  }
  w.EndObject();
  return out;
}

Result<RunTrigger> ParseRunTrigger(std::string_view json) {
  if (json.size() > kMaxRunTriggerJsonChars) {
    return Status::InvalidArgument("a run's trigger is too long to be one");
  }
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument("a run's trigger must be a JSON object");
  }
  auto kind = j.find("kind");
  if (kind == j.end() || !kind->is_string()) {
    return Status::InvalidArgument("a run's trigger must have a string kind");
  }
  auto text = [&](const char* key) -> std::string {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  RunTrigger t;
  t.kind = kind->get<std::string>();
  t.workflow = text("workflow");
  t.repository = text("repository");
  t.branch = text("branch");
  t.from = text("from");
  t.to = text("to");
  t.url = text("url");
  t.time_zone = text("timeZone");
  if (std::string at = text("scheduledFor"); !at.empty()) t.scheduled_for = ParseRfc3339(at);
  return t;
}

RunTrigger CoalesceTriggers(const RunTrigger& queued, const RunTrigger& next) {
  RunTrigger out = next;
  if (IsChange(queued.kind) && queued.kind == next.kind && queued.repository == next.repository &&
      queued.branch == next.branch) {
    out.from = queued.from;
  }
  return out;
}

}  // namespace docwright
