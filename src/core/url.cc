#include "core/url.h"

#include <cctype>
#include <charconv>

#include "core/text.h"

namespace docwright {
namespace {

int DefaultPort(std::string_view scheme) {
  if (scheme == "http") return 80;
  if (scheme == "https") return 443;
  if (scheme == "ssh") return 22;
  if (scheme == "git") return 9418;
  return 0;
}

// Fills host and port from "host", "host:port", "[v6]" or "[v6]:port".
bool ReadHostPort(std::string_view hostport, Url& url) {
  std::string_view port;
  if (!hostport.empty() && hostport.front() == '[') {
    size_t close = hostport.find(']');
    if (close == std::string_view::npos) return false;
    url.host = Lower(hostport.substr(1, close - 1));
    std::string_view rest = hostport.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port = rest.substr(1);
    }
  } else {
    size_t colon = hostport.rfind(':');
    url.host = Lower(hostport.substr(0, colon));
    if (colon != std::string_view::npos) port = hostport.substr(colon + 1);
  }
  if (url.host.empty()) return false;
  if (port.empty()) {
    url.port = DefaultPort(url.scheme);
    return true;
  }
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), url.port);
  url.explicit_port = true;
  return ec == std::errc() && end == port.data() + port.size() && url.port > 0 && url.port <= 65535;
}

bool ValidScheme(std::string_view scheme) {
  if (scheme.empty() || !std::isalpha(static_cast<unsigned char>(scheme.front()))) return false;
  for (char c : scheme) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<Url> ParseUrl(std::string_view text) {
  Url url;
  size_t sep = text.find("://");
  if (sep == std::string_view::npos) {
    // scp-like "[user@]host:path": a colon before any slash. Anything else is
    // a local path.
    size_t colon = text.find(':');
    size_t slash = text.find('/');
    if (colon == std::string_view::npos || colon == 0 ||
        (slash != std::string_view::npos && slash < colon)) {
      return std::nullopt;
    }
    std::string_view host = text.substr(0, colon);
    if (size_t at = host.rfind('@'); at != std::string_view::npos) {
      host.remove_prefix(at + 1);
      url.has_userinfo = true;
    }
    if (host.find('[') != std::string_view::npos) return std::nullopt;
    url.scheme = "ssh";
    url.host = Lower(host);
    if (url.host.empty()) return std::nullopt;
    url.port = 22;
    url.path = std::string(text.substr(colon + 1));
    return url;
  }
  if (!ValidScheme(text.substr(0, sep))) return std::nullopt;
  url.scheme = Lower(text.substr(0, sep));
  if (url.scheme == "file") return std::nullopt;
  std::string_view rest = text.substr(sep + 3);
  size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
    url.has_userinfo = true;
  }
  if (!ReadHostPort(authority, url)) return std::nullopt;
  if (end != std::string_view::npos) {
    std::string_view after = rest.substr(end);
    url.path = std::string(after.substr(0, after.find_first_of("?#")));
  }
  return url;
}

std::string OriginText(const Url& url) {
  bool v6 = url.host.find(':') != std::string::npos;
  std::string out = url.scheme + "://" + (v6 ? "[" + url.host + "]" : url.host);
  if (url.explicit_port) out += ":" + std::to_string(url.port);
  return out;
}

std::string PercentEncode(std::string_view in) {
  std::string out;
  for (char ch : in) {
    auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      AppendHex(out, c, /*upper=*/true);
    }
  }
  return out;
}

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
      int hi = HexDigitValue(in[i + 1]), lo = HexDigitValue(in[i + 2]);
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

}  // namespace docwright
