// When each API key was last used, recorded without slowing the requests that
// use it: a request notes its key in memory (at most once a minute a key is
// anything kept), and a thread of this object writes what was noted to the
// store every few seconds. A key's lastUsedAt is thus to the minute, and a
// listing may show a use a few seconds late (ListKeys flushes first).
#pragma once

#include <chrono>
#include <condition_variable>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "core/time.h"
#include "store/store.h"

namespace docwright {

class KeyUses {
 public:
  // `store` outlives this. The thread starts at once.
  explicit KeyUses(Store& store, std::chrono::milliseconds every = std::chrono::seconds(5));
  // Stops the thread and records what is still noted.
  ~KeyUses();
  KeyUses(const KeyUses&) = delete;
  KeyUses& operator=(const KeyUses&) = delete;

  // Notes that `key_id` authenticated a request now. Thread-safe; never waits
  // on the store (called on the I/O threads' quick path).
  void Note(const std::string& key_id) EXCLUDES(mu_);
  // Records what was noted now, on the caller's thread (which may wait on the
  // store). Thread-safe.
  void Flush() EXCLUDES(mu_, flush_mu_);

 private:
  void Run(std::stop_token stop) EXCLUDES(mu_, flush_mu_);

  Store& store_;
  const std::chrono::milliseconds every_;
  Mutex mu_;  // held only to copy, never over a store call
  std::condition_variable_any wake_;
  // When each key's use was last noted; a use within a minute of it is not.
  std::unordered_map<std::string, UnixMillis> noted_ GUARDED_BY(mu_);
  std::vector<std::pair<std::string, UnixMillis>> pending_ GUARDED_BY(mu_);  // not yet recorded
  Mutex flush_mu_;       // one Flush at a time, so uses reach the store in order
  std::jthread thread_;  // last: started once the rest is built
};

}  // namespace docwright
