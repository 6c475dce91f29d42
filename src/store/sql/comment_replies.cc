// The SQL store: replies owed to pull request comments that became follow-ups
// (Store::AddCommentReply and the rest). A reply is one row per message; the
// workflows' engine lists the due ones (each held for a lease, so nodes sharing
// the database post it once), posts them and marks them done.
#include <algorithm>

#include "core/text.h"
#include "store/sql/internal.h"

namespace docwright::sql {
namespace {

// The most replies one ListDueCommentReplies call takes.
constexpr int kMaxRepliesListed = 1000;
constexpr size_t kMaxInReplyToBytes = 200;

constexpr Statement kMessageOfProject{
    "SELECT COUNT(*) FROM messages WHERE job_id = ?1 AND seq = ?2 AND project_id = ?3",
    "SELECT COUNT(*) FROM messages WHERE job_id = ?1 AND seq = ?2 AND project_id = ?3"};
// Once per message: a second record of one changes nothing.
constexpr Statement kInsertCommentReply{
    "INSERT INTO comment_replies (job_id, project_id, message_seq, pr_number, in_reply_to, "
    "attempts, next_attempt_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6) "
    "ON CONFLICT (job_id, message_seq) DO NOTHING",
    "INSERT INTO comment_replies (job_id, project_id, message_seq, pr_number, in_reply_to, "
    "attempts, next_attempt_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6) "
    "ON CONFLICT (job_id, message_seq) DO NOTHING"};
// Due: not done with, its time come, its message's turn finished.
#define DW_DUE_REPLIES                                                                       \
  "SELECT r.id, r.job_id, r.project_id, r.message_seq, r.pr_number, r.in_reply_to, "         \
  "r.attempts, r.created_at FROM comment_replies r JOIN turns t ON t.job_id = r.job_id AND " \
  "t.seq = r.message_seq WHERE r.posted_at IS NULL AND r.next_attempt_at <= "                \
  "docwright_now_ms() AND t.state IN ('succeeded', 'failed', 'cancelled') "                  \
  "ORDER BY r.next_attempt_at, r.id LIMIT ?1"
// Whether any may be due: a read first, so an idle round writes nothing.
constexpr Statement kAnyDueReply{DW_DUE_REPLIES, DW_DUE_REPLIES};
// PostgreSQL also passes over replies another node's claim holds.
constexpr Statement kClaimDueReplies{DW_DUE_REPLIES, DW_DUE_REPLIES " FOR UPDATE OF r SKIP LOCKED"};
#undef DW_DUE_REPLIES
constexpr Statement kLeaseReply{
    "UPDATE comment_replies SET next_attempt_at = docwright_now_ms() + ?2 WHERE id = ?1",
    "UPDATE comment_replies SET next_attempt_at = docwright_now_ms() + ?2 WHERE id = ?1"};
constexpr Statement kFinishReply{
    "UPDATE comment_replies SET posted_at = docwright_now_ms() WHERE id = ?1",
    "UPDATE comment_replies SET posted_at = docwright_now_ms() WHERE id = ?1"};
constexpr Statement kRetryReply{
    "UPDATE comment_replies SET attempts = attempts + 1, next_attempt_at = docwright_now_ms() + "
    "?2 WHERE id = ?1",
    "UPDATE comment_replies SET attempts = attempts + 1, next_attempt_at = docwright_now_ms() + "
    "?2 WHERE id = ?1"};

CommentReply ReadCommentReply(const Rows& r) {
  CommentReply reply;
  reply.id = r.Int("id");
  reply.job_id = r.Text("job_id");
  reply.project_id = r.Text("project_id");
  reply.message_seq = static_cast<int>(r.Int("message_seq"));
  reply.pr_number = r.Int("pr_number");
  reply.in_reply_to = r.OptText("in_reply_to");
  reply.attempts = static_cast<int>(r.Int("attempts"));
  reply.created_at = r.Int("created_at");
  return reply;
}

Status CheckCommentReply(const CommentReply& reply) {
  if (reply.pr_number < 1) return Status::InvalidArgument("pr_number must be 1 or more");
  if (reply.message_seq < 1) return Status::InvalidArgument("message_seq must be 1 or more");
  if (reply.in_reply_to) {
    const std::string& id = *reply.in_reply_to;
    if (id.empty() || id.size() > kMaxInReplyToBytes || !Utf8Length(id) ||
        HasControlCharacter(id, /*allow_line_breaks=*/false)) {
      return Status::InvalidArgument("in_reply_to must be 1 to " +
                                     std::to_string(kMaxInReplyToBytes) +
                                     " bytes of text without control characters");
    }
  }
  return Status();
}

}  // namespace

Status SqlStore::AddCommentReply(const CommentReply& reply) {
  if (Status s = CheckCommentReply(reply); !s.ok()) return s;
  return Write([&](Connection& c) -> Status {
    auto found = One(c, kMessageOfProject,
                     {V(reply.job_id), V(int64_t{reply.message_seq}), V(reply.project_id)});
    if (!found.ok()) return found.status();
    if (*found == 0) return Status::NotFound("the job has no such message");
    auto now = Now(c);
    if (!now.ok()) return now.status();
    return Run(c, kInsertCommentReply,
               {V(reply.job_id), V(reply.project_id), V(int64_t{reply.message_seq}),
                V(reply.pr_number), V(reply.in_reply_to), V(*now)});
  });
}

Result<std::vector<CommentReply>> SqlStore::ListDueCommentReplies(int limit) {
  limit = std::clamp(limit, 1, kMaxRepliesListed);
  auto any = Read<bool>([&](Connection& c) -> Result<bool> {
    auto r = c.Exec(kAnyDueReply, {V(int64_t{1})});
    if (!r.ok()) return r.status();
    return r->size() > 0;
  });
  if (!any.ok()) return any.status();
  std::vector<CommentReply> due;
  if (!*any) return due;
  const int64_t lease =
      std::chrono::duration_cast<std::chrono::milliseconds>(kCommentReplyLease).count();
  // A lease, not an outcome: as a claim, it need not wait for the flush.
  Status s = WriteAs(Commit::kLeaseOnly, [&](Connection& c) -> Status {
    due.clear();
    auto r = c.Exec(kClaimDueReplies, {V(int64_t{limit})});
    if (!r.ok()) return r.status();
    while (r->Next()) due.push_back(ReadCommentReply(*r));
    for (const CommentReply& reply : due) {
      if (Status w = Run(c, kLeaseReply, {V(reply.id), V(lease)}); !w.ok()) return w;
    }
    return Status();
  });
  if (!s.ok()) return s;
  return due;
}

Status SqlStore::FinishCommentReply(int64_t id) {
  return Write([&](Connection& c) -> Status {
    return Change(c, kFinishReply, {V(id)}, "comment reply not found");
  });
}

Status SqlStore::RetryCommentReply(int64_t id, std::chrono::milliseconds delay) {
  int64_t wait = std::max<int64_t>(delay.count(), 0);
  return Write([&](Connection& c) -> Status {
    return Change(c, kRetryReply, {V(id), V(wait)}, "comment reply not found");
  });
}

}  // namespace docwright::sql
