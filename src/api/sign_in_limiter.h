// The bound on sign-in attempts (POST /v2/session) per client address: a fixed
// window of a minute, `per_minute` attempts in it. Guessing a key is hopeless
// (256 bits), so this bounds the work and the sessions a client can make, not
// the odds. An IPv6 client counts by its /64 (one host is given a whole /64).
// Memory is bounded: at most `max_addresses` windows are kept; a new address
// when they are all live takes the oldest one's place, so no flood of
// addresses can keep everyone else from signing in.
#pragma once

#include <chrono>
#include <string>
#include <unordered_map>

#include "core/mutex.h"

namespace docwright {

class SignInLimiter {
 public:
  explicit SignInLimiter(int per_minute, size_t max_addresses = 10000)
      : per_minute_(per_minute), max_addresses_(max_addresses) {}

  // Counts an attempt from `address`: 0 if it may go on, else the seconds
  // until it may try again. Thread-safe.
  int Admit(const std::string& client) EXCLUDES(mu_);

 private:
  struct Window {
    std::chrono::steady_clock::time_point start;
    int attempts = 0;
  };
  const int per_minute_;
  const size_t max_addresses_;
  Mutex mu_;
  std::unordered_map<std::string, Window> windows_ GUARDED_BY(mu_);
};

}  // namespace docwright
