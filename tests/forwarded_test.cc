// http/forwarded: the client behind trusted proxies, and address ranges.
#include "http/forwarded.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace docwright {
namespace {

constexpr ForwardedHeader XFF = ForwardedHeader::kXForwardedFor;
constexpr ForwardedHeader RFC = ForwardedHeader::kForwarded;

std::vector<IpRange> Ranges(std::vector<std::string> texts) {
  std::vector<IpRange> out;
  for (const auto& t : texts) {
    auto r = ParseIpRange(t);
    EXPECT_TRUE(r.ok()) << t;
    if (r.ok()) out.push_back(*r);
  }
  return out;
}

TEST(Forwarded, RangesHoldTheirAddressesOnly) {
  auto ranges = Ranges({"10.0.0.0/8", "192.0.2.1", "fd00::/8", "::1"});
  EXPECT_TRUE(InRanges("10.255.0.1", ranges));
  EXPECT_TRUE(InRanges("::ffff:10.1.1.1", ranges)) << "an IPv4-mapped address is its IPv4";
  EXPECT_TRUE(InRanges("192.0.2.1", ranges));
  EXPECT_FALSE(InRanges("192.0.2.2", ranges));
  EXPECT_FALSE(InRanges("11.0.0.1", ranges));
  EXPECT_TRUE(InRanges("fd12::5", ranges));
  EXPECT_TRUE(InRanges("::1", ranges));
  EXPECT_FALSE(InRanges("::2", ranges));
  EXPECT_FALSE(InRanges("not an address", ranges));
  EXPECT_TRUE(InRanges("203.0.113.9", Ranges({"0.0.0.0/0"})));
  for (const char* bad : {"", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/x", "::/129", "10.0.0",
                          "host.example", "10.0.0.0/8/8", "1.2.3.4/0008"}) {
    EXPECT_FALSE(ParseIpRange(bad).ok()) << bad;
  }
}

TEST(Forwarded, OnlyATrustedPeerIsBelieved) {
  auto trusted = Ranges({"10.0.0.0/8"});
  EXPECT_EQ(ClientAddress("198.51.100.1", "203.0.113.7", XFF, trusted), "198.51.100.1");
  EXPECT_EQ(ClientAddress("10.0.0.1", "203.0.113.7", XFF, trusted), "203.0.113.7");
  EXPECT_EQ(ClientAddress("10.0.0.1", "203.0.113.7", XFF, {}), "10.0.0.1");
  EXPECT_EQ(ClientAddress("::ffff:10.0.0.1", "203.0.113.7", XFF, trusted), "203.0.113.7");
}

TEST(Forwarded, TheRightmostUntrustedAddressIsTheClient) {
  auto trusted = Ranges({"10.0.0.0/8"});
  // A client cannot name itself: the proxy appends what it saw.
  EXPECT_EQ(ClientAddress("10.0.0.1", "6.6.6.6, 203.0.113.7, 10.9.9.9", XFF, trusted),
            "203.0.113.7");
  EXPECT_EQ(ClientAddress("10.0.0.1", " 203.0.113.7:4711 ", XFF, trusted), "203.0.113.7");
  EXPECT_EQ(ClientAddress("10.0.0.1", "[2001:db8::7]:443", XFF, trusted), "2001:db8::7");
  EXPECT_EQ(ClientAddress("10.0.0.1", "2001:db8::7", XFF, trusted), "2001:db8::7");
  // Every hop trusted: the farthest.
  EXPECT_EQ(ClientAddress("10.0.0.1", "10.0.0.3, 10.0.0.2", XFF, trusted), "10.0.0.3");
  // What is not an address ends the walk at the proxy that wrote it.
  EXPECT_EQ(ClientAddress("10.0.0.1", "203.0.113.7, unknown", XFF, trusted), "10.0.0.1");
  EXPECT_EQ(ClientAddress("10.0.0.1", "203.0.113.7, 10.0.0.2, <script>", XFF, trusted), "10.0.0.1");
  EXPECT_EQ(ClientAddress("10.0.0.1", "<script>, 10.0.0.2", XFF, trusted), "10.0.0.2");
  EXPECT_EQ(ClientAddress("10.0.0.1", "", XFF, trusted), "10.0.0.1");
}

TEST(Forwarded, OnlyTheHeaderTheProxyWritesIsRead) {
  auto trusted = Ranges({"10.0.0.0/8"});
  // A client's own Forwarded, passed on by a proxy that writes X-Forwarded-For,
  // is never read, and the other way round.
  EXPECT_EQ(ClientAddress("10.0.0.1", "203.0.113.7", XFF, trusted), "203.0.113.7");
  EXPECT_EQ(ClientAddress("10.0.0.1", "for=6.6.6.6", XFF, trusted), "10.0.0.1");
  EXPECT_EQ(ClientAddress("10.0.0.1", "6.6.6.6", RFC, trusted), "10.0.0.1");
  EXPECT_EQ(ClientAddress("10.0.0.1", "for=203.0.113.7;proto=https", RFC, trusted), "203.0.113.7");
  EXPECT_EQ(
      ClientAddress("10.0.0.1", R"(For="[2001:db8:cafe::17]:4711", for=10.0.0.4)", RFC, trusted),
      "2001:db8:cafe::17");
  EXPECT_EQ(ClientAddress("10.0.0.1", R"(for="203.0.113.7:80";by=10.0.0.1)", RFC, trusted),
            "203.0.113.7");
  EXPECT_EQ(ClientAddress("10.0.0.1", "for=_hidden, for=10.0.0.5", RFC, trusted), "10.0.0.5");
  EXPECT_EQ(ClientAddress("10.0.0.1", "proto=http", RFC, trusted), "10.0.0.1");
  EXPECT_EQ(ClientAddress("10.0.0.1", R"(for="a,b", for=10.0.0.5)", RFC, trusted), "10.0.0.5");
}

}  // namespace
}  // namespace docwright
