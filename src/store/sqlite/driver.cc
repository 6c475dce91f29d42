// The SQLite driver of the SQL store (store/sqlite_store.h): writes in
// transactions on one connection under a mutex (and SQLite's lock across
// processes), reads on a pool of connections.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/metrics.h"
#include "core/mutex.h"
#include "store/sql/driver.h"
#include "store/sql/store.h"
#include "store/sqlite/connection.h"
#include "store/sqlite/schema.h"
#include "store/sqlite_store.h"

namespace docwright {
namespace sqlite {
namespace {

// Records one transaction's duration when it goes out of scope. SQLite's
// transactions are not retried (its one writer waits on the busy timeout
// instead), so their retries are always 0.
class TransactionTimer {
 public:
  explicit TransactionTimer(std::string_view kind)
      : kind_(kind), start_(std::chrono::steady_clock::now()) {}
  ~TransactionTimer() {
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start_;
    metrics::RecordStoreTransaction("sqlite", kind_, 0, took.count());
  }
  TransactionTimer(const TransactionTimer&) = delete;
  TransactionTimer& operator=(const TransactionTimer&) = delete;

 private:
  std::string_view kind_;
  std::chrono::steady_clock::time_point start_;
};

// A connection lent to the store's logic for one Write or Read.
class Lent final : public sql::Connection {
 public:
  explicit Lent(sqlite::Connection& c) : c_(c) {}

  Result<sql::Rows> Exec(const sql::Statement& statement,
                         std::initializer_list<sql::Value> params) override {
    if (statement.sqlite == nullptr) return sql::Rows();  // nothing to do here
    sqlite3_stmt* stmt = c_.Prepare(statement.sqlite);
    if (!stmt) return Status::Internal(std::string("bad statement: ") + sqlite3_errmsg(c_.db()));
    Query q(c_.db(), stmt, params);
    const int n = sqlite3_column_count(stmt);
    std::vector<std::string> columns;
    columns.reserve(n);
    for (int i = 0; i < n; ++i) {
      const char* name = sqlite3_column_name(stmt, i);
      columns.emplace_back(name ? name : "");
    }
    std::vector<std::optional<std::string>> cells;
    int64_t rows = 0;
    while (q.Next()) {
      ++rows;
      for (int i = 0; i < n; ++i) cells.push_back(q.OptText(i));
    }
    if (!q.status().ok()) return q.status();
    const int64_t affected = sqlite3_stmt_readonly(stmt) ? rows : c_.Changes();
    return sql::Rows(std::move(columns), std::move(cells), affected);
  }

 private:
  sqlite::Connection& c_;
};

// The database's write-ahead log, flushed by the driver after a durable write
// whose commit did not flush it (Driver::Write's `visible`): fdatasync of the
// log flushes every frame committed before it, whichever connection wrote
// them. The descriptor is opened once the writer has the log open, so both are
// the same file: SQLite keeps its log open, and removes it only with a
// process's last connection. The directory is flushed when the log is opened,
// so its entry is on the disk too. Thread-safe.
class WriteAheadLog {
 public:
  explicit WriteAheadLog(const std::string& database)
      : path_(database + "-wal"), fd_(::open(path_.c_str(), O_RDONLY | O_CLOEXEC)) {
    struct stat st {};
    if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
      Close();
      return;
    }
    device_ = st.st_dev;
    inode_ = st.st_ino;
    const auto slash = database.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : database.substr(0, slash + 1);
    const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool dir_flushed = dir_fd >= 0 && ::fsync(dir_fd) == 0;
    if (dir_fd >= 0) ::close(dir_fd);
    if (!dir_flushed) Close();
  }
  ~WriteAheadLog() { Close(); }
  WriteAheadLog(const WriteAheadLog&) = delete;
  WriteAheadLog& operator=(const WriteAheadLog&) = delete;

  // False when the log could not be opened: durable writes then flush at their
  // commit.
  bool ok() const { return fd_ >= 0; }

  // Unavailable if the flush failed, or if the log is no longer at its path
  // (removed or replaced by someone: what was flushed will not be read at the
  // next start). The write is made then, and may not survive a crash.
  Status Flush() const {
    if (::fdatasync(fd_) != 0) {
      return Status::Unavailable(std::string("cannot flush the database's log to the disk: ") +
                                 std::strerror(errno));
    }
    struct stat now {};
    if (::stat(path_.c_str(), &now) != 0 || now.st_dev != device_ || now.st_ino != inode_) {
      return Status::Unavailable("the database's log " + path_ + " was removed or replaced");
    }
    return Status();
  }

 private:
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  const std::string path_;
  int fd_;
  dev_t device_ = 0;
  ino_t inode_ = 0;
};

class Driver final : public sql::Driver {
 public:
  Driver(std::string path, std::unique_ptr<Connection> writer)
      : path_(std::move(path)), writer_(std::move(writer)) {}

  // Once, before any other call: the log is opened when the schema is
  // current, so it exists by then, and only in WAL mode.
  Status Migrate() EXCLUDES(write_mu_) {
    MutexLock lock(write_mu_);
    Status s = sqlite::Migrate(*writer_);
    if (!s.ok()) return s;
    Query mode(writer_->db(), writer_->Prepare("PRAGMA journal_mode"), {});
    if (mode.Next() && mode.Text(0) == "wal") wal_ = std::make_unique<WriteAheadLog>(path_);
    return s;
  }

  // On the writer connection. A claim's or renewal's commit is not flushed by
  // itself (synchronous=NORMAL) but by the next durable one, which flushes the
  // log with everything before it: turns are claimed and renewed a few times
  // per job, so at a thousand turns in flight this keeps the disk's flush rate
  // for what clients were promised.
  // A durable write with `visible` commits as a claim does, calls `visible`
  // once the writer's lock is released, then flushes the log itself
  // (WriteAheadLog::Flush): what the write sets off (the turn it queued,
  // claimed and started) runs while the disk flushes, and the caller still answers only
  // once the write is on the disk. A power loss before the flush undoes the
  // write with the writes after it, as it would any write whose caller was not
  // answered. A flush that fails stops every later write (Unavailable) until
  // the process restarts: Linux may drop what it could not write and not say
  // so at the next flush.
  Status Write(sql::Commit commit, const std::function<Status(sql::Connection&)>& fn,
               const std::function<void()>& visible) override EXCLUDES(write_mu_) {
    if (log_failed_.load()) return LogFailed();
    const bool flush_after = commit == sql::Commit::kDurable && visible && wal_ && wal_->ok();
    {
      // The wait for the writer included; `visible` (timed as what it does)
      // and the flush ("flush") not.
      TransactionTimer timer("write");
      MutexLock lock(write_mu_);
      Connection& c = *writer_;
      // The setting stays from one write to the next: set only when it changes.
      const bool full = commit == sql::Commit::kDurable && !flush_after;
      if (full != synchronous_full_) {
        Status set = c.ExecCached(full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
        if (!set.ok()) return set;
        synchronous_full_ = full;
      }
      Status s = c.ExecCached("BEGIN IMMEDIATE");
      if (!s.ok()) return Status::Unavailable(s.message());
      Lent lent(c);
      try {
        s = fn(lent);
      } catch (...) {  // the writer is left out of a transaction, whatever threw
        // What threw is what the caller learns, whether the rollback works or not.
        (void)c.ExecCached("ROLLBACK");
        throw;
      }
      // On a failure the write's own error is the one to report: a ROLLBACK
      // that fails too adds nothing the caller could act on.
      if (!s.ok()) {
        (void)c.ExecCached("ROLLBACK");
        return s;
      }
      s = c.ExecCached("COMMIT");
      if (!s.ok()) {
        (void)c.ExecCached("ROLLBACK");
        return s;
      }
    }
    if (visible) {
      try {
        visible();
      } catch (...) {
        if (flush_after) (void)FlushLog();
        throw;
      }
    }
    return flush_after ? FlushLog() : Status();
  }

  // On a pooled reader connection: at most kMaxReaders are open (each holds a
  // file descriptor and a page cache, and a node may run 2000 workers); a read
  // waits up to 10 s for one to be free.
  Status Read(const std::function<Status(sql::Connection&)>& fn) override EXCLUDES(pool_mu_) {
    TransactionTimer timer("read");  // the wait for a reader included
    std::unique_ptr<Connection> conn;
    {
      MutexLock lock(pool_mu_);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (readers_.empty() && open_readers_ >= kMaxReaders &&
             lock.WaitUntil(reader_freed_, deadline)) {
      }
      if (readers_.empty() && open_readers_ >= kMaxReaders) {
        return Status::Unavailable("all " + std::to_string(kMaxReaders) +
                                   " database readers of this process are busy");
      }
      if (!readers_.empty()) {
        conn = std::move(readers_.back());
        readers_.pop_back();
      } else {
        ++open_readers_;
      }
    }
    if (!conn) {
      auto opened = Connection::Open(path_);
      if (!opened.ok()) {
        MutexLock lock(pool_mu_);
        --open_readers_;
        reader_freed_.notify_one();
        return opened.status();
      }
      conn = std::move(*opened);
    }
    Lent lent(*conn);
    Status result = fn(lent);
    {
      MutexLock lock(pool_mu_);
      readers_.push_back(std::move(conn));
    }
    reader_freed_.notify_one();
    return result;
  }

 private:
  static constexpr int kMaxReaders = 32;

  Status FlushLog() {
    Status s;
    {
      TransactionTimer timer("flush");
      s = wal_->Flush();
    }
    if (!s.ok() && !log_failed_.exchange(true)) {
      spdlog::error("{}: this process takes no more writes until it is restarted", s.message());
    }
    return s;
  }
  static Status LogFailed() {
    return Status::Unavailable(
        "a flush of the database's log failed: this process takes no more writes until it is "
        "restarted");
  }

  const std::string path_;
  // Set by Migrate, in WAL mode, before any other call: then only read.
  std::unique_ptr<const WriteAheadLog> wal_;
  std::atomic<bool> log_failed_{false};
  Mutex write_mu_;
  bool synchronous_full_ GUARDED_BY(write_mu_) = true;  // the writer's setting (Connection::Open's)
  const std::unique_ptr<Connection> writer_ PT_GUARDED_BY(write_mu_);
  Mutex pool_mu_;
  std::condition_variable reader_freed_;
  int open_readers_ GUARDED_BY(pool_mu_) = 0;  // idle in readers_, or in use
  std::vector<std::unique_ptr<Connection>> readers_ GUARDED_BY(pool_mu_);
};

}  // namespace
}  // namespace sqlite

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                               std::shared_ptr<const SecretBox> secrets) {
  if (!secrets) return Status::InvalidArgument("no secret key to open the store with");
  // Create the file owner-only before SQLite does: it holds secrets.
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Unavailable("cannot open database " + path);
  ::close(fd);
  auto writer = sqlite::Connection::Open(path);
  if (!writer.ok()) return writer.status();
  auto driver = std::make_unique<sqlite::Driver>(path, std::move(*writer));
  Status s = driver->Migrate();
  if (!s.ok()) return s;
  return sql::OpenSqlStore(std::move(driver), std::move(secrets));
}

}  // namespace docwright
