#include "git/remote_origin.h"

#include "core/url.h"

namespace docwright::git {

std::optional<Origin> OriginOf(std::string_view remote) {
  std::optional<Url> url = ParseUrl(remote);
  if (!url) return std::nullopt;
  if (url->scheme == "ssh+git" || url->scheme == "git+ssh") {
    url->scheme = "ssh";
    if (!url->explicit_port) url->port = 22;
  }
  if (url->scheme != "http" && url->scheme != "https" && url->scheme != "ssh" &&
      url->scheme != "git") {
    return std::nullopt;
  }
  return Origin{url->scheme, url->host, url->port};
}

bool SameOrigin(std::string_view a, std::string_view b) {
  auto first = OriginOf(a);
  auto second = OriginOf(b);
  return first && second && *first == *second;
}

}  // namespace docwright::git
