// Internal to the SQL store: the statements of the forges' webhook deliveries
// (forge_events.cc), as sql/statements.h writes its own (same placeholders,
// same clock).
#pragma once

#include "store/sql/driver.h"

namespace docwright::sql {

#define SQL(name, text) \
  inline constexpr Statement name { text, text }

// A delivery recorded once: a second one with its (project, forge, delivery
// id) changes no row.
SQL(kInsertForgeEvent,
    "INSERT INTO forge_events (project_id, forge, delivery_id, kind, data, received_at) VALUES "
    "(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (project_id, forge, delivery_id) DO NOTHING");
// Events received before ?1, at most ?2 of them (a record removes a few).
SQL(kPruneForgeEvents,
    "DELETE FROM forge_events WHERE id IN (SELECT id FROM forge_events WHERE received_at < ?1 "
    "ORDER BY id LIMIT ?2)");
SQL(kSelectPendingForgeEvents,
    "SELECT id, project_id, forge, delivery_id, kind, data, received_at, handled_at, outcome "
    "FROM forge_events WHERE handled_at IS NULL ORDER BY id LIMIT ?1");
SQL(kFinishForgeEvent,
    "UPDATE forge_events SET handled_at = COALESCE(handled_at, ?2), outcome = COALESCE(outcome, "
    "?3) WHERE id = ?1");

#undef SQL

}  // namespace docwright::sql
