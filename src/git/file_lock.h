// An exclusive lock on a file, shared with other processes (flock(2)): the
// mirror's lock, so that `docwright worker`s on one machine take turns with it.
//
// Taking it waits a bounded time, never forever: a process that holds it while
// its own transfer hangs must not pin every other worker behind it. Released
// when the object is destroyed (or the process dies). Not thread-safe; one
// object per holder.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "core/status.h"

namespace docwright::git {

class FileLock {
 public:
  // Takes the lock on `path` (created if missing), trying every few tens of
  // milliseconds for up to `timeout` and asking `cancelled` (if set) between
  // tries. Unavailable: "the mirror is busy: ..." when it stays taken,
  // "cancelled", or the system's error.
  static Result<FileLock> Acquire(const std::string& path, std::chrono::milliseconds timeout,
                                  const std::function<bool()>& cancelled = {});

  // Whether the previous holder died holding the lock (its process was killed):
  // what it was writing under the lock is half-done, and the new holder may
  // clear it. Known from a byte the holder writes into the file when it takes
  // the lock and writes back when it lets go (not flushed to disk: after a
  // power loss the next holder may not know).
  bool previous_holder_died() const { return previous_holder_died_; }

  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  void Release();
  int fd_ = -1;
  bool held_ = false;  // only a holder marks the file
  bool previous_holder_died_ = false;
};

}  // namespace docwright::git
