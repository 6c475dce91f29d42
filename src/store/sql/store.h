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

std::unique_ptr<Store> NewSqlStore(std::unique_ptr<Driver> driver);

}  // namespace docwright::sql
