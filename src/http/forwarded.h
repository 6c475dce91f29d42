// Who the client is behind a reverse proxy: address ranges of trusted proxies,
// and the client address read from the Forwarded (RFC 7239) or X-Forwarded-For
// headers that such a proxy adds. Pure functions over bounded input (the
// headers are within the server's header limit), linear in it, safe from any
// thread; fuzzed by fuzz/forwarded.cc.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace docwright {

// An IPv4 or IPv6 address and prefix length ("10.0.0.0/8", "::1", "fd00::/8").
// IPv4 addresses are held as IPv4-mapped IPv6 (::ffff:a.b.c.d), so either form
// of a client matches.
struct IpRange {
  std::array<uint8_t, 16> bytes{};
  int prefix = 128;  // in bits of the 16 bytes
  bool Contains(const std::array<uint8_t, 16>& address) const;
};

// Parses "ADDRESS" or "ADDRESS/BITS"; InvalidArgument naming `text` otherwise.
Result<IpRange> ParseIpRange(std::string_view text);

// An address in text ("192.0.2.1", "2001:db8::1", "::ffff:192.0.2.1"), as
// bytes; nullopt for anything else.
std::optional<std::array<uint8_t, 16>> ParseIpAddress(std::string_view text);

// The header a reverse proxy names the client in. Only the one the proxy
// writes may be read: a proxy passes the other on from the client as it came.
enum class ForwardedHeader {
  kXForwardedFor,  // "X-Forwarded-For: client, proxy1" (nginx, HAProxy, most others)
  kForwarded,      // RFC 7239 "Forwarded: for=client;proto=https, for=proxy1"
};

// The address of the client a request came from. `peer` is the address the
// connection came from; when it is in `trusted`, `header` (every line of the
// `kind` header, comma-joined) is read: walking it from the right, past every
// trusted proxy, the first address that is not trusted is the client's. An
// element that is not an address (obfuscated, "unknown", garbage) ends the walk
// at the proxy that added it. The result is an address in text, never header
// text.
std::string ClientAddress(std::string_view peer, std::string_view header, ForwardedHeader kind,
                          const std::vector<IpRange>& trusted);

// Whether `address` (as text) is in one of `ranges`.
bool InRanges(std::string_view address, const std::vector<IpRange>& ranges);

}  // namespace docwright
