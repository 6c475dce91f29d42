#include "git/ref_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "core/crash_point.h"
#include "git/socket_stream.h"

namespace docwright::git {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kRecordName = "docwright-ref-lock";
constexpr const char* kTempName = "docwright-ref-lock.new";
constexpr const char* kRecordVersion = "docwright ref lock v1";
// A record is four short lines; anything longer was not written by us.
constexpr size_t kMaxRecordBytes = 4096;
constexpr size_t kMaxContentBytes = 128;

Status SystemError(const std::string& what, int error = errno) {
  return Status::Unavailable(what + ": " + std::strerror(error));
}

// A ref name as this service writes them: under refs/, no climbing out of it,
// nothing a path could misread. A record is read from a file anyone with write
// access to the repository could have written.
bool SafeRef(std::string_view ref) {
  if (!ref.starts_with("refs/") || ref.size() > 1024 || ref.back() == '/') return false;
  if (ref.find("..") != std::string_view::npos || ref.find("//") != std::string_view::npos ||
      ref.find("/./") != std::string_view::npos) {
    return false;
  }
  for (char c : ref) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') return false;
  }
  return true;
}

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
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

bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

int64_t ModifiedNanos(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Removes the lock `record` describes if it is still that very file: same
// device, inode, modification time and content. The path is walked folder by
// folder without following symbolic links, and the file opened without
// blocking (a FIFO put there does not hang the push), so a record cannot lead
// outside the repository's refs or to anything but a plain file.
void RemoveIfStillThatFile(const std::string& git_dir, const RefLockRecord& record) {
  Fd dir(::open(git_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.fd < 0) return;
  std::string path = record.ref + ".lock";
  size_t start = 0;
  for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', start)) {
    std::string folder = path.substr(start, slash - start);
    int next = ::openat(dir.fd, folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) return;
    ::close(dir.fd);
    dir.fd = next;
    start = slash + 1;
  }
  std::string name = path.substr(start);
  Fd lock(::openat(dir.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (lock.fd < 0 || ::fstat(lock.fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  if (st.st_dev != record.dev || st.st_ino != record.ino ||
      ModifiedNanos(st) != record.modified_ns) {
    return;
  }
  if (ReadAll(lock.fd, kMaxContentBytes) != record.content) return;
  ::unlinkat(dir.fd, name.c_str(), 0);
}

// Removes the empty folders at and below `path` (a ref git left as a folder
// when a ref inside it went), so that the ref can be a file again, as git does.
// Stops at anything that is not an empty folder.
void RemoveEmptyFolders(const std::filesystem::path& path, int depth = 0) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (depth > 32 || !fs::is_directory(fs::symlink_status(path, ec))) return;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    RemoveEmptyFolders(entry.path(), depth + 1);
  }
  fs::remove(path, ec);  // only if empty
}

}  // namespace

std::string RefLockRecord::Text() const {
  return std::string(kRecordVersion) + "\n" + ref + "\n" + std::to_string(dev) + " " +
         std::to_string(ino) + " " + std::to_string(modified_ns) + "\n" + content;
}

std::optional<RefLockRecord> RefLockRecord::Parse(std::string_view text) {
  if (text.size() > kMaxRecordBytes) return std::nullopt;
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size() && lines.size() < 5) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) return std::nullopt;  // cut short: not written whole
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (lines.size() != 4 || start != text.size() || lines[0] != kRecordVersion) {
    return std::nullopt;
  }
  RefLockRecord r;
  if (!SafeRef(lines[1])) return std::nullopt;
  r.ref = std::string(lines[1]);
  // "<device> <inode> <modified ns>", decimal digits only.
  auto number = [](std::string_view digits, auto* out) {
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
      return false;
    }
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out);
    return ec == std::errc() && end == digits.data() + digits.size();
  };
  std::string_view numbers = lines[2];
  size_t first = numbers.find(' ');
  size_t second = first == std::string_view::npos ? first : numbers.find(' ', first + 1);
  if (second == std::string_view::npos || !number(numbers.substr(0, first), &r.dev) ||
      !number(numbers.substr(first + 1, second - first - 1), &r.ino) ||
      !number(numbers.substr(second + 1), &r.modified_ns)) {
    return std::nullopt;
  }
  if (lines[3].empty() || lines[3].size() >= kMaxContentBytes) return std::nullopt;
  r.content = std::string(lines[3]) + "\n";
  return r;
}

struct RefLock::Held {
  std::string git_dir, ref, lock_path;
  int record_fd = -1;
  bool flocked = false;  // only the flock's holder may touch the record
  bool locked = false;   // the ref's lock file is ours

  ~Held() {
    if (locked) ::unlink(lock_path.c_str());
    // The record goes after the lock: a death in between leaves a record that
    // names no lock, which the next holder clears.
    if (flocked) ClearRecord();
    if (record_fd >= 0) ::close(record_fd);  // releases the flock
  }

  bool ClearRecord() { return ::ftruncate(record_fd, 0) == 0; }

  // Clears what a docwright process that died holding the flock left: its lock,
  // if it is still there, and its temporary file. Called with the flock held.
  Status Recover() {
    std::string text = ReadAll(record_fd, kMaxRecordBytes);
    if (text.empty()) return Status();
    if (auto record = RefLockRecord::Parse(text)) RemoveIfStillThatFile(git_dir, *record);
    ::unlink((git_dir + kTempName).c_str());
    // A record that stayed would be read with the next one written over it.
    if (!ClearRecord()) return SystemError("cannot clear the remote's ref lock record");
    return Status();
  }

  // One attempt with the flock held: true when the lock is ours; false when
  // another writer holds it.
  Result<bool> TryLock(const std::string& new_id) {
    if (Status recovered = Recover(); !recovered.ok()) return recovered;
    std::string folder = lock_path.substr(0, lock_path.rfind('/'));
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) {
      return Status::Unavailable("cannot create " + ref.substr(0, ref.rfind('/')) +
                                 " (is a branch of that name in the way?): " + ec.message());
    }
    // The lock is made whole first, then put in place at once with link(2),
    // which fails if the name exists, as git's O_EXCL create does.
    const std::string temp = git_dir + kTempName;
    const std::string content = new_id + "\n";
    ::unlink(temp.c_str());
    Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644));
    if (fd.fd < 0) return SystemError("cannot write to the remote");
    struct stat st {};
    if (!WriteAll(fd.fd, content) || ::fstat(fd.fd, &st) != 0) {
      int error = errno ? errno : EIO;
      ::unlink(temp.c_str());
      return SystemError("cannot write to the remote", error);
    }
    RefLockRecord record{.ref = ref,
                         .dev = st.st_dev,
                         .ino = st.st_ino,
                         .modified_ns = ModifiedNanos(st),
                         .content = content};
    if (!WriteAll(record_fd, record.Text())) {
      int error = errno ? errno : EIO;
      ::unlink(temp.c_str());
      ClearRecord();
      return SystemError("cannot write the remote's ref lock record", error);
    }
    int linked = ::link(temp.c_str(), lock_path.c_str());
    int link_errno = errno;
    ::unlink(temp.c_str());
    if (linked == 0) {
      locked = true;
      return true;
    }
    ClearRecord();
    if (link_errno == EEXIST) return false;
    return SystemError("cannot lock " + ref + " in the remote", link_errno);
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
    while (!(held->flocked = ::flock(held->record_fd, LOCK_EX | LOCK_NB) == 0)) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        return SystemError("cannot lock " + ref + " in the remote");
      }
      if (Clock::now() >= until) {
        return Status::Unavailable(
            "other docwright processes have been updating the remote's "
            "branches for over " +
            FormatSeconds(wait) + " (" + kRecordName + " is locked)");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    auto ours = held->TryLock(new_id);
    if (!ours.ok()) return ours.status();
    if (*ours) return RefLock(std::move(held));
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
  int moved = ::rename(held_->lock_path.c_str(), target.c_str());
  if (moved != 0 && (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST)) {
    // Empty folders where the ref goes, left when refs inside it went.
    RemoveEmptyFolders(target);
    moved = ::rename(held_->lock_path.c_str(), target.c_str());
  }
  if (moved != 0) return SystemError("cannot move " + held_->ref + " in the remote");
  held_->locked = false;
  CrashPoint("push.ref-moved");  // the record still names the lock, which is gone
  return Status();
}

}  // namespace docwright::git
