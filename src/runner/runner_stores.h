// What the runner sees of the store (docs/architecture.md, "The store"): the
// concerns a turn reads and writes, and the wake-ups that bring it turns. Not
// the API keys and sign-in sessions (store/access_store.h), not the event log
// and webhooks (store/event_store.h), and not the whole Store: the runner room
// is built against these headers alone (CMakeLists.txt's dw_store_view), so an
// include of any other concern does not compile (tests/layers).
//
// A bundle of references, copied freely; whatever they name must outlive every
// Runner and RepositoryTurns given it. Thread-safety is the concerns' own
// (each is thread-safe).
#pragma once

#include <concepts>

#include "store/job_store.h"
#include "store/pull_request_store.h"
#include "store/tenant_store.h"
#include "store/usage_store.h"
#include "store/wakeups.h"
#include "store/workflow_store.h"

namespace docwright {

struct RunnerStores {
  // Every concern of one store that has them all (the Store, or a test's):
  // implicit, so that a Store is passed where RunnerStores are asked for.
  template <typename AStore>
  requires std::derived_from<AStore, JobStore> && std::derived_from<AStore, TenantStore> &&
      std::derived_from<AStore, UsageStore> && std::derived_from<AStore, PullRequestStore> &&
      std::derived_from<AStore, WorkflowStore> && std::derived_from<AStore, Wakeups>
      RunnerStores(AStore& store)  // NOLINT(google-explicit-constructor)
      : jobs(store),
        tenants(store),
        usage(store),
        pull_requests(store),
        workflows(store),
        wakeups(store) {}

  JobStore& jobs;                   // claims, leases, steps, outcomes, messages
  TenantStore& tenants;             // the turn's organisation and project
  UsageStore& usage;                // spend against budgets
  PullRequestStore& pull_requests;  // branches, local pull requests, reviews
  WorkflowStore& workflows;         // the project's context repositories
  Wakeups& wakeups;                 // queued turns handed over, and announced
};

}  // namespace docwright
