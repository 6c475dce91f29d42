// Internal to api/: a request matched to its route, as the routes' handlers
// (api.cc, v1_routes.cc, session_routes.cc, key_routes.cc) are given it.
#pragma once

#include <optional>
#include <string>

#include "api/api.h"
#include "api/request_target.h"
#include "core/api_key.h"
#include "store/store.h"

namespace docwright {

// A request matched to its route, with what it names, its key checked.
struct Api::Call {
  const Route* route = nullptr;
  RequestTarget target;
  Scope scope;         // routes that need a key: the key's organisation and the project
  std::string job_id;  // routes with a job's {id}
  ApiKey key;          // routes that need a key: the key asking
  // Set when the key came from a session cookie rather than a Bearer header.
  std::optional<Session> session;
};

}  // namespace docwright
