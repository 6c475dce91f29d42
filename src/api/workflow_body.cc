#include "api/workflow_body.h"

#include <nlohmann/json.hpp>

#include "core/job.h"
#include "core/text.h"

namespace docwright {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxContextRepositoryUrlBytes = 2048;

Result<Json> ParseObject(std::string_view body) {
  if (!Utf8Length(body)) return Status::InvalidArgument("the request body is not valid UTF-8");
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return Status::InvalidArgument("the request body must be a JSON object");
  }
  return json;
}

// The member `name` of `json`: nullptr if absent.
const Json* Member(const Json& json, const char* name) {
  auto it = json.find(name);
  return it == json.end() ? nullptr : &*it;
}

Status NotA(const std::string& member, const std::string& what) {
  return Status::InvalidArgument(member + " must be " + what);
}

// A string member into `out`; null into "" when `null_ok`.
Status ReadString(const Json& v, const std::string& member, bool null_ok, std::string* out) {
  if (v.is_null() && null_ok) {
    out->clear();
    return Status();
  }
  if (!v.is_string()) return NotA(member, null_ok ? "a string or null" : "a string");
  *out = v.get<std::string>();
  return Status();
}

Status ReadTrigger(const Json& v, WorkflowTrigger* out) {
  if (!v.is_object()) {
    return NotA("trigger", "an object with a kind (schedule, push, merge or manual)");
  }
  WorkflowTrigger t;
  const Json* kind = Member(v, "kind");
  auto parsed = kind && kind->is_string() ? ParseTriggerKind(kind->get_ref<const std::string&>())
                                          : std::nullopt;
  if (!parsed) return NotA("trigger.kind", "schedule, push, merge or manual");
  t.kind = *parsed;
  if (t.kind == TriggerKind::kSchedule) {
    const Json* cron = Member(v, "cron");
    if (!cron) return Status::InvalidArgument("trigger.cron is required for a schedule");
    if (Status s = ReadString(*cron, "trigger.cron", false, &t.cron); !s.ok()) return s;
    if (const Json* zone = Member(v, "timeZone"); zone && !zone->is_null()) {
      if (Status s = ReadString(*zone, "trigger.timeZone", false, &t.time_zone); !s.ok()) {
        return s;
      }
    }
  }
  if (t.kind == TriggerKind::kMerge) {
    const Json* repo = Member(v, "repository");
    if (!repo) {
      return Status::InvalidArgument(
          "trigger.repository is required for a merge: the name of a context repository");
    }
    if (Status s = ReadString(*repo, "trigger.repository", false, &t.repository); !s.ok()) {
      return s;
    }
  }
  if (t.kind == TriggerKind::kPush || t.kind == TriggerKind::kMerge) {
    if (const Json* branch = Member(v, "branch")) {
      if (Status s = ReadString(*branch, "trigger.branch", true, &t.branch); !s.ok()) return s;
    }
  }
  *out = std::move(t);
  return Status();
}

Status ReadMember(const std::string& key, const Json& v, Workflow* w) {
  if (key == "name") return ReadString(v, key, false, &w->name);
  if (key == "title") return ReadString(v, key, true, &w->title);
  if (key == "prompt") return ReadString(v, key, false, &w->prompt);
  if (key == "trigger") return ReadTrigger(v, &w->trigger);
  if (key == "context") {
    w->context.clear();
    if (v.is_null()) return Status();
    // Bounded before anything is copied; CheckWorkflow checks the names.
    if (!v.is_array() || v.size() > kMaxContextRepositories) {
      return NotA(key, "an array of at most " + std::to_string(kMaxContextRepositories) +
                           " context repository names, or null");
    }
    for (const Json& name : v) {
      if (!name.is_string()) return NotA(key, "an array of context repository names");
      w->context.push_back(name.get<std::string>());
    }
    return Status();
  }
  if (key == "publish") {
    if (v.is_null()) {
      w->publish.reset();
      return Status();
    }
    auto mode = v.is_string() ? ParsePublishMode(v.get_ref<const std::string&>()) : std::nullopt;
    if (!mode) return NotA(key, "pull_request, push, automerge or null");
    w->publish = *mode;
    return Status();
  }
  if (key == "model") {
    if (v.is_null()) {
      w->model.reset();
      return Status();
    }
    if (!v.is_string()) return NotA(key, "a string or null");
    w->model = v.get<std::string>();
    return Status();
  }
  if (key == "runsPerDay") {
    if (!v.is_number_integer() || v.get<int64_t>() < 1 ||
        v.get<int64_t>() > kMaxWorkflowRunsPerDay) {
      return NotA(key, "an integer from 1 to " + std::to_string(kMaxWorkflowRunsPerDay));
    }
    w->runs_per_day = v.get<int64_t>();
    return Status();
  }
  if (key == "enabled") {
    if (!v.is_boolean()) return NotA(key, "true or false");
    w->enabled = v.get<bool>();
    return Status();
  }
  return Status();
}

const char* const kWorkflowMembers[] = {"name",    "title", "prompt",     "trigger", "context",
                                        "publish", "model", "runsPerDay", "enabled"};

}  // namespace

Status ParseWorkflowBody(std::string_view body, Workflow* into, std::set<std::string>* given) {
  auto json = ParseObject(body);
  if (!json.ok()) return json.status();
  for (const char* key : kWorkflowMembers) {
    const Json* v = Member(*json, key);
    if (!v) continue;
    if (Status s = ReadMember(key, *v, into); !s.ok()) return s;
    if (given) given->insert(key);
  }
  return Status();
}

Result<ContextRepository> ParseContextRepositoryBody(std::string_view body) {
  auto json = ParseObject(body);
  if (!json.ok()) return json.status();
  ContextRepository repo;
  const Json* name = Member(*json, "name");
  if (!name || !name->is_string()) {
    return Status::InvalidArgument("name is required: the name the agent reads it by");
  }
  repo.name = name->get<std::string>();
  if (Status s = CheckWorkflowName(repo.name); !s.ok()) return s;
  const Json* url = Member(*json, "repository");
  if (!url || !url->is_string()) {
    return Status::InvalidArgument("repository is required: its URL");
  }
  repo.repository = url->get<std::string>();
  if (repo.repository.empty() || repo.repository.size() > kMaxContextRepositoryUrlBytes ||
      TrimSpace(repo.repository) != repo.repository ||
      HasControlCharacter(repo.repository, /*allow_line_breaks=*/false)) {
    return Status::InvalidArgument(
        "repository must be a URL of 1 to 2048 bytes, without blanks around it or control "
        "characters");
  }
  if (const Json* branch = Member(*json, "branch"); branch && !branch->is_null()) {
    if (!branch->is_string()) return NotA("branch", "a branch name or null");
    repo.branch = branch->get<std::string>();
    if (Status s = CheckBranchName(*repo.branch); !s.ok()) {
      return Status::InvalidArgument("branch: " + s.message());
    }
  }
  return repo;
}

Result<std::string> ParseRunBody(std::string_view body) {
  if (TrimSpace(body).empty()) return std::string();
  auto json = ParseObject(body);
  if (!json.ok()) return json.status();
  const Json* prompt = Member(*json, "prompt");
  if (!prompt || prompt->is_null()) return std::string();
  if (!prompt->is_string()) return NotA("prompt", "a string or null");
  return std::string(TrimSpace(prompt->get_ref<const std::string&>()));
}

}  // namespace docwright
