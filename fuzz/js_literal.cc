// The data of a JS/TS module (sidebars.js, docusaurus.config.ts), read without
// running it (docs/internal.h ReadJsObject). Checks that what it reads is an
// object, and that its nesting stays within the layer's depth bound.
#include <string>

#include "docs/internal.h"
#include "fuzz_check.h"

namespace {

int Depth(const docwright::docs::Json& j, int depth) {
  int deepest = depth;
  if (j.is_object() || j.is_array()) {
    for (const auto& item : j) deepest = std::max(deepest, Depth(item, depth + 1));
  }
  return deepest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string source(fuzz::AsText(data, size));
  std::optional<docs::Json> object = docs::ReadJsObject(source);
  if (!object) return 0;
  FUZZ_CHECK(object->is_object());
  FUZZ_CHECK(Depth(*object, 0) <= docs::kMaxDepth + 3);
  return 0;
}
