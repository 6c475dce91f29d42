#include "store/postgres/connection.h"

#include <cassert>
#include <charconv>
#include <cstring>

#include "core/text.h"

namespace docwright::postgres {

namespace {

// PostgreSQL's text holds valid UTF-8 without NUL; what docwright stores from
// repositories and models (a diff of a Latin-1 file, a model's stray byte) may
// not be. Such text is stored scrubbed (ScrubUtf8: U+FFFD for each byte that is
// not part of a character, and for NUL).
bool StorableAsText(std::string_view s) {
  return Utf8Length(s).has_value() && s.find('\0') == std::string_view::npos;
}

// `sql` with its ?N placeholders written as PostgreSQL's $N (outside quoted
// strings and identifiers).
std::string DollarPlaceholders(std::string_view sql) {
  std::string out(sql);
  char quote = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '?' && i + 1 < out.size() && out[i + 1] >= '0' && out[i + 1] <= '9') {
      out[i] = '$';
    }
  }
  return out;
}

// The whole of `result`, as the store reads it.
Rows ReadResult(const PGresult* result) {
  const int n = PQnfields(result);
  const int rows = PQntuples(result);
  std::vector<std::string> columns;
  columns.reserve(n);
  for (int i = 0; i < n; ++i) {
    const char* name = PQfname(result, i);
    columns.emplace_back(name ? name : "");
  }
  std::vector<std::optional<std::string>> cells;
  cells.reserve(static_cast<size_t>(rows) * n);
  for (int r = 0; r < rows; ++r) {
    for (int i = 0; i < n; ++i) {
      if (PQgetisnull(result, r, i)) {
        cells.emplace_back();
      } else {
        cells.emplace_back(
            std::string(PQgetvalue(result, r, i), static_cast<size_t>(PQgetlength(result, r, i))));
      }
    }
  }
  const char* tuples = PQcmdTuples(const_cast<PGresult*>(result));
  int64_t affected = 0;
  std::from_chars(tuples, tuples + std::strlen(tuples), affected);
  return Rows(std::move(columns), std::move(cells), affected);
}

}  // namespace

// --- Connection ---

Result<std::unique_ptr<Connection>> Connection::Open(const std::string& url,
                                                     const ConnectOptions& options) {
  // Ours first: the URL's own settings, expanded from dbname, override them.
  std::string connect_timeout = std::to_string(options.connect_timeout.count());
  std::string server_options =
      "-c statement_timeout=" + std::to_string(options.statement_timeout.count()) +
      " -c lock_timeout=" + std::to_string(options.lock_timeout.count()) +
      " -c idle_in_transaction_session_timeout=60000 -c TimeZone=UTC"
      " -c client_min_messages=warning -c client_encoding=UTF8";
  const char* keys[] = {"connect_timeout",
                        "options",
                        "application_name",
                        "keepalives_idle",
                        "keepalives_interval",
                        "keepalives_count",
                        "tcp_user_timeout",
                        "dbname",
                        nullptr};
  const char* values[] = {connect_timeout.c_str(),
                          server_options.c_str(),
                          "docwright",
                          "10",
                          "5",
                          "3",
                          "30000",
                          url.c_str(),
                          nullptr};
  ConnHandle conn(PQconnectdbParams(keys, values, /*expand_dbname=*/1));
  if (!conn) return Status::Unavailable("cannot connect to the database: out of memory");
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    std::string why(TrimRight(PQerrorMessage(conn.get()), "\n "));
    return Status::Unavailable("cannot connect to the database " + RedactCredentials(url) + ": " +
                               why);
  }
  return std::unique_ptr<Connection>(new Connection(std::move(conn)));
}

Status Connection::ErrorOf(const PGresult* result, const char* what) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string_view reported = result ? PQresultErrorMessage(result) : PQerrorMessage(conn_.get());
  if (reported.empty()) reported = PQerrorMessage(conn_.get());
  std::string message =
      std::string("database error (") + what + "): " + std::string(TrimRight(reported, "\n "));
  std::string_view code = state ? state : "";
  if (code == "57014") {
    // The statement ran past statement_timeout and was cancelled; the
    // connection is fine.
    return Status::Unavailable(message);
  }
  if (PQstatus(conn_.get()) != CONNECTION_OK || code.empty() || code.starts_with("08") ||
      code.starts_with("57")) {
    // The connection is gone, or the server is shutting down or cancelled the
    // statement (statement_timeout): this connection is not reused.
    failed_ = true;
    return Status::Unavailable(message);
  }
  if (code == "40001" || code == "40P01" || code == "55P03" || code.starts_with("53")) {
    return Status::Unavailable(message);  // retry: serialization, deadlock, lock timeout, load
  }
  if (code == "23505" || code == "23503") return Status::Conflict(message);
  return Status::Internal(message);
}

Result<Rows> Connection::Exec(const char* sql, std::initializer_list<Value> params) {
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) {
    std::string name = "s" + std::to_string(prepared_.size());
    ResultHandle prepared(
        PQprepare(conn_.get(), name.c_str(), DollarPlaceholders(sql).c_str(), 0, nullptr));
    if (!prepared || PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
      return ErrorOf(prepared.get(), "prepare");
    }
    it = prepared_.emplace(sql, std::move(name)).first;
  }
  // The text of each integer and scrubbed text parameter; reserved for all, so
  // the pointers into it stay valid.
  std::vector<std::string> numbers;
  numbers.reserve(params.size());
  std::vector<const char*> values;
  std::vector<int> lengths;
  values.reserve(params.size());
  lengths.reserve(params.size());
  for (const Value& v : params) {
    if (auto* n = std::get_if<int64_t>(&v)) {
      numbers.push_back(std::to_string(*n));
    }
  }
  size_t next_number = 0;
  for (const Value& v : params) {
    if (std::holds_alternative<std::nullptr_t>(v)) {
      values.push_back(nullptr);
      lengths.push_back(0);
    } else if (std::holds_alternative<int64_t>(v)) {
      const std::string& n = numbers[next_number++];
      values.push_back(n.c_str());
      lengths.push_back(static_cast<int>(n.size()));
    } else {
      auto sv = std::get<std::string_view>(v);
      if (!StorableAsText(sv)) {
        numbers.push_back(ScrubUtf8(sv));  // reserved above: no reallocation
        sv = numbers.back();
      }
      values.push_back(sv.data());
      lengths.push_back(static_cast<int>(sv.size()));
    }
  }
  // Text parameters are sent with their length (binary format), so a text need
  // not end in a NUL byte; PostgreSQL reads a text's binary form as its bytes.
  std::vector<int> formats(params.size(), 0);
  size_t i = 0;
  for (const Value& v : params) {
    if (std::holds_alternative<std::string_view>(v)) formats[i] = 1;
    ++i;
  }
  ResultHandle result(PQexecPrepared(conn_.get(), it->second.c_str(),
                                     static_cast<int>(values.size()), values.data(), lengths.data(),
                                     formats.data(), /*resultFormat=*/0));
  ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return ErrorOf(result.get(), "exec");
  return ReadResult(result.get());
}

Status Connection::ExecScript(const char* sql) {
  ResultHandle result(PQexec(conn_.get(), sql));
  ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return ErrorOf(result.get(), "exec");
  return Status();
}

Status Connection::Commit() {
  ResultHandle result(PQexec(conn_.get(), "COMMIT"));
  ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK) return ErrorOf(result.get(), "commit");
  if (std::string_view(PQcmdStatus(result.get())) == "ROLLBACK") {
    return Status::Internal("the transaction was rolled back, not committed");
  }
  return Status();
}

// --- Pool ---

Result<Pool::Lease> Pool::Acquire() {
  MutexLock lock(mu_);
  auto deadline = std::chrono::steady_clock::now() + wait_;
  while (idle_.empty() && open_ >= max_) {
    if (!lock.WaitUntil(freed_, deadline) && idle_.empty() && open_ >= max_) {
      return Status::Unavailable("all " + std::to_string(max_) +
                                 " database connections of this process are busy");
    }
  }
  if (!idle_.empty()) {
    auto conn = std::move(idle_.back());
    idle_.pop_back();
    return Lease(this, std::move(conn));
  }
  ++open_;
  lock.Unlock();
  auto opened = Connection::Open(url_, options_);
  if (!opened.ok()) {
    lock.Lock();
    --open_;
    freed_.notify_one();
    return opened.status();
  }
  return Lease(this, std::move(*opened));
}

void Pool::DropIdle() {
  std::vector<std::unique_ptr<Connection>> dropped;
  {
    MutexLock lock(mu_);
    open_ -= static_cast<int>(idle_.size());
    dropped.swap(idle_);
  }
  freed_.notify_all();
}

void Pool::Return(std::unique_ptr<Connection> conn) {
  MutexLock lock(mu_);
  if (conn->healthy() && PQtransactionStatus(conn->raw()) == PQTRANS_IDLE) {
    idle_.push_back(std::move(conn));
  } else {
    --open_;  // closed as it goes out of scope
  }
  freed_.notify_one();
}

}  // namespace docwright::postgres
