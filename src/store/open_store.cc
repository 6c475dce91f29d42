#include <sys/stat.h>

#include <filesystem>

#include "store/postgres_store.h"
#include "store/sqlite_store.h"
#include "store/store.h"

namespace docwright {

bool IsPostgresUrl(const std::string& url) {
  return url.starts_with("postgres://") || url.starts_with("postgresql://");
}

namespace {

// The file a SQLite database URL names: a path, sqlite:///abs/path or
// sqlite:relative.
Result<std::string> SqlitePath(const std::string& url) {
  if (IsPostgresUrl(url)) {
    return Status::InvalidArgument(
        "this is a PostgreSQL database: back it up with PostgreSQL's tools (pg_dump)");
  }
  std::string path = url;
  if (path.starts_with("sqlite://")) {
    path = path.substr(9);
  } else if (path.starts_with("sqlite:")) {
    path = path.substr(7);
  }
  if (path.empty()) return Status::InvalidArgument("the database URL names no file");
  if (path.find("://") != std::string::npos) {
    return Status::InvalidArgument("unsupported database URL scheme: " +
                                   path.substr(0, path.find("://")));
  }
  return path;
}

}  // namespace

Status BackupDatabase(const std::string& url, const std::string& to) {
  auto path = SqlitePath(url);
  if (!path.ok()) return path.status();
  std::error_code ec;
  if (!std::filesystem::exists(*path, ec)) {
    return Status::InvalidArgument("there is no database at " + *path);
  }
  return BackupSqliteDatabase(*path, to);
}

Result<std::unique_ptr<Store>> OpenStore(const std::string& url,
                                         std::shared_ptr<const SecretBox> secrets) {
  if (IsPostgresUrl(url)) return OpenPostgresStore(url, std::move(secrets));
  auto found = SqlitePath(url);
  if (!found.ok()) return found.status();
  const std::string& path = *found;
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::exists(parent, ec)) {
    std::filesystem::create_directories(parent, ec);
    if (ec) return Status::Unavailable("cannot create " + parent.string() + ": " + ec.message());
    // The database holds forge tokens and key hashes: only the owner may read it.
    ::chmod(parent.c_str(), 0700);
  }
  return OpenSqliteStore(path, std::move(secrets));
}

}  // namespace docwright
