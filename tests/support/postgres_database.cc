#include "support/postgres_database.h"

#include <fcntl.h>
#include <libpq-fe.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <vector>

#ifndef DOCWRIGHT_POSTGRES_SCRIPT
#error "DOCWRIGHT_POSTGRES_SCRIPT must name support/postgres.sh (tests/CMakeLists.txt)"
#endif

extern char** environ;

namespace docwright::testing {
namespace {

struct ConnectionCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
struct ResultClearer {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Connection = std::unique_ptr<PGconn, ConnectionCloser>;
using Result = std::unique_ptr<PGresult, ResultClearer>;

std::string WithoutTrailingSpace(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// Connects to the database of `url`, giving up after 10 s (a server that is
// there answers at once on its socket).
Connection Connect(const std::string& url, std::string* why) {
  const char* keys[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), "10", nullptr};
  Connection conn(PQconnectdbParams(keys, values, /*expand_dbname=*/1));
  if (conn == nullptr || PQstatus(conn.get()) != CONNECTION_OK) {
    *why = "cannot connect to " + url + ": " +
           (conn ? WithoutTrailingSpace(PQerrorMessage(conn.get())) : "out of memory");
    return nullptr;
  }
  return conn;
}

// Runs one statement (its rows, if any, are not read); false, with `why`, if it
// failed.
bool Execute(PGconn* conn, const std::string& sql, std::string* why) {
  Result result(PQexec(conn, sql.c_str()));
  ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    *why = sql + ": " + WithoutTrailingSpace(PQerrorMessage(conn));
    return false;
  }
  return true;
}

// The URL of database `name` on the server of `admin_url`: its path replaced.
std::string DatabaseUrl(const std::string& admin_url, const std::string& name) {
  size_t scheme = admin_url.find("://");
  size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  size_t query = admin_url.find('?', start);
  size_t path = admin_url.find('/', start);
  if (path == std::string::npos || path > query) path = query;
  std::string rest = query == std::string::npos ? "" : admin_url.substr(query);
  return admin_url.substr(0, path) + "/" + name + rest;
}

// Names no other database of the run has: this process, a count within it, and
// a random part in case a pid comes round again while the server runs.
std::string NewName() {
  static std::atomic<unsigned> count{0};
  std::random_device random;
  char name[64];
  std::snprintf(name, sizeof name, "dw_%d_%u_%08x", static_cast<int>(getpid()), count++,
                static_cast<unsigned>(random()));
  return name;
}

struct ScriptResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs postgres.sh COMMAND STATE_DIR. The child gets only fds 0-2: the server
// the script leaves running would otherwise hold this process's other
// descriptors (listening sockets of the tests, pipes) for its whole life.
ScriptResult RunScript(const std::string& command, const std::string& state_dir) {
  ScriptResult r;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    r.output = "pipe2 failed";
    return r;
  }
  std::string script = DOCWRIGHT_POSTGRES_SCRIPT;
  std::vector<char*> argv = {script.data(), const_cast<char*>(command.c_str()),
                             const_cast<char*>(state_dir.c_str()), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  pid_t pid = -1;
  int spawn_error = posix_spawn(&pid, script.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawn_error == 0) {
    char buffer[4096];
    for (;;) {
      ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
      if (n > 0) {
        r.output.append(buffer, n);
      } else if (n == 0 || errno != EINTR) {
        break;
      }
    }
  }
  close(pipe_fds[0]);
  if (spawn_error != 0) {
    r.output = script + ": " + std::strerror(spawn_error);
    return r;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string ReadUrl(const std::string& state_dir) {
  std::ifstream in(state_dir + "/url");
  std::string url;
  std::getline(in, url);
  return WithoutTrailingSpace(url);
}

// The server of a test binary run without the ctest fixture: started on first
// use into a private state dir, stopped at exit by the process that started it
// (not by a forked child that exits, such as a death test's).
class OwnServer {
 public:
  static OwnServer& Get() {
    static OwnServer server;
    return server;
  }

  bool AdminUrl(std::string* url, std::string* why) {
    std::lock_guard lock(mutex_);
    if (!tried_) {
      tried_ = true;
      Start();
    }
    *url = url_;
    *why = why_;
    return !url_.empty();
  }

 private:
  // Called once, under mutex_. A failure is kept: each test would fail the same.
  void Start() {
    char state_template[] = "/tmp/docwright-pgstate.XXXXXX";
    if (mkdtemp(state_template) == nullptr) {
      why_ = std::string("mkdtemp: ") + std::strerror(errno);
      return;
    }
    state_dir_ = state_template;
    owner_ = getpid();
    std::atexit([] { Get().Stop(); });
    ScriptResult r = RunScript("start", state_dir_);
    url_ = r.exit_code == 0 ? ReadUrl(state_dir_) : "";
    if (url_.empty()) {
      why_ = std::string(DOCWRIGHT_POSTGRES_SCRIPT) + " start (exit " +
             std::to_string(r.exit_code) + ") started no server: " + WithoutTrailingSpace(r.output);
    }
  }

  void Stop() {
    std::lock_guard lock(mutex_);
    if (state_dir_.empty() || getpid() != owner_) return;
    ScriptResult r = RunScript("stop", state_dir_);
    if (r.exit_code != 0) {
      std::fprintf(stderr, "postgres.sh stop %s failed: %s\n", state_dir_.c_str(),
                   r.output.c_str());
    }
    std::error_code ec;
    std::filesystem::remove_all(state_dir_, ec);
    state_dir_.clear();
    url_.clear();
  }

  std::mutex mutex_;
  bool tried_ = false;
  pid_t owner_ = -1;
  std::string state_dir_;
  std::string url_;
  std::string why_;
};

// The admin URL of the test run's server (see PostgresDatabase::Create).
bool AdminUrl(std::string* url, std::string* why) {
  const char* fixture = std::getenv("DOCWRIGHT_TEST_POSTGRES");
  if (fixture == nullptr || *fixture == '\0') return OwnServer::Get().AdminUrl(url, why);
  *url = ReadUrl(fixture);
  if (url->empty()) {
    *why = std::string("DOCWRIGHT_TEST_POSTGRES=") + fixture +
           " names no server (no url file there): the ctest fixture PostgresServer.Start "
           "started none (is PostgreSQL installed? see its output)";
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<PostgresDatabase> PostgresDatabase::Create(std::string* why) {
  std::string admin_url;
  if (!AdminUrl(&admin_url, why)) return nullptr;
  Connection conn = Connect(admin_url, why);
  if (conn == nullptr) return nullptr;
  std::string name = NewName();
  // FILE_COPY (PostgreSQL 15 made WAL_LOG the default): a few times quicker for
  // an empty database, since fsync is off and the template is small.
  std::string sql = "CREATE DATABASE \"" + name + "\"";
  if (PQserverVersion(conn.get()) >= 150000) sql += " STRATEGY FILE_COPY";
  if (!Execute(conn.get(), sql, why)) return nullptr;
  std::string url = DatabaseUrl(admin_url, name);
  return std::unique_ptr<PostgresDatabase>(
      new PostgresDatabase(std::move(admin_url), std::move(name), std::move(url)));
}

PostgresDatabase::PostgresDatabase(std::string admin_url, std::string name, std::string url)
    : admin_url_(std::move(admin_url)), name_(std::move(name)), url_(std::move(url)) {}

PostgresDatabase::~PostgresDatabase() {
  if (dropped_) return;
  std::string error = Drop();
  if (!error.empty()) {
    std::fprintf(stderr, "PostgresDatabase: %s was not dropped: %s\n", name_.c_str(),
                 error.c_str());
  }
}

std::string PostgresDatabase::Drop() {
  dropped_ = true;
  return Exec(admin_url_, "DROP DATABASE \"" + name_ + "\" WITH (FORCE)");
}

std::string PostgresDatabase::Exec(const std::string& url, const std::string& sql) {
  std::string why;
  Connection conn = Connect(url, &why);
  if (conn == nullptr || !Execute(conn.get(), sql, &why)) return why;
  return "";
}

int64_t PostgresDatabase::Scalar(const std::string& url, const std::string& sql,
                                 std::string* error) {
  std::string why;
  int64_t value = -1;
  if (Connection conn = Connect(url, &why)) {
    Result result(PQexec(conn.get(), sql.c_str()));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) {
      why = sql + ": " + WithoutTrailingSpace(PQerrorMessage(conn.get()));
    } else if (PQntuples(result.get()) > 0 && PQnfields(result.get()) > 0) {
      if (PQgetisnull(result.get(), 0, 0)) {
        value = 0;
      } else {
        const char* text = PQgetvalue(result.get(), 0, 0);
        char* end = nullptr;
        errno = 0;
        long long parsed = std::strtoll(text, &end, 10);
        if (errno != 0 || end == text || *end != '\0') {
          why = sql + ": not an integer: " + text;
        } else {
          value = parsed;
        }
      }
    }
  }
  if (error != nullptr) {
    *error = why;
  } else if (!why.empty()) {
    std::fprintf(stderr, "PostgresDatabase::Scalar: %s\n", why.c_str());
  }
  return value;
}

}  // namespace docwright::testing
