// The embedded Store: one SQLite file in WAL mode with synchronous=FULL, so an
// acknowledged write survives a crash of the process or the machine (claims and
// lease renewals are flushed by the next such write: see store.h). Writes go
// through one connection under a mutex (and SQLite's lock across processes, so
// `docwright worker` processes may share the file); reads use a pool.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace docwright {

// Opens or creates the database at `path` and applies pending migrations;
// `secrets` as OpenStore (store.h) takes it.
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                               std::shared_ptr<const SecretBox> secrets);

// Writes the database at `path` as of one moment to the new file `to` (VACUUM
// INTO: one read transaction, so writers in this and other processes go on; the
// copy is compact, and whole in itself, with no -wal file). The copy is created
// owner-only. InvalidArgument if `to` exists; Unavailable on an I/O error, after
// removing what was written.
Status BackupSqliteDatabase(const std::string& path, const std::string& to);

}  // namespace docwright
