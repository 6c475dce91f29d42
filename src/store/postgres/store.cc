// The PostgreSQL Store (store/postgres_store.h): transactions on a pool of
// connections, under row locks taken in one order; NOTIFY on the writes other
// nodes act on.
#include <thread>
#include <utility>
#include <vector>

#include "core/crash_point.h"
#include "core/ids.h"
#include "core/time.h"
#include "store/common.h"
#include "store/postgres/connection.h"
#include "store/postgres/listener.h"
#include "store/postgres/schema.h"
#include "store/postgres/statements.h"
#include "store/postgres_store.h"

namespace docwright {
namespace {

using namespace postgres;      // NOLINT: this file is the PostgreSQL store
using namespace store_common;  // NOLINT: the row readers and rules both stores share

// A transaction that fails on a transient error before its COMMIT is run again
// this many times in all, waiting 50 ms, then 200 ms.
constexpr int kAttempts = 3;

class PostgresStore final : public Store {
 public:
  PostgresStore(std::string url, ConnectOptions connect, PostgresOptions options,
                std::unique_ptr<Listener> listener)
      : pool_(std::move(url), connect, options.max_connections, std::chrono::seconds(10)),
        listener_(std::move(listener)) {}

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
      auto r = c.Exec(kUpdateOrg, {V(org.id), V(org.name), V(org.max_active)});
      if (!r.ok()) return r.status();
      if (r->affected() == 0) return Status::NotFound("organisation not found");
      return Notify(c, "t");  // a raised cap may let turns run
    });
  }

  Result<std::vector<Org>> ListOrgs() override {
    return Read<std::vector<Org>>([&](Connection& c) -> Result<std::vector<Org>> {
      auto r = c.Exec(kSelectOrgs, {});
      if (!r.ok()) return r.status();
      std::vector<Org> out;
      while (r->Next()) out.push_back(ReadOrg(*r));
      return out;
    });
  }

  Result<Job> FindJob(const std::string& org_id, const std::string& job_id) override {
    return Read<Job>([&](Connection& c) -> Result<Job> {
      auto r = c.Exec(kSelectJobInOrg, {V(job_id), V(org_id)});
      if (!r.ok()) return r.status();
      if (r->Next()) return ReadJob(*r);
      return Status::NotFound("job not found");
    });
  }

  Result<Org> GetOrg(const std::string& org_id) override {
    return Read<Org>([&](Connection& c) -> Result<Org> {
      auto r = c.Exec(kSelectOrg, {V(org_id)});
      if (!r.ok()) return r.status();
      if (r->Next()) return ReadOrg(*r);
      return Status::NotFound("organisation not found");
    });
  }

  Status CreateApiKey(const ApiKey& k) override {
    return Write([&](Connection& c) -> Status {
      Status s = OrgExists(c, k.org_id);
      if (!s.ok()) return s;
      return Run(c, kInsertKey,
                 {V(k.id), V(k.org_id), V(k.name), V(k.prefix), V(k.secret_hash), V(k.created_at)});
    });
  }

  Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) override {
    return Read<std::vector<ApiKey>>([&](Connection& c) -> Result<std::vector<ApiKey>> {
      auto r = c.Exec(kSelectKeys, {V(org_id)});
      if (!r.ok()) return r.status();
      std::vector<ApiKey> out;
      while (r->Next()) out.push_back(ReadKey(*r));
      return out;
    });
  }

  Status RevokeApiKey(const std::string& key_id) override {
    return Write([&](Connection& c) -> Status {
      auto r = c.Exec(kRevokeKey, {V(key_id), V(NowMillis())});
      if (!r.ok()) return r.status();
      if (r->affected() == 0) return Status::NotFound("API key not found");
      return Notify(c, "k");
    });
  }

  Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) override {
    return Read<ApiKey>([&](Connection& c) -> Result<ApiKey> {
      auto r = c.Exec(kSelectKeyByHash, {V(secret_hash)});
      if (!r.ok()) return r.status();
      if (r->Next()) return ReadKey(*r);
      return Status::NotFound("invalid or revoked API key");
    });
  }

  // --- Projects ---

  Result<Project> CreateProject(Project p) override {
    p.id = NewId();
    p.created_at = NowMillis();
    Status s = Write([&](Connection& c) -> Status {
      Status e = OrgExists(c, p.org_id);
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
      auto r = c.Exec(
          kUpdateProject,
          {V(p.id), V(p.repository), V(p.base_ref), V(forge), V(p.forge_api_url), V(p.forge_token),
           V(p.model), V(p.rate_limit_per_hour), V(p.ssh_key_path), V(p.ssh_known_hosts_path),
           V(JoinLines(p.models)), V(JoinLines(p.write_paths)), V(p.max_active)});
      if (!r.ok()) return r.status();
      if (r->affected() == 0) return Status::NotFound("project not found");
      return Notify(c, "t");  // a raised cap may let turns run
    });
  }

  Result<Project> GetProject(const Scope& scope) override {
    return Read<Project>([&](Connection& c) { return LoadProject(c, scope); });
  }

  Result<std::vector<Project>> ListProjects(const std::string& org_id) override {
    return Read<std::vector<Project>>([&](Connection& c) -> Result<std::vector<Project>> {
      auto r = c.Exec(kSelectProjects, {V(org_id)});
      if (!r.ok()) return r.status();
      std::vector<Project> out;
      while (r->Next()) out.push_back(ReadProject(*r));
      return out;
    });
  }

  Result<Project> ArchiveProject(const Scope& scope) override {
    std::optional<Project> archived;
    Status s = Write([&](Connection& c) -> Status {
      auto now = One(c, kNow, {});
      if (!now.ok()) return now.status();
      auto r = c.Exec(kArchiveProject, {V(scope.project_id), V(scope.org_id), V(*now)});
      if (!r.ok()) return r.status();
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
      // Taken first, as every writer of the project's jobs takes it: no job is
      // created or made active while the count below holds.
      if (Status locked = Run(c, kLockProject, {V(project->id)}); !locked.ok()) return locked;
      auto active = One(c, kCountActiveJobs, {V(project->id)});
      if (!active.ok()) return active.status();
      if (*active > 0) return ProjectHasActiveJobs(*active);
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
      Status allowed = CheckRequestedModel(*project, nj.requested_model, nj.default_model);
      if (!allowed.ok()) return allowed;
      // The project's lock makes the rate limit's count and the insert one step,
      // and an archive that commits meanwhile is seen.
      Status locked = LockProjectForJobs(c, project->id);
      if (!locked.ok()) return locked;
      auto now = One(c, kNow, {});  // the window is on one clock for every node
      if (!now.ok()) return now.status();
      Status admit = Admit(c, *project, *now);
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
      j.created_at = j.updated_at = *now;
      Status w = Run(c, kInsertJob,
                     {V(j.id), V(j.project_id), V(j.repository), V(j.ref), V(j.model),
                      V(int64_t{j.draft}), V(*now), V(nj.requested_model)});
      if (w.ok())
        w = Run(c, kInsertMessage, {V(j.id), V(1), V(j.project_id), V(nj.prompt), V(*now)});
      if (w.ok()) w = Run(c, kInsertTurn, {V(j.id), V(1)});
      if (w.ok()) w = Notify(c, "t");
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
      auto r = c.Exec(kListJobs, {V(scope.project_id), V(status), V(query.after_id),
                                  V(int64_t{query.limit} + 1)});
      if (!r.ok()) return r.status();
      JobPage page;
      while (r->Next()) page.jobs.push_back(ReadJob(*r));
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
      auto project = LoadProject(c, scope);
      if (!project.ok()) return project.status();
      Status locked = LockProjectForJobs(c, project->id);
      if (locked.ok()) locked = Run(c, kLockJob, {V(job_id)});
      if (!locked.ok()) return locked;
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      auto next = StatusAfterFollowUp(job->status);
      if (!next.ok()) return next.status();
      Status allowed =
          CheckRequestedModel(*project, message.requested_model, message.default_model);
      if (!allowed.ok()) return allowed;
      auto clock = One(c, kNow, {});
      if (!clock.ok()) return clock.status();
      UnixMillis now = *clock;
      Status admit = Admit(c, *project, now);
      if (!admit.ok()) return admit;
      auto seq = One(c, kSelectJobSeq, {V(job_id)});
      if (!seq.ok()) return seq.status();
      if (*seq > kMaxMessagesPerJob) {
        return Status::Conflict("this job has reached its limit of " +
                                std::to_string(kMaxMessagesPerJob) +
                                " messages; start a new job to go on");
      }
      auto queued = One(c, kCountQueuedTurns, {V(job_id)});
      if (!queued.ok()) return queued.status();
      if (*queued >= kMaxQueuedFollowUps) {
        return Status::RateLimited(std::to_string(*queued) +
                                       " follow-ups are already waiting for this job; send "
                                       "more once they have run",
                                   30);
      }
      Status w = Run(c, kJobFollowUp, {V(job_id), V(now), V(message.requested_model)});
      if (w.ok())
        w = Run(c, kInsertMessage, {V(job_id), V(*seq), V(scope.project_id), V(prompt), V(now)});
      if (w.ok()) w = Run(c, kInsertTurn, {V(job_id), V(*seq)});
      if (w.ok()) w = Notify(c, "t");
      if (w.ok()) w = Notify(c, "j:" + job_id);
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
    return Write([&](Connection& c) -> Status {
      auto r = c.Exec(kSetJobModel, {V(job_id), V(model)});
      if (!r.ok()) return r.status();
      if (r->affected() == 0) return Status();
      return Notify(c, "j:" + job_id);  // other nodes' caches forget the job
    });
  }

  Result<Job> StopJob(const Scope& scope, const std::string& job_id) override {
    std::optional<Job> found;
    Status s = Write([&](Connection& c) -> Status {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      if (Status locked = Run(c, kLockJob, {V(job_id)}); !locked.ok()) return locked;
      if (job->status == JobStatus::kArchived) return NothingToStop(job->status);
      auto r = c.Exec(kRequestStop, {V(job_id)});
      if (!r.ok()) return r.status();
      if (r->affected() == 0) return NothingToStop(job->status);
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
      // The project's lock too: a local pull request being opened for the branch
      // (UpsertPullRequest) either comes first, and is closed here, or sees the
      // job archived.
      Status locked = Run(c, kLockProject, {V(scope.project_id)});
      if (locked.ok()) locked = Run(c, kLockJob, {V(job_id)});
      if (!locked.ok()) return locked;
      job = LoadJob(c, scope, job_id);  // as of the lock
      if (!job.ok()) return job.status();
      if (job->status != JobStatus::kArchived) {
        UnixMillis now = NowMillis();
        Status w = Run(c, kJobArchive, {V(job_id), V(now)});
        if (w.ok()) w = Run(c, kArchivePullRequest, {V(scope.project_id), V(job->ref), V(now)});
        if (w.ok()) w = Run(c, kCancelOpenTurns, {V(job_id), V(now)});
        if (w.ok()) w = Notify(c, "a:" + job_id);
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
      auto r =
          c.Exec(kSelectMessagesPage, {V(job_id), V(query.after_seq), V(int64_t{query.limit} + 1)});
      if (!r.ok()) return r.status();
      MessagePage page;
      while (r->Next()) page.messages.push_back(ReadMessage(*r));
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
      auto r = c.Exec(kSelectSteps, {V(job_id), V(from_seq), V(to_seq)});
      if (!r.ok()) return r.status();
      Steps out;
      while (r->Next()) out.emplace_back(static_cast<int>(r->Int("seq")), ReadStep(*r));
      return out;
    });
  }

  Result<TokenUsage> JobUsage(const Scope& scope, const std::string& job_id) override {
    return Read<TokenUsage>([&](Connection& c) -> Result<TokenUsage> {
      auto job = LoadJob(c, scope, job_id);
      if (!job.ok()) return job.status();
      auto r = c.Exec(kJobUsage, {V(job_id)});
      if (!r.ok()) return r.status();
      if (!r->Next()) return Status::Internal("no usage row");
      return TokenUsage{r->Int(0), r->Int(1)};
    });
  }

  // --- Turns ---

  Result<std::optional<TurnInput>> ClaimTurn(
      const std::string& worker_id, std::chrono::milliseconds lease, int max_attempts,
      const std::vector<std::string>& held_projects) override {
    const std::string held = HeldProjectsJson(held_projects);
    // Look before taking the claim lock: idle workers poll, and a poll that finds
    // nothing must not queue behind claims.
    auto any = Read<bool>([&](Connection& c) -> Result<bool> {
      auto r = c.Exec(kFindRunnable, {V(held)});
      if (!r.ok()) return r.status();
      return r->size() > 0;
    });
    if (!any.ok()) return any.status();
    if (!*any) return std::optional<TurnInput>();

    std::optional<TurnInput> claimed;
    Status s = Write([&](Connection& c) -> Status {
      claimed.reset();
      Status locked = Run(c, kLeaseOnlyCommit, {});
      if (locked.ok()) locked = Run(c, kLockClaims, {});
      if (!locked.ok()) return locked;
      // Turns that exhausted their attempts are failed on the way; bounded so one
      // call cannot loop for long.
      for (int round = 0; round < 64; ++round) {
        UnixMillis now = NowMillis();
        auto r = c.Exec(kClaimRunnable, {V(held)});
        if (!r.ok()) return r.status();
        if (!r->Next()) return Status();
        int64_t turn_id = r->Int("id");
        std::string job_id = r->Text("job_id");
        int64_t seq = r->Int("seq");
        int64_t attempts = r->Int("attempts");
        const bool stop_requested = r->Int("stop_requested") != 0;
        if (r->Text("state") == "running" && attempts >= max_attempts) {
          std::string error = InterruptedError(attempts);
          // Giving up on a turn fails its job: that is flushed as any write is.
          Status w = Run(c, kDurableCommit, {});
          if (w.ok()) w = Run(c, kFailTurn, {V(turn_id), V(error), V(now)});
          if (w.ok())
            w = MoveJobAfterTurn(c, job_id, seq, TurnOutcome{.succeeded = false, .error = error},
                                 now);
          if (!w.ok()) return w;
          continue;
        }
        Status w = Run(c, kClaimTurn, {V(turn_id), V(worker_id), V(lease.count()), V(now)});
        if (!w.ok()) return w;
        TurnInput ct;
        ct.turn_id = turn_id;
        ct.attempt = static_cast<int>(attempts + 1);
        ct.stop_requested = stop_requested;
        auto job = LoadJobById(c, job_id);
        if (!job.ok()) return job.status();
        ct.job = std::move(*job);
        {
          auto p = c.Exec(kSelectProjectById, {V(ct.job.project_id)});
          if (!p.ok()) return p.status();
          if (!p->Next()) return Status::Internal("project vanished");
          ct.project = ReadProject(*p);
        }
        {
          auto m = c.Exec(kSelectMessagesUpTo, {V(job_id), V(seq), V(kMaxHistoryMessages)});
          if (!m.ok()) return m.status();
          while (m->Next()) ct.history.push_back(ReadMessage(*m));
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
    // One statement, one round trip: a node renews every running turn's lease in
    // turn, and PostgreSQL flushes concurrent commits together.
    return Read<LeaseState>([&](Connection& c) -> Result<LeaseState> {
      auto r = c.Exec(kRenewLease, {V(turn_id), V(worker_id), V(lease.count())});
      if (!r.ok()) return r.status();
      if (r->Next()) return r->Int(0) != 0 ? LeaseState::kStopRequested : LeaseState::kHeld;
      return WhyNotHeld(c, turn_id);
    });
  }

  Result<LeaseState> FinishTurn(int64_t turn_id, const std::string& worker_id,
                                const TurnOutcome& outcome) override {
    std::optional<LeaseState> result;
    Status s = Write([&](Connection& c) -> Status {
      std::string job_id;
      {
        auto r = c.Exec(kSelectTurn, {V(turn_id)});
        if (!r.ok()) return r.status();
        if (!r->Next()) return Status::NotFound("turn not found");
        job_id = r->Text("job_id");
      }
      Status locked = Run(c, kLockJob, {V(job_id)});
      if (!locked.ok()) return locked;
      std::string state, owner;
      int64_t seq = 0;
      {
        auto r = c.Exec(kLockTurn, {V(turn_id)});
        if (!r.ok()) return r.status();
        if (!r->Next()) return Status::NotFound("turn not found");
        seq = r->Int("seq");
        state = r->Text("state");
        owner = r->Text("lease_owner");
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
                {V(job_id), V(seq), V(static_cast<int64_t>(i + 1)), V(StepKindName(step.kind)),
                 V(step.text), V(step.tool), V(step.arguments), V(step.result),
                 V(int64_t{step.is_error})});
      }
      if (w.ok()) CrashPoint("store.turn-recording");
      if (w.ok()) w = MoveJobAfterTurn(c, job_id, seq, outcome, now);
      if (w.ok()) w = Notify(c, "t");  // the job's next turn, or a turn a cap held back
      if (!w.ok()) return w;
      result = LeaseState::kHeld;
      return Status();
    });
    if (!s.ok()) return s;
    return *result;
  }

  Status ReleaseTurn(int64_t turn_id, const std::string& worker_id) override {
    return Write([&](Connection& c) {
      Status s = Run(c, kReleaseTurn, {V(turn_id), V(worker_id)});
      return s.ok() ? Notify(c, "t") : s;
    });
  }

  // --- Pull requests of the local forge ---

  Result<LocalPullRequest> UpsertPullRequest(const LocalPullRequest& in) override {
    LocalPullRequest pr;
    Status s = Write([&](Connection& c) -> Status {
      pr = in;
      // One writer per project: the number is the next of the project's, and
      // the branch has one pull request.
      Status locked = Run(c, kLockProject, {V(pr.project_id)});
      if (!locked.ok()) return locked;
      std::optional<LocalPullRequest> existing;
      {
        auto r = c.Exec(kSelectPullRequestByHead, {V(pr.project_id), V(pr.head)});
        if (!r.ok()) return r.status();
        if (r->Next()) existing = ReadPullRequest(*r);
      }
      UnixMillis now = NowMillis();
      pr.updated_at = now;
      // A turn that ends after its job was archived (its worker had not heard yet)
      // must not publish the description the archive took down.
      {
        auto r = c.Exec(kJobOfBranchArchived, {V(pr.project_id), V(pr.head)});
        if (!r.ok()) return r.status();
        if (r->size() > 0) {
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
      auto number = One(c, kNextPullRequestNumber, {V(pr.project_id)});
      if (!number.ok()) return number.status();
      pr.number = *number;
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
      auto r = c.Exec(kSelectPullRequest, {V(id)});
      if (!r.ok()) return r.status();
      if (r->Next()) return ReadPullRequest(*r);
      return Status::NotFound("pull request not found");
    });
  }

  Status Ping() override {
    return Read<bool>([&](Connection& c) -> Result<bool> {
             auto r = c.Exec("SELECT 1", {});
             if (!r.ok()) return r.status();
             return true;
           })
        .status();
  }

  bool AnnouncesChanges() const override { return true; }
  void Watch(StoreWatcher watcher) override { listener_->Add(std::move(watcher)); }

 private:
  static Status Run(Connection& c, const char* sql, std::initializer_list<Value> params) {
    return c.Exec(sql, params).status();
  }

  // The first column of the first row of a statement that returns one.
  // Takes the project's lock, as every writer of its jobs does; ProjectArchived
  // if it is archived as of the lock (an archive is an update of the row, so it
  // waits for the lock or is seen).
  static Status LockProjectForJobs(Connection& c, const std::string& project_id) {
    auto r = c.Exec(kLockProject, {V(project_id)});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status::NotFound("project not found");
    return r->IsNull(0) ? Status() : ProjectArchived();
  }

  static Result<int64_t> One(Connection& c, const char* sql, std::initializer_list<Value> params) {
    auto r = c.Exec(sql, params);
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status::Internal("the statement returned no row");
    return r->Int(0);
  }

  static Status Notify(Connection& c, const std::string& payload) {
    return Run(c, kNotify, {V(payload)});
  }

  static Status OrgExists(Connection& c, const std::string& org_id) {
    auto r = c.Exec(kSelectOrg, {V(org_id)});
    if (!r.ok()) return r.status();
    if (r->size() > 0) return Status();
    return Status::NotFound("organisation not found");
  }

  static Result<Project> LoadProject(Connection& c, const Scope& scope) {
    auto r = c.Exec(kSelectProject, {V(scope.project_id), V(scope.org_id)});
    if (!r.ok()) return r.status();
    if (r->Next()) return ReadProject(*r);
    return Status::NotFound("project not found");
  }

  static Result<Job> LoadJob(Connection& c, const Scope& scope, const std::string& job_id) {
    {
      auto r = c.Exec(kSelectJob, {V(job_id), V(scope.project_id), V(scope.org_id)});
      if (!r.ok()) return r.status();
      if (r->Next()) return ReadJob(*r);
    }
    // Say which of the two is missing; both are invisible across organisations.
    auto project = LoadProject(c, scope);
    if (!project.ok()) return project.status();
    return Status::NotFound("job not found");
  }

  static Result<Job> LoadJobById(Connection& c, const std::string& job_id) {
    auto r = c.Exec(kSelectJobById, {V(job_id)});
    if (!r.ok()) return r.status();
    if (r->Next()) return ReadJob(*r);
    return Status::NotFound("job not found");
  }

  // The sliding-window rate limit, as the SQLite store's; the caller holds the
  // project's lock.
  static Status Admit(Connection& c, const Project& p, UnixMillis now) {
    int64_t since = now - kRateWindowMillis;
    auto count = One(c, kCountRecentMessages, {V(p.id), V(since)});
    if (!count.ok()) return count.status();
    if (*count < p.rate_limit_per_hour) return Status();
    auto r = c.Exec(kNthRecentMessage, {V(p.id), V(since), V(*count - p.rate_limit_per_hour)});
    if (!r.ok()) return r.status();
    std::optional<UnixMillis> nth;
    if (r->Next()) nth = r->Int(0);
    return RateVerdict(p, *count, nth, now);
  }

  static Status MoveJobAfterTurn(Connection& c, const std::string& job_id, int64_t seq,
                                 const TurnOutcome& outcome, UnixMillis now) {
    auto job = LoadJobById(c, job_id);
    if (!job.ok()) return job.status();
    auto more = One(c, kMoreTurnsAfter, {V(job_id), V(seq)});
    if (!more.ok()) return more.status();
    JobAfterTurn after = AfterTurn(*job, outcome, *more > 0);
    Status w = Run(c, kJobAfterTurn,
                   {V(job_id), V(after.status), V(outcome.pr_link), V(outcome.summary),
                    V(after.error), V(now)});
    return w.ok() ? Notify(c, "j:" + job_id) : w;
  }

  static Result<LeaseState> WhyNotHeld(Connection& c, int64_t turn_id) {
    auto r = c.Exec(kSelectTurn, {V(turn_id)});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status::NotFound("turn not found");
    return r->Text("state") == "cancelled" ? LeaseState::kCancelled : LeaseState::kLost;
  }

  // Runs `fn` in a transaction, retrying on a transient failure before COMMIT
  // (see postgres_store.h). `fn` may run more than once: it must set what it
  // returns afresh each time.
  template <typename Fn>
  Status Write(Fn&& fn) {
    Status last;
    for (int attempt = 1; attempt <= kAttempts; ++attempt) {
      if (attempt > 1) Backoff(attempt);
      auto conn = pool_.Acquire();
      if (!conn.ok()) {
        last = conn.status();
        continue;
      }
      Connection& c = **conn;
      Status s = c.ExecScript("BEGIN");
      if (s.ok()) s = fn(c);
      if (!s.ok()) {
        if (c.healthy()) c.ExecScript("ROLLBACK");
        if (s.code() != Code::kUnavailable) return s;
        if (!c.healthy()) pool_.DropIdle();
        last = s;
        continue;
      }
      s = c.Commit();
      if (s.ok()) return s;
      if (!c.healthy()) pool_.DropIdle();
      return Status::Unavailable(
          "the database connection failed while committing; the change may or may not have been "
          "made (" +
          s.message() + ")");
    }
    return last;
  }

  // Runs `fn` on a pooled connection, one statement at a time (each sees the
  // database as of its start); retried as Write is.
  template <typename T, typename Fn>
  Result<T> Read(Fn&& fn) {
    Status last;
    for (int attempt = 1; attempt <= kAttempts; ++attempt) {
      if (attempt > 1) Backoff(attempt);
      auto conn = pool_.Acquire();
      if (!conn.ok()) {
        last = conn.status();
        continue;
      }
      Result<T> result = fn(**conn);
      if (result.ok() || result.status().code() != Code::kUnavailable) return result;
      if (!(*conn)->healthy()) pool_.DropIdle();
      last = result.status();
    }
    return last;
  }

  static void Backoff(int attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(attempt == 2 ? 50 : 200));
  }

  Pool pool_;
  std::unique_ptr<Listener> listener_;
};

}  // namespace

Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& url, PostgresOptions options) {
  if (options.max_connections < 1) return Status::InvalidArgument("no database connections");
  ConnectOptions connect;
  {
    auto c = Connection::Open(url, connect);
    if (!c.ok()) return c.status();
    Status s = postgres::Migrate(**c);
    if (!s.ok()) return s;
  }
  auto listener = Listener::Start(url, connect);
  if (!listener.ok()) return listener.status();
  return std::unique_ptr<Store>(
      std::make_unique<PostgresStore>(url, connect, options, std::move(*listener)));
}

}  // namespace docwright
