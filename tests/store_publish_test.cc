// Publishing in the Store (store.h: "Publishing"), on SQLite and on
// PostgreSQL: how a job publishes (its own mode, its workflow's, its
// project's), the commit and pull request state a turn records, the states
// learned from the forges and the jobs polled for them, a job found by its
// branch and moved to a new one, and a local pull request found by number.
#include <algorithm>
#include <chrono>
#include <thread>

#include "core/workflow.h"
#include "support/store_fixture.h"

namespace docwright {
namespace {

class StorePublishTest : public testing::StoreTest {
 protected:
  // Runs the job's next turn to its end with `outcome`.
  void Finish(const Job& job, TurnOutcome outcome) {
    TurnInput t = Claim("w");
    ASSERT_EQ(t.job.id, job.id);
    auto finished = store_->FinishTurn(t.turn_id, "w", outcome);
    ASSERT_TRUE(finished.ok()) << finished.status().message();
    ASSERT_EQ(*finished, LeaseState::kHeld);
  }

  // A job whose turn opened the pull request `link`.
  Job WithPullRequest(const std::string& prompt, const std::string& link) {
    Job job = Create(project_, prompt);
    Finish(job, TurnOutcome{.succeeded = true, .pr_link = link});
    return *store_->GetJob(ScopeOf(project_), job.id);
  }

  std::vector<std::string> Polled(int limit = 50) {
    auto listed = store_->ListJobsWithOpenPullRequests(limit);
    EXPECT_TRUE(listed.ok()) << listed.status().message();
    std::vector<std::string> ids;
    if (listed.ok()) {
      for (const Job& j : *listed) ids.push_back(j.id);
    }
    return ids;
  }
};

TEST_P(StorePublishTest, JobsPublishAsAskedElseAsTheirProject) {
  Job plain = Create(project_);
  EXPECT_EQ(plain.publish, PublishMode::kPullRequest);
  EXPECT_EQ(store_->GetJob(ScopeOf(project_), plain.id)->publish, PublishMode::kPullRequest);

  Project p = project_;
  p.publish = PublishMode::kPush;
  ASSERT_TRUE(store_->UpdateProject(p).ok());
  EXPECT_EQ(store_->GetProject(ScopeOf(project_))->publish, PublishMode::kPush);
  EXPECT_EQ(store_->GetProjectById(project_.id)->publish, PublishMode::kPush);
  Job pushed = Create(project_, "Straight onto main");
  EXPECT_EQ(pushed.publish, PublishMode::kPush);
  EXPECT_EQ(store_->GetJob(ScopeOf(project_), pushed.id)->publish, PublishMode::kPush);

  NewJob asked{.prompt = "Merge it once it passes"};
  asked.publish = PublishMode::kAutomerge;
  auto merged = store_->CreateJob(ScopeOf(project_), asked);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->publish, PublishMode::kAutomerge);
  EXPECT_EQ(store_->GetJob(ScopeOf(project_), merged->id)->publish, PublishMode::kAutomerge);
  EXPECT_EQ(store_->GetJob(ScopeOf(project_), plain.id)->publish, PublishMode::kPullRequest)
      << "a job keeps the mode it was created with";

  Project created = project_;
  created.id.clear();
  created.publish = PublishMode::kAutomerge;
  auto made = store_->CreateProject(created);
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_EQ(store_->GetProjectById(made->id)->publish, PublishMode::kAutomerge);
}

TEST_P(StorePublishTest, AWorkflowsRunPublishesAsItsWorkflowElseItsProject) {
  Project p = project_;
  p.publish = PublishMode::kAutomerge;
  ASSERT_TRUE(store_->UpdateProject(p).ok());
  auto run = [&](const std::string& name, std::optional<PublishMode> publish) {
    Workflow w;
    w.project_id = project_.id;
    w.name = name;
    w.prompt = "Update the changelog";
    w.trigger.kind = TriggerKind::kManual;
    w.publish = publish;
    auto made = store_->CreateWorkflow(w);
    EXPECT_TRUE(made.ok()) << made.status().message();
    WorkflowRunRequest request{.workflow_id = made->id,
                               .dedup_key = "manual:" + name,
                               .trigger = RunTrigger{.kind = "manual", .workflow = name},
                               .prompt = "Update the changelog",
                               .by_hand = true};
    auto started = store_->StartWorkflowRun(request);
    EXPECT_TRUE(started.ok()) << started.status().message();
    EXPECT_TRUE(started->job.has_value());
    return started->job ? started->job->publish : PublishMode::kPullRequest;
  };
  EXPECT_EQ(run("as-the-project", std::nullopt), PublishMode::kAutomerge);
  EXPECT_EQ(run("pushes", PublishMode::kPush), PublishMode::kPush);
  EXPECT_EQ(run("pull-requests", PublishMode::kPullRequest), PublishMode::kPullRequest);
}

TEST_P(StorePublishTest, ATurnRecordsItsCommitAndItsPullRequestsState) {
  Job job = Create(project_);
  TurnOutcome pushed{.succeeded = true, .summary = "Pushed onto main"};
  pushed.commit_sha = std::string(40, 'a');
  pushed.commit_url = "https://git.example/acme/docs/commit/" + std::string(40, 'a');
  Finish(job, pushed);
  Job after = *store_->GetJob(ScopeOf(project_), job.id);
  EXPECT_EQ(after.commit_sha, std::string(40, 'a'));
  EXPECT_EQ(after.commit_url, pushed.commit_url);
  EXPECT_FALSE(after.pr_link);
  EXPECT_FALSE(after.pr_state);

  // A follow-up that opens a pull request keeps the commit, and says the
  // pull request is open; one that says nothing keeps both.
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), job.id, "More").ok());
  Finish(job, TurnOutcome{.succeeded = true,
                          .pr_link = "https://git.example/acme/docs/pull/7",
                          .pr_state = "open"});
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), job.id, "Nothing").ok());
  Finish(job, TurnOutcome{.succeeded = true});
  after = *store_->GetJob(ScopeOf(project_), job.id);
  EXPECT_EQ(after.commit_sha, std::string(40, 'a'));
  EXPECT_EQ(after.pr_state, "open");
  EXPECT_EQ(after.pr_link, "https://git.example/acme/docs/pull/7");
}

TEST_P(StorePublishTest, PullRequestStatesAreRecordedAndOpenOnesPolledInTurn) {
  Job first = WithPullRequest("First", "https://git.example/acme/docs/pull/1");
  Job second = WithPullRequest("Second", "https://git.example/acme/docs/pull/2");
  Job none = Create(project_, "No pull request");
  Finish(none, TurnOutcome{.succeeded = true});
  Job archived = WithPullRequest("Archived", "https://git.example/acme/docs/pull/3");
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), archived.id).ok());

  std::vector<std::string> polled = Polled();
  std::sort(polled.begin(), polled.end());
  std::vector<std::string> expected{first.id, second.id};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(polled, expected) << "no pull request, or archived: not polled";

  // Learned open: changed, then polled after the one never asked about.
  ASSERT_TRUE(store_->SetPullRequestState(first.id, "open").ok());
  Job open = *store_->GetJob(ScopeOf(project_), first.id);
  EXPECT_EQ(open.pr_state, "open");
  EXPECT_EQ(Polled(), (std::vector<std::string>{second.id, first.id}));
  EXPECT_EQ(Polled(1), std::vector<std::string>{second.id});
  // The same state again changes nothing (its updatedAt stays), but it is
  // asked about last now.
  ASSERT_TRUE(store_->SetPullRequestState(second.id, "open").ok());
  Job second_open = *store_->GetJob(ScopeOf(project_), second.id);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(store_->SetPullRequestState(second.id, "open").ok());
  EXPECT_EQ(store_->GetJob(ScopeOf(project_), second.id)->updated_at, second_open.updated_at);
  EXPECT_EQ(Polled(), (std::vector<std::string>{first.id, second.id}));

  // Merged and closed ones are done with.
  ASSERT_TRUE(store_->SetPullRequestState(first.id, "merged").ok());
  ASSERT_TRUE(store_->SetPullRequestState(second.id, "closed").ok());
  EXPECT_TRUE(Polled().empty());
  EXPECT_EQ(store_->GetJob(ScopeOf(project_), first.id)->pr_state, "merged");
  EXPECT_EQ(store_->GetJob(ScopeOf(project_), second.id)->pr_state, "closed");
  // Reopened on the forge: polled again.
  ASSERT_TRUE(store_->SetPullRequestState(second.id, "open").ok());
  EXPECT_EQ(Polled(), std::vector<std::string>{second.id});

  EXPECT_EQ(store_->SetPullRequestState(first.id, "declined").code(), Code::kInvalidArgument);
  EXPECT_EQ(store_->SetPullRequestState("no-such-job", "merged").code(), Code::kNotFound);
}

TEST_P(StorePublishTest, AJobIsFoundByItsBranchAndMovedToANewOne) {
  Job job = Create(project_, "Add a guide");
  Job other = Create(project_, "Another");
  auto found = store_->FindJobByBranch(project_.id, job.ref);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->id, job.id);
  EXPECT_EQ(store_->FindJobByBranch(other_project_.id, job.ref).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->FindJobByBranch(project_.id, "docwright/nothing").status().code(),
            Code::kNotFound);

  Finish(job, TurnOutcome{.succeeded = true,
                          .pr_link = "https://git.example/acme/docs/pull/1",
                          .pr_state = "open"});
  ASSERT_TRUE(store_->SetPullRequestState(job.id, "merged").ok());
  const std::string next = job.ref + "-2";
  ASSERT_TRUE(store_->SetJobBranch(job.id, next).ok());
  Job moved = *store_->GetJob(ScopeOf(project_), job.id);
  EXPECT_EQ(moved.ref, next);
  EXPECT_FALSE(moved.pr_state) << "the new branch's pull request is not known yet";
  EXPECT_EQ(moved.pr_link, "https://git.example/acme/docs/pull/1") << "until a new one opens";
  EXPECT_EQ(store_->FindJobByBranch(project_.id, next)->id, job.id);

  EXPECT_EQ(store_->SetJobBranch(job.id, other.ref).code(), Code::kConflict)
      << "another active job's branch";
  EXPECT_EQ(store_->SetJobBranch(job.id, "main").code(), Code::kInvalidArgument);
  EXPECT_EQ(store_->SetJobBranch(job.id, "bad..name").code(), Code::kInvalidArgument);
  EXPECT_EQ(store_->SetJobBranch("no-such-job", "docwright/x").code(), Code::kNotFound);
  // And no new job may take the branch the job moved to while it works on it.
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), job.id, "More").ok());
  NewJob taking{.prompt = "Mine now"};
  taking.ref = next;
  EXPECT_EQ(store_->CreateJob(ScopeOf(project_), taking).status().code(), Code::kConflict);
}

TEST_P(StorePublishTest, ALocalPullRequestIsFoundByItsNumber) {
  LocalPullRequest pr;
  pr.project_id = project_.id;
  pr.head = "docwright/0123456789ab-guide";
  pr.base = "main";
  pr.title = "A guide";
  auto stored = store_->UpsertPullRequest(pr);
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  auto found = store_->GetPullRequestByNumber(project_.id, stored->number);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->id, stored->id);
  EXPECT_EQ(found->head, pr.head);
  EXPECT_EQ(store_->GetPullRequestByNumber(other_project_.id, stored->number).status().code(),
            Code::kNotFound);
  EXPECT_EQ(store_->GetPullRequestByNumber(project_.id, stored->number + 1).status().code(),
            Code::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(Stores, StorePublishTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
