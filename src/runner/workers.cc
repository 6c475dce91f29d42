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

std::optional<ClaimFor> Runner::Impl::Reserve() {
  MutexLock lock(mu_);
  // Only for an idle worker nothing else is coming to: each wake-up and each
  // hand-off under way is for one of them.
  if (!options_.claim_when_queued || !started_ || stopping_ || idle_ <= handoffs_ + wakeups_) {
    return std::nullopt;
  }
  // The lease's owner: unique in this process, as a worker's own.
  ClaimFor owner{.worker_id = worker_prefix_ + "/" + std::to_string(next_worker_),
                 .lease = options_.lease,
                 .held_projects = HeldProjectsLocked()};
  reserved_.insert(owner.worker_id);  // the last that may throw
  ++next_worker_;
  ++handoffs_;
  ++claiming_;
  // Woken now, while the write goes on, so that it is awake when the turn is
  // handed over (WaitForWork).
  handoff_events_.fetch_add(1);
  work_cv_.notify_one();
  return owner;
}

bool Runner::Impl::Claimed(const ClaimFor& owner, TurnInput claimed,
                           std::shared_future<bool> committed) {
  MutexLock lock(mu_);
  if (reserved_.erase(owner.worker_id) == 0) {  // not a reservation open
    lock.Unlock();
    spdlog::error("a hand-off of no open reservation ({}) was refused", owner.worker_id);
    return false;
  }
  const bool took = !stopping_;
  if (took) {
    // No wake-up for a backlog follows, as after a worker's claim: this turn
    // is the one a wake-up would have been for, and what was runnable before
    // it is the workers' (a poll, or the claim after a turn ends).
    handed_.push_back(
        Handed{owner.worker_id, std::move(claimed), std::move(committed), Clock::now()});
  } else {
    --handoffs_;
  }
  // To the worker kept for the hand-off: it runs the turn, or may poll or wake
  // again.
  handoff_events_.fetch_add(1);
  work_cv_.notify_one();
  --claiming_;
  done_cv_.notify_all();
  return took;
}

void Runner::Impl::Unclaimed(const ClaimFor& owner) {
  MutexLock lock(mu_);
  if (reserved_.erase(owner.worker_id) == 0) {
    lock.Unlock();
    spdlog::error("the end of no open reservation ({}) was ignored", owner.worker_id);
    return;
  }
  --handoffs_;
  handoff_events_.fetch_add(1);
  work_cv_.notify_one();  // the worker kept for it may poll or wake again
  --claiming_;
  done_cv_.notify_all();
}

std::optional<bool> Runner::Impl::CommittedNow(const std::shared_future<bool>& committed) {
  if (committed.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return std::nullopt;
  try {
    return committed.get();
  } catch (const std::future_error&) {  // never told: the write never ended well
    return false;
  }
}

bool Runner::Impl::CommitWait::Get() {
  MutexLock lock(mu_);
  if (result_) return *result_;
  const auto awake_until = std::min(deadline_, Clock::now() + kHandOffWatch);
  while (!CommittedNow(committed_) && Clock::now() < awake_until) std::this_thread::yield();
  committed_.wait_until(deadline_);
  result_ = CommittedNow(committed_).value_or(false);
  return *result_;
}

void Runner::Impl::GiveBack(const Handed& h, Clock::time_point deadline) {
  if (h.committed.valid() && !CommitWait(h.committed, deadline).Get()) return;  // never claimed
  Status s = store_.jobs.ReleaseTurn(h.input.turn_id, h.worker_id);
  if (!s.ok()) {
    spdlog::warn("job {}: cannot give turn {} back: {}", h.input.job.id, h.input.message.seq,
                 s.message());
  }
}

void Runner::Impl::WorkerLoop(Thread& self, const std::string& worker_id) {
  Work work = IdleWait();  // see Start()
  for (;;) {
    {
      MutexLock lock(mu_);
      if (self.abandoned || stopping_) {
        lock.Unlock();
        if (work.handed) GiveBack(*work.handed, work.handed->handed_at + options_.lease);
        return;
      }
    }
    if (work.handed) {
      RunTurn(self, work.handed->worker_id, std::move(work.handed->input), &*work.handed);
      work = Work{};  // then looks for more at once, as after a claim
      continue;
    }
    auto claimed = store_.jobs.ClaimTurn(worker_id, options_.lease, options_.max_attempts,
                                         HeldProjects(), /*look_first=*/!work.announced);
    if (!claimed.ok()) {
      spdlog::warn("worker {}: cannot claim work: {}", worker_id, claimed.status().message());
      work = IdleWait();
      continue;
    }
    if (!claimed->has_value()) {
      work = IdleWait();
      continue;
    }
    // There may be more: another idle worker looks at once, and so on, so a
    // backlog is taken up one claim after another, not one a poll.
    Wake(/*announce=*/false);
    RunTurn(self, worker_id, std::move(**claimed));
    work = Work{};
  }
}

Runner::Impl::Work Runner::Impl::IdleWait() {
  MutexLock lock(mu_);
  ++idle_;
  Work work = WaitForWork(lock);
  --idle_;
  return work;
}

Runner::Impl::Work Runner::Impl::TakeHanded() {
  Work work;
  work.handed = std::move(handed_.front());
  handed_.pop_front();
  --handoffs_;
  return work;
}

// Returns a handed turn, or when woken (Work::announced if the wake-up taken
// was an announcement), when stopping, or (for the one idle worker polling the
// store) after poll_interval. A worker kept for a hand-off (MayLeave) waits on.
Runner::Impl::Work Runner::Impl::WaitForWork(MutexLock& lock) {
  // Awake for a hand-off once between two of its events: a write that takes
  // longer than kHandOffWatch is waited for asleep.
  uint64_t watched = ~uint64_t{0};
  for (;;) {
    if (stopping_) return Work{};
    if (!handed_.empty()) return TakeHanded();
    if (HandOffUnwatched() && handoff_events_.load() != watched) {
      ++spinning_;
      const uint64_t seen = watched = handoff_events_.load();
      lock.WhileUnlocked([&] { WatchForHandOff(seen); });
      --spinning_;
      continue;
    }
    if (wakeups_ > 0 && MayLeave()) return Work{.announced = TakeWakeup()};
    if (!poller_ && MayLeave()) {
      poller_ = true;
      const auto deadline = Clock::now() + options_.poll_interval;
      while (!stopping_ && handed_.empty() && !(wakeups_ > 0 && MayLeave()) &&
             lock.WaitUntil(work_cv_, deadline)) {
      }
      poller_ = false;
      work_cv_.notify_one();  // the role passes to a sleeping worker
      if (stopping_) return Work{};
      if (!handed_.empty()) return TakeHanded();
      if (!MayLeave()) continue;  // kept for a hand-off: no poll now
      return Work{.announced = wakeups_ > 0 && TakeWakeup()};
    }
    lock.Wait(work_cv_);
  }
}

void Runner::Impl::WatchForHandOff(uint64_t seen) {
  const auto until = Clock::now() + kHandOffWatch;
  while (handoff_events_.load() == seen && Clock::now() < until) std::this_thread::yield();
}

std::vector<std::string> Runner::Impl::HeldProjects() {
  MutexLock lock(mu_);
  return HeldProjectsLocked();
}

std::vector<std::string> Runner::Impl::HeldProjectsLocked() {
  std::vector<std::string> held;
  // The threads are walked only when one holds a project: with a thousand
  // workers, every claim would walk them all.
  if (holding_threads_ == 0) return held;
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
