// The runner of `serve`, started late. Internal to cli/.
#pragma once

#include <memory>

#include "api/api.h"
#include "core/mutex.h"
#include "git/mirror_pool.h"
#include "runner/repository_turns.h"
#include "runner/runner.h"
#include "store/store.h"

namespace docwright {

// The runner of `serve`, started once the server listens (its port makes the
// default public URL); until then the API's hooks have nothing to stop, and the
// turns queued wait in the store (the runner takes them as it starts). The
// hooks may be called from any thread.
class LateRunner {
 public:
  // The API's hooks into the runner: before Start they stop nothing, and a
  // merge is answered Unavailable.
  ApiHooks Hooks();

  // `store` and `agent` must outlive this.
  void Start(Store& store, agent::Agent& agent, const RepositoryTurnsOptions& to,
             const RunnerOptions& ro, std::shared_ptr<git::MirrorPool> mirrors) EXCLUDES(mu_);

  // After Start, once nothing calls the hooks any more. False: see Runner::Stop.
  bool Stop() EXCLUDES(mu_);

 private:
  // Calls fn outside the lock (a hook runs inside a store write, which holds
  // up no other hook): the runner, once started, is kept until this ends.
  template <typename Fn>
  void With(Fn fn) EXCLUDES(mu_);

  Mutex mu_;
  // Set together by Start, then kept until this ends.
  std::unique_ptr<RepositoryTurns> turns_ GUARDED_BY(mu_);
  std::unique_ptr<Runner> runner_ GUARDED_BY(mu_);
};

}  // namespace docwright
