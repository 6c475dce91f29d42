// Internal to api/: the route table. Each room of the API registers its own
// rows, in the routes file that serves them; Api::Routes() (api.cc) joins the
// rooms once, in a fixed order. The order is part of the contract: the first
// row whose method and pattern fit a request serves it, and a path's Allow
// header lists its methods in table order. Api::Segments indexes the joined
// table by position, so a row's address must stay in it for the process's life
// (each room's rows are static; the joined table is built once).
#pragma once

#include <span>
#include <string_view>

#include "api/api.h"
#include "http/server.h"

namespace docwright {

// One row per endpoint: the fast path (IsQuick) and the normal path (Resolve)
// read the same table.
struct Api::Route {
  std::string_view method;   // "GET" (also answers HEAD) or "POST"
  std::string_view pattern;  // "/v2/agent/{projectId}/job/{id}": a {name} is any one
                             // segment; the access log shows it as the route
  bool needs_key = true;     // false: /healthz, and the local forge's pages, opened from
                             // prLink in a browser, which carries no key (their
                             // unguessable id is what grants access)
  bool quick = false;        // answered on the I/O thread, from memory or the read cache
  bool rest = false;         // the last {name} takes one or more segments (the dashboard's paths)
  HttpResponse (Api::*serve)(const Call&, HttpRequest&) = nullptr;

  // The rooms, in the order Api::Routes() joins them. Members of Route, so
  // that their rows may name Api's private handlers.
  //
  // Health, the OpenAPI document and the dashboard's files (api/ui_routes.cc).
  static std::span<const Route> Service();
  // The local forge's pull requests (api/pull_request_routes.cc).
  static std::span<const Route> PullRequests();
  // A project's agent jobs, v2 (api.cc).
  static std::span<const Route> ProjectJobs();
  // The reference's deprecated v1 endpoints (api/v1_routes.cc).
  static std::span<const Route> V1();
  // A job by its id alone (api.cc). After ProjectJobs: a project whose id is
  // "job" keeps its routes.
  static std::span<const Route> JobById();
  // Sign-in sessions (api/session_routes.cc).
  static std::span<const Route> Sessions();
  // Keys and projects (api/key_routes.cc).
  static std::span<const Route> KeysAndProjects();
  // A project's context repositories and workflows (api/workflow_routes.cc).
  static std::span<const Route> Workflows();
  // Forges' webhook deliveries (api/hook_routes.cc).
  static std::span<const Route> Hooks();
};

}  // namespace docwright
