// What a reviewer reads about a job's branch: its changes against the base,
// each changed page rendered, the problems the checks report on the branch as
// it stands, and the pull request's description rendered. Written by the runner
// after every turn that pushed (replacing the one before), read by the API for
// the dashboard and the local forge's pull request page. Plain data: safe to
// copy between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"

namespace docwright {

struct ReviewFile {
  std::string path;
  std::string change;               // "added", "modified", "deleted" or "renamed"
  std::optional<std::string> from;  // renamed: the path it had on the base
  int64_t additions = 0;            // lines, from the diff
  int64_t deletions = 0;
  // A changed Markdown/MDX page, rendered: sanitised HTML (no script, no event
  // attribute, no URL but http(s), mailto, in-page anchors and data: images of
  // the branch), MDX components shown as labelled placeholders. Null for a file
  // that is not a page, a deleted page, or a page beyond the preview budget.
  std::optional<std::string> preview_html;
};

struct Review {
  std::string job_id;
  std::string project_id;
  std::string branch;       // the job's branch (the pull request's head)
  std::string base;         // the branch it targets
  std::string base_commit;  // what the diff is against (the merge base)
  std::string head_commit;
  std::vector<ReviewFile> files;  // every file the branch changes against its base
  std::string diff;               // unified diff of the branch, cut at kMaxReviewDiffBytes
  bool diff_truncated = false;
  std::vector<std::string> problems;   // the checks' problems on the branch as it stands
  std::vector<std::string> notes;      // what they noted without asking for a fix
  std::string pull_request_body_html;  // the description, rendered and sanitised
  UnixMillis updated_at = 0;
};

inline constexpr size_t kMaxReviewDiffBytes = 1 << 20;
// All previews of a review together, images included.
inline constexpr size_t kMaxReviewPreviewBytes = 4 << 20;

}  // namespace docwright
