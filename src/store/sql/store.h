// The SQL store: the one implementation of the Store (store/store.h) over a
// driver (sql/driver.h). The SQLite and PostgreSQL stores are this store over
// their drivers (sqlite_store.h, postgres_store.h); their differences are the
// drivers' (connections, transactions, durability, announcements) and the
// dialects' (sql/statements.h).
#pragma once

#include <memory>

#include "store/sql/driver.h"
#include "store/store.h"

namespace docwright::sql {

// The store over `driver`, its secrets sealed and opened with `secrets`
// (non-null). Seals the secrets stored in the clear (by a docwright from before
// sealing) and checks every sealed one names a key `secrets` holds, as
// OpenStore (store.h) says.
Result<std::unique_ptr<Store>> OpenSqlStore(std::unique_ptr<Driver> driver,
                                            std::shared_ptr<const SecretBox> secrets);

}  // namespace docwright::sql
