// The embedded Store: one SQLite file in WAL mode with synchronous=FULL, so an
// acknowledged write survives a crash of the process or the machine. Writes go
// through one connection under a mutex (and SQLite's lock across processes, so
// `docwright worker` processes may share the file); reads use a pool.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace docwright {

// Opens or creates the database at `path` and applies pending migrations.
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path);

}  // namespace docwright
