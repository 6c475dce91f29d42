// The worker pool: claims turns from the Store, has a TurnHandler carry them out,
// and records their outcome. Leases make crashes safe: a claimed turn's lease is
// renewed while it runs; if the process dies, the lease expires and another
// worker re-runs the turn from the start (at most kMaxTurnAttempts times).
//
// Lifetime: the Store and the TurnHandler must outlive every thread of the
// runner, and every claim a Wake() is making on its caller's thread. Stop()
// returning true means none is left; when it returns false some thread or
// claim was left behind (still using both), and the caller must not destroy
// them: it should end the process instead.
//
// Threads: Start() and Stop() are called by the owner, from one thread; Wake(),
// CancelJob() and StopJob() may be called from any thread at any time (the API's
// handlers and the store's watchers call them), also before Start() and after
// Stop(). A turn handed over by Wake() that no worker took when Stop() ends is
// given back (Store::ReleaseTurn), as a running one is.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "runner/turn.h"
#include "store/store.h"

namespace docwright {

struct RunnerOptions {
  int workers = 2;
  std::chrono::milliseconds lease{30000};
  // How often an idle worker looks for work queued by other processes; work
  // queued in this process wakes it at once (Runner::Wake).
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
  // Wake() claims on its caller's thread for an idle worker (see Wake). Worth
  // it where a claim costs less than the wait for a worker to wake, and the
  // caller's answer may wait for it (SQLite: a fraction of a millisecond, its
  // answer waits for the disk anyway); `serve` turns it off on PostgreSQL, where
  // a claim is a few round trips a create's answer would wait for.
  bool claim_on_wake = true;
};

class Runner {
 public:
  Runner(Store& store, TurnHandler& handler, RunnerOptions options);
  ~Runner();  // Stop()s
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  void Start();
  // Cancels running turns, gives their leases back so another worker can take
  // them at once, and joins the threads, waiting at most `stop_timeout`. Returns
  // false if some thread was still busy then and was left behind: the caller
  // should exit the process soon, without waiting for it.
  bool Stop();

  // A turn was queued in this process (a create, a follow-up). With
  // `claim_on_wake`, when a worker is idle that no other wake-up is for, a turn
  // is claimed at once on the caller's thread (the one Store::ClaimTurn gives,
  // fairly, without looking first) and handed to that worker: no wait for a
  // thread to wake before the claim, so the turn starts sooner; another
  // wake-up follows for a backlog's next. Else an idle worker is woken, which
  // claims without looking first. So the caller may spend one claim's write:
  // call it where a store write may be made (NewJob::on_queued is). Other
  // processes' turns are heard through the store.
  void Wake();
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
