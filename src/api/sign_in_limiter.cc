#include "api/sign_in_limiter.h"

#include <algorithm>

namespace docwright {
namespace {

constexpr std::chrono::seconds kWindow{60};

// Whole seconds from `now` until `end`, at least 1.
int SecondsUntil(std::chrono::steady_clock::time_point now,
                 std::chrono::steady_clock::time_point end) {
  auto left = std::chrono::ceil<std::chrono::seconds>(end - now).count();
  return static_cast<int>(std::clamp<int64_t>(left, 1, kWindow.count()));
}

}  // namespace

int SignInLimiter::Admit(const std::string& address) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  auto it = windows_.find(address);
  if (it == windows_.end()) {
    if (windows_.size() >= max_addresses_) {
      std::erase_if(windows_, [&](const auto& kv) { return now - kv.second.start >= kWindow; });
      if (windows_.size() >= max_addresses_) {
        auto oldest = std::min_element(windows_.begin(), windows_.end(), [](auto& a, auto& b) {
          return a.second.start < b.second.start;
        });
        return SecondsUntil(now, oldest->second.start + kWindow);
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
