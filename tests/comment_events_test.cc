// Follow-ups from the pull request (workflows/forge_events.h, HandleCommentEvent;
// workflows/comment_replies.h, PostDueReplies), on the real store (SQLite and
// PostgreSQL) and the GitHub fake forge: a comment that mentions the handle,
// by an account that may write, becomes one follow-up of the job whose branch
// the pull request is from (once, however often it is delivered); others start
// nothing and say why; once the follow-up's turn has finished, one reply is
// posted on the pull request.
#include <gtest/gtest.h>

#include "core/forge_event.h"
#include "fakes/fake_forge.h"
#include "git/mirror_pool.h"
#include "support/store_fixture.h"
#include "workflows/comment_replies.h"
#include "workflows/forge_events.h"

namespace docwright::workflows {
namespace {

using docwright::testing::FakeForge;
using docwright::testing::FakePull;
using docwright::testing::LoopbackResponse;

class CommentEventsTest : public docwright::testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    Project p;
    p.org_id = org_.id;
    p.repository = "https://github.example/acme/docs.git";
    p.base_ref = "main";
    p.forge = ForgeKind::kGithub;
    p.forge_api_url = fake_.ApiUrl();
    p.forge_token = "ghp_token";
    p.rate_limit_per_hour = 1000;
    auto made = store_->CreateProject(p);
    ASSERT_TRUE(made.ok()) << made.status().message();
    hosted_ = *made;
    job_ = Create(hosted_, "Fix the typo in the quickstart");
    // The job's first turn opened its pull request, #1.
    fake_.AddPull(FakePull{0, job_.ref, "main", "Fix the typo", "", true});
    Finish(TurnOutcome{.succeeded = true, .pr_link = fake_.WebUrl(1), .summary = "Fixed it."});
    mirrors_ = std::make_unique<git::MirrorPool>(dir_ / "mirrors", git::TransferLimits{});
    context_.public_url = "http://127.0.0.1:1";
    context_.forge_attempts = 1;
    fake_.SetPermission("alice", "write");
    fake_.SetPermission("rita", "read");
  }

  void TearDown() override {
    for (const auto& v : fake_.Violations()) ADD_FAILURE() << v;
  }

  // Finishes the job's next turn with `outcome`.
  void Finish(const TurnOutcome& outcome) {
    TurnInput turn = Claim("w");
    ASSERT_EQ(turn.job.id, job_.id);
    auto finished = store_->FinishTurn(turn.turn_id, "w", outcome);
    ASSERT_TRUE(finished.ok()) << finished.status().message();
    ASSERT_EQ(*finished, LeaseState::kHeld);
  }

  ForgeEvent Comment(const std::string& id, const std::string& body,
                     const std::string& sender = "alice") {
    ForgeEvent e;
    e.project_id = hosted_.id;
    e.forge = ForgeKind::kGithub;
    e.delivery_id = "delivery-" + id;
    e.kind = ForgeEventKind::kComment;
    e.sender = sender;
    e.repository_urls = {hosted_.repository};
    e.pr_number = 1;
    e.pr_url = fake_.WebUrl(1);
    e.pr_head = job_.ref;
    e.pr_base = "main";
    e.comment_kind = "comment";
    e.comment_id = id;
    e.comment_body = body;
    e.comment_created = true;
    return e;
  }

  std::string Handle(const ForgeEvent& event) {
    auto outcome = HandleCommentEvent(*store_, *mirrors_, context_, event);
    EXPECT_TRUE(outcome.ok()) << outcome.status().message();
    return outcome.ok() ? *outcome : "";
  }

  std::vector<Message> Messages() {
    auto messages = store_->ListMessages(ScopeOf(hosted_), job_.id);
    EXPECT_TRUE(messages.ok()) << messages.status().message();
    return messages.ok() ? *messages : std::vector<Message>{};
  }

  FakeForge fake_{FakeForge::Kind::kGithub, "ghp_token"};
  Project hosted_;
  Job job_;
  std::unique_ptr<git::MirrorPool> mirrors_;
  ForgeEventContext context_;
};

TEST_P(CommentEventsTest, AMentionFromAWriterBecomesOneFollowUp) {
  std::string outcome = Handle(Comment("101", "@DocWright, please fix the broken link in the FAQ"));
  EXPECT_NE(outcome.find("follow-up of job " + job_.id), std::string::npos) << outcome;
  auto messages = Messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1].prompt, "please fix the broken link in the FAQ");
  EXPECT_EQ(messages[1].state, TurnState::kQueued);
  auto job = store_->GetJob(ScopeOf(hosted_), job_.id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->status, JobStatus::kActive) << "the follow-up made it active again";

  // Delivered again (or handled again after a crash): still one follow-up.
  outcome = Handle(Comment("101", "@DocWright, please fix the broken link in the FAQ"));
  EXPECT_NE(outcome.find("already"), std::string::npos) << outcome;
  EXPECT_EQ(Messages().size(), 2u);
}

TEST_P(CommentEventsTest, AReviewCommentsPromptNamesTheFileAndLine) {
  ForgeEvent e = Comment("4242", "Say which version this needs, @docwright.");
  e.comment_kind = "review_comment";
  e.comment_path = "guide/`intro`.mdx";
  e.comment_line = 12;
  Handle(e);
  auto messages = Messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1].prompt, "On `guide/'intro'.mdx` line 12:\n\nSay which version this needs.");

  // A review that requests changes needs no mention.
  ForgeEvent review = Comment("r-7", "The table lost its header row.");
  review.comment_kind = "review";
  review.review_state = "changes_requested";
  Handle(review);
  messages = Messages();
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[2].prompt, "The table lost its header row.");
}

TEST_P(CommentEventsTest, OtherCommentsStartNothingAndSayWhy) {
  struct Case {
    ForgeEvent event;
    const char* why;
  };
  ForgeEvent edit = Comment("201", "@docwright fix it");
  edit.comment_created = false;
  ForgeEvent approving = Comment("202", "Looks good.");
  approving.comment_kind = "review";
  approving.review_state = "approved";
  ForgeEvent elsewhere = Comment("203", "@docwright fix it");
  elsewhere.pr_head = "feature/not-a-job";
  for (const Case& c : {
           Case{Comment("204", "please fix the link"), "does not mention @docwright"},
           Case{Comment("205", "mail docs@docwright.dev or ask @docwright-bot"),
                "does not mention @docwright"},
           Case{Comment("206", "> @docwright fix it\n\nI agree with this."),
                "does not mention @docwright"},
           Case{Comment("207", "@docwright fix it", "rita"), "@rita may not write"},
           Case{Comment("208", "@docwright fix it", "mallory"), "not an account the forge knows"},
           Case{edit, "an edit"},
           Case{Comment("209", std::string(kReplyMarker) + "\nDone: asked @docwright"),
                "docwright's own reply"},
           Case{approving, "does not mention @docwright"},
           Case{Comment("210", "@docwright"), "asks nothing"},
           Case{elsewhere, "is no job's"},
       }) {
    std::string outcome = Handle(c.event);
    EXPECT_NE(outcome.find(c.why), std::string::npos) << c.event.comment_body << " -> " << outcome;
    EXPECT_NE(outcome.find("nothing started"), std::string::npos) << outcome;
  }
  EXPECT_EQ(Messages().size(), 1u);
  EXPECT_TRUE(fake_.Comments().empty());
}

TEST_P(CommentEventsTest, OnceTheTurnHasFinishedOneReplyIsPosted) {
  Handle(Comment("301", "@docwright fix the FAQ link"));
  PostDueReplies(*store_, context_);
  EXPECT_TRUE(fake_.Comments().empty()) << "the follow-up has not run yet";

  Finish(TurnOutcome{.succeeded = true, .summary = "Fixed the FAQ link; thanks @alice."});
  PostDueReplies(*store_, context_);
  auto comments = fake_.Comments();
  ASSERT_EQ(comments.size(), 1u);
  EXPECT_EQ(comments[0].number, 1);
  EXPECT_FALSE(comments[0].in_reply_to);
  EXPECT_TRUE(comments[0].body.starts_with(std::string(kReplyMarker) + "\n")) << comments[0].body;
  EXPECT_NE(comments[0].body.find("Fixed the FAQ link"), std::string::npos) << comments[0].body;
  EXPECT_NE(comments[0].body.find(fake_.WebUrl(1)), std::string::npos) << comments[0].body;
  EXPECT_EQ(comments[0].body.find("@alice"), std::string::npos) << "mentions are defused";
  // The reply, delivered back as a comment, starts nothing.
  std::string outcome = Handle(Comment("302", comments[0].body));
  EXPECT_NE(outcome.find("docwright's own reply"), std::string::npos) << outcome;

  PostDueReplies(*store_, context_);
  EXPECT_EQ(fake_.Comments().size(), 1u) << "posted once";
}

TEST_P(CommentEventsTest, AReviewCommentsReplyIsInItsThreadAndSaysWhyItFailed) {
  ForgeEvent e = Comment("4343", "@docwright link the changelog here");
  e.comment_kind = "review_comment";
  e.comment_path = "guide/intro.mdx";
  e.comment_line = 3;
  Handle(e);
  Finish(TurnOutcome{.succeeded = false, .error = "the model provider refused the key"});
  PostDueReplies(*store_, context_);
  auto comments = fake_.Comments();
  ASSERT_EQ(comments.size(), 1u);
  EXPECT_EQ(comments[0].in_reply_to, "4343");
  EXPECT_TRUE(comments[0].body.starts_with(kReplyMarker));
  EXPECT_NE(comments[0].body.find("could not"), std::string::npos) << comments[0].body;
  EXPECT_NE(comments[0].body.find("the model provider refused the key"), std::string::npos);
}

TEST_P(CommentEventsTest, AReplyThatFailsToPostIsKeptForALaterRound) {
  Handle(Comment("401", "@docwright fix the FAQ link"));
  Finish(TurnOutcome{.succeeded = true, .summary = "Fixed."});
  fake_.FailNext(1, LoopbackResponse{502, {}, "bad gateway"});
  PostDueReplies(*store_, context_);
  EXPECT_TRUE(fake_.Comments().empty());
  // Not due again at once (the next attempt is minutes away), nor dropped:
  // the store still holds it, undone.
  auto due = store_->ListDueCommentReplies(10);
  ASSERT_TRUE(due.ok());
  EXPECT_TRUE(due->empty());
}

INSTANTIATE_TEST_SUITE_P(Store, CommentEventsTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

TEST(CommentText, AMentionIsAWholeWordInAnyCase) {
  EXPECT_TRUE(MentionsHandle("@docwright fix it", "docwright"));
  EXPECT_TRUE(MentionsHandle("Please, @DOCWRIGHT: fix it", "docwright"));
  EXPECT_TRUE(MentionsHandle("fix it @docwright.", "docwright"));
  EXPECT_TRUE(MentionsHandle("> quoted\n\n@docwright fix it", "docwright"));
  EXPECT_FALSE(MentionsHandle("docwright fix it", "docwright"));
  EXPECT_FALSE(MentionsHandle("@docwright-bot fix it", "docwright"));
  EXPECT_FALSE(MentionsHandle("@docwright_x fix it", "docwright"));
  EXPECT_FALSE(MentionsHandle("@docwright/team fix it", "docwright"));
  EXPECT_FALSE(MentionsHandle("ask ops@docwright.dev", "docwright"));
  EXPECT_FALSE(MentionsHandle("  > @docwright fix it", "docwright"));
  EXPECT_FALSE(MentionsHandle("@docwright", ""));
  EXPECT_EQ(WithoutMentions("@docwright, fix the link", "docwright"), "fix the link");
  EXPECT_EQ(WithoutMentions("Fix the link @DocWright\n", "docwright"), "Fix the link");
  EXPECT_EQ(WithoutMentions("@docwright-bot stays", "docwright"), "@docwright-bot stays");
  EXPECT_EQ(WithoutMentions("Say which, @docwright.", "docwright"), "Say which.");
}

}  // namespace
}  // namespace docwright::workflows
