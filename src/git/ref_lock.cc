#include "git/ref_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "git/socket_stream.h"

namespace docwright::git {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kRecordName = "docwright-ref-lock";
constexpr const char* kTempName = "docwright-ref-lock.new";
// A record is four short lines; anything longer was not written by us.
constexpr size_t kMaxRecordBytes = 4096;

// Empties the record. A failure leaves it for the next holder, who checks it
// against the lock before acting on it.
void ClearRecord(int fd) {
  if (::ftruncate(fd, 0) != 0) return;
}

Status SystemError(const std::string& what) {
  return Status::Unavailable(what + ": " + std::strerror(errno));
}

// A ref name as this service writes them, safe to join to the git directory: a
// record is read from a file anyone with write access to the repository could
// have written, and must not name a file outside its refs.
bool SafeRef(const std::string& ref) {
  if (!ref.starts_with("refs/") || ref.size() > 1024) return false;
  if (ref.find("..") != std::string::npos || ref.find("//") != std::string::npos) return false;
  for (char c : ref) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') return false;
  }
  return ref.back() != '/';
}

// The file a record describes: which ref's lock, and the lock's identity.
struct Record {
  std::string ref;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string content;

  std::string Text() const {
    return "docwright ref lock v1\n" + ref + "\n" + std::to_string(dev) + " " +
           std::to_string(ino) + "\n" + content;  // content ends in "\n"
  }
  static std::optional<Record> Parse(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size() && lines.size() < 5) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) return std::nullopt;  // cut short: not written whole
      lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    if (lines.size() != 4 || start != text.size() || lines[0] != "docwright ref lock v1") {
      return std::nullopt;
    }
    Record r;
    r.ref = lines[1];
    unsigned long long dev = 0, ino = 0;
    char extra = 0;
    if (!SafeRef(r.ref) || std::sscanf(lines[2].c_str(), "%llu %llu%c", &dev, &ino, &extra) != 2) {
      return std::nullopt;
    }
    r.dev = static_cast<dev_t>(dev);
    r.ino = static_cast<ino_t>(ino);
    r.content = lines[3] + "\n";
    return r;
  }
};

std::string ReadAll(int fd, size_t max_bytes) {
  std::string out(max_bytes + 1, '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

Status WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return SystemError("cannot write the ref lock's record");
    done += static_cast<size_t>(n);
  }
  return Status();
}

}  // namespace

struct RefLock::Held {
  std::string git_dir, ref, lock_path;
  int record_fd = -1;  // flock'd while the ref lock is ours
  bool locked = false;

  ~Held() {
    if (locked) ::unlink(lock_path.c_str());
    if (record_fd >= 0) {
      // The record goes after the lock: a death in between leaves a record
      // that names no lock, which the next process clears.
      ClearRecord(record_fd);
      ::close(record_fd);  // releases the flock
    }
  }

  // Clears what a docwright process that died holding the flock left. Called with
  // the flock held.
  void Recover() {
    std::string text = ReadAll(record_fd, kMaxRecordBytes);
    if (text.empty()) return;
    if (auto record = Record::Parse(text)) {
      std::string left = git_dir + record->ref + ".lock";
      struct stat st {};
      if (::lstat(left.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == record->dev &&
          st.st_ino == record->ino) {
        int fd = ::open(left.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        bool same = fd >= 0 && ReadAll(fd, 100) == record->content;
        if (fd >= 0) ::close(fd);
        if (same) ::unlink(left.c_str());
      }
    }
    ::unlink((git_dir + kTempName).c_str());
    ClearRecord(record_fd);
  }

  // One attempt with the flock held: true when the lock is ours; false when
  // another writer holds it.
  Result<bool> TryLock(const std::string& new_id) {
    Recover();
    std::string folder = lock_path.substr(0, lock_path.rfind('/'));
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) {
      return Status::Unavailable("cannot create " + ref.substr(0, ref.rfind('/')) +
                                 " (is a branch of that name in the way?): " + ec.message());
    }
    const std::string temp = git_dir + kTempName;
    const std::string content = new_id + "\n";
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) return SystemError("cannot write to the remote");
    struct stat st {};
    bool written =
        ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()) &&
        ::fstat(fd, &st) == 0;
    ::close(fd);
    if (!written) {
      ::unlink(temp.c_str());
      return SystemError("cannot write to the remote");
    }
    Record record{.ref = ref, .dev = st.st_dev, .ino = st.st_ino, .content = content};
    if (Status s = WriteAll(record_fd, record.Text()); !s.ok()) {
      ::unlink(temp.c_str());
      return s;
    }
    // The lock is made whole and at once, as git's O_EXCL create: a link fails if
    // the name exists.
    int linked = ::link(temp.c_str(), lock_path.c_str());
    int link_errno = errno;
    ::unlink(temp.c_str());
    if (linked == 0) {
      locked = true;
      return true;
    }
    ClearRecord(record_fd);
    if (link_errno == EEXIST) return false;
    errno = link_errno;
    return SystemError("cannot lock " + ref + " in the remote");
  }
};

RefLock::RefLock(std::unique_ptr<Held> held) : held_(std::move(held)) {}
RefLock::~RefLock() = default;
RefLock::RefLock(RefLock&&) noexcept = default;
RefLock& RefLock::operator=(RefLock&&) noexcept = default;

Result<RefLock> RefLock::Acquire(const std::string& git_dir, const std::string& ref,
                                 const std::string& new_id, std::chrono::milliseconds wait) {
  if (!SafeRef(ref)) return Status::InvalidArgument("not a ref name: " + ref);
  const auto until = Clock::now() + wait;
  for (;;) {
    auto held = std::make_unique<Held>();
    held->git_dir = git_dir;
    held->ref = ref;
    held->lock_path = git_dir + ref + ".lock";
    held->record_fd =
        ::open((git_dir + kRecordName).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (held->record_fd < 0) return SystemError("cannot lock " + ref + " in the remote");
    // Other docwright processes hold the flock for one ref update, a few
    // milliseconds; it is taken again for each attempt so that one waiting on
    // another writer's lock does not hold up updates of other refs.
    bool flocked = false;
    while (!(flocked = ::flock(held->record_fd, LOCK_EX | LOCK_NB) == 0)) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        return SystemError("cannot lock " + ref + " in the remote");
      }
      if (Clock::now() >= until) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (flocked) {
      auto ours = held->TryLock(new_id);
      if (!ours.ok()) return ours.status();
      if (*ours) return RefLock(std::move(held));
    }
    held.reset();  // releases the flock while waiting
    if (Clock::now() >= until) {
      return Status::Unavailable("another process holds git's lock on the branch (" + ref +
                                 ".lock) for over " + FormatSeconds(wait) +
                                 "; if no git process is updating it, remove that file");
    }
    // git's own wait for a ref lock (core.filesRefLockTimeout) polls likewise.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Status RefLock::Commit() {
  if (!held_ || !held_->locked) return Status::Internal("the ref lock is not held");
  const std::string target = held_->git_dir + held_->ref;
  if (::rename(held_->lock_path.c_str(), target.c_str()) != 0) {
    return SystemError("cannot move " + held_->ref + " in the remote");
  }
  held_->locked = false;
  return Status();
}

}  // namespace docwright::git
