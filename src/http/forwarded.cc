#include "http/forwarded.h"

#include <arpa/inet.h>

#include <cstring>

#include "core/text.h"

namespace docwright {
namespace {

using Bytes = std::array<uint8_t, 16>;

std::string Text(const Bytes& b) {
  char out[INET6_ADDRSTRLEN] = {};
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(b.data(), kMapped, sizeof kMapped) == 0) {
    inet_ntop(AF_INET, b.data() + 12, out, sizeof out);
  } else {
    inet_ntop(AF_INET6, b.data(), out, sizeof out);
  }
  return out;
}

// The address in one forwarded node: "192.0.2.1", "192.0.2.1:4711",
// "[2001:db8::1]", "[2001:db8::1]:4711", or a bare IPv6 address; quotes of a
// Forwarded quoted-string already removed.
std::optional<Bytes> NodeAddress(std::string_view node) {
  node = TrimSpace(node);
  if (!node.empty() && node.front() == '[') {
    size_t close = node.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    return ParseIpAddress(node.substr(1, close - 1));
  }
  if (auto whole = ParseIpAddress(node)) return whole;
  size_t colon = node.find(':');
  if (colon != std::string_view::npos && node.find(':', colon + 1) == std::string_view::npos) {
    return ParseIpAddress(node.substr(0, colon));  // IPv4 with a port
  }
  return std::nullopt;
}

// Splits `list` at commas outside double quotes.
std::vector<std::string_view> SplitList(std::string_view list) {
  std::vector<std::string_view> out;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    char c = list[i];
    if (c == '"') quoted = !quoted;
    if (c == '\\' && quoted) ++i;  // an escaped character of a quoted-string
    if (c == ',' && !quoted) {
      out.push_back(list.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(list.substr(std::min(start, list.size())));
  return out;
}

// The for= node of one Forwarded element ("for=192.0.2.60;proto=http").
std::optional<Bytes> ForwardedFor(std::string_view element) {
  size_t pos = 0;
  while (pos <= element.size()) {
    size_t semi = element.find(';', pos);
    if (semi == std::string_view::npos) semi = element.size();
    std::string_view pair = TrimSpace(element.substr(pos, semi - pos));
    pos = semi + 1;
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = TrimSpace(pair.substr(0, eq));
    if (name.size() != 3 || (name[0] | 0x20) != 'f' || (name[1] | 0x20) != 'o' ||
        (name[2] | 0x20) != 'r') {
      continue;
    }
    std::string_view value = TrimSpace(pair.substr(eq + 1));
    std::string unquoted;
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
      for (size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '\\' && i + 1 < value.size()) ++i;
        unquoted.push_back(value[i]);
      }
      return NodeAddress(unquoted);
    }
    return NodeAddress(value);
  }
  return std::nullopt;
}

bool Trusted(const Bytes& address, const std::vector<IpRange>& trusted) {
  for (const IpRange& r : trusted) {
    if (r.Contains(address)) return true;
  }
  return false;
}

}  // namespace

bool IpRange::Contains(const Bytes& address) const {
  int bits = prefix;
  for (size_t i = 0; i < 16 && bits > 0; ++i, bits -= 8) {
    uint8_t mask = bits >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - bits));
    if ((address[i] & mask) != (bytes[i] & mask)) return false;
  }
  return true;
}

std::optional<Bytes> ParseIpAddress(std::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  char buf[INET6_ADDRSTRLEN] = {};
  std::memcpy(buf, text.data(), text.size());
  Bytes out{};
  in_addr v4{};
  if (inet_pton(AF_INET, buf, &v4) == 1) {
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &v4, 4);
    return out;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, buf, &v6) == 1) {
    std::memcpy(out.data(), &v6, 16);
    return out;
  }
  return std::nullopt;
}

Result<IpRange> ParseIpRange(std::string_view text) {
  auto bad = [&] {
    return Status::InvalidArgument("not an address or address/bits range: " + std::string(text));
  };
  size_t slash = text.find('/');
  auto address = ParseIpAddress(text.substr(0, slash));
  if (!address) return bad();
  IpRange range;
  range.bytes = *address;
  const bool v4 = text.substr(0, slash).find(':') == std::string_view::npos;
  range.prefix = 128;
  if (slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 3) return bad();
    int bits = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return bad();
      bits = bits * 10 + (c - '0');
    }
    if (bits > (v4 ? 32 : 128)) return bad();
    range.prefix = v4 ? 96 + bits : bits;
  }
  return range;
}

bool InRanges(std::string_view address, const std::vector<IpRange>& ranges) {
  auto parsed = ParseIpAddress(address);
  return parsed && Trusted(*parsed, ranges);
}

std::string ClientAddress(std::string_view peer, std::string_view header, ForwardedHeader kind,
                          const std::vector<IpRange>& trusted) {
  auto peer_address = ParseIpAddress(peer);
  if (!peer_address) return std::string(peer);
  std::string current = Text(*peer_address);
  if (trusted.empty() || !Trusted(*peer_address, trusted)) return current;
  const bool use_forwarded = kind == ForwardedHeader::kForwarded;
  std::vector<std::string_view> nodes = SplitList(header);
  for (size_t i = nodes.size(); i-- > 0;) {
    std::optional<Bytes> next = use_forwarded ? ForwardedFor(nodes[i]) : NodeAddress(nodes[i]);
    if (!next) return current;  // the proxy that added it is the last one known
    current = Text(*next);
    if (!Trusted(*next, trusted)) return current;
  }
  return current;
}

}  // namespace docwright
