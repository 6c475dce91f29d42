// JobInstructions (runner/branch_story.h): every instruction of a job up to a
// turn's own, for its pull request, over real turns of the real store (SQLite):
// taken from what the turn's claim gave it when that is all of them, read from
// the store otherwise.
#include "runner/branch_story.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "fakes/counting_store.h"
#include "support/secrets.h"
#include "support/temp_dir.h"

namespace docwright {
namespace {

class JobInstructionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::move(*OpenStore(dir_ / "docwright.db", testing::TestSecrets()));
    Org org = *store_->CreateOrg("acme");
    Project p;
    p.org_id = org.id;
    p.repository = "/srv/docs.git";
    p.base_ref = "main";
    p.rate_limit_per_hour = 1000;
    project_ = *store_->CreateProject(p);
    scope_ = Scope{org.id, project_.id};
  }

  // A job of `prompts`, each turn but the last run to its end; the last one's
  // turn as its claim gives it.
  TurnInput ClaimLast(const std::vector<std::string>& prompts) {
    std::string job_id;
    for (size_t i = 0; i < prompts.size(); ++i) {
      if (i == 0) {
        job_id = store_->CreateJob(scope_, NewJob{prompts[0]})->id;
      } else {
        EXPECT_TRUE(store_->AddMessage(scope_, job_id, prompts[i]).ok());
      }
      auto claimed = store_->ClaimTurn("w", std::chrono::seconds(60), kMaxTurnAttempts);
      EXPECT_TRUE(claimed.ok() && claimed->has_value());
      if (i + 1 == prompts.size()) return **claimed;
      EXPECT_TRUE(
          store_->FinishTurn((*claimed)->turn_id, "w", TurnOutcome{.succeeded = true}).ok());
    }
    return {};
  }

  static std::vector<std::string> Prompts(const std::vector<Message>& messages) {
    std::vector<std::string> out;
    for (const Message& m : messages) out.push_back(std::to_string(m.seq) + " " + m.prompt);
    return out;
  }

  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  Project project_;
  Scope scope_;
};

TEST_F(JobInstructionsTest, AreTheClaimsMessagesWhenItGaveThemAll) {
  const std::string long_prompt(5000, 'x');
  TurnInput input = ClaimLast({"first", long_prompt, "third"});
  ASSERT_EQ(input.message.seq, 3);
  ASSERT_EQ(input.history.size(), 2u);

  testing::CountingStore counting(*store_);
  std::vector<Message> got = JobInstructions(counting, input);
  EXPECT_TRUE(counting.AllCalls().empty()) << "the store is not read again";

  // The same as read from the store, each prompt cut alike.
  TurnInput without_history = input;
  without_history.history.clear();
  std::vector<Message> read = JobInstructions(counting, without_history);
  EXPECT_GE(counting.Calls("ListMessages"), 1);
  EXPECT_EQ(Prompts(got), Prompts(read));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].prompt, "first");
  EXPECT_LT(got[1].prompt.size(), long_prompt.size()) << "cut as a description quotes it";
  EXPECT_EQ(got[2].prompt, "third");
}

TEST_F(JobInstructionsTest, AreReadFromTheStoreWhenTheClaimGaveTheLatestOnly) {
  std::vector<std::string> prompts;
  for (int i = 1; i <= kMaxHistoryMessages + 5; ++i) prompts.push_back("step " + std::to_string(i));
  TurnInput input = ClaimLast(prompts);
  ASSERT_LT(input.history.size() + 1, prompts.size()) << "the claim gives the first and latest";

  testing::CountingStore counting(*store_);
  std::vector<Message> got = JobInstructions(counting, input);
  EXPECT_GE(counting.Calls("ListMessages"), 1);
  ASSERT_EQ(got.size(), prompts.size());
  for (size_t i = 0; i < prompts.size(); ++i) {
    EXPECT_EQ(got[i].seq, static_cast<int>(i) + 1);
    EXPECT_EQ(got[i].prompt, prompts[i]);
  }
}

}  // namespace
}  // namespace docwright
