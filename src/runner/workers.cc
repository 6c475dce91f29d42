// The runner's workers (runner/internal.h): each waits for work, claims a turn
// and runs it. One idle worker at a time polls the store; the others sleep until
// woken, so an idle node with a thousand workers polls as one with two.
#include <spdlog/spdlog.h>

#include "runner/internal.h"

namespace docwright {

void Runner::Impl::Wake() {
  MutexLock lock(mu_);
  // Work was queued: the worker woken for it claims without looking first.
  if (announced_ < idle_ + 1) ++announced_;
  WakeOne();
}

void Runner::Impl::WakeOne() {
  // Counted, so a wake-up that arrives while no worker waits is not lost; but
  // no more than the idle workers (and one on its way to idling) can use, so a
  // burst of them while every worker is busy does not turn into as many empty
  // claims later.
  if (wakeups_ < idle_ + 1) ++wakeups_;
  work_cv_.notify_one();
}

void Runner::Impl::StopJob(const std::string& job_id) {
  MutexLock lock(mu_);
  for (auto& [run_id, running] : running_) {
    if (running.job_id == job_id) running.cancel->RequestStop();
  }
}

void Runner::Impl::CancelJob(const std::string& job_id) {
  MutexLock lock(mu_);
  for (auto& [run_id, running] : running_) {
    if (running.job_id == job_id) running.cancel->Cancel(CancelToken::Reason::kArchived);
  }
}

void Runner::Impl::WorkerLoop(Thread& self, const std::string& worker_id) {
  bool announced = IdleWait();  // see Start()
  while (!IsStopping()) {
    {
      MutexLock lock(mu_);
      if (self.abandoned) return;
    }
    auto claimed = store_.ClaimTurn(worker_id, options_.lease, options_.max_attempts,
                                    HeldProjects(), /*look_first=*/!announced);
    if (!claimed.ok()) {
      spdlog::warn("worker {}: cannot claim work: {}", worker_id, claimed.status().message());
      announced = IdleWait();
      continue;
    }
    if (!claimed->has_value()) {
      announced = IdleWait();
      continue;
    }
    // There may be more: another idle worker looks at once, and so on, so a
    // backlog is taken up one claim after another, not one a poll.
    {
      MutexLock lock(mu_);
      WakeOne();
    }
    RunTurn(self, worker_id, std::move(**claimed));
    announced = false;
  }
}

bool Runner::Impl::IdleWait() {
  MutexLock lock(mu_);
  ++idle_;
  WaitForWork(lock);
  --idle_;
  if (announced_ == 0) return false;
  --announced_;
  return true;
}

// Returns when woken, when stopping, or (for the one idle worker polling the
// store) after poll_interval.
void Runner::Impl::WaitForWork(MutexLock& lock) {
  for (;;) {
    if (stopping_) return;
    if (wakeups_ > 0) {
      --wakeups_;
      return;
    }
    if (!poller_) {
      poller_ = true;
      const auto deadline = Clock::now() + options_.poll_interval;
      while (!stopping_ && wakeups_ == 0 && lock.WaitUntil(work_cv_, deadline)) {
      }
      poller_ = false;
      if (wakeups_ > 0) --wakeups_;
      work_cv_.notify_one();  // the role passes to a sleeping worker
      return;
    }
    lock.Wait(work_cv_);
  }
}

std::vector<std::string> Runner::Impl::HeldProjects() {
  MutexLock lock(mu_);
  std::vector<std::string> held;
  for (const Thread& t : threads_) {
    if (t.abandoned && !t.done && !t.held_project.empty()) held.push_back(t.held_project);
  }
  return held;
}

bool Runner::Impl::IsStopping() {
  MutexLock lock(mu_);
  return stopping_;
}

}  // namespace docwright
