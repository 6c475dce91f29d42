// Workflow runs exactly once across nodes: two `serve` nodes on one PostgreSQL
// database, each with its own data dir (its own mirrors) and its own clock file
// (`--workflow-clock-file`, always written with the same time), fire a cron
// workflow's slots and a merge workflow's pushes into a context repository,
// while one of them is killed (SIGKILL) at random moments and restarted. Each
// trigger event has one run, each started run one job, no two jobs of one
// workflow are under way at once, and every job ends.
//
// What is true by design, and asserted (store/sql/workflow_runs.cc, workflows/engine.cc):
// - A slot fires once: its run's dedup key is "schedule:<slot ms>", unique per
//   workflow. A slot passed while no node is up is coalesced into the next start
//   ("a missed time during downtime fires once on start"): the test keeps one
//   node up at all times and waits for each slot's run before moving the clocks
//   again, so every slot has exactly one run here.
// - A run that arrives while the workflow's run is under way waits (queued); a
//   later one takes the waiting one's place, which becomes coalesced, keeping
//   where the change began (CoalesceTriggers). So a run ends started (one job) or
//   coalesced (no job), and the run of the last event is started.
// - A merge run is keyed "merge:sdk:<head>" for the head a node saw; two pushes
//   between polls give one run whose range from..to covers both. Every push is
//   covered by a started run's range, and ranges only move forward: a node that
//   fetched a head and recorded it after another node had recorded a later one
//   would break this (a stale head acted on), and this test would say so.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "core/cron.h"
#include "core/time.h"
#include "core/workflow.h"
#include "store/store.h"
#include "support/postgres_database.h"
#include "support/secrets.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;

// The clocks are moved to half-way between two slots of "*/5 * * * *": one new
// slot passes each time they move.
constexpr UnixMillis kHalfSlot = 150 * 1000;
constexpr const char* kContextWatch = "context:sdk:main";
// A job's end is written with the worker's time before its transaction, the
// next job's start with the database's time after the project's lock and just
// before it counts the runs under way: a run that starts as the other ends may
// read as starting a few milliseconds before it ended. Two runs really under
// way at once overlap by a whole job (its [sleep]), far more than this.
constexpr UnixMillis kTimeSlack = 200;

struct Node {
  std::string name;
  std::unique_ptr<ServerProcess> process;
  bool up = false;
  SteadyClock::time_point restart_at;
};

class WorkflowNodesTest : public ServiceTest {
 protected:
  void SetUp() override {
    std::string why;
    database_ = PostgresDatabase::Create(&why);
    DOCWRIGHT_REQUIRE_TOOL(database_ != nullptr, "no PostgreSQL server: " + why);
    remote_a_ = dir_ / "acme-docs.git";
    sdk_ = dir_ / "sdk.git";
    MakeDocsRemote(remote_a_);
    MakeRemoteWith(sdk_, {{"src/gadget.h", "int gadget();\n"}});
    Sh(std::string(kGit) + " clone -q " + sdk_ + " " + (dir_ / "sdk-work"));
    heads_.push_back(Sh("git --git-dir=" + sdk_ + " rev-parse main"));
    auto opened = OpenStore(database_->url(), testing::TestSecrets());
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    store_ = std::move(*opened);
    AddTenant(*store_, "acme", remote_a_, &org_a_, &key_a_, &project_a_);
    Project roomy = *store_->GetProject(Scope{org_a_, project_a_});
    roomy.rate_limit_per_hour = 1000000;
    ASSERT_TRUE(store_->UpdateProject(roomy).ok());
    ContextRepository sdk;
    sdk.project_id = project_a_;
    sdk.name = "sdk";
    sdk.repository = sdk_;
    sdk.branch = "main";
    auto added = store_->AddContextRepository(sdk);
    ASSERT_TRUE(added.ok()) << added.status().message();
    SetClocks(NowMillis());
  }

  int64_t Count(const std::string& sql) override {
    return PostgresDatabase::Scalar(database_->url(), sql);
  }

  // A workflow of the project; the daily limit (which counts real days) out of the way.
  Workflow CreateWorkflow(const std::string& name, TriggerKind kind, const std::string& prompt) {
    Workflow w;
    w.project_id = project_a_;
    w.name = name;
    w.prompt = prompt;
    w.trigger.kind = kind;
    if (kind == TriggerKind::kSchedule) {
      w.trigger.cron = "*/5 * * * *";
      w.trigger.time_zone = "UTC";
    }
    if (kind == TriggerKind::kMerge) w.trigger.repository = "sdk";
    w.runs_per_day = kMaxWorkflowRunsPerDay;
    auto made = store_->CreateWorkflow(w);
    EXPECT_TRUE(made.ok()) << made.status().message();
    return made.ok() ? *made : Workflow{};
  }

  // The first `n` slots of `w`'s schedule after it was made.
  static std::vector<UnixMillis> Slots(const Workflow& w, size_t n) {
    std::vector<UnixMillis> slots;
    auto schedule = CronSchedule::Parse(w.trigger.cron, w.trigger.time_zone);
    EXPECT_TRUE(schedule.ok()) << schedule.status().message();
    if (!schedule.ok()) return slots;
    UnixMillis after = w.schedule_from;
    while (slots.size() < n) {
      std::optional<UnixMillis> next = schedule->NextAfter(after);
      if (!next) break;
      slots.push_back(*next);
      after = *next;
    }
    return slots;
  }

  std::string ClockOf(const std::string& node) const { return dir_ / ("clock-" + node); }
  // Both clock files, each replaced whole: a node never reads half a time.
  void SetClocks(UnixMillis t) {
    for (const char* node : {"node-a", "node-b"}) {
      std::string tmp = ClockOf(node) + ".tmp";
      std::ofstream(tmp) << FormatRfc3339(t) << "\n";
      std::filesystem::rename(tmp, ClockOf(node));
    }
  }

  void StartNodes() {
    for (const char* name : {"node-a", "node-b"}) {
      std::filesystem::create_directories(dir_ / name);  // where its log goes
      Node node;
      node.name = name;
      node.process = std::make_unique<ServerProcess>(
          kScripted, dir_ / name,
          std::vector<std::string>{"--database", database_->url(), "--workers", "2",
                                   "--lease-seconds", "1", "--workflow-tick", "100",
                                   "--workflow-poll-interval", "150", "--workflow-clock-file",
                                   ClockOf(name)});
      nodes_.push_back(std::move(node));
    }
    for (Node& node : nodes_) StartNode(node);
  }
  // Starts `node` (again: same flags, same data dir). One that does not start
  // is not tried again: the test goes on with the other and fails.
  void StartNode(Node& node) {
    node.up = node.process->Start();
    EXPECT_TRUE(node.up) << node.name << " did not start:\n" << Tail(node.process->Log());
    if (!node.up) node.restart_at = SteadyClock::time_point::max();
  }
  void Kill(Node& node, milliseconds down_for) {
    node.process->Kill9();
    node.up = false;
    node.restart_at = SteadyClock::now() + down_for;
    ++kills_;
  }
  bool AllUp() const {
    return std::all_of(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.up; });
  }

  // Restarts the nodes whose time has come, and samples how many jobs of one
  // workflow are active at once.
  void Pump() {
    for (Node& node : nodes_) {
      if (node.up || SteadyClock::now() < node.restart_at) continue;
      StartNode(node);
      if (node.up) ++restarts_;
    }
    if (SteadyClock::now() < next_sample_) return;
    // Two runs really under way at once would overlap by a whole job.
    next_sample_ = SteadyClock::now() + milliseconds(100);
    most_active_ = std::max(most_active_,
                            Count("SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM jobs "
                                  "WHERE status = 'active' AND workflow_id IS NOT NULL "
                                  "GROUP BY workflow_id) AS per_workflow"));
  }
  bool PumpUntil(const std::function<bool()>& done, milliseconds timeout) {
    auto deadline = SteadyClock::now() + timeout;
    while (true) {
      Pump();
      if (done()) return true;
      if (SteadyClock::now() >= deadline) return false;
      std::this_thread::sleep_for(milliseconds(20));
    }
  }
  void PumpFor(milliseconds how_long) {
    PumpUntil([] { return false; }, how_long);
  }

  // Commits `commits` changes in the context repository's work tree and pushes
  // them in one push: its head is the push's.
  void Push(int commits) {
    const std::string tree = dir_ / "sdk-work";
    for (int i = 0; i < commits; ++i) {
      const std::string n = std::to_string(++changes_);
      std::ofstream(tree + "/src/change-" + n + ".h") << "int change" << n << "();\n";
      Sh("cd " + tree + " && " + kGit + " add -A && " + kGit + " commit -qm 'Add change " + n +
         "'");
    }
    Sh("cd " + tree + " && " + kGit + " push -q " + sdk_ + " HEAD:main");
    heads_.push_back(Sh("git -C " + tree + " rev-parse HEAD"));
  }

  std::optional<std::string> WatchedContextHead() {
    auto head = store_->GetWatchedHead(project_a_, kContextWatch);
    return head.ok() ? *head : std::nullopt;
  }
  // Through the store's pooled connections: polled often, and a connection
  // of its own each time would cost the nodes' database more than they do.
  int64_t RunsKeyed(const Workflow& w, const std::string& key) {
    std::vector<WorkflowRun> runs = Runs(w);
    return std::count_if(runs.begin(), runs.end(),
                         [&](const WorkflowRun& r) { return r.dedup_key == key; });
  }
  // Nothing queued, no job active, and (`merges`) the last push seen.
  bool Quiet(bool merges) {
    return Count("SELECT COUNT(*) FROM workflow_runs WHERE state = 'queued'") == 0 &&
           Count("SELECT COUNT(*) FROM jobs WHERE status = 'active'") == 0 &&
           (!merges || WatchedContextHead() == heads_.back());
  }

  std::vector<WorkflowRun> Runs(const Workflow& w) {
    auto runs = store_->ListWorkflowRuns(w.id, 1000);
    EXPECT_TRUE(runs.ok()) << runs.status().message();
    return runs.ok() ? *runs : std::vector<WorkflowRun>{};
  }

  static std::string Tail(const std::string& text, size_t n = 4000) {
    return text.size() <= n ? text : "..." + text.substr(text.size() - n);
  }
  std::string Logs() const {
    std::string logs;
    for (const Node& node : nodes_) {
      logs += "\n--- " + node.name + " ---\n" + Tail(node.process->Log());
    }
    return logs;
  }

  // Each started run of `w` has a job of its own, of `w`, with the run's
  // trigger, ended (failed only when the kills interrupted its turn too often);
  // the workflow has no other job; other runs have none. And, read from the
  // jobs' times, each job began after the one before it ended: never two under
  // way at once. The jobs, oldest first.
  std::vector<docwright::Job> ExpectOneEndedJobPerStartedRun(const Workflow& w,
                                                             const std::vector<WorkflowRun>& runs) {
    std::vector<docwright::Job> jobs;
    std::set<std::string> ids;
    for (const WorkflowRun& run : runs) {
      if (run.state != RunState::kStarted) {
        EXPECT_FALSE(run.job_id.has_value()) << run.dedup_key << " is not started";
        continue;
      }
      if (!run.job_id) {
        ADD_FAILURE() << run.dedup_key << " is started without a job";
        continue;
      }
      EXPECT_TRUE(ids.insert(*run.job_id).second) << "two runs with job " << *run.job_id;
      auto job = store_->GetJob(Scope{org_a_, project_a_}, *run.job_id);
      if (!job.ok()) {
        ADD_FAILURE() << run.dedup_key << ": " << job.status().message();
        continue;
      }
      EXPECT_EQ(job->workflow_id.value_or(""), w.id) << job->id;
      auto trigger = ParseRunTrigger(job->trigger.value_or(""));
      EXPECT_TRUE(trigger.ok()) << job->id << ": " << job->trigger.value_or("(none)");
      if (trigger.ok()) {
        EXPECT_EQ(trigger->kind, run.trigger.kind) << job->id;
        EXPECT_EQ(trigger->scheduled_for.value_or(0), run.trigger.scheduled_for.value_or(0))
            << job->id;
        EXPECT_EQ(trigger->from, run.trigger.from) << job->id;
        EXPECT_EQ(trigger->to, run.trigger.to) << job->id;
      }
      if (job->status == JobStatus::kFailed) {
        EXPECT_NE(job->error.value_or("").find("interrupted"), std::string::npos)
            << job->id << ": " << job->error.value_or("");
        ++failed_;
      } else {
        EXPECT_EQ(job->status, JobStatus::kCompleted)
            << job->id << " " << ToString(job->status) << ": " << job->error.value_or("");
      }
      jobs.push_back(*job);
    }
    EXPECT_EQ(Count("SELECT COUNT(*) FROM jobs WHERE workflow_id = '" + w.id + "'"),
              static_cast<int64_t>(jobs.size()))
        << "the workflow " << w.name << " has a job no run started";
    std::sort(jobs.begin(), jobs.end(), [](const docwright::Job& a, const docwright::Job& b) {
      return a.created_at < b.created_at;
    });
    for (size_t i = 1; i < jobs.size(); ++i) {
      EXPECT_GE(jobs[i].created_at + kTimeSlack, jobs[i - 1].updated_at)
          << "two jobs of " << w.name << " under way at once: " << jobs[i - 1].id << " ("
          << jobs[i - 1].created_at << " to " << jobs[i - 1].updated_at << ") and " << jobs[i].id
          << " (from " << jobs[i].created_at << ")";
    }
    return jobs;
  }

  std::unique_ptr<PostgresDatabase> database_;
  std::unique_ptr<Store> store_;  // on the nodes' database
  std::vector<Node> nodes_;
  std::string sdk_;                 // the context repository "sdk"
  std::vector<std::string> heads_;  // its head at first, then after each push
  int changes_ = 0;
  int kills_ = 0;
  int restarts_ = 0;
  int failed_ = 0;
  int64_t most_active_ = 0;  // the most jobs of one workflow seen active at once
  SteadyClock::time_point next_sample_;
};

// Both nodes see each slot pass at once (the same time in both clock files):
// each slot starts one run and one job, whichever node gets there first, and
// the other node's rounds after it start nothing more.
TEST_F(WorkflowNodesTest, ASlotPassedOnBothNodesAtOnceStartsOneRunAndOneJob) {
  Workflow cron =
      CreateWorkflow("changelog", TriggerKind::kSchedule, "[nochange] Check the changelog.");
  ASSERT_FALSE(cron.id.empty());
  constexpr size_t kSlots = 10;
  const std::vector<UnixMillis> slots = Slots(cron, kSlots);
  ASSERT_EQ(slots.size(), kSlots);
  StartNodes();
  ASSERT_TRUE(AllUp());
  const std::string active =
      "SELECT COUNT(*) FROM jobs WHERE workflow_id = '" + cron.id + "' AND status = 'active'";

  std::set<std::string> keys;
  for (size_t k = 0; k < kSlots; ++k) {
    SetClocks(slots[k] + kHalfSlot);
    const std::string key = "schedule:" + std::to_string(slots[k]);
    keys.insert(key);
    ASSERT_TRUE(PumpUntil([&] { return RunsKeyed(cron, key) > 0; }, seconds(15)))
        << "slot " << k << " (" << FormatRfc3339(slots[k]) << ") did not fire" << Logs();
    // Its job ends (so the next slot's run starts rather than waits), and both
    // nodes go on with rounds of their own at this time.
    ASSERT_TRUE(PumpUntil([&] { return Count(active) == 0; }, seconds(20)))
        << "the job of slot " << k << " did not end" << Logs();
    PumpFor(milliseconds(300));
    std::vector<WorkflowRun> runs = Runs(cron);
    ASSERT_EQ(runs.size(), k + 1) << "slot " << k << Logs();
    EXPECT_EQ(runs[0].dedup_key, key);  // newest first
    EXPECT_EQ(runs[0].state, RunState::kStarted) << runs[0].error.value_or("");
    EXPECT_EQ(runs[0].trigger.scheduled_for.value_or(0), slots[k]);
  }

  std::vector<WorkflowRun> runs = Runs(cron);
  std::set<std::string> seen;
  for (const WorkflowRun& run : runs) {
    EXPECT_TRUE(seen.insert(run.dedup_key).second) << "two runs for " << run.dedup_key;
    EXPECT_EQ(run.state, RunState::kStarted) << run.dedup_key;
  }
  EXPECT_EQ(seen, keys);
  EXPECT_EQ(ExpectOneEndedJobPerStartedRun(cron, runs).size(), kSlots);
  EXPECT_EQ(failed_, 0);
  EXPECT_LE(most_active_, 1) << "two jobs of one workflow were active at once";
}

// The scenario: a slot passes each round and pushes land in the context
// repository, while a node is killed at random moments (always one left up)
// and restarted a little later on its data dir. Then: every slot has exactly
// one run, every push at most one run of its own and a place in a started
// run's range, every started run one job, every job ends, and no two jobs of
// one workflow were ever under way at once.
TEST_F(WorkflowNodesTest, EveryTriggerStartsOneRunWhileNodesAreKilledAtRandom) {
  // The jobs last long enough for triggers to arrive while one runs: they
  // queue, and coalesce.
  Workflow cron = CreateWorkflow("changelog", TriggerKind::kSchedule,
                                 "[sleep 600] [nochange] Check the changelog.");
  Workflow merged = CreateWorkflow("sdk-changes", TriggerKind::kMerge,
                                   "[sleep 300] [nochange] Note what changed in the SDK.");
  ASSERT_FALSE(cron.id.empty());
  ASSERT_FALSE(merged.id.empty());
  constexpr size_t kRounds = 20;
  const std::vector<UnixMillis> slots = Slots(cron, kRounds);
  ASSERT_EQ(slots.size(), kRounds);
  StartNodes();
  ASSERT_TRUE(AllUp());
  // The first sight of the branch records its head only: the pushes come after it.
  ASSERT_TRUE(PumpUntil([&] { return WatchedContextHead() == heads_[0]; }, seconds(15))) << Logs();

  unsigned seed = std::random_device{}();
  if (const char* given = std::getenv("DOCWRIGHT_NODES_SEED")) {
    seed = static_cast<unsigned>(std::strtoul(given, nullptr, 10));
  }
  std::cout << "kill schedule seed " << seed << " (DOCWRIGHT_NODES_SEED repeats it)\n";
  RecordProperty("seed", std::to_string(seed));
  SCOPED_TRACE("kill schedule seed " + std::to_string(seed));
  std::mt19937 random(seed);

  int rounds_since_kill = 0;
  for (size_t k = 0; k < kRounds; ++k) {
    SetClocks(slots[k] + kHalfSlot);
    if (k == 0 || k + 1 == kRounds || random() % 100 < 60) {
      const int commits = 1 + static_cast<int>(random() % 3);
      Push(commits);
    }
    const auto before_kill = milliseconds(random() % 250);
    PumpFor(before_kill);
    const bool kill = random() % 100 < 40 || rounds_since_kill >= 3;
    const size_t victim = random() % 2;
    const auto down_for = milliseconds(150 + random() % 650);
    if (AllUp() && kill) {
      Kill(nodes_[victim], down_for);
      rounds_since_kill = 0;
    } else {
      ++rounds_since_kill;
    }
    const std::string key = "schedule:" + std::to_string(slots[k]);
    ASSERT_TRUE(PumpUntil([&] { return RunsKeyed(cron, key) > 0; }, seconds(15)))
        << "slot " << k << " (" << FormatRfc3339(slots[k]) << ") did not fire" << Logs();
    PumpFor(milliseconds(100 + random() % 300));
  }
  // Both nodes up again; everything queued starts and every job ends.
  for (Node& node : nodes_) {
    if (!node.up) node.restart_at = std::min(node.restart_at, SteadyClock::now());
  }
  ASSERT_TRUE(PumpUntil([&] { return AllUp() && Quiet(true); }, seconds(30)))
      << "not quiet: " << Count("SELECT COUNT(*) FROM jobs WHERE status = 'active'")
      << " jobs active, " << Count("SELECT COUNT(*) FROM workflow_runs WHERE state = 'queued'")
      << " runs queued, the branch seen at " << WatchedContextHead().value_or("(none)") << " of "
      << heads_.back() << Logs();
  // Rounds go on: nothing fires again.
  const size_t cron_count = Runs(cron).size();
  const size_t merge_count = Runs(merged).size();
  PumpFor(milliseconds(600));
  EXPECT_EQ(Runs(cron).size(), cron_count);
  EXPECT_EQ(Runs(merged).size(), merge_count);

  // Every slot: exactly one run, keyed and triggered by its slot; started or
  // coalesced into a later slot's run; the last one started.
  std::vector<WorkflowRun> cron_runs = Runs(cron);
  std::map<std::string, int> per_key;
  for (const WorkflowRun& run : cron_runs) {
    ++per_key[run.dedup_key];
    EXPECT_EQ(run.trigger.kind, "schedule") << run.dedup_key;
    EXPECT_EQ(run.dedup_key, "schedule:" + std::to_string(run.trigger.scheduled_for.value_or(0)));
    EXPECT_TRUE(run.state == RunState::kStarted || run.state == RunState::kCoalesced)
        << run.dedup_key << " " << ToString(run.state) << ": " << run.error.value_or("");
  }
  EXPECT_EQ(cron_runs.size(), kRounds);
  for (UnixMillis slot : slots) {
    EXPECT_EQ(per_key["schedule:" + std::to_string(slot)], 1) << FormatRfc3339(slot);
  }
  ASSERT_FALSE(cron_runs.empty());
  EXPECT_EQ(cron_runs[0].dedup_key, "schedule:" + std::to_string(slots.back()));
  EXPECT_EQ(cron_runs[0].state, RunState::kStarted) << "the last slot's run";

  // Every merge run: its own key, for a head that was pushed, its range moving
  // forward from a head pushed before it; started or coalesced.
  std::map<std::string, size_t> push_of;  // head -> its push (0: the first head)
  for (size_t i = 0; i < heads_.size(); ++i) push_of[heads_[i]] = i;
  std::vector<WorkflowRun> merge_runs = Runs(merged);
  std::set<std::string> merge_keys;
  std::vector<std::pair<size_t, size_t>> started;  // (from, to] of the started runs, as pushes
  int own_runs = 0, coalesced = 0;
  for (const WorkflowRun& run : merge_runs) {
    EXPECT_TRUE(merge_keys.insert(run.dedup_key).second) << "two runs for " << run.dedup_key;
    EXPECT_EQ(run.dedup_key, "merge:sdk:" + run.trigger.to);
    EXPECT_EQ(run.trigger.kind, "merge") << run.dedup_key;
    EXPECT_EQ(run.trigger.repository, "sdk") << run.dedup_key;
    EXPECT_EQ(run.trigger.branch, "main") << run.dedup_key;
    EXPECT_TRUE(run.state == RunState::kStarted || run.state == RunState::kCoalesced)
        << run.dedup_key << " " << ToString(run.state) << ": " << run.error.value_or("");
    if (run.state == RunState::kCoalesced) ++coalesced;
    auto from = push_of.find(run.trigger.from);
    auto to = push_of.find(run.trigger.to);
    if (from == push_of.end() || to == push_of.end()) {
      ADD_FAILURE() << run.dedup_key << ": from " << run.trigger.from << " to " << run.trigger.to
                    << " is not between heads that were pushed";
      continue;
    }
    EXPECT_LT(from->second, to->second)
        << run.dedup_key << " goes from push " << from->second << " back to push " << to->second
        << ": a stale head acted on";
    if (run.state == RunState::kStarted) started.emplace_back(from->second, to->second);
  }
  // Every push: at most one run of its own (the keys are unique above), and in
  // the range of a started run, its own or the one it was coalesced into, or
  // (pushed just before another, between two polls) the next push's. The
  // commits of a push lie between its head and the one before: covered with it.
  for (size_t i = 1; i < heads_.size(); ++i) {
    if (merge_keys.count("merge:sdk:" + heads_[i])) ++own_runs;
    bool covered = std::any_of(started.begin(), started.end(), [&](const auto& range) {
      return range.first < i && i <= range.second;
    });
    EXPECT_TRUE(covered) << "push " << i << " (" << heads_[i]
                         << ") is in no started run's range: its changes were never run on";
  }
  ASSERT_FALSE(merge_runs.empty());
  EXPECT_EQ(merge_runs[0].dedup_key, "merge:sdk:" + heads_.back());
  EXPECT_EQ(merge_runs[0].state, RunState::kStarted) << "the last push's run";

  ExpectOneEndedJobPerStartedRun(cron, cron_runs);
  ExpectOneEndedJobPerStartedRun(merged, merge_runs);
  EXPECT_LE(most_active_, 1) << "two jobs of one workflow were active at once";
  EXPECT_EQ(Count("SELECT COUNT(*) FROM jobs WHERE status = 'active'"), 0);

  std::cout << "kills " << kills_ << ", restarts " << restarts_ << "; schedule runs "
            << cron_runs.size() << " ("
            << std::count_if(cron_runs.begin(), cron_runs.end(),
                             [](const WorkflowRun& r) { return r.state == RunState::kCoalesced; })
            << " coalesced); pushes " << heads_.size() - 1 << ", merge runs " << merge_runs.size()
            << " (" << own_runs << " keyed to their push, " << coalesced
            << " coalesced); jobs failed by interruptions " << failed_ << "; turns run again "
            << Count("SELECT COUNT(*) FROM turns WHERE attempts > 1") << "\n";
}

}  // namespace
}  // namespace docwright::testing
