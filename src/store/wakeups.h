// Wake-ups: who is told, on which node, that something waits for them. One
// mechanism of the store, for every waiter (the runner's workers, event
// streams, webhook delivery workers, the read cache):
//
// - A write that queues a turn (a job, a follow-up, a workflow's run: through
//   any route, API or engine) first offers it to this process's turn taker
//   (TakeQueuedTurns: the runner), which may take it inside the write itself;
//   else it tells this process's watchers (turn_queued_here) as soon as the
//   turn can be claimed.
// - On a store that announces (PostgreSQL: LISTEN/NOTIFY on the `docwright`
//   channel), every write that may make a turn runnable (those, and a turn
//   ended or given back, a cap raised) tells every node's watchers, this
//   one's included (turn_queued). Elsewhere other processes' turns are found
//   by polling (RunnerOptions::poll_interval).
// - Job, key, event and delivery changes are told as StoreWatcher says.
//
// Watchers of this process's writes are called on the writing thread, once the
// write's locks are released (they may read the store); those of announcements
// on the store's listening thread, where they must be quick and must not call
// back into the store. A wake-up may be spurious (a watcher looks and finds
// nothing), never lost while announcements are heard (hearing(true)).
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "core/turn.h"

namespace docwright {

struct StoreWatcher {
  // A turn was queued by a write of this process and not handed to its taker
  // (both backends), told once the turn can be claimed by any connection: that
  // may be before the write is on the disk (SQLite flushes its log after the
  // call, so a worker woken by it claims while the disk flushes).
  std::function<void()> turn_queued_here;
  // A turn may have become runnable, by any node's write (this one's too);
  // only a store that announces changes tells it.
  std::function<void()> turn_queued;
  // Announced changes only (as turn_queued).
  std::function<void(const std::string& job_id)> job_changed;
  std::function<void(const std::string& job_id)> job_archived;  // job_changed is told too
  std::function<void()> keys_changed;                           // API keys revoked, sessions ended
  // The job has new events (Store::ListEvents): this process's writes, on every
  // store, once they are committed, and other nodes' where announced.
  std::function<void(const std::string& job_id)> job_events;
  // Webhook deliveries became due (an event an enabled endpoint takes, or an
  // endpoint enabled again), told as job_events is; events no endpoint takes
  // are not, so a node without endpoints hears nothing.
  std::function<void()> webhook_deliveries;
  // false: announcements stopped (the store lost its way to hear them), and
  // changes made until they resume go unheard; true: they resumed.
  std::function<void(bool hearing)> hearing;
};

// The lease under which a write that queues a turn claims it, in its own
// transaction (TurnTaker::reserve): as JobStore::ClaimTurn's arguments.
struct ClaimFor {
  std::string worker_id;
  std::chrono::milliseconds lease{0};
  std::vector<std::string> held_projects;
};

// This process's taker of the turns its writes queue (CreateJob, AddMessage
// and their keyed forms, a workflow's run): the runner. Every member is called
// on the writing thread; all three are needed for any to be used.
struct TurnTaker {
  // Inside the write's transaction, once the write is admitted (a create's,
  // before its turn is queued; a follow-up's, once it is queued), at most once
  // a write: the lease to claim the turn under at once, if a worker of this
  // process is free to run it; nullopt to leave it to any worker. Must be quick
  // and must not call the store. The turn is claimed only if it is runnable now
  // (its job's earlier turns ended, its organisation and project under their
  // caps of turns in flight, counting `held_projects`; its project's secrets
  // readable): JobStore::ClaimTurn's rules but its fairness, for the turn is
  // this one, not the oldest. A claim that fails is undone alone: the write
  // goes on. A `reserve` that throws reserves nothing.
  std::function<std::optional<ClaimFor>()> reserve;
  // Inside the write's transaction, before it commits, once the turn is
  // claimed under the lease `reserve` gave (its first attempt, its
  // turn.started event written): the turn, and `committed`, which becomes
  // ready once the write has ended: true if it committed (the claim is the
  // taker's from then on, as a worker's claim), false if not (no such turn was
  // ever visible: nothing may be written of it, nor run past what is undone by
  // dropping it). So a worker may start on the turn while the write commits.
  // Returns whether the taker takes the turn: false undoes the claim within
  // the write (the turn left queued, and turn_queued_here told as the write
  // becomes visible). Either way the reservation has ended. Must be quick,
  // must not call the store, and must not wait for `committed` (it is ready
  // only once this has returned). At most once a write: a transaction the
  // store runs again after a hand-off tells that hand-off it was not
  // committed, and leaves its own turn to the workers.
  std::function<bool(const ClaimFor& owner, TurnInput claimed, std::shared_future<bool> committed)>
      claimed;
  // Once for a write whose `reserve` gave a lease that `claimed` was never
  // called for: as the write becomes visible (the turn not runnable, or its
  // claim failed: undone alone, turn_queued_here following), or once a failed
  // write has returned. Ends the reservation.
  std::function<void(const ClaimFor& owner)> unclaimed;
};

class Wakeups {
 public:
  virtual ~Wakeups() = default;

  // Whether this store tells watchers of every write any process makes to the
  // jobs, turns and keys (PostgreSQL: LISTEN/NOTIFY). SQLite does not: other
  // processes' writes are seen by reading again (polls, the cache's ttl).
  virtual bool AnnouncesChanges() const { return false; }
  // Adds `watcher` for the store's lifetime. Where nothing is announced, only
  // its turn_queued_here, job_events and webhook_deliveries hear anything (this
  // process's writes). A watcher added while announcements are interrupted
  // hears hearing(false) at once, on the caller's thread.
  virtual void Watch(StoreWatcher watcher) {}
  // Makes `taker` this process's taker of the turns its writes queue, in place
  // of the one before (writes under way keep theirs). An empty taker takes
  // nothing.
  virtual void TakeQueuedTurns(TurnTaker taker) {}
};

}  // namespace docwright
