#include "api/request_target.h"

namespace docwright {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string PercentDecode(std::string_view in, bool plus_is_space, bool* ok) {
  if (in.find_first_of(plus_is_space ? "%+" : "%") == std::string_view::npos) {
    return std::string(in);
  }
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) {
        *ok = false;
        return {};
      }
      // Two hex digits, nothing else: from_chars alone would take "%-1" as -1.
      int hi = HexDigit(in[i + 1]), lo = HexDigit(in[i + 2]);
      if (hi < 0 || lo < 0) {
        *ok = false;
        return {};
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

RequestTarget ParseTarget(std::string_view target) {
  RequestTarget t;
  size_t q = target.find('?');
  std::string_view path = target.substr(0, q);
  std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  if (path.empty() || path[0] != '/') {
    t.ok = false;
    return t;
  }
  path.remove_prefix(1);
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view seg = path.substr(0, slash);
    t.segments.push_back(PercentDecode(seg, false, &t.ok));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
    if (path.empty()) t.segments.emplace_back();  // a trailing slash is an empty segment
  }
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    size_t eq = pair.find('=');
    std::string key = PercentDecode(pair.substr(0, eq), true, &t.ok);
    std::string value =
        eq == std::string_view::npos ? std::string() : PercentDecode(pair.substr(eq + 1), true, &t.ok);
    if (!key.empty()) t.query.emplace_back(std::move(key), std::move(value));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return t;
}

}  // namespace docwright
