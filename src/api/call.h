// Internal to api/: a request matched to its route, as the routes' handlers
// (api.cc, v1_routes.cc) are given it.
#pragma once

#include <string>

#include "api/api.h"
#include "api/request_target.h"
#include "store/store.h"

namespace docwright {

// A request matched to its route, with what it names, its key checked.
struct Api::Call {
  const Route* route = nullptr;
  RequestTarget target;
  Scope scope;         // routes that need a key: the key's organisation and the project
  std::string job_id;  // routes with a job's {id}
};

}  // namespace docwright
