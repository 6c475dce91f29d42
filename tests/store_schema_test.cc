// The schema is one across the two dialects: a SQLite database and a
// PostgreSQL one, each migrated from nothing by its own store
// (store/sqlite/schema.cc, store/postgres/schema.cc), hold the same tables,
// the same columns of the same kinds and nullability, and the same named
// indexes over the same columns. The dialects' differences are the small
// hooks below (how each spells a kind, what each keeps its version in); any
// other difference is drift, and fails here, naming it.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "store/store.h"
#include "support/postgres_database.h"
#include "support/secrets.h"
#include "support/temp_dir.h"

namespace docwright::testing {
namespace {

struct Column {
  std::string kind;  // int, text, real, blob
  bool not_null = false;
  bool operator==(const Column&) const = default;
};

struct Index {
  std::string table;
  bool unique = false;
  bool partial = false;
  std::string columns;  // comma-separated, in order
  bool operator==(const Index&) const = default;
};

struct Schema {
  std::map<std::string, std::map<std::string, Column>> tables;
  std::map<std::string, Index> indexes;  // those made by CREATE INDEX, by name
};

// The hooks: how each dialect spells a kind of column.
std::string SqliteKind(std::string type) {
  for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (type == "INTEGER") return "int";
  if (type == "TEXT") return "text";
  if (type == "REAL") return "real";
  if (type == "BLOB") return "blob";
  return "sqlite " + type;
}

std::string PostgresKind(const std::string& type) {
  if (type == "bigint" || type == "integer" || type == "smallint") return "int";
  if (type == "text") return "text";
  if (type == "double precision" || type == "real") return "real";
  if (type == "bytea") return "blob";
  return "postgres " + type;
}

// What each keeps only for itself: PostgreSQL's version table (SQLite keeps
// the version in its header, PRAGMA user_version).
const std::set<std::string> kPostgresOnlyTables = {"docwright_schema"};

// Rows of `sql` on `db`, each column as text ("" for NULL).
std::vector<std::vector<std::string>> SqliteRows(sqlite3* db, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db) << ": " << sql;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      const unsigned char* text = sqlite3_column_text(st, i);
      row.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  return rows;
}

std::string Quoted(const std::string& name) { return "'" + name + "'"; }

Schema ReadSqlite(const std::string& path) {
  Schema schema;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  for (const auto& t : SqliteRows(db,
                                  "SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                  "name NOT LIKE 'sqlite_%' ORDER BY name")) {
    const std::string& table = t[0];
    auto& columns = schema.tables[table];
    for (const auto& c : SqliteRows(db,
                                    "SELECT name, type, \"notnull\", pk FROM "
                                    "pragma_table_info(" +
                                        Quoted(table) + ")")) {
      // A primary key is never NULL (PostgreSQL says so of it; SQLite's
      // INTEGER PRIMARY KEY is the row id).
      columns[c[0]] = Column{SqliteKind(c[1]), c[2] == "1" || c[3] != "0"};
    }
    for (const auto& i : SqliteRows(db,
                                    "SELECT name, \"unique\", partial FROM "
                                    "pragma_index_list(" +
                                        Quoted(table) + ") WHERE origin = 'c'")) {
      std::string names;
      for (const auto& col : SqliteRows(
               db, "SELECT name FROM pragma_index_info(" + Quoted(i[0]) + ") ORDER BY seqno")) {
        names += (names.empty() ? "" : ",") + col[0];
      }
      schema.indexes[i[0]] = Index{table, i[1] == "1", i[2] == "1", names};
    }
  }
  sqlite3_close(db);
  return schema;
}

std::vector<std::vector<std::string>> PostgresRows(PGconn* c, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  PGresult* r = PQexec(c, sql.c_str());
  EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(c) << ": " << sql;
  for (int i = 0; i < PQntuples(r); ++i) {
    std::vector<std::string> row;
    for (int j = 0; j < PQnfields(r); ++j) row.emplace_back(PQgetvalue(r, i, j));
    rows.push_back(std::move(row));
  }
  PQclear(r);
  return rows;
}

Schema ReadPostgres(const std::string& url) {
  Schema schema;
  PGconn* c = PQconnectdb(url.c_str());
  EXPECT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
  for (const auto& col :
       PostgresRows(c,
                    "SELECT table_name, column_name, data_type, is_nullable FROM "
                    "information_schema.columns WHERE table_schema = current_schema()")) {
    if (kPostgresOnlyTables.count(col[0])) continue;
    schema.tables[col[0]][col[1]] = Column{PostgresKind(col[2]), col[3] == "NO"};
  }
  // The indexes CREATE INDEX made: not those behind a primary key or a UNIQUE
  // constraint (SQLite's "automatic" ones, left out there too).
  for (const auto& i : PostgresRows(
           c,
           "SELECT i.relname, t.relname, ix.indisunique, ix.indpred IS NOT NULL, "
           "(SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM "
           "unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a "
           "ON a.attrelid = t.oid AND a.attnum = k.attnum) "
           "FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid "
           "JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace "
           "WHERE n.nspname = current_schema() AND NOT EXISTS "
           "(SELECT 1 FROM pg_constraint con WHERE con.conindid = ix.indexrelid)")) {
    if (kPostgresOnlyTables.count(i[1])) continue;
    schema.indexes[i[0]] = Index{i[1], i[2] == "t", i[3] == "t", i[4]};
  }
  PQfinish(c);
  return schema;
}

// Walks the names of `sqlite` and `postgres` together: "WHAT only in ..." for
// a name one side lacks, `both(name, theirs_sqlite, theirs_postgres)` for the rest.
template <typename V, typename Both>
void Compare(const std::map<std::string, V>& sqlite, const std::map<std::string, V>& postgres,
             const std::string& what, std::vector<std::string>* out, Both both) {
  std::set<std::string> names;
  for (const auto& [name, _] : sqlite) names.insert(name);
  for (const auto& [name, _] : postgres) names.insert(name);
  for (const std::string& name : names) {
    auto s = sqlite.find(name);
    auto p = postgres.find(name);
    if (s == sqlite.end() || p == postgres.end()) {
      out->push_back(what + name + " only in " + (s == sqlite.end() ? "PostgreSQL" : "SQLite"));
    } else {
      both(name, s->second, p->second);
    }
  }
}

// Every difference between the two, one line each.
std::vector<std::string> Differences(const Schema& sqlite, const Schema& postgres) {
  std::vector<std::string> out;
  auto say_column = [](const Column& c) { return c.kind + (c.not_null ? " NOT NULL" : ""); };
  Compare(sqlite.tables, postgres.tables, "table ", &out,
          [&](const std::string& t, const auto& s, const auto& p) {
            Compare(s, p, t + ".", &out,
                    [&](const std::string& c, const Column& sc, const Column& pc) {
                      if (sc == pc) return;
                      out.push_back(t + "." + c + ": SQLite " + say_column(sc) + ", PostgreSQL " +
                                    say_column(pc));
                    });
          });
  auto say_index = [](const Index& x) {
    return x.table + "(" + x.columns + ")" + (x.unique ? " unique" : "") +
           (x.partial ? " partial" : "");
  };
  Compare(
      sqlite.indexes, postgres.indexes, "index ", &out,
      [&](const std::string& i, const Index& s, const Index& p) {
        if (s == p) return;
        out.push_back("index " + i + ": SQLite " + say_index(s) + ", PostgreSQL " + say_index(p));
      });
  return out;
}

std::string Lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST(StoreSchema, BothDialectsMigrateToTheSameTablesColumnsAndIndexes) {
  TempDir dir;
  const std::string path = dir / "docwright.db";
  ASSERT_TRUE(OpenStore(path, TestSecrets()).ok());
  std::unique_ptr<PostgresDatabase> database;
  DOCWRIGHT_REQUIRE_POSTGRES(database);
  ASSERT_TRUE(OpenStore(database->url(), TestSecrets()).ok());

  Schema sqlite = ReadSqlite(path);
  Schema postgres = ReadPostgres(database->url());
  ASSERT_GT(sqlite.tables.size(), 10u) << "the SQLite schema was read";
  ASSERT_GT(sqlite.indexes.size(), 10u) << "its indexes were read";
  ASSERT_GT(postgres.tables.size(), 10u) << "the PostgreSQL schema was read";
  ASSERT_GT(postgres.indexes.size(), 10u) << "its indexes were read";
  EXPECT_EQ(Differences(sqlite, postgres), std::vector<std::string>{})
      << Lines(Differences(sqlite, postgres));
}

// The comparison sees what it must: a column, a kind, a nullability and an
// index that differ are each named.
TEST(StoreSchema, EachKindOfDriftIsNamed) {
  Schema a;
  a.tables["jobs"]["id"] = Column{"text", true};
  a.tables["jobs"]["draft"] = Column{"int", true};
  a.tables["jobs"]["note"] = Column{"text", false};
  a.indexes["jobs_status"] = Index{"jobs", false, false, "status,id"};
  Schema b = a;
  b.tables["jobs"]["draft"] = Column{"text", true};
  b.tables["jobs"]["note"] = Column{"text", true};
  b.tables["jobs"].erase("id");
  b.indexes["jobs_status"].columns = "status";
  b.tables["extra"]["id"] = Column{"int", true};
  EXPECT_EQ(Differences(a, a), std::vector<std::string>{});
  EXPECT_EQ(Differences(a, b),
            (std::vector<std::string>{
                "table extra only in PostgreSQL",
                "jobs.draft: SQLite int NOT NULL, PostgreSQL text NOT NULL",
                "jobs.id only in SQLite", "jobs.note: SQLite text, PostgreSQL text NOT NULL",
                "index jobs_status: SQLite jobs(status,id), PostgreSQL jobs(status)"}));
}

}  // namespace
}  // namespace docwright::testing
