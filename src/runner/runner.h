// The worker pool: claims turns from the Store, has a TurnHandler carry them out,
// and records their outcome. Leases make crashes safe: a claimed turn's lease is
// renewed while it runs; if the process dies, the lease expires and another
// worker re-runs the turn from the start (at most kMaxTurnAttempts times).
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
};

class Runner {
 public:
  Runner(Store& store, TurnHandler& handler, RunnerOptions options);
  ~Runner();  // Stop()s
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  void Start();
  // Cancels running turns, gives their leases back so another worker can take
  // them at once, and joins the threads.
  void Stop();

  // New work was queued: wake an idle worker.
  void Wake();
  // The job was archived: stop its running turn now rather than at the next
  // lease renewal.
  void CancelJob(const std::string& job_id);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docwright
