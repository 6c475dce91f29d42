// The runner's workers (runner/internal.h): each waits for work, claims a turn
// and runs it. One idle worker at a time polls the store; the others sleep until
// woken, so an idle node with a thousand workers polls as one with two.
#include <spdlog/spdlog.h>

#include "runner/internal.h"

namespace docwright {

void Runner::Impl::Wake(bool announce) {
  MutexLock lock(mu_);
  WakeOne(announce);
}

void Runner::Impl::WakeOne(bool announce) {
  // Counted, so a wake-up that arrives while no worker waits is not lost; but
  // no more than the idle workers (and one on its way to idling) can use, so a
  // burst of them while every worker is busy does not turn into as many empty
  // claims later. An announcement is a wake-up too (announced_ <= wakeups_).
  if (wakeups_ < idle_ + 1) {
    ++wakeups_;
    if (announce) ++announced_;
  }
  work_cv_.notify_one();
}

bool Runner::Impl::TakeWakeup() {
  --wakeups_;
  if (announced_ == 0) return false;
  --announced_;
  return true;
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
    Wake(/*announce=*/false);
    RunTurn(self, worker_id, std::move(**claimed));
    announced = false;
  }
}

bool Runner::Impl::IdleWait() {
  MutexLock lock(mu_);
  ++idle_;
  bool announced = WaitForWork(lock);
  --idle_;
  return announced;
}

// Returns when woken (true if the wake-up taken was an announcement), when
// stopping, or (for the one idle worker polling the store) after poll_interval.
bool Runner::Impl::WaitForWork(MutexLock& lock) {
  for (;;) {
    if (stopping_) return false;
    if (wakeups_ > 0) return TakeWakeup();
    if (!poller_) {
      poller_ = true;
      const auto deadline = Clock::now() + options_.poll_interval;
      while (!stopping_ && wakeups_ == 0 && lock.WaitUntil(work_cv_, deadline)) {
      }
      poller_ = false;
      bool announced = wakeups_ > 0 && TakeWakeup();
      work_cv_.notify_one();  // the role passes to a sleeping worker
      return announced;
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
