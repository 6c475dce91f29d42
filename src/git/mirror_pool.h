// The bare mirrors of one process, by name: a project's docs repository and its
// context repositories (core/workflow.h), shared by the turns that read and
// push them and the workflows' engine that watches them, so each repository has
// one Mirror object per process (git.h: one per process and path).
//
// Thread-safe. Opening a mirror may wait on another process's lock on it (the
// limits' lock_timeout); only the callers of that mirror wait.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/job.h"
#include "core/mutex.h"
#include "core/status.h"
#include "core/workflow.h"
#include "git/git.h"

namespace docwright::git {

class MirrorPool {
 public:
  // Mirrors are kept under `dir`: "<dir>/<project id>.git" for a project's
  // repository (as before the pool existed, so existing mirrors are reused),
  // "<dir>/context/<project id>/<name>.git" for a context repository.
  MirrorPool(std::string dir, TransferLimits limits);

  // The mirror of the project's docs repository, with the project's
  // credentials (CredentialsFor). A project whose repository changed gets a
  // new mirror; users of the old one finish with it.
  Result<std::shared_ptr<Mirror>> ForProject(const Project& project);
  // The mirror of `repo`, one of `project`'s context repositories, reached
  // with the project's credentials.
  Result<std::shared_ptr<Mirror>> ForContext(const Project& project, const ContextRepository& repo);

  const TransferLimits& limits() const { return limits_; }

 private:
  Result<std::shared_ptr<Mirror>> Get(const std::string& key, const std::string& path,
                                      const std::string& url, Credentials credentials)
      EXCLUDES(mu_);
  struct Slot {
    Mutex mu;  // held while the mirror is opened
    std::shared_ptr<Mirror> mirror GUARDED_BY(mu);
    std::string url GUARDED_BY(mu);
  };
  std::string dir_;
  TransferLimits limits_;
  Mutex mu_;  // guards the map, not the slots
  std::map<std::string, std::shared_ptr<Slot>> slots_ GUARDED_BY(mu_);
};

}  // namespace docwright::git
