// Text from repositories and models is stored in PostgreSQL, whose text must be
// well-formed UTF-8 without NUL: ScrubUtf8 must always give such text, give
// well-formed text back unchanged, and never grow more than three bytes a byte.
#include <string>

#include "core/text.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view in = fuzz::AsText(data, size);
  std::string out = ScrubUtf8(in);
  FUZZ_CHECK(Utf8Length(out).has_value());
  FUZZ_CHECK(out.find('\0') == std::string::npos);
  FUZZ_CHECK(out.size() <= 3 * in.size());
  if (Utf8Length(in).has_value() && in.find('\0') == std::string_view::npos) FUZZ_CHECK(out == in);
  FUZZ_CHECK(ScrubUtf8(out) == out);  // once is enough
  return 0;
}
