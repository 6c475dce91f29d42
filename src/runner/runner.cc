#include "runner/runner.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/ids.h"

namespace docwright {

class Runner::Impl {
 public:
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
    for (int i = 0; i < options_.workers; ++i) {
      threads_.emplace_back([this, i] { WorkerLoop(worker_prefix_ + "/" + std::to_string(i)); });
    }
    threads_.emplace_back([this] { HeartbeatLoop(); });
  }

  void Stop() {
    {
      std::lock_guard lock(mu_);
      if (!started_ || stopping_) return;
      stopping_ = true;
      for (auto& [run_id, running] : running_) running.cancel->Cancel(CancelToken::Reason::kShutdown);
    }
    work_cv_.notify_all();
    heartbeat_cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  void Wake() {
    {
      // Counted, so a wake-up that arrives while no worker waits is not lost.
      std::lock_guard lock(mu_);
      if (wakeups_ < options_.workers) ++wakeups_;
    }
    work_cv_.notify_one();
  }

  void CancelJob(const std::string& job_id) {
    std::lock_guard lock(mu_);
    for (auto& [run_id, running] : running_) {
      if (running.job_id == job_id) running.cancel->Cancel(CancelToken::Reason::kArchived);
    }
  }

 private:
  using Clock = std::chrono::steady_clock;

  // A claimed turn being run here. Keyed by a run id: the same turn may be claimed
  // again by another worker of this process after a lost lease.
  struct Running {
    int64_t turn_id = 0;
    std::string job_id;
    std::string worker_id;
    std::shared_ptr<CancelToken> cancel;
    Clock::time_point renewed_at;  // the last successful claim or renewal
  };

  void WorkerLoop(const std::string& worker_id) {
    while (!IsStopping()) {
      auto claimed = store_.ClaimTurn(worker_id, options_.lease, options_.max_attempts);
      if (!claimed.ok()) {
        spdlog::warn("worker {}: cannot claim work: {}", worker_id, claimed.status().message());
        IdleWait();
        continue;
      }
      if (!claimed->has_value()) {
        IdleWait();
        continue;
      }
      RunTurn(worker_id, std::move(**claimed));
    }
  }

  void IdleWait() {
    std::unique_lock lock(mu_);
    work_cv_.wait_for(lock, options_.poll_interval, [&] { return stopping_ || wakeups_ > 0; });
    if (wakeups_ > 0) --wakeups_;
  }

  bool IsStopping() {
    std::lock_guard lock(mu_);
    return stopping_;
  }

  void RunTurn(const std::string& worker_id, ClaimedTurn turn) {
    auto cancel = std::make_shared<CancelToken>();
    uint64_t run_id;
    {
      std::lock_guard lock(mu_);
      if (stopping_) cancel->Cancel(CancelToken::Reason::kShutdown);
      run_id = ++last_run_id_;
      running_[run_id] = Running{turn.turn_id, turn.job.id, worker_id, cancel, Clock::now()};
    }
    spdlog::info("job {}: turn {} started (attempt {})", turn.job.id, turn.message.seq,
                 turn.attempt);

    TurnInput input{std::move(turn.job), std::move(turn.project), std::move(turn.message),
                    std::move(turn.history), turn.attempt};
    TurnResult result;
    result.interrupted = true;  // unless the handler runs
    if (!cancel->cancelled()) {
      try {
        result = handler_.RunTurn(input, *cancel);
      } catch (const std::exception& e) {
        spdlog::error("job {}: the turn threw: {}", input.job.id, e.what());
        result = TurnResult{false, {}, {}, "internal error while running the turn"};
      } catch (...) {
        result = TurnResult{false, {}, {}, "internal error while running the turn"};
      }
    }

    {
      std::lock_guard lock(mu_);
      running_.erase(run_id);
    }

    if (result.interrupted) {
      switch (cancel->reason()) {
        case CancelToken::Reason::kShutdown: {
          Status s = store_.ReleaseTurn(turn.turn_id, worker_id);
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
        case CancelToken::Reason::kNone:
          // Interrupted without being asked to: a bug in the handler. Fail the turn
          // rather than leave it to be re-run.
          result = TurnResult{false, {}, {}, "the turn stopped unexpectedly"};
          break;
      }
    }

    // The turn ran to its end: record it, even if a cancellation came meanwhile
    // (the store ignores it if the job was archived or the lease is gone).
    if (!result.succeeded && !result.error) result.error = "the turn failed";
    TurnOutcome outcome{result.succeeded, result.pr_link, result.summary,
                        result.succeeded ? std::nullopt : result.error, std::move(result.steps),
                        result.usage};
    // A transient store failure must not lose the outcome: retry for a while, and
    // briefly when shutting down. If all fail, the lease expires and the turn is
    // re-run: nothing is lost.
    for (int attempt = 0;; ++attempt) {
      auto finished = store_.FinishTurn(turn.turn_id, worker_id, outcome);
      if (finished.ok()) {
        if (*finished == LeaseState::kHeld) {
          spdlog::info("job {}: turn {} {}", input.job.id, input.message.seq,
                       result.succeeded ? "succeeded" : "failed");
        } else {
          spdlog::warn("job {}: turn {} outcome discarded: {}", input.job.id, input.message.seq,
                       *finished == LeaseState::kCancelled ? "the job was archived"
                                                           : "the lease was lost");
        }
        return;
      }
      if (attempt >= (IsStopping() ? 2 : 20)) {
        spdlog::error("job {}: cannot record the outcome: {}", input.job.id,
                      finished.status().message());
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100 * (attempt + 1)));
    }
  }

  // One thread renews every lease this process holds, at a third of the lease
  // time, and cancels turns whose lease is gone or whose job was archived. A turn
  // whose lease could not be renewed for a whole lease time is cancelled too:
  // another worker may hold it by now, and two must never run it at once.
  void HeartbeatLoop() {
    const auto interval = std::max(options_.lease / 3, std::chrono::milliseconds(10));
    std::unique_lock lock(mu_);
    while (!stopping_) {
      heartbeat_cv_.wait_for(lock, interval, [&] { return stopping_; });
      if (stopping_) break;
      std::vector<std::pair<uint64_t, Running>> snapshot(running_.begin(), running_.end());
      lock.unlock();
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
  int wakeups_ = 0;
  bool started_ = false;
  bool stopping_ = false;
  uint64_t last_run_id_ = 0;
  std::map<uint64_t, Running> running_;
  std::vector<std::thread> threads_;
};

Runner::Runner(Store& store, TurnHandler& handler, RunnerOptions options)
    : impl_(std::make_unique<Impl>(store, handler, options)) {}
Runner::~Runner() { Stop(); }
void Runner::Start() { impl_->Start(); }
void Runner::Stop() { impl_->Stop(); }
void Runner::Wake() { impl_->Wake(); }
void Runner::CancelJob(const std::string& job_id) { impl_->CancelJob(job_id); }

}  // namespace docwright
