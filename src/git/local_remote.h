// A bare repository on this machine, used as a mirror's remote without a
// transport. Through libgit2's local transport, every fetch and push lists every
// ref of the remote, and a push walks them all to build its pack, so each job
// would cost more than the last as branches accumulate. Directly, a fetch reads
// the refs it needs and a push writes one commit's new objects and one ref.
// Like the transport, it runs no hooks of the remote.
//
// Internal to the git engine. Open one for each operation: an open handle does
// not notice the repository being repacked, pruned or replaced. Not thread-safe.
#pragma once

#include <git2.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "git/libgit2.h"

namespace docwright::git {

class LocalRemote {
 public:
  // The repository `url` names, if it is a path, file:///path or
  // file://localhost/path of a bare repository that opens; nullptr otherwise
  // (use the transport, which gives its own errors). Escaped file URLs are left
  // to the transport, which decodes them.
  static std::unique_ptr<LocalRemote> Open(const std::string& url);

  // The heads of `branches` (nullopt for a branch the remote lacks), or nullopt
  // when `mirror` lacks one of the heads' objects: someone else pushed it, and a
  // real fetch must bring them.
  Result<std::optional<std::map<std::string, std::optional<std::string>>>> Heads(
      git_repository* mirror, const std::vector<std::string>& branches);

  // Copies `commit` and what it reaches that the remote lacks from `mirror`, then
  // moves `branch` to it only if the branch is at `expected` now (nullopt: only
  // if it does not exist). The comparison is made under git's own lock on the
  // ref (`<ref>.lock`, see RefLock), so the lease holds against any other
  // writer, git included. Conflict if the branch is elsewhere (even at
  // `commit`); Unavailable for a commit that does not descend from `expected`
  // (never a forced update), a symbolic ref, a name another branch is in the way
  // of, a lock someone else holds for over a second, or a remote that cannot be
  // written.
  Status Push(git_repository* mirror, const git_oid& commit, const std::string& branch,
              const std::optional<git_oid>& expected);

 private:
  explicit LocalRemote(RepoPtr repo) : repo_(std::move(repo)) {}
  // Each object after those it refers to, so the remote never holds an object
  // whose closure is incomplete; an object the remote has ends the walk there.
  Status CopyObjects(git_repository* mirror, const git_oid& commit);
  std::optional<git_oid> Head(const std::string& ref);
  // Unavailable if `ref` (refs/heads/...) cannot be created: a ref is one of its
  // folders, or it is a folder of refs.
  Status RefNameIsFree(const std::string& ref);
  // Writes the update to the ref's log where git would.
  void AppendReflog(const std::string& ref, const git_oid& old_id, const git_oid& new_id);

  RepoPtr repo_;
};

}  // namespace docwright::git
