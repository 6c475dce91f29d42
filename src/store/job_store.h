// JobStore: the store's concern of the work itself: jobs, their messages and
// steps, and the turns that run them (the work queue, claimed under leases).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/job.h"
#include "core/status.h"
#include "core/turn.h"
#include "core/usage.h"
#include "store/scope.h"

namespace docwright {

// The work queue as a whole (Store::GetQueueStats): turns waiting to run on any
// node, and when the oldest of them was queued (none when none waits).
struct QueueStats {
  int64_t queued = 0;
  std::optional<UnixMillis> oldest_queued_at;
};

struct NewJob {
  std::string prompt;
  std::optional<std::string> requested_model;  // the creator's choice, if any
  std::optional<std::string> default_model;    // the server's, used after the project's
  bool draft = false;
  // The branch to work on (CheckBranchName holds), instead of one named after
  // the job (BranchNameFor). If it exists on the remote, the job's turns start
  // from its head, and the pull request from it is the job's.
  std::optional<std::string> ref;
  // Set for a workflow's run (Store::StartWorkflowRun sets them): Job::trigger,
  // Job::workflow_id and Job::context.
  std::optional<std::string> trigger;
  std::optional<std::string> workflow_id;
  std::optional<std::vector<std::string>> context;
  // How the job publishes its changes (Job::publish); nullopt: as its project
  // does.
  std::optional<PublishMode> publish;
};

// A follow-up message, and the model the job is to use from now on if it names
// one (checked as CheckRequestedModel checks a new job's).
struct NewMessage {
  std::string prompt;
  std::optional<std::string> requested_model;
  std::optional<std::string> default_model;  // the server's: always allowed
};

// An Idempotency-Key on a create or follow-up (docs/api.md). The key names one
// request in its project for kIdempotencyKeyTtl: `route` and `body_sha256` say
// which. `render` makes the response body the request gets (the job as
// written); it is stored with `status` in the transaction that writes the job,
// so a retry gets the same answer. Called inside that transaction: it must be
// quick and must not call the store.
struct IdempotentRequest {
  std::string key;
  std::string route;        // "create", or "message <job id>"
  std::string body_sha256;  // of the raw request body, hex
  int status = 200;
  std::function<std::string(const Job&)> render;
};

// How long an idempotency key is kept, from the request that used it first.
inline constexpr std::chrono::hours kIdempotencyKeyTtl{24};

// What a keyed create or follow-up did.
struct IdempotentWrite {
  enum class Outcome {
    kDone,       // written now; `job` is the job as written
    kReplayed,   // the key was used before by the same request: nothing written
    kKeyReused,  // the key was used before by another request: nothing written
    kInProgress  // the key is taken by a write not committed yet: nothing written
  };
  Outcome outcome = Outcome::kDone;
  std::optional<Job> job;
  int status = 0;    // kDone, kReplayed: the stored response
  std::string body;  // kDone, kReplayed: the stored response
};

struct JobQuery {
  std::optional<JobStatus> status;
  int limit = 20;
  std::optional<std::string> after_id;  // exclusive; jobs are listed newest first
  int64_t offset = 0;                   // jobs skipped after `after_id` (the v1 listing's skip)
};

struct JobPage {
  std::vector<Job> jobs;
  std::optional<std::string> next_after_id;  // set when more jobs follow
};

struct MessageQuery {
  int after_seq = 0;  // exclusive
  int limit = 100;
};

// Steps of a job's turns, by message seq, in order; the steps of every message
// from the first asked for up to `through_seq` are all here.
struct StepsPage {
  std::vector<std::pair<int, TranscriptStep>> steps;
  int through_seq = 0;
};

// The start of one of a job's prompts and the state of its turn: what a view
// of a job's tasks shows (the v1 endpoints' todos and title).
struct MessageHead {
  int seq = 0;
  std::string prompt;  // its first characters
  TurnState state = TurnState::kQueued;
};

struct MessagePage {
  std::vector<Message> messages;
  std::optional<int> next_after_seq;  // set when more messages follow
};

enum class LeaseState {
  kHeld,           // renewed
  kStopRequested,  // renewed; the job's owner asked the turn to stop after its current step
  kLost,           // another worker holds it now, or the turn ended elsewhere
  kCancelled       // the job was archived: stop working on it
};

// A running turn's lease as its worker holds it. Store::RenewLeases renews at
// most kMaxLeasesPerRenewal of them in one transaction.
struct HeldLease {
  int64_t turn_id = 0;
  std::string worker_id;
};

inline constexpr size_t kMaxLeasesPerRenewal = 500;

// Owns jobs, messages, steps and turns. Every job-level method takes a Scope:
// a project of another organisation is NotFound, exactly as one that does not
// exist. Every method is thread-safe and blocks on the database. A write that
// returns OK is durable, except claims and lease renewals (ClaimTurn,
// RenewLease, RenewLeases), which a power loss (not a crash) may undo: the turn
// is then back in the queue as its lease's expiry would put it. Across nodes,
// a turn is claimed by one worker at a time (a lease; on PostgreSQL `SKIP
// LOCKED`), and a queued turn is offered to this process's turn taker and
// wakes the watchers as store/wakeups.h says.
class JobStore {
 public:
  virtual ~JobStore() = default;

  // --- Jobs ---
  // Creates the job, its first message and its first turn in one transaction,
  // unless the project's rate limit (creates + messages per hour) is reached:
  // then RateLimited with the seconds until a slot frees. The turn is offered
  // to this process's turn taker (Wakeups::TakeQueuedTurns). Returns once the
  // job is durable; Unavailable if that flush failed, the job being made (and
  // its turn claimed) all the same.
  virtual Result<Job> CreateJob(const Scope& scope, const NewJob& job) = 0;
  virtual Result<Job> GetJob(const Scope& scope, const std::string& job_id) = 0;
  // The job `job_id` if it is in one of `org_id`'s projects; NotFound otherwise.
  virtual Result<Job> FindJob(const std::string& org_id, const std::string& job_id) = 0;
  virtual Result<JobPage> ListJobs(const Scope& scope, const JobQuery& query) = 0;
  // Appends a follow-up message and its turn; the job becomes active. Conflict
  // for an archived job or one with kMaxMessagesPerJob messages; RateLimited as
  // CreateJob, and when kMaxQueuedFollowUps follow-ups already wait.
  // InvalidArgument for a model the project does not allow.
  virtual Result<Job> AddMessage(const Scope& scope, const std::string& job_id,
                                 const NewMessage& message) = 0;
  Result<Job> AddMessage(const Scope& scope, const std::string& job_id, const std::string& prompt) {
    return AddMessage(scope, job_id, NewMessage{.prompt = prompt});
  }
  // CreateJob and AddMessage under an idempotency key: the key is looked up,
  // and reserved with the response, in the transaction that writes, under the
  // project's lock, so requests with one key that race write once and the
  // others replay what it stored. Only a write is kept: a refusal (an error
  // Status) stores nothing, and the request may be sent again with its key.
  // A key older than kIdempotencyKeyTtl is forgotten (removed lazily, a few at
  // a time, by later keyed writes of the project).
  virtual Result<IdempotentWrite> CreateJobWithKey(const Scope& scope, const NewJob& job,
                                                   const IdempotentRequest& request) = 0;
  virtual Result<IdempotentWrite> AddMessageWithKey(const Scope& scope, const std::string& job_id,
                                                    const NewMessage& message,
                                                    const IdempotentRequest& request) = 0;
  // Shows `model` as the job's model: the one its turn resolved as it started.
  // Nothing changes if it shows that one already, or if there is no such job.
  virtual Status SetJobModel(const std::string& job_id, const std::string& model) = 0;
  // Asks the job's first unfinished turn (running, or next to run) to stop
  // after its current step, keeping its work; RenewLease tells its worker.
  // Conflict for an archived job, or one with no unfinished turn.
  virtual Result<Job> StopJob(const Scope& scope, const std::string& job_id) = 0;
  // Archives the job and cancels its unfinished turns. Idempotent.
  virtual Result<Job> ArchiveJob(const Scope& scope, const std::string& job_id) = 0;
  // The job's messages in order, a page at a time.
  virtual Result<MessagePage> ListMessages(const Scope& scope, const std::string& job_id,
                                           const MessageQuery& query) = 0;
  // The steps of the job's turns `from_seq` to `to_seq`, in order, by message,
  // a message's steps whole: those of each message whose steps start within
  // `max_bytes` (of text, arguments and results), so at most `max_bytes` and
  // one message's more. through_seq: to_seq, or the message before the first
  // one left out.
  virtual Result<StepsPage> ListSteps(const Scope& scope, const std::string& job_id, int from_seq,
                                      int to_seq, int64_t max_bytes) = 0;
  // For each of `job_ids` (jobs of the scope's project; another job has none),
  // the heads of its first message and of its latest `latest`, in order, each
  // prompt cut to its first `prompt_chars` characters: in one read, bounded by
  // the number of jobs whatever their prompts. NotFound for an unknown project.
  virtual Result<std::vector<std::vector<MessageHead>>> ListMessageHeads(
      const Scope& scope, const std::vector<std::string>& job_ids, int latest,
      int prompt_chars) = 0;
  // The tokens the job's turns used, all turns together.
  virtual Result<TokenUsage> JobUsage(const Scope& scope, const std::string& job_id) = 0;

  // The queue of turns on all nodes, in one read (for the metrics).
  virtual Result<QueueStats> GetQueueStats() = 0;
  // All of them; for tests and tools on small jobs.
  Result<std::vector<Message>> ListMessages(const Scope& scope, const std::string& job_id) {
    MessageQuery q;
    q.limit = 1 << 30;
    auto page = ListMessages(scope, job_id, q);
    if (!page.ok()) return page.status();
    return std::move(page->messages);
  }

  // --- Turns: the work queue ---
  // Claims a runnable turn (queued, or running with an expired lease; its job's
  // first unfinished turn, so a job's turns run in order) of no organisation or
  // project at its cap of turns in flight (`max_active`), fairly: the turn of
  // the organisation with the fewest turns running, then of the project with
  // the fewest, then the oldest. A turn whose lease expired `max_attempts` times
  // is failed instead, with its job. nullopt when nothing is runnable. The input
  // carries the organisation's budget as of the claim (TurnInput::org_budget).
  // `held_projects`: the project of each turn the caller gave up on whose work
  // has not ended (one entry a turn; RunnerOptions::stuck_grace) counts as a
  // turn running, for the caps and for fairness, until it ends.
  // `look_first`: a poll, which mostly finds nothing, first looks for a
  // runnable turn without the claim's lock or a write, and returns nullopt
  // there when there is none; false when a turn was just queued: the claim
  // goes straight to it.
  virtual Result<std::optional<TurnInput>> ClaimTurn(
      const std::string& worker_id, std::chrono::milliseconds lease, int max_attempts,
      const std::vector<std::string>& held_projects = {}, bool look_first = true) = 0;
  // Extends the turn's lease to `lease` from now if `worker_id` holds it
  // (kHeld, or kStopRequested: see StopJob); else kCancelled if the turn was
  // cancelled (its job archived), kLost otherwise. NotFound for no such turn.
  virtual Result<LeaseState> RenewLease(int64_t turn_id, const std::string& worker_id,
                                        std::chrono::milliseconds lease) = 0;
  // RenewLease for each of `leases` (a node's running turns), answered in order;
  // kMaxLeasesPerRenewal a transaction (PostgreSQL: one statement); a failed
  // one gives its turns and those after it (not tried) its error.
  virtual std::vector<Result<LeaseState>> RenewLeases(const std::vector<HeldLease>& leases,
                                                      std::chrono::milliseconds lease) = 0;
  // Records the outcome (`interrupted` aside) and moves the job on (see StatusAfterTurn). Returns
  // kLost (and changes nothing) if the worker no longer holds the turn.
  virtual Result<LeaseState> FinishTurn(int64_t turn_id, const std::string& worker_id,
                                        const TurnOutcome& outcome) = 0;
  // Records `step`, the turn's `index`-th (from 1), while the turn runs: it
  // replaces the step of that index an earlier attempt left, moves the job's
  // updatedAt, and writes a turn.step event. kLost or kCancelled (and nothing
  // recorded) if the worker no longer holds the turn. As a claim, not flushed
  // to the disk on its own (FinishTurn records the turn's steps durably).
  virtual Result<LeaseState> RecordStep(int64_t turn_id, const std::string& worker_id, int index,
                                        const TranscriptStep& step) = 0;
  // Gives the turn back untouched, for another worker to claim at once; the
  // attempt does not count. Used on graceful shutdown.
  virtual Status ReleaseTurn(int64_t turn_id, const std::string& worker_id) = 0;
  // Adds `usage` and `cost_micros` to what the turn used and to its job's
  // Job::usage, in one transaction, whatever the turn's state and whoever holds
  // it: for the tokens of an attempt that ended without FinishTurn (its job
  // archived, its lease lost, a shutdown). The turn's cost stays none only if
  // it had none and `cost_micros` is none; the turn takes `model` if it named
  // none. The job counts the turn once among its turns however often it is
  // charged. A usage of no tokens changes nothing. NotFound for an unknown turn.
  virtual Status ChargeTurnUsage(int64_t turn_id, const TokenUsage& usage, const std::string& model,
                                 std::optional<int64_t> cost_micros) = 0;
};

}  // namespace docwright
