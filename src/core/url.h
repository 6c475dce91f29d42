// URLs, parsed in one place: the remote URLs of repositories (also git's
// scp-like form), the API URLs of forges and models. Pure functions, safe from
// any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace docwright {

struct Url {
  std::string scheme;  // lower case; "ssh" for the scp-like form
  std::string host;    // lower case; an IPv6 address without its brackets
  int port = 0;        // as given, else the scheme's default (0 if it has none)
  bool explicit_port = false;
  bool has_userinfo = false;  // "user[:password]@" before the host
  // What follows the authority, without query and fragment: "/owner/repo.git",
  // "" if nothing; for the scp-like form, what follows the colon.
  std::string path;
};

// Parses "scheme://[userinfo@]host[:port][/path][?query][#fragment]" and the
// scp-like "[user@]host:path". nullopt for a local path, a file: URL, an empty
// host, a bad port (not 1 to 65535) or an unclosed IPv6 bracket.
std::optional<Url> ParseUrl(std::string_view url);

// Percent-encodes every byte but RFC 3986's unreserved characters (letters,
// digits, "-._~"), for a path segment or a query value.
std::string PercentEncode(std::string_view in);

// Decodes %XX escapes; with `plus_is_space` (query strings only) '+' is a space.
// Sets *ok to false, and returns "", on a '%' not followed by two hex digits;
// leaves *ok alone otherwise. The result may hold any byte, NUL and '/' included:
// callers compare it, never use it as a path.
std::string PercentDecode(std::string_view in, bool plus_is_space, bool* ok);

// "scheme://host[:port]" (the port when it was given), for messages: never the
// path, query or credentials.
std::string OriginText(const Url& url);

}  // namespace docwright
