#include "http/cookie.h"

#include "core/text.h"

namespace docwright {

std::string_view CookieValue(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    size_t end = header.find(';');
    std::string_view pair = TrimSpace(header.substr(0, end));
    header = end == std::string_view::npos ? std::string_view() : header.substr(end + 1);
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos || TrimSpace(pair.substr(0, eq)) != name) continue;
    std::string_view value = TrimSpace(pair.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return {};
}

}  // namespace docwright
