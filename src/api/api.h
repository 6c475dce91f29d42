// The Agent Jobs API, v2 and the reference's deprecated v1: routing,
// authentication and validation, on top of the Store; the response bodies are
// api/views.h's and api/v1_views.h's. See docs/api.md for the contract.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "api/key_uses.h"
#include "api/request_target.h"
#include "api/sign_in_limiter.h"
#include "core/local_pull_request.h"
#include "core/mutex.h"
#include "core/usage.h"
#include "http/server.h"
#include "store/store.h"

namespace docwright {

// What the API tells the rest of the process, so it does not depend on it.
struct ApiHooks {
  std::function<void(const std::string& job_id)> job_archived;
  std::function<void(const std::string& job_id)> job_stopped;  // asked to stop (job stop)
  // Merges a local pull request into its base on its project's repository
  // ("merge" or "fast-forward") and records it merged; errors as
  // RepositoryTurns::MergePullRequest. Unset: the merge route answers 503.
  // `expected_head`: the branch's commit the merger reviewed (empty: any); a
  // branch at another commit is Conflict, nothing merged.
  std::function<Result<PullRequestMerge>(const LocalPullRequest& pr, std::string_view method,
                                         std::string_view expected_head)>
      merge_pull_request;
};

struct ApiOptions {
  std::optional<std::string> default_model;  // used when neither job nor project names one
  // Reads that are not answered from memory (listings, transcripts) one key may
  // have in flight at once (a page opened without a key: one client address);
  // more are answered 429 with Retry-After, so one tenant's reads cannot take
  // the server's read threads from the others.
  int max_reads_per_key = 2;
  // The v1 create's `model` names ("sonnet", "opus") and the model each stands
  // for (--v1-model NAME=MODEL). A name not here is refused; without a
  // `model`, "sonnet" if it is here, else the default model.
  std::vector<std::pair<std::string, std::string>> v1_models;
  // How long a v1 create's stream follows its job at most: the turn's deadline
  // and a margin, so it ends with the job's first turn.
  std::chrono::milliseconds v1_stream_lifetime{std::chrono::minutes(25)};
  // Where clients reach the server (--public-url): a browser's writes must come
  // from its origin, and an https one marks the session cookie Secure. Empty:
  // the origin is the request's Host.
  std::string public_url;
  // How long a sign-in lasts (--session-lifetime).
  std::chrono::seconds session_lifetime{43200};
  // Sign-in attempts one client address may make a minute; more are answered
  // 429 with Retry-After.
  int sign_ins_per_minute = 10;
  // The operator's price table (`serve --prices`): its currency names the
  // estimated costs of jobs' `usage`. Null or empty: costs are shown as null.
  std::shared_ptr<const PriceTable> prices;
};

class EventStreams;

class Api {
 public:
  // `streams` (not owned; may be null: the event stream route then answers
  // 503) serves GET .../events; it and `store` outlive the Api.
  Api(Store& store, ApiOptions options, ApiHooks hooks, EventStreams* streams = nullptr);

  // The three HttpHandlers of the server; thread-safe. Precheck leaves what it
  // resolved (route, key, scope) in `request.context` for Handle.
  HttpResponse Handle(HttpRequest& request);
  std::optional<HttpResponse> Precheck(HttpRequest& request);
  static bool IsQuick(const HttpRequest& request);

 private:
  struct Route;
  struct Call;
  static std::span<const Route> Routes();
  static const std::vector<std::string_view>& Segments(const Route& route);
  // The route of `target` for `method`; nullptr if none, with `*allow` set to
  // the methods its path takes ("GET, HEAD, PATCH") if the path is known.
  static const Route* Match(const RequestTarget& target, std::string_view method,
                            std::string* allow);
  std::variant<HttpResponse, Call> Resolve(HttpRequest& request);

  // Authentication (api/auth.cc). Who asks for `call` (a route that needs a
  // key): the key of the request's Bearer header, else of its session cookie
  // (a write then needs its CSRF token and the service's origin), allowed the
  // route by its role and the project by its limits; fills `call` and the
  // request's principal, or returns the refusal (401, 403, 404).
  std::optional<HttpResponse> Authenticate(HttpRequest& request, Call& call);
  // The active key of the request's valid session cookie, or nullopt (no
  // cookie, expired, revoked). No CSRF check: for rendering only.
  std::optional<ApiKey> SessionKey(const HttpRequest& request);
  // Whether the request's Origin header, if it has one, is the service's own.
  bool FromOwnOrigin(const HttpRequest& request) const;

  // One per route, in Routes().
  HttpResponse Health(const Call& call, HttpRequest& request);
  HttpResponse OpenApiDocument(const Call& call, HttpRequest& request);
  // The local forge's pull requests (api/pull_request_routes.cc).
  HttpResponse PullRequestPage(const Call& call, HttpRequest& request);
  HttpResponse DashboardFile(const Call& call, HttpRequest& request);  // api/ui_routes.cc
  HttpResponse MergePullRequest(const Call& call, HttpRequest& request) EXCLUDES(merges_mu_);
  HttpResponse CreateJob(const Call& call, HttpRequest& request);
  HttpResponse ListJobs(const Call& call, HttpRequest& request);
  HttpResponse GetJob(const Call& call, HttpRequest& request);
  HttpResponse GetJobById(const Call& call, HttpRequest& request);
  HttpResponse AddMessage(const Call& call, HttpRequest& request);
  HttpResponse Transcript(const Call& call, HttpRequest& request);
  HttpResponse ArchiveJob(const Call& call, HttpRequest& request);
  HttpResponse StopJob(const Call& call, HttpRequest& request);
  HttpResponse JobEvents(const Call& call, HttpRequest& request);
  HttpResponse JobReview(const Call& call, HttpRequest& request);  // api/review_routes.cc
  // The reference's deprecated v1 endpoints (api/v1_routes.cc).
  HttpResponse V1CreateJob(const Call& call, HttpRequest& request);
  HttpResponse V1GetJob(const Call& call, HttpRequest& request);
  HttpResponse V1ListJobs(const Call& call, HttpRequest& request);
  // Sign-in sessions (api/session_routes.cc).
  HttpResponse SignIn(const Call& call, HttpRequest& request);
  HttpResponse GetSession(const Call& call, HttpRequest& request);
  HttpResponse SignOut(const Call& call, HttpRequest& request);
  // Keys and projects (api/key_routes.cc).
  HttpResponse ListKeys(const Call& call, HttpRequest& request);
  HttpResponse CreateKey(const Call& call, HttpRequest& request);
  HttpResponse RevokeKey(const Call& call, HttpRequest& request);
  HttpResponse ListProjects(const Call& call, HttpRequest& request);
  // A project's context repositories and workflows (api/workflow_routes.cc).
  HttpResponse ListContextRepositories(const Call& call, HttpRequest& request);
  HttpResponse AddContextRepository(const Call& call, HttpRequest& request);
  HttpResponse RemoveContextRepository(const Call& call, HttpRequest& request);
  HttpResponse ListWorkflows(const Call& call, HttpRequest& request);
  HttpResponse CreateWorkflow(const Call& call, HttpRequest& request);
  HttpResponse GetWorkflow(const Call& call, HttpRequest& request);
  HttpResponse UpdateWorkflow(const Call& call, HttpRequest& request);
  HttpResponse DeleteWorkflow(const Call& call, HttpRequest& request);
  HttpResponse RunWorkflow(const Call& call, HttpRequest& request);
  HttpResponse ListWorkflowRuns(const Call& call, HttpRequest& request);
  // A forge's webhook delivery, verified with the project's hook secret
  // (api/hook_routes.cc).
  HttpResponse ForgeHook(const Call& call, HttpRequest& request);

  // Takes one of the key's slots for a slow read; false if all are taken. The
  // slot is given back by LeaveRead.
  bool EnterRead(const std::string& key_id) EXCLUDES(reads_mu_);
  void LeaveRead(const std::string& key_id) EXCLUDES(reads_mu_);

  Store& store_;
  ApiOptions options_;
  ApiHooks hooks_;
  EventStreams* streams_;
  Mutex reads_mu_;
  std::unordered_map<std::string, int> reads_in_flight_ GUARDED_BY(reads_mu_);  // by key id
  Mutex merges_mu_;
  std::set<std::string> merging_projects_ GUARDED_BY(merges_mu_);  // merges under way
  KeyUses key_uses_{store_};
  SignInLimiter sign_ins_{options_.sign_ins_per_minute};
  // The currency of jobs' estimated costs: the price table's, "" when none is
  // loaded (or it names no model). Set once, read by every job view.
  const std::string currency_ =
      options_.prices && !options_.prices->empty() ? options_.prices->currency() : std::string();
};

}  // namespace docwright
