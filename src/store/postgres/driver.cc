// The PostgreSQL driver of the SQL store (store/postgres_store.h): transactions
// on a pool of connections, retried on a transient failure before their commit;
// announcements heard by a listener.
#include <chrono>
#include <string_view>
#include <thread>
#include <utility>

#include "core/metrics.h"
#include "store/postgres/connection.h"
#include "store/postgres/listener.h"
#include "store/postgres/schema.h"
#include "store/postgres_store.h"
#include "store/sql/driver.h"
#include "store/sql/store.h"

namespace docwright {
namespace postgres {
namespace {

// A transaction that fails on a transient error before its COMMIT is run in all
// this many times, waiting 50 ms, then 200 ms.
constexpr int kAttempts = 3;

// A connection lent to the store's logic for one Write or Read.
class Lent final : public sql::Connection {
 public:
  explicit Lent(postgres::Connection& c) : c_(c) {}
  Result<sql::Rows> Exec(const sql::Statement& statement,
                         std::initializer_list<sql::Value> params) override {
    if (statement.postgres == nullptr) return sql::Rows();  // nothing to do here
    return c_.Exec(statement.postgres, params);
  }

 private:
  postgres::Connection& c_;
};

class Driver final : public sql::Driver {
 public:
  Driver(std::string url, ConnectOptions connect, PostgresOptions options,
         std::unique_ptr<Listener> listener)
      : pool_(std::move(url), connect, options.max_connections, std::chrono::seconds(10)),
        listener_(std::move(listener)) {}

  // `visible` comes after the commit, which is durable by then
  // (synchronous_commit as the server has it).
  Status Write(sql::Commit commit, const std::function<Status(sql::Connection&)>& fn,
               const std::function<void()>& visible) override {
    Status s = WriteOnce(commit, fn);
    if (s.ok() && visible) visible();
    return s;
  }

 private:
  Status WriteOnce(sql::Commit commit, const std::function<Status(sql::Connection&)>& fn) {
    // A renewal is one statement: run on its own, one round trip (a node renews
    // its running turns' leases every third of a lease, kMaxLeasesPerRenewal a
    // statement, and PostgreSQL flushes concurrent commits together).
    if (commit == sql::Commit::kRenewal) {
      return Retried("write", [&](Connection& c, bool*) -> Status {
        Lent lent(c);
        return fn(lent);
      });
    }
    return Retried("write", [&](Connection& c, bool* no_retry) -> Status {
      Status s = c.ExecScript("BEGIN");
      // A claim need not wait for the log's flush (store.h): a later commit
      // flushes it, and a power loss only puts the turn back.
      if (s.ok() && commit == sql::Commit::kLeaseOnly) {
        s = c.ExecScript("SET LOCAL synchronous_commit TO off");
      }
      Lent lent(c);
      if (s.ok()) s = fn(lent);
      if (!s.ok()) {
        // The write's own error is the one to report; a connection left in a
        // transaction is closed as it goes back to the pool (Pool::Return).
        if (c.healthy()) (void)c.ExecScript("ROLLBACK");
        return s;
      }
      s = c.Commit();
      if (s.ok()) return s;
      *no_retry = true;
      if (!c.healthy()) pool_.DropIdle();
      return Status::Unavailable(
          "the database connection failed while committing; the change may or may not have been "
          "made (" +
          s.message() + ")");
    });
  }

 public:
  // One statement at a time, each in its own transaction.
  Status Read(const std::function<Status(sql::Connection&)>& fn) override {
    return Retried("read", [&](Connection& c, bool*) -> Status {
      Lent lent(c);
      return fn(lent);
    });
  }

  bool AnnouncesChanges() const override { return true; }
  void Watch(StoreWatcher watcher) override { listener_->Add(std::move(watcher)); }

 private:
  // Runs `attempt` on a pooled connection, and again on another after a
  // backoff while it fails with Unavailable, kAttempts times in all; not after
  // it sets *no_retry (a failed COMMIT: the change may have been made). Records
  // the transaction of `kind` ("read", "write"): all its attempts' time, and
  // the attempts beyond the first.
  template <typename Fn>
  Status Retried(std::string_view kind, Fn&& attempt) {
    const auto start = std::chrono::steady_clock::now();
    int attempts = 0;
    struct Record {
      std::string_view kind;
      std::chrono::steady_clock::time_point start;
      const int& attempts;
      ~Record() {
        std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        metrics::RecordStoreTransaction("postgres", kind, attempts > 1 ? attempts - 1 : 0,
                                        took.count());
      }
    } record{kind, start, attempts};
    Status last;
    for (int n = 1; n <= kAttempts; ++n) {
      attempts = n;
      if (n > 1) Backoff(n);
      auto conn = pool_.Acquire();
      if (!conn.ok()) {
        last = conn.status();
        continue;
      }
      bool no_retry = false;
      Status s = attempt(**conn, &no_retry);
      if (s.ok() || no_retry || s.code() != Code::kUnavailable) return s;
      if (!(*conn)->healthy()) pool_.DropIdle();
      last = s;
    }
    return last;
  }

  static void Backoff(int attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(attempt == 2 ? 50 : 200));
  }

  Pool pool_;
  std::unique_ptr<Listener> listener_;
};

}  // namespace
}  // namespace postgres

Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& url,
                                                 std::shared_ptr<const SecretBox> secrets,
                                                 PostgresOptions options) {
  if (options.max_connections < 1) return Status::InvalidArgument("no database connections");
  if (!secrets) return Status::InvalidArgument("no secret key to open the store with");
  postgres::ConnectOptions connect;
  {
    auto c = postgres::Connection::Open(url, connect);
    if (!c.ok()) return c.status();
    Status s = postgres::Migrate(**c);
    if (!s.ok()) return s;
  }
  auto listener = postgres::Listener::Start(url, connect);
  if (!listener.ok()) return listener.status();
  return sql::OpenSqlStore(
      std::make_unique<postgres::Driver>(url, connect, options, std::move(*listener)),
      std::move(secrets));
}

}  // namespace docwright
