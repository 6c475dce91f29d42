#include "store/sqlite_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <mutex>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "core/ids.h"
#include "core/time.h"

namespace docwright {
namespace {

// --- Schema ----------------------------------------------------------------------
// Migration i brings the schema from user_version i to i + 1. Never edit a shipped
// migration: append a new one.
constexpr const char* kMigrations[] = {
    R"sql(
CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  secret_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX api_keys_org ON api_keys(org_id, id);
CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  repository TEXT NOT NULL,
  base_ref TEXT NOT NULL,
  forge TEXT NOT NULL,
  forge_api_url TEXT,
  forge_token TEXT,
  model TEXT,
  rate_limit_per_hour INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX projects_org ON projects(org_id, id);
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  status TEXT NOT NULL,
  repository TEXT NOT NULL,
  ref TEXT NOT NULL,
  model TEXT,
  draft INTEGER NOT NULL,
  pr_link TEXT,
  summary TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  archived_at INTEGER,
  next_seq INTEGER NOT NULL
);
CREATE INDEX jobs_project ON jobs(project_id, id);
CREATE INDEX jobs_project_status ON jobs(project_id, status, id);
CREATE TABLE messages (
  job_id TEXT NOT NULL REFERENCES jobs(id),
  seq INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  prompt TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (job_id, seq)
) WITHOUT ROWID;
CREATE INDEX messages_project_time ON messages(project_id, created_at);
CREATE TABLE turns (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  summary TEXT,
  error TEXT,
  started_at INTEGER,
  finished_at INTEGER,
  UNIQUE (job_id, seq),
  FOREIGN KEY (job_id, seq) REFERENCES messages(job_id, seq)
);
CREATE INDEX turns_open ON turns(id) WHERE state IN ('queued', 'running');
)sql",
    R"sql(
CREATE TABLE pull_requests (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  number INTEGER NOT NULL,
  head TEXT NOT NULL,
  base TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  diff TEXT NOT NULL,
  draft INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, head),
  UNIQUE (project_id, number)
);
)sql",
    R"sql(
ALTER TABLE projects ADD COLUMN ssh_key_path TEXT;
ALTER TABLE projects ADD COLUMN ssh_known_hosts_path TEXT;
)sql",
    R"sql(
CREATE TABLE steps (
  job_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  n INTEGER NOT NULL,
  kind TEXT NOT NULL,
  text TEXT NOT NULL,
  tool TEXT NOT NULL,
  arguments TEXT NOT NULL,
  result TEXT NOT NULL,
  is_error INTEGER NOT NULL,
  PRIMARY KEY (job_id, seq, n)
) WITHOUT ROWID;
ALTER TABLE turns ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
)sql",
    R"sql(
ALTER TABLE projects ADD COLUMN models TEXT NOT NULL DEFAULT '';
ALTER TABLE projects ADD COLUMN write_paths TEXT NOT NULL DEFAULT '';
ALTER TABLE pull_requests ADD COLUMN archived_at INTEGER;
UPDATE pull_requests SET archived_at = updated_at, body = '', diff = ''
  WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.project_id = pull_requests.project_id
                AND j.ref = pull_requests.head AND j.status = 'archived');
)sql",
};

constexpr int64_t kRateWindowMillis = 3600 * 1000;

// --- Thin RAII layer over the SQLite C API ------------------------------------------

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;
using StmtHandle = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

using Value = std::variant<std::nullptr_t, int64_t, std::string_view>;

Value V(const std::optional<std::string>& s) {
  return s ? Value(std::string_view(*s)) : Value(nullptr);
}
Value V(const std::string& s) { return std::string_view(s); }
Value V(const std::optional<int64_t>& i) { return i ? Value(*i) : Value(nullptr); }
Value V(int64_t i) { return i; }
Value V(int i) { return static_cast<int64_t>(i); }

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
// (every statement is a string literal of this file).
class Connection {
 public:
  static Result<std::unique_ptr<Connection>> Open(const std::string& path) {
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &raw,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    DbHandle db(raw);
    if (rc != SQLITE_OK) {
      return Status::Unavailable("cannot open database " + path + ": " +
                                 (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    }
    sqlite3_busy_timeout(db.get(), 10000);
    auto conn = std::unique_ptr<Connection>(new Connection(std::move(db)));
    for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL",
                               "PRAGMA foreign_keys=ON"}) {
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
  DbHandle db_;
  std::unordered_map<const char*, StmtHandle> stmts_;
};

// --- Row mapping ---------------------------------------------------------------

Job ReadJob(const Query& q, int c = 0) {
  Job j;
  j.id = q.Text(c + 0);
  j.project_id = q.Text(c + 1);
  j.status = ParseJobStatus(q.Text(c + 2)).value_or(JobStatus::kFailed);
  j.repository = q.Text(c + 3);
  j.ref = q.Text(c + 4);
  j.model = q.OptText(c + 5);
  j.draft = q.Int(c + 6) != 0;
  j.pr_link = q.OptText(c + 7);
  j.summary = q.OptText(c + 8);
  j.error = q.OptText(c + 9);
  j.created_at = q.Int(c + 10);
  j.updated_at = q.Int(c + 11);
  j.archived_at = q.OptInt(c + 12);
  return j;
}

// A project's lists are stored one entry a line (entries never hold a newline).
std::string JoinLines(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out.push_back('\n');
    out += item;
  }
  return out;
}
std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    out.emplace_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

Project ReadProject(const Query& q, int c = 0) {
  Project p;
  p.id = q.Text(c + 0);
  p.org_id = q.Text(c + 1);
  p.repository = q.Text(c + 2);
  p.base_ref = q.Text(c + 3);
  p.forge = ParseForge(q.Text(c + 4)).value_or(Forge::kLocal);
  p.forge_api_url = q.OptText(c + 5);
  p.forge_token = q.OptText(c + 6);
  p.model = q.OptText(c + 7);
  p.rate_limit_per_hour = q.Int(c + 8);
  p.created_at = q.Int(c + 9);
  p.ssh_key_path = q.OptText(c + 10);
  p.ssh_known_hosts_path = q.OptText(c + 11);
  p.models = SplitLines(q.Text(c + 12));
  p.write_paths = SplitLines(q.Text(c + 13));
  return p;
}

ApiKey ReadKey(const Query& q) {
  ApiKey k;
  k.id = q.Text(0);
  k.org_id = q.Text(1);
  k.name = q.Text(2);
  k.prefix = q.Text(3);
  k.secret_hash = q.Text(4);
  k.created_at = q.Int(5);
  k.revoked_at = q.OptInt(6);
  return k;
}

// --- The store -------------------------------------------------------------------

#define SQL(name, text) constexpr const char* name = text

SQL(kSelectJob,
    "SELECT j.id, j.project_id, j.status, j.repository, j.ref, j.model, j.draft, j.pr_link, "
    "j.summary, j.error, j.created_at, j.updated_at, j.archived_at "
    "FROM jobs j JOIN projects p ON p.id = j.project_id "
    "WHERE j.id = ?1 AND j.project_id = ?2 AND p.org_id = ?3");
SQL(kSelectProject,
    "SELECT p.id, p.org_id, p.repository, p.base_ref, p.forge, p.forge_api_url, p.forge_token, "
    "p.model, p.rate_limit_per_hour, p.created_at, p.ssh_key_path, p.ssh_known_hosts_path, "
    "p.models, p.write_paths "
    "FROM projects p WHERE p.id = ?1 AND "
    "p.org_id = ?2");
SQL(kSelectProjectById,
    "SELECT p.id, p.org_id, p.repository, p.base_ref, p.forge, p.forge_api_url, p.forge_token, "
    "p.model, p.rate_limit_per_hour, p.created_at, p.ssh_key_path, p.ssh_known_hosts_path, "
    "p.models, p.write_paths "
    "FROM projects p WHERE p.id = ?1");
SQL(kCountRecentMessages,
    "SELECT COUNT(*) FROM messages WHERE project_id = ?1 AND created_at > ?2");
SQL(kNthRecentMessage,
    "SELECT created_at FROM messages WHERE project_id = ?1 AND created_at > ?2 "
    "ORDER BY created_at LIMIT 1 OFFSET ?3");
SQL(kInsertJob,
    "INSERT INTO jobs (id, project_id, status, repository, ref, model, draft, pr_link, summary, "
    "error, created_at, updated_at, archived_at, next_seq) "
    "VALUES (?1, ?2, 'active', ?3, ?4, ?5, ?6, NULL, NULL, NULL, ?7, ?7, NULL, 2)");
SQL(kInsertMessage,
    "INSERT INTO messages (job_id, seq, project_id, prompt, created_at) VALUES (?1, ?2, ?3, ?4, "
    "?5)");
SQL(kInsertTurn, "INSERT INTO turns (job_id, seq, state) VALUES (?1, ?2, 'queued')");
SQL(kSelectJobSeq, "SELECT next_seq FROM jobs WHERE id = ?1");
SQL(kJobFollowUp,
    "UPDATE jobs SET status = 'active', error = NULL, updated_at = ?2, next_seq = next_seq + 1 "
    "WHERE id = ?1");
SQL(kJobArchive,
    "UPDATE jobs SET status = 'archived', archived_at = ?2, updated_at = ?2 WHERE id = ?1");
SQL(kCancelOpenTurns,
    "UPDATE turns SET state = 'cancelled', finished_at = ?2, error = 'the job was archived' "
    "WHERE job_id = ?1 AND state IN ('queued', 'running')");
SQL(kFindRunnable,
    "SELECT t.id FROM turns t WHERE t.state IN ('queued', 'running') "
    "AND (t.state = 'queued' OR t.lease_expires_at <= ?1) "
    "AND NOT EXISTS (SELECT 1 FROM turns e WHERE e.job_id = t.job_id AND e.seq < t.seq "
    "AND e.state IN ('queued', 'running')) ORDER BY t.id LIMIT 1");
SQL(kSelectTurn,
    "SELECT id, job_id, seq, state, attempts, lease_owner FROM turns WHERE id = ?1");
SQL(kClaimTurn,
    "UPDATE turns SET state = 'running', attempts = attempts + 1, lease_owner = ?2, "
    "lease_expires_at = ?3, started_at = COALESCE(started_at, ?4) WHERE id = ?1");
SQL(kFailTurn,
    "UPDATE turns SET state = 'failed', error = ?2, finished_at = ?3, lease_owner = NULL "
    "WHERE id = ?1");
SQL(kSelectJobById,
    "SELECT j.id, j.project_id, j.status, j.repository, j.ref, j.model, j.draft, j.pr_link, "
    "j.summary, j.error, j.created_at, j.updated_at, j.archived_at FROM jobs j WHERE j.id = ?1");
SQL(kMoreTurnsAfter,
    "SELECT EXISTS (SELECT 1 FROM turns WHERE job_id = ?1 AND seq > ?2 AND state IN ('queued', "
    "'running'))");
SQL(kJobAfterTurn,
    "UPDATE jobs SET status = ?2, pr_link = COALESCE(?3, pr_link), "
    "summary = COALESCE(?4, summary), error = ?5, updated_at = ?6 WHERE id = ?1");
SQL(kSelectMessagesUpTo,
    "SELECT m.job_id, m.seq, m.prompt, m.created_at, t.state, t.attempts, t.summary, t.error, "
    "t.finished_at, t.input_tokens, t.output_tokens FROM messages m JOIN turns t ON t.job_id = m.job_id AND t.seq = m.seq "
    "WHERE m.job_id = ?1 AND m.seq <= ?2 AND (m.seq = 1 OR m.seq >= ?2 - ?3) ORDER BY m.seq");
SQL(kRenewLease,
    "UPDATE turns SET lease_expires_at = ?3 WHERE id = ?1 AND lease_owner = ?2 AND state = "
    "'running'");
SQL(kFinishTurn,
    "UPDATE turns SET state = ?2, summary = ?3, error = ?4, finished_at = ?5, input_tokens = ?6, "
    "output_tokens = ?7 WHERE id = ?1");
SQL(kDeleteSteps, "DELETE FROM steps WHERE job_id = ?1 AND seq = ?2");
SQL(kInsertStep,
    "INSERT INTO steps (job_id, seq, n, kind, text, tool, arguments, result, is_error) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
SQL(kSelectSteps,
    "SELECT seq, kind, text, tool, arguments, result, is_error FROM steps WHERE job_id = ?1 "
    "AND seq >= ?2 AND seq <= ?3 ORDER BY seq, n");
SQL(kJobUsage,
    "SELECT COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0) FROM turns "
    "WHERE job_id = ?1");
SQL(kReleaseTurn,
    "UPDATE turns SET state = 'queued', attempts = MAX(attempts - 1, 0), lease_owner = NULL, "
    "lease_expires_at = NULL WHERE id = ?1 AND lease_owner = ?2 AND state = 'running'");
SQL(kInsertOrg, "INSERT INTO orgs (id, name, created_at) VALUES (?1, ?2, ?3)");
SQL(kSelectOrg, "SELECT id, name, created_at FROM orgs WHERE id = ?1");
SQL(kInsertKey,
    "INSERT INTO api_keys (id, org_id, name, prefix, secret_hash, created_at, revoked_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL)");
SQL(kSelectKeys,
    "SELECT id, org_id, name, prefix, secret_hash, created_at, revoked_at FROM api_keys "
    "WHERE org_id = ?1 ORDER BY id");
SQL(kRevokeKey,
    "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?2) WHERE id = ?1");
SQL(kSelectKeyByHash,
    "SELECT id, org_id, name, prefix, secret_hash, created_at, revoked_at FROM api_keys "
    "WHERE secret_hash = ?1 AND revoked_at IS NULL");
SQL(kInsertProject,
    "INSERT INTO projects (id, org_id, repository, base_ref, forge, forge_api_url, forge_token, "
    "model, rate_limit_per_hour, created_at, ssh_key_path, ssh_known_hosts_path, models, "
    "write_paths) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
SQL(kUpdateProject,
    "UPDATE projects SET repository = ?2, base_ref = ?3, forge = ?4, forge_api_url = ?5, "
    "forge_token = ?6, model = ?7, rate_limit_per_hour = ?8, ssh_key_path = ?9, "
    "ssh_known_hosts_path = ?10, models = ?11, write_paths = ?12 WHERE id = ?1");
SQL(kCountQueuedTurns,
    "SELECT COUNT(*) FROM turns WHERE job_id = ?1 AND state = 'queued'");
SQL(kSelectProjects,
    "SELECT p.id, p.org_id, p.repository, p.base_ref, p.forge, p.forge_api_url, p.forge_token, "
    "p.model, p.rate_limit_per_hour, p.created_at, p.ssh_key_path, p.ssh_known_hosts_path, "
    "p.models, p.write_paths "
    "FROM projects p WHERE p.org_id = ?1 "
    "ORDER BY p.id");
SQL(kListJobs,
    "SELECT j.id, j.project_id, j.status, j.repository, j.ref, j.model, j.draft, j.pr_link, "
    "j.summary, j.error, j.created_at, j.updated_at, j.archived_at FROM jobs j "
    "WHERE j.project_id = ?1 AND (?2 IS NULL OR j.status = ?2) AND (?3 IS NULL OR j.id < ?3) "
    "ORDER BY j.id DESC LIMIT ?4");
SQL(kSelectMessagesPage,
    "SELECT m.job_id, m.seq, m.prompt, m.created_at, t.state, t.attempts, t.summary, t.error, "
    "t.finished_at, t.input_tokens, t.output_tokens FROM messages m JOIN turns t ON t.job_id = m.job_id AND t.seq = m.seq "
    "WHERE m.job_id = ?1 AND m.seq > ?2 ORDER BY m.seq LIMIT ?3");

SQL(kSelectPullRequestByHead,
    "SELECT id, project_id, number, head, base, title, body, diff, draft, created_at, updated_at, "
    "archived_at FROM pull_requests WHERE project_id = ?1 AND head = ?2");
SQL(kSelectPullRequest,
    "SELECT id, project_id, number, head, base, title, body, diff, draft, created_at, updated_at, "
    "archived_at FROM pull_requests WHERE id = ?1");
SQL(kJobOfBranchArchived,
    "SELECT 1 FROM jobs WHERE project_id = ?1 AND ref = ?2 AND status = 'archived'");
SQL(kNextPullRequestNumber,
    "SELECT COALESCE(MAX(number), 0) + 1 FROM pull_requests WHERE project_id = ?1");
SQL(kInsertPullRequest,
    "INSERT INTO pull_requests (id, project_id, number, head, base, title, body, diff, draft, "
    "created_at, updated_at, archived_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, "
    "?11)");
SQL(kUpdatePullRequest,
    "UPDATE pull_requests SET base = ?2, title = ?3, body = ?4, diff = ?5, draft = ?6, "
    "updated_at = ?7 WHERE id = ?1 AND archived_at IS NULL");
// An archived job's pull request keeps its title, and no longer its description
// (which quotes the prompt) or diff: its page is public to whoever has the link.
SQL(kArchivePullRequest,
    "UPDATE pull_requests SET archived_at = ?3, body = '', diff = '', updated_at = ?3 "
    "WHERE project_id = ?1 AND head = ?2 AND archived_at IS NULL");

#undef SQL

LocalPullRequest ReadPullRequest(const Query& q) {
  LocalPullRequest pr;
  pr.id = q.Text(0);
  pr.project_id = q.Text(1);
  pr.number = q.Int(2);
  pr.head = q.Text(3);
  pr.base = q.Text(4);
  pr.title = q.Text(5);
  pr.body = q.Text(6);
  pr.diff = q.Text(7);
  pr.draft = q.Int(8) != 0;
  pr.created_at = q.Int(9);
  pr.updated_at = q.Int(10);
  pr.archived_at = q.OptInt(11);
  return pr;
}

Message ReadMessage(const Query& q) {
  Message m;
  m.job_id = q.Text(0);
  m.seq = static_cast<int>(q.Int(1));
  m.prompt = q.Text(2);
  m.created_at = q.Int(3);
  m.state = ParseTurnState(q.Text(4)).value_or(TurnState::kFailed);
  m.attempts = static_cast<int>(q.Int(5));
  m.summary = q.OptText(6);
  m.error = q.OptText(7);
  m.finished_at = q.OptInt(8);
  m.input_tokens = q.Int(9);
  m.output_tokens = q.Int(10);
  return m;
}

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(std::string path, std::unique_ptr<Connection> writer)
      : path_(std::move(path)), writer_(std::move(writer)) {}

  Status Migrate() {
    std::lock_guard lock(write_mu_);
    Connection& c = *writer_;
    Status s = c.ExecScript("BEGIN IMMEDIATE");
    if (!s.ok()) return s;
    int64_t version = 0;
    {
      Query q(c.db(), c.Prepare("PRAGMA user_version"), {});
      if (q.Next()) version = q.Int(0);
    }
    constexpr int64_t kLatest = std::size(kMigrations);
    if (version > kLatest) {
      c.ExecScript("ROLLBACK");
      return Status::Internal("the database was written by a newer docwright (schema " +
                              std::to_string(version) + ")");
    }
    for (int64_t v = version; v < kLatest; ++v) {
      s = c.ExecScript(kMigrations[v]);
      if (!s.ok()) {
        c.ExecScript("ROLLBACK");
        return s;
      }
    }
    s = c.ExecScript(("PRAGMA user_version = " + std::to_string(kLatest)).c_str());
    if (!s.ok()) {
      c.ExecScript("ROLLBACK");
      return s;
    }
    return c.ExecScript("COMMIT");
  }

  // --- Organisations and keys ---

  Result<Org> CreateOrg(const std::string& name) override {
    Org org{NewId(), name, NowMillis()};
    Status s = Write([&](Connection& c) {
      return Run(c, kInsertOrg, {V(org.id), V(org.name), V(org.created_at)});
    });
    if (!s.ok()) return s;
    return org;
  }

  // --- Pull requests of the local forge ---

  Result<LocalPullRequest> UpsertPullRequest(const LocalPullRequest& in) override {
    LocalPullRequest pr = in;
    Status s = Write([&](Connection& c) -> Status {
      std::optional<LocalPullRequest> existing;
      {
        Query q(c.db(), Prepared(c, kSelectPullRequestByHead), {V(pr.project_id), V(pr.head)});
        if (q.Next()) existing = ReadPullRequest(q);
        if (!q.status().ok()) return q.status();
      }
      UnixMillis now = NowMillis();
      pr.updated_at = now;
      // A turn that ends after its job was archived (its worker had not heard yet)
      // must not publish the description the archive took down.
      {
        Query q(c.db(), Prepared(c, kJobOfBranchArchived), {V(pr.project_id), V(pr.head)});
        bool archived = q.Next();
        if (!q.status().ok()) return q.status();
        if (archived) {
          if (existing) {
            pr = *existing;
            return Status();
          }
          pr.body.clear();
          pr.diff.clear();
          pr.archived_at = now;
        }
      }
      if (existing) {
        pr.id = existing->id;
        pr.number = existing->number;
        pr.created_at = existing->created_at;
        return Run(c, kUpdatePullRequest,
                   {V(pr.id), V(pr.base), V(pr.title), V(pr.body), V(pr.diff),
                    V(int64_t{pr.draft}), V(now)});
      }
      {
        Query q(c.db(), Prepared(c, kNextPullRequestNumber), {V(pr.project_id)});
        if (!q.Next()) return q.status().ok() ? Status::Internal("no pull request number") : q.status();
        pr.number = q.Int(0);
      }
      pr.id = RandomBase62(kPullRequestIdLength);
      pr.created_at = now;
      return Run(c, kInsertPullRequest,
                 {V(pr.id), V(pr.project_id), V(pr.number), V(pr.head), V(pr.base), V(pr.title),
                  V(pr.body), V(pr.diff), V(int64_t{pr.draft}), V(now), V(pr.archived_at)});
    });
    if (!s.ok()) return s;
    return pr;
  }

  Result<LocalPullRequest> GetPullRequest(const std::string& id) override {
    return Read<LocalPullRequest>([&](Connection& c) -> Result<LocalPullRequest> {
      Query q(c.db(), Prepared(c, kSelectPullRequest), {V(id)});
      if (q.Next()) return ReadPullRequest(q);
      if (!q.status().ok()) return q.status();
      return Status::NotFound("pull request not found");
    });
  }

  Result<Org> GetOrg(const std::string& org_id) override {
    return Read<Org>([&](Connection& c) -> Result<Org> {
      Query q(c.db(), Prepared(c, kSelectOrg), {V(org_id)});
      if (q.Next()) return Org{q.Text(0), q.Text(1), q.Int(2)};
      if (!q.status().ok()) return q.status();
      return Status::NotFound("organisation not found");
    });
  }

  Status CreateApiKey(const ApiKey& k) override {
    return Write([&](Connection& c) -> Status {
      Status s = Exists(c, kSelectOrg, k.org_id);
      if (!s.ok()) return s;
      return Run(c, kInsertKey,
                 {V(k.id), V(k.org_id), V(k.name), V(k.prefix), V(k.secret_hash),
                  V(k.created_at)});
    });
  }

  Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) override {
    return Read<std::vector<ApiKey>>([&](Connection& c) -> Result<std::vector<ApiKey>> {
      std::vector<ApiKey> out;
      Query q(c.db(), Prepared(c, kSelectKeys), {V(org_id)});
      while (q.Next()) out.push_back(ReadKey(q));
      if (!q.status().ok()) return q.status();
      return out;
    });
  }

  Status RevokeApiKey(const std::string& key_id) override {
    return Write([&](Connection& c) -> Status {
      Status s = Run(c, kRevokeKey, {V(key_id), V(NowMillis())});
      if (!s.ok()) return s;
      if (c.Changes() == 0) return Status::NotFound("API key not found");
      return Status();
    });
  }

  Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) override {
    return Read<ApiKey>([&](Connection& c) -> Result<ApiKey> {
      Query q(c.db(), Prepared(c, kSelectKeyByHash), {V(secret_hash)});
      if (q.Next()) return ReadKey(q);
      if (!q.status().ok()) return q.status();
      return Status::NotFound("invalid or revoked API key");
    });
  }

  // --- Projects ---

  Result<Project> CreateProject(Project p) override {
    p.id = NewId();
    p.created_at = NowMillis();
    Status s = Write([&](Connection& c) -> Status {
      Status e = Exists(c, kSelectOrg, p.org_id);
      if (!e.ok()) return e;
      std::string forge(ToString(p.forge));
      return Run(c, kInsertProject,
                 {V(p.id), V(p.org_id), V(p.repository), V(p.base_ref), V(forge),
                  V(p.forge_api_url), V(p.forge_token), V(p.model), V(p.rate_limit_per_hour),
                  V(p.created_at), V(p.ssh_key_path), V(p.ssh_known_hosts_path),
                  V(JoinLines(p.models)), V(JoinLines(p.write_paths))});
    });
    if (!s.ok()) return s;
    return p;
  }

  Status UpdateProject(const Project& p) override {
    return Write([&](Connection& c) -> Status {
      std::string forge(ToString(p.forge));
      Status w = Run(c, kUpdateProject,
                     {V(p.id), V(p.repository), V(p.base_ref), V(forge), V(p.forge_api_url),
                      V(p.forge_token), V(p.model), V(p.rate_limit_per_hour), V(p.ssh_key_path),
                      V(p.ssh_known_hosts_path), V(JoinLines(p.models)),
                      V(JoinLines(p.write_paths))});
      if (!w.ok()) return w;
      if (c.Changes() == 0) return Status::NotFound("project not found");
      return Status();
    });
  }

  Result<Project> GetProject(const Scope& scope) override {
    return Read<Project>([&](Connection& c) { return LoadProject(c, scope); });
  }

  Result<std::vector<Project>> ListProjects(const std::string& org_id) override {
    return Read<std::vector<Project>>([&](Connection& c) -> Result<std::vector<Project>> {
      std::vector<Project> out;
      Query q(c.db(), Prepared(c, kSelectProjects), {V(org_id)});
      while (q.Next()) out.push_back(ReadProject(q));
      if (!q.status().ok()) return q.status();
      return out;
    });
  }

  // --- Jobs ---

  Result<Job> CreateJob(const Scope& scope, const NewJob& nj) override {
    std::optional<Job> created;
    Status s = Write([&](Connection& c) -> Status {
      auto project = LoadProject(c, scope);
      if (!project.ok()) return project.status();
      Status allowed = CheckRequestedModel(*project, nj.requested_model, nj.default_model);
      if (!allowed.ok()) return allowed;
      UnixMillis now = NowMillis();
      Status admit = Admit(c, *project, now);
      if (!admit.ok()) return admit;
      Job j;
      j.id = NewId();
      j.project_id = project->id;
      j.status = JobStatus::kActive;
      j.repository = project->repository;
      j.ref = BranchNameFor(j.id, nj.prompt);
      j.model = ResolveModel(nj.requested_model, project->model, nj.default_model);
      j.draft = nj.draft;
      j.created_at = j.updated_at = now;
      Status w = Run(c, kInsertJob,
                     {V(j.id), V(j.project_id), V(j.repository), V(j.ref), V(j.model),
                      V(int64_t{j.draft}), V(now)});
      if (w.ok()) w = Run(c, kInsertMessage, {V(j.id), V(1), V(j.project_id), V(nj.prompt), V(now)});
      if (w.ok()) w = Run(c, kInsertTurn, {V(j.id), V(1)});
      if (w.ok()) created = std::move(j);
      return w;
    });
    if (!s.ok()) return s;
    return std::move(*created);
  }

  Result<Job> GetJob(const Scope& scope, const std::string& job_id) override {
    return Read<Job>([&](Connection& c) { return LoadJob(c, scope, job_id); });
  }

  Result<JobPage> ListJobs(const Scope& scope, const JobQuery& query) override {
    return Read<JobPage>([&](Connection& c) -> Result<JobPage> {
      auto project = LoadProject(c, scope);
      if (!project.ok()) return project.status();
      std::optional<std::string> status;
      if (query.status) status = std::string(ToString(*query.status));
      JobPage page;
      Query q(c.db(), Prepared(c, kListJobs),
              {V(scope.project_id), V(status), V(query.after_id), V(int64_t{query.limit} + 1)});
      while (q.Next()) page.jobs.push_back(ReadJob(q));
      if (!q.status().ok()) return q.status();
      if (static_cast<int>(page.jobs.size()) > query.limit) {
        page.jobs.pop_back();
        page.next_after_id = page.jobs.back().id;
      }
      return page;
    });
  }

  Result<Job> AddMessage(const Scope& scope, const std::string& job_id,
                         const std::string& prompt) override {
    std::optional<Job> updated;
    Status s = Write([&](Connection& c) -> Status {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      auto next = StatusAfterFollowUp(job->status);
      if (!next.ok()) return next.status();
      auto project = LoadProject(c, scope);
      if (!project.ok()) return project.status();
      UnixMillis now = NowMillis();
      Status admit = Admit(c, *project, now);
      if (!admit.ok()) return admit;
      int64_t seq = 0;
      {
        Query q(c.db(), Prepared(c, kSelectJobSeq), {V(job_id)});
        if (!q.Next()) return q.status().ok() ? Status::Internal("job vanished") : q.status();
        seq = q.Int(0);
      }
      if (seq > kMaxMessagesPerJob) {
        return Status::Conflict("this job has reached its limit of " +
                                std::to_string(kMaxMessagesPerJob) +
                                " messages; start a new job to go on");
      }
      {
        Query q(c.db(), Prepared(c, kCountQueuedTurns), {V(job_id)});
        if (!q.Next()) return q.status().ok() ? Status::Internal("cannot count turns") : q.status();
        if (q.Int(0) >= kMaxQueuedFollowUps) {
          return Status::RateLimited(std::to_string(q.Int(0)) +
                                         " follow-ups are already waiting for this job; send "
                                         "more once they have run",
                                     30);
        }
      }
      Status w = Run(c, kJobFollowUp, {V(job_id), V(now)});
      if (w.ok()) w = Run(c, kInsertMessage, {V(job_id), V(seq), V(scope.project_id), V(prompt), V(now)});
      if (w.ok()) w = Run(c, kInsertTurn, {V(job_id), V(seq)});
      if (!w.ok()) return w;
      auto reloaded = LoadJob(c, scope, job_id);
      if (!reloaded.ok()) return reloaded.status();
      updated = std::move(*reloaded);
      return Status();
    });
    if (!s.ok()) return s;
    return std::move(*updated);
  }

  Result<Job> ArchiveJob(const Scope& scope, const std::string& job_id) override {
    std::optional<Job> updated;
    Status s = Write([&](Connection& c) -> Status {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      if (job->status != JobStatus::kArchived) {
        UnixMillis now = NowMillis();
        Status w = Run(c, kJobArchive, {V(job_id), V(now)});
        if (w.ok()) w = Run(c, kArchivePullRequest, {V(scope.project_id), V(job->ref), V(now)});
        if (w.ok()) w = Run(c, kCancelOpenTurns, {V(job_id), V(now)});
        if (!w.ok()) return w;
        job = LoadJob(c, scope, job_id);
        if (!job.ok()) return job.status();
      }
      updated = std::move(*job);
      return Status();
    });
    if (!s.ok()) return s;
    return std::move(*updated);
  }

  using Store::ListMessages;
  Result<MessagePage> ListMessages(const Scope& scope, const std::string& job_id,
                                   const MessageQuery& query) override {
    return Read<MessagePage>([&](Connection& c) -> Result<MessagePage> {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      MessagePage page;
      Query q(c.db(), Prepared(c, kSelectMessagesPage),
              {V(job_id), V(query.after_seq), V(int64_t{query.limit} + 1)});
      while (q.Next()) page.messages.push_back(ReadMessage(q));
      if (!q.status().ok()) return q.status();
      if (static_cast<int64_t>(page.messages.size()) > query.limit) {
        page.messages.pop_back();
        page.next_after_seq = page.messages.back().seq;
      }
      return page;
    });
  }

  Result<std::vector<std::pair<int, TranscriptStep>>> ListSteps(const Scope& scope,
                                                              const std::string& job_id,
                                                              int from_seq, int to_seq) override {
    using Steps = std::vector<std::pair<int, TranscriptStep>>;
    return Read<Steps>([&](Connection& c) -> Result<Steps> {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      Steps out;
      Query q(c.db(), Prepared(c, kSelectSteps), {V(job_id), V(from_seq), V(to_seq)});
      while (q.Next()) {
        TranscriptStep step;
        std::string kind = q.Text(1);
        step.kind = kind == "tool"      ? TranscriptStep::Kind::kTool
                    : kind == "context" ? TranscriptStep::Kind::kContext
                                        : TranscriptStep::Kind::kAssistant;
        step.text = q.Text(2);
        step.tool = q.Text(3);
        step.arguments = q.Text(4);
        step.result = q.Text(5);
        step.is_error = q.Int(6) != 0;
        out.emplace_back(static_cast<int>(q.Int(0)), std::move(step));
      }
      if (!q.status().ok()) return q.status();
      return out;
    });
  }

  Result<TokenUsage> JobUsage(const Scope& scope, const std::string& job_id) override {
    return Read<TokenUsage>([&](Connection& c) -> Result<TokenUsage> {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      Query q(c.db(), Prepared(c, kJobUsage), {V(job_id)});
      if (!q.Next()) return q.status();
      return TokenUsage{q.Int(0), q.Int(1)};
    });
  }

  // --- Turns ---

  Result<std::optional<ClaimedTurn>> ClaimTurn(const std::string& worker_id,
                                               std::chrono::milliseconds lease,
                                               int max_attempts) override {
    // Look before taking the write lock: idle workers poll, and a poll that finds
    // nothing must not serialise behind writers.
    auto any = Read<bool>([&](Connection& c) -> Result<bool> {
      Query q(c.db(), Prepared(c, kFindRunnable), {V(NowMillis())});
      bool found = q.Next();
      if (!q.status().ok()) return q.status();
      return found;
    });
    if (!any.ok()) return any.status();
    if (!*any) return std::optional<ClaimedTurn>();

    std::optional<ClaimedTurn> claimed;
    Status s = Write([&](Connection& c) -> Status {
      // Turns that exhausted their attempts are failed on the way; bounded so one
      // call cannot loop for long.
      for (int round = 0; round < 64; ++round) {
        UnixMillis now = NowMillis();
        int64_t turn_id = 0;
        {
          Query q(c.db(), Prepared(c, kFindRunnable), {V(now)});
          if (!q.Next()) return q.status();
          turn_id = q.Int(0);
        }
        std::string job_id, state;
        int64_t seq = 0, attempts = 0;
        {
          Query q(c.db(), Prepared(c, kSelectTurn), {V(turn_id)});
          if (!q.Next()) return q.status().ok() ? Status::Internal("turn vanished") : q.status();
          job_id = q.Text(1);
          seq = q.Int(2);
          state = q.Text(3);
          attempts = q.Int(4);
        }
        if (state == "running" && attempts >= max_attempts) {
          std::string error = "the turn was interrupted " + std::to_string(attempts) +
                              " times (worker crashed or lost its lease); giving up";
          Status w = Run(c, kFailTurn, {V(turn_id), V(error), V(now)});
          if (w.ok()) w = MoveJobAfterTurn(c, job_id, seq, TurnOutcome{false, {}, {}, error}, now);
          if (!w.ok()) return w;
          continue;
        }
        Status w = Run(c, kClaimTurn,
                       {V(turn_id), V(worker_id), V(now + lease.count()), V(now)});
        if (!w.ok()) return w;
        ClaimedTurn ct;
        ct.turn_id = turn_id;
        ct.attempt = static_cast<int>(attempts + 1);
        auto job = LoadJobById(c, job_id);
        if (!job.ok()) return job.status();
        ct.job = std::move(*job);
        {
          Query q(c.db(), Prepared(c, kSelectProjectById), {V(ct.job.project_id)});
          if (!q.Next()) return q.status().ok() ? Status::Internal("project vanished") : q.status();
          ct.project = ReadProject(q);
        }
        {
          Query q(c.db(), Prepared(c, kSelectMessagesUpTo),
                  {V(job_id), V(seq), V(kMaxHistoryMessages)});
          while (q.Next()) ct.history.push_back(ReadMessage(q));
          if (!q.status().ok()) return q.status();
        }
        if (ct.history.empty() || ct.history.back().seq != seq) {
          return Status::Internal("message of turn " + std::to_string(turn_id) + " is missing");
        }
        ct.message = std::move(ct.history.back());
        ct.history.pop_back();
        claimed = std::move(ct);
        return Status();
      }
      return Status();
    });
    if (!s.ok()) return s;
    return claimed;
  }

  Result<LeaseState> RenewLease(int64_t turn_id, const std::string& worker_id,
                                std::chrono::milliseconds lease) override {
    std::optional<LeaseState> result;
    Status s = Write([&](Connection& c) -> Status {
      Status w = Run(c, kRenewLease, {V(turn_id), V(worker_id), V(NowMillis() + lease.count())});
      if (!w.ok()) return w;
      if (c.Changes() > 0) {
        result = LeaseState::kHeld;
        return Status();
      }
      auto lost = WhyNotHeld(c, turn_id);
      if (!lost.ok()) return lost.status();
      result = *lost;
      return Status();
    });
    if (!s.ok()) return s;
    return *result;
  }

  Result<LeaseState> FinishTurn(int64_t turn_id, const std::string& worker_id,
                                const TurnOutcome& outcome) override {
    std::optional<LeaseState> result;
    Status s = Write([&](Connection& c) -> Status {
      std::string job_id, state, owner;
      int64_t seq = 0;
      {
        Query q(c.db(), Prepared(c, kSelectTurn), {V(turn_id)});
        if (!q.Next()) return q.status().ok() ? Status::NotFound("turn not found") : q.status();
        job_id = q.Text(1);
        seq = q.Int(2);
        state = q.Text(3);
        owner = q.Text(5);
      }
      if (state != "running" || owner != worker_id) {
        result = state == "cancelled" ? LeaseState::kCancelled : LeaseState::kLost;
        return Status();
      }
      UnixMillis now = NowMillis();
      std::string ended(ToString(outcome.succeeded ? TurnState::kSucceeded : TurnState::kFailed));
      Status w = Run(c, kFinishTurn,
                     {V(turn_id), V(ended), V(outcome.summary), V(outcome.error), V(now),
                      V(outcome.usage.input_tokens), V(outcome.usage.output_tokens)});
      if (w.ok()) w = Run(c, kDeleteSteps, {V(job_id), V(seq)});
      for (size_t i = 0; w.ok() && i < outcome.steps.size(); ++i) {
        const TranscriptStep& step = outcome.steps[i];
        w = Run(c, kInsertStep,
                {V(job_id), V(seq), V(static_cast<int64_t>(i + 1)),
                 V(std::string(step.kind == TranscriptStep::Kind::kTool      ? "tool"
                               : step.kind == TranscriptStep::Kind::kContext ? "context"
                                                                             : "assistant")),
                 V(step.text), V(step.tool), V(step.arguments), V(step.result),
                 V(int64_t{step.is_error})});
      }
      if (w.ok()) w = MoveJobAfterTurn(c, job_id, seq, outcome, now);
      if (!w.ok()) return w;
      result = LeaseState::kHeld;
      return Status();
    });
    if (!s.ok()) return s;
    return *result;
  }

  Status ReleaseTurn(int64_t turn_id, const std::string& worker_id) override {
    return Write(
        [&](Connection& c) { return Run(c, kReleaseTurn, {V(turn_id), V(worker_id)}); });
  }

  Status Ping() override {
    return Read<bool>([&](Connection& c) -> Result<bool> {
             Query q(c.db(), Prepared(c, "SELECT 1"), {});
             q.Next();
             if (!q.status().ok()) return q.status();
             return true;
           })
        .status();
  }

 private:
  // Statements are literals of this file; one that fails to compile is a bug that
  // the store tests catch. Query turns a null statement into an error.
  static sqlite3_stmt* Prepared(Connection& c, const char* sql) { return c.Prepare(sql); }

  static Status Run(Connection& c, const char* sql, std::initializer_list<Value> params) {
    sqlite3_stmt* stmt = c.Prepare(sql);
    if (!stmt) return Status::Internal(std::string("bad statement: ") + sqlite3_errmsg(c.db()));
    Query q(c.db(), stmt, params);
    return q.Exec();
  }

  static Status Exists(Connection& c, const char* sql, const std::string& id) {
    Query q(c.db(), c.Prepare(sql), {V(id)});
    if (q.Next()) return Status();
    if (!q.status().ok()) return q.status();
    return Status::NotFound("organisation not found");
  }

  static Result<Project> LoadProject(Connection& c, const Scope& scope) {
    Query q(c.db(), Prepared(c, kSelectProject), {V(scope.project_id), V(scope.org_id)});
    if (q.Next()) return ReadProject(q);
    if (!q.status().ok()) return q.status();
    return Status::NotFound("project not found");
  }

  static Result<Job> LoadJob(Connection& c, const Scope& scope, const std::string& job_id) {
    {
      Query q(c.db(), Prepared(c, kSelectJob),
              {V(job_id), V(scope.project_id), V(scope.org_id)});
      if (q.Next()) return ReadJob(q);
      if (!q.status().ok()) return q.status();
    }
    // Say which of the two is missing; both are invisible across organisations.
    auto project = LoadProject(c, scope);
    if (!project.ok()) return project.status();
    return Status::NotFound("job not found");
  }

  static Result<Job> LoadJobById(Connection& c, const std::string& job_id) {
    Query q(c.db(), Prepared(c, kSelectJobById), {V(job_id)});
    if (q.Next()) return ReadJob(q);
    if (!q.status().ok()) return q.status();
    return Status::NotFound("job not found");
  }

  // The sliding-window rate limit: the project's messages of the last hour are the
  // record of what it was admitted, so no separate counter can drift from them.
  static Status Admit(Connection& c, const Project& p, UnixMillis now) {
    int64_t since = now - kRateWindowMillis;
    int64_t count = 0;
    {
      Query q(c.db(), Prepared(c, kCountRecentMessages), {V(p.id), V(since)});
      if (q.Next()) count = q.Int(0);
      if (!q.status().ok()) return q.status();
    }
    if (count < p.rate_limit_per_hour) return Status();
    // The slot frees when the oldest message that keeps the count at the limit
    // leaves the window.
    int64_t frees_at = now + kRateWindowMillis;
    {
      Query q(c.db(), Prepared(c, kNthRecentMessage),
              {V(p.id), V(since), V(count - p.rate_limit_per_hour)});
      if (q.Next()) frees_at = q.Int(0) + kRateWindowMillis;
      if (!q.status().ok()) return q.status();
    }
    int64_t retry_after = std::max<int64_t>(1, (frees_at - now + 999) / 1000);
    return Status::RateLimited("rate limit reached: " + std::to_string(p.rate_limit_per_hour) +
                                   " jobs and messages per hour for this project",
                               retry_after);
  }

  static Status MoveJobAfterTurn(Connection& c, const std::string& job_id, int64_t seq,
                                 const TurnOutcome& outcome, UnixMillis now) {
    auto job = LoadJobById(c, job_id);
    if (!job.ok()) return job.status();
    bool more = false;
    {
      Query q(c.db(), Prepared(c, kMoreTurnsAfter), {V(job_id), V(seq)});
      if (q.Next()) more = q.Int(0) != 0;
      if (!q.status().ok()) return q.status();
    }
    JobStatus next = StatusAfterTurn(job->status, outcome.succeeded, more);
    std::optional<std::string> error;
    if (next == JobStatus::kFailed) error = outcome.error.value_or("the turn failed");
    if (next == JobStatus::kArchived) error = job->error;
    std::string status(ToString(next));
    return Run(c, kJobAfterTurn,
               {V(job_id), V(status), V(outcome.pr_link), V(outcome.summary), V(error), V(now)});
  }

  static Result<LeaseState> WhyNotHeld(Connection& c, int64_t turn_id) {
    Query q(c.db(), Prepared(c, kSelectTurn), {V(turn_id)});
    if (!q.Next()) return q.status().ok() ? Status::NotFound("turn not found") : q.status();
    return q.Text(3) == "cancelled" ? LeaseState::kCancelled : LeaseState::kLost;
  }

  // Runs `fn` in a write transaction on the writer connection. Rolls back if `fn`
  // fails; a COMMIT that returns has reached the disk (synchronous=FULL).
  template <typename Fn>
  Status Write(Fn&& fn) {
    std::lock_guard lock(write_mu_);
    Connection& c = *writer_;
    Status s = c.ExecScript("BEGIN IMMEDIATE");
    if (!s.ok()) return Status::Unavailable(s.message());
    s = fn(c);
    if (!s.ok()) {
      c.ExecScript("ROLLBACK");
      return s;
    }
    s = c.ExecScript("COMMIT");
    if (!s.ok()) c.ExecScript("ROLLBACK");
    return s;
  }

  // Runs `fn` on a pooled reader connection.
  template <typename T, typename Fn>
  Result<T> Read(Fn&& fn) {
    std::unique_ptr<Connection> conn;
    {
      std::lock_guard lock(pool_mu_);
      if (!readers_.empty()) {
        conn = std::move(readers_.back());
        readers_.pop_back();
      }
    }
    if (!conn) {
      auto opened = Connection::Open(path_);
      if (!opened.ok()) return opened.status();
      conn = std::move(*opened);
    }
    Result<T> result = fn(*conn);
    std::lock_guard lock(pool_mu_);
    readers_.push_back(std::move(conn));
    return result;
  }

  std::string path_;
  std::mutex write_mu_;
  std::unique_ptr<Connection> writer_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Connection>> readers_;
};

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path) {
  // Create the file owner-only before SQLite does: it holds secrets.
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Unavailable("cannot open database " + path);
  ::close(fd);
  auto writer = Connection::Open(path);
  if (!writer.ok()) return writer.status();
  auto store = std::make_unique<SqliteStore>(path, std::move(*writer));
  Status s = store->Migrate();
  if (!s.ok()) return s;
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace docwright
