// The Store: every durable fact of docwright, behind one interface.
//
// Implementations: the SQLite store (embedded default, sqlite_store.h) and the
// PostgreSQL store (many nodes on one database, postgres_store.h), held to one
// contract by one test suite. All methods are thread-safe. A method that returns
// OK for a write has made that write durable (it survives a crash of the process
// or the machine), except claims and lease renewals (ClaimTurn, RenewLease,
// RenewLeases): a power loss (not a crash) may undo them, which puts the turn
// back as its lease's expiry would (with SQLite, so may a turn a claim gave up
// on, which is then given up again).
//
// Tenancy is enforced here, not only in the API: every job-level method takes a
// Scope, and a project of another organisation is NotFound, exactly as a project
// that does not exist.
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/api_key.h"
#include "core/event.h"
#include "core/forge_event.h"
#include "core/job.h"
#include "core/local_pull_request.h"
#include "core/review.h"
#include "core/secret_box.h"
#include "core/status.h"
#include "core/turn.h"
#include "core/usage.h"
#include "core/webhook.h"
#include "core/workflow.h"

namespace docwright {

// Who is asking: an organisation, and the project it names.
struct Scope {
  std::string org_id;
  std::string project_id;
};

// The work queue as a whole (Store::GetQueueStats): turns waiting to run on any
// node, and when the oldest of them was queued (none when none waits).
struct QueueStats {
  int64_t queued = 0;
  std::optional<UnixMillis> oldest_queued_at;
};

// A project's jobs by status (Store::CountJobs).
struct ProjectJobCounts {
  std::string project_id;
  int64_t active = 0;
  int64_t completed = 0;
  int64_t failed = 0;
  int64_t archived = 0;
};

// The lease a write that queues a turn claims it under, in its own transaction
// (QueuedTurnHook::reserve): as Store::ClaimTurn's arguments.
struct ClaimFor {
  std::string worker_id;
  std::chrono::milliseconds lease{0};
  std::vector<std::string> held_projects;
};

// What a write that queues a turn (CreateJob, AddMessage and their keyed
// forms) tells the runner of this process. Every member is optional, and is
// called on the writing thread.
struct QueuedTurnHook {
  // Inside the write's transaction, once the write is admitted (a create's,
  // before its turn is queued; a follow-up's, once it is queued), at most
  // once a write: the lease to claim the turn under
  // at once, if a worker of this process is free to run it; nullopt to leave
  // it to any worker. Must be quick and must not call the store. The turn is claimed only if it is
  // runnable now (its job's earlier turns ended, its organisation and project
  // under their caps of turns in flight, counting `held_projects`; its
  // project's secrets readable): Store::ClaimTurn's rules but its fairness,
  // for the turn is this one, not the oldest. A claim that fails is undone
  // alone: the write goes on. A `reserve` that throws reserves nothing.
  std::function<std::optional<ClaimFor>()> reserve;
  // Inside the write's transaction, before it commits, once the turn is
  // claimed under the lease `reserve` gave (its first attempt, its
  // turn.started event written): the turn, and `committed`, which becomes
  // ready once the write has ended: true if it committed (the claim is the
  // caller's from then on, as a worker's claim), false if not (no such turn
  // was ever visible: nothing may be written of it, nor run past what is
  // undone by dropping it). So a worker may start on the turn while the write
  // commits. Returns whether the caller takes the turn: false undoes the
  // claim within the write (the turn left queued, `queued` called as the
  // write becomes visible). Either way the reservation has ended. Must be
  // quick, must not call the store, and must not wait for `committed` (it is
  // ready only once this has returned). At most once a write: a transaction
  // the store runs again after a hand-off tells that hand-off it was not
  // committed, and leaves its own turn to the workers (`queued`).
  std::function<bool(const ClaimFor& owner, TurnInput claimed, std::shared_future<bool> committed)>
      claimed;
  // Once for a write whose `reserve` gave a lease that `claimed` was never
  // called for: as the write becomes visible (the turn not runnable, or its
  // claim failed: undone alone, `queued` following), or once a failed write
  // has returned. Ends the reservation.
  std::function<void(const ClaimFor& owner)> unclaimed;
  // Otherwise, once, as soon as the turn can be claimed by any connection:
  // that may be before the write is on the disk (the SQLite store flushes its
  // log after the call, so a worker woken by it claims the turn while the disk
  // flushes). Not called when nothing is written.
  std::function<void()> queued;
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
  // Told of the job's first turn by CreateJob (and CreateJobWithKey when it
  // writes). CreateJob still returns once the job is durable, and Unavailable
  // if that flush failed, the job being made (and its turn claimed) all the
  // same.
  QueuedTurnHook on_queued;
};

// A follow-up message, and the model the job is to use from now on if it names
// one (checked as CheckRequestedModel checks a new job's).
struct NewMessage {
  std::string prompt;
  std::optional<std::string> requested_model;
  std::optional<std::string> default_model;  // the server's: always allowed
  // As NewJob::on_queued, for AddMessage and AddMessageWithKey: the follow-up's
  // turn is queued (it runs once the job's earlier turns have ended).
  QueuedTurnHook on_queued;
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

// How long a forge's webhook delivery is kept (Store::RecordForgeEvent).
inline constexpr std::chrono::hours kForgeEventRetention{7 * 24};

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

// What other processes wrote, as a store that announces it tells (see
// Store::Watch). Each member may be empty. Called on the store's own thread:
// handlers must be quick and must not call back into the store.
struct StoreWatcher {
  std::function<void()> turn_queued;  // a turn may have become runnable
  std::function<void(const std::string& job_id)> job_changed;
  std::function<void(const std::string& job_id)> job_archived;  // job_changed is told too
  std::function<void()> keys_changed;                           // API keys revoked, sessions ended
  // The job has new events (Store::ListEvents). Unlike the others, also told of
  // this process's own writes, on every store, once they are committed.
  std::function<void(const std::string& job_id)> job_events;
  // Webhook deliveries became due (an event an enabled endpoint takes, or an
  // endpoint enabled again), told as job_events is; events no endpoint takes
  // are not, so a node without endpoints hears nothing.
  std::function<void()> webhook_deliveries;
  // false: announcements stopped (the store lost its way to hear them), and
  // changes made until they resume go unheard; true: they resumed.
  std::function<void(bool hearing)> hearing;
};

// A trigger event for a workflow (Store::StartWorkflowRun).
struct WorkflowRunRequest {
  std::string workflow_id;
  // Names the event, unique per workflow: "schedule:<slot ms>", "push:<sha>",
  // "merge:<repository>:<sha>", "manual:<random>", "comment:<forge id>".
  std::string dedup_key;
  RunTrigger trigger;
  // The job's first message: the workflow's prompt and what triggered it.
  std::string prompt;
  bool by_hand = false;  // runs a disabled workflow too
  std::optional<UnixMillis> schedule_from;
};

struct WorkflowRunStart {
  enum class Outcome { kStarted, kQueued, kDuplicate, kRefused };
  Outcome outcome = Outcome::kStarted;
  WorkflowRun run;         // as recorded (kDuplicate: the existing run)
  std::optional<Job> job;  // kStarted
};

// A reply docwright owes a comment on a pull request that became a follow-up
// of its job (workflows/forge_events.h, HandleCommentEvent): posted once the
// follow-up's turn (message `message_seq` of the job) has finished, saying what
// it changed or why it could not.
struct CommentReply {
  int64_t id = 0;  // assigned by the store
  std::string job_id;
  std::string project_id;
  int message_seq = 0;
  int64_t pr_number = 0;                   // the pull request the comment is on
  std::optional<std::string> in_reply_to;  // a review comment: the thread to reply in
  int attempts = 0;                        // failed attempts to post it so far
  UnixMillis created_at = 0;
};

// How long ListDueCommentReplies holds a reply for its caller: another call
// lists it again after this (its caller crashed before posting it).
inline constexpr std::chrono::minutes kCommentReplyLease{5};

class Store : public LocalPullRequestRecords {
 public:
  virtual ~Store() = default;

  // --- Organisations and API keys ---
  virtual Result<Org> CreateOrg(const std::string& name) = 0;
  virtual Result<Org> GetOrg(const std::string& org_id) = 0;
  // Every organisation, oldest first (for the operator's `org list`).
  virtual Result<std::vector<Org>> ListOrgs() = 0;
  // Replaces the organisation's name, cap of turns in flight and budget with `org`'s.
  // NotFound if no organisation has its id.
  virtual Status UpdateOrg(const Org& org) = 0;
  // Stores a key whose id, prefix and secret_hash the caller made.
  virtual Status CreateApiKey(const ApiKey& key) = 0;
  virtual Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) = 0;
  // Idempotent. NotFound if there is no such key. Ends the key's sessions in
  // the same transaction, and is announced (keys_changed).
  virtual Status RevokeApiKey(const std::string& key_id) = 0;
  // The unrevoked key whose secret hashes to `secret_hash`; NotFound otherwise.
  virtual Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) = 0;
  // Makes each key's last_used_at the later of its own and the time given with
  // it (key id, time). Keys that do not exist are skipped. Not announced: a
  // listing may show a use a little late. As a claim, not flushed to the disk
  // on its own (a power loss may lose the last uses).
  virtual Status RecordKeyUses(const std::vector<std::pair<std::string, UnixMillis>>& uses) = 0;

  // --- Sign-in sessions (core/api_key.h) ---
  // Stores `session`; NotFound if its key does not exist. Removes a bounded
  // number of expired sessions on the way, so they do not pile up.
  virtual Status CreateSession(const Session& session) = 0;
  // The session whose token hashes to `token_hash`, if it has not expired as of
  // `now` and its key is not revoked, with that key; NotFound otherwise.
  virtual Result<ActiveSession> FindSession(const std::string& token_hash, UnixMillis now) = 0;
  // Ends the session (sign-out). Idempotent; announced (keys_changed).
  virtual Status DeleteSession(const std::string& token_hash) = 0;

  // --- Projects ---
  // Stores `project`; its id and created_at are assigned by the store.
  virtual Result<Project> CreateProject(Project project) = 0;
  virtual Result<Project> GetProject(const Scope& scope) = 0;
  // The project `project_id`, whatever its organisation: for the process's own
  // work on it (merging a local pull request the API already authorised), never
  // to answer a request with. NotFound if there is none.
  virtual Result<Project> GetProjectById(const std::string& project_id) = 0;
  virtual Result<std::vector<Project>> ListProjects(const std::string& org_id) = 0;
  // How many jobs of each status each of the organisation's projects has, in one
  // grouped read; a project without jobs is not listed.
  virtual Result<std::vector<ProjectJobCounts>> CountJobs(const std::string& org_id) = 0;
  // Replaces the project's settings (all but id, org_id, created_at and
  // archived_at) with `project`'s. NotFound if no project has its id.
  virtual Status UpdateProject(const Project& project) = 0;
  // Archives the project: CreateJob and AddMessage then refuse it (Conflict);
  // turns under way finish; its jobs stay readable. Idempotent.
  virtual Result<Project> ArchiveProject(const Scope& scope) = 0;
  // Removes the project and all its jobs, messages, turns, steps and local pull
  // requests. Conflict while one of its jobs is active.
  virtual Status DeleteProject(const Scope& scope) = 0;

  // --- Jobs ---
  // Creates the job, its first message and its first turn in one transaction,
  // unless the project's rate limit (creates + messages per hour) is reached:
  // then RateLimited with the seconds until a slot frees.
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

  // --- Usage and budgets (core/usage.h) ---
  // FinishTurn records each turn's TokenUsage, model and estimated cost
  // (TurnOutcome's) on the turn and adds them to its job's Job::usage, in the
  // same transaction. A turn that failed or was cancelled counts like any
  // other: its tokens were spent. FinishTurn and ChargeTurnUsage add to what
  // the turn's row holds, so the turn's tokens stay those of its job's totals
  // over every attempt.
  //
  // What the turns of `query` used, by day, project and model, in that order;
  // at most kMaxUsageRows rows (the rest left out: a caller given that many
  // must not take them for the whole). InvalidArgument if until < since.
  virtual Result<std::vector<UsageRow>> ListUsage(const UsageQuery& query) = 0;
  // What the project `project_id` and its organisation `org_id` spent in turns
  // that ended at or after `since` (a budget month's start): one read.
  virtual Result<BudgetSpend> SpendSince(const std::string& org_id, const std::string& project_id,
                                         UnixMillis since) = 0;
  // Every project with a budget of its own or of its organisation, and what
  // each spent since `since`; at most 10,000 projects.
  virtual Result<std::vector<ProjectBudgetUse>> ListBudgetUse(UnixMillis since) = 0;
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

  // --- Events: what happened to each job, in order (core/event.h) ---
  // Every change to a job writes its events in the same transaction: created,
  // a follow-up, a turn started, each step, a turn ended, its pull request
  // opened or updated, completed, failed, archived.
  // The job's events after `after_sequence`, in order, at most `limit`. NotFound
  // as GetJob.
  virtual Result<std::vector<JobEvent>> ListEvents(const Scope& scope, const std::string& job_id,
                                                   int64_t after_sequence, int limit) = 0;

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

  // --- Webhooks: a project's endpoints and the outbox of their deliveries ---
  // Every event written (see Events) puts, in its transaction, one delivery in
  // the outbox for each enabled endpoint of its project that takes its type:
  // a crash after the commit loses no delivery. Endpoints are the operator's:
  // these methods take ids, not a Scope (a caller acting for an organisation
  // checks first that it owns the project). Secrets are sealed in the database
  // and opened here.

  // Stores `endpoint` (its url and events checked as CheckWebhookUrl and
  // ParseWebhookEvents check them, its secret a NewWebhookSecret); its id and
  // created_at are assigned. NotFound for an unknown project; ResourceExhausted
  // when the project has kMaxWebhooksPerProject endpoints.
  virtual Result<WebhookEndpoint> CreateWebhook(WebhookEndpoint endpoint) = 0;
  // NotFound if there is no such endpoint.
  virtual Result<WebhookEndpoint> GetWebhook(const std::string& endpoint_id) = 0;
  // The project's endpoints, oldest first.
  virtual Result<std::vector<WebhookEndpoint>> ListWebhooks(const std::string& project_id) = 0;
  // Removes the endpoint and its deliveries, pending or not. NotFound if there
  // is no such endpoint.
  virtual Status DeleteWebhook(const std::string& endpoint_id) = 0;
  // Enables the endpoint again after it was disabled; its pending deliveries
  // are due at once, their failures forgotten. Idempotent; NotFound as above.
  virtual Result<WebhookEndpoint> EnableWebhook(const std::string& endpoint_id) = 0;
  // Makes `secret` the endpoint's secret; the one it replaces signs beside it
  // for kWebhookSecretOverlap (a secret older than that is dropped). Conflict if
  // another rotation changed the secret meanwhile; NotFound as above.
  virtual Result<WebhookEndpoint> RotateWebhookSecret(const std::string& endpoint_id,
                                                      const std::string& secret) = 0;
  // The endpoint's deliveries, newest first, at most `limit`. NotFound as above.
  virtual Result<std::vector<WebhookDelivery>> ListWebhookDeliveries(const std::string& endpoint_id,
                                                                     int limit) = 0;
  // Claims a delivery that is due, for `lease`: pending, of an enabled
  // endpoint, its next attempt's time come, not leased (or its lease expired:
  // a crashed worker's), and the first pending one of its endpoint and job (so
  // a job's events reach an endpoint in order, one request in flight a job and
  // endpoint, across every node). The earliest due first. nullopt when none is
  // due.
  virtual Result<std::optional<ClaimedDelivery>> ClaimWebhookDelivery(
      const std::string& worker_id, std::chrono::milliseconds lease) = 0;
  // What recording an attempt did.
  enum class DeliveryRecorded { kRecorded, kEndpointDisabled, kLeaseLost };
  // Records the attempt of the delivery `worker_id` claimed: delivered, or
  // failed and due again after `attempt.retry_in`; a failure when the delivery
  // has failed for `give_up_after` since its first failure disables the
  // endpoint (kEndpointDisabled). kLeaseLost, and nothing recorded, if the
  // worker no longer holds the delivery.
  virtual Result<DeliveryRecorded> FinishWebhookDelivery(
      int64_t delivery_id, const std::string& worker_id, const DeliveryAttempt& attempt,
      std::chrono::milliseconds give_up_after) = 0;

  // --- Pull requests of the local forge: see LocalPullRequestRecords ---

  // --- Reviews of a job's branch (core/review.h) ---
  // Replaces the job's review with `review` (its job_id, project_id and branch
  // say whose). NotFound if the job does not exist.
  virtual Status PutReview(const Review& review) = 0;
  // The job's review; NotFound if the job is not in scope or has none yet.
  virtual Result<Review> GetReview(const Scope& scope, const std::string& job_id) = 0;
  // The review of the project's job whose branch is `branch`; NotFound if none.
  virtual Result<Review> GetReviewByBranch(const std::string& project_id,
                                           const std::string& branch) = 0;

  // --- Context repositories of a project (core/workflow.h) ---
  // Stores `repo` (its name checked by CheckWorkflowName, its repository 1 to
  // 2048 bytes); created_at is assigned. NotFound for an unknown project;
  // Conflict when the project has one of that name; ResourceExhausted at
  // kMaxContextRepositories.
  virtual Result<ContextRepository> AddContextRepository(ContextRepository repo) = 0;
  // The project's context repositories, by name.
  virtual Result<std::vector<ContextRepository>> ListContextRepositories(
      const std::string& project_id) = 0;
  // NotFound if there is no such repository; Conflict, naming the workflow, if
  // a workflow defined through the API names it (in its context or trigger).
  virtual Status RemoveContextRepository(const std::string& project_id,
                                         const std::string& name) = 0;

  // --- Workflows (core/workflow.h) ---
  // Workflows are the operator's and the organisation's: these methods take
  // ids (a caller acting for an organisation checks first that it owns the
  // project).
  // Stores an API-defined workflow (CheckWorkflow holds); id, created_at,
  // updated_at and schedule_from (now) are assigned. NotFound for an unknown
  // project; InvalidArgument for a context repository (in its context or
  // trigger) the project does not have; Conflict when an API-defined
  // workflow of the project has its name; ResourceExhausted at
  // kMaxWorkflowsPerProject (both sources counted).
  virtual Result<Workflow> CreateWorkflow(Workflow workflow) = 0;
  // NotFound if there is no such workflow.
  virtual Result<Workflow> GetWorkflow(const std::string& workflow_id) = 0;
  // The project's workflows of both sources, by name, then API before file.
  virtual Result<std::vector<Workflow>> ListWorkflows(const std::string& project_id) = 0;
  // Every enabled workflow of every unarchived project whose trigger is
  // `kind`, for the workflows' engine; at most `limit`.
  virtual Result<std::vector<Workflow>> ListWorkflowsByTrigger(TriggerKind kind, int limit) = 0;
  // Replaces an API-defined workflow's definition (all but id, project_id,
  // source and created_at) with `workflow`'s, checked as CreateWorkflow
  // checks it. Enabling a disabled one moves schedule_from to now, so slots
  // missed while disabled do not fire. NotFound; Conflict for a
  // file-defined workflow (its file is the only way to change it) except for
  // `enabled`, which may be changed for both.
  virtual Result<Workflow> UpdateWorkflow(const Workflow& workflow) = 0;
  // Removes an API-defined workflow and its queued runs (its jobs stay).
  // NotFound; Conflict for a file-defined one.
  virtual Status DeleteWorkflow(const std::string& workflow_id) = 0;
  // Makes the project's file-defined workflows exactly `files` (Workflow with
  // source kFile, file_path and, for a file that does not parse, error set),
  // read from the docs repository at `commit`, in one transaction: a file
  // whose name stays keeps its id, enabled flag and schedule_from; the others
  // are removed with their queued runs. Calling it again with the same commit
  // and files changes nothing.
  // NotFound for an unknown project.
  virtual Status SyncFileWorkflows(const std::string& project_id, const std::string& commit,
                                   std::vector<Workflow> files) = 0;

  // --- Workflow runs ---
  // Starts a run of the workflow for one trigger event, exactly once: in one
  // transaction, under the workflow's lock,
  //   - a run with the same dedup key exists: kDuplicate, nothing written;
  //   - the workflow is disabled (unless by_hand), has an error, or its name is
  //     used by a workflow of the other source (a clash): kRefused, the run
  //     recorded refused with the reason;
  //   - a run of the workflow is under way (its job active): kQueued, the run
  //     recorded queued, taking the place of one already queued (which becomes
  //     coalesced; CoalesceTriggers makes the trigger);
  //   - its started runs since midnight UTC whose jobs did not fail number
  //     runs_per_day: kRefused ("the daily limit of N runs is reached");
  //   - else kStarted: the job is created as CreateJob creates one (so
  //     RateLimited and the project's caps apply, and then nothing is written)
  //     with `prompt`, the workflow's model and context, trigger and
  //     workflow_id, and the run recorded started with it.
  // `schedule_from`, if set, becomes the workflow's schedule_from in the same
  // transaction, whatever the outcome. NotFound for an unknown workflow.
  virtual Result<WorkflowRunStart> StartWorkflowRun(const WorkflowRunRequest& request) = 0;
  // Queued runs whose workflow has no run under way, oldest first, at most
  // `limit`: for the engine to start (StartQueuedWorkflowRun).
  virtual Result<std::vector<WorkflowRun>> ListStartableQueuedRuns(int limit) = 0;
  // Starts the queued run `run_id` with `prompt`, under the rules of
  // StartWorkflowRun (but not its dedup rule): kStarted, kRefused, or kQueued
  // (still waiting: a run is under way again). kDuplicate when the run is no
  // longer queued (another node started it, or it was coalesced).
  virtual Result<WorkflowRunStart> StartQueuedWorkflowRun(int64_t run_id,
                                                          const std::string& prompt) = 0;
  // The workflow's runs, newest first, at most `limit`, each with its job's
  // status.
  virtual Result<std::vector<WorkflowRun>> ListWorkflowRuns(const std::string& workflow_id,
                                                            int limit) = 0;

  // --- Watched branches: the heads the engine last acted on ---
  // `watch` names a branch of a project's repositories ("docs:main",
  // "context:sdk:main"). nullopt until first set.
  virtual Result<std::optional<std::string>> GetWatchedHead(const std::string& project_id,
                                                            const std::string& watch) = 0;
  virtual Status SetWatchedHead(const std::string& project_id, const std::string& watch,
                                const std::string& head) = 0;

  // --- Forge events: verified webhook deliveries of the forges (unit HOOKS) ---
  // Events are kept kForgeEventRetention from their receipt; each record
  // removes a few older ones on the way (handled or not).

  // Records `event` (its id and received_at assigned; handled_at and outcome
  // ignored): true. false, and nothing written, when the project already has
  // a delivery of that forge with that delivery_id. NotFound for an unknown
  // project.
  virtual Result<bool> RecordForgeEvent(ForgeEvent event) = 0;
  // Events not handled yet, oldest first, at most `limit`.
  virtual Result<std::vector<ForgeEvent>> ListPendingForgeEvents(int limit) = 0;
  // Marks the event handled now with `outcome` (cut to 1000 bytes); the first
  // outcome recorded stays (two nodes handling one event both finish it).
  // NotFound if there is no such event.
  virtual Status FinishForgeEvent(int64_t id, const std::string& outcome) = 0;

  // --- Publishing: a job's branch, commit and pull request (core/job.h) ---
  // Job::publish is written by CreateJob (NewJob's, else the project's) and
  // StartWorkflowRun (the workflow's, else the project's); Job::commit_sha,
  // commit_url and pr_state by FinishTurn (TurnOutcome's), and:
  // Records what became of the job's pull request on its forge: "open",
  // "merged" or "closed" (else InvalidArgument). The job changes (updatedAt,
  // announced) only when the state does; either way the time it was learned
  // is noted, for ListJobsWithOpenPullRequests. NotFound for an unknown job.
  virtual Status SetPullRequestState(const std::string& job_id, const std::string& state) = 0;
  // Jobs not archived with a pull request (pr_link) whose state is not known
  // or "open", at most `limit`, those whose state was learned longest ago (or
  // never) first: for the engine's polls of the forges.
  virtual Result<std::vector<Job>> ListJobsWithOpenPullRequests(int limit) = 0;
  // The project's newest job working on `branch` (its source.ref); NotFound
  // if none.
  virtual Result<Job> FindJobByBranch(const std::string& project_id, const std::string& branch) = 0;
  // The project's newest job whose prLink is `pr_link` (the pull request's
  // page, as its forge gives it); NotFound if none.
  virtual Result<Job> FindJobByPullRequestLink(const std::string& project_id,
                                               const std::string& pr_link) = 0;
  // Moves the job to `branch` (a follow-up after its pull request was merged
  // or closed: a new branch, whose pull request is not known yet: pr_state is
  // cleared). InvalidArgument as CheckBranchName, or for the project's base
  // branch; Conflict when another active or archived job of the project works
  // on it; NotFound for an unknown job. Announced.
  virtual Status SetJobBranch(const std::string& job_id, const std::string& branch) = 0;

  // --- Replies to pull request comments (CommentReply) ---
  // Records the reply owed for the follow-up `reply.message_seq` of job
  // `reply.job_id` (of project `reply.project_id`); id, attempts and created_at
  // are assigned. Once per message: recording it again (a comment handled
  // twice) changes nothing. InvalidArgument for a pr_number below 1 or an
  // in_reply_to that is empty, over 200 bytes or holds control characters;
  // NotFound if the job has no such message in that project.
  virtual Status AddCommentReply(const CommentReply& reply) = 0;
  // Replies due: not posted, their message's turn finished (succeeded, failed
  // or cancelled), their next attempt's time come; the earliest due first, at
  // most `limit`. Each reply listed is held for kCommentReplyLease: no other
  // call lists it until then, so nodes sharing the database post it once.
  virtual Result<std::vector<CommentReply>> ListDueCommentReplies(int limit) = 0;
  // The reply is done with: posted, or given up on. Never listed again.
  // NotFound if there is no such reply.
  virtual Status FinishCommentReply(int64_t id) = 0;
  // Posting the reply failed: counts the attempt, and makes the reply due again
  // `delay` from now. NotFound if there is no such reply.
  virtual Status RetryCommentReply(int64_t id, std::chrono::milliseconds delay) = 0;

  // --- Secrets at rest ---
  // Seals again, under the secret box's current key, every stored secret that is
  // not sealed under it (after a new key was put first in the key file), each
  // only if it is still the value that was read (a concurrent write wins).
  // Returns how many were sealed again. Fails on the first secret that does not
  // open (its key is not held, or it was altered), naming its project and key
  // id; those sealed before it stay sealed again.
  virtual Result<int64_t> ResealSecrets() = 0;

  // Cheap liveness check for /healthz.
  virtual Status Ping() = 0;

  // --- Announcements of other processes' writes ---
  // Whether this store tells watchers of every write any process makes to the
  // jobs, turns and keys (PostgreSQL: LISTEN/NOTIFY). SQLite does not: other
  // processes' writes are seen by reading again (polls, the cache's ttl).
  virtual bool AnnouncesChanges() const { return false; }
  // Adds `watcher` for the store's lifetime. Where nothing is announced, only
  // its job_events and webhook_deliveries hear anything (this process's writes).
  // A watcher added while announcements are interrupted hears hearing(false) at
  // once, on the caller's thread.
  virtual void Watch(StoreWatcher watcher) {}
};

// Opens (creating and migrating as needed) the store `url` names:
// "sqlite:///abs/path.db", "sqlite:relative.db", a plain file path, or a
// PostgreSQL URI, "postgres://..." or "postgresql://..." (libpq's form: user,
// password, host, port, database and parameters such as sslmode).
//
// `secrets` (required) seals the secrets the store writes (a project's forge
// token) and opens those it reads: the database never holds one in the clear.
// Opening seals any secret stored in the clear by a docwright from before
// sealing, and refuses (InvalidArgument, naming the key ids) a database
// holding secrets sealed under keys `secrets` lacks: a node given the wrong
// key file must not start and fail every turn.
Result<std::unique_ptr<Store>> OpenStore(const std::string& url,
                                         std::shared_ptr<const SecretBox> secrets);
// Whether OpenStore takes `url` for a PostgreSQL database (else SQLite).
bool IsPostgresUrl(const std::string& url);

// Writes a consistent copy of the database `url` names to the new file `to`,
// while other processes keep reading and writing it (the database as of one
// moment). InvalidArgument if `to` exists or `url` is not SQLite (PostgreSQL is
// backed up with pg_dump); Unavailable on an I/O error (a partial copy goes).
Status BackupDatabase(const std::string& url, const std::string& to);

}  // namespace docwright
