// Workflows in the Store (store.h: "Context repositories", "Workflows",
// "Workflow runs", "Watched branches"), on SQLite and on PostgreSQL: context
// repositories and workflows kept with their limits and name rules, file
// workflows synced, runs started once per event (also from 8 threads, and on
// PostgreSQL from 8 store objects as 8 nodes would), queued and coalesced while
// one is under way, refused for the daily limit, a disabled workflow or a name
// clash, and everything gone with its project.
#include <sqlite3.h>

#include <atomic>
#include <thread>

#include "core/workflow.h"
#include "support/store_fixture.h"

namespace docwright {
namespace {

using Outcome = WorkflowRunStart::Outcome;

class StoreWorkflowsTest : public testing::StoreTest {
 protected:
  Workflow Define(const std::string& name, TriggerKind kind = TriggerKind::kPush,
                  const Project* p = nullptr) {
    Workflow w;
    w.project_id = (p ? *p : project_).id;
    w.name = name;
    w.prompt = "Bring the docs up to date with " + name;
    w.trigger.kind = kind;
    return w;
  }

  Workflow Create(Workflow w) {
    auto made = store_->CreateWorkflow(std::move(w));
    EXPECT_TRUE(made.ok()) << made.status().message();
    return made.ok() ? *made : Workflow{};
  }

  Workflow FileWorkflow(const std::string& name, const std::string& prompt = "From the file") {
    Workflow w = Define(name);
    w.source = WorkflowSource::kFile;
    w.prompt = prompt;
    w.file_path = ".docwright/workflows/" + name + ".md";
    return w;
  }

  ContextRepository Repo(const std::string& name, const Project* p = nullptr) {
    return ContextRepository{.project_id = (p ? *p : project_).id,
                             .name = name,
                             .repository = "https://git.example/acme/" + name,
                             .branch = "main"};
  }

  static RunTrigger Push(const Workflow& w, const std::string& from, const std::string& to) {
    return RunTrigger{.kind = "push",
                      .workflow = w.name,
                      .repository = "docs",
                      .branch = "main",
                      .from = from,
                      .to = to};
  }

  WorkflowRunStart Start(const Workflow& w, const std::string& key, Store* store = nullptr,
                         bool by_hand = false, std::optional<UnixMillis> schedule_from = {}) {
    WorkflowRunRequest request{.workflow_id = w.id,
                               .dedup_key = key,
                               .trigger = Push(w, "old", key),
                               .prompt = "Run " + key,
                               .by_hand = by_hand,
                               .schedule_from = schedule_from};
    auto started = (store ? store : store_.get())->StartWorkflowRun(request);
    EXPECT_TRUE(started.ok()) << started.status().message();
    return started.ok() ? *started : WorkflowRunStart{.outcome = Outcome::kRefused};
  }

  // Runs the job's turn to its end.
  void Finish(const Job& job, bool succeeded = true) {
    TurnInput t = Claim("w");
    ASSERT_EQ(t.job.id, job.id);
    TurnOutcome outcome{.succeeded = succeeded};
    if (!succeeded) outcome.error = "the model gave up";
    ASSERT_EQ(*store_->FinishTurn(t.turn_id, "w", outcome), LeaseState::kHeld);
  }

  std::vector<WorkflowRun> Runs(const Workflow& w) {
    auto runs = store_->ListWorkflowRuns(w.id, 100);
    EXPECT_TRUE(runs.ok()) << runs.status().message();
    return runs.ok() ? *runs : std::vector<WorkflowRun>{};
  }

  size_t JobCount(const Project& p) {
    auto page = store_->ListJobs(ScopeOf(p), JobQuery{.limit = 100});
    EXPECT_TRUE(page.ok()) << page.status().message();
    return page.ok() ? page->jobs.size() : 0;
  }

  // The first column of the first row of `sql`, read as another process would.
  int64_t Count(const std::string& sql) {
    if (postgres()) return testing::PostgresDatabase::Scalar(url_, sql);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(url_.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    int64_t n = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return n;
  }
};

TEST_P(StoreWorkflowsTest, ContextRepositoriesAreKeptByNameWithinTheirLimit) {
  auto sdk = store_->AddContextRepository(Repo("sdk"));
  ASSERT_TRUE(sdk.ok()) << sdk.status().message();
  EXPECT_GT(sdk->created_at, 0);
  ContextRepository api = Repo("api");
  api.branch.reset();
  ASSERT_TRUE(store_->AddContextRepository(api).ok());

  auto list = store_->ListContextRepositories(project_.id);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "api");
  EXPECT_FALSE((*list)[0].branch.has_value());
  EXPECT_EQ((*list)[1].name, "sdk");
  EXPECT_EQ((*list)[1].branch, "main");
  EXPECT_EQ((*list)[1].repository, "https://git.example/acme/sdk");
  EXPECT_TRUE(store_->ListContextRepositories(other_project_.id)->empty());

  EXPECT_EQ(store_->AddContextRepository(Repo("sdk")).status().code(), Code::kConflict);
  EXPECT_EQ(store_->AddContextRepository(Repo("Not A Name")).status().code(),
            Code::kInvalidArgument);
  ContextRepository empty = Repo("empty");
  empty.repository.clear();
  EXPECT_EQ(store_->AddContextRepository(empty).status().code(), Code::kInvalidArgument);
  ContextRepository nowhere = Repo("nowhere");
  nowhere.project_id = "no-such-project";
  EXPECT_EQ(store_->AddContextRepository(nowhere).status().code(), Code::kNotFound);

  for (size_t i = 2; i < kMaxContextRepositories; ++i) {
    ASSERT_TRUE(store_->AddContextRepository(Repo("repo" + std::to_string(i))).ok());
  }
  auto over = store_->AddContextRepository(Repo("one-too-many"));
  EXPECT_EQ(over.status().code(), Code::kResourceExhausted);
  EXPECT_NE(over.status().message().find("context repositories"), std::string::npos);

  // A workflow defined through the API that reads it keeps it.
  Workflow reads = Define("reads-sdk");
  reads.context = {"sdk"};
  Workflow made = Create(reads);
  auto refused = store_->RemoveContextRepository(project_.id, "sdk");
  EXPECT_EQ(refused.code(), Code::kConflict);
  EXPECT_NE(refused.message().find("reads-sdk"), std::string::npos) << refused.message();
  ASSERT_TRUE(store_->DeleteWorkflow(made.id).ok());
  EXPECT_TRUE(store_->RemoveContextRepository(project_.id, "sdk").ok());
  EXPECT_EQ(store_->RemoveContextRepository(project_.id, "sdk").code(), Code::kNotFound);
  EXPECT_EQ(store_->ListContextRepositories(project_.id)->size(), kMaxContextRepositories - 1);
}

TEST_P(StoreWorkflowsTest, WorkflowsAreCreatedReadUpdatedAndDeleted) {
  ASSERT_TRUE(store_->AddContextRepository(Repo("sdk")).ok());
  Workflow w = Define("api-changes", TriggerKind::kMerge);
  w.trigger.repository = "sdk";
  w.context = {"sdk"};
  w.runs_per_day = 5;
  w.model = "big-model";
  w.publish = PublishMode::kAutomerge;
  Workflow made = Create(w);
  EXPECT_FALSE(made.id.empty());
  EXPECT_GT(made.created_at, 0);
  EXPECT_EQ(made.schedule_from, made.created_at);

  auto got = store_->GetWorkflow(made.id);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->name, "api-changes");
  EXPECT_EQ(got->source, WorkflowSource::kApi);
  EXPECT_EQ(got->trigger.kind, TriggerKind::kMerge);
  EXPECT_EQ(got->trigger.repository, "sdk");
  EXPECT_EQ(got->context, std::vector<std::string>{"sdk"});
  EXPECT_EQ(got->runs_per_day, 5);
  EXPECT_EQ(got->model, "big-model");
  EXPECT_EQ(got->publish, PublishMode::kAutomerge);
  EXPECT_TRUE(got->enabled);

  EXPECT_EQ(store_->CreateWorkflow(w).status().code(), Code::kConflict);
  Workflow unknown_repo = Define("other");
  unknown_repo.context = {"nope"};
  EXPECT_EQ(store_->CreateWorkflow(unknown_repo).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(
      store_->CreateWorkflow(Define("x", TriggerKind::kPush, &other_project_)).status().code(),
      Code::kOk);
  Workflow nowhere = Define("nowhere");
  nowhere.project_id = "no-such-project";
  EXPECT_EQ(store_->CreateWorkflow(nowhere).status().code(), Code::kNotFound);

  Workflow change = *got;
  change.title = "API changes";
  change.enabled = false;
  auto updated = store_->UpdateWorkflow(change);
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  EXPECT_EQ(updated->title, "API changes");
  EXPECT_FALSE(updated->enabled);
  EXPECT_EQ(updated->created_at, made.created_at);
  change = *updated;
  change.enabled = true;
  auto enabled = store_->UpdateWorkflow(change);
  ASSERT_TRUE(enabled.ok());
  EXPECT_GE(enabled->schedule_from, updated->updated_at);  // missed slots do not fire

  auto listed = store_->ListWorkflows(project_.id);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].title, "API changes");
  auto merges = store_->ListWorkflowsByTrigger(TriggerKind::kMerge, 10);
  ASSERT_TRUE(merges.ok());
  ASSERT_EQ(merges->size(), 1u);
  EXPECT_EQ((*merges)[0].id, made.id);

  ASSERT_TRUE(store_->DeleteWorkflow(made.id).ok());
  EXPECT_EQ(store_->GetWorkflow(made.id).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->DeleteWorkflow(made.id).code(), Code::kNotFound);
  EXPECT_EQ(store_->UpdateWorkflow(change).status().code(), Code::kNotFound);
}

TEST_P(StoreWorkflowsTest, AProjectHasAtMostItsLimitOfWorkflowsOfBothSources) {
  ASSERT_TRUE(store_->SyncFileWorkflows(project_.id, "c1", {FileWorkflow("from-file")}).ok());
  for (size_t i = 1; i < kMaxWorkflowsPerProject; ++i) Create(Define("w" + std::to_string(i)));
  auto over = store_->CreateWorkflow(Define("one-too-many"));
  EXPECT_EQ(over.status().code(), Code::kResourceExhausted);
  EXPECT_NE(over.status().message().find("workflows"), std::string::npos);
}

TEST_P(StoreWorkflowsTest, FileWorkflowsSyncKeepingIdsEnabledAndSchedule) {
  Workflow off = FileWorkflow("stays");
  off.enabled = true;
  ASSERT_TRUE(store_->SyncFileWorkflows(project_.id, "c1", {off, FileWorkflow("goes")}).ok());
  auto first = store_->ListWorkflows(project_.id);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 2u);
  Workflow goes = (*first)[0], stays = (*first)[1];
  ASSERT_EQ(stays.name, "stays");
  EXPECT_EQ(stays.source, WorkflowSource::kFile);
  EXPECT_EQ(stays.file_commit, "c1");
  EXPECT_EQ(stays.file_path, ".docwright/workflows/stays.md");

  // Only `enabled` changes here; the rest is its file's.
  Workflow disable = stays;
  disable.enabled = false;
  ASSERT_TRUE(store_->UpdateWorkflow(disable).ok());
  Workflow reword = stays;
  reword.prompt = "Something else";
  EXPECT_EQ(store_->UpdateWorkflow(reword).status().code(), Code::kConflict);
  EXPECT_EQ(store_->DeleteWorkflow(stays.id).code(), Code::kConflict);

  Workflow broken = FileWorkflow("broken", "");
  broken.error = "line 3: on: needs one trigger";
  ASSERT_TRUE(
      store_
          ->SyncFileWorkflows(project_.id, "c2", {FileWorkflow("stays", "Changed prompt"), broken})
          .ok());
  auto after = store_->GetWorkflow(stays.id);
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after->prompt, "Changed prompt");
  EXPECT_FALSE(after->enabled);
  EXPECT_EQ(after->schedule_from, stays.schedule_from);
  EXPECT_EQ(after->file_commit, "c2");
  EXPECT_EQ(store_->GetWorkflow(goes.id).status().code(), Code::kNotFound);
  auto listed = store_->ListWorkflows(project_.id);
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].name, "broken");
  EXPECT_EQ((*listed)[0].error, "line 3: on: needs one trigger");

  // Again with the same commit and files: nothing changes.
  ASSERT_TRUE(
      store_
          ->SyncFileWorkflows(project_.id, "c2", {FileWorkflow("stays", "Changed prompt"), broken})
          .ok());
  auto again = store_->GetWorkflow(stays.id);
  EXPECT_EQ(again->updated_at, after->updated_at);
  EXPECT_EQ(store_->SyncFileWorkflows("no-such-project", "c1", {}).code(), Code::kNotFound);
}

TEST_P(StoreWorkflowsTest, ARunStartsAJobThatSaysWhatTriggeredIt) {
  ASSERT_TRUE(store_->AddContextRepository(Repo("sdk")).ok());
  Workflow w = Define("docs-sync");
  w.context = {"sdk"};
  w = Create(w);
  WorkflowRunStart started = Start(w, "push:abc");
  ASSERT_EQ(started.outcome, Outcome::kStarted);
  ASSERT_TRUE(started.job.has_value());
  EXPECT_EQ(started.run.state, RunState::kStarted);
  EXPECT_EQ(started.run.job_id, started.job->id);

  auto job = store_->GetJob(ScopeOf(project_), started.job->id);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->trigger, RunTriggerJson(Push(w, "old", "push:abc")));
  EXPECT_EQ(job->workflow_id, w.id);
  EXPECT_EQ(job->context, std::vector<std::string>{"sdk"});
  EXPECT_EQ(job->status, JobStatus::kActive);
  auto messages = store_->ListMessages(ScopeOf(project_), job->id);
  ASSERT_TRUE(messages.ok());
  ASSERT_EQ(messages->size(), 1u);
  EXPECT_EQ((*messages)[0].prompt, "Run push:abc");

  // The same event again: the same run, no second job.
  WorkflowRunStart again = Start(w, "push:abc");
  EXPECT_EQ(again.outcome, Outcome::kDuplicate);
  EXPECT_EQ(again.run.id, started.run.id);
  EXPECT_EQ(JobCount(project_), 1u);

  // An ordinary job has none of it.
  Job plain = testing::StoreTest::Create(project_);
  auto read = store_->GetJob(ScopeOf(project_), plain.id);
  EXPECT_FALSE(read->trigger.has_value());
  EXPECT_FALSE(read->workflow_id.has_value());
  EXPECT_FALSE(read->context.has_value());
}

TEST_P(StoreWorkflowsTest, EventsWhileARunIsUnderWayWaitAsOneCoalescedRun) {
  Workflow w = Create(Define("docs-sync"));
  WorkflowRunRequest request{.workflow_id = w.id, .dedup_key = "push:b", .prompt = "first"};
  request.trigger = Push(w, "a", "b");
  auto first = store_->StartWorkflowRun(request);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->outcome, Outcome::kStarted);

  request.dedup_key = "push:c";
  request.trigger = Push(w, "b", "c");
  auto second = store_->StartWorkflowRun(request);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->outcome, Outcome::kQueued);
  request.dedup_key = "push:d";
  request.trigger = Push(w, "c", "d");
  auto third = store_->StartWorkflowRun(request);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->outcome, Outcome::kQueued);
  EXPECT_EQ(third->run.trigger.from, "b");  // where the change began
  EXPECT_EQ(third->run.trigger.to, "d");

  std::vector<WorkflowRun> runs = Runs(w);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].state, RunState::kQueued);
  EXPECT_EQ(runs[1].state, RunState::kCoalesced);
  EXPECT_EQ(runs[2].state, RunState::kStarted);
  EXPECT_EQ(runs[2].job_status, JobStatus::kActive);
  EXPECT_TRUE(store_->ListStartableQueuedRuns(10)->empty());
  auto early = store_->StartQueuedWorkflowRun(third->run.id, "too early");
  ASSERT_TRUE(early.ok());
  EXPECT_EQ(early->outcome, Outcome::kQueued);

  Finish(*first->job);
  auto startable = store_->ListStartableQueuedRuns(10);
  ASSERT_TRUE(startable.ok());
  ASSERT_EQ(startable->size(), 1u);
  EXPECT_EQ((*startable)[0].id, third->run.id);
  auto started = store_->StartQueuedWorkflowRun(third->run.id, "the waiting one");
  ASSERT_TRUE(started.ok()) << started.status().message();
  ASSERT_EQ(started->outcome, Outcome::kStarted);
  auto trigger = ParseRunTrigger(*started->job->trigger);
  ASSERT_TRUE(trigger.ok());
  EXPECT_EQ(trigger->from, "b");
  EXPECT_EQ(trigger->to, "d");
  auto twice = store_->StartQueuedWorkflowRun(third->run.id, "the waiting one");
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice->outcome, Outcome::kDuplicate);
  EXPECT_EQ(JobCount(project_), 2u);
  EXPECT_EQ(store_->StartQueuedWorkflowRun(999999, "x").status().code(), Code::kNotFound);
}

TEST_P(StoreWorkflowsTest, TheDailyLimitCountsRunsWhoseJobsDidNotFail) {
  Workflow w = Define("docs-sync");
  w.runs_per_day = 2;
  w = Create(w);
  WorkflowRunStart one = Start(w, "push:1");
  ASSERT_EQ(one.outcome, Outcome::kStarted);
  Finish(*one.job, true);
  WorkflowRunStart two = Start(w, "push:2");  // startable once the first ended
  ASSERT_EQ(two.outcome, Outcome::kStarted);
  Finish(*two.job, false);
  WorkflowRunStart three = Start(w, "push:3");  // the failed one gave its place back
  ASSERT_EQ(three.outcome, Outcome::kStarted);
  Finish(*three.job, true);
  WorkflowRunStart four = Start(w, "push:4");
  EXPECT_EQ(four.outcome, Outcome::kRefused);
  EXPECT_EQ(four.run.state, RunState::kRefused);
  EXPECT_NE(four.run.error.value_or("").find("daily limit of 2 runs"), std::string::npos);
  EXPECT_EQ(Runs(w)[0].error, four.run.error);
  EXPECT_EQ(JobCount(project_), 3u);
}

TEST_P(StoreWorkflowsTest, DisabledWorkflowsRunOnlyByHandAndMoveTheirSchedule) {
  Workflow w = Define("docs-sync");
  w.enabled = false;
  w = Create(w);
  WorkflowRunStart refused = Start(w, "push:1", nullptr, false, UnixMillis{12345});
  EXPECT_EQ(refused.outcome, Outcome::kRefused);
  EXPECT_EQ(refused.run.error, "the workflow is disabled");
  EXPECT_EQ(store_->GetWorkflow(w.id)->schedule_from, 12345);
  WorkflowRunStart dup = Start(w, "push:1", nullptr, false, UnixMillis{23456});
  EXPECT_EQ(dup.outcome, Outcome::kDuplicate);
  EXPECT_EQ(store_->GetWorkflow(w.id)->schedule_from, 23456);  // whatever the outcome
  WorkflowRunStart by_hand = Start(w, "manual:x", nullptr, true);
  EXPECT_EQ(by_hand.outcome, Outcome::kStarted);
  EXPECT_EQ(JobCount(project_), 1u);
}

TEST_P(StoreWorkflowsTest, ANameOfBothSourcesOrAFileWithAnErrorIsRefused) {
  Workflow api = Create(Define("docs-sync"));
  Workflow broken = FileWorkflow("broken", "");
  broken.error = "line 2: unknown trigger";
  ASSERT_TRUE(
      store_->SyncFileWorkflows(project_.id, "c1", {FileWorkflow("docs-sync"), broken}).ok());
  WorkflowRunStart clash = Start(api, "manual:1", nullptr, true);
  EXPECT_EQ(clash.outcome, Outcome::kRefused);
  EXPECT_EQ(clash.run.error,
            "the name docs-sync is defined both through the API and in "
            ".docwright/workflows/docs-sync.md; rename one");
  auto listed = store_->ListWorkflows(project_.id);
  ASSERT_EQ(listed->size(), 3u);
  ASSERT_EQ((*listed)[2].source, WorkflowSource::kFile);
  EXPECT_EQ(Start((*listed)[2], "manual:2", nullptr, true).outcome, Outcome::kRefused);
  ASSERT_EQ((*listed)[0].name, "broken");
  WorkflowRunStart error = Start((*listed)[0], "manual:3", nullptr, true);
  EXPECT_EQ(error.outcome, Outcome::kRefused);
  EXPECT_EQ(error.run.error, "line 2: unknown trigger");
  EXPECT_EQ(JobCount(project_), 0u);
}

TEST_P(StoreWorkflowsTest, AJobTheProjectRefusesLeavesNoRun) {
  Project slow = NewProject(org_.id, 1);
  Workflow w = Create(Define("docs-sync", TriggerKind::kPush, &slow));
  testing::StoreTest::Create(slow);  // the hour's one message
  WorkflowRunRequest request{.workflow_id = w.id,
                             .dedup_key = "push:1",
                             .trigger = Push(w, "a", "b"),
                             .prompt = "Run",
                             .schedule_from = UnixMillis{777}};
  auto limited = store_->StartWorkflowRun(request);
  EXPECT_EQ(limited.status().code(), Code::kRateLimited);
  EXPECT_TRUE(Runs(w).empty());
  EXPECT_NE(store_->GetWorkflow(w.id)->schedule_from, 777);  // rolled back with it
  EXPECT_EQ(store_
                ->StartWorkflowRun(
                    WorkflowRunRequest{.workflow_id = "nope", .dedup_key = "k", .prompt = "Run"})
                .status()
                .code(),
            Code::kNotFound);
}

TEST_P(StoreWorkflowsTest, OneEventFromEightThreadsStartsOneJob) {
  Workflow w = Create(Define("docs-sync"));
  // PostgreSQL: a store each, as nodes have; SQLite: one process's store.
  std::vector<std::unique_ptr<Store>> stores;
  for (int i = 0; i < 8 && postgres(); ++i) stores.push_back(Open());
  std::atomic<int> started{0}, duplicates{0}, failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      Store* store = postgres() ? stores[i].get() : store_.get();
      WorkflowRunRequest request{.workflow_id = w.id,
                                 .dedup_key = "push:same",
                                 .trigger = Push(w, "a", "b"),
                                 .prompt = "Run"};
      auto r = store->StartWorkflowRun(request);
      if (!r.ok()) {
        ++failed;
      } else if (r->outcome == Outcome::kStarted) {
        ++started;
      } else if (r->outcome == Outcome::kDuplicate) {
        ++duplicates;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(started.load(), 1);
  EXPECT_EQ(duplicates.load(), 7);
  EXPECT_EQ(JobCount(project_), 1u);
  EXPECT_EQ(Runs(w).size(), 1u);
}

TEST_P(StoreWorkflowsTest, WatchedHeadsAreKeptPerProjectAndBranch) {
  auto none = store_->GetWatchedHead(project_.id, "docs:main");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(store_->SetWatchedHead(project_.id, "docs:main", "abc").ok());
  ASSERT_TRUE(store_->SetWatchedHead(project_.id, "context:sdk:main", "123").ok());
  EXPECT_EQ(**store_->GetWatchedHead(project_.id, "docs:main"), "abc");
  ASSERT_TRUE(store_->SetWatchedHead(project_.id, "docs:main", "def").ok());
  EXPECT_EQ(**store_->GetWatchedHead(project_.id, "docs:main"), "def");
  EXPECT_EQ(**store_->GetWatchedHead(project_.id, "context:sdk:main"), "123");
  EXPECT_FALSE(store_->GetWatchedHead(other_project_.id, "docs:main")->has_value());
  EXPECT_EQ(store_->SetWatchedHead("no-such-project", "docs:main", "abc").code(), Code::kNotFound);
  EXPECT_EQ(store_->SetWatchedHead(project_.id, "", "abc").code(), Code::kInvalidArgument);
}

TEST_P(StoreWorkflowsTest, DeletingAProjectRemovesItsWorkflowsAndAllTheirs) {
  ASSERT_TRUE(store_->AddContextRepository(Repo("sdk")).ok());
  Workflow w = Create(Define("docs-sync"));
  ASSERT_TRUE(store_->SyncFileWorkflows(project_.id, "c1", {FileWorkflow("from-file")}).ok());
  WorkflowRunStart run = Start(w, "push:1");
  ASSERT_EQ(run.outcome, Outcome::kStarted);
  ASSERT_EQ(Start(w, "push:2").outcome, Outcome::kQueued);
  ASSERT_TRUE(store_->SetWatchedHead(project_.id, "docs:main", "abc").ok());
  // The other project's stay.
  ASSERT_TRUE(store_->AddContextRepository(Repo("sdk", &other_project_)).ok());
  Create(Define("kept", TriggerKind::kPush, &other_project_));
  ASSERT_TRUE(store_->SetWatchedHead(other_project_.id, "docs:main", "abc").ok());

  Finish(*run.job);
  ASSERT_TRUE(store_->DeleteProject(ScopeOf(project_)).ok());
  for (const char* table :
       {"workflows", "workflow_runs", "context_repositories", "watched_heads", "jobs"}) {
    EXPECT_EQ(Count(std::string("SELECT COUNT(*) FROM ") + table + " WHERE project_id = '" +
                    project_.id + "'"),
              0)
        << table;
  }
  EXPECT_EQ(store_->GetWorkflow(w.id).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->ListWorkflows(other_project_.id)->size(), 1u);
  EXPECT_EQ(store_->ListContextRepositories(other_project_.id)->size(), 1u);
  EXPECT_EQ(**store_->GetWatchedHead(other_project_.id, "docs:main"), "abc");
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreWorkflowsTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
