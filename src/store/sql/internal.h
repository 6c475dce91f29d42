// Internal to the SQL store: the one implementation of the Store's logic, over
// a Driver (sql/driver.h), split by concern over several files:
//   records.cc        rows read into records; the rules every write applies
//   tenants.cc        organisations, API keys, projects
//   sessions.cc       sign-in sessions of browsers
//   jobs.cc           jobs, messages, steps
//   idempotency.cc    creates and follow-ups under an idempotency key
//   turns.cc          the work queue: claims, leases, outcomes
//   events.cc         the jobs' events, and steps recorded as they happen
//   webhooks.cc       webhook endpoints, and the outbox of their deliveries
//   pull_requests.cc  the local forge's pull requests; health
//   reviews.cc        reviews of jobs' branches
//   context_repositories.cc  context repositories; watched heads
//   workflows.cc      workflows: defined through the API, synced from files
//   workflow_runs.cc  workflow runs: started once per event, queued, coalesced
//   forge_events.cc   forges' webhook deliveries, recorded once, handled once
//   publish.cc        publishing: a job's pull request's state, its branch
//   comment_replies.cc  replies owed to pull request comments that became follow-ups
//   usage.cc          what turns used, by day, project and model; budgets' spend;
//                     the queue's depth
//   secrets.cc        secrets at rest: sealed on write, opened on read, swept
//                     at open and resealed on rotation; OpenSqlStore
// Every write runs in Driver::Write, which may run it again after a transient
// failure: each write sets what it returns afresh on every run.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/event.h"
#include "core/job.h"
#include "core/local_pull_request.h"
#include "core/mutex.h"
#include "core/secret_box.h"
#include "core/status.h"
#include "core/time.h"
#include "core/turn.h"
#include "store/sql/driver.h"
#include "store/store.h"

namespace docwright::sql {

// --- Records (records.cc) ---

Job ReadJob(const Rows& r);
Project ReadProject(const Rows& r);
Org ReadOrg(const Rows& r);
// A project's or an organisation's budget: its token_budget and
// cost_budget_micros columns.
MonthlyBudget ReadBudget(const Rows& r);
ApiKey ReadKey(const Rows& r);
LocalPullRequest ReadPullRequest(const Rows& r);
Message ReadMessage(const Rows& r);
TranscriptStep ReadStep(const Rows& r);

// A transcript step's kind as stored ("assistant", "tool", "context", "publish").
std::string_view StepKindName(TranscriptStep::Kind kind);

// A project's lists are stored one entry a line (entries never hold a newline).
std::string JoinLines(const std::vector<std::string>& items);
std::vector<std::string> SplitLines(std::string_view text);

// A workflow as stored (workflows.cc).
Workflow ReadWorkflow(const Rows& r);

// The claim's held projects (Store::ClaimTurn) as the JSON array of ids its
// statement takes.
std::string HeldProjectsJson(const std::vector<std::string>& held_projects);

// --- Rules (records.cc) ---

// The rate limit's sliding window: the project's messages of the last hour.
inline constexpr int64_t kRateWindowMillis = 3600 * 1000;

// The verdict once `count` messages of `p` fall in the window ending `now`;
// `nth_created_at` is the creation time of the message whose leaving the window
// frees a slot (the (count - limit + 1)-th oldest of the window), if there is one.
Status RateVerdict(const Project& p, int64_t count, std::optional<UnixMillis> nth_created_at,
                   UnixMillis now);

// The error a turn is failed with when its lease expired `attempts` times.
std::string InterruptedError(int64_t attempts);

// The job's status and error after a turn of it ended with `outcome`, `more`
// saying whether later turns are queued (see StatusAfterTurn).
struct JobAfterTurn {
  std::string status;
  std::optional<std::string> error;
};
JobAfterTurn AfterTurn(const Job& job, const TurnOutcome& outcome, bool more);

// The refusals: an archived project; `job stop` with nothing to stop; deleting
// a project at work; a job at its limit of messages or of queued follow-ups.
Status ProjectArchived();
Status NothingToStop(JobStatus status);
Status ProjectHasActiveJobs(int64_t n);
Status TooManyMessages();
Status TooManyFollowUps(int64_t queued);

// --- The store ---

class SqlStore final : public Store {
 public:
  SqlStore(std::unique_ptr<Driver> driver, std::shared_ptr<const SecretBox> secrets)
      : driver_(std::move(driver)), secrets_(std::move(secrets)) {}

  // tenants.cc
  Result<Org> CreateOrg(const std::string& name) override;
  Result<Org> GetOrg(const std::string& org_id) override;
  Result<std::vector<Org>> ListOrgs() override;
  Status UpdateOrg(const Org& org) override;
  Status CreateApiKey(const ApiKey& key) override;
  Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) override;
  Status RevokeApiKey(const std::string& key_id) override;
  Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) override;
  Status RecordKeyUses(const std::vector<std::pair<std::string, UnixMillis>>& uses) override;
  Result<Project> CreateProject(Project project) override;
  Result<Project> GetProject(const Scope& scope) override;
  Result<Project> GetProjectById(const std::string& project_id) override;
  Result<std::vector<Project>> ListProjects(const std::string& org_id) override;
  Result<std::vector<ProjectJobCounts>> CountJobs(const std::string& org_id) override;

  // sessions.cc
  Status CreateSession(const Session& session) override;
  Result<ActiveSession> FindSession(const std::string& token_hash, UnixMillis now) override;
  Status DeleteSession(const std::string& token_hash) override;
  Status UpdateProject(const Project& project) override;
  Result<Project> ArchiveProject(const Scope& scope) override;
  Status DeleteProject(const Scope& scope) override;

  // jobs.cc
  Result<Job> CreateJob(const Scope& scope, const NewJob& job) override;
  Result<Job> GetJob(const Scope& scope, const std::string& job_id) override;
  Result<Job> FindJob(const std::string& org_id, const std::string& job_id) override;
  Result<JobPage> ListJobs(const Scope& scope, const JobQuery& query) override;
  Result<std::vector<std::vector<MessageHead>>> ListMessageHeads(
      const Scope& scope, const std::vector<std::string>& job_ids, int latest,
      int prompt_chars) override;
  using Store::AddMessage;
  Result<Job> AddMessage(const Scope& scope, const std::string& job_id,
                         const NewMessage& message) override;
  Status SetJobModel(const std::string& job_id, const std::string& model) override;
  Result<Job> StopJob(const Scope& scope, const std::string& job_id) override;
  Result<Job> ArchiveJob(const Scope& scope, const std::string& job_id) override;
  using Store::ListMessages;
  Result<MessagePage> ListMessages(const Scope& scope, const std::string& job_id,
                                   const MessageQuery& query) override;
  Result<StepsPage> ListSteps(const Scope& scope, const std::string& job_id, int from_seq,
                              int to_seq, int64_t max_bytes) override;
  Result<TokenUsage> JobUsage(const Scope& scope, const std::string& job_id) override;

  // usage.cc
  Result<std::vector<UsageRow>> ListUsage(const UsageQuery& query) override;
  Result<BudgetSpend> SpendSince(const std::string& org_id, const std::string& project_id,
                                 UnixMillis since) override;
  Result<std::vector<ProjectBudgetUse>> ListBudgetUse(UnixMillis since) override;
  Result<QueueStats> GetQueueStats() override;

  // events.cc
  Result<std::vector<JobEvent>> ListEvents(const Scope& scope, const std::string& job_id,
                                           int64_t after_sequence, int limit) override;
  Result<LeaseState> RecordStep(int64_t turn_id, const std::string& worker_id, int index,
                                const TranscriptStep& step) override;
  void Watch(StoreWatcher watcher) override;
  void TakeQueuedTurns(TurnTaker taker) override;

  // idempotency.cc
  Result<IdempotentWrite> CreateJobWithKey(const Scope& scope, const NewJob& job,
                                           const IdempotentRequest& request) override;
  Result<IdempotentWrite> AddMessageWithKey(const Scope& scope, const std::string& job_id,
                                            const NewMessage& message,
                                            const IdempotentRequest& request) override;

  // turns.cc
  Result<std::optional<TurnInput>> ClaimTurn(const std::string& worker_id,
                                             std::chrono::milliseconds lease, int max_attempts,
                                             const std::vector<std::string>& held_projects,
                                             bool look_first) override;
  Result<LeaseState> RenewLease(int64_t turn_id, const std::string& worker_id,
                                std::chrono::milliseconds lease) override;
  std::vector<Result<LeaseState>> RenewLeases(const std::vector<HeldLease>& leases,
                                              std::chrono::milliseconds lease) override;
  Result<LeaseState> FinishTurn(int64_t turn_id, const std::string& worker_id,
                                const TurnOutcome& outcome) override;
  Status ReleaseTurn(int64_t turn_id, const std::string& worker_id) override;
  Status ChargeTurnUsage(int64_t turn_id, const TokenUsage& usage, const std::string& model,
                         std::optional<int64_t> cost_micros) override;

  // webhooks.cc
  Result<WebhookEndpoint> CreateWebhook(WebhookEndpoint endpoint) override;
  Result<WebhookEndpoint> GetWebhook(const std::string& endpoint_id) override;
  Result<std::vector<WebhookEndpoint>> ListWebhooks(const std::string& project_id) override;
  Status DeleteWebhook(const std::string& endpoint_id) override;
  Result<WebhookEndpoint> EnableWebhook(const std::string& endpoint_id) override;
  Result<WebhookEndpoint> RotateWebhookSecret(const std::string& endpoint_id,
                                              const std::string& secret) override;
  Result<std::vector<WebhookDelivery>> ListWebhookDeliveries(const std::string& endpoint_id,
                                                             int limit) override;
  Result<std::optional<ClaimedDelivery>> ClaimWebhookDelivery(
      const std::string& worker_id, std::chrono::milliseconds lease) override;
  Result<DeliveryRecorded> FinishWebhookDelivery(int64_t delivery_id, const std::string& worker_id,
                                                 const DeliveryAttempt& attempt,
                                                 std::chrono::milliseconds give_up_after) override;

  // pull_requests.cc
  Result<LocalPullRequest> UpsertPullRequest(const LocalPullRequest& pr) override;
  Result<LocalPullRequest> GetPullRequest(const std::string& id) override;
  Result<LocalPullRequest> MarkPullRequestMerged(const std::string& id,
                                                 const std::string& merge_commit,
                                                 UnixMillis merged_at) override;
  Status Ping() override;

  // reviews.cc
  Status PutReview(const Review& review) override;
  Result<Review> GetReview(const Scope& scope, const std::string& job_id) override;
  Result<Review> GetReviewByBranch(const std::string& project_id,
                                   const std::string& branch) override;

  // context_repositories.cc
  Result<ContextRepository> AddContextRepository(ContextRepository repo) override;
  Result<std::vector<ContextRepository>> ListContextRepositories(
      const std::string& project_id) override;
  Status RemoveContextRepository(const std::string& project_id, const std::string& name) override;
  Result<std::optional<std::string>> GetWatchedHead(const std::string& project_id,
                                                    const std::string& watch) override;
  Status SetWatchedHead(const std::string& project_id, const std::string& watch,
                        const std::string& head) override;

  // workflows.cc
  Result<Workflow> CreateWorkflow(Workflow workflow) override;
  Result<Workflow> GetWorkflow(const std::string& workflow_id) override;
  Result<std::vector<Workflow>> ListWorkflows(const std::string& project_id) override;
  Result<std::vector<Workflow>> ListWorkflowsByTrigger(TriggerKind kind, int limit) override;
  Result<Workflow> UpdateWorkflow(const Workflow& workflow) override;
  Status DeleteWorkflow(const std::string& workflow_id) override;
  Status SyncFileWorkflows(const std::string& project_id, const std::string& commit,
                           std::vector<Workflow> files) override;

  // workflow_runs.cc
  Result<WorkflowRunStart> StartWorkflowRun(const WorkflowRunRequest& request) override;
  Result<std::vector<WorkflowRun>> ListStartableQueuedRuns(int limit) override;
  Result<WorkflowRunStart> StartQueuedWorkflowRun(int64_t run_id,
                                                  const std::string& prompt) override;
  Result<std::vector<WorkflowRun>> ListWorkflowRuns(const std::string& workflow_id,
                                                    int limit) override;

  // forge_events.cc
  Result<bool> RecordForgeEvent(ForgeEvent event) override;
  Result<std::vector<ForgeEvent>> ListPendingForgeEvents(int limit) override;
  Status FinishForgeEvent(int64_t id, const std::string& outcome) override;

  // publish.cc
  Status SetPullRequestState(const std::string& job_id, const std::string& state) override;
  Result<std::vector<Job>> ListJobsWithOpenPullRequests(int limit) override;
  Result<Job> FindJobByBranch(const std::string& project_id, const std::string& branch) override;
  Result<Job> FindJobByPullRequestLink(const std::string& project_id,
                                       const std::string& pr_link) override;
  Status SetJobBranch(const std::string& job_id, const std::string& branch) override;
  Result<LocalPullRequest> GetPullRequestByNumber(const std::string& project_id,
                                                  int64_t number) override;

  // comment_replies.cc
  Status AddCommentReply(const CommentReply& reply) override;
  Result<std::vector<CommentReply>> ListDueCommentReplies(int limit) override;
  Status FinishCommentReply(int64_t id) override;
  Status RetryCommentReply(int64_t id, std::chrono::milliseconds delay) override;

  // secrets.cc
  Result<int64_t> ResealSecrets() override;
  // At open: seals the secrets stored in the clear; InvalidArgument if one is
  // sealed under a key the box lacks.
  Status SealLegacySecrets();
  bool AnnouncesChanges() const override { return driver_->AnnouncesChanges(); }

 private:
  // A write transaction (Driver::Write) of `commit`; this process's watchers
  // hear of the turns it may have made runnable (Connection::NoteTurnQueued)
  // as it becomes visible when `visible` is set, else once it ends, and of the
  // webhook deliveries it made due (Connection::NoteDeliveriesDue) once it
  // ends. Every write of the store goes through it, so a writer cannot forget
  // to wake the runner or the delivery workers. `visible`, if set: as
  // Driver::Write's.
  Status WriteAs(Commit commit, const std::function<Status(Connection&)>& fn,
                 const std::function<void()>& visible = nullptr);
  // A durable write transaction, as WriteAs.
  template <typename Fn>
  Status Write(Fn&& fn) {
    return WriteAs(Commit::kDurable, std::forward<Fn>(fn));
  }

  // Reads a T with `fn` (Result<T>(Connection&)) on a reading connection.
  template <typename T, typename Fn>
  Result<T> Read(Fn&& fn) {
    std::optional<T> out;
    Status s = driver_->Read([&](Connection& c) -> Status {
      Result<T> r = fn(c);
      if (!r.ok()) return r.status();
      out = std::move(*r);
      return Status();
    });
    if (!s.ok()) return s;
    return std::move(*out);
  }

  // Reads the records `read` makes of every row of `statement` (a list).
  template <typename T>
  Result<std::vector<T>> ReadAll(const Statement& statement, std::initializer_list<Value> params,
                                 T (*read)(const Rows&)) {
    return Read<std::vector<T>>([&](Connection& c) -> Result<std::vector<T>> {
      auto r = c.Exec(statement, params);
      if (!r.ok()) return r.status();
      std::vector<T> out;
      while (r->Next()) out.push_back(read(*r));
      return out;
    });
  }

  // Reads the record `read` makes of the first row of `statement`; NotFound
  // with `missing` if there is none.
  template <typename T>
  Result<T> ReadOne(const Statement& statement, std::initializer_list<Value> params,
                    T (*read)(const Rows&), const char* missing) {
    return Read<T>([&](Connection& c) -> Result<T> {
      auto r = c.Exec(statement, params);
      if (!r.ok()) return r.status();
      if (r->Next()) return read(*r);
      return Status::NotFound(missing);
    });
  }

  // Helpers for the methods, on a connection lent by Write or Read.
  static Status Run(Connection& c, const Statement& statement, std::initializer_list<Value> params);
  // The first column of the first row; Internal if there is no row.
  static Result<int64_t> One(Connection& c, const Statement& statement,
                             std::initializer_list<Value> params);
  // Runs `statement`; NotFound with `missing` if it changed no row.
  static Status Change(Connection& c, const Statement& statement,
                       std::initializer_list<Value> params, const char* missing);
  // Tells other nodes, when the transaction commits (kNotify's payloads).
  static Status Notify(Connection& c, const std::string& payload);
  // The database's clock.
  static Result<UnixMillis> Now(Connection& c);
  static Status OrgExists(Connection& c, const std::string& org_id);
  static Result<Project> LoadProject(Connection& c, const Scope& scope);
  static Result<Job> LoadJob(Connection& c, const Scope& scope, const std::string& job_id);
  static Result<Job> LoadJobById(Connection& c, const std::string& job_id);
  // OK if a new job may work on `branch`: not the project's base branch
  // (InvalidArgument), not held by an active or archived job (Conflict).
  static Status CheckBranchIsFree(Connection& c, const Project& project, const std::string& branch);
  // turns.cc: a write's dealings with this process's turn taker (as it was
  // when the write began), over its transaction's attempts; one a write, on
  // its thread. When destroyed, tells a turn handed over by an attempt that
  // did not commit so (`committed` false), and ends a reservation nothing took
  // (TurnTaker::unclaimed): keep it until the write has returned.
  class QueuedClaim {
   public:
    explicit QueuedClaim(SqlStore& store) : store_(store), hook_(store.Taker()) {}
    ~QueuedClaim();
    QueuedClaim(const QueuedClaim&) = delete;
    QueuedClaim& operator=(const QueuedClaim&) = delete;
    // Inside the transaction, once the write is admitted, before its turn is
    // queued: reserves a worker (TurnTaker::reserve), which wakes while
    // the rest of the write runs. Once a write; Claim reserves if this was
    // not called (a follow-up's turn, often not runnable, is reserved for
    // only once it is known to be).
    void Reserve(const std::string& job_id);
    // Inside the transaction, once turn `seq` of `job_id` is queued: claims it
    // if the hook reserves a lease and it is runnable, and hands it over
    // (TurnTaker::claimed) before the commit. A claim that fails (a
    // statement's error) or that the hook refuses is undone alone (a
    // savepoint), the turn left queued and a worker woken for it: only the
    // savepoint's own errors are the write's. A turn an earlier attempt of
    // the transaction handed over is told it was not committed, and this
    // attempt's turn is left to the workers.
    Status Claim(Connection& c, const std::string& job_id, int64_t seq, UnixMillis now);
    // Whether this attempt of the transaction claimed the turn.
    bool claimed() const { return claimed_turn_ != 0; }
    // The write's `visible` (null if nobody here is told of queued turns):
    // tells the turn handed over that it is committed, or ends an unused
    // reservation (the watchers are told by WriteAs).
    std::function<void()> Visible();

   private:
    // Tells the turn handed over by the latest attempt, if not told yet,
    // whether its write committed.
    void Settle(bool committed);
    SqlStore& store_;
    const TurnTaker hook_;
    bool asked_ = false;
    bool told_ = false;   // the write became visible
    bool ended_ = false;  // `claimed` was called (in some attempt): the reservation ended
    std::optional<ClaimFor> owner_;
    int64_t claimed_turn_ = 0;                     // by this attempt of the transaction
    std::optional<std::promise<bool>> committed_;  // of the turn handed over, until told
  };
  // The writes of CreateJob and AddMessage, once the project is locked (and
  // `now` read under the lock); each queues a turn, and gives it to `claim`
  // (null: to any worker, which the caller wakes).
  static Result<Job> InsertJob(Connection& c, const Project& project, const NewJob& job,
                               UnixMillis now, QueuedClaim* claim);
  static Result<Job> AppendMessage(Connection& c, const Scope& scope, const Project& project,
                                   const std::string& job_id, const NewMessage& message,
                                   UnixMillis now, QueuedClaim* claim);
  // `write` (InsertJob or AppendMessage) under `request`'s key
  // (Store::CreateJobWithKey); `claim` is told of the write's turn when it was
  // made (not replayed).
  using JobWrite = std::function<Result<Job>(Connection&, const Project&, UnixMillis)>;
  Result<IdempotentWrite> WriteWithKey(const Scope& scope, const IdempotentRequest& request,
                                       const JobWrite& write, QueuedClaim& claim);
  // Whether `request`'s key is kept in the project (used at `oldest` or later);
  // if it is, *out says what to answer (kReplayed or kKeyReused).
  static Result<bool> FindIdempotencyKey(Connection& c, const std::string& project_id,
                                         const IdempotentRequest& request, UnixMillis oldest,
                                         IdempotentWrite* out);
  // Takes the project's lock, as every writer of its jobs does; ProjectArchived
  // if it is archived as of the lock (an archive is an update of the row, so it
  // waits for the lock or is seen).
  static Status LockProjectForJobs(Connection& c, const std::string& project_id);
  // The sliding-window rate limit; the caller holds the project's lock.
  static Status Admit(Connection& c, const Project& p, UnixMillis now);
  // turns.cc: `used` and its cost added to the turn's row and to its job's
  // totals, and `model` given to the turn if it names none yet; the caller holds
  // the job's and the turn's locks.
  static Status AddTurnUsage(Connection& c, int64_t turn_id, const std::string& job_id,
                             const TokenUsage& used, const std::string& model,
                             std::optional<int64_t> cost_micros);
  static Status MoveJobAfterTurn(Connection& c, const std::string& job_id, int64_t seq,
                                 const TurnOutcome& outcome, UnixMillis now);
  // turn.ended, then pull_request.opened or .updated if the turn opened or
  // updated it, then job.completed or job.failed if the job moved to one.
  static Status AppendTurnEndedEvents(Connection& c, const Job& before, const Job& after, int seq,
                                      const TurnOutcome& outcome, UnixMillis now);
  static Result<LeaseState> WhyNotHeld(Connection& c, int64_t turn_id);
  // RenewLeases for at most kMaxLeasesPerRenewal leases, in one transaction.
  Result<std::vector<Result<LeaseState>>> RenewLeaseChunk(std::span<const HeldLease> leases,
                                                          std::chrono::milliseconds lease);
  // The turn `turn_id`, just claimed, with its job, project and messages.
  static Result<TurnInput> LoadClaimed(Connection& c, int64_t turn_id, const Rows& runnable);
  static Status RecordSteps(Connection& c, const std::string& job_id, int64_t seq,
                            const std::vector<TranscriptStep>& steps);

  // workflows.cc: the workflow `id` (taking its lock if `lock`); NotFound.
  static Result<Workflow> LoadWorkflow(Connection& c, const std::string& id, bool lock);
  // workflow_runs.cc: what a trigger event of `workflow` (project and workflow
  // locked) does, written: `queued` is the queued run being started
  // (StartQueuedWorkflowRun), or null for a new run under `dedup_key`.
  struct RunEvent {
    const RunTrigger* trigger;
    const std::string* prompt;
    bool by_hand = false;
    const std::string* dedup_key = nullptr;
    const WorkflowRun* queued = nullptr;
  };
  static Result<WorkflowRunStart> DecideRun(Connection& c, const Workflow& workflow,
                                            const RunEvent& event, UnixMillis now);

  // Appends an event of `type` with `data` to the job's events, and its
  // deliveries to the outbox; the caller holds the job's lock. Announced to
  // other nodes at commit ("e:ID", and "w" when it queued a delivery).
  static Status AppendEvent(Connection& c, const std::string& job_id, const std::string& project_id,
                            EventType type, const std::string& data, UnixMillis now);
  // Tells this process's watchers that the job has new events, once they are
  // committed (other processes hear of them from the driver, where it
  // announces).
  void AnnounceEvents(const std::string& job_id);
  // Tells this process's watchers that webhook deliveries became due (other
  // processes hear of them from the driver, where it announces).
  void AnnounceDeliveries();
  // Tells this process's watchers that a turn may have become runnable.
  void AnnounceTurnQueued();
  // This process's turn taker (TakeQueuedTurns), and whether anyone here is
  // told of queued turns (a taker or a watcher).
  TurnTaker Taker();
  bool HasTurnListeners();

  // secrets.cc: `p`'s forge token and hook secret, as stored, sealed for its
  // row (`p.id` set); and both of `p`'s, as read, opened (a forge token stored
  // in the clear before sealing is taken as it is, until the sweep at the next
  // open seals it).
  Result<std::optional<std::string>> SealForgeToken(const Project& p) const;
  Result<std::optional<std::string>> SealHookSecret(const Project& p) const;
  Status OpenProjectSecrets(Project& p) const;
  // A webhook endpoint's secret (`previous`: the one a rotation replaced),
  // sealed for its row, and opened.
  Result<std::string> SealWebhookSecret(const std::string& endpoint_id, const std::string& secret,
                                        bool previous) const;
  Result<std::string> OpenWebhookSecret(const std::string& endpoint_id, const std::string& sealed,
                                        bool previous) const;
  // `e` as read (secrets sealed), its secrets opened.
  Status OpenWebhookSecrets(WebhookEndpoint& e) const;

  std::unique_ptr<Driver> driver_;
  const std::shared_ptr<const SecretBox> secrets_;  // never null
  Mutex watchers_mu_;
  std::vector<StoreWatcher> local_watchers_ GUARDED_BY(watchers_mu_);
  // This process's listeners to its own writes' queued turns, on every backend.
  std::vector<std::function<void()>> turn_watchers_ GUARDED_BY(watchers_mu_);
  TurnTaker taker_ GUARDED_BY(watchers_mu_);
};

}  // namespace docwright::sql
