// A project's workflows and context repositories (docs/api.md, "Workflows",
// "Context repositories"): admin keys define them, member keys read them and
// run workflows by hand. The store keeps them by ids and knows no
// organisation, so every route first reads the project in the key's scope (a
// project of another organisation is 404, as one that does not exist), then
// finds the workflow among that project's.
#include <set>
#include <string>

#include "api/api.h"
#include "api/call.h"
#include "api/request_body.h"
#include "api/routes.h"
#include "api/views.h"
#include "api/workflow_body.h"
#include "api/workflow_views.h"
#include "core/ids.h"
#include "core/text.h"
#include "core/time.h"
#include "core/url.h"

namespace docwright {
namespace {

constexpr int kDefaultRunsPage = 20;
constexpr int kMaxRunsPage = 100;
constexpr int64_t kSecondsPerDay = 86400;

HttpResponse Body(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse NoContent() {
  HttpResponse r;
  r.status = 204;
  return r;
}

HttpResponse WorkflowNotFound() { return ErrorResponse(404, "workflow not found", "not_found"); }

// The store's refusals: its per-project limits (ResourceExhausted) are a
// conflict with the project's state, the rest as everywhere.
HttpResponse Refusal(const Status& s) {
  if (s.code() == Code::kResourceExhausted) return ErrorResponse(409, s.message(), "conflict");
  return ResponseFromStatus(s);
}

// The project of `scope`, in its key's organisation: nullopt, or the refusal.
std::optional<HttpResponse> CheckProject(Store& store, const Scope& scope) {
  auto project = store.GetProject(scope);
  if (!project.ok()) return ResponseFromStatus(project.status());
  return std::nullopt;
}

// The workflow `name` of the project: the API-defined one if both sources
// have it. A name that breaks the naming rule names none.
Result<Workflow> FindWorkflow(Store& store, const std::string& project_id,
                              const std::string& name) {
  if (!CheckWorkflowName(name).ok()) return Status::NotFound("workflow not found");
  auto list = store.ListWorkflows(project_id);
  if (!list.ok()) return list.status();
  const Workflow* found = nullptr;
  for (const Workflow& w : *list) {
    if (w.name != name) continue;
    if (w.source == WorkflowSource::kApi) return w;
    if (!found) found = &w;
  }
  if (!found) return Status::NotFound("workflow not found");
  return *found;
}

// The view of the workflow `name` (API-defined first), as GET answers it.
HttpResponse ViewOf(Store& store, const std::string& project_id, const std::string& name,
                    int status) {
  auto views = ReadWorkflowViews(store, project_id, NowMillis());
  if (!views.ok()) return ResponseFromStatus(views.status());
  const WorkflowView* view = FindWorkflowView(*views, name);
  if (!view) return WorkflowNotFound();
  return Body(status, WorkflowJson(*view));
}

// Seconds until the next midnight UTC, when the daily limit starts again.
int64_t SecondsToMidnightUtc(UnixMillis now) {
  return kSecondsPerDay - (now / 1000) % kSecondsPerDay;
}

}  // namespace

// Admin keys write them (auth.cc); member keys read them and run by hand.
std::span<const Api::Route> Api::Route::Workflows() {
  static const Route kRows[] = {
      {.method = "GET",
       .pattern = "/v2/agent/{projectId}/context",
       .serve = &Api::ListContextRepositories},
      {.method = "POST",
       .pattern = "/v2/agent/{projectId}/context",
       .serve = &Api::AddContextRepository},
      {.method = "DELETE",
       .pattern = "/v2/agent/{projectId}/context/{name}",
       .serve = &Api::RemoveContextRepository},
      {.method = "GET", .pattern = "/v2/agent/{projectId}/workflows", .serve = &Api::ListWorkflows},
      {.method = "POST",
       .pattern = "/v2/agent/{projectId}/workflows",
       .serve = &Api::CreateWorkflow},
      {.method = "GET",
       .pattern = "/v2/agent/{projectId}/workflows/{name}",
       .serve = &Api::GetWorkflow},
      {.method = "PATCH",
       .pattern = "/v2/agent/{projectId}/workflows/{name}",
       .serve = &Api::UpdateWorkflow},
      {.method = "DELETE",
       .pattern = "/v2/agent/{projectId}/workflows/{name}",
       .serve = &Api::DeleteWorkflow},
      {.method = "POST",
       .pattern = "/v2/agent/{projectId}/workflows/{name}/run",
       .serve = &Api::RunWorkflow},
      {.method = "GET",
       .pattern = "/v2/agent/{projectId}/workflows/{name}/runs",
       .serve = &Api::ListWorkflowRuns},
  };
  return kRows;
}

// --- Context repositories ------------------------------------------------------

HttpResponse Api::ListContextRepositories(const Call& call, HttpRequest& req) {
  if (auto refused = CheckProject(store_, call.scope)) return std::move(*refused);
  auto repos = store_.ListContextRepositories(call.scope.project_id);
  if (!repos.ok()) return ResponseFromStatus(repos.status());
  return Body(200, ContextRepositoryListJson(*repos));
}

HttpResponse Api::AddContextRepository(const Call& call, HttpRequest& req) {
  if (!IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  if (auto refused = CheckProject(store_, call.scope)) return std::move(*refused);
  auto repo = ParseContextRepositoryBody(req.body);
  if (!repo.ok()) return ResponseFromStatus(repo.status());
  // A context repository is reached with the project's credentials: through
  // the API, only one on the project's own forge host, by its scheme, host
  // and port, so a key cannot send the project's token elsewhere or have the
  // agent read a repository on this machine. The operator adds any other
  // with `docwright project context add`.
  auto project = store_.GetProject(call.scope);
  if (!project.ok()) return ResponseFromStatus(project.status());
  auto own = ParseUrl(project->repository);
  auto given = ParseUrl(repo->repository);
  if (!own || !given || given->has_userinfo != own->has_userinfo || given->scheme != own->scheme ||
      given->host != own->host || given->port != own->port) {
    return ErrorResponse(400,
                         "repository: through the API, a context repository must be on the "
                         "project's own forge host (" +
                             (own ? OriginText(*own)
                                  : std::string("none: the project's "
                                                "repository is on this "
                                                "machine")) +
                             "); the operator adds others with `docwright project context add`",
                         "invalid_request");
  }
  // Stored as given: api/ does not reach repositories (the command line's
  // `project context add` probes first; the engine reports one it cannot read).
  repo->project_id = call.scope.project_id;
  auto added = store_.AddContextRepository(std::move(*repo));
  if (!added.ok()) return Refusal(added.status());
  return Body(201, ContextRepositoryJson(*added));
}

HttpResponse Api::RemoveContextRepository(const Call& call, HttpRequest& req) {
  if (!req.body.empty() && !IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  if (auto refused = CheckProject(store_, call.scope)) return std::move(*refused);
  const std::string& name = call.target.segments[4];
  if (!CheckWorkflowName(name).ok()) {
    return ErrorResponse(404, "context repository not found", "not_found");
  }
  if (Status s = store_.RemoveContextRepository(call.scope.project_id, name); !s.ok()) {
    return Refusal(s);
  }
  return NoContent();
}

// --- Workflows -----------------------------------------------------------------

HttpResponse Api::ListWorkflows(const Call& call, HttpRequest& req) {
  if (auto refused = CheckProject(store_, call.scope)) return std::move(*refused);
  auto views = ReadWorkflowViews(store_, call.scope.project_id, NowMillis());
  if (!views.ok()) return ResponseFromStatus(views.status());
  return Body(200, WorkflowListJson(*views));
}

HttpResponse Api::CreateWorkflow(const Call& call, HttpRequest& req) {
  if (!IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  if (auto refused = CheckProject(store_, call.scope)) return std::move(*refused);
  Workflow w;
  std::set<std::string> given;
  if (Status s = ParseWorkflowBody(req.body, &w, &given); !s.ok()) return ResponseFromStatus(s);
  for (const char* required : {"name", "prompt"}) {
    if (!given.contains(required)) {
      return ErrorResponse(400, std::string(required) + " is required", "invalid_request");
    }
  }
  w.project_id = call.scope.project_id;
  w.source = WorkflowSource::kApi;
  if (Status s = CheckWorkflow(w); !s.ok()) return ResponseFromStatus(s);
  auto made = store_.CreateWorkflow(std::move(w));
  if (!made.ok()) return Refusal(made.status());
  return ViewOf(store_, call.scope.project_id, made->name, 201);
}

HttpResponse Api::GetWorkflow(const Call& call, HttpRequest& req) {
  if (auto refused = CheckProject(store_, call.scope)) return std::move(*refused);
  const std::string& name = call.target.segments[4];
  if (!CheckWorkflowName(name).ok()) return WorkflowNotFound();
  return ViewOf(store_, call.scope.project_id, name, 200);
}

HttpResponse Api::UpdateWorkflow(const Call& call, HttpRequest& req) {
  if (!IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  if (auto refused = CheckProject(store_, call.scope)) return std::move(*refused);
  auto found = FindWorkflow(store_, call.scope.project_id, call.target.segments[4]);
  if (!found.ok()) return ResponseFromStatus(found.status());
  Workflow w = *found;
  std::set<std::string> given;
  if (Status s = ParseWorkflowBody(req.body, &w, &given); !s.ok()) return ResponseFromStatus(s);
  if (w.name != found->name) {
    return ErrorResponse(400, "name cannot be changed: create a workflow with the new name",
                         "invalid_request");
  }
  given.erase("name");
  if (found->source == WorkflowSource::kFile) {
    given.erase("enabled");
    if (!given.empty()) {
      return ErrorResponse(409,
                           "workflow " + found->name + " is defined by its file " +
                               found->file_path +
                               ": change the file; only enabled may be changed here",
                           "conflict");
    }
    // Only its flag: the rest stays as the file says.
    Workflow flag = *found;
    flag.enabled = w.enabled;
    w = std::move(flag);
  } else if (Status s = CheckWorkflow(w); !s.ok()) {
    return ResponseFromStatus(s);
  }
  auto updated = store_.UpdateWorkflow(w);
  if (!updated.ok()) return Refusal(updated.status());
  return ViewOf(store_, call.scope.project_id, updated->name, 200);
}

HttpResponse Api::DeleteWorkflow(const Call& call, HttpRequest& req) {
  if (!req.body.empty() && !IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  if (auto refused = CheckProject(store_, call.scope)) return std::move(*refused);
  auto found = FindWorkflow(store_, call.scope.project_id, call.target.segments[4]);
  if (!found.ok()) return ResponseFromStatus(found.status());
  if (found->source == WorkflowSource::kFile) {
    return ErrorResponse(409,
                         "workflow " + found->name + " is defined by its file " + found->file_path +
                             ": remove the file to delete it",
                         "conflict");
  }
  if (Status s = store_.DeleteWorkflow(found->id); !s.ok()) return Refusal(s);
  return NoContent();
}

HttpResponse Api::RunWorkflow(const Call& call, HttpRequest& req) {
  if (!req.body.empty() && !IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  if (auto refused = CheckProject(store_, call.scope)) return std::move(*refused);
  auto extra = ParseRunBody(req.body);
  if (!extra.ok()) return ResponseFromStatus(extra.status());
  auto found = FindWorkflow(store_, call.scope.project_id, call.target.segments[4]);
  if (!found.ok()) return ResponseFromStatus(found.status());
  std::string prompt = found->prompt;
  if (!extra->empty()) prompt += "\n\n" + *extra;
  if (Utf8Length(prompt).value_or(kMaxPromptChars + 1) > kMaxPromptChars) {
    return ErrorResponse(400,
                         "prompt: the workflow's prompt with this text is longer than " +
                             std::to_string(kMaxPromptChars) + " characters",
                         "invalid_request");
  }
  WorkflowRunRequest run{.workflow_id = found->id,
                         .dedup_key = "manual:" + NewId(),
                         .trigger = RunTrigger{.kind = "manual", .workflow = found->name},
                         .prompt = std::move(prompt),
                         .by_hand = true};
  auto started = store_.StartWorkflowRun(run);
  if (!started.ok()) return Refusal(started.status());
  using Outcome = WorkflowRunStart::Outcome;
  switch (started->outcome) {
    case Outcome::kStarted:
      if (started->job) return JobResponse(201, *started->job, currency_);
      break;
    case Outcome::kQueued:
      return Body(202, QueuedRunJson(started->run));
    case Outcome::kRefused: {
      const std::string why = started->run.error.value_or("the run was refused");
      // The daily limit starts again at midnight UTC (Store::StartWorkflowRun).
      if (why.starts_with("the daily limit")) {
        HttpResponse r = ErrorResponse(429, why, "rate_limited");
        r.headers.emplace_back("Retry-After", std::to_string(SecondsToMidnightUtc(NowMillis())));
        return r;
      }
      return ErrorResponse(409, why, "conflict");
    }
    case Outcome::kDuplicate:
      break;
  }
  // A new random dedup key has no earlier run, and a start has its job.
  return ResponseFromStatus(Status::Internal("workflow run: unexpected outcome"));
}

HttpResponse Api::ListWorkflowRuns(const Call& call, HttpRequest& req) {
  int limit = kDefaultRunsPage;
  for (const auto& [k, v] : call.target.query) {
    if (k == "limit" && !ParseIntParam(v, 1, kMaxRunsPage, &limit)) {
      return ErrorResponse(400, "limit must be an integer from 1 to 100", "invalid_request");
    }
  }
  if (auto refused = CheckProject(store_, call.scope)) return std::move(*refused);
  auto found = FindWorkflow(store_, call.scope.project_id, call.target.segments[4]);
  if (!found.ok()) return ResponseFromStatus(found.status());
  auto runs = store_.ListWorkflowRuns(found->id, limit);
  if (!runs.ok()) return ResponseFromStatus(runs.status());
  return Body(200, WorkflowRunListJson(*runs));
}

}  // namespace docwright
