// The workflows' engine (workflows/engine.h), one round at a time (Tick), with
// an injected clock, against a real SQLite store file and real bare
// repositories changed by the git command line as a person would: schedules
// fire once per slot and once after a downtime, pushes and merges start one
// run per new head (never for docwright's own commits), workflow files are
// read when the base branch moves, and a run queued behind another starts
// once that one's job ends; a push a forge told of (a recorded forge event)
// starts its run from the push's before to its after, once, and the polls then
// find nothing new.
#include "workflows/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/cron.h"
#include "store/store.h"
#include "support/git_repo.h"
#include "support/secrets.h"
#include "support/temp_dir.h"
#include "workflows/clock_file.h"

namespace docwright::workflows {
namespace {

using docwright::testing::kGit;
using docwright::testing::Sh;

constexpr UnixMillis kMinute = 60 * 1000;
constexpr UnixMillis kDay = 24 * 60 * kMinute;

class WorkflowEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    docs_ = dir_ / "docs.git";
    sdk_ = dir_ / "sdk.git";
    docwright::testing::MakeDocsRemote(docs_);
    MakeRepo(sdk_, "sdk-seed", "src/gadget.h");
    auto opened = OpenStore(dir_ / "docwright.db", docwright::testing::TestSecrets());
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    store_ = std::move(*opened);
    org_ = *store_->CreateOrg("acme");
    Project p;
    p.org_id = org_.id;
    p.repository = docs_;
    p.base_ref = "main";
    p.rate_limit_per_hour = 1000;
    auto made = store_->CreateProject(p);
    ASSERT_TRUE(made.ok()) << made.status().message();
    project_ = *made;
    git::TransferLimits limits;
    limits.connect_timeout = limits.idle_timeout = std::chrono::seconds(5);
    limits.transfer_timeout = limits.lock_timeout = std::chrono::seconds(20);
    mirrors_ = std::make_shared<git::MirrorPool>(dir_ / "mirrors", limits);
    WorkflowEngineOptions options;
    options.poll_interval = std::chrono::milliseconds(0);  // every Tick polls
    options.clock = [this] { return now_; };
    engine_ = std::make_unique<WorkflowEngine>(*store_, mirrors_, options);
  }

  // A bare repository at `bare` with one commit holding `file`, pushed from
  // the work tree `seed` (kept for later commits).
  void MakeRepo(const std::string& bare, const std::string& seed, const std::string& file) {
    Sh(std::string(kGit) + " init -q --bare " + bare);
    Sh(std::string(kGit) + " init -q " + (dir_ / seed));
    CommitTo(seed, bare, file, "first\n", "Initial commit");
  }
  // Writes `file` in the work tree `seed` (cloned from `bare` if need be),
  // commits it with `message` and pushes main to `bare`.
  void CommitTo(const std::string& seed, const std::string& bare, const std::string& file,
                const std::string& content, const std::string& message) {
    std::string tree = dir_ / seed;
    if (!std::filesystem::exists(tree)) Sh(std::string(kGit) + " clone -q " + bare + " " + tree);
    std::filesystem::create_directories(std::filesystem::path(tree + "/" + file).parent_path());
    std::ofstream(tree + "/" + file) << content;
    std::ofstream(dir_ / "message") << message;
    Sh("cd " + tree + " && " + kGit + " add -A && " + kGit + " commit -q -F " + (dir_ / "message") +
       " && " + kGit + " push -q " + bare + " HEAD:main");
  }
  void CommitToDocs(const std::string& file, const std::string& message) {
    CommitTo("docs-seed", docs_, file, message + "\n", message);
  }

  Workflow Create(Workflow w) {
    w.project_id = project_.id;
    if (w.prompt.empty()) w.prompt = "Keep the docs in step.";
    auto made = store_->CreateWorkflow(w);
    EXPECT_TRUE(made.ok()) << made.status().message();
    return made.ok() ? *made : w;
  }

  std::vector<WorkflowRun> Runs(const Workflow& w) {
    auto runs = store_->ListWorkflowRuns(w.id, 100);
    EXPECT_TRUE(runs.ok()) << runs.status().message();
    return runs.ok() ? *runs : std::vector<WorkflowRun>{};
  }

  void Tick() {
    Status s = engine_->Tick();
    EXPECT_TRUE(s.ok()) << s.message();
  }

  Job JobOf(const WorkflowRun& run) {
    EXPECT_TRUE(run.job_id.has_value());
    auto job = store_->GetJob(Scope{org_.id, project_.id}, run.job_id.value_or(""));
    EXPECT_TRUE(job.ok()) << job.status().message();
    return job.ok() ? *job : Job{};
  }
  std::string PromptOf(const WorkflowRun& run) {
    auto messages = store_->ListMessages(Scope{org_.id, project_.id}, run.job_id.value_or(""));
    EXPECT_TRUE(messages.ok() && !messages->empty());
    return messages.ok() && !messages->empty() ? (*messages)[0].prompt : "";
  }
  // Ends the job's turn as a worker would.
  void FinishTheTurn() {
    auto claimed = store_->ClaimTurn("w", std::chrono::milliseconds(60000), kMaxTurnAttempts);
    ASSERT_TRUE(claimed.ok() && claimed->has_value());
    auto done = store_->FinishTurn((*claimed)->turn_id, "w",
                                   TurnOutcome{.succeeded = true, .summary = "done"});
    ASSERT_TRUE(done.ok()) << done.status().message();
  }

  Workflow MergeWorkflow() {
    ContextRepository repo;
    repo.project_id = project_.id;
    repo.name = "sdk";
    repo.repository = sdk_;
    repo.branch = "main";
    auto added = store_->AddContextRepository(repo);
    EXPECT_TRUE(added.ok()) << added.status().message();
    Workflow w;
    w.name = "api-changes";
    w.trigger.kind = TriggerKind::kMerge;
    w.trigger.repository = "sdk";
    return Create(w);
  }

  // An engine that polls once, at its first round, and then not for an hour:
  // only a forge's event can tell it of a push after that.
  void PollOnlyOnce() {
    WorkflowEngineOptions options;
    options.poll_interval = std::chrono::hours(1);
    options.clock = [this] { return now_; };
    engine_ = std::make_unique<WorkflowEngine>(*store_, mirrors_, options);
  }

  std::string HeadOf(const std::string& bare) {
    return Sh(std::string(kGit) + " --git-dir=" + bare + " rev-parse refs/heads/main");
  }

  // A GitHub push of `bare`'s main as the API records it: the payload's
  // clone_url is the repository's path, as a local project's can be.
  bool RecordPush(const std::string& bare, const std::string& before, const std::string& after,
                  const std::string& delivery) {
    ForgeEvent e;
    e.project_id = project_.id;
    e.forge = ForgeKind::kGithub;
    e.delivery_id = delivery;
    e.kind = ForgeEventKind::kPush;
    e.sender = "octocat";
    e.repository_urls = {bare, "https://github.com/acme/elsewhere.git"};
    e.branch = "main";
    e.before = before;
    e.after = after;
    auto recorded = store_->RecordForgeEvent(e);
    EXPECT_TRUE(recorded.ok()) << recorded.status().message();
    return recorded.ok() && *recorded;
  }

  std::vector<ForgeEvent> PendingEvents() {
    auto pending = store_->ListPendingForgeEvents(100);
    EXPECT_TRUE(pending.ok()) << pending.status().message();
    return pending.ok() ? *pending : std::vector<ForgeEvent>{};
  }

  docwright::testing::TempDir dir_;
  std::string docs_, sdk_;
  std::unique_ptr<Store> store_;
  Org org_;
  Project project_;
  std::shared_ptr<git::MirrorPool> mirrors_;
  UnixMillis now_ = NowMillis();
  std::unique_ptr<WorkflowEngine> engine_;
};

TEST_F(WorkflowEngineTest, AScheduleFiresOnceAtItsSlotAndOnceAfterADowntime) {
  Workflow w;
  w.name = "daily";
  w.trigger.kind = TriggerKind::kSchedule;
  w.trigger.cron = "0 9 * * *";
  w.trigger.time_zone = "Europe/Berlin";
  w = Create(w);
  auto schedule = CronSchedule::Parse("0 9 * * *", "Europe/Berlin");
  ASSERT_TRUE(schedule.ok());
  UnixMillis slot = schedule->NextAfter(w.schedule_from).value();

  now_ = slot - kMinute;
  Tick();
  EXPECT_TRUE(Runs(w).empty()) << "not before its slot";

  now_ = slot;
  Tick();
  auto runs = Runs(w);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, RunState::kStarted);
  EXPECT_EQ(runs[0].dedup_key, "schedule:" + std::to_string(slot));
  Job job = JobOf(runs[0]);
  ASSERT_TRUE(job.trigger.has_value());
  auto trigger = ParseRunTrigger(*job.trigger);
  ASSERT_TRUE(trigger.ok()) << *job.trigger;
  EXPECT_EQ(trigger->kind, "schedule");
  EXPECT_EQ(trigger->workflow, "daily");
  EXPECT_EQ(trigger->scheduled_for, slot);
  EXPECT_EQ(job.workflow_id, w.id);
  EXPECT_NE(PromptOf(runs[0]).find("Keep the docs in step."), std::string::npos);

  now_ = slot + kMinute;
  Tick();
  EXPECT_EQ(Runs(w).size(), 1u) << "once per slot";
  FinishTheTurn();

  // Three days down: the slots missed fire once, not three times.
  now_ = slot + 3 * kDay + 60 * kMinute;
  Tick();
  Tick();
  runs = Runs(w);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].state, RunState::kStarted);
  EXPECT_EQ(runs[0].trigger.scheduled_for, schedule->NextAfter(slot)) << "the first slot missed";
  now_ += kMinute;
  Tick();
  EXPECT_EQ(Runs(w).size(), 2u);
}

TEST_F(WorkflowEngineTest, AMergeIntoAContextRepositoryStartsOneRunWithItsCommitsAndFiles) {
  Workflow w = MergeWorkflow();
  Tick();
  EXPECT_TRUE(Runs(w).empty()) << "the first sight of a branch only records its head";
  auto head = store_->GetWatchedHead(project_.id, "context:sdk:main");
  ASSERT_TRUE(head.ok() && head->has_value());

  CommitTo("sdk-seed", sdk_, "src/widgets.h", "struct Widget {};\n", "Add the widgets API");
  Tick();
  auto runs = Runs(w);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, RunState::kStarted);
  EXPECT_EQ(runs[0].trigger.kind, "merge");
  EXPECT_EQ(runs[0].trigger.repository, "sdk");
  EXPECT_EQ(runs[0].trigger.from, **head);
  std::string prompt = PromptOf(runs[0]);
  EXPECT_NE(prompt.find("Add the widgets API"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("src/widgets.h"), std::string::npos) << prompt;

  Tick();
  EXPECT_EQ(Runs(w).size(), 1u) << "one run per new head";
}

TEST_F(WorkflowEngineTest, DocwrightsOwnCommitsStartNoPushRunAPersonsDoes) {
  Workflow w;
  w.name = "on-push";
  w.trigger.kind = TriggerKind::kPush;
  w = Create(w);
  Tick();
  EXPECT_TRUE(Runs(w).empty());

  CommitToDocs("index.mdx", "Fix a typo\n\nDocwright-Job: x\nDocwright-Message: 1");
  Tick();
  EXPECT_TRUE(Runs(w).empty()) << "docwright's own commit";

  CommitToDocs("quickstart.mdx", "Explain the install");
  Tick();
  auto runs = Runs(w);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].trigger.kind, "push");
  EXPECT_EQ(runs[0].trigger.repository, "docs");
  EXPECT_EQ(runs[0].trigger.branch, "main");
  EXPECT_NE(PromptOf(runs[0]).find("Explain the install"), std::string::npos);
}

TEST_F(WorkflowEngineTest, AWorkflowFileOnTheBaseBranchIsReadAfterATick) {
  Tick();
  CommitToDocs(".docwright/workflows/weekly.md",
               "---\non:\n  cron: \"0 9 * * 1\"\n---\nWrite the weekly summary.");
  Tick();
  auto listed = store_->ListWorkflows(project_.id);
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  auto file = std::find_if(listed->begin(), listed->end(),
                           [](const Workflow& w) { return w.name == "weekly"; });
  ASSERT_NE(file, listed->end());
  EXPECT_EQ(file->source, WorkflowSource::kFile);
  EXPECT_EQ(file->file_path, ".docwright/workflows/weekly.md");
  EXPECT_FALSE(file->error.has_value()) << *file->error;
  EXPECT_EQ(file->trigger.kind, TriggerKind::kSchedule);
}

TEST_F(WorkflowEngineTest, ARunWhileAnotherIsUnderWayWaitsAndStartsOnceItEnds) {
  Workflow w = MergeWorkflow();
  Tick();
  CommitTo("sdk-seed", sdk_, "src/one.h", "1\n", "First change");
  Tick();
  CommitTo("sdk-seed", sdk_, "src/two.h", "2\n", "Second change");
  Tick();
  auto runs = Runs(w);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].state, RunState::kQueued) << "newest first: the second waits";
  EXPECT_EQ(runs[1].state, RunState::kStarted);

  Tick();
  EXPECT_EQ(Runs(w)[0].state, RunState::kQueued) << "still under way";

  FinishTheTurn();
  Tick();
  runs = Runs(w);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].state, RunState::kStarted);
  std::string prompt = PromptOf(runs[0]);
  EXPECT_NE(prompt.find("Second change"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("src/two.h"), std::string::npos) << prompt;
}

TEST_F(WorkflowEngineTest, AForgesPushStartsTheMergeRunFromItsBeforeToItsAfterOnce) {
  Workflow w = MergeWorkflow();
  PollOnlyOnce();
  Tick();  // the first sight of the branch
  const std::string before = HeadOf(sdk_);
  ASSERT_EQ(store_->GetWatchedHead(project_.id, "context:sdk:main")->value_or(""), before);

  CommitTo("sdk-seed", sdk_, "src/widgets.h", "struct Widget {};\n", "Add the widgets API");
  const std::string after = HeadOf(sdk_);
  ASSERT_TRUE(RecordPush(sdk_, before, after, "delivery-1"));
  Tick();
  auto runs = Runs(w);
  ASSERT_EQ(runs.size(), 1u) << "the push, not a poll, started it";
  EXPECT_EQ(runs[0].state, RunState::kStarted);
  EXPECT_EQ(runs[0].trigger.kind, "merge");
  EXPECT_EQ(runs[0].trigger.repository, "sdk");
  EXPECT_EQ(runs[0].trigger.from, before);
  EXPECT_EQ(runs[0].trigger.to, after);
  EXPECT_EQ(runs[0].dedup_key, "merge:sdk:" + after);
  std::string prompt = PromptOf(runs[0]);
  EXPECT_NE(prompt.find("Add the widgets API"), std::string::npos) << prompt;
  EXPECT_TRUE(PendingEvents().empty()) << "the event is finished";
  EXPECT_EQ(store_->GetWatchedHead(project_.id, "context:sdk:main")->value_or(""), after);

  // A poll (a fresh engine polls at once) finds nothing new.
  PollOnlyOnce();
  Tick();
  EXPECT_EQ(Runs(w).size(), 1u);
}

TEST_F(WorkflowEngineTest, APushDeliveredTwiceStartsOneRun) {
  Workflow w;
  w.name = "on-push";
  w.trigger.kind = TriggerKind::kPush;
  w = Create(w);
  PollOnlyOnce();
  Tick();
  const std::string before = HeadOf(docs_);
  CommitToDocs("guide.mdx", "Write the guide");
  const std::string after = HeadOf(docs_);
  ASSERT_TRUE(RecordPush(docs_, before, after, "delivery-1"));
  EXPECT_FALSE(RecordPush(docs_, before, after, "delivery-1")) << "one delivery, recorded once";
  ASSERT_TRUE(RecordPush(docs_, before, after, "delivery-2")) << "the forge sent it again";
  Tick();
  auto runs = Runs(w);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].trigger.kind, "push");
  EXPECT_EQ(runs[0].trigger.from, before);
  EXPECT_EQ(runs[0].trigger.to, after);
  EXPECT_TRUE(PendingEvents().empty());
  Tick();
  EXPECT_EQ(Runs(w).size(), 1u);
}

TEST_F(WorkflowEngineTest, APushToNoneOfTheProjectsRepositoriesDoesNothing) {
  Workflow w = MergeWorkflow();
  PollOnlyOnce();
  Tick();
  const std::string before = HeadOf(sdk_);
  CommitTo("sdk-seed", sdk_, "src/gears.h", "struct Gear {};\n", "Add gears");
  ForgeEvent e;
  e.project_id = project_.id;
  e.forge = ForgeKind::kGithub;
  e.delivery_id = "elsewhere";
  e.kind = ForgeEventKind::kPush;
  e.repository_urls = {"https://github.com/acme/unrelated.git"};
  e.branch = "main";
  e.before = before;
  e.after = HeadOf(sdk_);
  ASSERT_TRUE(store_->RecordForgeEvent(e).ok());
  Tick();
  EXPECT_TRUE(Runs(w).empty());
  EXPECT_TRUE(PendingEvents().empty()) << "finished, with what it did";
}

TEST(SameRepositoryTest, OneRepositoryByAnyOfItsUrls) {
  EXPECT_TRUE(SameRepository("https://GitHub.com/acme/docs.git", "git@github.com:acme/docs"));
  EXPECT_TRUE(SameRepository("ssh://git@github.com:22/acme/docs/", "https://github.com/acme/docs"));
  EXPECT_TRUE(SameRepository("/srv/git/docs.git", "/srv/git/docs.git/"));
  EXPECT_TRUE(SameRepository("file:///srv/git/docs.git", "/srv/git/docs.git"));
  EXPECT_FALSE(SameRepository("https://github.com/acme/docs", "https://github.com/acme/sdk"));
  EXPECT_FALSE(SameRepository("https://github.com/acme/docs", "https://gitlab.com/acme/docs"));
  EXPECT_FALSE(SameRepository("https://github.com/", "https://github.com"));
  EXPECT_FALSE(SameRepository("", ""));
}

TEST_F(WorkflowEngineTest, AStoppedEngineRunsNoRound) {
  engine_->Start();
  engine_->Stop();
  EXPECT_EQ(engine_->Tick().code(), Code::kUnavailable);
}

TEST(DocwrightCommitTest, TrailersAndMergesOfItsBranchesAreItsOwn) {
  git::CommitSummary c;
  c.message = "Fix\n\nDocwright-Job: abc\nDocwright-Message: 2\n";
  EXPECT_TRUE(IsDocwrightCommit(c));
  c.message = "Fix\n\n  Docwright-Job: abc\n";  // indented: quoted, not a trailer
  EXPECT_FALSE(IsDocwrightCommit(c));
  c.message = "Merge branch 'docwright/fix-typo' into 'main'";
  EXPECT_FALSE(IsDocwrightCommit(c)) << "not a merge commit";
  c.is_merge = true;
  EXPECT_TRUE(IsDocwrightCommit(c));
  c.message = "Merge branch 'feature' into 'main'";
  EXPECT_FALSE(IsDocwrightCommit(c));
}

TEST(ClockFileTest, ReadsRfc3339TimesAndRefusesTheRest) {
  EXPECT_EQ(*ParseRfc3339("2026-12-01T08:00:00Z"), 1796112000000);
  EXPECT_EQ(*ParseRfc3339("2026-12-01T09:00:00.250+01:00"), 1796112000250);
  EXPECT_EQ(*ParseRfc3339("1970-01-01T00:00:00Z"), 0);
  for (const char* bad : {"", "2026-12-01", "2026-02-30T00:00:00Z", "2026-12-01T09:00:00",
                          "2026-12-01T09:00:00Zjunk", "2026-13-01T00:00:00Z"}) {
    EXPECT_FALSE(ParseRfc3339(bad).has_value()) << bad;
  }
  docwright::testing::TempDir dir;
  std::string path = dir / "clock";
  auto clock = FileClock(path);
  std::ofstream(path) << "2026-12-01T08:00:00Z\n";
  EXPECT_EQ(clock(), 1796112000000);
  std::ofstream(path) << "not a time";
  EXPECT_EQ(clock(), 1796112000000) << "the last time read";
}

}  // namespace
}  // namespace docwright::workflows
