// Mirror::Merge and Mirror::PrepareMerge: a branch merged into another on the
// remote, as a forge's merge button does, made in the mirror and pushed under
// a lease on the base's head.
#include <git2.h>

#include "git/git.h"
#include "git/libgit2.h"

namespace docwright::git {
namespace {

using IndexPtr = std::unique_ptr<git_index, Deleter<git_index, git_index_free>>;
using ConflictIteratorPtr =
    std::unique_ptr<git_index_conflict_iterator,
                    Deleter<git_index_conflict_iterator, git_index_conflict_iterator_free>>;

// "a.md, b.md and 3 more": the paths of the index's conflicts, at most
// kMaxConflictsNamed of them.
Result<std::string> ConflictingPaths(git_index* index) {
  git_index_conflict_iterator* raw = nullptr;
  int rc = git_index_conflict_iterator_new(&raw, index);
  if (rc != 0) return Fail("cannot list the conflicts", rc);
  ConflictIteratorPtr it(raw);
  std::vector<std::string> paths;
  size_t total = 0;
  const git_index_entry *ancestor = nullptr, *ours = nullptr, *theirs = nullptr;
  while ((rc = git_index_conflict_next(&ancestor, &ours, &theirs, it.get())) == 0) {
    const git_index_entry* any = ours ? ours : theirs ? theirs : ancestor;
    if (!any || !any->path) continue;
    if (++total <= kMaxConflictsNamed) paths.push_back(any->path);
  }
  if (rc != GIT_ITEROVER) return Fail("cannot list the conflicts", rc);
  std::string out;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i > 0) out += i + 1 == paths.size() && total == paths.size() ? " and " : ", ";
    out += paths[i];
  }
  if (total > paths.size()) out += " and " + std::to_string(total - paths.size()) + " more";
  return out;
}

// The merge commit of `head_oid` into `base_oid` from their merge base
// `ancestor_oid`, written to `repo`; Conflict naming the paths if they conflict.
Result<git_oid> MergeCommit(git_repository* repo, const git_oid& base_oid, const git_oid& head_oid,
                            const git_oid& ancestor_oid, const std::string& head,
                            const std::string& base, const Identity& committer) {
  auto base_commit = LookupCommit(repo, base_oid, "the head of " + base);
  if (!base_commit.ok()) return base_commit.status();
  auto head_commit = LookupCommit(repo, head_oid, "the head of " + head);
  if (!head_commit.ok()) return head_commit.status();
  auto ancestor_commit = LookupCommit(repo, ancestor_oid, "the merge base");
  if (!ancestor_commit.ok()) return ancestor_commit.status();
  auto tree_of = [&](const CommitPtr& c, const std::string& what) {
    return LookupTree(repo, *git_commit_tree_id(c.get()), what);
  };
  auto base_tree = tree_of(*base_commit, "the files of " + base);
  if (!base_tree.ok()) return base_tree.status();
  auto head_tree = tree_of(*head_commit, "the files of " + head);
  if (!head_tree.ok()) return head_tree.status();
  auto ancestor_tree = tree_of(*ancestor_commit, "the files of the merge base");
  if (!ancestor_tree.ok()) return ancestor_tree.status();

  git_merge_options options = GIT_MERGE_OPTIONS_INIT;  // finds renames
  // A conflict is reported, never resolved for either side or written with markers.
  options.file_favor = GIT_MERGE_FILE_FAVOR_NORMAL;
  git_index* raw = nullptr;
  int rc = git_merge_trees(&raw, repo, ancestor_tree->get(), base_tree->get(), head_tree->get(),
                           &options);
  if (rc != 0) return Fail("cannot merge " + head + " into " + base, rc);
  IndexPtr index(raw);
  if (git_index_has_conflicts(index.get())) {
    auto paths = ConflictingPaths(index.get());
    if (!paths.ok()) return paths.status();
    return Status::Conflict(head + " conflicts with " + base + " in " + *paths + ": merge " + base +
                            " into " + head + " and resolve the conflicts there, then merge again");
  }
  git_oid tree_oid;
  rc = git_index_write_tree_to(&tree_oid, index.get(), repo);
  if (rc != 0) return Fail("cannot write the merged files", rc);
  auto tree = LookupTree(repo, tree_oid, "the merged files");
  if (!tree.ok()) return tree.status();
  git_signature* s = nullptr;
  rc = git_signature_now(&s, committer.name.c_str(), committer.email.c_str());
  if (rc != 0) return Fail("invalid committer identity", rc);
  SigPtr sig(s);
  const std::string message = "Merge branch '" + head + "' into '" + base + "'\n";
  const git_commit* parents[] = {base_commit->get(), head_commit->get()};
  git_oid commit_oid;
  rc = git_commit_create(&commit_oid, repo, nullptr, sig.get(), sig.get(), "UTF-8", message.c_str(),
                         tree->get(), 2, parents);
  if (rc != 0) return Fail("cannot create the merge commit", rc);
  return commit_oid;
}

}  // namespace

Result<MergeOutcome> Mirror::PrepareMerge(const std::string& base_commit,
                                          const std::string& head_commit, const std::string& head,
                                          const std::string& base, MergeMethod method,
                                          const Identity& committer) {
  for (const std::string* branch : {&head, &base}) {
    if (Status valid = CheckBranch(*branch); !valid.ok()) return valid;
  }
  auto base_oid = ParseOid(base_commit);
  if (!base_oid.ok()) return base_oid.status();
  auto head_oid = ParseOid(head_commit);
  if (!head_oid.ok()) return head_oid.status();
  MergeOutcome outcome{.base_before = base_commit, .commit = base_commit};
  Status made = WithRepository([&](git_repository* repo) -> Status {
    git_oid ancestor;
    int rc = git_merge_base(&ancestor, repo, &*base_oid, &*head_oid);
    if (rc == GIT_ENOTFOUND) {
      return Status::InvalidArgument(head + " and " + base +
                                     " have no common history: there is nothing to merge from");
    }
    if (rc != 0) return Fail("cannot find where " + head + " forked from " + base, rc);
    // What git_merge_analysis tells from the same merge base: up to date, or
    // a fast-forward.
    if (git_oid_equal(&ancestor, &*head_oid)) {
      outcome.already_merged = true;
      return Status();
    }
    bool can_fast_forward = git_oid_equal(&ancestor, &*base_oid);
    if (method == MergeMethod::kFastForward) {
      if (!can_fast_forward) {
        return Status::Conflict("cannot fast-forward " + base + " to " + head + ": " + base +
                                " has commits that " + head +
                                " lacks; merge with a merge commit instead, or bring " + base +
                                " into " + head + " first");
      }
      outcome.fast_forward = true;
      outcome.commit = head_commit;
      return Status();
    }
    auto merged = MergeCommit(repo, *base_oid, *head_oid, ancestor, head, base, committer);
    if (!merged.ok()) return merged.status();
    outcome.commit = Hex(*merged);
    return Status();
  });
  if (!made.ok()) return made;
  return outcome;
}

Result<MergeOutcome> Mirror::Merge(const std::string& head, const std::string& base,
                                   MergeMethod method, const Identity& committer,
                                   const std::function<bool()>& cancelled,
                                   const std::string& expected_head) {
  auto heads = FetchBranches({base, head}, cancelled);
  if (!heads.ok()) return heads.status();
  for (const std::string* branch : {&base, &head}) {
    if (!heads->at(*branch)) {
      return Status::NotFound("the repository has no branch " + *branch +
                              " (was it deleted or renamed?)");
    }
  }
  if (!expected_head.empty() && *heads->at(head) != expected_head) {
    return Status::Conflict(head + " is at " + *heads->at(head) + ", not at the commit " +
                            expected_head + " that was reviewed: review it again");
  }
  const std::string base_commit = *heads->at(base);
  auto outcome = PrepareMerge(base_commit, *heads->at(head), head, base, method, committer);
  if (!outcome.ok() || outcome->already_merged) return outcome;
  Status pushed = Push(outcome->commit, base, base_commit, cancelled);
  if (pushed.code() == Code::kConflict) {
    return Status::Conflict(base + " moved on the repository while the merge was made; nothing " +
                            "was pushed: try again");
  }
  if (!pushed.ok()) return pushed;
  return outcome;
}

}  // namespace docwright::git
