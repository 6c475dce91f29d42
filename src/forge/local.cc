// The local forge (forge/local.h).
#include "forge/local.h"

#include "core/local_pull_request.h"
#include "core/time.h"
#include "core/work_budget.h"
#include "git/git.h"

namespace docwright::forge {
namespace {

// The diff a local pull request shows is cut beyond this.
constexpr size_t kMaxDiffBytes = 1 << 20;

// The embedded forge: pull requests stored by docwright and shown on its own
// pages. The diff is taken when the pull request is created or updated; a
// merge is made by docwright itself, with the mirror, as the API's merge
// button does (RepositoryTurns::MergePullRequest).
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

  Result<PullRequestStatus> State(int64_t number) override {
    auto pr = context_.pull_requests->GetPullRequestByNumber(project_id_, number);
    if (!pr.ok()) return pr.status();
    if (pr->merged_at) return PullRequestStatus{"merged", pr->merge_commit};
    // A local pull request is closed only by archiving its job.
    if (pr->archived_at) return PullRequestStatus{"closed", ""};
    return PullRequestStatus{"open", ""};
  }

  Result<MergeResult> Merge(int64_t number, const std::string& head_commit) override {
    auto pr = context_.pull_requests->GetPullRequestByNumber(project_id_, number);
    if (!pr.ok()) return pr.status();
    if (pr->merged_at) return Status::Conflict("the pull request is merged already");
    if (pr->archived_at)
      return Status::Conflict("the pull request is closed: its job was archived");
    git::Identity committer = context_.identity ? *context_.identity : git::Identity{};
    WorkBudget* budget = context_.budget;
    // Fetches both branches, merges, and pushes the base under a lease on the
    // head it merged into: a base that moved meanwhile is Conflict, never
    // overwritten; so is a branch whose head is not `head_commit`.
    auto merged = context_.mirror->Merge(
        pr->head, pr->base, git::MergeMethod::kMerge, committer,
        [budget] { return budget && budget->cancelled(); }, head_commit);
    if (!merged.ok()) return merged.status();
    auto marked =
        context_.pull_requests->MarkPullRequestMerged(pr->id, merged->commit, NowMillis());
    if (!marked.ok()) return marked.status();
    return MergeResult{marked->merge_commit, CommitUrl(marked->merge_commit)};
  }

  // The local forge shows pull requests, not commits.
  std::string CommitUrl(const std::string&) const override { return ""; }

  // Local pull requests take follow-ups through the API, not comments: no
  // account of a forge writes to the repository.
  Result<bool> CanWrite(const std::string& login) override { return false; }

  Status Comment(int64_t number, const std::string& body,
                 const std::optional<std::string>& in_reply_to) override {
    return Status::Unavailable("the local forge has no comments");
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
