// The Cookie header reader: whatever the header, the value is a part of it
// holding no separator, and a header that is only the cookie gives it back.
#include <string>

#include "fuzz_check.h"
#include "http/cookie.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view header = fuzz::AsText(data, size);
  for (std::string_view name : {"dw_session", "a", ""}) {
    std::string_view value = CookieValue(header, name);
    if (value.empty()) continue;
    FUZZ_CHECK(value.data() >= header.data() &&
               value.data() + value.size() <= header.data() + header.size());
    FUZZ_CHECK(value.find(';') == std::string_view::npos);
  }
  // A value without separators, quotes or blanks comes back as it was put in.
  std::string token;
  for (char c : header) {
    if (c != ';' && c != '"' && c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\0' &&
        c != '\v' && c != '\f') {
      token.push_back(c);
    }
  }
  if (!token.empty()) {
    std::string line = "other=1; dw_session=" + token + "; dw_session=second";
    FUZZ_CHECK(CookieValue(line, "dw_session") == token);
  }
  return 0;
}
