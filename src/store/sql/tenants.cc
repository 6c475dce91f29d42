// The SQL store: organisations, API keys and projects.
#include "core/api_key.h"
#include "core/ids.h"
#include "store/sql/internal.h"
#include "store/sql/statements.h"

namespace docwright::sql {

// --- Organisations and keys ---

Result<Org> SqlStore::CreateOrg(const std::string& name) {
  Org org{.id = NewId(), .name = name, .created_at = NowMillis()};
  Status s = Write([&](Connection& c) {
    return Run(c, kInsertOrg, {V(org.id), V(org.name), V(org.created_at), V(org.max_active)});
  });
  if (!s.ok()) return s;
  return org;
}

Result<Org> SqlStore::GetOrg(const std::string& org_id) {
  return ReadOne(kSelectOrg, {V(org_id)}, &ReadOrg, "organisation not found");
}

Result<std::vector<Org>> SqlStore::ListOrgs() { return ReadAll(kSelectOrgs, {}, &ReadOrg); }

Status SqlStore::UpdateOrg(const Org& org) {
  return Write([&](Connection& c) -> Status {
    Status w = Change(c, kUpdateOrg,
                      {V(org.id), V(org.name), V(org.max_active), V(org.budget.tokens),
                       V(org.budget.cost_micros)},
                      "organisation not found");
    return w.ok() ? Notify(c, "t") : w;  // a raised cap may let turns run
  });
}

Status SqlStore::CreateApiKey(const ApiKey& k) {
  return Write([&](Connection& c) -> Status {
    Status s = OrgExists(c, k.org_id);
    if (!s.ok()) return s;
    std::optional<std::string> projects;
    if (k.projects) projects = JoinLines(*k.projects);
    return Run(c, kInsertKey,
               {V(k.id), V(k.org_id), V(k.name), V(k.prefix), V(k.secret_hash), V(ToString(k.role)),
                V(projects), V(k.created_at)});
  });
}

Result<std::vector<ApiKey>> SqlStore::ListApiKeys(const std::string& org_id) {
  return ReadAll(kSelectKeys, {V(org_id)}, &ReadKey);
}

Status SqlStore::RevokeApiKey(const std::string& key_id) {
  return Write([&](Connection& c) -> Status {
    Status w = Change(c, kRevokeKey, {V(key_id), V(NowMillis())}, "API key not found");
    if (!w.ok()) return w;
    // Its sign-ins end with it: no browser keeps a key's rights past its revocation.
    if (Status ended = Run(c, kDeleteKeySessions, {V(key_id)}); !ended.ok()) return ended;
    return Notify(c, "k");
  });
}

Result<ApiKey> SqlStore::FindActiveApiKey(const std::string& secret_hash) {
  return ReadOne(kSelectKeyByHash, {V(secret_hash)}, &ReadKey, "invalid or revoked API key");
}

Status SqlStore::RecordKeyUses(const std::vector<std::pair<std::string, UnixMillis>>& uses) {
  if (uses.empty()) return Status();
  // Not flushed on its own: a use lost to a power loss is a listing a minute behind.
  return WriteAs(Commit::kLeaseOnly, [&](Connection& c) -> Status {
    for (const auto& [key_id, at] : uses) {
      if (Status s = Run(c, kRecordKeyUse, {V(key_id), V(at)}); !s.ok()) return s;
    }
    return Status();
  });
}

// --- Projects ---

Result<Project> SqlStore::CreateProject(Project p) {
  p.id = NewId();
  p.created_at = NowMillis();
  // Sealed once: a write may run its function again.
  auto token = SealForgeToken(p);
  if (!token.ok()) return token.status();
  auto hook = SealHookSecret(p);
  if (!hook.ok()) return hook.status();
  Status s = Write([&](Connection& c) -> Status {
    Status e = OrgExists(c, p.org_id);
    if (!e.ok()) return e;
    std::string forge(ToString(p.forge));
    std::string publish(ToString(p.publish));
    return Run(c, kInsertProject,
               {V(p.id),
                V(p.org_id),
                V(p.repository),
                V(p.base_ref),
                V(forge),
                V(p.forge_api_url),
                V(*token),
                V(p.model),
                V(p.rate_limit_per_hour),
                V(p.created_at),
                V(p.ssh_key_path),
                V(p.ssh_known_hosts_path),
                V(JoinLines(p.models)),
                V(JoinLines(p.write_paths)),
                V(p.max_active),
                V(*hook),
                V(p.mention_handle),
                V(publish),
                V(p.budget.tokens),
                V(p.budget.cost_micros),
                V(p.site_root)});
  });
  if (!s.ok()) return s;
  return p;
}

Result<Project> SqlStore::GetProject(const Scope& scope) {
  auto p = Read<Project>([&](Connection& c) { return LoadProject(c, scope); });
  if (!p.ok()) return p;
  if (Status s = OpenProjectSecrets(*p); !s.ok()) return s;
  return p;
}

Result<Project> SqlStore::GetProjectById(const std::string& project_id) {
  auto p = ReadOne(kSelectProjectById, {V(project_id)}, &ReadProject, "project not found");
  if (!p.ok()) return p;
  if (Status s = OpenProjectSecrets(*p); !s.ok()) return s;
  return p;
}

Result<std::vector<Project>> SqlStore::ListProjects(const std::string& org_id) {
  auto projects = ReadAll(kSelectProjects, {V(org_id)}, &ReadProject);
  if (!projects.ok()) return projects;
  for (Project& p : *projects) {
    if (Status s = OpenProjectSecrets(p); !s.ok()) return s;
  }
  return projects;
}

Result<std::vector<ProjectJobCounts>> SqlStore::CountJobs(const std::string& org_id) {
  return Read<std::vector<ProjectJobCounts>>(
      [&](Connection& c) -> Result<std::vector<ProjectJobCounts>> {
        auto r = c.Exec(kCountJobsByStatus, {V(org_id)});
        if (!r.ok()) return r.status();
        std::vector<ProjectJobCounts> out;
        while (r->Next()) {
          std::string project_id = r->Text("project_id");
          // In order of project: a project's rows are together.
          if (out.empty() || out.back().project_id != project_id) {
            out.push_back(ProjectJobCounts{.project_id = project_id});
          }
          ProjectJobCounts* it = &out.back();
          int64_t n = r->Int("n");
          switch (ParseJobStatus(r->Text("status")).value_or(JobStatus::kFailed)) {
            case JobStatus::kActive:
              it->active += n;
              break;
            case JobStatus::kCompleted:
              it->completed += n;
              break;
            case JobStatus::kFailed:
              it->failed += n;
              break;
            case JobStatus::kArchived:
              it->archived += n;
              break;
          }
        }
        return out;
      });
}

Status SqlStore::UpdateProject(const Project& p) {
  auto token = SealForgeToken(p);
  if (!token.ok()) return token.status();
  auto hook = SealHookSecret(p);
  if (!hook.ok()) return hook.status();
  return Write([&](Connection& c) -> Status {
    std::string forge(ToString(p.forge));
    Status w =
        Change(c, kUpdateProject,
               {V(p.id), V(p.repository), V(p.base_ref), V(forge), V(p.forge_api_url), V(*token),
                V(p.model), V(p.rate_limit_per_hour), V(p.ssh_key_path), V(p.ssh_known_hosts_path),
                V(JoinLines(p.models)), V(JoinLines(p.write_paths)), V(p.max_active), V(*hook),
                V(p.mention_handle), V(std::string(ToString(p.publish))), V(p.budget.tokens),
                V(p.budget.cost_micros), V(p.site_root)},
               "project not found");
    return w.ok() ? Notify(c, "t") : w;  // a raised cap may let turns run
  });
}

Result<Project> SqlStore::ArchiveProject(const Scope& scope) {
  std::optional<Project> archived;
  Status s = Write([&](Connection& c) -> Status {
    auto now = Now(c);
    if (!now.ok()) return now.status();
    Status w = Run(c, kArchiveProject, {V(scope.project_id), V(scope.org_id), V(*now)});
    if (!w.ok()) return w;
    auto project = LoadProject(c, scope);
    if (!project.ok()) return project.status();
    archived = std::move(*project);
    return Status();
  });
  if (!s.ok()) return s;
  if (Status opened = OpenProjectSecrets(*archived); !opened.ok()) return opened;
  return std::move(*archived);
}

Status SqlStore::DeleteProject(const Scope& scope) {
  return Write([&](Connection& c) -> Status {
    auto project = LoadProject(c, scope);
    if (!project.ok()) return project.status();
    // Taken first, as every writer of the project's jobs takes it: no job is
    // created or made active while the count below holds.
    if (Status locked = Run(c, kLockProject, {V(project->id)}); !locked.ok()) return locked;
    auto active = One(c, kCountActiveJobs, {V(project->id)});
    if (!active.ok()) return active.status();
    if (*active > 0) return ProjectHasActiveJobs(*active);
    for (const Statement* statement :
         {&kDeleteProjectCommentReplies, &kDeleteProjectWebhookDeliveries, &kDeleteProjectWebhooks,
          &kDeleteProjectEvents, &kDeleteProjectSteps, &kDeleteProjectTurns,
          &kDeleteProjectMessages, &kDeleteProjectReviews, &kDeleteProjectJobs,
          &kDeleteProjectPullRequests, &kDeleteProjectIdempotencyKeys, &kDeleteProjectWorkflowRuns,
          &kDeleteProjectWorkflows, &kDeleteProjectContextRepositories, &kDeleteProjectWatchedHeads,
          &kDeleteProjectForgeEvents, &kDeleteProject}) {
      if (Status w = Run(c, *statement, {V(project->id)}); !w.ok()) return w;
    }
    return Status();
  });
}

// --- Helpers ---

Status SqlStore::Run(Connection& c, const Statement& statement,
                     std::initializer_list<Value> params) {
  return c.Exec(statement, params).status();
}

Result<int64_t> SqlStore::One(Connection& c, const Statement& statement,
                              std::initializer_list<Value> params) {
  auto r = c.Exec(statement, params);
  if (!r.ok()) return r.status();
  if (!r->Next()) return Status::Internal("the statement returned no row");
  return r->Int(0);
}

Status SqlStore::Change(Connection& c, const Statement& statement,
                        std::initializer_list<Value> params, const char* missing) {
  auto r = c.Exec(statement, params);
  if (!r.ok()) return r.status();
  if (r->affected() == 0) return Status::NotFound(missing);
  return Status();
}

Status SqlStore::Notify(Connection& c, const std::string& payload) {
  return Run(c, kNotify, {V(payload)});
}

Result<UnixMillis> SqlStore::Now(Connection& c) { return One(c, kNow, {}); }

Status SqlStore::OrgExists(Connection& c, const std::string& org_id) {
  auto r = c.Exec(kSelectOrg, {V(org_id)});
  if (!r.ok()) return r.status();
  if (r->size() > 0) return Status();
  return Status::NotFound("organisation not found");
}

Result<Project> SqlStore::LoadProject(Connection& c, const Scope& scope) {
  auto r = c.Exec(kSelectProject, {V(scope.project_id), V(scope.org_id)});
  if (!r.ok()) return r.status();
  if (r->Next()) return ReadProject(*r);
  return Status::NotFound("project not found");
}

Status SqlStore::LockProjectForJobs(Connection& c, const std::string& project_id) {
  auto r = c.Exec(kLockProject, {V(project_id)});
  if (!r.ok()) return r.status();
  if (!r->Next()) return Status::NotFound("project not found");
  return r->IsNull(0) ? Status() : ProjectArchived();
}

Status SqlStore::Admit(Connection& c, const Project& p, UnixMillis now) {
  // The project's messages of the last hour are the record of what it was
  // admitted, so no separate counter can drift from them.
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

}  // namespace docwright::sql
