#include "api/sign_in_limiter.h"

#include <gtest/gtest.h>

#include <string>

namespace docwright {
namespace {

TEST(SignInLimiterTest, AnAddressHasItsAttemptsAMinuteThenWaits) {
  SignInLimiter limiter(3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.Admit("192.0.2.1"), 0) << i;
  int wait = limiter.Admit("192.0.2.1");
  EXPECT_GE(wait, 1);
  EXPECT_LE(wait, 60);
  EXPECT_EQ(limiter.Admit("192.0.2.2"), 0) << "another address has its own window";
}

TEST(SignInLimiterTest, AnIpv6HostCountsByItsSlash64WhateverItsSpelling) {
  SignInLimiter limiter(2);
  EXPECT_EQ(limiter.Admit("2001:db8:1:2::1"), 0);
  EXPECT_EQ(limiter.Admit("2001:0db8:0001:0002:ffff:ffff:ffff:fffe"), 0);
  EXPECT_GT(limiter.Admit("2001:db8:1:2:abcd::9"), 0) << "the same /64";
  EXPECT_EQ(limiter.Admit("2001:db8:1:3::1"), 0) << "the next /64 is another network";
}

TEST(SignInLimiterTest, AFloodOfAddressesDoesNotShutOutANewcomer) {
  SignInLimiter limiter(1, /*max_addresses=*/100);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(limiter.Admit("198.51.100." + std::to_string(i)), 0);
  }
  // Every window is live and the table is full: a newcomer still signs in,
  // and the bound of one a minute still holds for it.
  EXPECT_EQ(limiter.Admit("203.0.113.7"), 0);
  EXPECT_GT(limiter.Admit("203.0.113.7"), 0);
}

}  // namespace
}  // namespace docwright
