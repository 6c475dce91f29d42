// The SQLite Store (store/sqlite_store.h): writes in transactions on one
// connection under a mutex, reads on a pool of connections.
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <utility>
#include <vector>

#include "core/crash_point.h"
#include "core/ids.h"
#include "core/time.h"
#include "store/common.h"
#include "store/sqlite/connection.h"
#include "store/sqlite/schema.h"
#include "store/sqlite/statements.h"
#include "store/sqlite_store.h"

namespace docwright {
namespace {

using namespace sqlite;        // NOLINT: this file is the SQLite store
using namespace store_common;  // NOLINT: the row readers and rules both stores share

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(std::string path, std::unique_ptr<Connection> writer)
      : path_(std::move(path)), writer_(std::move(writer)) {}

  Status Migrate() {
    std::lock_guard lock(write_mu_);
    return sqlite::Migrate(*writer_);
  }

  // --- Organisations and keys ---

  Result<Org> CreateOrg(const std::string& name) override {
    Org org{.id = NewId(), .name = name, .created_at = NowMillis()};
    Status s = Write([&](Connection& c) {
      return Run(c, kInsertOrg, {V(org.id), V(org.name), V(org.created_at), V(org.max_active)});
    });
    if (!s.ok()) return s;
    return org;
  }

  Status UpdateOrg(const Org& org) override {
    return Write([&](Connection& c) -> Status {
      Status w = Run(c, kUpdateOrg, {V(org.id), V(org.name), V(org.max_active)});
      if (!w.ok()) return w;
      if (c.Changes() == 0) return Status::NotFound("organisation not found");
      return Status();
    });
  }

  // --- Pull requests of the local forge ---

  Result<LocalPullRequest> UpsertPullRequest(const LocalPullRequest& in) override {
    LocalPullRequest pr = in;
    Status s = Write([&](Connection& c) -> Status {
      std::optional<LocalPullRequest> existing;
      {
        Query q(c.db(), Prepared(c, kSelectPullRequestByHead), {V(pr.project_id), V(pr.head)});
        if (q.Next()) existing = ReadPullRequest(q);
        if (!q.status().ok()) return q.status();
      }
      UnixMillis now = NowMillis();
      pr.updated_at = now;
      // A turn that ends after its job was archived (its worker had not heard yet)
      // must not publish the description the archive took down.
      {
        Query q(c.db(), Prepared(c, kJobOfBranchArchived), {V(pr.project_id), V(pr.head)});
        bool archived = q.Next();
        if (!q.status().ok()) return q.status();
        if (archived) {
          if (existing) {
            pr = *existing;
            return Status();
          }
          pr.body.clear();
          pr.diff.clear();
          pr.archived_at = now;
        }
      }
      if (existing) {
        pr.id = existing->id;
        pr.number = existing->number;
        pr.created_at = existing->created_at;
        return Run(c, kUpdatePullRequest,
                   {V(pr.id), V(pr.base), V(pr.title), V(pr.body), V(pr.diff), V(int64_t{pr.draft}),
                    V(now)});
      }
      {
        Query q(c.db(), Prepared(c, kNextPullRequestNumber), {V(pr.project_id)});
        if (!q.Next())
          return q.status().ok() ? Status::Internal("no pull request number") : q.status();
        pr.number = q.Int(0);
      }
      pr.id = RandomBase62(kPullRequestIdLength);
      pr.created_at = now;
      Status w = Run(c, kInsertPullRequest,
                     {V(pr.id), V(pr.project_id), V(pr.number), V(pr.head), V(pr.base), V(pr.title),
                      V(pr.body), V(pr.diff), V(int64_t{pr.draft}), V(now), V(pr.archived_at)});
      if (w.ok()) CrashPoint("local-pr.recording");  // inserted, not committed
      return w;
    });
    if (!s.ok()) return s;
    return pr;
  }

  Result<LocalPullRequest> GetPullRequest(const std::string& id) override {
    return Read<LocalPullRequest>([&](Connection& c) -> Result<LocalPullRequest> {
      Query q(c.db(), Prepared(c, kSelectPullRequest), {V(id)});
      if (q.Next()) return ReadPullRequest(q);
      if (!q.status().ok()) return q.status();
      return Status::NotFound("pull request not found");
    });
  }

  Result<std::vector<Org>> ListOrgs() override {
    return Read<std::vector<Org>>([&](Connection& c) -> Result<std::vector<Org>> {
      std::vector<Org> out;
      Query q(c.db(), Prepared(c, kSelectOrgs), {});
      while (q.Next()) out.push_back(ReadOrg(q));
      if (!q.status().ok()) return q.status();
      return out;
    });
  }

  Result<Job> FindJob(const std::string& org_id, const std::string& job_id) override {
    return Read<Job>([&](Connection& c) -> Result<Job> {
      Query q(c.db(), Prepared(c, kSelectJobInOrg), {V(job_id), V(org_id)});
      if (q.Next()) return ReadJob(q);
      if (!q.status().ok()) return q.status();
      return Status::NotFound("job not found");
    });
  }

  Result<Org> GetOrg(const std::string& org_id) override {
    return Read<Org>([&](Connection& c) -> Result<Org> {
      Query q(c.db(), Prepared(c, kSelectOrg), {V(org_id)});
      if (q.Next()) return ReadOrg(q);
      if (!q.status().ok()) return q.status();
      return Status::NotFound("organisation not found");
    });
  }

  Status CreateApiKey(const ApiKey& k) override {
    return Write([&](Connection& c) -> Status {
      Status s = Exists(c, kSelectOrg, k.org_id);
      if (!s.ok()) return s;
      return Run(c, kInsertKey,
                 {V(k.id), V(k.org_id), V(k.name), V(k.prefix), V(k.secret_hash), V(k.created_at)});
    });
  }

  Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) override {
    return Read<std::vector<ApiKey>>([&](Connection& c) -> Result<std::vector<ApiKey>> {
      std::vector<ApiKey> out;
      Query q(c.db(), Prepared(c, kSelectKeys), {V(org_id)});
      while (q.Next()) out.push_back(ReadKey(q));
      if (!q.status().ok()) return q.status();
      return out;
    });
  }

  Status RevokeApiKey(const std::string& key_id) override {
    return Write([&](Connection& c) -> Status {
      Status s = Run(c, kRevokeKey, {V(key_id), V(NowMillis())});
      if (!s.ok()) return s;
      if (c.Changes() == 0) return Status::NotFound("API key not found");
      return Status();
    });
  }

  Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) override {
    return Read<ApiKey>([&](Connection& c) -> Result<ApiKey> {
      Query q(c.db(), Prepared(c, kSelectKeyByHash), {V(secret_hash)});
      if (q.Next()) return ReadKey(q);
      if (!q.status().ok()) return q.status();
      return Status::NotFound("invalid or revoked API key");
    });
  }

  // --- Projects ---

  Result<Project> CreateProject(Project p) override {
    p.id = NewId();
    p.created_at = NowMillis();
    Status s = Write([&](Connection& c) -> Status {
      Status e = Exists(c, kSelectOrg, p.org_id);
      if (!e.ok()) return e;
      std::string forge(ToString(p.forge));
      return Run(c, kInsertProject,
                 {V(p.id), V(p.org_id), V(p.repository), V(p.base_ref), V(forge),
                  V(p.forge_api_url), V(p.forge_token), V(p.model), V(p.rate_limit_per_hour),
                  V(p.created_at), V(p.ssh_key_path), V(p.ssh_known_hosts_path),
                  V(JoinLines(p.models)), V(JoinLines(p.write_paths)), V(p.max_active)});
    });
    if (!s.ok()) return s;
    return p;
  }

  Status UpdateProject(const Project& p) override {
    return Write([&](Connection& c) -> Status {
      std::string forge(ToString(p.forge));
      Status w = Run(
          c, kUpdateProject,
          {V(p.id), V(p.repository), V(p.base_ref), V(forge), V(p.forge_api_url), V(p.forge_token),
           V(p.model), V(p.rate_limit_per_hour), V(p.ssh_key_path), V(p.ssh_known_hosts_path),
           V(JoinLines(p.models)), V(JoinLines(p.write_paths)), V(p.max_active)});
      if (!w.ok()) return w;
      if (c.Changes() == 0) return Status::NotFound("project not found");
      return Status();
    });
  }

  Result<Project> GetProject(const Scope& scope) override {
    return Read<Project>([&](Connection& c) { return LoadProject(c, scope); });
  }

  Result<std::vector<Project>> ListProjects(const std::string& org_id) override {
    return Read<std::vector<Project>>([&](Connection& c) -> Result<std::vector<Project>> {
      std::vector<Project> out;
      Query q(c.db(), Prepared(c, kSelectProjects), {V(org_id)});
      while (q.Next()) out.push_back(ReadProject(q));
      if (!q.status().ok()) return q.status();
      return out;
    });
  }

  Result<Project> ArchiveProject(const Scope& scope) override {
    std::optional<Project> archived;
    Status s = Write([&](Connection& c) -> Status {
      Status w = Run(c, kArchiveProject, {V(scope.project_id), V(scope.org_id), V(NowMillis())});
      if (!w.ok()) return w;
      auto project = LoadProject(c, scope);
      if (!project.ok()) return project.status();
      archived = std::move(*project);
      return Status();
    });
    if (!s.ok()) return s;
    return std::move(*archived);
  }

  Status DeleteProject(const Scope& scope) override {
    return Write([&](Connection& c) -> Status {
      auto project = LoadProject(c, scope);
      if (!project.ok()) return project.status();
      {
        Query q(c.db(), Prepared(c, kCountActiveJobs), {V(project->id)});
        if (!q.Next()) return q.status().ok() ? Status::Internal("cannot count jobs") : q.status();
        if (q.Int(0) > 0) return ProjectHasActiveJobs(q.Int(0));
      }
      for (const char* sql : {kDeleteProjectSteps, kDeleteProjectTurns, kDeleteProjectMessages,
                              kDeleteProjectJobs, kDeleteProjectPullRequests, kDeleteProject}) {
        if (Status w = Run(c, sql, {V(project->id)}); !w.ok()) return w;
      }
      return Status();
    });
  }

  // --- Jobs ---

  Result<Job> CreateJob(const Scope& scope, const NewJob& nj) override {
    std::optional<Job> created;
    Status s = Write([&](Connection& c) -> Status {
      auto project = LoadProject(c, scope);
      if (!project.ok()) return project.status();
      if (project->archived_at) return ProjectArchived();
      Status allowed = CheckRequestedModel(*project, nj.requested_model, nj.default_model);
      if (!allowed.ok()) return allowed;
      UnixMillis now = NowMillis();
      Status admit = Admit(c, *project, now);
      if (!admit.ok()) return admit;
      Job j;
      j.id = NewId();
      j.project_id = project->id;
      j.status = JobStatus::kActive;
      j.repository = project->repository;
      j.ref = BranchNameFor(j.id, nj.prompt);
      j.model = ResolveModel(nj.requested_model, project->model, nj.default_model);
      j.requested_model = nj.requested_model;
      j.draft = nj.draft;
      j.created_at = j.updated_at = now;
      Status w = Run(c, kInsertJob,
                     {V(j.id), V(j.project_id), V(j.repository), V(j.ref), V(j.model),
                      V(int64_t{j.draft}), V(now), V(nj.requested_model)});
      if (w.ok())
        w = Run(c, kInsertMessage, {V(j.id), V(1), V(j.project_id), V(nj.prompt), V(now)});
      if (w.ok()) w = Run(c, kInsertTurn, {V(j.id), V(1)});
      if (w.ok()) created = std::move(j);
      return w;
    });
    if (!s.ok()) return s;
    return std::move(*created);
  }

  Result<Job> GetJob(const Scope& scope, const std::string& job_id) override {
    return Read<Job>([&](Connection& c) { return LoadJob(c, scope, job_id); });
  }

  Result<JobPage> ListJobs(const Scope& scope, const JobQuery& query) override {
    return Read<JobPage>([&](Connection& c) -> Result<JobPage> {
      auto project = LoadProject(c, scope);
      if (!project.ok()) return project.status();
      std::optional<std::string> status;
      if (query.status) status = std::string(ToString(*query.status));
      JobPage page;
      Query q(c.db(), Prepared(c, kListJobs),
              {V(scope.project_id), V(status), V(query.after_id), V(int64_t{query.limit} + 1)});
      while (q.Next()) page.jobs.push_back(ReadJob(q));
      if (!q.status().ok()) return q.status();
      if (static_cast<int>(page.jobs.size()) > query.limit) {
        page.jobs.pop_back();
        page.next_after_id = page.jobs.back().id;
      }
      return page;
    });
  }

  using Store::AddMessage;
  Result<Job> AddMessage(const Scope& scope, const std::string& job_id,
                         const NewMessage& message) override {
    const std::string& prompt = message.prompt;
    std::optional<Job> updated;
    Status s = Write([&](Connection& c) -> Status {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      auto next = StatusAfterFollowUp(job->status);
      if (!next.ok()) return next.status();
      auto project = LoadProject(c, scope);
      if (!project.ok()) return project.status();
      if (project->archived_at) return ProjectArchived();
      Status allowed =
          CheckRequestedModel(*project, message.requested_model, message.default_model);
      if (!allowed.ok()) return allowed;
      UnixMillis now = NowMillis();
      Status admit = Admit(c, *project, now);
      if (!admit.ok()) return admit;
      int64_t seq = 0;
      {
        Query q(c.db(), Prepared(c, kSelectJobSeq), {V(job_id)});
        if (!q.Next()) return q.status().ok() ? Status::Internal("job vanished") : q.status();
        seq = q.Int(0);
      }
      if (seq > kMaxMessagesPerJob) {
        return Status::Conflict("this job has reached its limit of " +
                                std::to_string(kMaxMessagesPerJob) +
                                " messages; start a new job to go on");
      }
      {
        Query q(c.db(), Prepared(c, kCountQueuedTurns), {V(job_id)});
        if (!q.Next()) return q.status().ok() ? Status::Internal("cannot count turns") : q.status();
        if (q.Int(0) >= kMaxQueuedFollowUps) {
          return Status::RateLimited(std::to_string(q.Int(0)) +
                                         " follow-ups are already waiting for this job; send "
                                         "more once they have run",
                                     30);
        }
      }
      Status w = Run(c, kJobFollowUp, {V(job_id), V(now), V(message.requested_model)});
      if (w.ok())
        w = Run(c, kInsertMessage, {V(job_id), V(seq), V(scope.project_id), V(prompt), V(now)});
      if (w.ok()) w = Run(c, kInsertTurn, {V(job_id), V(seq)});
      if (!w.ok()) return w;
      auto reloaded = LoadJob(c, scope, job_id);
      if (!reloaded.ok()) return reloaded.status();
      updated = std::move(*reloaded);
      return Status();
    });
    if (!s.ok()) return s;
    return std::move(*updated);
  }

  Status SetJobModel(const std::string& job_id, const std::string& model) override {
    return Write([&](Connection& c) { return Run(c, kSetJobModel, {V(job_id), V(model)}); });
  }

  Result<Job> StopJob(const Scope& scope, const std::string& job_id) override {
    std::optional<Job> found;
    Status s = Write([&](Connection& c) -> Status {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      if (job->status == JobStatus::kArchived) return NothingToStop(job->status);
      if (Status w = Run(c, kRequestStop, {V(job_id)}); !w.ok()) return w;
      if (c.Changes() == 0) return NothingToStop(job->status);
      found = std::move(*job);
      return Status();
    });
    if (!s.ok()) return s;
    return std::move(*found);
  }

  Result<Job> ArchiveJob(const Scope& scope, const std::string& job_id) override {
    std::optional<Job> updated;
    Status s = Write([&](Connection& c) -> Status {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      if (job->status != JobStatus::kArchived) {
        UnixMillis now = NowMillis();
        Status w = Run(c, kJobArchive, {V(job_id), V(now)});
        if (w.ok()) w = Run(c, kArchivePullRequest, {V(scope.project_id), V(job->ref), V(now)});
        if (w.ok()) w = Run(c, kCancelOpenTurns, {V(job_id), V(now)});
        if (!w.ok()) return w;
        job = LoadJob(c, scope, job_id);
        if (!job.ok()) return job.status();
      }
      updated = std::move(*job);
      return Status();
    });
    if (!s.ok()) return s;
    return std::move(*updated);
  }

  using Store::ListMessages;
  Result<MessagePage> ListMessages(const Scope& scope, const std::string& job_id,
                                   const MessageQuery& query) override {
    return Read<MessagePage>([&](Connection& c) -> Result<MessagePage> {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      MessagePage page;
      Query q(c.db(), Prepared(c, kSelectMessagesPage),
              {V(job_id), V(query.after_seq), V(int64_t{query.limit} + 1)});
      while (q.Next()) page.messages.push_back(ReadMessage(q));
      if (!q.status().ok()) return q.status();
      if (static_cast<int64_t>(page.messages.size()) > query.limit) {
        page.messages.pop_back();
        page.next_after_seq = page.messages.back().seq;
      }
      return page;
    });
  }

  Result<std::vector<std::pair<int, TranscriptStep>>> ListSteps(const Scope& scope,
                                                                const std::string& job_id,
                                                                int from_seq, int to_seq) override {
    using Steps = std::vector<std::pair<int, TranscriptStep>>;
    return Read<Steps>([&](Connection& c) -> Result<Steps> {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      Steps out;
      Query q(c.db(), Prepared(c, kSelectSteps), {V(job_id), V(from_seq), V(to_seq)});
      while (q.Next()) out.emplace_back(static_cast<int>(q.Int("seq")), ReadStep(q));
      if (!q.status().ok()) return q.status();
      return out;
    });
  }

  Result<TokenUsage> JobUsage(const Scope& scope, const std::string& job_id) override {
    return Read<TokenUsage>([&](Connection& c) -> Result<TokenUsage> {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      Query q(c.db(), Prepared(c, kJobUsage), {V(job_id)});
      if (!q.Next()) return q.status();
      return TokenUsage{q.Int(0), q.Int(1)};
    });
  }

  // --- Turns ---

  Result<std::optional<TurnInput>> ClaimTurn(
      const std::string& worker_id, std::chrono::milliseconds lease, int max_attempts,
      const std::vector<std::string>& held_projects) override {
    const std::string held = HeldProjectsJson(held_projects);
    // Look before taking the write lock: idle workers poll, and a poll that finds
    // nothing must not serialise behind writers.
    auto any = Read<bool>([&](Connection& c) -> Result<bool> {
      Query q(c.db(), Prepared(c, kFindRunnable), {V(NowMillis()), V(held)});
      bool found = q.Next();
      if (!q.status().ok()) return q.status();
      return found;
    });
    if (!any.ok()) return any.status();
    if (!*any) return std::optional<TurnInput>();

    std::optional<TurnInput> claimed;
    Status s = Write(Flush::kLeaseOnly, [&](Connection& c) -> Status {
      // Turns that exhausted their attempts are failed on the way; bounded so one
      // call cannot loop for long.
      for (int round = 0; round < 64; ++round) {
        UnixMillis now = NowMillis();
        int64_t turn_id = 0;
        {
          Query q(c.db(), Prepared(c, kFindRunnable), {V(now), V(held)});
          if (!q.Next()) return q.status();
          turn_id = q.Int(0);
        }
        std::string job_id, state;
        int64_t seq = 0, attempts = 0;
        bool stop_requested = false;
        {
          Query q(c.db(), Prepared(c, kSelectTurn), {V(turn_id)});
          if (!q.Next()) return q.status().ok() ? Status::Internal("turn vanished") : q.status();
          job_id = q.Text(1);
          seq = q.Int(2);
          state = q.Text(3);
          attempts = q.Int(4);
          stop_requested = q.Int(6) != 0;
        }
        if (state == "running" && attempts >= max_attempts) {
          std::string error = InterruptedError(attempts);
          Status w = Run(c, kFailTurn, {V(turn_id), V(error), V(now)});
          if (w.ok())
            w = MoveJobAfterTurn(c, job_id, seq, TurnOutcome{.succeeded = false, .error = error},
                                 now);
          if (!w.ok()) return w;
          continue;
        }
        Status w = Run(c, kClaimTurn, {V(turn_id), V(worker_id), V(now + lease.count()), V(now)});
        if (!w.ok()) return w;
        TurnInput ct;
        ct.turn_id = turn_id;
        ct.attempt = static_cast<int>(attempts + 1);
        ct.stop_requested = stop_requested;
        auto job = LoadJobById(c, job_id);
        if (!job.ok()) return job.status();
        ct.job = std::move(*job);
        {
          Query q(c.db(), Prepared(c, kSelectProjectById), {V(ct.job.project_id)});
          if (!q.Next()) return q.status().ok() ? Status::Internal("project vanished") : q.status();
          ct.project = ReadProject(q);
        }
        {
          Query q(c.db(), Prepared(c, kSelectMessagesUpTo),
                  {V(job_id), V(seq), V(kMaxHistoryMessages)});
          while (q.Next()) ct.history.push_back(ReadMessage(q));
          if (!q.status().ok()) return q.status();
        }
        if (ct.history.empty() || ct.history.back().seq != seq) {
          return Status::Internal("message of turn " + std::to_string(turn_id) + " is missing");
        }
        ct.message = std::move(ct.history.back());
        ct.history.pop_back();
        claimed = std::move(ct);
        return Status();
      }
      return Status();
    });
    if (!s.ok()) return s;
    return claimed;
  }

  Result<LeaseState> RenewLease(int64_t turn_id, const std::string& worker_id,
                                std::chrono::milliseconds lease) override {
    std::optional<LeaseState> result;
    Status s = Write(Flush::kLeaseOnly, [&](Connection& c) -> Status {
      {
        Query q(c.db(), Prepared(c, kRenewLease),
                {V(turn_id), V(worker_id), V(NowMillis() + lease.count())});
        if (q.Next()) {
          result = q.Int(0) != 0 ? LeaseState::kStopRequested : LeaseState::kHeld;
          return Status();
        }
        if (!q.status().ok()) return q.status();
      }
      auto lost = WhyNotHeld(c, turn_id);
      if (!lost.ok()) return lost.status();
      result = *lost;
      return Status();
    });
    if (!s.ok()) return s;
    return *result;
  }

  Result<LeaseState> FinishTurn(int64_t turn_id, const std::string& worker_id,
                                const TurnOutcome& outcome) override {
    std::optional<LeaseState> result;
    Status s = Write([&](Connection& c) -> Status {
      std::string job_id, state, owner;
      int64_t seq = 0;
      {
        Query q(c.db(), Prepared(c, kSelectTurn), {V(turn_id)});
        if (!q.Next()) return q.status().ok() ? Status::NotFound("turn not found") : q.status();
        job_id = q.Text(1);
        seq = q.Int(2);
        state = q.Text(3);
        owner = q.Text(5);
      }
      if (state != "running" || owner != worker_id) {
        result = state == "cancelled" ? LeaseState::kCancelled : LeaseState::kLost;
        return Status();
      }
      UnixMillis now = NowMillis();
      std::string ended(ToString(outcome.succeeded ? TurnState::kSucceeded : TurnState::kFailed));
      Status w = Run(c, kFinishTurn,
                     {V(turn_id), V(ended), V(outcome.summary), V(outcome.error), V(now),
                      V(outcome.usage.input_tokens), V(outcome.usage.output_tokens)});
      if (w.ok()) w = Run(c, kDeleteSteps, {V(job_id), V(seq)});
      for (size_t i = 0; w.ok() && i < outcome.steps.size(); ++i) {
        const TranscriptStep& step = outcome.steps[i];
        w = Run(c, kInsertStep,
                {V(job_id), V(seq), V(static_cast<int64_t>(i + 1)),
                 V(std::string(StepKindName(step.kind))), V(step.text), V(step.tool),
                 V(step.arguments), V(step.result), V(int64_t{step.is_error})});
      }
      if (w.ok()) CrashPoint("store.turn-recording");
      if (w.ok()) w = MoveJobAfterTurn(c, job_id, seq, outcome, now);
      if (!w.ok()) return w;
      result = LeaseState::kHeld;
      return Status();
    });
    if (!s.ok()) return s;
    return *result;
  }

  Status ReleaseTurn(int64_t turn_id, const std::string& worker_id) override {
    return Write([&](Connection& c) { return Run(c, kReleaseTurn, {V(turn_id), V(worker_id)}); });
  }

  Status Ping() override {
    return Read<bool>([&](Connection& c) -> Result<bool> {
             Query q(c.db(), Prepared(c, "SELECT 1"), {});
             q.Next();
             if (!q.status().ok()) return q.status();
             return true;
           })
        .status();
  }

 private:
  // Statements are those of statements.h; one that fails to compile is a bug that
  // the store tests catch. Query turns a null statement into an error.
  static sqlite3_stmt* Prepared(Connection& c, const char* sql) { return c.Prepare(sql); }

  static Status Run(Connection& c, const char* sql, std::initializer_list<Value> params) {
    sqlite3_stmt* stmt = c.Prepare(sql);
    if (!stmt) return Status::Internal(std::string("bad statement: ") + sqlite3_errmsg(c.db()));
    Query q(c.db(), stmt, params);
    return q.Exec();
  }

  static Status Exists(Connection& c, const char* sql, const std::string& id) {
    Query q(c.db(), c.Prepare(sql), {V(id)});
    if (q.Next()) return Status();
    if (!q.status().ok()) return q.status();
    return Status::NotFound("organisation not found");
  }

  static Result<Project> LoadProject(Connection& c, const Scope& scope) {
    Query q(c.db(), Prepared(c, kSelectProject), {V(scope.project_id), V(scope.org_id)});
    if (q.Next()) return ReadProject(q);
    if (!q.status().ok()) return q.status();
    return Status::NotFound("project not found");
  }

  static Result<Job> LoadJob(Connection& c, const Scope& scope, const std::string& job_id) {
    {
      Query q(c.db(), Prepared(c, kSelectJob), {V(job_id), V(scope.project_id), V(scope.org_id)});
      if (q.Next()) return ReadJob(q);
      if (!q.status().ok()) return q.status();
    }
    // Say which of the two is missing; both are invisible across organisations.
    auto project = LoadProject(c, scope);
    if (!project.ok()) return project.status();
    return Status::NotFound("job not found");
  }

  static Result<Job> LoadJobById(Connection& c, const std::string& job_id) {
    Query q(c.db(), Prepared(c, kSelectJobById), {V(job_id)});
    if (q.Next()) return ReadJob(q);
    if (!q.status().ok()) return q.status();
    return Status::NotFound("job not found");
  }

  // The sliding-window rate limit: the project's messages of the last hour are the
  // record of what it was admitted, so no separate counter can drift from them.
  static Status Admit(Connection& c, const Project& p, UnixMillis now) {
    int64_t since = now - kRateWindowMillis;
    int64_t count = 0;
    {
      Query q(c.db(), Prepared(c, kCountRecentMessages), {V(p.id), V(since)});
      if (q.Next()) count = q.Int(0);
      if (!q.status().ok()) return q.status();
    }
    if (count < p.rate_limit_per_hour) return Status();
    std::optional<UnixMillis> nth;
    {
      Query q(c.db(), Prepared(c, kNthRecentMessage),
              {V(p.id), V(since), V(count - p.rate_limit_per_hour)});
      if (q.Next()) nth = q.Int(0);
      if (!q.status().ok()) return q.status();
    }
    return RateVerdict(p, count, nth, now);
  }

  static Status MoveJobAfterTurn(Connection& c, const std::string& job_id, int64_t seq,
                                 const TurnOutcome& outcome, UnixMillis now) {
    auto job = LoadJobById(c, job_id);
    if (!job.ok()) return job.status();
    bool more = false;
    {
      Query q(c.db(), Prepared(c, kMoreTurnsAfter), {V(job_id), V(seq)});
      if (q.Next()) more = q.Int(0) != 0;
      if (!q.status().ok()) return q.status();
    }
    JobAfterTurn after = AfterTurn(*job, outcome, more);
    return Run(c, kJobAfterTurn,
               {V(job_id), V(after.status), V(outcome.pr_link), V(outcome.summary), V(after.error),
                V(now)});
  }

  static Result<LeaseState> WhyNotHeld(Connection& c, int64_t turn_id) {
    Query q(c.db(), Prepared(c, kSelectTurn), {V(turn_id)});
    if (!q.Next()) return q.status().ok() ? Status::NotFound("turn not found") : q.status();
    return q.Text(3) == "cancelled" ? LeaseState::kCancelled : LeaseState::kLost;
  }

  // How a write transaction reaches the disk. kDurable: its COMMIT returns once
  // it is on the disk (synchronous=FULL). kLeaseOnly, for claims and lease
  // renewals: the commit is not flushed by itself (synchronous=NORMAL) but by
  // the next durable one, which flushes the log with everything before it. A
  // power loss may undo such a write: a claim or renewal undone puts the turn
  // back as if its lease had expired, which is what a crash does anyway. Turns
  // are claimed and renewed a few times per job, so at a thousand turns in
  // flight this keeps the disk's flush rate for what clients were promised.
  enum class Flush { kDurable, kLeaseOnly };

  template <typename Fn>
  Status Write(Fn&& fn) {
    return Write(Flush::kDurable, std::forward<Fn>(fn));
  }

  // Runs `fn` in a write transaction on the writer connection. Rolls back if `fn`
  // fails.
  template <typename Fn>
  Status Write(Flush flush, Fn&& fn) {
    std::lock_guard lock(write_mu_);
    Connection& c = *writer_;
    if (flush == Flush::kLeaseOnly) {
      Status normal = c.ExecScript("PRAGMA synchronous=NORMAL");
      if (!normal.ok()) return normal;
    }
    struct RestoreFull {
      Connection& c;
      bool active;
      ~RestoreFull() {
        if (active) c.ExecScript("PRAGMA synchronous=FULL");
      }
    } restore{c, flush == Flush::kLeaseOnly};
    Status s = c.ExecScript("BEGIN IMMEDIATE");
    if (!s.ok()) return Status::Unavailable(s.message());
    s = fn(c);
    if (!s.ok()) {
      c.ExecScript("ROLLBACK");
      return s;
    }
    s = c.ExecScript("COMMIT");
    if (!s.ok()) c.ExecScript("ROLLBACK");
    return s;
  }

  // Runs `fn` on a pooled reader connection: at most kMaxReaders are open (each
  // holds a file descriptor and a page cache, and a node may run 2000 workers);
  // a read waits up to 10 s for one to be free.
  template <typename T, typename Fn>
  Result<T> Read(Fn&& fn) {
    std::unique_ptr<Connection> conn;
    {
      std::unique_lock lock(pool_mu_);
      bool free = reader_freed_.wait_for(lock, std::chrono::seconds(10), [&] {
        return !readers_.empty() || open_readers_ < kMaxReaders;
      });
      if (!free) {
        return Status::Unavailable("all " + std::to_string(kMaxReaders) +
                                   " database readers of this process are busy");
      }
      if (!readers_.empty()) {
        conn = std::move(readers_.back());
        readers_.pop_back();
      } else {
        ++open_readers_;
      }
    }
    if (!conn) {
      auto opened = Connection::Open(path_);
      if (!opened.ok()) {
        std::lock_guard lock(pool_mu_);
        --open_readers_;
        reader_freed_.notify_one();
        return opened.status();
      }
      conn = std::move(*opened);
    }
    Result<T> result = fn(*conn);
    {
      std::lock_guard lock(pool_mu_);
      readers_.push_back(std::move(conn));
    }
    reader_freed_.notify_one();
    return result;
  }

  static constexpr int kMaxReaders = 32;

  std::string path_;
  std::mutex write_mu_;
  std::unique_ptr<Connection> writer_;
  std::mutex pool_mu_;
  std::condition_variable reader_freed_;
  int open_readers_ = 0;  // idle in readers_, or in use
  std::vector<std::unique_ptr<Connection>> readers_;
};

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path) {
  // Create the file owner-only before SQLite does: it holds secrets.
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Unavailable("cannot open database " + path);
  ::close(fd);
  auto writer = Connection::Open(path);
  if (!writer.ok()) return writer.status();
  auto store = std::make_unique<SqliteStore>(path, std::move(*writer));
  Status s = store->Migrate();
  if (!s.ok()) return s;
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace docwright
