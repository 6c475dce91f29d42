// The local forge (forge/local.h).
#include "forge/local.h"

#include "core/local_pull_request.h"
#include "core/work_budget.h"
#include "git/git.h"

namespace docwright::forge {
namespace {

// The diff a local pull request shows is cut beyond this.
constexpr size_t kMaxDiffBytes = 1 << 20;

// The embedded forge: pull requests stored by docwright and shown on its own
// pages. The diff is taken when the pull request is created or updated.
class LocalForge final : public Forge {
 public:
  LocalForge(std::string project_id, const ForgeContext& context)
      : project_id_(std::move(project_id)), context_(context) {}

  Result<PullRequest> Ensure(const PullRequestSpec& spec) override {
    LocalPullRequest pr;
    pr.project_id = project_id_;
    pr.head = spec.head;
    pr.base = spec.base;
    pr.title = spec.title;
    pr.body = spec.body;
    pr.draft = spec.draft;
    std::string base_head = spec.base_commit;
    if (base_head.empty()) {
      auto fetched = context_.mirror->FetchBranch(spec.base);
      if (!fetched.ok()) return fetched.status();
      base_head = *fetched;
    }
    auto diff = context_.mirror->Diff(base_head, spec.head_commit, kMaxDiffBytes, context_.budget);
    if (diff.ok()) {
      pr.diff = std::move(diff->patch);
      if (diff->truncated) pr.diff += "\n[the diff is cut here: it is longer than 1 MiB]\n";
    } else if (diff.status().code() == Code::kResourceExhausted ||
               diff.status().code() == Code::kInvalidArgument) {
      // The branch is pushed: its pull request opens, saying why it shows no diff.
      if (context_.budget && context_.budget->cancelled()) return diff.status();
      pr.diff = "[the changes are not shown: " + diff.status().message() + "]\n";
    } else {
      return diff.status();
    }
    auto stored = context_.pull_requests->UpsertPullRequest(pr);
    if (!stored.ok()) return stored.status();
    return PullRequest{LocalPullRequestUrl(context_.public_url, stored->id), stored->number};
  }

 private:
  std::string project_id_;
  ForgeContext context_;
};

}  // namespace

Result<std::unique_ptr<Forge>> MakeLocalForge(const Project& project, const ForgeContext& context) {
  if (!context.pull_requests || !context.mirror) {
    return Status::Internal("the local forge needs its records and the mirror");
  }
  return std::unique_ptr<Forge>(std::make_unique<LocalForge>(project.id, context));
}

}  // namespace docwright::forge
