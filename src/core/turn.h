// A turn: what it is given (its job, project and prompt), what it came to, and a
// way to tell it to stop. Shared by the store, which hands turns out and records
// them, the runner, and the agent, which carries them out.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/job.h"
#include "core/mutex.h"
#include "core/usage.h"

namespace docwright {

// One step of a turn's work, for the transcript: something the model said, a
// tool it called with its (bounded) arguments and result, what the agent put
// in the model's context besides the instruction (the repository's own
// instruction file), or what was done with the edits (committed, pushed, the
// pull request opened or updated).
struct TranscriptStep {
  enum class Kind { kAssistant, kTool, kContext, kPublish };
  Kind kind = Kind::kAssistant;
  // kAssistant: what the model said; kContext: what was added; kPublish: what
  // was done, in a sentence
  std::string text;
  std::string tool;       // kTool: the tool's name; kPublish: the action (kPublishActions)
  std::string arguments;  // kTool: as the model sent them, bounded
  std::string result;     // kTool: what the model was told, bounded
  bool is_error = false;  // kTool: the call failed
};

// The actions of kPublish steps.
inline constexpr const char* kPublishCommit = "commit";
inline constexpr const char* kPublishPush = "push";
inline constexpr const char* kPublishPullRequest = "pull_request";
inline constexpr const char* kPublishMerge = "merge";

// Where a turn's steps go as they happen, so that a running turn's transcript
// and event stream show its work so far: called on the turn's thread, once per
// step, in order, with the step as the outcome will hold it. Must not block for
// long; may be empty.
using StepSink = std::function<void(const TranscriptStep& step)>;

// Tells a running turn to stop. The agent checks it between steps (and may sleep
// on it), and every blocking call of a turn asks it while it waits; the runner
// sets it when the job is archived, the lease is lost, the turn runs past its
// deadline, or the process shuts down.
class CancelToken {
 public:
  enum class Reason { kNone, kArchived, kLeaseLost, kShutdown, kDeadline };

  void Cancel(Reason why) EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      if (reason_ != Reason::kNone) return;
      reason_ = why;
      cancelled_.store(true, std::memory_order_release);
    }
    cv_.notify_all();
  }
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  // The job's owner asked the turn to end after its current step and keep its
  // work (job stop). Unlike a cancellation, nothing is abandoned: the agent
  // finishes at its next step, and the turn commits, pushes and opens its pull
  // request as usual.
  void RequestStop() { stop_.store(true, std::memory_order_release); }
  bool stop_requested() const { return stop_.load(std::memory_order_acquire); }
  Reason reason() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return reason_;
  }
  // Sleeps up to `d`; returns true if cancelled meanwhile.
  template <typename Rep, typename Period>
  bool WaitFor(std::chrono::duration<Rep, Period> d) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::ceil<std::chrono::steady_clock::duration>(d);
    while (reason_ == Reason::kNone && lock.WaitUntil(cv_, deadline)) {
    }
    return reason_ != Reason::kNone;
  }

 private:
  mutable Mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> stop_{false};
  Reason reason_ GUARDED_BY(mu_) = Reason::kNone;
};

// A turn as the store hands it out: a runner holds a lease on it.
struct TurnInput {
  int64_t turn_id = 0;          // the store's id of the turn, for its lease and outcome
  int attempt = 1;              // >1 when re-run after a lost lease (a crash): start from scratch
  bool stop_requested = false;  // asked to stop (job stop) before it started or was re-run
  Job job;
  Project project;
  // The project's organisation's monthly budget as of the claim (a claim sets
  // it, so a turn need not read it again); nullopt where a turn was not claimed
  // (a test's): then it is read from the store.
  std::optional<MonthlyBudget> org_budget;
  Message message;  // the prompt to carry out now
  // Earlier prompts of this job and their outcomes, in order: the first one and
  // the latest kMaxHistoryMessages, however long the job is.
  std::vector<Message> history;
  // Set by the runner: where the turn's steps go as they happen.
  StepSink on_step;
  // Set by the runner when a monthly budget applies (core/usage.h): what the
  // turn may still spend. The agent ends the turn after the step that crosses
  // it, keeping its work (as a stop on request does), and says so in
  // AgentResult::budget_error.
  std::optional<SpendLimit> spend_limit;
  // Set by the runner for a turn handed to it by the write that claimed it
  // before that write committed (TurnTaker::claimed): waits for the
  // write to end (bounded by the turn's lease), true once it committed, false
  // if it did not (the turn was never claimed: the handler returns at once,
  // interrupted, having written nothing of it). Call Committed() before the
  // turn's first write to the store, the remote or the model; work before
  // that (reads, fetches into the node's mirror) may overlap the write.
  std::function<bool()> committed;
  bool Committed() const { return !committed || committed(); }
};

// What a turn came to: what the handler returns and the store records.
struct TurnOutcome {
  bool succeeded = false;
  std::optional<std::string> pr_link;  // the store keeps the earlier one when not set
  std::optional<std::string> summary;
  std::optional<std::string> error;   // set when !succeeded: clear, and free of secrets
  std::vector<TranscriptStep> steps;  // replaces those of an earlier attempt
  TokenUsage usage;
  // Stopped early because the turn was cancelled: the rest is meaningless, and
  // nothing is recorded (the runner decides by the cancel reason).
  bool interrupted = false;
  // Set when the turn published a commit onto the base branch (core/job.h's
  // Job::commit_sha, commit_url), and when it learned or changed what its pull
  // request is ("open", "merged"); the store keeps the earlier ones when not set.
  std::optional<std::string> commit_sha;
  std::optional<std::string> commit_url;
  std::optional<std::string> pr_state;
  // The model the turn used and the estimated cost of `usage` (core/usage.h's
  // PriceTable::CostMicros; none when the price table does not name the model
  // or there is no price table). Set by the runner as the turn ends.
  std::string model;
  std::optional<int64_t> cost_micros;
  // A monthly budget refused the turn at its start or stopped it (the error
  // says which): for the runner's metrics, not recorded.
  bool budget_stopped = false;
};

}  // namespace docwright
