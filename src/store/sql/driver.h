// The driver contract of the SQL store (sql/store.h): what the one
// implementation of the Store's logic needs of a database. Two drivers implement
// it: SQLite (sqlite/driver.cc) and PostgreSQL (postgres/driver.cc).
//
// A driver owns its connections and how a transaction reaches the disk. The
// store's logic sees a Connection only inside Driver::Write or Driver::Read, on
// the calling thread, for the length of that call. Driver methods are
// thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/status.h"
#include "store/store.h"

namespace docwright::sql {

// A statement's text in each dialect, with ?1 .. ?N placeholders in both (the
// PostgreSQL driver writes them as $1 .. $N). Statements are the constants of
// sql/statements.h: drivers prepare each once per connection, keyed by its
// address. `sqlite` is null for what SQLite needs no statement for (a row lock,
// an announcement, a commit setting: its one writer stands in for them), and
// `postgres` for what PostgreSQL's statement before it did already; running a
// null statement does nothing and returns no rows.
struct Statement {
  const char* sqlite;
  const char* postgres;
};

// A parameter: NULL, an integer or text. Text is bound as it is and must live
// until Exec returns.
using Value = std::variant<std::nullptr_t, int64_t, std::string_view>;
inline Value V(const std::optional<std::string>& s) {
  return s ? Value(std::string_view(*s)) : Value(nullptr);
}
inline Value V(const std::string& s) { return std::string_view(s); }
inline Value V(std::string_view s) { return s; }
inline Value V(const char* s) { return std::string_view(s); }
inline Value V(const std::optional<int64_t>& i) { return i ? Value(*i) : Value(nullptr); }
inline Value V(int64_t i) { return i; }
inline Value V(int i) { return static_cast<int64_t>(i); }
inline Value V(bool b) { return static_cast<int64_t>(b ? 1 : 0); }

// The whole result of one statement, read a row at a time: Next() moves to the
// first row, then to each next one. Columns by index, or by the name the SELECT
// gives them ("j.id" is "id"), so the order of a SELECT's columns does not
// matter; a name the statement lacks is a bug (it asserts, and reads as NULL).
// Values are kept as text, as both databases give them; Int parses it.
class Rows {
 public:
  Rows() = default;
  // `cells` holds the rows one after the other, `columns.size()` cells each.
  Rows(std::vector<std::string> columns, std::vector<std::optional<std::string>> cells,
       int64_t affected);

  bool Next() { return ++row_ < size(); }
  int size() const;
  // The rows an INSERT, UPDATE or DELETE changed.
  int64_t affected() const { return affected_; }

  int Col(std::string_view name) const;
  bool IsNull(int col) const { return Cell(col) == nullptr; }
  std::string Text(int col) const;
  int64_t Int(int col) const;
  std::optional<std::string> OptText(int col) const;
  std::optional<int64_t> OptInt(int col) const;
  std::string Text(std::string_view name) const { return Text(Col(name)); }
  int64_t Int(std::string_view name) const { return Int(Col(name)); }
  std::optional<std::string> OptText(std::string_view name) const { return OptText(Col(name)); }
  std::optional<int64_t> OptInt(std::string_view name) const { return OptInt(Col(name)); }

 private:
  // The current row's cell `col`; null for NULL or no such cell.
  const std::string* Cell(int col) const;

  std::vector<std::string> columns_;
  std::vector<std::optional<std::string>> cells_;
  int64_t affected_ = 0;
  int row_ = -1;
};

// One connection, lent to the store's logic for one Write or Read.
class Connection {
 public:
  // Runs `statement` with `params`. Errors: Unavailable for what may succeed if
  // tried again (the database busy or gone, a deadlock, a timeout); Conflict for
  // a unique or foreign key violation (PostgreSQL); Internal otherwise.
  virtual Result<Rows> Exec(const Statement& statement, std::initializer_list<Value> params) = 0;

  // Set by the store's logic when the transaction makes webhook deliveries
  // due, read by it once the transaction ends, to wake this process's delivery
  // workers (StoreWatcher::webhook_deliveries). Drivers leave it alone: a
  // Connection is lent for one attempt of one transaction, so it starts unset.
  void NoteDeliveriesDue() { deliveries_due_ = true; }
  bool deliveries_due() const { return deliveries_due_; }
  // Likewise, when the transaction queues a turn it did not hand over (a job,
  // a follow-up), to tell this process's watchers
  // (StoreWatcher::turn_queued_here).
  void NoteTurnQueued() { turn_queued_ = true; }
  bool turn_queued() const { return turn_queued_; }

 protected:
  ~Connection() = default;

 private:
  bool deliveries_due_ = false;
  bool turn_queued_ = false;
};

// How a write transaction reaches the disk.
enum class Commit {
  // Its commit returns once it is on the disk.
  kDurable,
  // A claim: the commit need not wait for the flush (a later durable commit
  // flushes it). A power loss may undo it, which puts the turn back as its
  // lease's expiry would (store.h).
  kLeaseOnly,
  // A lease renewal: its first statement is the only one that writes, so a
  // driver may run each statement on its own (one round trip); as for kLeaseOnly,
  // its commit need not wait for the flush.
  kRenewal,
};

class Driver {
 public:
  virtual ~Driver() = default;

  // Runs `fn` in one write transaction: committed if `fn` returns OK, rolled back
  // otherwise (and `fn`'s error returned). A driver may run `fn` again after a
  // transient failure before the commit: `fn` must set what it returns afresh
  // each time. Unavailable if the commit itself failed: the change may or may
  // not have been made.
  Status Write(Commit commit, const std::function<Status(Connection&)>& fn) {
    return Write(commit, fn, nullptr);
  }
  // As Write(commit, fn), and `visible`, if set, is called once on the calling
  // thread as soon as the transaction is committed and other connections see
  // it, before Write returns. A kDurable write's `visible` may come before the
  // write is on the disk (SQLite flushes its log after the call, outside the
  // writer's lock, so the writes `visible` sets off do not wait for the flush);
  // Write still returns once it is durable, and Unavailable if that flush
  // failed (the change is made, and may not survive a crash). Not called when
  // the transaction is rolled back or its commit fails.
  virtual Status Write(Commit commit, const std::function<Status(Connection&)>& fn,
                       const std::function<void()>& visible) = 0;
  // Runs `fn` on a connection for reading, each statement seeing the database as
  // of its start; retried as Write is.
  virtual Status Read(const std::function<Status(Connection&)>& fn) = 0;

  // See Store::AnnouncesChanges and Store::Watch.
  virtual bool AnnouncesChanges() const { return false; }
  virtual void Watch(StoreWatcher watcher) {}
};

}  // namespace docwright::sql
