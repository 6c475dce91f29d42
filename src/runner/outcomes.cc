// A claimed turn run by the TurnHandler, and its outcome recorded
// (runner/internal.h).
#include <spdlog/spdlog.h>

#include <exception>

#include "core/metrics.h"
#include "core/text.h"
#include "runner/internal.h"

namespace docwright {

void Runner::Impl::RunTurn(Thread& self, const std::string& worker_id, TurnInput input,
                           const Handed* handed) {
  // The metrics of a turn on this node: in flight until it returns, and how it
  // ended ("interrupted" unless it came to an outcome).
  auto started = std::chrono::steady_clock::now();
  metrics::AddTurnsInFlight(1);
  std::string_view ended = "interrupted";
  struct Ended {
    std::chrono::steady_clock::time_point started;
    std::string_view& outcome;
    ~Ended() {
      metrics::AddTurnsInFlight(-1);
      metrics::RecordTurnEnded(outcome, metrics::SecondsSince(started));
    }
  } count_ended{started, ended};
  auto cancel = std::make_shared<CancelToken>();
  if (input.stop_requested) cancel->RequestStop();
  uint64_t run_id;
  {
    MutexLock lock(mu_);
    if (stopping_) cancel->Cancel(CancelToken::Reason::kShutdown);
    run_id = ++last_run_id_;
    auto now = Clock::now();
    running_[run_id] =
        Running{.turn_id = input.turn_id,
                .job_id = input.job.id,
                .project_id = input.project.id,
                .worker_id = worker_id,
                .cancel = cancel,
                .renewed_at = now,
                .started_at = now,
                .thread = &self,
                .committed = handed ? handed->committed : std::shared_future<bool>()};
  }
  // A turn handed over before its write committed: the handler waits for the
  // commit before its first write (TurnInput::committed), and so does this
  // before recording a step or the outcome; the answer is learned once.
  std::shared_ptr<CommitWait> commit;
  if (handed && handed->committed.valid()) {
    commit = std::make_shared<CommitWait>(handed->committed, handed->handed_at + options_.lease);
    input.committed = [commit] { return commit->Get(); };
  }
  spdlog::info("job {}: turn {} started (attempt {})", input.job.id, input.message.seq,
               input.attempt);
  // Each step is recorded as it happens, for the transcript and the event
  // stream of a running turn. A step that cannot be recorded now is recorded
  // with the outcome.
  int steps = 0;
  input.on_step = [this, &steps, &input, &worker_id](const TranscriptStep& step) {
    if (!input.Committed()) return;  // no such turn: nothing to record it in
    auto recorded = store_.jobs.RecordStep(input.turn_id, worker_id, ++steps, step);
    if (!recorded.ok()) {
      spdlog::warn("job {}: cannot record step {} of turn {} yet: {}", input.job.id, steps,
                   input.message.seq, recorded.status().message());
    }
  };

  TurnOutcome result = Handle(input, *cancel);
  if (!input.Committed()) {
    // The write that claimed the turn did not commit: there is no such turn.
    spdlog::info("job {}: the write that queued turn {} did not commit; it is not run",
                 input.job.id, input.message.seq);
    MutexLock lock(mu_);
    running_.erase(run_id);
    return;
  }
  bool abandoned = false;
  bool abandoned_at_stop = false;
  {
    MutexLock lock(mu_);
    running_.erase(run_id);
    // The watchdog recorded this turn's outcome (failed) and replaced this
    // worker, or a shutdown left it behind (it runs again elsewhere).
    abandoned = self.abandoned;
    if (abandoned && !stopping_) ended = "failed";
    // A thread left behind by a shutdown touches nothing once its turn
    // returns (runner.h): the store may be gone. Its turn runs again.
    if (abandoned && stopping_) abandoned_at_stop = true;
  }
  if (abandoned) {
    if (!abandoned_at_stop) Charge(input, result);
    return;
  }
  if (result.interrupted) {
    auto concluded = AfterInterruption(input, worker_id, *cancel, result);
    if (!concluded) {
      // Archived: it ends for good; a lost lease or a shutdown: it runs again.
      if (cancel->reason() == CancelToken::Reason::kArchived) ended = "cancelled";
      return;
    }
    result = std::move(*concluded);
  }
  // The turn ran to its end: record it, even if a cancellation came meanwhile
  // (the store ignores it if the job was archived or the lease is gone).
  if (!result.succeeded && !result.error) result.error = "the turn failed";
  if (result.succeeded) result.error.reset();
  ended = result.succeeded ? "succeeded" : result.budget_stopped ? "budget" : "failed";
  Record(input.turn_id, worker_id, input.job.id, input.message.seq, result);
}

TurnOutcome Runner::Impl::Handle(const TurnInput& input, CancelToken& cancel) {
  TurnOutcome result;
  result.interrupted = true;  // unless the handler runs
  if (cancel.cancelled()) return result;
  try {
    return handler_.RunTurn(input, cancel);
  } catch (const std::exception& e) {
    spdlog::error("job {}: the turn threw: {}", input.job.id, e.what());
  } catch (...) {
  }
  return TurnOutcome{.error = "internal error while running the turn"};
}

std::optional<TurnOutcome> Runner::Impl::AfterInterruption(const TurnInput& input,
                                                           const std::string& worker_id,
                                                           const CancelToken& cancel,
                                                           const TurnOutcome& interrupted) {
  switch (cancel.reason()) {
    case CancelToken::Reason::kShutdown: {
      Charge(input, interrupted);
      Status s = store_.jobs.ReleaseTurn(input.turn_id, worker_id);
      if (!s.ok()) spdlog::warn("job {}: cannot release turn: {}", input.job.id, s.message());
      spdlog::info("job {}: turn {} handed back on shutdown", input.job.id, input.message.seq);
      return std::nullopt;
    }
    case CancelToken::Reason::kArchived:
      Charge(input, interrupted);
      spdlog::info("job {}: turn {} stopped: the job was archived", input.job.id,
                   input.message.seq);
      return std::nullopt;
    case CancelToken::Reason::kLeaseLost:
      Charge(input, interrupted);
      spdlog::warn("job {}: turn {} stopped: its lease was lost", input.job.id, input.message.seq);
      return std::nullopt;
    case CancelToken::Reason::kDeadline:
      // Failed, with what it spent until it was stopped.
      return TurnOutcome{.error = DeadlineError(),
                         .usage = interrupted.usage,
                         .model = interrupted.model,
                         .cost_micros = interrupted.cost_micros};
    case CancelToken::Reason::kNone:
      break;
  }
  // Interrupted without being asked to: a bug in the handler. Fail the turn
  // rather than leave it to be re-run, with what it spent.
  TurnOutcome failed{.error = "the turn stopped unexpectedly"};
  failed.usage = interrupted.usage;
  failed.model = interrupted.model;
  failed.cost_micros = interrupted.cost_micros;
  return failed;
}

void Runner::Impl::Charge(const TurnInput& input, const TurnOutcome& outcome) {
  if (outcome.usage.total() == 0) return;
  Status s =
      store_.jobs.ChargeTurnUsage(input.turn_id, outcome.usage, outcome.model, outcome.cost_micros);
  if (!s.ok()) {
    spdlog::warn("job {}: cannot count the tokens turn {} spent: {}", input.job.id,
                 input.message.seq, OneLogLine(s.message()));
  }
}

std::string Runner::Impl::DeadlineError() const {
  return "the turn ran past its time limit of " +
         std::to_string(
             std::chrono::duration_cast<std::chrono::seconds>(options_.turn_deadline).count()) +
         " s and was stopped";
}

// A transient store failure must not lose the outcome: retry for a while, and
// briefly when shutting down. If all fail, the lease expires and the turn is
// re-run: nothing is lost.
void Runner::Impl::Record(int64_t turn_id, const std::string& worker_id, const std::string& job_id,
                          int seq, const TurnOutcome& outcome) {
  for (int attempt = 0;; ++attempt) {
    auto finished = store_.jobs.FinishTurn(turn_id, worker_id, outcome);
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

}  // namespace docwright
