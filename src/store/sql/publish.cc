// The SQL store: publishing. What became of a job's pull request on its forge
// (learned from the forge's webhooks or the engine's polls), the jobs whose
// pull request may still be open, a job found by its branch, a job moved to a
// new branch, and a local pull request by its number.
#include "store/sql/internal.h"
#include "store/sql/statements.h"

namespace docwright::sql {

Status SqlStore::SetPullRequestState(const std::string& job_id, const std::string& state) {
  if (state != "open" && state != "merged" && state != "closed") {
    return Status::InvalidArgument("a pull request's state is open, merged or closed");
  }
  return Write([&](Connection& c) -> Status {
    if (Status locked = Run(c, kLockJob, {V(job_id)}); !locked.ok()) return locked;
    auto r = c.Exec(kSelectPullRequestState, {V(job_id)});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status::NotFound("job not found");
    std::optional<std::string> known = r->OptText("pr_state");
    auto now = Now(c);
    if (!now.ok()) return now.status();
    if (known == state) return Run(c, kNotePullRequestChecked, {V(job_id), V(*now)});
    Status w = Run(c, kSetPullRequestState, {V(job_id), V(state), V(*now)});
    return w.ok() ? Notify(c, "j:" + job_id) : w;  // other nodes' caches forget the job
  });
}

Result<std::vector<Job>> SqlStore::ListJobsWithOpenPullRequests(int limit) {
  return ReadAll(kListJobsWithOpenPullRequests, {V(int64_t{std::max(limit, 0)})}, &ReadJob);
}

Result<Job> SqlStore::FindJobByBranch(const std::string& project_id, const std::string& branch) {
  return ReadOne(kSelectJobByBranch, {V(project_id), V(branch)}, &ReadJob,
                 "no job works on that branch");
}

Result<Job> SqlStore::FindJobByPullRequestLink(const std::string& project_id,
                                               const std::string& pr_link) {
  return ReadOne(kSelectJobByPullRequestLink, {V(project_id), V(pr_link)}, &ReadJob,
                 "no job has that pull request");
}

Status SqlStore::SetJobBranch(const std::string& job_id, const std::string& branch) {
  if (Status named = CheckBranchName(branch); !named.ok()) return named;
  return Write([&](Connection& c) -> Status {
    auto job = LoadJobById(c, job_id);
    if (!job.ok()) return job.status();
    // The project's lock, as CreateJob takes it: a job created meanwhile on
    // the same branch is seen, and sees this one.
    if (Status locked = Run(c, kLockProject, {V(job->project_id)}); !locked.ok()) return locked;
    if (Status locked = Run(c, kLockJob, {V(job_id)}); !locked.ok()) return locked;
    auto p = c.Exec(kSelectProjectById, {V(job->project_id)});
    if (!p.ok()) return p.status();
    if (!p->Next()) return Status::NotFound("project not found");
    Project project = ReadProject(*p);
    if (branch == project.base_ref) {
      return Status::InvalidArgument("branch must not be the project's base branch (" +
                                     project.base_ref + ")");
    }
    auto holder = c.Exec(kSelectOtherBranchHolder, {V(project.id), V(branch), V(job_id)});
    if (!holder.ok()) return holder.status();
    if (holder->Next()) {
      return Status::Conflict("branch " + branch + " is taken by job " + holder->Text(0));
    }
    auto now = Now(c);
    if (!now.ok()) return now.status();
    Status w = Run(c, kSetJobBranch, {V(job_id), V(branch), V(*now)});
    return w.ok() ? Notify(c, "j:" + job_id) : w;
  });
}

Result<LocalPullRequest> SqlStore::GetPullRequestByNumber(const std::string& project_id,
                                                          int64_t number) {
  return ReadOne(kSelectPullRequestByNumber, {V(project_id), V(number)}, &ReadPullRequest,
                 "pull request not found");
}

}  // namespace docwright::sql
