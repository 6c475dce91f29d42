// HandleCommentEvent (workflows/forge_events.h): a comment on a job's pull
// request that becomes a follow-up of the job (docs/api.md, "Follow-ups from
// the pull request").
//
// Each refusal is an outcome, a sentence for the operator: the event is done
// with. An error is returned only for what may pass (the store or the forge
// unreachable, the project's rate limit): handling the event again then is
// safe, since the follow-up is written under a key named after the comment, so
// a comment handled twice (or delivered twice) starts one turn, and its reply
// is recorded once per message.
#include "core/ids.h"
#include "core/json_writer.h"
#include "core/text.h"
#include "forge/forge.h"
#include "workflows/comment_replies.h"
#include "workflows/forge_events.h"
#include "workflows/pull_request_polling.h"

namespace docwright::workflows {
namespace {

// The most bytes of a comment id and a review comment's path taken.
constexpr size_t kMaxCommentIdBytes = 200;
constexpr size_t kMaxPathBytes = 1000;

// Earlier messages looked through for the one a follow-up wrote: the follow-up
// is the newest but for those added at the same moment, which the queue's
// limit bounds.
constexpr int kMessagesLookedThrough = kMaxQueuedFollowUps + 2;

bool IsChangesRequested(const ForgeEvent& event) {
  if (event.comment_kind != "review") return false;
  const std::string state = Lower(event.review_state);
  return state == "changes_requested" || state == "request_changes";
}

// A path as shown in the prompt: in a code span, so without backticks and
// control characters.
std::string ShownPath(const std::string& path) {
  std::string out;
  // Held in a variable: a range-for keeps only its outermost temporary alive.
  const std::string scrubbed = ScrubUtf8(path);
  for (char c : CutUtf8(scrubbed, kMaxPathBytes)) {
    if (c == '`') {
      out.push_back('\'');
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// The follow-up's prompt: the comment's text without the mention, after where
// a review comment was made.
std::string FollowUpPrompt(const ForgeEvent& event, const std::string& handle) {
  std::string text = WithoutMentions(ScrubUtf8(event.comment_body), handle);
  if (text.empty()) return text;
  std::string prompt;
  if (event.comment_kind == "review_comment" && !event.comment_path.empty()) {
    prompt = "On `" + ShownPath(event.comment_path) + "`";
    if (event.comment_line) prompt += " line " + std::to_string(*event.comment_line);
    prompt += ":\n\n";
  }
  prompt += text;
  return std::string(CutUtf8(prompt, kMaxPromptChars));
}

// The seq of the follow-up `prompt` just written to `job_id`: the newest of
// its latest messages with that prompt.
Result<std::optional<int>> FollowUpSeq(WorkflowStores store, const Scope& scope,
                                       const std::string& job_id, const std::string& prompt) {
  auto heads = store.jobs.ListMessageHeads(scope, {job_id}, kMessagesLookedThrough,
                                           static_cast<int>(kMaxPromptChars));
  if (!heads.ok()) return heads.status();
  std::optional<int> seq;
  if (heads->empty()) return seq;
  for (const MessageHead& head : heads->front()) {
    if (head.prompt == prompt && (!seq || head.seq > *seq)) seq = head.seq;
  }
  return seq;
}

// A forge's refusal (a 4xx, a token it does not take) rather than a failure
// that may pass.
bool IsRefusal(const Status& s) {
  return s.code() == Code::kInvalidArgument || s.code() == Code::kUnauthenticated;
}

std::string Sender(const ForgeEvent& event) { return "@" + OneLogLine(event.sender, 100); }

// A refusal: the sentence for the operator, the event done with; nullopt when
// there is none.
using Refusal = std::optional<std::string>;

// Why the comment starts nothing, judged from the project and the event alone
// (before the forge or the store is asked anything).
Refusal WhyIgnored(const Project& project, const ForgeEvent& event) {
  if (project.archived_at) return "the project is archived: nothing started";
  if (project.forge == ForgeKind::kLocal) {
    return "the local forge has no comments: its pull requests take follow-ups "
           "through the API";
  }
  if (event.forge != project.forge) {
    return "a comment from " + std::string(ToString(event.forge)) + ", not the project's forge (" +
           std::string(ToString(project.forge)) + "): nothing started";
  }
  if (!event.comment_created) return "an edit or a deletion: nothing started";
  if (event.comment_body.find(kReplyMarker) != std::string::npos) {
    return "docwright's own reply: nothing started";
  }
  const std::string& handle = project.mention_handle;
  const bool mentioned = MentionsHandle(event.comment_body, handle);
  if (!mentioned && !IsChangesRequested(event)) {
    return "the comment does not mention @" + handle + ": nothing started";
  }
  if (event.sender.empty()) return "the comment names no author: nothing started";
  if (event.comment_id.empty() || event.comment_id.size() > kMaxCommentIdBytes ||
      HasControlCharacter(ScrubUtf8(event.comment_id), false)) {
    return "the comment has no usable id: nothing started";
  }
  if (event.pr_number < 1 || (event.pr_head.empty() && event.pr_url.empty())) {
    return "the comment names no pull request: nothing started";
  }
  return std::nullopt;
}

// Why the comment's author may not steer docwright's commits: only accounts
// that may push to the repository do, as the project's forge says. An error
// is a failure that may pass (the event is handled again).
Result<Refusal> WhyMayNotWrite(WorkflowStores store, const ForgeEventContext& context,
                               const Project& project, const ForgeEvent& event) {
  auto forge = forge::MakeForge(project, ForgeContextFor(store, context));
  if (!forge.ok()) {
    if (!IsRefusal(forge.status())) return forge.status();
    return Refusal("the project's forge settings: " + OneLogLine(forge.status().message(), 300) +
                   ": nothing started");
  }
  auto writes = (*forge)->CanWrite(event.sender);
  if (!writes.ok()) {
    if (writes.status().code() == Code::kNotFound) {
      return Refusal(Sender(event) + " is not an account the forge knows: nothing started");
    }
    // The token may not read permissions: handling it again would not help.
    if (!IsRefusal(writes.status())) return writes.status();
    return Refusal("the forge would not say whether " + Sender(event) + " may write: " +
                   OneLogLine(writes.status().message(), 300) + ": nothing started");
  }
  if (!*writes) return Refusal(Sender(event) + " may not write to the repository: nothing started");
  return Refusal();
}

// The job whose pull request the comment is on; NotFound if it is no job's.
// A comment on a pull request's conversation names it by its page only
// (GitHub's and Gitea's issue_comment); a review comment by its branch too.
// Either way the pull request must be the job's own, by its number: a branch
// of the same name in a fork is another pull request.
Result<Job> JobOfComment(WorkflowStores store, const Project& project, const ForgeEvent& event) {
  auto job = event.pr_head.empty()
                 ? store.pull_requests.FindJobByPullRequestLink(project.id, event.pr_url)
                 : store.pull_requests.FindJobByBranch(project.id, event.pr_head);
  if (job.ok() && (!job->pr_link || PullRequestNumberOf(*job->pr_link) != event.pr_number)) {
    return Status::NotFound("not the job's pull request");
  }
  return job;
}

// The follow-up's write, keyed by the comment: a comment handled (or
// delivered) twice starts one turn. `event` outlives the write.
IdempotentRequest FollowUpKey(const ForgeEvent& event, const std::string& job_id) {
  IdempotentRequest keyed;
  keyed.key = "comment:" + std::string(ToString(event.forge)) + ":" + event.comment_id;
  keyed.route = "message " + job_id;
  keyed.body_sha256 = Sha256Hex(event.comment_id);
  keyed.status = 200;
  keyed.render = [&event](const Job& written) {
    std::string out;
    JsonWriter w(&out);
    w.BeginObject().Key("jobId").String(written.id).Key("commentId").String(event.comment_id);
    w.EndObject();
    return out;
  };
  return keyed;
}

// Records the reply owed for the follow-up `prompt` of `job`, and returns
// `done` completed with its message. Recorded once per message, so a comment
// handled again after a crash between the two writes still gets it.
Result<std::string> RecordReply(WorkflowStores store, const Scope& scope, const Job& job,
                                const ForgeEvent& event, const std::string& prompt,
                                const std::string& done) {
  auto seq = FollowUpSeq(store, scope, job.id, prompt);
  if (!seq.ok()) return seq.status();
  if (!*seq) return done + "; its reply is not known any more";
  CommentReply reply;
  reply.job_id = job.id;
  reply.project_id = scope.project_id;
  reply.message_seq = **seq;
  reply.pr_number = event.pr_number;
  if (event.comment_kind == "review_comment") reply.in_reply_to = event.comment_id;
  if (Status s = store.pull_requests.AddCommentReply(reply); !s.ok()) return s;
  return done + " (message " + std::to_string(**seq) + ")";
}

}  // namespace

Result<std::string> HandleCommentEvent(WorkflowStores store, git::MirrorPool& /*mirrors*/,
                                       const ForgeEventContext& context, const ForgeEvent& event) {
  if (event.kind != ForgeEventKind::kComment) return std::string("not a comment");
  auto project = store.tenants.GetProjectById(event.project_id);
  if (!project.ok()) {
    if (project.status().code() == Code::kNotFound) return std::string("the project is gone");
    return project.status();
  }
  if (Refusal why = WhyIgnored(*project, event)) return std::move(*why);
  const std::string& handle = project->mention_handle;
  std::string prompt = FollowUpPrompt(event, handle);
  if (prompt.empty()) return "the comment asks nothing of @" + handle + ": nothing started";

  auto may_not_write = WhyMayNotWrite(store, context, *project, event);
  if (!may_not_write.ok()) return may_not_write.status();
  if (*may_not_write) return std::move(**may_not_write);

  auto job = JobOfComment(store, *project, event);
  if (!job.ok()) {
    if (job.status().code() == Code::kNotFound) {
      return "pull request #" + std::to_string(event.pr_number) + " is no job's: nothing started";
    }
    return job.status();
  }

  const Scope scope{project->org_id, project->id};
  auto written = store.jobs.AddMessageWithKey(scope, job->id, NewMessage{.prompt = prompt},
                                              FollowUpKey(event, job->id));
  if (!written.ok()) {
    Code code = written.status().code();
    if (code == Code::kConflict || code == Code::kNotFound || code == Code::kInvalidArgument) {
      return "job " + job->id +
             " takes no follow-up: " + OneLogLine(written.status().message(), 300);
    }
    return written.status();
  }
  std::string done;
  switch (written->outcome) {
    case IdempotentWrite::Outcome::kDone:
      done = "follow-up of job " + job->id + " from " + Sender(event) + "'s comment";
      break;
    case IdempotentWrite::Outcome::kReplayed:
      done = "already a follow-up of job " + job->id + " (the comment was handled before)";
      break;
    case IdempotentWrite::Outcome::kKeyReused:
      return std::string(
          "the comment's key was used by another request of the project: nothing started");
    case IdempotentWrite::Outcome::kInProgress:
      return Status::Unavailable("the comment's follow-up is being written by another node");
  }
  return RecordReply(store, scope, *job, event, prompt, done);
}

}  // namespace docwright::workflows
