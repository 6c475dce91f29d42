#include "core/secret_key_file.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/ids.h"
#include "core/text.h"

namespace docwright {
namespace {

constexpr size_t kMaxKeyFileBytes = 64 * 1024;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

Status IoError(const std::string& what, const std::string& path) {
  return Status::Unavailable(what + " " + path + ": " + std::strerror(errno));
}

// The text of the key file at `path`, once its kind and mode are checked.
// NotFound if there is none.
Result<std::string> ReadKeyFile(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return Status::NotFound("no secret key file at " + path);
    return IoError("cannot open the secret key file", path);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return IoError("cannot stat the secret key file", path);
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument("the secret key file " + path + " is not a regular file");
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status::InvalidArgument("the secret key file " + path +
                                   " may be read or written by its group or others (mode " + mode +
                                   "): it must be its owner's alone (chmod 600 " + path + ")");
  }
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("cannot read the secret key file", path);
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxKeyFileBytes) {
      OPENSSL_cleanse(text.data(), text.size());
      return Status::InvalidArgument("the secret key file " + path + " is too large");
    }
  }
  OPENSSL_cleanse(buf, sizeof buf);
  return text;
}

Result<SecretBox> ParseKeyFile(std::string text, const std::string& path) {
  std::vector<std::string> keys;
  std::string_view rest = text;
  Status bad;
  for (int line_no = 1; !rest.empty() && bad.ok(); ++line_no) {
    size_t eol = rest.find('\n');
    std::string_view line = Trim(rest.substr(0, eol), " \t\r");
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    if (line.empty() || line.front() == '#') continue;
    auto key = Base64Decode(line);
    if (!key || key->size() != kSecretKeyBytes) {
      bad = Status::InvalidArgument("line " + std::to_string(line_no) + " of the secret key file " +
                                    path + " is not a key (the base64 of " +
                                    std::to_string(kSecretKeyBytes) + " bytes)");
    }
    if (key) {
      keys.push_back(std::move(*key));
      OPENSSL_cleanse(key->data(), key->size());
    }
  }
  OPENSSL_cleanse(text.data(), text.size());
  if (bad.ok() && keys.empty()) {
    bad = Status::InvalidArgument("the secret key file " + path + " holds no key");
  }
  if (!bad.ok()) {
    for (std::string& k : keys) OPENSSL_cleanse(k.data(), k.size());
    return bad;
  }
  auto box = SecretBox::Make(std::move(keys));
  if (!box.ok()) return Status::InvalidArgument(box.status().message() + " in " + path);
  return box;
}

// Writes `text` to a new owner-only file beside `path` and returns its name;
// the caller links or renames it into place.
Result<std::string> WriteBeside(const std::string& path, std::string_view text) {
  std::string tmp = path + ".new-" + RandomBase62(12);
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd.get() < 0) return IoError("cannot create", tmp);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = IoError("cannot write", tmp);
      ::unlink(tmp.c_str());
      return s;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd.get()) != 0) {
    Status s = IoError("cannot sync", tmp);
    ::unlink(tmp.c_str());
    return s;
  }
  return tmp;
}

void SyncFolderOf(const std::string& path) {
  std::string folder = std::filesystem::path(path).parent_path().string();
  Fd dir(::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0) ::fsync(dir.get());
}

std::string NewKeyLine() {
  std::string key = RandomBytes(kSecretKeyBytes);
  std::string line = Base64Encode(key) + "\n";
  OPENSSL_cleanse(key.data(), key.size());
  return line;
}

// Creates the key file with one new key. The key is written whole to a file of
// its own first and linked into place (which, as O_EXCL, fails if the name is
// taken): no process ever reads a half-written key file.
Status CreateKeyFile(const std::string& path) {
  auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::exists(parent, ec)) {
    std::filesystem::create_directories(parent, ec);
    if (ec) return Status::Unavailable("cannot create " + parent.string() + ": " + ec.message());
    ::chmod(parent.c_str(), 0700);
  }
  std::string line = NewKeyLine();
  auto tmp = WriteBeside(path, line);
  OPENSSL_cleanse(line.data(), line.size());
  if (!tmp.ok()) return tmp.status();
  int linked = ::link(tmp->c_str(), path.c_str());
  int link_errno = errno;
  ::unlink(tmp->c_str());
  if (linked != 0 && link_errno != EEXIST) {
    errno = link_errno;
    return IoError("cannot create the secret key file", path);
  }
  SyncFolderOf(path);
  return Status();  // made here, or by another process just now: either way, read it
}

}  // namespace

Result<SecretBox> LoadSecretKeyFile(const std::string& path) {
  auto text = ReadKeyFile(path);
  if (!text.ok() && text.status().code() == Code::kNotFound) {
    if (Status made = CreateKeyFile(path); !made.ok()) return made;
    text = ReadKeyFile(path);
  }
  if (!text.ok()) return text.status();
  return ParseKeyFile(std::move(*text), path);
}

Result<std::string> AddSecretKey(const std::string& path) {
  auto text = ReadKeyFile(path);
  if (!text.ok()) return text.status();
  if (auto box = ParseKeyFile(*text, path); !box.ok()) {
    OPENSSL_cleanse(text->data(), text->size());
    return box.status();
  }
  std::string line = NewKeyLine();
  std::string id = SecretBox::KeyId(*Base64Decode(Trim(line, "\n")));
  std::string updated = line + *text;
  OPENSSL_cleanse(line.data(), line.size());
  OPENSSL_cleanse(text->data(), text->size());
  auto tmp = WriteBeside(path, updated);
  OPENSSL_cleanse(updated.data(), updated.size());
  if (!tmp.ok()) return tmp.status();
  if (::rename(tmp->c_str(), path.c_str()) != 0) {
    Status s = IoError("cannot replace the secret key file", path);
    ::unlink(tmp->c_str());
    return s;
  }
  SyncFolderOf(path);
  return id;
}

}  // namespace docwright
