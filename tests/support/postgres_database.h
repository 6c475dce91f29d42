// A PostgreSQL database of its own for each test that needs one, on the test
// run's server (support/postgres.sh: a throwaway cluster in /tmp reached through
// a Unix socket). Under ctest the fixture PostgresServer.Start has started the
// server; a test binary run by hand starts one itself, on first use, and stops it
// at exit.
#pragma once

#include "support/test_tools.h"

#include <cstdint>
#include <memory>
#include <string>

namespace docwright::testing {

// A new, empty database on the test run's PostgreSQL server; dropped (WITH
// (FORCE): sessions still on it are ended) when this object dies.
// The static functions may be called from any thread; one object, from one at
// a time.
class PostgresDatabase {
 public:
  // The server is the one the ctest fixture started (DOCWRIGHT_TEST_POSTGRES
  // names its state dir, whose `url` file holds the admin URL), or else one this
  // process starts with postgres.sh into a private state dir on first use and
  // stops at exit (std::atexit), so that a test binary run by hand works too.
  // Null, with `why` filled, when no server can be had or the database cannot be
  // created.
  static std::unique_ptr<PostgresDatabase> Create(std::string* why);
  ~PostgresDatabase();
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  // postgresql://docwright@/NAME?host=DIR: the superuser docwright (trust auth)
  // over the server's Unix socket in DIR.
  const std::string& url() const { return url_; }
  // dw_PID_N_HEX: unique across the processes of a test run.
  const std::string& name() const { return name_; }

  // Drops the database now, WITH (FORCE): the sessions on it are ended and new
  // ones fail (a node that lost its database). The destructor then does nothing.
  // Empty, or the error.
  std::string Drop();

  // Runs one SQL statement on the database of `url` (any database of the server:
  // this one's url(), say) over a connection of its own. Empty, or the error.
  static std::string Exec(const std::string& url, const std::string& sql);

  // The first column of the first row of `sql` (a COUNT, say) as an integer, read
  // over a connection of its own; NULL reads as 0 (as SQLite's does). -1 if there
  // is no row, or on an error, which goes to `error` (empty otherwise), or when
  // that is null, to stderr.
  static int64_t Scalar(const std::string& url, const std::string& sql,
                        std::string* error = nullptr);

 private:
  PostgresDatabase(std::string admin_url, std::string name, std::string url);

  std::string admin_url_;
  std::string name_;
  std::string url_;
  bool dropped_ = false;
};

}  // namespace docwright::testing

// Sets `db` (a std::unique_ptr<PostgresDatabase>) to a new database or ends the
// test: skipped where no server can be had, failed under ./dw test and CI
// (support/test_tools.h). Usable in a test body or a fixture's SetUp().
#define DOCWRIGHT_REQUIRE_POSTGRES(db)                                               \
  {                                                                                  \
    std::string docwright_postgres_why;                                              \
    (db) = ::docwright::testing::PostgresDatabase::Create(&docwright_postgres_why);  \
    DOCWRIGHT_REQUIRE_TOOL((db) != nullptr, "PostgreSQL: " + docwright_postgres_why) \
  }
