// Internal to the SQLite driver (sqlite/driver.cc), its schema and backup: a
// thin RAII layer over the SQLite C API. A Connection and its Queries belong to
// one thread at a time (the driver hands each connection to one caller under its
// own locks).
#pragma once

#include <sqlite3.h>

#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>

#include "core/status.h"
#include "core/time.h"

namespace docwright::sqlite {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;
using StmtHandle = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

using Value = std::variant<std::nullptr_t, int64_t, std::string_view>;

inline Value V(const std::optional<std::string>& s) {
  return s ? Value(std::string_view(*s)) : Value(nullptr);
}
inline Value V(const std::string& s) { return std::string_view(s); }
inline Value V(const std::optional<int64_t>& i) { return i ? Value(*i) : Value(nullptr); }
inline Value V(int64_t i) { return i; }
inline Value V(int i) { return static_cast<int64_t>(i); }

// A prepared statement in use: bound on construction, reset on destruction. Each
// cached statement may have one Query at a time: finish with one before a helper
// that runs the same statement.
class Query {
 public:
  Query(sqlite3* db, sqlite3_stmt* stmt, std::initializer_list<Value> params)
      : db_(db), stmt_(stmt) {
    int i = 1;
    for (const Value& v : params) {
      int rc;
      if (std::holds_alternative<std::nullptr_t>(v)) {
        rc = sqlite3_bind_null(stmt_, i);
      } else if (auto* n = std::get_if<int64_t>(&v)) {
        rc = sqlite3_bind_int64(stmt_, i, *n);
      } else {
        auto sv = std::get<std::string_view>(v);
        rc = sqlite3_bind_text(stmt_, i, sv.data(), static_cast<int>(sv.size()), SQLITE_STATIC);
      }
      if (rc != SQLITE_OK) error_ = rc;
      ++i;
    }
  }
  ~Query() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  // true: a row is ready; false: done. Errors are kept in status().
  bool Next() {
    if (error_ != SQLITE_OK) return false;
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) error_ = rc;
    return false;
  }
  Status status() const {
    if (error_ == SQLITE_OK) return Status();
    std::string msg = std::string("database error: ") + sqlite3_errmsg(db_);
    if (error_ == SQLITE_BUSY || error_ == SQLITE_LOCKED) return Status::Unavailable(msg);
    return Status::Internal(msg);
  }
  // Runs a statement that returns no rows.
  Status Exec() {
    while (Next()) {
    }
    return status();
  }

  // Columns by index, or by the name the SELECT gives them (without the table:
  // "j.id" is "id"). The row readers use names, so a SELECT's column order does
  // not matter; a name the statement lacks is a bug (it asserts, and reads as
  // NULL).
  int Col(std::string_view name) const {
    int n = sqlite3_column_count(stmt_);
    for (int i = 0; i < n; ++i) {
      const char* column = sqlite3_column_name(stmt_, i);
      if (column && name == column) return i;
    }
    assert(false && "no such column in the statement");
    return -1;
  }
  int64_t Int(std::string_view name) const { return Int(Col(name)); }
  std::string Text(std::string_view name) const { return Text(Col(name)); }
  std::optional<std::string> OptText(std::string_view name) const { return OptText(Col(name)); }
  std::optional<int64_t> OptInt(std::string_view name) const { return OptInt(Col(name)); }

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string Text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, sqlite3_column_bytes(stmt_, col)) : std::string();
  }
  std::optional<std::string> OptText(int col) const {
    if (IsNull(col)) return std::nullopt;
    return Text(col);
  }
  std::optional<int64_t> OptInt(int col) const {
    if (IsNull(col)) return std::nullopt;
    return Int(col);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int error_ = SQLITE_OK;
};

// One connection with its prepared statements, keyed by the SQL text's address
// (every statement is one of sql/statements.h, or a literal in the code).
class Connection {
 public:
  static Result<std::unique_ptr<Connection>> Open(const std::string& path) {
    // Before SQLite's first use in the process: no count of its memory, which
    // otherwise takes a lock shared by every connection at each allocation
    // (a statement's temporary tables make many). Ignored when too late.
    static const bool configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
    (void)configured;
    sqlite3* raw = nullptr;
    int rc =
        sqlite3_open_v2(path.c_str(), &raw,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    DbHandle db(raw);
    if (rc != SQLITE_OK) {
      return Status::Unavailable("cannot open database " + path + ": " +
                                 (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    }
    sqlite3_busy_timeout(db.get(), 10000);
    // The clock the statements read (sql/statements.h), as PostgreSQL's schema
    // defines it there.
    if (sqlite3_create_function_v2(db.get(), "docwright_now_ms", 0, SQLITE_UTF8, nullptr, &NowMs,
                                   nullptr, nullptr, nullptr) != SQLITE_OK) {
      return Status::Internal(std::string("cannot set up database ") + path + ": " +
                              sqlite3_errmsg(db.get()));
    }
    auto conn = std::unique_ptr<Connection>(new Connection(std::move(db)));
    for (const char* pragma :
         {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON"}) {
      Status s = conn->ExecScript(pragma);
      if (!s.ok()) return s;
    }
    return conn;
  }

  Status ExecScript(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_.get(), sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      return Status::Internal("database error: " + msg);
    }
    return Status();
  }

  // Runs one statement that takes no parameters and whose rows are not read
  // (BEGIN IMMEDIATE, COMMIT, a PRAGMA setting), prepared once and kept like
  // the others: `sql` must be a literal. (SQLite compiles a PRAGMA to run once:
  // it prepares one again at each run, as sqlite3_exec would.)
  Status ExecCached(const char* sql) {
    sqlite3_stmt* stmt = Prepare(sql);
    if (!stmt) return Status::Internal(std::string("database error: ") + sqlite3_errmsg(db()));
    int rc = sqlite3_step(stmt);
    Status s;
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
      s = Status::Internal(std::string("database error: ") + sqlite3_errmsg(db()));
    }
    sqlite3_reset(stmt);
    return s;
  }

  // The cached statement for `sql`; nullptr if it does not compile (a bug).
  sqlite3_stmt* Prepare(const char* sql) {
    auto it = stmts_.find(sql);
    if (it != stmts_.end()) return it->second.get();
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v3(db_.get(), sql, -1, SQLITE_PREPARE_PERSISTENT, &raw, nullptr) !=
        SQLITE_OK) {
      return nullptr;
    }
    stmts_.emplace(sql, StmtHandle(raw));
    return raw;
  }

  sqlite3* db() const { return db_.get(); }
  int64_t Changes() const { return sqlite3_changes64(db_.get()); }

 private:
  explicit Connection(DbHandle db) : db_(std::move(db)) {}
  static void NowMs(sqlite3_context* context, int, sqlite3_value**) {
    sqlite3_result_int64(context, NowMillis());
  }
  DbHandle db_;
  std::unordered_map<const char*, StmtHandle> stmts_;
};

}  // namespace docwright::sqlite
