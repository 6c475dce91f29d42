// The SQL store: jobs, their messages and the steps of their turns; each
// change writes its events (events.cc).
#include "core/ids.h"
#include "store/sql/internal.h"
#include "store/sql/statements.h"

namespace docwright::sql {

Result<Job> SqlStore::CreateJob(const Scope& scope, const NewJob& nj) {
  std::optional<Job> created;
  QueuedClaim claim(*this);
  Status s = WriteAs(
      Commit::kDurable,
      [&](Connection& c) -> Status {
        created.reset();
        auto project = LoadProject(c, scope);
        if (!project.ok()) return project.status();
        // The project's lock makes the rate limit's count and the insert one step,
        // and an archive that commits meanwhile is seen.
        Status locked = LockProjectForJobs(c, project->id);
        if (!locked.ok()) return locked;
        auto now = Now(c);  // the window is on one clock for every node
        if (!now.ok()) return now.status();
        auto job = InsertJob(c, *project, nj, *now, &claim);
        if (!job.ok()) return job.status();
        created = std::move(*job);
        return Status();
      },
      claim.Visible());
  if (!s.ok()) return s;
  AnnounceEvents(created->id);
  return std::move(*created);
}

Result<Job> SqlStore::InsertJob(Connection& c, const Project& project, const NewJob& nj,
                                UnixMillis now, QueuedClaim* claim) {
  Status allowed = CheckRequestedModel(project, nj.requested_model, nj.default_model);
  if (!allowed.ok()) return allowed;
  if (nj.ref) {
    Status free = CheckBranchIsFree(c, project, *nj.ref);
    if (!free.ok()) return free;
  }
  Status admit = Admit(c, project, now);
  if (!admit.ok()) return admit;
  Job j;
  j.id = NewId();
  if (claim) claim->Reserve(j.id);  // its worker wakes while the job is written
  j.project_id = project.id;
  j.status = JobStatus::kActive;
  j.repository = project.repository;
  j.ref = nj.ref ? *nj.ref : BranchNameFor(j.id, nj.prompt);
  j.model = ResolveModel(nj.requested_model, project.model, nj.default_model);
  j.requested_model = nj.requested_model;
  j.draft = nj.draft;
  j.created_at = j.updated_at = now;
  j.trigger = nj.trigger;
  j.workflow_id = nj.workflow_id;
  j.context = nj.context;
  j.publish = nj.publish.value_or(project.publish);
  std::optional<std::string> context;
  if (nj.context) context = JoinLines(*nj.context);
  Status w = Run(c, kInsertJob,
                 {V(j.id), V(j.project_id), V(j.repository), V(j.ref), V(j.model), V(j.draft),
                  V(now), V(nj.requested_model), V(nj.trigger), V(nj.workflow_id), V(context),
                  V(std::string(ToString(j.publish)))});
  if (w.ok()) w = Run(c, kInsertMessage, {V(j.id), V(1), V(j.project_id), V(nj.prompt), V(now)});
  if (w.ok()) w = Run(c, kInsertTurn, {V(j.id), V(1), V(j.project_id)});
  if (w.ok()) {
    w = AppendEvent(c, j.id, j.project_id, EventType::kJobCreated, JobCreatedData(j, nj.prompt),
                    now);
  }
  if (w.ok() && claim) w = claim->Claim(c, j.id, 1, now);
  // Other nodes' workers look for it, unless it was claimed here.
  if (w.ok() && !(claim && claim->claimed())) {
    c.NoteTurnQueued();  // this process's workers (WriteAs)
    w = Notify(c, "t");
  }
  if (!w.ok()) return w;
  return j;
}

Status SqlStore::CheckBranchIsFree(Connection& c, const Project& project,
                                   const std::string& branch) {
  if (branch == project.base_ref) {
    return Status::InvalidArgument("branch must not be the project's base branch (" +
                                   project.base_ref + "): a job's branch is merged into it");
  }
  // Under the project's lock: a job created meanwhile on the same branch is seen.
  auto r = c.Exec(kSelectBranchHolder, {V(project.id), V(branch)});
  if (!r.ok()) return r.status();
  if (!r->Next()) return Status();
  std::string holder = r->Text(0);
  if (r->Text(1) == "archived") {
    return Status::Conflict("branch " + branch + " belongs to the archived job " + holder +
                            ", whose pull request is closed; name another branch");
  }
  return Status::Conflict("branch " + branch + " is being worked on by the active job " + holder +
                          "; send that job a follow-up, or name another branch");
}

Result<Job> SqlStore::GetJob(const Scope& scope, const std::string& job_id) {
  return Read<Job>([&](Connection& c) { return LoadJob(c, scope, job_id); });
}

Result<Job> SqlStore::FindJob(const std::string& org_id, const std::string& job_id) {
  return ReadOne(kSelectJobInOrg, {V(job_id), V(org_id)}, &ReadJob, "job not found");
}

Result<JobPage> SqlStore::ListJobs(const Scope& scope, const JobQuery& query) {
  return Read<JobPage>([&](Connection& c) -> Result<JobPage> {
    auto project = LoadProject(c, scope);
    if (!project.ok()) return project.status();
    std::optional<std::string> status;
    if (query.status) status = std::string(ToString(*query.status));
    auto r = c.Exec(kListJobs, {V(scope.project_id), V(status), V(query.after_id),
                                V(int64_t{query.limit} + 1), V(query.offset)});
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

Result<std::vector<std::vector<MessageHead>>> SqlStore::ListMessageHeads(
    const Scope& scope, const std::vector<std::string>& job_ids, int latest, int prompt_chars) {
  using Heads = std::vector<std::vector<MessageHead>>;
  return Read<Heads>([&](Connection& c) -> Result<Heads> {
    auto project = LoadProject(c, scope);
    if (!project.ok()) return project.status();
    Heads all(job_ids.size());
    for (size_t i = 0; i < job_ids.size(); ++i) {
      auto r = c.Exec(kSelectMessageHeads, {V(job_ids[i]), V(scope.project_id), V(int64_t{latest}),
                                            V(int64_t{prompt_chars})});
      if (!r.ok()) return r.status();
      while (r->Next()) {
        all[i].push_back(
            MessageHead{.seq = static_cast<int>(r->Int(0)),
                        .prompt = r->Text(1),
                        .state = ParseTurnState(r->Text(2)).value_or(TurnState::kFailed)});
      }
    }
    return all;
  });
}

Result<Job> SqlStore::AddMessage(const Scope& scope, const std::string& job_id,
                                 const NewMessage& message) {
  std::optional<Job> updated;
  QueuedClaim claim(*this);
  Status s = WriteAs(
      Commit::kDurable,
      [&](Connection& c) -> Status {
        updated.reset();
        auto project = LoadProject(c, scope);
        if (!project.ok()) return project.status();
        Status locked = LockProjectForJobs(c, project->id);
        if (!locked.ok()) return locked;
        auto now = Now(c);
        if (!now.ok()) return now.status();
        auto job = AppendMessage(c, scope, *project, job_id, message, *now, &claim);
        if (!job.ok()) return job.status();
        updated = std::move(*job);
        return Status();
      },
      claim.Visible());
  if (!s.ok()) return s;
  AnnounceEvents(job_id);
  return std::move(*updated);
}

Result<Job> SqlStore::AppendMessage(Connection& c, const Scope& scope, const Project& project,
                                    const std::string& job_id, const NewMessage& message,
                                    UnixMillis now, QueuedClaim* claim) {
  if (Status locked = Run(c, kLockJob, {V(job_id)}); !locked.ok()) return locked;
  auto job = LoadJob(c, scope, job_id);
  if (!job.ok()) return job.status();
  auto next = StatusAfterFollowUp(job->status);
  if (!next.ok()) return next.status();
  Status allowed = CheckRequestedModel(project, message.requested_model, message.default_model);
  if (!allowed.ok()) return allowed;
  Status admit = Admit(c, project, now);
  if (!admit.ok()) return admit;
  auto seq = One(c, kSelectJobSeq, {V(job_id)});
  if (!seq.ok()) return seq.status();
  if (*seq > kMaxMessagesPerJob) return TooManyMessages();
  auto queued = One(c, kCountQueuedTurns, {V(job_id)});
  if (!queued.ok()) return queued.status();
  if (*queued >= kMaxQueuedFollowUps) return TooManyFollowUps(*queued);
  Status w = Run(c, kJobFollowUp, {V(job_id), V(now), V(message.requested_model)});
  if (w.ok()) {
    w = Run(c, kInsertMessage,
            {V(job_id), V(*seq), V(scope.project_id), V(message.prompt), V(now)});
  }
  if (w.ok()) w = Run(c, kInsertTurn, {V(job_id), V(*seq), V(job->project_id)});
  if (w.ok()) w = Notify(c, "j:" + job_id);
  if (!w.ok()) return w;
  auto updated = LoadJob(c, scope, job_id);
  if (!updated.ok()) return updated.status();
  w = AppendEvent(c, job_id, scope.project_id, EventType::kMessageAdded,
                  MessageAddedData(*updated, static_cast<int>(*seq), message.prompt), now);
  if (w.ok() && claim) w = claim->Claim(c, job_id, *seq, now);
  if (w.ok() && !(claim && claim->claimed())) {
    c.NoteTurnQueued();  // this process's workers (WriteAs)
    w = Notify(c, "t");
  }
  if (!w.ok()) return w;
  return updated;
}

Status SqlStore::SetJobModel(const std::string& job_id, const std::string& model) {
  return Write([&](Connection& c) -> Status {
    auto r = c.Exec(kSetJobModel, {V(job_id), V(model)});
    if (!r.ok()) return r.status();
    if (r->affected() == 0) return Status();
    return Notify(c, "j:" + job_id);  // other nodes' caches forget the job
  });
}

Result<Job> SqlStore::StopJob(const Scope& scope, const std::string& job_id) {
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

Result<Job> SqlStore::ArchiveJob(const Scope& scope, const std::string& job_id) {
  std::optional<Job> updated;
  bool archived = false;
  Status s = Write([&](Connection& c) -> Status {
    archived = false;
    auto job = LoadJob(c, scope, job_id);
    if (!job.ok()) return job.status();
    // The project's lock too: a local pull request being opened for the branch
    // (UpsertPullRequest) either comes first, and is closed here, or sees the
    // job archived.
    Status locked = Run(c, kLockProject, {V(scope.project_id)});
    if (locked.ok()) locked = Run(c, kLockJob, {V(job_id)});
    if (!locked.ok()) return locked;
    job = LoadJob(c, scope, job_id);  // as of the locks
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
      w = AppendEvent(c, job_id, scope.project_id, EventType::kJobArchived, JobData(*job), now);
      if (!w.ok()) return w;
      archived = true;
    }
    updated = std::move(*job);
    return Status();
  });
  if (!s.ok()) return s;
  if (archived) AnnounceEvents(job_id);
  return std::move(*updated);
}

Result<MessagePage> SqlStore::ListMessages(const Scope& scope, const std::string& job_id,
                                           const MessageQuery& query) {
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

Result<StepsPage> SqlStore::ListSteps(const Scope& scope, const std::string& job_id, int from_seq,
                                      int to_seq, int64_t max_bytes) {
  return Read<StepsPage>([&](Connection& c) -> Result<StepsPage> {
    auto job = LoadJob(c, scope, job_id);
    if (!job.ok()) return job.status();
    StepsPage page;
    {
      auto cut = c.Exec(kFirstStepsLeftOut, {V(job_id), V(from_seq), V(to_seq), V(max_bytes)});
      if (!cut.ok()) return cut.status();
      page.through_seq = to_seq;
      if (cut->Next() && !cut->IsNull(0)) page.through_seq = static_cast<int>(cut->Int(0) - 1);
    }
    auto r = c.Exec(kSelectSteps, {V(job_id), V(from_seq), V(page.through_seq)});
    if (!r.ok()) return r.status();
    while (r->Next()) page.steps.emplace_back(static_cast<int>(r->Int("seq")), ReadStep(*r));
    return page;
  });
}

Result<TokenUsage> SqlStore::JobUsage(const Scope& scope, const std::string& job_id) {
  return Read<TokenUsage>([&](Connection& c) -> Result<TokenUsage> {
    auto job = LoadJob(c, scope, job_id);
    if (!job.ok()) return job.status();
    auto r = c.Exec(kJobUsage, {V(job_id)});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status::Internal("no usage row");
    return TokenUsage{.input_tokens = r->Int("input_tokens"),
                      .output_tokens = r->Int("output_tokens"),
                      .cached_input_tokens = r->Int("cached_input_tokens"),
                      .cache_write_tokens = r->Int("cache_write_tokens")};
  });
}

Result<Job> SqlStore::LoadJob(Connection& c, const Scope& scope, const std::string& job_id) {
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

Result<Job> SqlStore::LoadJobById(Connection& c, const std::string& job_id) {
  auto r = c.Exec(kSelectJobById, {V(job_id)});
  if (!r.ok()) return r.status();
  if (r->Next()) return ReadJob(*r);
  return Status::NotFound("job not found");
}

}  // namespace docwright::sql
