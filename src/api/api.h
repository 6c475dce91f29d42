// The v2 Agent Jobs API: routing, authentication, validation and JSON views, on
// top of the Store. See docs/api.md for the contract.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/request_target.h"
#include "http/server.h"
#include "store/store.h"

namespace docwright {

// What the API tells the rest of the process, so it does not depend on it.
struct ApiHooks {
  std::function<void()> work_queued;  // a turn was queued
  std::function<void(const std::string& job_id)> job_archived;
  std::function<void(const std::string& job_id)> job_stopped;  // asked to stop (job stop)
};

struct ApiOptions {
  std::optional<std::string> default_model;  // used when neither job nor project names one
};

class Api {
 public:
  Api(Store& store, ApiOptions options, ApiHooks hooks);

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
  // the method its path takes if the path is known.
  static const Route* Match(const RequestTarget& target, std::string_view method,
                            std::string_view* allow);
  std::variant<HttpResponse, Call> Resolve(HttpRequest& request);

  // One per route, in Routes().
  HttpResponse Health(const Call& call, HttpRequest& request);
  HttpResponse PullRequestPage(const Call& call, HttpRequest& request);
  HttpResponse CreateJob(const Call& call, HttpRequest& request);
  HttpResponse ListJobs(const Call& call, HttpRequest& request);
  HttpResponse GetJob(const Call& call, HttpRequest& request);
  HttpResponse GetJobById(const Call& call, HttpRequest& request);
  HttpResponse AddMessage(const Call& call, HttpRequest& request);
  HttpResponse Transcript(const Call& call, HttpRequest& request);
  HttpResponse ArchiveJob(const Call& call, HttpRequest& request);
  HttpResponse StopJob(const Call& call, HttpRequest& request);

  Store& store_;
  ApiOptions options_;
  ApiHooks hooks_;
};

}  // namespace docwright
