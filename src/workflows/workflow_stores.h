// What the workflows' engine and its forge-event handlers see of the store
// (docs/architecture.md, "The store"): the workflows, their runs, watched heads
// and forge events; the jobs they start and continue; the organisations and
// projects they go over; and the pull requests and comment replies they follow.
// Not the API keys and sign-in sessions (store/access_store.h), not the event
// log and webhooks (store/event_store.h), not usage, and not the whole Store:
// the workflows room is built against these headers alone (CMakeLists.txt's
// dw_store_view), so an include of any other concern does not compile
// (tests/layers).
//
// A bundle of references, copied freely; whatever they name must outlive every
// WorkflowEngine and handler call given it. Thread-safety is the concerns' own
// (each is thread-safe).
#pragma once

#include <concepts>

#include "store/job_store.h"
#include "store/pull_request_store.h"
#include "store/tenant_store.h"
#include "store/workflow_store.h"

namespace docwright {

struct WorkflowStores {
  // Every concern of one store that has them all (the Store, or a test's):
  // implicit, so that a Store is passed where WorkflowStores are asked for.
  template <typename AStore>
  requires std::derived_from<AStore, JobStore> && std::derived_from<AStore, TenantStore> &&
      std::derived_from<AStore, WorkflowStore> && std::derived_from<AStore, PullRequestStore>
      WorkflowStores(AStore& store)  // NOLINT(google-explicit-constructor)
      : jobs(store), tenants(store), workflows(store), pull_requests(store) {}

  JobStore& jobs;                   // jobs started and continued, their messages
  TenantStore& tenants;             // organisations and projects gone over
  WorkflowStore& workflows;         // workflows, runs, watched heads, forge events
  PullRequestStore& pull_requests;  // pull requests' state, comment replies
};

}  // namespace docwright
