// Internal to the PostgreSQL store: its schema, as versioned migrations.
#pragma once

#include "core/status.h"
#include "store/postgres/connection.h"

namespace docwright::postgres {

// Brings the database's schema to the latest version, in one transaction under
// an advisory lock, so nodes that start together migrate once. Internal if the
// database was written by a newer docwright.
Status Migrate(Connection& c);

}  // namespace docwright::postgres
