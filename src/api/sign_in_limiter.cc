#include "api/sign_in_limiter.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace docwright {
namespace {

constexpr std::chrono::seconds kWindow{60};

// Whole seconds from `now` until `end`, at least 1.
int SecondsUntil(std::chrono::steady_clock::time_point now,
                 std::chrono::steady_clock::time_point end) {
  auto left = std::chrono::ceil<std::chrono::seconds>(end - now).count();
  return static_cast<int>(std::clamp<int64_t>(left, 1, kWindow.count()));
}

// What an address counts as: an IPv6 address by its first 64 bits (whatever
// its spelling), anything else as it is.
std::string Bucket(const std::string& address) {
  unsigned char bytes[16];
  if (address.find(':') == std::string::npos || inet_pton(AF_INET6, address.c_str(), bytes) != 1) {
    return address;
  }
  std::memset(bytes + 8, 0, 8);
  char text[INET6_ADDRSTRLEN];
  if (!inet_ntop(AF_INET6, bytes, text, sizeof text)) return address;
  return std::string(text) + "/64";
}

}  // namespace

int SignInLimiter::Admit(const std::string& client) {
  const auto now = std::chrono::steady_clock::now();
  const std::string address = Bucket(client);
  MutexLock lock(mu_);
  auto it = windows_.find(address);
  if (it == windows_.end()) {
    if (windows_.size() >= max_addresses_) {
      std::erase_if(windows_, [&](const auto& kv) { return now - kv.second.start >= kWindow; });
      if (windows_.size() >= max_addresses_) {
        windows_.erase(std::min_element(windows_.begin(), windows_.end(), [](auto& a, auto& b) {
          return a.second.start < b.second.start;
        }));
      }
    }
    it = windows_.emplace(address, Window{now, 0}).first;
  }
  Window& w = it->second;
  if (now - w.start >= kWindow) w = Window{now, 0};
  if (w.attempts >= per_minute_) return SecondsUntil(now, w.start + kWindow);
  ++w.attempts;
  return 0;
}

}  // namespace docwright
