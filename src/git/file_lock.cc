#include "git/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "git/socket_stream.h"

namespace docwright::git {
namespace {

// The lock file's first byte: held, or let go.
constexpr char kHeld = '1';
constexpr char kFree = '0';

}  // namespace

Result<FileLock> FileLock::Acquire(const std::string& path, std::chrono::milliseconds timeout,
                                   const std::function<bool()>& cancelled) {
  FileLock lock(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (lock.fd_ < 0) {
    return Status::Unavailable("cannot lock the mirror: " + std::string(std::strerror(errno)));
  }
  auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (::flock(lock.fd_, LOCK_EX | LOCK_NB) == 0) {
      char state = 0;
      lock.previous_holder_died_ = ::pread(lock.fd_, &state, 1, 0) == 1 && state == kHeld;
      if (::pwrite(lock.fd_, &kHeld, 1, 0) != 1) {
        return Status::Unavailable("cannot lock the mirror: " + std::string(std::strerror(errno)));
      }
      lock.held_ = true;
      return lock;
    }
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      return Status::Unavailable("cannot lock the mirror: " + std::string(std::strerror(errno)));
    }
    if (cancelled && cancelled()) return Status::Unavailable("cancelled");
    if (std::chrono::steady_clock::now() >= until) {
      return Status::Unavailable("the mirror is busy: another process has held its lock for over " +
                                 FormatSeconds(timeout));
    }
    // flock has no timed wait; a short sleep keeps the wait cheap and the
    // cancel check prompt.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

FileLock::FileLock(FileLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      held_(std::exchange(other.held_, false)),
      previous_holder_died_(other.previous_holder_died_) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    held_ = std::exchange(other.held_, false);
    previous_holder_died_ = other.previous_holder_died_;
  }
  return *this;
}

FileLock::~FileLock() { Release(); }

void FileLock::Release() {
  if (fd_ < 0) return;
  // Let go cleanly; a failed write only makes the next holder clean up for
  // nothing.
  if (held_ && ::pwrite(fd_, &kFree, 1, 0) != 1) errno = 0;
  held_ = false;
  ::close(fd_);  // releases the lock
  fd_ = -1;
}

}  // namespace docwright::git
