// A Store that passes every call to another: tests derive from it to count,
// delay or fail the calls they care about, over a real store. Every call that
// reaches the store (all but AnnouncesChanges, Watch and TakeQueuedTurns) is told to Called
// first, by its method's name.
//
// Thread-safe as the inner store is; the inner store must outlive it.
#pragma once

#include <utility>

#include "store/store.h"

namespace docwright::testing {

class ForwardingStore : public Store {
 public:
  explicit ForwardingStore(Store& inner) : inner_(&inner) {}

  using Store::AddMessage;
  using Store::ListMessages;
  Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) override {
    Called("FindActiveApiKey");
    return inner_->FindActiveApiKey(secret_hash);
  }
  Result<ActiveSession> FindSession(const std::string& token_hash, UnixMillis now) override {
    Called("FindSession");
    return inner_->FindSession(token_hash, now);
  }
  Result<Job> GetJob(const Scope& scope, const std::string& job_id) override {
    Called("GetJob");
    return inner_->GetJob(scope, job_id);
  }
  Status RevokeApiKey(const std::string& key_id) override {
    Called("RevokeApiKey");
    return inner_->RevokeApiKey(key_id);
  }
  Status DeleteSession(const std::string& token_hash) override {
    Called("DeleteSession");
    return inner_->DeleteSession(token_hash);
  }
  Result<Job> AddMessage(const Scope& scope, const std::string& job_id,
                         const NewMessage& message) override {
    Called("AddMessage");
    return inner_->AddMessage(scope, job_id, message);
  }
  Result<IdempotentWrite> AddMessageWithKey(const Scope& scope, const std::string& job_id,
                                            const NewMessage& message,
                                            const IdempotentRequest& request) override {
    Called("AddMessageWithKey");
    return inner_->AddMessageWithKey(scope, job_id, message, request);
  }
  Status SetJobModel(const std::string& job_id, const std::string& model) override {
    Called("SetJobModel");
    return inner_->SetJobModel(job_id, model);
  }
  Result<Job> StopJob(const Scope& scope, const std::string& job_id) override {
    Called("StopJob");
    return inner_->StopJob(scope, job_id);
  }
  Result<Job> ArchiveJob(const Scope& scope, const std::string& job_id) override {
    Called("ArchiveJob");
    return inner_->ArchiveJob(scope, job_id);
  }
  Result<std::optional<TurnInput>> ClaimTurn(const std::string& worker_id,
                                             std::chrono::milliseconds lease, int max_attempts,
                                             const std::vector<std::string>& held_projects = {},
                                             bool look_first = true) override {
    Called("ClaimTurn");
    return inner_->ClaimTurn(worker_id, lease, max_attempts, held_projects, look_first);
  }
  Result<LeaseState> FinishTurn(int64_t turn_id, const std::string& worker_id,
                                const TurnOutcome& outcome) override {
    Called("FinishTurn");
    return inner_->FinishTurn(turn_id, worker_id, outcome);
  }
  Status ChargeTurnUsage(int64_t turn_id, const TokenUsage& usage, const std::string& model,
                         std::optional<int64_t> cost_micros) override {
    Called("ChargeTurnUsage");
    return inner_->ChargeTurnUsage(turn_id, usage, model, cost_micros);
  }
  Result<Org> CreateOrg(const std::string& name) override {
    Called("CreateOrg");
    return inner_->CreateOrg(name);
  }
  Result<Org> GetOrg(const std::string& id) override {
    Called("GetOrg");
    return inner_->GetOrg(id);
  }
  Status UpdateOrg(const Org& org) override {
    Called("UpdateOrg");
    return inner_->UpdateOrg(org);
  }
  Result<LocalPullRequest> UpsertPullRequest(const LocalPullRequest& pr) override {
    Called("UpsertPullRequest");
    return inner_->UpsertPullRequest(pr);
  }
  Result<LocalPullRequest> GetPullRequest(const std::string& id) override {
    Called("GetPullRequest");
    return inner_->GetPullRequest(id);
  }
  Status PutReview(const Review& review) override {
    Called("PutReview");
    return inner_->PutReview(review);
  }
  Result<Review> GetReview(const Scope& scope, const std::string& job_id) override {
    Called("GetReview");
    return inner_->GetReview(scope, job_id);
  }
  Result<Review> GetReviewByBranch(const std::string& project_id,
                                   const std::string& branch) override {
    Called("GetReviewByBranch");
    return inner_->GetReviewByBranch(project_id, branch);
  }
  Result<LocalPullRequest> MarkPullRequestMerged(const std::string& id,
                                                 const std::string& merge_commit,
                                                 UnixMillis merged_at) override {
    Called("MarkPullRequestMerged");
    return inner_->MarkPullRequestMerged(id, merge_commit, merged_at);
  }
  Result<StepsPage> ListSteps(const Scope& scope, const std::string& job_id, int from_seq,
                              int to_seq, int64_t max_bytes) override {
    Called("ListSteps");
    return inner_->ListSteps(scope, job_id, from_seq, to_seq, max_bytes);
  }
  Result<std::vector<std::vector<MessageHead>>> ListMessageHeads(
      const Scope& scope, const std::vector<std::string>& job_ids, int latest,
      int prompt_chars) override {
    Called("ListMessageHeads");
    return inner_->ListMessageHeads(scope, job_ids, latest, prompt_chars);
  }
  Result<TokenUsage> JobUsage(const Scope& scope, const std::string& job_id) override {
    Called("JobUsage");
    return inner_->JobUsage(scope, job_id);
  }
  Result<std::vector<UsageRow>> ListUsage(const UsageQuery& query) override {
    Called("ListUsage");
    return inner_->ListUsage(query);
  }
  Result<BudgetSpend> SpendSince(const std::string& org_id, const std::string& project_id,
                                 UnixMillis since) override {
    Called("SpendSince");
    return inner_->SpendSince(org_id, project_id, since);
  }
  Result<std::vector<ProjectBudgetUse>> ListBudgetUse(UnixMillis since) override {
    Called("ListBudgetUse");
    return inner_->ListBudgetUse(since);
  }
  Result<QueueStats> GetQueueStats() override {
    Called("GetQueueStats");
    return inner_->GetQueueStats();
  }
  Status CreateApiKey(const ApiKey& key) override {
    Called("CreateApiKey");
    return inner_->CreateApiKey(key);
  }
  Status RecordKeyUses(const std::vector<std::pair<std::string, UnixMillis>>& uses) override {
    Called("RecordKeyUses");
    return inner_->RecordKeyUses(uses);
  }
  Status CreateSession(const Session& session) override {
    Called("CreateSession");
    return inner_->CreateSession(session);
  }
  Result<std::vector<ProjectJobCounts>> CountJobs(const std::string& org_id) override {
    Called("CountJobs");
    return inner_->CountJobs(org_id);
  }
  Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) override {
    Called("ListApiKeys");
    return inner_->ListApiKeys(org_id);
  }
  Result<Project> CreateProject(Project p) override {
    Called("CreateProject");
    return inner_->CreateProject(std::move(p));
  }
  Result<Project> GetProject(const Scope& scope) override {
    Called("GetProject");
    return inner_->GetProject(scope);
  }
  Result<Project> GetProjectById(const std::string& project_id) override {
    Called("GetProjectById");
    return inner_->GetProjectById(project_id);
  }
  Status UpdateProject(const Project& p) override {
    Called("UpdateProject");
    return inner_->UpdateProject(p);
  }
  Result<std::vector<Org>> ListOrgs() override {
    Called("ListOrgs");
    return inner_->ListOrgs();
  }
  Result<Job> FindJob(const std::string& org_id, const std::string& job_id) override {
    Called("FindJob");
    return inner_->FindJob(org_id, job_id);
  }
  Result<Project> ArchiveProject(const Scope& scope) override {
    Called("ArchiveProject");
    return inner_->ArchiveProject(scope);
  }
  Status DeleteProject(const Scope& scope) override {
    Called("DeleteProject");
    return inner_->DeleteProject(scope);
  }
  Result<std::vector<Project>> ListProjects(const std::string& org_id) override {
    Called("ListProjects");
    return inner_->ListProjects(org_id);
  }
  Result<int64_t> ResealSecrets() override {
    Called("ResealSecrets");
    return inner_->ResealSecrets();
  }
  Result<WebhookEndpoint> CreateWebhook(WebhookEndpoint endpoint) override {
    Called("CreateWebhook");
    return inner_->CreateWebhook(std::move(endpoint));
  }
  Result<WebhookEndpoint> GetWebhook(const std::string& endpoint_id) override {
    Called("GetWebhook");
    return inner_->GetWebhook(endpoint_id);
  }
  Result<std::vector<WebhookEndpoint>> ListWebhooks(const std::string& project_id) override {
    Called("ListWebhooks");
    return inner_->ListWebhooks(project_id);
  }
  Status DeleteWebhook(const std::string& endpoint_id) override {
    Called("DeleteWebhook");
    return inner_->DeleteWebhook(endpoint_id);
  }
  Result<WebhookEndpoint> EnableWebhook(const std::string& endpoint_id) override {
    Called("EnableWebhook");
    return inner_->EnableWebhook(endpoint_id);
  }
  Result<WebhookEndpoint> RotateWebhookSecret(const std::string& endpoint_id,
                                              const std::string& secret) override {
    Called("RotateWebhookSecret");
    return inner_->RotateWebhookSecret(endpoint_id, secret);
  }
  Result<std::vector<WebhookDelivery>> ListWebhookDeliveries(const std::string& endpoint_id,
                                                             int limit) override {
    Called("ListWebhookDeliveries");
    return inner_->ListWebhookDeliveries(endpoint_id, limit);
  }
  Result<std::optional<ClaimedDelivery>> ClaimWebhookDelivery(
      const std::string& worker_id, std::chrono::milliseconds lease) override {
    Called("ClaimWebhookDelivery");
    return inner_->ClaimWebhookDelivery(worker_id, lease);
  }
  Result<DeliveryRecorded> FinishWebhookDelivery(int64_t delivery_id, const std::string& worker_id,
                                                 const DeliveryAttempt& attempt,
                                                 std::chrono::milliseconds give_up_after) override {
    Called("FinishWebhookDelivery");
    return inner_->FinishWebhookDelivery(delivery_id, worker_id, attempt, give_up_after);
  }
  Result<Job> CreateJob(const Scope& scope, const NewJob& job) override {
    Called("CreateJob");
    return inner_->CreateJob(scope, job);
  }
  Result<IdempotentWrite> CreateJobWithKey(const Scope& scope, const NewJob& job,
                                           const IdempotentRequest& request) override {
    Called("CreateJobWithKey");
    return inner_->CreateJobWithKey(scope, job, request);
  }
  Result<JobPage> ListJobs(const Scope& scope, const JobQuery& query) override {
    Called("ListJobs");
    return inner_->ListJobs(scope, query);
  }
  Result<MessagePage> ListMessages(const Scope& scope, const std::string& job_id,
                                   const MessageQuery& query) override {
    Called("ListMessages");
    return inner_->ListMessages(scope, job_id, query);
  }
  Result<LeaseState> RenewLease(int64_t turn_id, const std::string& worker_id,
                                std::chrono::milliseconds lease) override {
    Called("RenewLease");
    return inner_->RenewLease(turn_id, worker_id, lease);
  }
  std::vector<Result<LeaseState>> RenewLeases(const std::vector<HeldLease>& leases,
                                              std::chrono::milliseconds lease) override {
    Called("RenewLeases");
    return inner_->RenewLeases(leases, lease);
  }
  Result<LeaseState> RecordStep(int64_t turn_id, const std::string& worker_id, int index,
                                const TranscriptStep& step) override {
    Called("RecordStep");
    return inner_->RecordStep(turn_id, worker_id, index, step);
  }
  Result<std::vector<JobEvent>> ListEvents(const Scope& scope, const std::string& job_id,
                                           int64_t after_sequence, int limit) override {
    Called("ListEvents");
    return inner_->ListEvents(scope, job_id, after_sequence, limit);
  }
  Status ReleaseTurn(int64_t turn_id, const std::string& worker_id) override {
    Called("ReleaseTurn");
    return inner_->ReleaseTurn(turn_id, worker_id);
  }
  Result<ContextRepository> AddContextRepository(ContextRepository repo) override {
    Called("AddContextRepository");
    return inner_->AddContextRepository(std::move(repo));
  }
  Result<std::vector<ContextRepository>> ListContextRepositories(
      const std::string& project_id) override {
    Called("ListContextRepositories");
    return inner_->ListContextRepositories(project_id);
  }
  Status RemoveContextRepository(const std::string& project_id, const std::string& name) override {
    Called("RemoveContextRepository");
    return inner_->RemoveContextRepository(project_id, name);
  }
  Result<Workflow> CreateWorkflow(Workflow workflow) override {
    Called("CreateWorkflow");
    return inner_->CreateWorkflow(std::move(workflow));
  }
  Result<Workflow> GetWorkflow(const std::string& workflow_id) override {
    Called("GetWorkflow");
    return inner_->GetWorkflow(workflow_id);
  }
  Result<std::vector<Workflow>> ListWorkflows(const std::string& project_id) override {
    Called("ListWorkflows");
    return inner_->ListWorkflows(project_id);
  }
  Result<std::vector<Workflow>> ListWorkflowsByTrigger(TriggerKind kind, int limit) override {
    Called("ListWorkflowsByTrigger");
    return inner_->ListWorkflowsByTrigger(kind, limit);
  }
  Result<Workflow> UpdateWorkflow(const Workflow& workflow) override {
    Called("UpdateWorkflow");
    return inner_->UpdateWorkflow(workflow);
  }
  Status DeleteWorkflow(const std::string& workflow_id) override {
    Called("DeleteWorkflow");
    return inner_->DeleteWorkflow(workflow_id);
  }
  Status SyncFileWorkflows(const std::string& project_id, const std::string& commit,
                           std::vector<Workflow> files) override {
    Called("SyncFileWorkflows");
    return inner_->SyncFileWorkflows(project_id, commit, std::move(files));
  }
  Result<WorkflowRunStart> StartWorkflowRun(const WorkflowRunRequest& request) override {
    Called("StartWorkflowRun");
    return inner_->StartWorkflowRun(request);
  }
  Result<std::vector<WorkflowRun>> ListStartableQueuedRuns(int limit) override {
    Called("ListStartableQueuedRuns");
    return inner_->ListStartableQueuedRuns(limit);
  }
  Result<WorkflowRunStart> StartQueuedWorkflowRun(int64_t run_id,
                                                  const std::string& prompt) override {
    Called("StartQueuedWorkflowRun");
    return inner_->StartQueuedWorkflowRun(run_id, prompt);
  }
  Result<std::vector<WorkflowRun>> ListWorkflowRuns(const std::string& workflow_id,
                                                    int limit) override {
    Called("ListWorkflowRuns");
    return inner_->ListWorkflowRuns(workflow_id, limit);
  }
  Result<std::optional<std::string>> GetWatchedHead(const std::string& project_id,
                                                    const std::string& watch) override {
    Called("GetWatchedHead");
    return inner_->GetWatchedHead(project_id, watch);
  }
  Status SetWatchedHead(const std::string& project_id, const std::string& watch,
                        const std::string& head) override {
    Called("SetWatchedHead");
    return inner_->SetWatchedHead(project_id, watch, head);
  }
  Result<bool> RecordForgeEvent(ForgeEvent event) override {
    Called("RecordForgeEvent");
    return inner_->RecordForgeEvent(std::move(event));
  }
  Result<std::vector<ForgeEvent>> ListPendingForgeEvents(int limit) override {
    Called("ListPendingForgeEvents");
    return inner_->ListPendingForgeEvents(limit);
  }
  Status FinishForgeEvent(int64_t id, const std::string& outcome) override {
    Called("FinishForgeEvent");
    return inner_->FinishForgeEvent(id, outcome);
  }
  Result<LocalPullRequest> GetPullRequestByNumber(const std::string& project_id,
                                                  int64_t number) override {
    Called("GetPullRequestByNumber");
    return inner_->GetPullRequestByNumber(project_id, number);
  }
  Status SetPullRequestState(const std::string& job_id, const std::string& state) override {
    Called("SetPullRequestState");
    return inner_->SetPullRequestState(job_id, state);
  }
  Status SetJobBranch(const std::string& job_id, const std::string& branch) override {
    Called("SetJobBranch");
    return inner_->SetJobBranch(job_id, branch);
  }
  Result<std::vector<Job>> ListJobsWithOpenPullRequests(int limit) override {
    Called("ListJobsWithOpenPullRequests");
    return inner_->ListJobsWithOpenPullRequests(limit);
  }
  Result<Job> FindJobByBranch(const std::string& project_id, const std::string& branch) override {
    Called("FindJobByBranch");
    return inner_->FindJobByBranch(project_id, branch);
  }
  Result<Job> FindJobByPullRequestLink(const std::string& project_id,
                                       const std::string& pr_link) override {
    Called("FindJobByPullRequestLink");
    return inner_->FindJobByPullRequestLink(project_id, pr_link);
  }
  Status AddCommentReply(const CommentReply& reply) override {
    Called("AddCommentReply");
    return inner_->AddCommentReply(reply);
  }
  Result<std::vector<CommentReply>> ListDueCommentReplies(int limit) override {
    Called("ListDueCommentReplies");
    return inner_->ListDueCommentReplies(limit);
  }
  Status FinishCommentReply(int64_t id) override {
    Called("FinishCommentReply");
    return inner_->FinishCommentReply(id);
  }
  Status RetryCommentReply(int64_t id, std::chrono::milliseconds delay) override {
    Called("RetryCommentReply");
    return inner_->RetryCommentReply(id, delay);
  }
  Status Ping() override {
    Called("Ping");
    return inner_->Ping();
  }
  bool AnnouncesChanges() const override { return inner_->AnnouncesChanges(); }
  void Watch(StoreWatcher watcher) override { inner_->Watch(std::move(watcher)); }
  void TakeQueuedTurns(TurnTaker taker) override { inner_->TakeQueuedTurns(std::move(taker)); }

 protected:
  // Before each call that reaches the store, on the caller's thread.
  virtual void Called(const char* method) const { (void)method; }

  Store* inner_;
};

}  // namespace docwright::testing
