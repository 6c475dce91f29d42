// Internal to the PostgreSQL driver (postgres/driver.cc), its schema and
// listener: a thin RAII layer over libpq, and the pool of connections the driver
// runs its transactions on.
//
// A Connection belongs to one thread at a time (the pool hands each to one
// caller). Every call has a deadline: connecting (connect_timeout), each
// statement (the server's statement_timeout and lock_timeout, set per
// connection), and a dead peer (TCP keepalives and tcp_user_timeout), so no
// call blocks forever on a database that went away.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/mutex.h"
#include "core/status.h"
#include "store/sql/driver.h"

namespace docwright::postgres {

struct ConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};
struct ResultClearer {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ConnHandle = std::unique_ptr<PGconn, ConnCloser>;
using ResultHandle = std::unique_ptr<PGresult, ResultClearer>;

// Parameters and results are the SQL store's (sql/driver.h).
using sql::Rows;
using sql::V;
using sql::Value;

struct ConnectOptions {
  std::chrono::seconds connect_timeout{10};
  std::chrono::milliseconds statement_timeout{30000};
  std::chrono::milliseconds lock_timeout{10000};
};

class Connection {
 public:
  // Connects to `url` (a postgres:// or postgresql:// URI, or libpq's key=value
  // form). Unavailable if the server cannot be reached.
  static Result<std::unique_ptr<Connection>> Open(const std::string& url,
                                                  const ConnectOptions& options);

  // Runs `sql` with `params` (placeholders ?1 .. ?N, or PostgreSQL's $1 ..
  // $N). Statements are prepared on first use on this connection and kept,
  // keyed by the text's address: pass constants (sql/statements.h). Errors: Unavailable when the
  // connection is lost or the server asks to retry (serialization failure, deadlock, shutdown, a
  // timeout); Conflict on a unique or foreign key violation; Internal otherwise.
  Result<Rows> Exec(const char* sql, std::initializer_list<Value> params);
  // Runs one or more statements without parameters (BEGIN, ROLLBACK, migrations).
  Status ExecScript(const char* sql);
  // COMMIT. A transaction a statement failed in is rolled back by it: that is
  // an error here (Internal), not a success.
  Status Commit();

  // False once the connection is known to be unusable: the pool drops it.
  bool healthy() const { return PQstatus(conn_.get()) == CONNECTION_OK && !failed_; }
  PGconn* raw() const { return conn_.get(); }

 private:
  explicit Connection(ConnHandle conn) : conn_(std::move(conn)) {}
  Status ErrorOf(const PGresult* result, const char* what);

  ConnHandle conn_;
  bool failed_ = false;
  std::unordered_map<const char*, std::string> prepared_;  // statement -> its name
};

// The connections one store opens, at most `max` at a time. Acquire waits for a
// free one at most `wait`, then says the database is busy (Unavailable). A
// connection found broken is closed, not handed out again.
class Pool {
 public:
  Pool(std::string url, ConnectOptions options, int max, std::chrono::milliseconds wait)
      : url_(std::move(url)), options_(options), max_(max), wait_(wait) {}

  class Lease {
   public:
    Lease(Pool* pool, std::unique_ptr<Connection> conn) : pool_(pool), conn_(std::move(conn)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = default;
    ~Lease() {
      if (pool_ && conn_) pool_->Return(std::move(conn_));
    }
    Connection& operator*() const { return *conn_; }
    Connection* operator->() const { return conn_.get(); }

   private:
    Pool* pool_;
    std::unique_ptr<Connection> conn_;
  };

  Result<Lease> Acquire() EXCLUDES(mu_);
  // Closes the idle connections: after one was found broken (the server
  // restarted, the network dropped), the others likely are too.
  void DropIdle() EXCLUDES(mu_);
  const std::string& url() const { return url_; }
  const ConnectOptions& options() const { return options_; }

 private:
  void Return(std::unique_ptr<Connection> conn) EXCLUDES(mu_);

  const std::string url_;
  const ConnectOptions options_;
  const int max_;
  const std::chrono::milliseconds wait_;
  Mutex mu_;
  std::condition_variable freed_;
  int open_ GUARDED_BY(mu_) = 0;  // handed out + idle
  std::vector<std::unique_ptr<Connection>> idle_ GUARDED_BY(mu_);
};

}  // namespace docwright::postgres
