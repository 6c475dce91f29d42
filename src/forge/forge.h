// Pull requests on the project's code host. One interface; one implementation per
// forge, each in its own unit: "local" (stored and shown by docwright:
// forge/local.h), GitHub, GitLab and Gitea, also Forgejo (forge/hosted.h);
// MakeForge (make_forge.cc) picks the project's.
//
// Lifetime and threads: a Forge is made for one turn and used by that turn's
// thread only; it holds a copy of its ForgeContext, whose pointers (the records,
// the mirror, the budget) must outlive it. MakeForge, ParseRepositoryUrl and
// LocalPullRequestUrl may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/job.h"
#include "core/status.h"

namespace docwright {
class LocalPullRequestRecords;
class WorkBudget;
namespace git {
class Mirror;
struct Identity;
}  // namespace git
}  // namespace docwright

namespace docwright::forge {

struct PullRequestSpec {
  std::string head;         // the job's branch, already pushed
  std::string head_commit;  // its commit now
  std::string base;         // the branch the pull request targets
  std::string base_commit;  // its commit, if known (the local forge diffs against it)
  std::string title;
  std::string body;
  bool draft = false;
};

struct PullRequest {
  std::string url;  // what the job shows as prLink
  int64_t number = 0;
};

// What a pull request is now on the forge.
struct PullRequestStatus {
  std::string state;         // "open", "merged" or "closed"
  std::string merge_commit;  // "merged": the commit its base got, if the forge says
};

// What merging a pull request did (Forge::Merge).
struct MergeResult {
  std::string commit;  // the base's head after the merge
  std::string url;     // the commit's page on the forge, if it has pages
};

class Forge {
 public:
  virtual ~Forge() = default;

  // The open pull request from `spec.head` into `spec.base`, with its title and
  // body brought up to date, or a new one when there is none. Idempotent: calling
  // it again for the same branch (a re-run turn, a follow-up) never opens a second
  // pull request. Errors carry the forge's own message and never the token:
  // Unauthenticated when the token is refused, InvalidArgument for any other
  // refusal (4xx), Unavailable when the forge cannot be reached or keeps failing
  // (5xx, rate limits) after retries.
  virtual Result<PullRequest> Ensure(const PullRequestSpec& spec) = 0;

  // The state of pull request `number` (open, merged or closed). NotFound if the
  // forge has no such pull request; other errors as Ensure's.
  virtual Result<PullRequestStatus> State(int64_t number) = 0;

  // Merges pull request `number` into its base, as the forge's merge button
  // does, only if its head is `head_commit` (what the checks passed). Conflict
  // when the forge refuses the merge (conflicts, the head moved, checks the
  // forge requires); other errors as Ensure's.
  virtual Result<MergeResult> Merge(int64_t number, const std::string& head_commit) = 0;

  // Whether the forge's account `login` may write to the repository (push to
  // it). NotFound for an account the forge does not know.
  virtual Result<bool> CanWrite(const std::string& login) = 0;

  // Posts `body` on pull request `number`: as a reply in the thread of review
  // comment `in_reply_to` when given (and the forge has threads), else as a
  // comment on the pull request.
  virtual Status Comment(int64_t number, const std::string& body,
                         const std::optional<std::string>& in_reply_to) = 0;

  // The page of commit `sha` of the repository on the forge ("" if it has
  // none).
  virtual std::string CommitUrl(const std::string& sha) const = 0;
};

// What a forge may need besides the project.
struct ForgeContext {
  LocalPullRequestRecords* pull_requests = nullptr;  // local: where its pull requests live
  git::Mirror* mirror = nullptr;                     // local: the project's mirror, for diffs
  WorkBudget* budget = nullptr;                      // local: the turn's, charged by the diff
  const git::Identity* identity = nullptr;           // local: who merges (Forge::Merge)
  std::string public_url;                            // local: where docwright's pages are served
  int max_attempts = 4;                              // hosted: attempts per request
  std::chrono::milliseconds max_delay{30000};
  // Waits between attempts (tests replace it); returns false to stop retrying.
  std::function<bool(std::chrono::milliseconds)> sleep;
};

// The forge of `project`, or InvalidArgument when its repository URL does not
// name a repository on that forge (hosted forges need "host/owner/repo").
Result<std::unique_ptr<Forge>> MakeForge(const Project& project, const ForgeContext& context);

// Where the local forge shows pull request `id`.
std::string LocalPullRequestUrl(const std::string& public_url, const std::string& id);

// The host and repository path a repository URL names: "https://h/o/r.git",
// "ssh://git@h:22/o/r", "git@h:o/r.git" give host "h" (with its port, if any),
// path "o/r". The scheme is "https", "http" or "ssh" (scp-like URLs).
struct RepositoryLocation {
  std::string scheme;
  std::string host;
  std::string path;
};
Result<RepositoryLocation> ParseRepositoryUrl(const std::string& url);

}  // namespace docwright::forge
