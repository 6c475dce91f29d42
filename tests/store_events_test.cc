// The Store contract for jobs' events and steps recorded as they happen, on
// SQLite and on PostgreSQL.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/event.h"
#include "store/cached_store.h"
#include "support/store_fixture.h"

namespace docwright {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

class StoreEventsTest : public testing::StoreTest {
 protected:
  std::vector<JobEvent> Events(const Project& p, const std::string& job_id, int64_t after = 0) {
    auto events = store_->ListEvents(ScopeOf(p), job_id, after, 1000);
    EXPECT_TRUE(events.ok()) << events.status().message();
    return events.ok() ? *events : std::vector<JobEvent>{};
  }

  static std::vector<std::string> Types(const std::vector<JobEvent>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) out.emplace_back(EventTypeName(e.type));
    return out;
  }

  static TranscriptStep Said(std::string text) {
    return TranscriptStep{.kind = TranscriptStep::Kind::kAssistant, .text = std::move(text)};
  }
};

TEST_P(StoreEventsTest, EveryChangeOfAJobIsAnEventNumberedInOrder) {
  Job job = Create(project_, "Add a page");
  TurnInput t = Claim("w");
  ASSERT_EQ(*store_->RecordStep(t.turn_id, "w", 1, Said("Reading the docs")), LeaseState::kHeld);
  TranscriptStep published{.kind = TranscriptStep::Kind::kPublish,
                           .text = "opened the pull request",
                           .tool = kPublishPullRequest};
  ASSERT_EQ(*store_->RecordStep(t.turn_id, "w", 2, published), LeaseState::kHeld);
  TurnOutcome done{.succeeded = true,
                   .pr_link = "https://forge.test/pulls/1",
                   .summary = "Added it",
                   .steps = {Said("Reading the docs"), published}};
  ASSERT_EQ(*store_->FinishTurn(t.turn_id, "w", done), LeaseState::kHeld);
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), job.id, "And a second one").ok());
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), job.id).ok());

  std::vector<JobEvent> events = Events(project_, job.id);
  EXPECT_EQ(Types(events),
            (std::vector<std::string>{"job.created", "turn.started", "turn.step", "turn.step",
                                      "turn.ended", "pull_request.opened", "job.completed",
                                      "job.message_added", "job.archived"}));
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].sequence, static_cast<int64_t>(i + 1)) << "gap-free, in order";
    EXPECT_EQ(events[i].job_id, job.id);
    EXPECT_EQ(events[i].project_id, project_.id);
    json data = json::parse(events[i].data);  // every payload is a JSON object
    EXPECT_TRUE(data.is_object());
  }
  EXPECT_EQ(json::parse(events[0].data)["prompt"], "Add a page");
  EXPECT_EQ(json::parse(events[2].data)["step"]["text"], "Reading the docs");
  EXPECT_EQ(json::parse(events[2].data)["index"], 1);
  EXPECT_EQ(json::parse(events[4].data)["outcome"], "succeeded");
  EXPECT_EQ(json::parse(events[5].data)["prLink"], "https://forge.test/pulls/1");
  EXPECT_EQ(json::parse(events[6].data)["job"]["status"], "completed");
  EXPECT_EQ(json::parse(events[7].data)["prompt"], "And a second one");
  EXPECT_EQ(json::parse(events[8].data)["job"]["status"], "archived");

  // Resuming after an event gives exactly the ones after it.
  std::vector<JobEvent> rest = Events(project_, job.id, 4);
  ASSERT_EQ(rest.size(), events.size() - 4);
  EXPECT_EQ(rest.front().sequence, 5);
  // Another organisation sees nothing of them.
  EXPECT_EQ(store_->ListEvents(ScopeOf(other_project_), job.id, 0, 10).status().code(),
            Code::kNotFound);
  EXPECT_EQ(store_->ListEvents(Scope{other_org_.id, project_.id}, job.id, 0, 10).status().code(),
            Code::kNotFound);
}

TEST_P(StoreEventsTest, AFollowUpTurnUpdatesThePullRequestAndAFailureFailsTheJob) {
  Job job = Create(project_);
  TurnInput t1 = Claim("w");
  TranscriptStep pr{.kind = TranscriptStep::Kind::kPublish, .tool = kPublishPullRequest};
  ASSERT_EQ(
      *store_->FinishTurn(t1.turn_id, "w",
                          TurnOutcome{.succeeded = true, .pr_link = "https://pr/1", .steps = {pr}}),
      LeaseState::kHeld);
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), job.id, "More").ok());
  TurnInput t2 = Claim("w");
  ASSERT_EQ(
      *store_->FinishTurn(t2.turn_id, "w",
                          TurnOutcome{.succeeded = true, .pr_link = "https://pr/1", .steps = {pr}}),
      LeaseState::kHeld);
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), job.id, "Nothing to push").ok());
  TurnInput t3 = Claim("w");
  ASSERT_EQ(*store_->FinishTurn(t3.turn_id, "w",
                                TurnOutcome{.succeeded = false, .error = "model said no"}),
            LeaseState::kHeld);
  std::vector<std::string> types = Types(Events(project_, job.id));
  EXPECT_EQ(std::count(types.begin(), types.end(), "pull_request.opened"), 1);
  EXPECT_EQ(std::count(types.begin(), types.end(), "pull_request.updated"), 1);
  EXPECT_EQ(std::count(types.begin(), types.end(), "job.completed"), 2);
  EXPECT_EQ(types.back(), "job.failed");
  json ended = json::parse(Events(project_, job.id).at(types.size() - 2).data);
  EXPECT_EQ(ended["outcome"], "failed");
  EXPECT_EQ(ended["error"], "model said no");
}

TEST_P(StoreEventsTest, StepsRecordedAsTheyHappenShowInTheTranscriptAndMoveUpdatedAt) {
  Job job = Create(project_);
  TurnInput t = Claim("w");
  std::this_thread::sleep_for(milliseconds(5));
  ASSERT_EQ(*store_->RecordStep(t.turn_id, "w", 1, Said("first")), LeaseState::kHeld);
  Job moved = *store_->GetJob(ScopeOf(project_), job.id);
  EXPECT_GT(moved.updated_at, job.updated_at);
  EXPECT_EQ(moved.status, JobStatus::kActive);
  auto steps = store_->ListSteps(ScopeOf(project_), job.id, 1, 1, 1 << 20);
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->steps.size(), 1u);
  EXPECT_EQ(steps->steps[0].second.text, "first");

  // Only the lease's holder records; an archive stops it.
  EXPECT_EQ(*store_->RecordStep(t.turn_id, "intruder", 2, Said("x")), LeaseState::kLost);
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), job.id).ok());
  EXPECT_EQ(*store_->RecordStep(t.turn_id, "w", 2, Said("late")), LeaseState::kCancelled);
  std::vector<std::string> types = Types(Events(project_, job.id));
  EXPECT_EQ(std::count(types.begin(), types.end(), "turn.step"), 1);
}

TEST_P(StoreEventsTest, ARerunStartsItsStepsOverAndSaysWhichAttemptItIs) {
  Job job = Create(project_);
  TurnInput first = Claim("w1", milliseconds(1));
  ASSERT_EQ(*store_->RecordStep(first.turn_id, "w1", 1, Said("a")), LeaseState::kHeld);
  ASSERT_EQ(*store_->RecordStep(first.turn_id, "w1", 2, Said("b")), LeaseState::kHeld);
  std::this_thread::sleep_for(milliseconds(20));  // the lease expires: w1 crashed
  TurnInput second = Claim("w2");
  EXPECT_EQ(second.attempt, 2);
  auto steps = store_->ListSteps(ScopeOf(project_), job.id, 1, 1, 1 << 20);
  ASSERT_TRUE(steps.ok());
  EXPECT_TRUE(steps->steps.empty()) << "the crashed attempt's steps are gone";
  ASSERT_EQ(*store_->RecordStep(second.turn_id, "w2", 1, Said("c")), LeaseState::kHeld);
  // created, started (1), a, b, started (2), c.
  std::vector<JobEvent> events = Events(project_, job.id);
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(EventTypeName(events[4].type), "turn.started");
  EXPECT_EQ(json::parse(events[4].data)["attempt"], 2);
  EXPECT_EQ(json::parse(events[5].data)["attempt"], 2);
  EXPECT_EQ(json::parse(events[5].data)["step"]["text"], "c");
}

TEST_P(StoreEventsTest, ThisProcesssEventsAreAnnouncedAfterTheirCommit) {
  std::mutex mu;
  std::vector<std::string> heard;
  store_->Watch(StoreWatcher{.job_events = [&](const std::string& job_id) {
    std::lock_guard lock(mu);
    heard.push_back(job_id);
  }});
  Job job = Create(project_);
  auto seen = [&] {
    std::lock_guard lock(mu);
    return std::find(heard.begin(), heard.end(), job.id) != heard.end();
  };
  // At once on SQLite (this process's write); from the listener on PostgreSQL.
  EXPECT_TRUE(testing::WaitUntil(seen, milliseconds(10000)));
  if (!postgres()) {
    EXPECT_TRUE(seen()) << "told before CreateJob returned";
  }
}

TEST_P(StoreEventsTest, ConcurrentWritersOfOneJobNumberItsEventsWithoutGapsOrRepeats) {
  Job job = Create(project_);
  TurnInput t = Claim("w");
  auto other = Open();  // a second node on the same database
  std::atomic<bool> failed{false};
  std::thread steps([&] {
    for (int i = 1; i <= 40; ++i) {
      auto r = store_->RecordStep(t.turn_id, "w", i, Said("step " + std::to_string(i)));
      if (!r.ok() || *r != LeaseState::kHeld) failed = true;
    }
  });
  std::thread messages([&] {
    for (int i = 0; i < 8; ++i) {
      if (!other->AddMessage(ScopeOf(project_), job.id, "more " + std::to_string(i)).ok()) {
        failed = true;
      }
    }
  });
  steps.join();
  messages.join();
  ASSERT_FALSE(failed);
  std::vector<JobEvent> events = Events(project_, job.id);
  ASSERT_EQ(events.size(), 2u + 40u + 8u);
  std::set<int64_t> seen;
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].sequence, static_cast<int64_t>(i + 1));
    seen.insert(events[i].sequence);
  }
  EXPECT_EQ(seen.size(), events.size());
  // The steps keep their order among themselves.
  int last = 0;
  for (const auto& e : events) {
    if (e.type != EventType::kTurnStep) continue;
    int index = json::parse(e.data)["index"];
    EXPECT_EQ(index, last + 1);
    last = index;
  }
}

INSTANTIATE_TEST_SUITE_P(Store, StoreEventsTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
