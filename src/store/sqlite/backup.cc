#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "store/sqlite/connection.h"
#include "store/sqlite_store.h"

namespace docwright {

Status BackupSqliteDatabase(const std::string& path, const std::string& to) {
  if (to.empty()) return Status::InvalidArgument("the backup needs a file to write");
  // Created here, empty and owner-only (the database holds forge tokens and key
  // hashes); VACUUM INTO writes into an empty file.
  int fd = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) {
      return Status::InvalidArgument(to + " exists: the backup is written to a new file");
    }
    return Status::Unavailable("cannot create " + to + ": " + std::strerror(errno));
  }
  ::close(fd);
  auto removed = [&](Status s) {
    std::error_code ec;
    std::filesystem::remove(to, ec);
    return s;
  };
  auto conn = sqlite::Connection::Open(path);
  if (!conn.ok()) return removed(conn.status());
  sqlite::Query q((*conn)->db(), (*conn)->Prepare("VACUUM INTO ?1"), {sqlite::V(to)});
  q.Next();
  if (!q.status().ok()) {
    return removed(Status::Unavailable("cannot back up " + path + ": " + q.status().message()));
  }
  return Status();
}

}  // namespace docwright
