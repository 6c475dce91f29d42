// Internal to the SQLite store: the schema, as versioned migrations.
#pragma once

#include "core/status.h"
#include "store/sqlite/connection.h"

namespace docwright::sqlite {

// Brings the database on `c` to the latest schema in one transaction (nothing
// changes if a step fails). Fails if the file was written by a newer docwright.
// The caller holds the write lock.
Status Migrate(Connection& c);

}  // namespace docwright::sqlite
