#include "runner/runner.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <condition_variable>
#include <exception>
#include <list>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/ids.h"
#include "core/text.h"

namespace docwright {

class Runner::Impl : public std::enable_shared_from_this<Runner::Impl> {
 public:
  Store& store() { return store_; }

  Impl(Store& store, TurnHandler& handler, RunnerOptions options)
      : store_(store), handler_(handler), options_(options) {
    char host[256] = "host";
    gethostname(host, sizeof host - 1);
    // Unique per process start, so a restarted process never mistakes an old
    // lease for its own.
    worker_prefix_ = std::string(host) + ":" + std::to_string(getpid()) + ":" + RandomBase62(6);
  }

  void Start() {
    std::lock_guard lock(mu_);
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

  bool Stop() {
    std::unique_lock lock(mu_);
    if (!started_ || stopping_) return true;
    stopping_ = true;
    for (auto& [run_id, running] : running_) running.cancel->Cancel(CancelToken::Reason::kShutdown);
    work_cv_.notify_all();
    heartbeat_cv_.notify_all();
    // Threads the watchdog gave up on are not waited for: they are lost already.
    bool all = done_cv_.wait_for(lock, options_.stop_timeout, [&] {
      for (const Thread& t : threads_) {
        if (!t.done && !t.abandoned) return false;
      }
      return true;
    });
    // Entries stay in threads_: a thread left behind still marks its own done.
    std::vector<std::thread> finished, left_behind;
    for (Thread& t : threads_) {
      if (!t.thread.joinable()) continue;
      if (!t.done) t.abandoned = true;  // records nothing when its turn returns
      (t.done ? finished : left_behind).push_back(std::move(t.thread));
    }
    lock.unlock();
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

  void Wake() {
    {
      // Counted, so a wake-up that arrives while no worker waits is not lost;
      // but no more than the idle workers (and one on its way to idling) can
      // use, so a burst of them while every worker is busy does not turn into
      // as many empty claims later.
      std::lock_guard lock(mu_);
      if (wakeups_ < idle_ + 1) ++wakeups_;
    }
    work_cv_.notify_one();
  }

  void StopJob(const std::string& job_id) {
    std::lock_guard lock(mu_);
    for (auto& [run_id, running] : running_) {
      if (running.job_id == job_id) running.cancel->RequestStop();
    }
  }

  void CancelJob(const std::string& job_id) {
    std::lock_guard lock(mu_);
    for (auto& [run_id, running] : running_) {
      if (running.job_id == job_id) running.cancel->Cancel(CancelToken::Reason::kArchived);
    }
  }

 private:
  using Clock = std::chrono::steady_clock;

  // A thread of this runner. `abandoned`: the watchdog gave up on its turn and a
  // new worker took its place; it exits as soon as the turn returns.
  // `held_project`: the project of the turn given up on, counted as a turn
  // running of that project (and its organisation) by every claim of this
  // runner until the thread really ends (Store::ClaimTurn's held projects).
  struct Thread {
    std::thread thread;
    bool done = false;
    bool abandoned = false;
    std::string held_project;
  };

  // Under mu_.
  void StartWorker() {
    std::string worker_id = worker_prefix_ + "/" + std::to_string(next_worker_++);
    auto self = shared_from_this();
    threads_.emplace_back();
    Thread& t = threads_.back();  // std::list: stays put
    t.thread = std::thread([self, &t, worker_id] {
      self->WorkerLoop(t, worker_id);
      self->ThreadDone(t);
    });
  }

  void ThreadDone(Thread& t) {
    std::lock_guard lock(mu_);
    t.done = true;
    done_cv_.notify_all();
  }

  // A claimed turn being run here. Keyed by a run id: the same turn may be claimed
  // again by another worker of this process after a lost lease.
  struct Running {
    int64_t turn_id = 0;
    std::string job_id;
    std::string project_id;
    std::string worker_id;
    std::shared_ptr<CancelToken> cancel;
    Clock::time_point renewed_at;  // the last successful claim or renewal
    Clock::time_point started_at;
    std::optional<Clock::time_point> cancelled_at;  // seen cancelled by the watchdog
    Thread* thread = nullptr;
  };

  void WorkerLoop(Thread& self, const std::string& worker_id) {
    IdleWait();  // see Start()
    while (!IsStopping()) {
      {
        std::lock_guard lock(mu_);
        if (self.abandoned) return;
      }
      auto claimed =
          store_.ClaimTurn(worker_id, options_.lease, options_.max_attempts, HeldProjects());
      if (!claimed.ok()) {
        spdlog::warn("worker {}: cannot claim work: {}", worker_id, claimed.status().message());
        IdleWait();
        continue;
      }
      if (!claimed->has_value()) {
        IdleWait();
        continue;
      }
      // There may be more: another idle worker looks at once, and so on, so a
      // backlog is taken up one claim after another, not one a poll.
      Wake();
      RunTurn(self, worker_id, std::move(**claimed));
    }
  }

  // Waits for work. One idle worker at a time polls the store (every
  // poll_interval) for work queued by other processes; the others sleep until
  // woken, so an idle node with a thousand workers polls as one with two.
  void IdleWait() {
    std::unique_lock lock(mu_);
    ++idle_;
    struct Leave {
      int& idle;
      ~Leave() { --idle; }
    } leave{idle_};
    for (;;) {
      if (stopping_) return;
      if (wakeups_ > 0) {
        --wakeups_;
        return;
      }
      if (!poller_) {
        poller_ = true;
        work_cv_.wait_for(lock, options_.poll_interval, [&] { return stopping_ || wakeups_ > 0; });
        poller_ = false;
        if (wakeups_ > 0) --wakeups_;
        work_cv_.notify_one();  // the role passes to a sleeping worker
        return;
      }
      work_cv_.wait(lock);
    }
  }

  // The projects of the turns given up on whose threads still run.
  std::vector<std::string> HeldProjects() {
    std::lock_guard lock(mu_);
    std::vector<std::string> held;
    for (const Thread& t : threads_) {
      if (t.abandoned && !t.done && !t.held_project.empty()) held.push_back(t.held_project);
    }
    return held;
  }

  bool IsStopping() {
    std::lock_guard lock(mu_);
    return stopping_;
  }

  void RunTurn(Thread& self, const std::string& worker_id, TurnInput input) {
    auto cancel = std::make_shared<CancelToken>();
    if (input.stop_requested) cancel->RequestStop();
    uint64_t run_id;
    {
      std::lock_guard lock(mu_);
      if (stopping_) cancel->Cancel(CancelToken::Reason::kShutdown);
      run_id = ++last_run_id_;
      auto now = Clock::now();
      running_[run_id] = Running{.turn_id = input.turn_id,
                                 .job_id = input.job.id,
                                 .project_id = input.project.id,
                                 .worker_id = worker_id,
                                 .cancel = cancel,
                                 .renewed_at = now,
                                 .started_at = now,
                                 .thread = &self};
    }
    spdlog::info("job {}: turn {} started (attempt {})", input.job.id, input.message.seq,
                 input.attempt);

    TurnOutcome result;
    result.interrupted = true;  // unless the handler runs
    if (!cancel->cancelled()) {
      try {
        result = handler_.RunTurn(input, *cancel);
      } catch (const std::exception& e) {
        spdlog::error("job {}: the turn threw: {}", input.job.id, e.what());
        result = TurnOutcome{.error = "internal error while running the turn"};
      } catch (...) {
        result = TurnOutcome{.error = "internal error while running the turn"};
      }
    }

    {
      std::lock_guard lock(mu_);
      running_.erase(run_id);
      // The watchdog recorded this turn's outcome and replaced this worker.
      if (self.abandoned) return;
    }

    if (result.interrupted) {
      switch (cancel->reason()) {
        case CancelToken::Reason::kShutdown: {
          Status s = store_.ReleaseTurn(input.turn_id, worker_id);
          if (!s.ok()) spdlog::warn("job {}: cannot release turn: {}", input.job.id, s.message());
          spdlog::info("job {}: turn {} handed back on shutdown", input.job.id, input.message.seq);
          return;
        }
        case CancelToken::Reason::kArchived:
          spdlog::info("job {}: turn {} stopped: the job was archived", input.job.id,
                       input.message.seq);
          return;
        case CancelToken::Reason::kLeaseLost:
          spdlog::warn("job {}: turn {} stopped: its lease was lost", input.job.id,
                       input.message.seq);
          return;
        case CancelToken::Reason::kDeadline:
          result = TurnOutcome{.error = DeadlineError()};
          break;
        case CancelToken::Reason::kNone:
          // Interrupted without being asked to: a bug in the handler. Fail the turn
          // rather than leave it to be re-run.
          result = TurnOutcome{.error = "the turn stopped unexpectedly"};
          break;
      }
    }

    // The turn ran to its end: record it, even if a cancellation came meanwhile
    // (the store ignores it if the job was archived or the lease is gone).
    if (!result.succeeded && !result.error) result.error = "the turn failed";
    if (result.succeeded) result.error.reset();
    Record(input.turn_id, worker_id, input.job.id, input.message.seq, result);
  }

  std::string DeadlineError() const {
    return "the turn ran past its time limit of " +
           std::to_string(
               std::chrono::duration_cast<std::chrono::seconds>(options_.turn_deadline).count()) +
           " s and was stopped";
  }

  // A transient store failure must not lose the outcome: retry for a while, and
  // briefly when shutting down. If all fail, the lease expires and the turn is
  // re-run: nothing is lost.
  void Record(int64_t turn_id, const std::string& worker_id, const std::string& job_id, int seq,
              const TurnOutcome& outcome) {
    for (int attempt = 0;; ++attempt) {
      auto finished = store_.FinishTurn(turn_id, worker_id, outcome);
      if (finished.ok()) {
        if (*finished == LeaseState::kHeld && outcome.succeeded) {
          spdlog::info("job {}: turn {} succeeded", job_id, seq);
        } else if (*finished == LeaseState::kHeld) {
          // The reason, as the job's `error` gives it (free of secrets), on one
          // bounded line.
          spdlog::warn("job {}: turn {} failed: {}", job_id, seq,
                       OneLogLine(outcome.error.value_or("the turn failed")));
        } else {
          spdlog::warn(
              "job {}: turn {} outcome discarded: {}", job_id, seq,
              *finished == LeaseState::kCancelled ? "the job was archived" : "the lease was lost");
        }
        return;
      }
      if (attempt >= (IsStopping() ? 2 : 20)) {
        spdlog::error("job {}: cannot record the outcome: {}", job_id, finished.status().message());
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100 * (attempt + 1)));
    }
  }

  // The watchdog, run by the heartbeat thread: cancels turns past their
  // deadline, and gives up on turns that do not return after a cancellation.
  // Under mu_; returns the outcomes to record once mu_ is released.
  struct GivenUp {
    int64_t turn_id;
    std::string worker_id, job_id;
    bool deadline;
  };
  std::vector<GivenUp> Watch(Clock::time_point now) {
    std::vector<GivenUp> given_up;
    for (auto it = running_.begin(); it != running_.end();) {
      Running& r = it->second;
      if (!r.cancel->cancelled() && now - r.started_at > options_.turn_deadline) {
        spdlog::warn("job {}: the turn ran past its time limit; stopping it", r.job_id);
        r.cancel->Cancel(CancelToken::Reason::kDeadline);
      }
      if (r.cancel->cancelled() && !r.cancelled_at) r.cancelled_at = now;
      if (r.cancelled_at && now - *r.cancelled_at > options_.stuck_grace && !stopping_) {
        spdlog::error(
            "job {}: the turn did not stop within {} ms of being cancelled; "
            "its worker is replaced",
            r.job_id, options_.stuck_grace.count());
        r.thread->abandoned = true;
        r.thread->held_project = r.project_id;
        given_up.push_back({r.turn_id, r.worker_id, r.job_id,
                            r.cancel->reason() == CancelToken::Reason::kDeadline});
        // Replacements are bounded: if as many threads as there are workers are
        // stuck, something every turn depends on hangs, and more threads would
        // only pile up behind it.
        size_t stuck = 0;
        for (const Thread& t : threads_) stuck += t.abandoned && !t.done;
        if (stuck <= static_cast<size_t>(options_.workers)) {
          StartWorker();
          // It starts idle (see Start()): send it to look for work now.
          if (wakeups_ < idle_ + 1) ++wakeups_;
          work_cv_.notify_one();
        } else {
          spdlog::error(
              "{} worker threads are stuck; not replacing more of them until they "
              "return",
              stuck);
        }
        it = running_.erase(it);
        continue;
      }
      ++it;
    }
    return given_up;
  }

  // One thread renews every lease this process holds, at a third of the lease
  // time, and cancels turns whose lease is gone or whose job was archived. A turn
  // whose lease could not be renewed for a whole lease time is cancelled too:
  // another worker may hold it by now, and two must never run it at once.
  void HeartbeatLoop() {
    const auto interval = std::max(options_.lease / 3, std::chrono::milliseconds(10));
    std::unique_lock lock(mu_);
    // Passes start every `interval`, however long the last one took (a pass
    // renews every running turn's lease, one after another).
    auto next = Clock::now() + interval;
    while (!stopping_) {
      heartbeat_cv_.wait_until(lock, next, [&] { return stopping_; });
      if (stopping_) break;
      next = std::max(next + interval, Clock::now());
      std::vector<GivenUp> given_up = Watch(Clock::now());
      std::vector<std::pair<uint64_t, Running>> snapshot(running_.begin(), running_.end());
      lock.unlock();
      for (const GivenUp& g : given_up) {
        if (!g.deadline) continue;  // archived, lost or shutting down: nothing to record
        Record(g.turn_id, g.worker_id, g.job_id, 0, TurnOutcome{.error = DeadlineError()});
      }
      for (auto& [run_id, running] : snapshot) {
        auto renew_started = Clock::now();
        auto state = store_.RenewLease(running.turn_id, running.worker_id, options_.lease);
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
          std::lock_guard relock(mu_);
          if (auto it = running_.find(run_id); it != running_.end()) {
            it->second.renewed_at = renew_started;
          }
        }
      }
      lock.lock();
    }
  }

  Store& store_;
  TurnHandler& handler_;
  const RunnerOptions options_;
  std::string worker_prefix_;

  std::mutex mu_;
  std::condition_variable work_cv_;       // idle workers wait here
  std::condition_variable heartbeat_cv_;  // the heartbeat thread waits here
  std::condition_variable done_cv_;       // Stop() waits here for threads to end
  int wakeups_ = 0;
  int idle_ = 0;         // workers in IdleWait
  bool poller_ = false;  // an idle worker is polling the store (IdleWait)
  int next_worker_ = 0;
  bool started_ = false;
  bool stopping_ = false;
  uint64_t last_run_id_ = 0;
  std::map<uint64_t, Running> running_;
  std::list<Thread> threads_;
};

Runner::Runner(Store& store, TurnHandler& handler, RunnerOptions options)
    : impl_(std::make_shared<Impl>(store, handler, options)) {}
Runner::~Runner() { Stop(); }
void Runner::Start() {
  // On a store that announces other processes' writes, a turn queued or a job
  // archived through another node reaches this one at once, not at the next
  // poll or lease renewal. The watcher outlives the runner: it holds it weakly.
  if (impl_->store().AnnouncesChanges()) {
    std::weak_ptr<Impl> weak = impl_;
    impl_->store().Watch(StoreWatcher{
        .turn_queued =
            [weak] {
              if (auto impl = weak.lock()) impl->Wake();
            },
        .job_archived =
            [weak](const std::string& job_id) {
              if (auto impl = weak.lock()) impl->CancelJob(job_id);
            },
    });
  }
  impl_->Start();
}
bool Runner::Stop() { return impl_->Stop(); }
void Runner::Wake() { impl_->Wake(); }
void Runner::CancelJob(const std::string& job_id) { impl_->CancelJob(job_id); }
void Runner::StopJob(const std::string& job_id) { impl_->StopJob(job_id); }

}  // namespace docwright
