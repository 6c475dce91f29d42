// The runner's threads: started, stopped, ended (runner/internal.h); Runner's
// methods.
#include "runner/runner.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "core/ids.h"
#include "runner/internal.h"

namespace docwright {

Runner::Impl::Impl(RunnerStores store, TurnHandler& handler, RunnerOptions options)
    : store_(store), handler_(handler), options_(options) {
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  // Unique per process start, so a restarted process never mistakes an old
  // lease for its own.
  worker_prefix_ = std::string(host) + ":" + std::to_string(getpid()) + ":" + RandomBase62(6);
}

void Runner::Impl::Start() {
  MutexLock lock(mu_);
  if (started_) return;
  started_ = true;
  for (int i = 0; i < options_.workers; ++i) StartWorker();
  // Workers start idle; this sends one to look for work at once, and each
  // claim sends another (a node with 2000 workers starts with one claim, not
  // 2000 at the same moment).
  if (wakeups_ < 1) wakeups_ = 1;
  work_cv_.notify_one();
  auto self = shared_from_this();
  threads_.emplace_back();
  Thread& heartbeat = threads_.back();
  heartbeat.thread = std::thread([self, &heartbeat] {
    self->HeartbeatLoop();
    self->ThreadDone(heartbeat);
  });
}

bool Runner::Impl::Stop() {
  MutexLock lock(mu_);
  if (!started_ || stopping_) return true;
  stopping_ = true;
  handoff_events_.fetch_add(1);
  for (auto& [run_id, running] : running_) running.cancel->Cancel(CancelToken::Reason::kShutdown);
  work_cv_.notify_all();
  heartbeat_cv_.notify_all();
  const auto deadline = Clock::now() + options_.stop_timeout;
  // Turns handed over that no worker took go back at once (another claims
  // them), not once the wait below ends: their leases are renewed no more.
  std::deque<Handed> handed = std::move(handed_);
  handed_.clear();
  handoffs_ -= static_cast<int>(handed.size());
  lock.Unlock();
  for (const Handed& h : handed) GiveBack(h, deadline);
  lock.Lock();
  // Threads the watchdog gave up on are not waited for: they are lost already.
  bool all = AllDone();
  while (!all && lock.WaitUntil(done_cv_, deadline)) all = AllDone();
  all = AllDone();
  // Entries stay in threads_: a thread left behind still marks its own done.
  std::vector<std::thread> finished, left_behind;
  for (Thread& t : threads_) {
    if (!t.thread.joinable()) continue;
    if (!t.done) t.abandoned = true;  // records nothing when its turn returns
    (t.done ? finished : left_behind).push_back(std::move(t.thread));
  }
  lock.Unlock();
  for (auto& t : finished) t.join();
  size_t left = left_behind.size();
  // Each holds the Impl alive, and touches nothing else once its turn returns.
  for (auto& t : left_behind) t.detach();
  if (left > 0) {
    spdlog::error("{} worker thread(s) did not stop within {} ms; leaving them behind", left,
                  options_.stop_timeout.count());
  }
  // A thread still inside its turn, given up on or not, may yet touch what the
  // caller is about to destroy: only a runner with none left stopped cleanly.
  return all && left == 0;
}

bool Runner::Impl::AllDone() {
  if (claiming_ > 0) return false;
  for (const Thread& t : threads_) {
    if (!t.done && !t.abandoned) return false;
  }
  return true;
}

void Runner::Impl::StartWorker() {
  std::string worker_id = worker_prefix_ + "/" + std::to_string(next_worker_++);
  auto self = shared_from_this();
  threads_.emplace_back();
  Thread& t = threads_.back();  // std::list: stays put
  t.thread = std::thread([self, &t, worker_id] {
    self->WorkerLoop(t, worker_id);
    self->ThreadDone(t);
  });
}

void Runner::Impl::ThreadDone(Thread& t) {
  MutexLock lock(mu_);
  if (!t.done && !t.held_project.empty()) --holding_threads_;
  t.done = true;
  done_cv_.notify_all();
}

Runner::Runner(RunnerStores store, TurnHandler& handler, RunnerOptions options)
    : impl_(std::make_shared<Impl>(store, handler, options)) {}
Runner::~Runner() { Stop(); }
TurnTaker Runner::Taker() {
  // The store keeps it for its lifetime, which may outlast the runner: it
  // holds the runner weakly.
  std::weak_ptr<Impl> weak = impl_;
  return TurnTaker{
      .reserve = [weak]() -> std::optional<ClaimFor> {
        if (auto impl = weak.lock()) return impl->Reserve();
        return std::nullopt;
      },
      .claimed =
          [weak](const ClaimFor& owner, TurnInput claimed, std::shared_future<bool> committed) {
            auto impl = weak.lock();
            return impl && impl->Claimed(owner, std::move(claimed), std::move(committed));
          },
      .unclaimed =
          [weak](const ClaimFor& owner) {
            if (auto impl = weak.lock()) impl->Unclaimed(owner);
          },
  };
}

void Runner::Start() {
  std::weak_ptr<Impl> weak = impl_;
  Wakeups& wakeups = impl_->store().wakeups;
  wakeups.TakeQueuedTurns(Taker());
  // A turn queued here wakes a worker at once, to claim without looking first;
  // on a store that announces other processes' writes, a turn queued or a job
  // archived through another node reaches this one at once too, not at the
  // next poll or lease renewal.
  wakeups.Watch(StoreWatcher{
      .turn_queued_here =
          [weak] {
            if (auto impl = weak.lock()) impl->Wake(/*announce=*/true);
          },
      .turn_queued =
          [weak] {
            if (auto impl = weak.lock()) impl->Wake(/*announce=*/false);
          },
      .job_archived =
          [weak](const std::string& job_id) {
            if (auto impl = weak.lock()) impl->CancelJob(job_id);
          },
  });
  impl_->Start();
}
bool Runner::Stop() { return impl_->Stop(); }
void Runner::CancelJob(const std::string& job_id) { impl_->CancelJob(job_id); }
void Runner::StopJob(const std::string& job_id) { impl_->StopJob(job_id); }

}  // namespace docwright
