#include "cli/serve_runner.h"

#include <optional>
#include <utility>

namespace docwright {

template <typename Fn>
void LateRunner::With(Fn fn) {
  Runner* runner = nullptr;
  {
    MutexLock lock(mu_);
    runner = runner_.get();
  }
  if (runner) fn(*runner);
}

ApiHooks LateRunner::Hooks() {
  return ApiHooks{
      [this](const std::string& id) { With([&](Runner& r) { r.CancelJob(id); }); },
      [this](const std::string& id) { With([&](Runner& r) { r.StopJob(id); }); },
      [this](const LocalPullRequest& pr, std::string_view method, std::string_view expected_head) {
        RepositoryTurns* turns = nullptr;
        {
          MutexLock lock(mu_);
          turns = turns_.get();  // kept until the end
        }
        if (!turns) return Result<PullRequestMerge>(Status::Unavailable("starting"));
        return turns->MergePullRequest(pr, method, expected_head);
      }};
}

void LateRunner::Start(Store& store, agent::Agent& agent, const RepositoryTurnsOptions& to,
                       const RunnerOptions& ro, std::shared_ptr<git::MirrorPool> mirrors) {
  MutexLock lock(mu_);
  turns_ = std::make_unique<RepositoryTurns>(store, agent, to, std::move(mirrors));
  runner_ = std::make_unique<Runner>(store, *turns_, ro);
  runner_->Start();
}

bool LateRunner::Stop() {
  Runner* runner = nullptr;
  {
    MutexLock lock(mu_);
    runner = runner_.get();
  }
  return runner->Stop();  // it may wait long: not under mu_
}

}  // namespace docwright
