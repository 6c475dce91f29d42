// The model's request bodies are written by DumpJson (llm/json_body.h), which
// must write what nlohmann's dump writes, byte for byte: a provider's prompt
// cache reuses a prefix only when it is identical. The input is written both
// ways as one string (any bytes: invalid UTF-8, control characters), and, when
// it parses, as the JSON document it is; the outputs are compared.
#include "llm/json_body.h"

#include <nlohmann/json.hpp>
#include <string>

#include "fuzz_check.h"

namespace docwright {
namespace {

using nlohmann::json;

std::string Dumped(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace
}  // namespace docwright

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  const std::string text(fuzz::AsText(data, size));
  const json as_string = text;
  FUZZ_CHECK(llm::DumpJson(as_string) == Dumped(as_string));
  const json keyed = {{text, {text, 1}}, {"a", text}};
  FUZZ_CHECK(llm::DumpJson(keyed) == Dumped(keyed));
  // nlohmann's own dump recurses: documents are kept shallow enough for it.
  if (size > 4096) return 0;
  const json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded()) FUZZ_CHECK(llm::DumpJson(parsed) == Dumped(parsed));
  return 0;
}
