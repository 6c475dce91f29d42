// The Store: every durable fact of docwright, as one interface per concern
// (store/*_store.h), bundled here for whoever opens the database.
//
// The concerns: TenantStore (organisations and projects), AccessStore (API
// keys and sign-in sessions),
// JobStore (jobs, messages, turns: the work queue), UsageStore (spend and
// budgets), EventStore (the event log, webhook endpoints and their outbox),
// WorkflowStore (context repositories, workflows, runs, watched branches,
// forge events) and PullRequestStore (publishing, local pull requests,
// reviews, comment replies); and who is woken when (Wakeups, wakeups.h). A
// caller that needs one concern takes that interface, not the Store
// (docs/architecture.md, "The store").
//
// Implementations: the SQLite store (embedded default, sqlite_store.h) and the
// PostgreSQL store (many nodes on one database, postgres_store.h), held to one
// contract by one test suite. All methods are thread-safe. A method that returns
// OK for a write has made that write durable (it survives a crash of the process
// or the machine), except claims and lease renewals (ClaimTurn, RenewLease,
// RenewLeases): a power loss (not a crash) may undo them, which puts the turn
// back as its lease's expiry would (with SQLite, so may a turn a claim gave up
// on, which is then given up again).
//
// Tenancy is enforced here, not only in the API: every job-level method takes a
// Scope, and a project of another organisation is NotFound, exactly as a project
// that does not exist.
#pragma once

#include <memory>
#include <string>

#include "core/secret_box.h"
#include "core/status.h"
#include "store/access_store.h"
#include "store/event_store.h"
#include "store/job_store.h"
#include "store/pull_request_store.h"
#include "store/scope.h"
#include "store/tenant_store.h"
#include "store/usage_store.h"
#include "store/wakeups.h"
#include "store/workflow_store.h"

namespace docwright {

// Every concern, over one database. Implementations: the SQL store over
// SQLite or PostgreSQL (store/sql/), and the read cache (cached_store.h).
class Store : public TenantStore,
              public AccessStore,
              public JobStore,
              public UsageStore,
              public EventStore,
              public WorkflowStore,
              public PullRequestStore,
              public Wakeups {
 public:
  ~Store() override = default;

  // --- Secrets at rest ---
  // Seals again, under the secret box's current key, every stored secret that is
  // not sealed under it (after a new key was put first in the key file), each
  // only if it is still the value that was read (a concurrent write wins).
  // Returns how many were sealed again. Fails on the first secret that does not
  // open (its key is not held, or it was altered), naming its project and key
  // id; those sealed before it stay sealed again.
  virtual Result<int64_t> ResealSecrets() = 0;

  // Cheap liveness check for /healthz.
  virtual Status Ping() = 0;
};

// Opens (creating and migrating as needed) the store `url` names:
// "sqlite:///abs/path.db", "sqlite:relative.db", a plain file path, or a
// PostgreSQL URI, "postgres://..." or "postgresql://..." (libpq's form: user,
// password, host, port, database and parameters such as sslmode).
//
// `secrets` (required) seals the secrets the store writes (a project's forge
// token) and opens those it reads: the database never holds one in the clear.
// Opening seals any secret stored in the clear by a docwright from before
// sealing, and refuses (InvalidArgument, naming the key ids) a database
// holding secrets sealed under keys `secrets` lacks: a node given the wrong
// key file must not start and fail every turn.
Result<std::unique_ptr<Store>> OpenStore(const std::string& url,
                                         std::shared_ptr<const SecretBox> secrets);
// Whether OpenStore takes `url` for a PostgreSQL database (else SQLite).
bool IsPostgresUrl(const std::string& url);

// Writes a consistent copy of the database `url` names to the new file `to`,
// while other processes keep reading and writing it (the database as of one
// moment). InvalidArgument if `to` exists or `url` is not SQLite (PostgreSQL is
// backed up with pg_dump); Unavailable on an I/O error (a partial copy goes).
Status BackupDatabase(const std::string& url, const std::string& to);

}  // namespace docwright
