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

Result<FileLock> FileLock::Acquire(const std::string& path, std::chrono::milliseconds timeout,
                                   const std::function<bool()>& cancelled) {
  FileLock lock(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (lock.fd_ < 0) {
    return Status::Unavailable("cannot lock the mirror: " + std::string(std::strerror(errno)));
  }
  auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (::flock(lock.fd_, LOCK_EX | LOCK_NB) == 0) return lock;
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

FileLock::FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace docwright::git
