// The runner's heartbeat (runner/internal.h): one thread renews every lease this
// process holds, at a third of the lease time, in one call to the store
// (Store::RenewLeases: a statement per kMaxLeasesPerRenewal turns, not one per
// turn), and cancels turns whose lease is gone or whose job was archived; and
// the watchdog, run on each pass, cancels turns past their deadline and gives up
// on turns that do not return after a cancellation.
#include <spdlog/spdlog.h>

#include "runner/internal.h"

namespace docwright {

void Runner::Impl::HeartbeatLoop() {
  const auto interval = std::max(options_.lease / 3, std::chrono::milliseconds(10));
  MutexLock lock(mu_);
  // Passes start every `interval`, however long the last one took (a pass
  // waits for the store's renewal of every running turn's lease).
  auto next = Clock::now() + interval;
  while (!stopping_) {
    while (!stopping_ && lock.WaitUntil(heartbeat_cv_, next)) {
    }
    if (stopping_) break;
    next = std::max(next + interval, Clock::now());
    std::vector<GivenUp> given_up = Watch(Clock::now());
    std::vector<std::pair<uint64_t, Running>> snapshot(running_.begin(), running_.end());
    lock.Unlock();
    for (const GivenUp& g : given_up) {
      if (!g.deadline) continue;  // archived, lost or shutting down: nothing to record
      Record(g.turn_id, g.worker_id, g.job_id, 0, TurnOutcome{.error = DeadlineError()});
    }
    Renew(snapshot);
    lock.Lock();
  }
}

void Runner::Impl::Renew(const std::vector<std::pair<uint64_t, Running>>& snapshot) {
  if (snapshot.empty()) return;
  std::vector<HeldLease> leases;
  leases.reserve(snapshot.size());
  std::vector<std::pair<uint64_t, Running>> held;  // the turns whose claims are committed
  held.reserve(snapshot.size());
  for (const auto& [run_id, running] : snapshot) {
    // A claim whose write has not committed (yet) is not renewed: other
    // connections do not see it. It is renewed at the next pass once it has.
    if (running.committed.valid() && !CommittedNow(running.committed).value_or(false)) continue;
    held.emplace_back(run_id, running);
    leases.push_back(HeldLease{running.turn_id, running.worker_id});
  }
  if (leases.empty()) return;
  auto renew_started = Clock::now();
  std::vector<Result<LeaseState>> states = store_.jobs.RenewLeases(leases, options_.lease);
  std::vector<uint64_t> renewed;
  for (size_t i = 0; i < held.size(); ++i) {
    Result<LeaseState> state =
        i < states.size()
            ? std::move(states[i])
            : Result<LeaseState>(Status::Internal("the store gave no answer for the lease"));
    if (Renewed(held[i].second, state)) renewed.push_back(held[i].first);
  }
  MutexLock lock(mu_);
  for (uint64_t run_id : renewed) {
    if (auto it = running_.find(run_id); it != running_.end()) {
      it->second.renewed_at = renew_started;
    }
  }
}

// A turn whose lease could not be renewed for a whole lease time is cancelled:
// another worker may hold it by now, and two must never run it at once.
bool Runner::Impl::Renewed(const Running& running, const Result<LeaseState>& state) {
  if (!state.ok()) {
    spdlog::warn("job {}: cannot renew lease: {}", running.job_id, state.status().message());
    if (Clock::now() - running.renewed_at >= options_.lease) {
      running.cancel->Cancel(CancelToken::Reason::kLeaseLost);
    }
  } else if (*state == LeaseState::kCancelled) {
    running.cancel->Cancel(CancelToken::Reason::kArchived);
  } else if (*state == LeaseState::kStopRequested && !running.cancel->stop_requested()) {
    spdlog::info("job {}: asked to stop after its current step", running.job_id);
    running.cancel->RequestStop();
  } else if (*state == LeaseState::kLost) {
    running.cancel->Cancel(CancelToken::Reason::kLeaseLost);
  } else {
    return true;
  }
  return false;
}

std::vector<Runner::Impl::GivenUp> Runner::Impl::Watch(Clock::time_point now) {
  std::vector<GivenUp> given_up;
  for (auto it = running_.begin(); it != running_.end();) {
    Running& r = it->second;
    if (!r.cancel->cancelled() && now - r.started_at > options_.turn_deadline) {
      spdlog::warn("job {}: the turn ran past its time limit; stopping it", r.job_id);
      r.cancel->Cancel(CancelToken::Reason::kDeadline);
    }
    if (r.cancel->cancelled() && !r.cancelled_at) r.cancelled_at = now;
    if (r.cancelled_at && now - *r.cancelled_at > options_.stuck_grace && !stopping_) {
      GiveUp(r, given_up);
      it = running_.erase(it);
      continue;
    }
    ++it;
  }
  return given_up;
}

// Records nothing itself: the turn's outcome (a deadline's) is recorded by the
// heartbeat once mu_ is released.
void Runner::Impl::GiveUp(Running& r, std::vector<GivenUp>& given_up) {
  spdlog::error(
      "job {}: the turn did not stop within {} ms of being cancelled; its worker is replaced",
      r.job_id, options_.stuck_grace.count());
  r.thread->abandoned = true;
  if (r.thread->held_project.empty() && !r.project_id.empty()) ++holding_threads_;
  r.thread->held_project = r.project_id;
  given_up.push_back(
      {r.turn_id, r.worker_id, r.job_id, r.cancel->reason() == CancelToken::Reason::kDeadline});
  // Replacements are bounded: if as many threads as there are workers are
  // stuck, something every turn depends on hangs, and more threads would only
  // pile up behind it.
  size_t stuck = 0;
  for (const Thread& t : threads_) stuck += t.abandoned && !t.done;
  if (stuck <= static_cast<size_t>(options_.workers)) {
    StartWorker();
    WakeOne(/*announce=*/false);  // it starts idle (see Start()): send it to look for work now
  } else {
    spdlog::error("{} worker threads are stuck; not replacing more of them until they return",
                  stuck);
  }
}

}  // namespace docwright
