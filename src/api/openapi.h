// docwright's OpenAPI document (docs/openapi.json), as the binary was built
// with it: the build embeds the file's bytes (scripts/openapi/embed.cmake), and
// GET /openapi.json serves them unchanged. A constant; safe from any thread.
#pragma once

#include <string_view>

namespace docwright {

std::string_view OpenApiJson();

}  // namespace docwright
