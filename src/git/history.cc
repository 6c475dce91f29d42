// Mirror::Log: the commits a branch gained, for what a workflow's run is told
// of a push or a merge.
#include <git2.h>

#include "core/text.h"
#include "git/git.h"
#include "git/libgit2.h"

namespace docwright::git {
namespace {

using RevwalkPtr = std::unique_ptr<git_revwalk, Deleter<git_revwalk, git_revwalk_free>>;

// The commit `oid` as a summary: its text made well-formed and cut, so that an
// author's message of any size or bytes costs a bounded amount.
Result<CommitSummary> Summarise(git_repository* repo, const git_oid& oid) {
  auto commit = LookupCommit(repo, oid, "the commit " + Hex(oid));
  if (!commit.ok()) return commit.status();
  const char* raw = git_commit_message(commit->get());
  std::string_view message = raw ? raw : "";
  CommitSummary out;
  out.sha = Hex(oid);
  out.is_merge = git_commit_parentcount(commit->get()) > 1;
  // Scrubbed after a first cut (ScrubUtf8 is linear in what it is given), then
  // cut again: a replaced byte may take three.
  std::string scrubbed = ScrubUtf8(message.substr(0, kMaxCommitMessageBytes));
  out.message = std::string(CutUtf8(scrubbed, kMaxCommitMessageBytes));
  std::string_view first = out.message;
  first = first.substr(0, first.find('\n'));
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  out.subject = std::string(CutUtf8(first, kMaxCommitSubjectBytes));
  return out;
}

}  // namespace

Result<std::vector<CommitSummary>> Mirror::Log(const std::string& from, const std::string& to,
                                               size_t max) {
  auto to_oid = ParseOid(to);
  if (!to_oid.ok()) return to_oid.status();
  std::optional<git_oid> from_oid;
  if (!from.empty()) {
    auto parsed = ParseOid(from);
    if (!parsed.ok()) return parsed.status();
    from_oid = *parsed;
  }
  max = std::min(max, kMaxLogCommits);
  std::vector<CommitSummary> out;
  Status walked = WithRepository([&](git_repository* repo) -> Status {
    // Both looked up first, so that a commit the mirror lacks is NotFound
    // whatever the walk would make of it.
    for (const git_oid* oid : {&*to_oid, from_oid ? &*from_oid : nullptr}) {
      if (!oid) continue;
      if (auto c = LookupCommit(repo, *oid, "the commit " + Hex(*oid)); !c.ok()) return c.status();
    }
    git_revwalk* raw = nullptr;
    int rc = git_revwalk_new(&raw, repo);
    if (rc != 0) return Fail("cannot walk the history", rc);
    RevwalkPtr walk(raw);
    // Newest first. A topological sort reads the whole reachable history before
    // its first commit; without a commit to hide, the first parents are walked
    // as they come (newest first), stopping after `max`.
    git_revwalk_sorting(walk.get(),
                        from_oid ? (GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME) : GIT_SORT_NONE);
    if (!from_oid) git_revwalk_simplify_first_parent(walk.get());
    rc = git_revwalk_push(walk.get(), &*to_oid);
    if (rc != 0) return Fail("cannot read the commit " + to, rc);
    if (from_oid) {
      rc = git_revwalk_hide(walk.get(), &*from_oid);
      if (rc != 0) return Fail("cannot read the commit " + from, rc);
    }
    git_oid oid;
    while (out.size() < max && (rc = git_revwalk_next(&oid, walk.get())) == 0) {
      auto summary = Summarise(repo, oid);
      if (!summary.ok()) return summary.status();
      out.push_back(std::move(*summary));
    }
    if (out.size() < max && rc != GIT_ITEROVER) return Fail("cannot walk the history", rc);
    return Status();
  });
  if (!walked.ok()) return walked;
  return out;
}

}  // namespace docwright::git
