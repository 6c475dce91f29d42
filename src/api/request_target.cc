#include "api/request_target.h"

#include <charconv>

#include "core/url.h"

namespace docwright {

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
    std::string value = eq == std::string_view::npos
                            ? std::string()
                            : PercentDecode(pair.substr(eq + 1), true, &t.ok);
    if (!key.empty()) t.query.emplace_back(std::move(key), std::move(value));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return t;
}

bool ParseIntParam(std::string_view v, int lo, int hi, int* out) {
  int n = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size() || n < lo || n > hi) return false;
  *out = n;
  return true;
}

}  // namespace docwright
