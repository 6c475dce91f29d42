// The worker pool: claims turns from the Store, has a TurnHandler carry them out,
// and records their outcome. Leases make crashes safe: a claimed turn's lease is
// renewed while it runs; if the process dies, the lease expires and another
// worker re-runs the turn from the start (at most kMaxTurnAttempts times).
//
// Wake-ups: Start() makes the runner the store's taker of the turns this
// process queues and a watcher of every turn queued (store/wakeups.h): a turn
// queued by any write of this process (the API's, a workflow's) reaches it at
// once, others' through the store's announcements or the next poll.
//
// Lifetime: the Store and the TurnHandler must outlive every thread of the
// runner, and every hand-off a write has reserved (TurnTaker::reserve) until
// it ends (TurnTaker::claimed, TurnTaker::unclaimed). Stop() returning true
// means none is left; when it returns false some thread or reservation was
// left behind (still using both), and the caller must not destroy them: it
// should end the process instead. The store keeps its taker and watchers,
// which hold the runner weakly: once it is gone they take and wake nothing.
//
// Threads: Start() and Stop() are called by the owner, from one thread;
// CancelJob() and StopJob() may be called from any thread at any time (the
// API's handlers and the store's watchers call them), also before Start() and
// after Stop(). A turn handed over that no worker took when Stop() begins is
// given back (Store::ReleaseTurn) once its write has committed, as a running
// one is.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "runner/runner_stores.h"
#include "runner/turn.h"

namespace docwright {

struct RunnerOptions {
  int workers = 2;
  std::chrono::milliseconds lease{30000};
  // How often an idle worker looks for work queued by other processes; work
  // queued in this process reaches it at once (store/wakeups.h).
  std::chrono::milliseconds poll_interval{500};
  int max_attempts = kMaxTurnAttempts;
  // The watchdog: a turn still running this long after it started is cancelled,
  // and its job fails with an error that says so. A turn that has not returned
  // `stuck_grace` after any cancellation is given up on: its outcome is recorded
  // without it (failed, for a deadline) and a new worker thread takes its place,
  // so a call that ignores its deadline costs a thread, not a worker slot; at
  // most `workers` stuck threads are replaced at a time. Until a thread given
  // up on really ends, its turn counts as running for its project's and
  // organisation's caps and fairness on every claim of this runner.
  std::chrono::milliseconds turn_deadline{std::chrono::minutes(20)};
  std::chrono::milliseconds stuck_grace{std::chrono::seconds(30)};
  // Stop() waits this long for running turns to hand back; threads still busy
  // then are left behind (the process is about to exit; their leases expire and
  // the turns are re-run elsewhere).
  std::chrono::milliseconds stop_timeout{std::chrono::seconds(20)};
  // A write that queues a turn here claims it in its own transaction for an
  // idle worker (TurnTaker). Worth it where the claim's statements cost less
  // than a worker's wake-up and claim after the write (SQLite: tens of
  // microseconds in a transaction it makes anyway); `serve` turns it off on
  // PostgreSQL, where each statement is a round trip a create's answer would
  // wait for.
  bool claim_when_queued = true;
};

class Runner {
 public:
  // `store`: the concerns the runner reads and writes (runner_stores.h; a Store
  // is all of them).
  Runner(RunnerStores store, TurnHandler& handler, RunnerOptions options);
  ~Runner();  // Stop()s
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Starts the workers, and makes the runner the store's taker and watcher
  // of queued turns. With `claim_when_queued`, the taker works so: when
  // a worker is idle that no other wake-up or hand-off is for, `reserve` keeps
  // it and names the lease, the write claims the turn inside its own
  // transaction, and `claimed` hands the turn to that worker there, before the
  // write commits: the worker fetches and reads while the write commits, and
  // waits for the commit (TurnInput::committed) before the turn's first write;
  // a write that does not commit leaves it nothing to run. No wait for a
  // thread to wake and claim after the write. A turn not runnable then (a cap,
  // an earlier turn of its job) is left to the workers (`unclaimed`); one
  // handed over as the runner stops is refused, and its claim undone by the
  // write. Else an idle worker is woken (turn_queued_here), which claims
  // without looking first. Stop() waits for a reservation to end.
  void Start();
  // The taker Start() gives the store (a test may wrap it); thread-safe.
  TurnTaker Taker();
  // Cancels running turns, gives their leases back so another worker can take
  // them at once, and joins the threads, waiting at most `stop_timeout`. Returns
  // false if some thread was still busy then and was left behind: the caller
  // should exit the process soon, without waiting for it.
  bool Stop();

  // The job was archived: stop its running turn now rather than at the next
  // lease renewal.
  void CancelJob(const std::string& job_id);
  // The job's owner asked its running turn to end after its current step,
  // keeping its work: tell it now rather than at the next lease renewal.
  void StopJob(const std::string& job_id);

 private:
  class Impl;
  // Shared with the worker threads, so one left behind by Stop() never outlives it.
  std::shared_ptr<Impl> impl_;
};

}  // namespace docwright
