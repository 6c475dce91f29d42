// Replies owed to pull request comments in the Store (store.h, "Replies to
// pull request comments"), on SQLite and on PostgreSQL, directly and through
// the cached store: recorded once per message, due once the message's turn has
// finished (succeeded, failed or cancelled), held for a lease once listed,
// retried later when asked, never listed once finished, and gone with their
// project.
#include <gtest/gtest.h>

#include "store/cached_store.h"
#include "support/store_fixture.h"

namespace docwright {
namespace {

using std::chrono::milliseconds;

class StoreCommentRepliesTest : public testing::StoreTest {
 protected:
  // The job's follow-up "Fix the link too" (message 2) and the reply it owes
  // on pull request #3, in review comment 99's thread.
  CommentReply FollowUp(Store& store, const Job& job) {
    auto added = store.AddMessage(ScopeOf(project_), job.id, "Fix the link too");
    EXPECT_TRUE(added.ok()) << added.status().message();
    CommentReply reply;
    reply.job_id = job.id;
    reply.project_id = project_.id;
    reply.message_seq = 2;
    reply.pr_number = 3;
    reply.in_reply_to = "99";
    return reply;
  }

  void FinishNext(Store& store, const TurnOutcome& outcome) {
    auto claimed = store.ClaimTurn("w", milliseconds(60000), kMaxTurnAttempts);
    ASSERT_TRUE(claimed.ok() && claimed->has_value());
    auto finished = store.FinishTurn((*claimed)->turn_id, "w", outcome);
    ASSERT_TRUE(finished.ok()) << finished.status().message();
  }

  std::vector<CommentReply> Due(Store& store) {
    auto due = store.ListDueCommentReplies(10);
    EXPECT_TRUE(due.ok()) << due.status().message();
    return due.ok() ? *due : std::vector<CommentReply>{};
  }

  // The contract, on `store`.
  void ReplyIsDueOnceItsTurnHasFinished(Store& store) {
    Job job = Create(project_);
    CommentReply reply = FollowUp(store, job);
    ASSERT_TRUE(store.AddCommentReply(reply).ok());
    ASSERT_TRUE(store.AddCommentReply(reply).ok()) << "a second record changes nothing";
    EXPECT_TRUE(Due(store).empty()) << "its turn has not run";

    FinishNext(store, TurnOutcome{.succeeded = true, .summary = "first"});
    EXPECT_TRUE(Due(store).empty()) << "the first turn is not the follow-up's";
    FinishNext(store, TurnOutcome{.succeeded = false, .error = "no"});
    auto due = Due(store);
    ASSERT_EQ(due.size(), 1u) << "once, however often it was recorded";
    EXPECT_GT(due[0].id, 0);
    EXPECT_EQ(due[0].job_id, job.id);
    EXPECT_EQ(due[0].project_id, project_.id);
    EXPECT_EQ(due[0].message_seq, 2);
    EXPECT_EQ(due[0].pr_number, 3);
    EXPECT_EQ(due[0].in_reply_to, "99");
    EXPECT_EQ(due[0].attempts, 0);
    EXPECT_GT(due[0].created_at, 0);
    EXPECT_TRUE(Due(store).empty()) << "held for its lister";

    // A failed attempt: due again after the delay asked for, counted.
    ASSERT_TRUE(store.RetryCommentReply(due[0].id, milliseconds(0)).ok());
    auto again = Due(store);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].attempts, 1);
    ASSERT_TRUE(store.RetryCommentReply(due[0].id, std::chrono::hours(1)).ok());
    EXPECT_TRUE(Due(store).empty()) << "not before its time";

    ASSERT_TRUE(store.RetryCommentReply(due[0].id, milliseconds(0)).ok());
    ASSERT_TRUE(store.FinishCommentReply(due[0].id).ok());
    EXPECT_TRUE(Due(store).empty()) << "finished: never listed again";
    ASSERT_TRUE(store.AddCommentReply(reply).ok());
    EXPECT_TRUE(Due(store).empty()) << "recording a finished one again changes nothing";
    EXPECT_EQ(store.FinishCommentReply(due[0].id + 1000).code(), Code::kNotFound);
    EXPECT_EQ(store.RetryCommentReply(due[0].id + 1000, milliseconds(0)).code(), Code::kNotFound);
  }
};

TEST_P(StoreCommentRepliesTest, AReplyIsDueOnceItsTurnHasFinished) {
  ReplyIsDueOnceItsTurnHasFinished(*store_);
}

TEST_P(StoreCommentRepliesTest, TheCachedStorePassesThemThrough) {
  auto cached = NewCachedStore(Open(), CacheOptions{});
  ReplyIsDueOnceItsTurnHasFinished(*cached);
}

TEST_P(StoreCommentRepliesTest, AReplyWithoutItsMessageOrWithBadFieldsIsRefused) {
  Job job = Create(project_);
  CommentReply reply = FollowUp(*store_, job);
  CommentReply bad = reply;
  bad.pr_number = 0;
  EXPECT_EQ(store_->AddCommentReply(bad).code(), Code::kInvalidArgument);
  bad = reply;
  bad.in_reply_to = "12\n34";
  EXPECT_EQ(store_->AddCommentReply(bad).code(), Code::kInvalidArgument);
  bad.in_reply_to = std::string(201, '1');
  EXPECT_EQ(store_->AddCommentReply(bad).code(), Code::kInvalidArgument);
  bad.in_reply_to = "";
  EXPECT_EQ(store_->AddCommentReply(bad).code(), Code::kInvalidArgument);
  bad = reply;
  bad.message_seq = 9;
  EXPECT_EQ(store_->AddCommentReply(bad).code(), Code::kNotFound);
  bad = reply;
  bad.project_id = other_project_.id;
  EXPECT_EQ(store_->AddCommentReply(bad).code(), Code::kNotFound) << "another project's job";
  bad = reply;
  bad.in_reply_to = std::nullopt;
  EXPECT_TRUE(store_->AddCommentReply(bad).ok()) << "a comment on the pull request";
}

TEST_P(StoreCommentRepliesTest, ACancelledTurnsReplyIsDueAndGoesWithItsProject) {
  Job job = Create(project_);
  ASSERT_TRUE(store_->AddCommentReply(FollowUp(*store_, job)).ok());
  // Archiving cancels both turns: the follow-up's reply says it was stopped.
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), job.id).ok());
  ASSERT_EQ(Due(*store_).size(), 1u);
  ASSERT_TRUE(store_->DeleteProject(ScopeOf(project_)).ok());
  auto due = store_->ListDueCommentReplies(10);
  ASSERT_TRUE(due.ok());
  EXPECT_TRUE(due->empty());
}

INSTANTIATE_TEST_SUITE_P(Store, StoreCommentRepliesTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
