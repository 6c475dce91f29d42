#include "git/remote_origin.h"

#include <cctype>
#include <charconv>

namespace docwright::git {
namespace {

int DefaultPort(std::string_view scheme) {
  if (scheme == "http") return 80;
  if (scheme == "https") return 443;
  if (scheme == "ssh") return 22;
  if (scheme == "git") return 9418;
  return 0;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "host", "host:port", "[v6]" or "[v6]:port" (user information removed).
std::optional<Origin> FromHostPort(std::string scheme, std::string_view hostport) {
  Origin origin{std::move(scheme), "", 0};
  std::string_view port;
  if (!hostport.empty() && hostport.front() == '[') {
    size_t close = hostport.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    origin.host = Lower(hostport.substr(1, close - 1));
    std::string_view rest = hostport.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
    }
  } else {
    size_t colon = hostport.rfind(':');
    origin.host = Lower(hostport.substr(0, colon));
    if (colon != std::string_view::npos) port = hostport.substr(colon + 1);
  }
  if (origin.host.empty()) return std::nullopt;
  if (port.empty()) {
    origin.port = DefaultPort(origin.scheme);
  } else {
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), origin.port);
    if (ec != std::errc() || end != port.data() + port.size() || origin.port <= 0 ||
        origin.port > 65535) {
      return std::nullopt;
    }
  }
  return origin;
}

}  // namespace

std::optional<Origin> OriginOf(std::string_view url) {
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) {
    // scp-like "[user@]host:path": a colon before any slash. Anything else is
    // a local path.
    size_t colon = url.find(':');
    size_t slash = url.find('/');
    if (colon == std::string_view::npos || colon == 0 ||
        (slash != std::string_view::npos && slash < colon)) {
      return std::nullopt;
    }
    std::string_view host = url.substr(0, colon);
    if (size_t at = host.rfind('@'); at != std::string_view::npos) host.remove_prefix(at + 1);
    if (host.find('[') != std::string_view::npos) return std::nullopt;
    return FromHostPort("ssh", host);
  }
  std::string scheme = Lower(url.substr(0, sep));
  if (scheme == "ssh+git" || scheme == "git+ssh") scheme = "ssh";
  if (scheme != "http" && scheme != "https" && scheme != "ssh" && scheme != "git") {
    return std::nullopt;
  }
  std::string_view authority = url.substr(sep + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (size_t at = authority.rfind('@'); at != std::string_view::npos)
    authority.remove_prefix(at + 1);
  return FromHostPort(std::move(scheme), authority);
}

bool SameOrigin(std::string_view a, std::string_view b) {
  auto first = OriginOf(a);
  auto second = OriginOf(b);
  return first && second && *first == *second;
}

}  // namespace docwright::git
