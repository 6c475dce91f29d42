// The request target as the HTTP server hands it to the API: any bytes Beast
// accepts in a request line. Checks that `ok` is exactly "starts with '/' and
// every '%' begins a %XX escape", and that the decoded segments and query pairs
// survive being encoded again.
#include "api/request_target.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "fuzz_check.h"

namespace docwright {
namespace {

bool EscapesWellFormed(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      return false;
    }
    i += 2;
  }
  return true;
}

std::string EncodeAll(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    auto b = static_cast<unsigned char>(c);
    out += {'%', kHex[b >> 4], kHex[b & 0xf]};
  }
  return out;
}

}  // namespace
}  // namespace docwright

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view target = fuzz::AsText(data, size);
  RequestTarget t = ParseTarget(target);

  std::string_view path = target.substr(0, target.find('?'));
  bool well_formed = !path.empty() && path[0] == '/' && EscapesWellFormed(target);
  FUZZ_CHECK(t.ok == well_formed);
  if (!t.ok) return 0;

  size_t slashes = static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
  FUZZ_CHECK(t.segments.size() == (path == "/" ? 0 : slashes));
  for (const auto& [key, value] : t.query) FUZZ_CHECK(!key.empty());

  std::string again = "/";
  for (size_t i = 0; i < t.segments.size(); ++i) {
    if (i > 0) again += '/';
    again += EncodeAll(t.segments[i]);
  }
  if (!t.query.empty()) again += '?';
  for (size_t i = 0; i < t.query.size(); ++i) {
    if (i > 0) again += '&';
    again += EncodeAll(t.query[i].first) + "=" + EncodeAll(t.query[i].second);
  }
  RequestTarget u = ParseTarget(again);
  FUZZ_CHECK(u.ok);
  FUZZ_CHECK(u.segments == t.segments);
  FUZZ_CHECK(u.query == t.query);
  return 0;
}
