// The v2 Agent Jobs API: routing, authentication, validation and JSON views, on
// top of the Store. See docs/api.md for the contract.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>

#include "api/http_server.h"
#include "store/store.h"

namespace docwright {

// What the API tells the rest of the process, so it does not depend on it.
struct ApiHooks {
  std::function<void()> work_queued;  // a turn was queued
  std::function<void(const std::string& job_id)> job_archived;
};

struct ApiOptions {
  std::optional<std::string> default_model;  // used when neither job nor project names one
};

class Api {
 public:
  Api(Store& store, ApiOptions options, ApiHooks hooks);

  // The three HttpHandlers of the server; thread-safe.
  HttpResponse Handle(HttpRequest& request);
  std::optional<HttpResponse> Precheck(const HttpRequest& request);
  static bool IsQuick(const HttpRequest& request);

 private:
  struct Resolved;
  std::variant<HttpResponse, Resolved> Resolve(const HttpRequest& request);

  Store& store_;
  ApiOptions options_;
  ApiHooks hooks_;
};

}  // namespace docwright
