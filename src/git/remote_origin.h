// Where a remote URL points, as far as credentials are concerned: scheme, host
// and port. Credentials configured for a remote are offered only to that
// origin, never to another one a redirect or a crafted URL names.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace docwright::git {

struct Origin {
  std::string scheme;  // "http", "https", "ssh" (also for scp-like URLs), "git"
  std::string host;    // lower case; an IPv6 address without brackets
  int port = 0;        // the scheme's default when the URL gives none

  bool operator==(const Origin&) const = default;
};

// The origin of `url` (scheme://[user[:password]@]host[:port][/path] or
// scp-like [user@]host:path); nullopt for a local path, a file:// URL or one
// that does not parse.
std::optional<Origin> OriginOf(std::string_view url);

// True only if both URLs parse and have the same origin.
bool SameOrigin(std::string_view a, std::string_view b);

}  // namespace docwright::git
