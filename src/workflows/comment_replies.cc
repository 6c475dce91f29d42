// Replies to the comments that became follow-ups (workflows/comment_replies.h).
#include "workflows/comment_replies.h"

#include <spdlog/spdlog.h>

#include "core/text.h"

namespace docwright::workflows {
namespace {

bool IsWordByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// Where each mention of "@handle" in `text` starts, with its length, as
// MentionsHandle takes them; quoted lines are passed over when `skip_quotes`.
std::vector<std::pair<size_t, size_t>> Mentions(std::string_view text, std::string_view handle,
                                                bool skip_quotes) {
  std::vector<std::pair<size_t, size_t>> found;
  if (handle.empty()) return found;
  const std::string lower = Lower(text);
  const std::string needle = "@" + Lower(handle);
  // The line the last occurrence was on, and whether it is a quote (its first
  // non-blank is '>'): lines are looked at once each, left to right.
  size_t line_start = 0, line_end = 0;
  bool quoted = false;
  for (size_t at : FindAll(lower, needle)) {
    if (at >= line_end) {
      line_start = line_end;
      while (true) {
        size_t nl = lower.find('\n', line_start);
        line_end = nl == std::string::npos ? lower.size() : nl + 1;
        if (at < line_end) break;
        line_start = line_end;
      }
      std::string_view line = std::string_view(lower).substr(line_start, line_end - line_start);
      line = TrimLeft(line, " \t");
      quoted = !line.empty() && line.front() == '>';
    }
    if (skip_quotes && quoted) continue;
    // A whole word: not inside an address ("a@docwright.dev" has a letter
    // before), not the start of a longer handle or a team ("@docwright/x").
    if (at > 0 && (IsWordByte(lower[at - 1]) || lower[at - 1] == '.')) continue;
    size_t end = at + needle.size();
    if (end < lower.size() && (IsWordByte(lower[end]) || lower[end] == '/')) continue;
    found.emplace_back(at, needle.size());
  }
  return found;
}

// `text` with "@" followed by a letter or digit broken by a zero-width space:
// shown the same, it notifies no one.
std::string Defused(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out.push_back(text[i]);
    if (text[i] == '@' && i + 1 < text.size() && IsWordByte(text[i + 1])) out += "\u200b";
  }
  return out;
}

std::string Quote(const std::optional<std::string>& text) {
  if (!text) return "";
  // Posted where anyone reading the pull request sees it: a remote's URL in an
  // error (a git or provider message) loses any credentials in it.
  const std::string redacted = RedactCredentials(ScrubUtf8(*text));
  std::string cut(CutUtf8(redacted, kMaxReplyQuoteBytes));
  if (cut.size() < redacted.size()) cut += " [...]";
  return Defused(cut);
}

std::string Where(const Job& job) {
  std::string out;
  if (job.pr_link) out += "\n\nPull request: " + Defused(*job.pr_link);
  if (job.commit_url) {
    out += "\n\nCommit: " + Defused(*job.commit_url);
  } else if (job.commit_sha) {
    out += "\n\nCommit: " + Defused(*job.commit_sha);
  }
  return out;
}

// Posts `reply`: OK once it is done with (posted, or given up on because its
// job is gone); an error to try it again later.
Status Post(WorkflowStores store, const ForgeEventContext& context, const CommentReply& reply,
            std::string* what) {
  auto project = store.tenants.GetProjectById(reply.project_id);
  if (!project.ok()) {
    if (project.status().code() != Code::kNotFound) return project.status();
    *what = "given up on: the project is gone";
    return Status();
  }
  Scope scope{project->org_id, project->id};
  auto job = store.jobs.GetJob(scope, reply.job_id);
  if (!job.ok()) {
    if (job.status().code() != Code::kNotFound) return job.status();
    *what = "given up on: the job is gone";
    return Status();
  }
  MessageQuery query;
  query.after_seq = reply.message_seq - 1;
  query.limit = 1;
  auto page = store.jobs.ListMessages(scope, reply.job_id, query);
  if (!page.ok()) return page.status();
  if (page->messages.empty() || page->messages.front().seq != reply.message_seq) {
    *what = "given up on: the message is gone";
    return Status();
  }
  auto forge = forge::MakeForge(*project, ForgeContextFor(store, context));
  if (!forge.ok()) return forge.status();
  Status posted = (*forge)->Comment(reply.pr_number, ReplyBody(*job, page->messages.front()),
                                    reply.in_reply_to);
  if (!posted.ok()) return posted;
  *what = "posted";
  return Status();
}

}  // namespace

bool MentionsHandle(std::string_view text, std::string_view handle) {
  return !Mentions(text, handle, /*skip_quotes=*/true).empty();
}

std::string WithoutMentions(std::string_view text, std::string_view handle) {
  std::string out;
  size_t from = 0;
  for (auto [at, length] : Mentions(text, handle, /*skip_quotes=*/false)) {
    if (at < from) continue;
    out.append(text.substr(from, at - from));
    from = at + length;
    if (from < text.size() && (text[from] == ',' || text[from] == ':')) ++from;
    if (from < text.size() && text[from] == ' ') ++from;
    // At the end of a sentence ("..., @docwright."): the sentence ends where
    // the mention began.
    if (from == text.size() ||
        std::string_view(".!?\n").find(text[from]) != std::string_view::npos) {
      out.erase(out.find_last_not_of(" ,") + 1);
    }
  }
  out.append(text.substr(from));
  return std::string(Trim(out, " \t\r\n"));
}

std::string ReplyBody(const Job& job, const Message& message) {
  std::string body(kReplyMarker);
  body += "\n";
  switch (message.state) {
    case TurnState::kSucceeded:
      body += message.summary ? "Done: " + Quote(message.summary) : "Done.";
      body += Where(job);
      break;
    case TurnState::kFailed:
      body += "I could not do this: " + (message.error ? Quote(message.error) : "the turn failed.");
      body += Where(job);
      break;
    case TurnState::kCancelled:
      body += "This follow-up was stopped before it finished";
      body += message.error ? ": " + Quote(message.error) : ".";
      body += Where(job);
      break;
    case TurnState::kQueued:
    case TurnState::kRunning:
      body += "This follow-up is still under way.";
      break;
  }
  return body;
}

forge::ForgeContext ForgeContextFor(WorkflowStores store, const ForgeEventContext& context) {
  forge::ForgeContext forge_context;
  forge_context.pull_requests = &store.pull_requests;
  forge_context.public_url = context.public_url;
  forge_context.max_attempts = context.forge_attempts;
  forge_context.max_delay = context.forge_max_delay;
  return forge_context;
}

void PostDueReplies(WorkflowStores store, const ForgeEventContext& context) {
  auto due = store.pull_requests.ListDueCommentReplies(kMaxRepliesPerRound);
  if (!due.ok()) {
    spdlog::warn("workflows: the replies due to pull request comments: {} (tried again next round)",
                 OneLogLine(due.status().message(), 1000));
    return;
  }
  for (const CommentReply& reply : *due) {
    const std::string which = "the reply to pull request #" + std::to_string(reply.pr_number) +
                              " for job " + reply.job_id + " (message " +
                              std::to_string(reply.message_seq) + ")";
    std::string what;
    Status posted = Post(store, context, reply, &what);
    if (posted.ok()) {
      spdlog::info("workflows: {}: {}", which, what);
      if (Status s = store.pull_requests.FinishCommentReply(reply.id); !s.ok()) {
        // Listed again once its lease ends: posted twice at worst.
        spdlog::warn("workflows: {}: not marked done: {}", which, OneLogLine(s.message(), 1000));
      }
      continue;
    }
    const int attempts = reply.attempts + 1;
    if (attempts >= kMaxReplyAttempts) {
      spdlog::warn("workflows: {}: given up on after {} attempts: {}", which, attempts,
                   OneLogLine(posted.message(), 1000));
      if (Status s = store.pull_requests.FinishCommentReply(reply.id); !s.ok()) {
        spdlog::warn("workflows: {}: not marked done: {}", which, OneLogLine(s.message(), 1000));
      }
      continue;
    }
    spdlog::warn("workflows: {}: attempt {} of {} failed: {}", which, attempts, kMaxReplyAttempts,
                 OneLogLine(posted.message(), 1000));
    if (Status s = store.pull_requests.RetryCommentReply(reply.id, kReplyRetryDelays[attempts - 1]);
        !s.ok()) {
      spdlog::warn("workflows: {}: not rescheduled: {}", which, OneLogLine(s.message(), 1000));
    }
  }
}

}  // namespace docwright::workflows
