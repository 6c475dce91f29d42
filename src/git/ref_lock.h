// Git's lock on one ref of a repository on this machine, taken as git takes it:
// `<ref>.lock` created exclusively and holding the new value, then renamed onto
// the ref to move it. So the lease holds against any other writer, the git
// command line included. And recoverable: a lock this service left behind (its
// process was killed while holding it) is recognised as its own and removed by
// the next process that wants the ref, while a lock anyone else holds is
// waited for, within a bound, and never taken away.
//
// How a lock is known to be docwright's: a docwright process takes a ref's lock
// only while it holds flock(2) on `<git dir>/docwright-ref-lock`, and before
// creating `<ref>.lock` it writes into that file which ref it locks and the
// identity (device, inode) and content of the file it makes the lock from: the
// lock is a hard link to that file. It clears the record once the lock is gone.
// A process that takes the flock and finds a record knows that its writer died
// holding the flock; the lock named there is removed only if it is still that
// very file (same inode, modification time and content), so a lock someone else
// took since stays. The path is walked without following symbolic links.
//
// What a killed process may leave: the record (cleared by the next process) and
// `docwright-ref-lock.new` (replaced by the next process); never a lock that
// stops a later push.
//
// Internal to the git engine. One object per holder; not thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace docwright::git {

// The record in `<git dir>/docwright-ref-lock`: the ref whose lock a docwright
// process made, and that lock file's device, inode, modification time (which
// link(2) and rename(2) keep) and content. Four lines:
//   docwright ref lock v1
//   refs/heads/<branch>
//   <device> <inode> <modified, ns since the epoch>
//   <content, the ref's new id>
// Parse refuses anything else, a record cut short included, and a ref that
// could name a file outside the repository's refs (the file may have been
// written by anyone who can write the repository).
struct RefLockRecord {
  std::string ref;
  dev_t dev = 0;
  ino_t ino = 0;
  int64_t modified_ns = 0;
  std::string content;  // ends in "\n"

  std::string Text() const;
  static std::optional<RefLockRecord> Parse(std::string_view text);
};

class RefLock {
 public:
  // Takes the lock on `ref` ("refs/heads/...", already checked) of the repository
  // whose git directory is `git_dir` (ending in '/'), with `new_id` (hex) as the
  // value Commit gives the ref; first removes a lock a dead docwright process
  // left. Waits up to `wait` for another writer's lock to go. Unavailable: the
  // ref stays locked ("another process holds ... for over ..."), other docwright
  // processes keep the repository's ref updates busy for as long, a ref is in
  // the way of its folder, or the system's error.
  static Result<RefLock> Acquire(const std::string& git_dir, const std::string& ref,
                                 const std::string& new_id, std::chrono::milliseconds wait);

  // Moves the ref to the new value (renames the lock onto it); the lock is gone
  // either way. Unavailable if the ref cannot be written (a folder of refs
  // where the ref would be, say).
  Status Commit();

  // Without Commit, the ref is left as it was and the lock removed.
  ~RefLock();
  RefLock(RefLock&&) noexcept;
  RefLock& operator=(RefLock&&) noexcept;

 private:
  struct Held;
  explicit RefLock(std::unique_ptr<Held> held);
  std::unique_ptr<Held> held_;
};

}  // namespace docwright::git
