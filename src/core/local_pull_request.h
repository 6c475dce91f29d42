// The embedded "local" forge's pull requests: the record, the narrow interface
// the forge stores them through (the Store implements it), and where the API
// shows them. Implementations are safe to call from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/time.h"

namespace docwright {

// A pull request of the embedded "local" forge: docwright stores and shows it.
// One open per (project, head branch): once merged it stays as it was, and work
// pushed to the branch later opens the next one. `id` is unguessable: it is the only secret of
// the page that shows it (a browser link cannot carry an API key).
struct LocalPullRequest {
  std::string id;
  std::string project_id;
  int64_t number = 0;  // per project: 1, 2, ...
  std::string head;    // the branch with the changes
  std::string base;    // the branch it targets
  std::string title;
  std::string body;
  std::string diff;  // unified diff of head against base, bounded by its writer
  bool draft = false;
  UnixMillis created_at = 0;
  UnixMillis updated_at = 0;
  // Set when its job was archived: the body and diff are gone, and the page says
  // only that it was closed.
  std::optional<UnixMillis> archived_at;
  // Set when it was merged into its base (MarkPullRequestMerged): the base's
  // head after the merge (a merge commit, or the branch's head when
  // fast-forwarded). A merged pull request is never changed again but for its
  // job's archiving, which takes its body and diff down as for any other.
  std::optional<UnixMillis> merged_at;
  std::string merge_commit;
};

// What merging a local pull request did (ApiHooks::merge_pull_request).
struct PullRequestMerge {
  std::string merge_commit;  // the base's head after the merge
  UnixMillis merged_at = 0;
};

// Local pull request ids: 22 base62 characters (about 131 random bits).
inline constexpr size_t kPullRequestIdLength = 22;
inline bool LooksLikePullRequestId(std::string_view id) {
  if (id.size() != kPullRequestIdLength) return false;
  for (char c : id) {
    bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum) return false;
  }
  return true;
}
// Where the API serves a local pull request's page, under the public URL.
inline std::string PullRequestPagePath(std::string_view id) { return "/pulls/" + std::string(id); }

class LocalPullRequestRecords {
 public:
  virtual ~LocalPullRequestRecords() = default;
  // Creates the project's pull request for `pr.head`, or updates the title, body,
  // diff and draft flag of the one open for it; id, number and created_at are
  // assigned on creation. A merged one is not reopened: the branch gets a new
  // pull request, numbered next. Returns the stored pull request.
  virtual Result<LocalPullRequest> UpsertPullRequest(const LocalPullRequest& pr) = 0;
  // NotFound unless a pull request has this id.
  virtual Result<LocalPullRequest> GetPullRequest(const std::string& id) = 0;
  // The project's pull request numbered `number`; NotFound unless there is one.
  virtual Result<LocalPullRequest> GetPullRequestByNumber(const std::string& project_id,
                                                          int64_t number) = 0;
  // Records pull request `id` merged at `merged_at` as `merge_commit`, and
  // returns it. NotFound unless a pull request has this id; Conflict if it is
  // merged already, or closed (its job archived).
  virtual Result<LocalPullRequest> MarkPullRequestMerged(const std::string& id,
                                                         const std::string& merge_commit,
                                                         UnixMillis merged_at) = 0;
};

}  // namespace docwright
