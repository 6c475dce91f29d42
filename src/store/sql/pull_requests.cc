// The SQL store: the local forge's pull requests (merged ones are kept as they
// were: see LocalPullRequestRecords), the health check, and the
// store's construction.
#include "core/crash_point.h"
#include "core/ids.h"
#include "store/sql/internal.h"
#include "store/sql/statements.h"
#include "store/sql/store.h"

namespace docwright::sql {

Result<LocalPullRequest> SqlStore::UpsertPullRequest(const LocalPullRequest& in) {
  LocalPullRequest pr;
  Status s = Write([&](Connection& c) -> Status {
    pr = in;
    // One writer per project: the number is the next of the project's, and the
    // branch has one pull request.
    if (Status locked = Run(c, kLockProject, {V(pr.project_id)}); !locked.ok()) return locked;
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
        if (!existing) {  // the branch's merged one, if it has one, stays what it shows
          auto last = c.Exec(kSelectLastPullRequestByHead, {V(pr.project_id), V(pr.head)});
          if (!last.ok()) return last.status();
          if (last->Next()) existing = ReadPullRequest(*last);
        }
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
                 {V(pr.id), V(pr.base), V(pr.title), V(pr.body), V(pr.diff), V(pr.draft), V(now)});
    }
    auto number = One(c, kNextPullRequestNumber, {V(pr.project_id)});
    if (!number.ok()) return number.status();
    pr.number = *number;
    pr.id = RandomBase62(kPullRequestIdLength);
    pr.created_at = now;
    Status w = Run(c, kInsertPullRequest,
                   {V(pr.id), V(pr.project_id), V(pr.number), V(pr.head), V(pr.base), V(pr.title),
                    V(pr.body), V(pr.diff), V(pr.draft), V(now), V(pr.archived_at)});
    if (w.ok()) CrashPoint("local-pr.recording");  // inserted, not committed
    return w;
  });
  if (!s.ok()) return s;
  return pr;
}

Result<LocalPullRequest> SqlStore::GetPullRequest(const std::string& id) {
  return ReadOne(kSelectPullRequest, {V(id)}, &ReadPullRequest, "pull request not found");
}

Result<LocalPullRequest> SqlStore::MarkPullRequestMerged(const std::string& id,
                                                         const std::string& merge_commit,
                                                         UnixMillis merged_at) {
  LocalPullRequest pr;
  Status s = Write([&](Connection& c) -> Status {
    auto read = [&]() -> Status {
      auto r = c.Exec(kSelectPullRequest, {V(id)});
      if (!r.ok()) return r.status();
      if (!r->Next()) return Status::NotFound("pull request not found");
      pr = ReadPullRequest(*r);
      return Status();
    };
    if (Status found = read(); !found.ok()) return found;
    // Under the project's lock, as UpsertPullRequest: an update of the branch's
    // open pull request lands before the merge is recorded, or opens the next one.
    if (Status locked = Run(c, kLockProject, {V(pr.project_id)}); !locked.ok()) return locked;
    if (Status found = read(); !found.ok()) return found;
    if (pr.merged_at) return Status::Conflict("the pull request is merged already");
    if (pr.archived_at) return Status::Conflict("the pull request is closed: its job was archived");
    Status w = Run(c, kMarkPullRequestMerged, {V(id), V(merged_at), V(merge_commit)});
    if (!w.ok()) return w;
    pr.merged_at = merged_at;
    pr.merge_commit = merge_commit;
    pr.updated_at = merged_at;
    return Status();
  });
  if (!s.ok()) return s;
  return pr;
}

Status SqlStore::Ping() {
  return driver_->Read([](Connection& c) { return Run(c, kPing, {}); });
}

}  // namespace docwright::sql
