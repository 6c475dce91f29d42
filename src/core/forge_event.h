// A delivery of a forge's webhook (POST /hooks/{github|gitlab|gitea}/{project
// id}), verified with the project's hook secret and reduced to what docwright
// acts on: a push (workflows' push and merge triggers), a pull request closed
// or merged (the job's prState), a comment or review on a pull request (a
// follow-up of its job). The API records it (Store::RecordForgeEvent) and the
// workflows' engine acts on it, once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/job.h"
#include "core/time.h"

namespace docwright {

enum class ForgeEventKind { kPush, kPullRequest, kComment };
std::string_view ToString(ForgeEventKind k);  // "push", "pull_request", "comment"
std::optional<ForgeEventKind> ParseForgeEventKind(std::string_view s);

// The most bytes of a comment's text kept.
inline constexpr size_t kMaxForgeCommentBytes = 16 * 1024;

struct ForgeEvent {
  int64_t id = 0;  // assigned by the store
  std::string project_id;
  ForgeKind forge = ForgeKind::kGithub;
  std::string delivery_id;  // the forge's id of the delivery: a delivery recorded twice is one
  ForgeEventKind kind = ForgeEventKind::kPush;
  std::string sender;  // the account that caused it (login / username)

  // The repository, as every URL the payload gives for it (clone over https,
  // ssh, its web page), for matching with the project's and its context
  // repositories' URLs.
  std::vector<std::string> repository_urls;

  // kPush: the branch ("" for a tag or anything else) and its heads.
  std::string branch;
  std::string before;  // all zeros or "" for a new branch
  std::string after;   // all zeros or "" for a deleted branch

  // kPullRequest and kComment: the pull request (merge request).
  int64_t pr_number = 0;
  std::string pr_url;
  std::string pr_head;  // its branch
  std::string pr_base;
  // kPullRequest: "closed" (pr_merged says whether by a merge), "reopened",
  // or another action of the forge's, kept as it names it.
  std::string pr_action;
  bool pr_merged = false;

  // kComment: a comment on the pull request, a review comment on a line, or a
  // review (whose state is, e.g., "changes_requested").
  std::string comment_kind;  // "comment", "review_comment", "review"
  std::string comment_id;    // the forge's id, unique per forge and repository
  std::string comment_body;  // at most kMaxForgeCommentBytes, valid UTF-8
  std::string comment_url;
  std::string comment_path;             // review_comment: the file
  std::optional<int64_t> comment_line;  // review_comment: the line
  std::string review_state;             // review
  bool comment_created = true;          // false for an edit or deletion: starts nothing

  UnixMillis received_at = 0;
  std::optional<UnixMillis> handled_at;
  std::string outcome;  // what handling it did, in a sentence (for the operator)
};

}  // namespace docwright
