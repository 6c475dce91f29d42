// A Store that forwards every call to another and counts the calls, by method
// name: for tests of how many round trips a piece of work costs the store (a
// method of the SQL store is one transaction, ClaimTurn two (one without its
// look first), RenewLeases one per
// kMaxLeasesPerRenewal leases). Thread-safe; the inner store must outlive it.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "store/store.h"

namespace docwright::testing {

class CountingStore final : public Store {
 public:
  explicit CountingStore(Store& inner) : inner_(inner) {}

  // How many times `method` was called since the start or the last Reset.
  int Calls(const std::string& method) const {
    std::lock_guard lock(mu_);
    auto it = calls_.find(method);
    return it == calls_.end() ? 0 : it->second;
  }
  // Every method called, with its count.
  std::map<std::string, int> AllCalls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  // The number of leases of each RenewLeases call, in order.
  std::vector<size_t> RenewalBatches() const {
    std::lock_guard lock(mu_);
    return batches_;
  }
  void Reset() {
    std::lock_guard lock(mu_);
    calls_.clear();
    batches_.clear();
  }

  Result<Org> CreateOrg(const std::string& name) override {
    Count("CreateOrg");
    return inner_.CreateOrg(name);
  }
  Result<Org> GetOrg(const std::string& org_id) override {
    Count("GetOrg");
    return inner_.GetOrg(org_id);
  }
  Result<std::vector<Org>> ListOrgs() override {
    Count("ListOrgs");
    return inner_.ListOrgs();
  }
  Status UpdateOrg(const Org& org) override {
    Count("UpdateOrg");
    return inner_.UpdateOrg(org);
  }
  Status CreateApiKey(const ApiKey& key) override {
    Count("CreateApiKey");
    return inner_.CreateApiKey(key);
  }
  Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) override {
    Count("ListApiKeys");
    return inner_.ListApiKeys(org_id);
  }
  Status RevokeApiKey(const std::string& key_id) override {
    Count("RevokeApiKey");
    return inner_.RevokeApiKey(key_id);
  }
  Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) override {
    Count("FindActiveApiKey");
    return inner_.FindActiveApiKey(secret_hash);
  }
  Status RecordKeyUses(const std::vector<std::pair<std::string, UnixMillis>>& uses) override {
    Count("RecordKeyUses");
    return inner_.RecordKeyUses(uses);
  }
  Status CreateSession(const Session& session) override {
    Count("CreateSession");
    return inner_.CreateSession(session);
  }
  Result<ActiveSession> FindSession(const std::string& token_hash, UnixMillis now) override {
    Count("FindSession");
    return inner_.FindSession(token_hash, now);
  }
  Status DeleteSession(const std::string& token_hash) override {
    Count("DeleteSession");
    return inner_.DeleteSession(token_hash);
  }
  Result<Project> CreateProject(Project project) override {
    Count("CreateProject");
    return inner_.CreateProject(std::move(project));
  }
  Result<Project> GetProject(const Scope& scope) override {
    Count("GetProject");
    return inner_.GetProject(scope);
  }
  Result<Project> GetProjectById(const std::string& project_id) override {
    Count("GetProjectById");
    return inner_.GetProjectById(project_id);
  }
  Result<std::vector<Project>> ListProjects(const std::string& org_id) override {
    Count("ListProjects");
    return inner_.ListProjects(org_id);
  }
  Result<std::vector<ProjectJobCounts>> CountJobs(const std::string& org_id) override {
    Count("CountJobs");
    return inner_.CountJobs(org_id);
  }
  Status UpdateProject(const Project& project) override {
    Count("UpdateProject");
    return inner_.UpdateProject(project);
  }
  Result<Project> ArchiveProject(const Scope& scope) override {
    Count("ArchiveProject");
    return inner_.ArchiveProject(scope);
  }
  Status DeleteProject(const Scope& scope) override {
    Count("DeleteProject");
    return inner_.DeleteProject(scope);
  }
  Result<Job> CreateJob(const Scope& scope, const NewJob& job) override {
    Count("CreateJob");
    return inner_.CreateJob(scope, job);
  }
  Result<Job> GetJob(const Scope& scope, const std::string& job_id) override {
    Count("GetJob");
    return inner_.GetJob(scope, job_id);
  }
  Result<Job> FindJob(const std::string& org_id, const std::string& job_id) override {
    Count("FindJob");
    return inner_.FindJob(org_id, job_id);
  }
  Result<JobPage> ListJobs(const Scope& scope, const JobQuery& query) override {
    Count("ListJobs");
    return inner_.ListJobs(scope, query);
  }
  using Store::AddMessage;
  Result<Job> AddMessage(const Scope& scope, const std::string& job_id,
                         const NewMessage& message) override {
    Count("AddMessage");
    return inner_.AddMessage(scope, job_id, message);
  }
  Result<IdempotentWrite> CreateJobWithKey(const Scope& scope, const NewJob& job,
                                           const IdempotentRequest& request) override {
    Count("CreateJobWithKey");
    return inner_.CreateJobWithKey(scope, job, request);
  }
  Result<IdempotentWrite> AddMessageWithKey(const Scope& scope, const std::string& job_id,
                                            const NewMessage& message,
                                            const IdempotentRequest& request) override {
    Count("AddMessageWithKey");
    return inner_.AddMessageWithKey(scope, job_id, message, request);
  }
  Status SetJobModel(const std::string& job_id, const std::string& model) override {
    Count("SetJobModel");
    return inner_.SetJobModel(job_id, model);
  }
  Result<Job> StopJob(const Scope& scope, const std::string& job_id) override {
    Count("StopJob");
    return inner_.StopJob(scope, job_id);
  }
  Result<Job> ArchiveJob(const Scope& scope, const std::string& job_id) override {
    Count("ArchiveJob");
    return inner_.ArchiveJob(scope, job_id);
  }
  using Store::ListMessages;
  Result<MessagePage> ListMessages(const Scope& scope, const std::string& job_id,
                                   const MessageQuery& query) override {
    Count("ListMessages");
    return inner_.ListMessages(scope, job_id, query);
  }
  Result<StepsPage> ListSteps(const Scope& scope, const std::string& job_id, int from_seq,
                              int to_seq, int64_t max_bytes) override {
    Count("ListSteps");
    return inner_.ListSteps(scope, job_id, from_seq, to_seq, max_bytes);
  }
  Result<std::vector<std::vector<MessageHead>>> ListMessageHeads(
      const Scope& scope, const std::vector<std::string>& job_ids, int latest,
      int prompt_chars) override {
    Count("ListMessageHeads");
    return inner_.ListMessageHeads(scope, job_ids, latest, prompt_chars);
  }
  Result<TokenUsage> JobUsage(const Scope& scope, const std::string& job_id) override {
    Count("JobUsage");
    return inner_.JobUsage(scope, job_id);
  }
  Result<std::vector<UsageRow>> ListUsage(const UsageQuery& query) override {
    Count("ListUsage");
    return inner_.ListUsage(query);
  }
  Result<BudgetSpend> SpendSince(const std::string& org_id, const std::string& project_id,
                                 UnixMillis since) override {
    Count("SpendSince");
    return inner_.SpendSince(org_id, project_id, since);
  }
  Result<std::vector<ProjectBudgetUse>> ListBudgetUse(UnixMillis since) override {
    Count("ListBudgetUse");
    return inner_.ListBudgetUse(since);
  }
  Result<QueueStats> GetQueueStats() override {
    Count("GetQueueStats");
    return inner_.GetQueueStats();
  }
  Result<std::vector<JobEvent>> ListEvents(const Scope& scope, const std::string& job_id,
                                           int64_t after_sequence, int limit) override {
    Count("ListEvents");
    return inner_.ListEvents(scope, job_id, after_sequence, limit);
  }
  Result<std::optional<TurnInput>> ClaimTurn(const std::string& worker_id,
                                             std::chrono::milliseconds lease, int max_attempts,
                                             const std::vector<std::string>& held_projects = {},
                                             bool look_first = true) override {
    Count("ClaimTurn");
    return inner_.ClaimTurn(worker_id, lease, max_attempts, held_projects, look_first);
  }
  Result<LeaseState> RenewLease(int64_t turn_id, const std::string& worker_id,
                                std::chrono::milliseconds lease) override {
    Count("RenewLease");
    return inner_.RenewLease(turn_id, worker_id, lease);
  }
  std::vector<Result<LeaseState>> RenewLeases(const std::vector<HeldLease>& leases,
                                              std::chrono::milliseconds lease) override {
    Count("RenewLeases");
    {
      std::lock_guard lock(mu_);
      batches_.push_back(leases.size());
    }
    return inner_.RenewLeases(leases, lease);
  }
  Result<LeaseState> FinishTurn(int64_t turn_id, const std::string& worker_id,
                                const TurnOutcome& outcome) override {
    Count("FinishTurn");
    return inner_.FinishTurn(turn_id, worker_id, outcome);
  }
  Result<LeaseState> RecordStep(int64_t turn_id, const std::string& worker_id, int index,
                                const TranscriptStep& step) override {
    Count("RecordStep");
    return inner_.RecordStep(turn_id, worker_id, index, step);
  }
  Status ReleaseTurn(int64_t turn_id, const std::string& worker_id) override {
    Count("ReleaseTurn");
    return inner_.ReleaseTurn(turn_id, worker_id);
  }
  Status ChargeTurnUsage(int64_t turn_id, const TokenUsage& usage, const std::string& model,
                         std::optional<int64_t> cost_micros) override {
    Count("ChargeTurnUsage");
    return inner_.ChargeTurnUsage(turn_id, usage, model, cost_micros);
  }
  Result<WebhookEndpoint> CreateWebhook(WebhookEndpoint endpoint) override {
    Count("CreateWebhook");
    return inner_.CreateWebhook(std::move(endpoint));
  }
  Result<WebhookEndpoint> GetWebhook(const std::string& endpoint_id) override {
    Count("GetWebhook");
    return inner_.GetWebhook(endpoint_id);
  }
  Result<std::vector<WebhookEndpoint>> ListWebhooks(const std::string& project_id) override {
    Count("ListWebhooks");
    return inner_.ListWebhooks(project_id);
  }
  Status DeleteWebhook(const std::string& endpoint_id) override {
    Count("DeleteWebhook");
    return inner_.DeleteWebhook(endpoint_id);
  }
  Result<WebhookEndpoint> EnableWebhook(const std::string& endpoint_id) override {
    Count("EnableWebhook");
    return inner_.EnableWebhook(endpoint_id);
  }
  Result<WebhookEndpoint> RotateWebhookSecret(const std::string& endpoint_id,
                                              const std::string& secret) override {
    Count("RotateWebhookSecret");
    return inner_.RotateWebhookSecret(endpoint_id, secret);
  }
  Result<std::vector<WebhookDelivery>> ListWebhookDeliveries(const std::string& endpoint_id,
                                                             int limit) override {
    Count("ListWebhookDeliveries");
    return inner_.ListWebhookDeliveries(endpoint_id, limit);
  }
  Result<std::optional<ClaimedDelivery>> ClaimWebhookDelivery(
      const std::string& worker_id, std::chrono::milliseconds lease) override {
    Count("ClaimWebhookDelivery");
    return inner_.ClaimWebhookDelivery(worker_id, lease);
  }
  Result<DeliveryRecorded> FinishWebhookDelivery(int64_t delivery_id, const std::string& worker_id,
                                                 const DeliveryAttempt& attempt,
                                                 std::chrono::milliseconds give_up_after) override {
    Count("FinishWebhookDelivery");
    return inner_.FinishWebhookDelivery(delivery_id, worker_id, attempt, give_up_after);
  }
  Status PutReview(const Review& review) override {
    Count("PutReview");
    return inner_.PutReview(review);
  }
  Result<Review> GetReview(const Scope& scope, const std::string& job_id) override {
    Count("GetReview");
    return inner_.GetReview(scope, job_id);
  }
  Result<Review> GetReviewByBranch(const std::string& project_id,
                                   const std::string& branch) override {
    Count("GetReviewByBranch");
    return inner_.GetReviewByBranch(project_id, branch);
  }
  Result<ContextRepository> AddContextRepository(ContextRepository repo) override {
    Count("AddContextRepository");
    return inner_.AddContextRepository(std::move(repo));
  }
  Result<std::vector<ContextRepository>> ListContextRepositories(
      const std::string& project_id) override {
    Count("ListContextRepositories");
    return inner_.ListContextRepositories(project_id);
  }
  Status RemoveContextRepository(const std::string& project_id, const std::string& name) override {
    Count("RemoveContextRepository");
    return inner_.RemoveContextRepository(project_id, name);
  }
  Result<Workflow> CreateWorkflow(Workflow workflow) override {
    Count("CreateWorkflow");
    return inner_.CreateWorkflow(std::move(workflow));
  }
  Result<Workflow> GetWorkflow(const std::string& workflow_id) override {
    Count("GetWorkflow");
    return inner_.GetWorkflow(workflow_id);
  }
  Result<std::vector<Workflow>> ListWorkflows(const std::string& project_id) override {
    Count("ListWorkflows");
    return inner_.ListWorkflows(project_id);
  }
  Result<std::vector<Workflow>> ListWorkflowsByTrigger(TriggerKind kind, int limit) override {
    Count("ListWorkflowsByTrigger");
    return inner_.ListWorkflowsByTrigger(kind, limit);
  }
  Result<Workflow> UpdateWorkflow(const Workflow& workflow) override {
    Count("UpdateWorkflow");
    return inner_.UpdateWorkflow(workflow);
  }
  Status DeleteWorkflow(const std::string& workflow_id) override {
    Count("DeleteWorkflow");
    return inner_.DeleteWorkflow(workflow_id);
  }
  Status SyncFileWorkflows(const std::string& project_id, const std::string& commit,
                           std::vector<Workflow> files) override {
    Count("SyncFileWorkflows");
    return inner_.SyncFileWorkflows(project_id, commit, std::move(files));
  }
  Result<WorkflowRunStart> StartWorkflowRun(const WorkflowRunRequest& request) override {
    Count("StartWorkflowRun");
    return inner_.StartWorkflowRun(request);
  }
  Result<std::vector<WorkflowRun>> ListStartableQueuedRuns(int limit) override {
    Count("ListStartableQueuedRuns");
    return inner_.ListStartableQueuedRuns(limit);
  }
  Result<WorkflowRunStart> StartQueuedWorkflowRun(int64_t run_id,
                                                  const std::string& prompt) override {
    Count("StartQueuedWorkflowRun");
    return inner_.StartQueuedWorkflowRun(run_id, prompt);
  }
  Result<std::vector<WorkflowRun>> ListWorkflowRuns(const std::string& workflow_id,
                                                    int limit) override {
    Count("ListWorkflowRuns");
    return inner_.ListWorkflowRuns(workflow_id, limit);
  }
  Result<std::optional<std::string>> GetWatchedHead(const std::string& project_id,
                                                    const std::string& watch) override {
    Count("GetWatchedHead");
    return inner_.GetWatchedHead(project_id, watch);
  }
  Status SetWatchedHead(const std::string& project_id, const std::string& watch,
                        const std::string& head) override {
    Count("SetWatchedHead");
    return inner_.SetWatchedHead(project_id, watch, head);
  }
  Result<bool> RecordForgeEvent(ForgeEvent event) override {
    Count("RecordForgeEvent");
    return inner_.RecordForgeEvent(std::move(event));
  }
  Result<std::vector<ForgeEvent>> ListPendingForgeEvents(int limit) override {
    Count("ListPendingForgeEvents");
    return inner_.ListPendingForgeEvents(limit);
  }
  Status FinishForgeEvent(int64_t id, const std::string& outcome) override {
    Count("FinishForgeEvent");
    return inner_.FinishForgeEvent(id, outcome);
  }
  Status SetPullRequestState(const std::string& job_id, const std::string& state) override {
    Count("SetPullRequestState");
    return inner_.SetPullRequestState(job_id, state);
  }
  Result<std::vector<Job>> ListJobsWithOpenPullRequests(int limit) override {
    Count("ListJobsWithOpenPullRequests");
    return inner_.ListJobsWithOpenPullRequests(limit);
  }
  Result<Job> FindJobByBranch(const std::string& project_id, const std::string& branch) override {
    Count("FindJobByBranch");
    return inner_.FindJobByBranch(project_id, branch);
  }
  Result<Job> FindJobByPullRequestLink(const std::string& project_id,
                                       const std::string& pr_link) override {
    Count("FindJobByPullRequestLink");
    return inner_.FindJobByPullRequestLink(project_id, pr_link);
  }
  Status SetJobBranch(const std::string& job_id, const std::string& branch) override {
    Count("SetJobBranch");
    return inner_.SetJobBranch(job_id, branch);
  }
  Status AddCommentReply(const CommentReply& reply) override {
    Count("AddCommentReply");
    return inner_.AddCommentReply(reply);
  }
  Result<std::vector<CommentReply>> ListDueCommentReplies(int limit) override {
    Count("ListDueCommentReplies");
    return inner_.ListDueCommentReplies(limit);
  }
  Status FinishCommentReply(int64_t id) override {
    Count("FinishCommentReply");
    return inner_.FinishCommentReply(id);
  }
  Status RetryCommentReply(int64_t id, std::chrono::milliseconds delay) override {
    Count("RetryCommentReply");
    return inner_.RetryCommentReply(id, delay);
  }
  Result<int64_t> ResealSecrets() override {
    Count("ResealSecrets");
    return inner_.ResealSecrets();
  }
  Status Ping() override {
    Count("Ping");
    return inner_.Ping();
  }
  Result<LocalPullRequest> UpsertPullRequest(const LocalPullRequest& pr) override {
    Count("UpsertPullRequest");
    return inner_.UpsertPullRequest(pr);
  }
  Result<LocalPullRequest> GetPullRequest(const std::string& id) override {
    Count("GetPullRequest");
    return inner_.GetPullRequest(id);
  }
  Result<LocalPullRequest> GetPullRequestByNumber(const std::string& project_id,
                                                  int64_t number) override {
    Count("GetPullRequestByNumber");
    return inner_.GetPullRequestByNumber(project_id, number);
  }
  Result<LocalPullRequest> MarkPullRequestMerged(const std::string& id,
                                                 const std::string& merge_commit,
                                                 UnixMillis merged_at) override {
    Count("MarkPullRequestMerged");
    return inner_.MarkPullRequestMerged(id, merge_commit, merged_at);
  }

  bool AnnouncesChanges() const override { return inner_.AnnouncesChanges(); }
  void Watch(StoreWatcher watcher) override { inner_.Watch(std::move(watcher)); }

 private:
  void Count(const char* method) {
    std::lock_guard lock(mu_);
    ++calls_[method];
  }

  Store& inner_;
  mutable std::mutex mu_;
  std::map<std::string, int> calls_;
  std::vector<size_t> batches_;
};

}  // namespace docwright::testing
