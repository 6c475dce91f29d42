// The SQL store: a project's context repositories (core/workflow.h), and the
// heads of the branches the workflows' engine watches.
#include <algorithm>

#include "store/sql/internal.h"
#include "store/sql/statements.h"
#include "store/sql/workflow_statements.h"

namespace docwright::sql {
namespace {

constexpr size_t kMaxRepositoryBytes = 2048;
// A watch names a branch ("context:NAME:BRANCH"); a head is a commit id.
constexpr size_t kMaxWatchBytes = 600;
constexpr size_t kMaxHeadBytes = 128;

ContextRepository ReadContextRepository(const Rows& r) {
  return ContextRepository{.project_id = r.Text("project_id"),
                           .name = r.Text("name"),
                           .repository = r.Text("repository"),
                           .branch = r.OptText("branch"),
                           .created_at = r.Int("created_at")};
}

bool HasControl(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; });
}

Status CheckContextRepository(const ContextRepository& repo) {
  if (Status s = CheckWorkflowName(repo.name); !s.ok()) return s;
  if (repo.repository.empty() || repo.repository.size() > kMaxRepositoryBytes) {
    return Status::InvalidArgument("repository must be 1 to " +
                                   std::to_string(kMaxRepositoryBytes) + " bytes");
  }
  if (HasControl(repo.repository)) {
    return Status::InvalidArgument("repository must not hold control characters");
  }
  if (repo.branch) {
    if (Status s = CheckBranchName(*repo.branch); !s.ok()) return s;
  }
  return Status();
}

// Whether the API-defined `w` reads the context repository `name`.
bool Reads(const Workflow& w, const std::string& name) {
  if (w.trigger.kind == TriggerKind::kMerge && w.trigger.repository == name) return true;
  return std::find(w.context.begin(), w.context.end(), name) != w.context.end();
}

}  // namespace

Result<ContextRepository> SqlStore::AddContextRepository(ContextRepository repo) {
  if (Status s = CheckContextRepository(repo); !s.ok()) return s;
  Status s = Write([&](Connection& c) -> Status {
    // Under the project's lock, so two adds never both pass the count.
    auto r = c.Exec(kLockProject, {V(repo.project_id)});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status::NotFound("project not found");
    auto now = Now(c);
    if (!now.ok()) return now.status();
    repo.created_at = *now;
    auto same = One(c, kContextRepositoryExists, {V(repo.project_id), V(repo.name)});
    if (!same.ok()) return same.status();
    if (*same > 0) {
      return Status::Conflict("the project has a context repository named " + repo.name);
    }
    auto n = One(c, kCountContextRepositories, {V(repo.project_id)});
    if (!n.ok()) return n.status();
    if (*n >= static_cast<int64_t>(kMaxContextRepositories)) {
      return Status::ResourceExhausted("the project has " + std::to_string(*n) +
                                       " context repositories, the most it may have: remove one "
                                       "first");
    }
    return Run(
        c, kInsertContextRepository,
        {V(repo.project_id), V(repo.name), V(repo.repository), V(repo.branch), V(repo.created_at)});
  });
  if (!s.ok()) return s;
  return repo;
}

Result<std::vector<ContextRepository>> SqlStore::ListContextRepositories(
    const std::string& project_id) {
  return ReadAll(kSelectContextRepositories, {V(project_id)}, &ReadContextRepository);
}

Status SqlStore::RemoveContextRepository(const std::string& project_id, const std::string& name) {
  return Write([&](Connection& c) -> Status {
    // The project's lock: a workflow created meanwhile naming it is seen.
    if (Status locked = Run(c, kLockProject, {V(project_id)}); !locked.ok()) return locked;
    auto found = One(c, kContextRepositoryExists, {V(project_id), V(name)});
    if (!found.ok()) return found.status();
    if (*found == 0) return Status::NotFound("context repository not found");
    // A file-defined workflow that names it is refused when it runs, until its
    // file changes; an API-defined one would be left unusable.
    auto r = c.Exec(kSelectWorkflowsOfSource, {V(project_id), V("api")});
    if (!r.ok()) return r.status();
    while (r->Next()) {
      Workflow w = ReadWorkflow(*r);
      if (Reads(w, name)) {
        return Status::Conflict("the workflow " + w.name + " reads the context repository " + name +
                                ": change or delete that workflow first");
      }
    }
    return Run(c, kDeleteContextRepository, {V(project_id), V(name)});
  });
}

Result<std::optional<std::string>> SqlStore::GetWatchedHead(const std::string& project_id,
                                                            const std::string& watch) {
  using Head = std::optional<std::string>;
  return Read<Head>([&](Connection& c) -> Result<Head> {
    auto r = c.Exec(kSelectWatchedHead, {V(project_id), V(watch)});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Head();
    return Head(r->Text(0));
  });
}

Status SqlStore::SetWatchedHead(const std::string& project_id, const std::string& watch,
                                const std::string& head) {
  if (watch.empty() || watch.size() > kMaxWatchBytes || HasControl(watch)) {
    return Status::InvalidArgument("a watch is 1 to " + std::to_string(kMaxWatchBytes) +
                                   " bytes without control characters");
  }
  if (head.empty() || head.size() > kMaxHeadBytes || HasControl(head)) {
    return Status::InvalidArgument("a head is 1 to " + std::to_string(kMaxHeadBytes) +
                                   " bytes without control characters");
  }
  return Write([&](Connection& c) -> Status {
    auto exists = One(c, kProjectExists, {V(project_id)});
    if (!exists.ok()) return exists.status();
    if (*exists == 0) return Status::NotFound("project not found");
    auto now = Now(c);
    if (!now.ok()) return now.status();
    return Run(c, kUpsertWatchedHead, {V(project_id), V(watch), V(head), V(*now)});
  });
}

}  // namespace docwright::sql
