// Who asks the store: the tenancy every job-level call of it carries.
#pragma once

#include <string>

namespace docwright {

// Who is asking: an organisation, and the project it names.
struct Scope {
  std::string org_id;
  std::string project_id;
};

}  // namespace docwright
