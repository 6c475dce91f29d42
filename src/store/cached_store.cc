#include "store/cached_store.h"

#include <atomic>
#include <memory>
#include <unordered_map>

#include "core/mutex.h"

namespace docwright {
namespace {

using Clock = std::chrono::steady_clock;

// A map with per-entry expiry and a generation that every invalidation bumps:
// a value read from the inner store before an invalidation is never cached after
// it.
template <typename V>
class TtlCache {
 public:
  explicit TtlCache(CacheOptions o) : options_(o) {}

  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // Readers share the lock and copy the value outside it: polls of many
  // connections hit the same entries at once.
  std::shared_ptr<const V> Get(const std::string& key) EXCLUDES(mu_) {
    std::shared_ptr<const Entry> entry;
    {
      ReaderMutexLock lock(mu_);
      auto it = map_.find(key);
      if (it == map_.end()) return nullptr;
      entry = it->second;
    }
    if (entry->expires <= Clock::now()) return nullptr;
    return std::shared_ptr<const V>(entry, &entry->value);
  }

  // Stores `value` unless an invalidation happened since `generation` was read.
  void Put(const std::string& key, V value, uint64_t generation) EXCLUDES(mu_) {
    auto now = Clock::now();
    auto entry = std::make_shared<const Entry>(Entry{std::move(value), now + options_.ttl});
    WriterMutexLock lock(mu_);
    if (generation != generation_.load(std::memory_order_relaxed)) return;
    if (map_.size() >= options_.max_entries) {
      std::erase_if(map_, [&](const auto& kv) { return kv.second->expires <= now; });
      if (map_.size() >= options_.max_entries) map_.clear();
    }
    map_[key] = std::move(entry);
  }

  void Erase(const std::string& key) EXCLUDES(mu_) {
    WriterMutexLock lock(mu_);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    map_.erase(key);
  }

  void Clear() EXCLUDES(mu_) {
    WriterMutexLock lock(mu_);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    map_.clear();
  }

 private:
  struct Entry {
    V value;
    Clock::time_point expires;
  };
  const CacheOptions options_;
  SharedMutex mu_;
  // Bumped under mu_ (held alone), read without it.
  std::atomic<uint64_t> generation_{0};
  std::unordered_map<std::string, std::shared_ptr<const Entry>> map_ GUARDED_BY(mu_);
};

class CachedStore final : public Store {
 public:
  CachedStore(std::unique_ptr<Store> inner, CacheOptions o)
      : keys_(o), sessions_(o), jobs_(o), inner_(std::move(inner)) {
    if (inner_->AnnouncesChanges()) {
      // Other processes' writes are announced: forget what they change as it is
      // heard, and cache nothing while announcements may be missed.
      inner_->Watch(StoreWatcher{
          .job_changed = [this](const std::string& job_id) { jobs_.Erase(job_id); },
          .keys_changed =
              [this] {
                keys_.Clear();
                sessions_.Clear();
              },
          .hearing =
              [this](bool hearing) {
                // Forget first: nothing cached before the gap is served after it.
                keys_.Clear();
                sessions_.Clear();
                jobs_.Clear();
                hearing_.store(hearing);
              },
      });
    } else {
      // This process's steps move their job's updatedAt: forget it as they are
      // recorded (RecordStep names no job).
      inner_->Watch(StoreWatcher{
          .job_events = [this](const std::string& job_id) { jobs_.Erase(job_id); },
      });
    }
  }

  // --- Cached reads ---

  Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) override {
    if (!hearing_.load()) return inner_->FindActiveApiKey(secret_hash);
    if (auto hit = keys_.Get(secret_hash)) return *hit;
    uint64_t gen = keys_.generation();
    auto r = inner_->FindActiveApiKey(secret_hash);
    if (r.ok()) keys_.Put(secret_hash, *r, gen);
    return r;
  }

  // A browser's requests each check its session, as a client's its key.
  Result<ActiveSession> FindSession(const std::string& token_hash, UnixMillis now) override {
    if (!hearing_.load()) return inner_->FindSession(token_hash, now);
    if (auto hit = sessions_.Get(token_hash); hit && hit->session.expires_at > now) return *hit;
    uint64_t gen = sessions_.generation();
    auto r = inner_->FindSession(token_hash, now);
    if (r.ok()) sessions_.Put(token_hash, *r, gen);
    return r;
  }

  Result<Job> GetJob(const Scope& scope, const std::string& job_id) override {
    if (!hearing_.load()) return inner_->GetJob(scope, job_id);
    if (auto hit = jobs_.Get(job_id)) {
      // Only a caller of the same organisation and project may see it; anyone
      // else gets the inner store's answer (NotFound).
      if (hit->org_id == scope.org_id && hit->job.project_id == scope.project_id) return hit->job;
    }
    uint64_t gen = jobs_.generation();
    auto r = inner_->GetJob(scope, job_id);
    if (r.ok()) jobs_.Put(job_id, ScopedJob{scope.org_id, *r}, gen);
    return r;
  }

  // --- Writes that change a cached answer ---

  Status RevokeApiKey(const std::string& key_id) override {
    Status s = inner_->RevokeApiKey(key_id);
    keys_.Clear();      // keys are cached by hash, not id; revocations are rare
    sessions_.Clear();  // and its sessions ended with it
    return s;
  }
  Status DeleteSession(const std::string& token_hash) override {
    Status s = inner_->DeleteSession(token_hash);
    sessions_.Erase(token_hash);
    return s;
  }
  using Store::AddMessage;
  Result<Job> AddMessage(const Scope& scope, const std::string& job_id,
                         const NewMessage& message) override {
    auto r = inner_->AddMessage(scope, job_id, message);
    jobs_.Erase(job_id);
    return r;
  }
  Result<IdempotentWrite> AddMessageWithKey(const Scope& scope, const std::string& job_id,
                                            const NewMessage& message,
                                            const IdempotentRequest& request) override {
    auto r = inner_->AddMessageWithKey(scope, job_id, message, request);
    jobs_.Erase(job_id);
    return r;
  }
  Status SetJobModel(const std::string& job_id, const std::string& model) override {
    Status s = inner_->SetJobModel(job_id, model);
    jobs_.Erase(job_id);
    return s;
  }
  Result<Job> StopJob(const Scope& scope, const std::string& job_id) override {
    return inner_->StopJob(scope, job_id);
  }
  Result<Job> ArchiveJob(const Scope& scope, const std::string& job_id) override {
    auto r = inner_->ArchiveJob(scope, job_id);
    jobs_.Erase(job_id);
    return r;
  }
  Result<std::optional<TurnInput>> ClaimTurn(const std::string& worker_id,
                                             std::chrono::milliseconds lease, int max_attempts,
                                             const std::vector<std::string>& held_projects,
                                             bool look_first) override {
    auto r = inner_->ClaimTurn(worker_id, lease, max_attempts, held_projects, look_first);
    // Claiming may fail jobs whose turns ran out of attempts, also when it then
    // finds nothing to run; which ones is not reported, so drop every job (a
    // store that announces changes names them: they are dropped as announced).
    // Idle workers claim a few times a second: each costs one database read per
    // polled job.
    if (!inner_->AnnouncesChanges()) jobs_.Clear();
    return r;
  }
  Result<LeaseState> FinishTurn(int64_t turn_id, const std::string& worker_id,
                                const TurnOutcome& outcome) override {
    auto r = inner_->FinishTurn(turn_id, worker_id, outcome);
    jobs_.Clear();  // the outcome's job is not named here; turns end rarely
    return r;
  }
  Status ChargeTurnUsage(int64_t turn_id, const TokenUsage& usage, const std::string& model,
                         std::optional<int64_t> cost_micros) override {
    Status s = inner_->ChargeTurnUsage(turn_id, usage, model, cost_micros);
    jobs_.Clear();  // the job's usage moved; as FinishTurn's, this is rare
    return s;
  }

  // --- Pass-through ---

  Result<Org> CreateOrg(const std::string& name) override { return inner_->CreateOrg(name); }
  Result<Org> GetOrg(const std::string& id) override { return inner_->GetOrg(id); }
  Status UpdateOrg(const Org& org) override { return inner_->UpdateOrg(org); }
  Result<LocalPullRequest> UpsertPullRequest(const LocalPullRequest& pr) override {
    return inner_->UpsertPullRequest(pr);
  }
  Result<LocalPullRequest> GetPullRequest(const std::string& id) override {
    return inner_->GetPullRequest(id);
  }
  Status PutReview(const Review& review) override { return inner_->PutReview(review); }
  Result<Review> GetReview(const Scope& scope, const std::string& job_id) override {
    return inner_->GetReview(scope, job_id);
  }
  Result<Review> GetReviewByBranch(const std::string& project_id,
                                   const std::string& branch) override {
    return inner_->GetReviewByBranch(project_id, branch);
  }
  Result<LocalPullRequest> MarkPullRequestMerged(const std::string& id,
                                                 const std::string& merge_commit,
                                                 UnixMillis merged_at) override {
    return inner_->MarkPullRequestMerged(id, merge_commit, merged_at);
  }
  Result<StepsPage> ListSteps(const Scope& scope, const std::string& job_id, int from_seq,
                              int to_seq, int64_t max_bytes) override {
    return inner_->ListSteps(scope, job_id, from_seq, to_seq, max_bytes);
  }
  Result<std::vector<std::vector<MessageHead>>> ListMessageHeads(
      const Scope& scope, const std::vector<std::string>& job_ids, int latest,
      int prompt_chars) override {
    return inner_->ListMessageHeads(scope, job_ids, latest, prompt_chars);
  }
  Result<TokenUsage> JobUsage(const Scope& scope, const std::string& job_id) override {
    return inner_->JobUsage(scope, job_id);
  }
  Result<std::vector<UsageRow>> ListUsage(const UsageQuery& query) override {
    return inner_->ListUsage(query);
  }
  Result<BudgetSpend> SpendSince(const std::string& org_id, const std::string& project_id,
                                 UnixMillis since) override {
    return inner_->SpendSince(org_id, project_id, since);
  }
  Result<std::vector<ProjectBudgetUse>> ListBudgetUse(UnixMillis since) override {
    return inner_->ListBudgetUse(since);
  }
  Result<QueueStats> GetQueueStats() override { return inner_->GetQueueStats(); }
  Status CreateApiKey(const ApiKey& key) override { return inner_->CreateApiKey(key); }
  Status RecordKeyUses(const std::vector<std::pair<std::string, UnixMillis>>& uses) override {
    return inner_->RecordKeyUses(uses);
  }
  Status CreateSession(const Session& session) override { return inner_->CreateSession(session); }
  Result<std::vector<ProjectJobCounts>> CountJobs(const std::string& org_id) override {
    return inner_->CountJobs(org_id);
  }
  Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) override {
    return inner_->ListApiKeys(org_id);
  }
  Result<Project> CreateProject(Project p) override { return inner_->CreateProject(std::move(p)); }
  Result<Project> GetProject(const Scope& scope) override { return inner_->GetProject(scope); }
  Result<Project> GetProjectById(const std::string& project_id) override {
    return inner_->GetProjectById(project_id);
  }
  Status UpdateProject(const Project& p) override { return inner_->UpdateProject(p); }
  Result<std::vector<Org>> ListOrgs() override { return inner_->ListOrgs(); }
  Result<Job> FindJob(const std::string& org_id, const std::string& job_id) override {
    return inner_->FindJob(org_id, job_id);
  }
  Result<Project> ArchiveProject(const Scope& scope) override {
    return inner_->ArchiveProject(scope);
  }
  Status DeleteProject(const Scope& scope) override {
    Status s = inner_->DeleteProject(scope);
    jobs_.Clear();  // its jobs are gone; deletions are rare
    return s;
  }
  Result<std::vector<Project>> ListProjects(const std::string& org_id) override {
    return inner_->ListProjects(org_id);
  }
  Result<int64_t> ResealSecrets() override { return inner_->ResealSecrets(); }
  Result<WebhookEndpoint> CreateWebhook(WebhookEndpoint endpoint) override {
    return inner_->CreateWebhook(std::move(endpoint));
  }
  Result<WebhookEndpoint> GetWebhook(const std::string& endpoint_id) override {
    return inner_->GetWebhook(endpoint_id);
  }
  Result<std::vector<WebhookEndpoint>> ListWebhooks(const std::string& project_id) override {
    return inner_->ListWebhooks(project_id);
  }
  Status DeleteWebhook(const std::string& endpoint_id) override {
    return inner_->DeleteWebhook(endpoint_id);
  }
  Result<WebhookEndpoint> EnableWebhook(const std::string& endpoint_id) override {
    return inner_->EnableWebhook(endpoint_id);
  }
  Result<WebhookEndpoint> RotateWebhookSecret(const std::string& endpoint_id,
                                              const std::string& secret) override {
    return inner_->RotateWebhookSecret(endpoint_id, secret);
  }
  Result<std::vector<WebhookDelivery>> ListWebhookDeliveries(const std::string& endpoint_id,
                                                             int limit) override {
    return inner_->ListWebhookDeliveries(endpoint_id, limit);
  }
  Result<std::optional<ClaimedDelivery>> ClaimWebhookDelivery(
      const std::string& worker_id, std::chrono::milliseconds lease) override {
    return inner_->ClaimWebhookDelivery(worker_id, lease);
  }
  Result<DeliveryRecorded> FinishWebhookDelivery(int64_t delivery_id, const std::string& worker_id,
                                                 const DeliveryAttempt& attempt,
                                                 std::chrono::milliseconds give_up_after) override {
    return inner_->FinishWebhookDelivery(delivery_id, worker_id, attempt, give_up_after);
  }
  Result<Job> CreateJob(const Scope& scope, const NewJob& job) override {
    return inner_->CreateJob(scope, job);
  }
  Result<IdempotentWrite> CreateJobWithKey(const Scope& scope, const NewJob& job,
                                           const IdempotentRequest& request) override {
    return inner_->CreateJobWithKey(scope, job, request);
  }
  Result<JobPage> ListJobs(const Scope& scope, const JobQuery& query) override {
    return inner_->ListJobs(scope, query);
  }
  using Store::ListMessages;
  Result<MessagePage> ListMessages(const Scope& scope, const std::string& job_id,
                                   const MessageQuery& query) override {
    return inner_->ListMessages(scope, job_id, query);
  }
  Result<LeaseState> RenewLease(int64_t turn_id, const std::string& worker_id,
                                std::chrono::milliseconds lease) override {
    return inner_->RenewLease(turn_id, worker_id, lease);
  }
  std::vector<Result<LeaseState>> RenewLeases(const std::vector<HeldLease>& leases,
                                              std::chrono::milliseconds lease) override {
    return inner_->RenewLeases(leases, lease);
  }
  Result<LeaseState> RecordStep(int64_t turn_id, const std::string& worker_id, int index,
                                const TranscriptStep& step) override {
    return inner_->RecordStep(turn_id, worker_id, index,
                              step);  // its job is forgotten as announced
  }
  Result<std::vector<JobEvent>> ListEvents(const Scope& scope, const std::string& job_id,
                                           int64_t after_sequence, int limit) override {
    return inner_->ListEvents(scope, job_id, after_sequence, limit);
  }
  Status ReleaseTurn(int64_t turn_id, const std::string& worker_id) override {
    return inner_->ReleaseTurn(turn_id, worker_id);
  }
  Result<ContextRepository> AddContextRepository(ContextRepository repo) override {
    return inner_->AddContextRepository(std::move(repo));
  }
  Result<std::vector<ContextRepository>> ListContextRepositories(
      const std::string& project_id) override {
    return inner_->ListContextRepositories(project_id);
  }
  Status RemoveContextRepository(const std::string& project_id, const std::string& name) override {
    return inner_->RemoveContextRepository(project_id, name);
  }
  Result<Workflow> CreateWorkflow(Workflow workflow) override {
    return inner_->CreateWorkflow(std::move(workflow));
  }
  Result<Workflow> GetWorkflow(const std::string& workflow_id) override {
    return inner_->GetWorkflow(workflow_id);
  }
  Result<std::vector<Workflow>> ListWorkflows(const std::string& project_id) override {
    return inner_->ListWorkflows(project_id);
  }
  Result<std::vector<Workflow>> ListWorkflowsByTrigger(TriggerKind kind, int limit) override {
    return inner_->ListWorkflowsByTrigger(kind, limit);
  }
  Result<Workflow> UpdateWorkflow(const Workflow& workflow) override {
    return inner_->UpdateWorkflow(workflow);
  }
  Status DeleteWorkflow(const std::string& workflow_id) override {
    return inner_->DeleteWorkflow(workflow_id);
  }
  Status SyncFileWorkflows(const std::string& project_id, const std::string& commit,
                           std::vector<Workflow> files) override {
    return inner_->SyncFileWorkflows(project_id, commit, std::move(files));
  }
  // A run's job is new, as CreateJob's is: nothing cached changes.
  Result<WorkflowRunStart> StartWorkflowRun(const WorkflowRunRequest& request) override {
    return inner_->StartWorkflowRun(request);
  }
  Result<std::vector<WorkflowRun>> ListStartableQueuedRuns(int limit) override {
    return inner_->ListStartableQueuedRuns(limit);
  }
  Result<WorkflowRunStart> StartQueuedWorkflowRun(int64_t run_id,
                                                  const std::string& prompt) override {
    return inner_->StartQueuedWorkflowRun(run_id, prompt);
  }
  Result<std::vector<WorkflowRun>> ListWorkflowRuns(const std::string& workflow_id,
                                                    int limit) override {
    return inner_->ListWorkflowRuns(workflow_id, limit);
  }
  Result<std::optional<std::string>> GetWatchedHead(const std::string& project_id,
                                                    const std::string& watch) override {
    return inner_->GetWatchedHead(project_id, watch);
  }
  Status SetWatchedHead(const std::string& project_id, const std::string& watch,
                        const std::string& head) override {
    return inner_->SetWatchedHead(project_id, watch, head);
  }
  Result<bool> RecordForgeEvent(ForgeEvent event) override {
    return inner_->RecordForgeEvent(std::move(event));
  }
  Result<std::vector<ForgeEvent>> ListPendingForgeEvents(int limit) override {
    return inner_->ListPendingForgeEvents(limit);
  }
  Status FinishForgeEvent(int64_t id, const std::string& outcome) override {
    return inner_->FinishForgeEvent(id, outcome);
  }
  Result<LocalPullRequest> GetPullRequestByNumber(const std::string& project_id,
                                                  int64_t number) override {
    return inner_->GetPullRequestByNumber(project_id, number);
  }
  // Publishing: the job changes (its prState, its branch).
  Status SetPullRequestState(const std::string& job_id, const std::string& state) override {
    Status s = inner_->SetPullRequestState(job_id, state);
    jobs_.Erase(job_id);
    return s;
  }
  Status SetJobBranch(const std::string& job_id, const std::string& branch) override {
    Status s = inner_->SetJobBranch(job_id, branch);
    jobs_.Erase(job_id);
    return s;
  }
  Result<std::vector<Job>> ListJobsWithOpenPullRequests(int limit) override {
    return inner_->ListJobsWithOpenPullRequests(limit);
  }
  Result<Job> FindJobByBranch(const std::string& project_id, const std::string& branch) override {
    return inner_->FindJobByBranch(project_id, branch);
  }
  Result<Job> FindJobByPullRequestLink(const std::string& project_id,
                                       const std::string& pr_link) override {
    return inner_->FindJobByPullRequestLink(project_id, pr_link);
  }
  Status AddCommentReply(const CommentReply& reply) override {
    return inner_->AddCommentReply(reply);
  }
  Result<std::vector<CommentReply>> ListDueCommentReplies(int limit) override {
    return inner_->ListDueCommentReplies(limit);
  }
  Status FinishCommentReply(int64_t id) override { return inner_->FinishCommentReply(id); }
  Status RetryCommentReply(int64_t id, std::chrono::milliseconds delay) override {
    return inner_->RetryCommentReply(id, delay);
  }
  Status Ping() override { return inner_->Ping(); }
  bool AnnouncesChanges() const override { return inner_->AnnouncesChanges(); }
  void Watch(StoreWatcher watcher) override { inner_->Watch(std::move(watcher)); }
  void TakeQueuedTurns(TurnTaker taker) override { inner_->TakeQueuedTurns(std::move(taker)); }

 private:
  struct ScopedJob {
    std::string org_id;
    Job job;
  };

  std::atomic<bool> hearing_{true};  // false: the inner store's announcements stopped
  TtlCache<ApiKey> keys_;
  TtlCache<ActiveSession> sessions_;  // by token hash
  TtlCache<ScopedJob> jobs_;
  // Last: destroyed first, so the inner store's listener (which calls into the
  // caches above) has stopped before they go.
  std::unique_ptr<Store> inner_;
};

}  // namespace

std::unique_ptr<Store> NewCachedStore(std::unique_ptr<Store> inner, CacheOptions options) {
  return std::make_unique<CachedStore>(std::move(inner), options);
}

}  // namespace docwright
