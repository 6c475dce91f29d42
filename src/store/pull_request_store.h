// PullRequestStore: the store's concern of what a job publishes: its branch,
// commit and pull request, the local forge's pull requests
// (LocalPullRequestRecords), the review of a branch, and the replies owed to
// comments on pull requests.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/job.h"
#include "core/local_pull_request.h"
#include "core/review.h"
#include "core/status.h"
#include "store/scope.h"

namespace docwright {

// A reply docwright owes a comment on a pull request that became a follow-up
// of its job (workflows/forge_events.h, HandleCommentEvent): posted once the
// follow-up's turn (message `message_seq` of the job) has finished, saying what
// it changed or why it could not.
struct CommentReply {
  int64_t id = 0;  // assigned by the store
  std::string job_id;
  std::string project_id;
  int message_seq = 0;
  int64_t pr_number = 0;                   // the pull request the comment is on
  std::optional<std::string> in_reply_to;  // a review comment: the thread to reply in
  int attempts = 0;                        // failed attempts to post it so far
  UnixMillis created_at = 0;
};

// How long ListDueCommentReplies holds a reply for its caller: another call
// lists it again after this (its caller crashed before posting it).
inline constexpr std::chrono::minutes kCommentReplyLease{5};

// Thread-safe; every call blocks on the database. A reply due is held for its
// caller for kCommentReplyLease, so nodes sharing the database post it once.
class PullRequestStore : public LocalPullRequestRecords {
 public:
  virtual ~PullRequestStore() = default;

  // --- Pull requests of the local forge: see LocalPullRequestRecords ---

  // --- Reviews of a job's branch (core/review.h) ---
  // Replaces the job's review with `review` (its job_id, project_id and branch
  // say whose). NotFound if the job does not exist.
  virtual Status PutReview(const Review& review) = 0;
  // The job's review; NotFound if the job is not in scope or has none yet.
  virtual Result<Review> GetReview(const Scope& scope, const std::string& job_id) = 0;
  // The review of the project's job whose branch is `branch`; NotFound if none.
  virtual Result<Review> GetReviewByBranch(const std::string& project_id,
                                           const std::string& branch) = 0;

  // --- Publishing: a job's branch, commit and pull request (core/job.h) ---
  // Job::publish is written by CreateJob (NewJob's, else the project's) and
  // StartWorkflowRun (the workflow's, else the project's); Job::commit_sha,
  // commit_url and pr_state by FinishTurn (TurnOutcome's), and:
  // Records what became of the job's pull request on its forge: "open",
  // "merged" or "closed" (else InvalidArgument). The job changes (updatedAt,
  // announced) only when the state does; either way the time it was learned
  // is noted, for ListJobsWithOpenPullRequests. NotFound for an unknown job.
  virtual Status SetPullRequestState(const std::string& job_id, const std::string& state) = 0;
  // Jobs not archived with a pull request (pr_link) whose state is not known
  // or "open", at most `limit`, those whose state was learned longest ago (or
  // never) first: for the engine's polls of the forges.
  virtual Result<std::vector<Job>> ListJobsWithOpenPullRequests(int limit) = 0;
  // The project's newest job working on `branch` (its source.ref); NotFound
  // if none.
  virtual Result<Job> FindJobByBranch(const std::string& project_id, const std::string& branch) = 0;
  // The project's newest job whose prLink is `pr_link` (the pull request's
  // page, as its forge gives it); NotFound if none.
  virtual Result<Job> FindJobByPullRequestLink(const std::string& project_id,
                                               const std::string& pr_link) = 0;
  // Moves the job to `branch` (a follow-up after its pull request was merged
  // or closed: a new branch, whose pull request is not known yet: pr_state is
  // cleared). InvalidArgument as CheckBranchName, or for the project's base
  // branch; Conflict when another active or archived job of the project works
  // on it; NotFound for an unknown job. Announced.
  virtual Status SetJobBranch(const std::string& job_id, const std::string& branch) = 0;

  // --- Replies to pull request comments (CommentReply) ---
  // Records the reply owed for the follow-up `reply.message_seq` of job
  // `reply.job_id` (of project `reply.project_id`); id, attempts and created_at
  // are assigned. Once per message: recording it again (a comment handled
  // twice) changes nothing. InvalidArgument for a pr_number below 1 or an
  // in_reply_to that is empty, over 200 bytes or holds control characters;
  // NotFound if the job has no such message in that project.
  virtual Status AddCommentReply(const CommentReply& reply) = 0;
  // Replies due: not posted, their message's turn finished (succeeded, failed
  // or cancelled), their next attempt's time come; the earliest due first, at
  // most `limit`. Each reply listed is held for kCommentReplyLease: no other
  // call lists it until then, so nodes sharing the database post it once.
  virtual Result<std::vector<CommentReply>> ListDueCommentReplies(int limit) = 0;
  // The reply is done with: posted, or given up on. Never listed again.
  // NotFound if there is no such reply.
  virtual Status FinishCommentReply(int64_t id) = 0;
  // Posting the reply failed: counts the attempt, and makes the reply due again
  // `delay` from now. NotFound if there is no such reply.
  virtual Status RetryCommentReply(int64_t id, std::chrono::milliseconds delay) = 0;
};

}  // namespace docwright
