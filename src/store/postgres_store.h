// The PostgreSQL Store: any number of `docwright serve` and `docwright worker`
// nodes on one database. Transactions run on a pool of connections; row locks
// (taken in one order: project, job, turn) give each write the isolation the
// SQLite store gets from its one writer, so the rate limit, the order of a job's
// turns and the caps of turns in flight hold exactly across nodes. Turns are
// claimed with FOR NO KEY UPDATE OF the turn and its job, SKIP LOCKED, one
// claim at a time across nodes (an advisory lock: the counts fairness reads
// must not move under it). Leases and the rate limit's window are on the
// database's clock, so nodes whose clocks differ agree on both. Writes NOTIFY the other nodes
// (Store::Watch).
//
// Durability is the server's: a write that returns OK was committed
// (synchronous_commit on, as PostgreSQL ships; claims commit without waiting for
// the flush, as store.h allows). A transaction that fails on a
// lost connection, a deadlock or a serialization failure before its COMMIT is
// run again on a new connection, 3 attempts in all with backoff; one lost during its
// COMMIT is reported Unavailable, as it may or may not have been made.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace docwright {

struct PostgresOptions {
  int max_connections = 16;  // per process; a transaction waits up to 10 s for one
};

// Connects to `url`, applies pending migrations and starts listening;
// `secrets` as OpenStore (store.h) takes it. Unavailable if the server cannot
// be reached.
Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& url,
                                                 std::shared_ptr<const SecretBox> secrets,
                                                 PostgresOptions options = {});

}  // namespace docwright
