// A bare repository on this machine, used as a mirror's remote without a
// transport. Through libgit2's local transport, every fetch and push lists every
// ref of the remote, and a push walks them all to build its pack, so each job
// would cost more than the last as branches accumulate. Directly, a fetch reads
// the refs it needs and a push writes one commit's new objects and one ref.
// Like the transport, it runs no hooks of the remote.
//
// Internal to the git engine. Open one for each push: an open handle does not
// notice the repository's objects being repacked or pruned. Heads reads only
// refs, from the disk at each call, so a handle may be kept for it while
// Replaced() is false. Not thread-safe.
#pragma once

#include <git2.h>
#include <sys/types.h>

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

  // Whether the repository's folder is gone, or another folder is at its path
  // now, since Open.
  bool Replaced() const;

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
  LocalRemote(RepoPtr repo, std::string dir, dev_t device, ino_t inode)
      : repo_(std::move(repo)), dir_(std::move(dir)), device_(device), inode_(inode) {}
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
  std::string dir_;
  dev_t device_;
  ino_t inode_;
};

}  // namespace docwright::git
