#include "api/v1_views.h"

#include <array>

#include "core/json_writer.h"
#include "core/text.h"
#include "core/time.h"

namespace docwright {
namespace {

// How the errors of a turn that could not read the repository, push to it or
// open its pull request begin (runner/repository_turns.cc): the project's
// repository or forge settings are what the owner has to fix.
constexpr std::array<std::string_view, 5> kSetupErrors = {
    "cannot read the repository ", "the repository ", "cannot push the branch ",
    "cannot open the pull request", "pushed the branch "};

std::string_view FailureReason(const std::optional<std::string>& error) {
  if (error) {
    for (std::string_view start : kSetupErrors) {
      if (error->starts_with(start)) return "github_missconfigured";
    }
  }
  return "error";
}

// The first line of `prompt` with text on it, trimmed, cut to kV1BriefBytes.
std::string Brief(std::string_view prompt) {
  std::string_view rest = prompt;
  std::string_view line;
  while (!rest.empty() && IsBlank(line)) {
    size_t nl = rest.find('\n');
    line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  line = Trim(line, " \t\r");
  if (line.size() <= kV1BriefBytes) return std::string(line);
  return std::string(CutUtf8(line, kV1BriefBytes - 3)) + "...";
}

std::string_view TodoStatus(TurnState state) {
  switch (state) {
    case TurnState::kQueued:
      return "pending";
    case TurnState::kRunning:
      return "in_progress";
    case TurnState::kSucceeded:
      return "completed";
    case TurnState::kFailed:
    case TurnState::kCancelled:
      break;
  }
  return "cancelled";
}

void WriteSession(const Job& job, std::span<const MessageHead> heads, JsonWriter& w) {
  std::string_view reason = V1HaltReason(job, heads);
  w.BeginObject();
  w.Key("sessionId").String(job.id);
  w.Key("subdomain").String(job.project_id);
  w.Key("branch").String(job.ref);
  w.Key("haulted").Bool(job.status != JobStatus::kActive);
  w.Key("haultReason").String(reason);
  // Neither is nullable in the reference: left out when there is none.
  if (job.pr_link) w.Key("pullRequestLink").String(*job.pr_link);
  // What the turn came to: its summary, or why it failed; nothing while it runs.
  const std::optional<std::string>* message = &job.summary;
  if (reason == "processing") {
    message = nullptr;
  } else if ((reason == "error" || reason == "github_missconfigured") && job.error) {
    message = &job.error;
  }
  if (message && *message) w.Key("messageToUser").String(**message);
  w.Key("todos").BeginArray();
  for (const MessageHead& h : heads) {
    w.BeginObject();
    w.Key("content").String(Brief(h.prompt));
    w.Key("status").String(TodoStatus(h.state));
    w.Key("priority").String("medium");
    w.Key("id").String(std::to_string(h.seq));
    w.EndObject();
  }
  w.EndArray();
  w.Key("title").String(heads.empty() || heads.front().seq != 1 ? std::string()
                                                                : Brief(heads.front().prompt));
  w.Key("createdAt").String(FormatRfc3339(job.created_at));
  w.EndObject();
}

}  // namespace

std::string_view V1HaltReason(const Job& job, std::span<const MessageHead> heads) {
  switch (job.status) {
    case JobStatus::kActive:
      return "processing";
    case JobStatus::kCompleted:
      return "completed";
    case JobStatus::kFailed:
      return FailureReason(job.error);
    case JobStatus::kArchived:
      break;
  }
  // Archived: as its latest turn ended. Archiving cancels an unfinished turn.
  if (heads.empty()) return "interrupted";
  switch (heads.back().state) {
    case TurnState::kSucceeded:
      return "completed";
    case TurnState::kFailed:
      return FailureReason(job.error);
    case TurnState::kQueued:
    case TurnState::kRunning:
    case TurnState::kCancelled:
      break;
  }
  return "interrupted";
}

HttpResponse V1JobResponse(const Job& job, std::span<const MessageHead> heads) {
  HttpResponse r;
  JsonWriter w(&r.body);
  WriteSession(job, heads, w);
  return r;
}

HttpResponse V1JobListResponse(std::span<const Job> jobs,
                               std::span<const std::vector<MessageHead>> heads) {
  HttpResponse r;
  JsonWriter w(&r.body);
  w.BeginObject().Key("allSessions").BeginArray();
  for (size_t i = 0; i < jobs.size(); ++i) {
    WriteSession(
        jobs[i],
        i < heads.size() ? std::span<const MessageHead>(heads[i]) : std::span<const MessageHead>(),
        w);
  }
  w.EndArray().EndObject();
  return r;
}

}  // namespace docwright
