#include "api/key_uses.h"

#include <spdlog/spdlog.h>

namespace docwright {
namespace {

constexpr UnixMillis kResolutionMillis = 60 * 1000;
// Beyond this many keys the memory of which were noted is dropped (each key is
// then noted once more): a bound, whatever the number of keys.
constexpr size_t kMaxNotedKeys = 100000;

}  // namespace

KeyUses::KeyUses(Store& store, std::chrono::milliseconds every)
    : store_(store), every_(every), thread_([this](std::stop_token stop) { Run(stop); }) {}

KeyUses::~KeyUses() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
  Flush();
}

void KeyUses::Note(const std::string& key_id) {
  UnixMillis now = NowMillis();
  MutexLock lock(mu_);
  auto it = noted_.find(key_id);
  if (it != noted_.end() && now - it->second < kResolutionMillis) return;
  if (it == noted_.end()) {
    if (noted_.size() >= kMaxNotedKeys) noted_.clear();
    it = noted_.emplace(key_id, now).first;
  }
  it->second = now;
  pending_.emplace_back(key_id, now);
}

void KeyUses::Flush() {
  MutexLock flushing(flush_mu_);
  std::vector<std::pair<std::string, UnixMillis>> uses;
  {
    MutexLock lock(mu_);
    uses.swap(pending_);
  }
  if (uses.empty()) return;
  Status s = store_.RecordKeyUses(uses);
  if (!s.ok()) spdlog::warn("could not record when API keys were last used: {}", s.message());
}

void KeyUses::Run(std::stop_token stop) {
  while (!stop.stop_requested()) {
    {
      MutexLock lock(mu_);
      const auto deadline = std::chrono::steady_clock::now() + every_;
      while (!stop.stop_requested() && lock.WaitUntil(wake_, stop, deadline)) {
      }
    }
    if (stop.stop_requested()) break;
    Flush();
  }
}

}  // namespace docwright
