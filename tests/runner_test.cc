#include "runner/runner.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "fakes/counting_store.h"
#include "fakes/forwarding_store.h"
#include "fakes/scripted_agent.h"
#include "store/store.h"
#include "support/secrets.h"
#include "support/temp_dir.h"

namespace docwright {
namespace {

using std::chrono::milliseconds;
using testing::ScriptedTurns;
using testing::WaitUntil;

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::move(*OpenStore(dir_ / "docwright.db", testing::TestSecrets()));
    Org org = *store_->CreateOrg("acme");
    Project p;
    p.org_id = org.id;
    p.repository = "/srv/docs.git";
    p.base_ref = "main";
    project_ = *store_->CreateProject(p);
    scope_ = Scope{org.id, project_.id};
  }

  std::unique_ptr<Runner> StartRunner(milliseconds lease = milliseconds(30000),
                                      TurnHandler* agent = nullptr, int workers = 2) {
    RunnerOptions o;
    o.workers = workers;
    o.lease = lease;
    o.poll_interval = milliseconds(20);
    auto r = std::make_unique<Runner>(*store_, agent ? *agent : agent_, o);
    r->Start();
    return r;
  }

  Job Create(const std::string& prompt) { return *store_->CreateJob(scope_, NewJob{prompt}); }
  // Created with `taker` (the runner's, Runner::Taker, or one wrapping it) as
  // the store's taker of queued turns from now on.
  Job CreateWith(const std::string& prompt, TurnTaker taker) {
    store_->TakeQueuedTurns(std::move(taker));
    return Create(prompt);
  }
  // Whether a write queuing a turn now would find a worker idle for it (the
  // reservation taken is ended at once).
  static bool IdleForAHandOff(Runner& runner) {
    TurnTaker taker = runner.Taker();
    auto owner = taker.reserve();
    if (owner) taker.unclaimed(*owner);
    return owner.has_value();
  }
  Job Get(const std::string& id) { return *store_->GetJob(scope_, id); }
  bool Reaches(const std::string& id, JobStatus s, milliseconds t = milliseconds(10000)) {
    return WaitUntil([&] { return Get(id).status == s; }, t);
  }
  bool TurnState(const std::string& id, int seq, docwright::TurnState s) {
    auto m = store_->ListMessages(scope_, id);
    return m.ok() && static_cast<int>(m->size()) >= seq && (*m)[seq - 1].state == s;
  }

  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  Project project_;
  Scope scope_;
  ScriptedTurns agent_;
};

TEST_F(RunnerTest, SuccessfulTurnCompletesJobWithPrAndSummary) {
  auto runner = StartRunner();
  Job j = Create("Fix the typo");
  ASSERT_TRUE(Reaches(j.id, JobStatus::kCompleted));
  Job done = Get(j.id);
  EXPECT_EQ(done.pr_link, "http://forge.test/pulls/" + j.id);
  ASSERT_TRUE(done.summary);
  EXPECT_FALSE(done.error);
}

TEST_F(RunnerTest, NoChangeCompletesWithoutPr) {
  auto runner = StartRunner();
  Job j = Create("Nothing to do [nochange]");
  ASSERT_TRUE(Reaches(j.id, JobStatus::kCompleted));
  EXPECT_FALSE(Get(j.id).pr_link);
}

TEST_F(RunnerTest, FailingAndThrowingAgentsFailTheJobWithAnError) {
  auto runner = StartRunner();
  Job a = Create("[fail the docs site config is broken]");
  Job b = Create("[throw]");
  ASSERT_TRUE(Reaches(a.id, JobStatus::kFailed));
  ASSERT_TRUE(Reaches(b.id, JobStatus::kFailed));
  EXPECT_EQ(Get(a.id).error, "the docs site config is broken");
  EXPECT_EQ(Get(b.id).error, "internal error while running the turn");
}

TEST_F(RunnerTest, FollowUpsRunAfterTheCurrentTurnInOrder) {
  auto runner = StartRunner();
  Job j = Create("first [sleep 300]");
  ASSERT_TRUE(store_->AddMessage(scope_, j.id, "second").ok());
  ASSERT_TRUE(store_->AddMessage(scope_, j.id, "third").ok());
  ASSERT_TRUE(Reaches(j.id, JobStatus::kCompleted));
  auto messages = *store_->ListMessages(scope_, j.id);
  ASSERT_EQ(messages.size(), 3u);
  for (const auto& m : messages) EXPECT_EQ(m.state, TurnState::kSucceeded);
  // One at a time, in order: each turn starts after the previous one ended.
  std::vector<std::string> expected;
  for (int seq = 1; seq <= 3; ++seq) {
    expected.push_back("start " + j.id + " " + std::to_string(seq));
    expected.push_back("end " + j.id + " " + std::to_string(seq));
  }
  EXPECT_EQ(agent_.Events(), expected);
}

TEST_F(RunnerTest, ArchiveCancelsTheRunningTurnAtOnce) {
  auto runner = StartRunner();
  Job j = Create("slow [sleep 60000]");
  ASSERT_TRUE(WaitUntil([&] { return agent_.turns_started.load() == 1; }));
  ASSERT_TRUE(store_->ArchiveJob(scope_, j.id).ok());
  runner->CancelJob(j.id);
  ASSERT_TRUE(WaitUntil([&] { return agent_.turns_cancelled.load() == 1; }, milliseconds(5000)));
  EXPECT_EQ(Get(j.id).status, JobStatus::kArchived);
  EXPECT_TRUE(TurnState(j.id, 1, TurnState::kCancelled));
}

TEST_F(RunnerTest, ArchiveByAnotherProcessCancelsAtTheNextHeartbeat) {
  auto runner = StartRunner(milliseconds(300));
  Job j = Create("slow [sleep 60000]");
  ASSERT_TRUE(WaitUntil([&] { return agent_.turns_started.load() == 1; }));
  ASSERT_TRUE(store_->ArchiveJob(scope_, j.id).ok());  // no CancelJob: only the store knows
  ASSERT_TRUE(WaitUntil([&] { return agent_.turns_cancelled.load() == 1; }, milliseconds(5000)));
  EXPECT_EQ(Get(j.id).status, JobStatus::kArchived);
}

TEST_F(RunnerTest, LeasesAreRenewedWhileATurnRunsLongerThanOneLease) {
  auto runner = StartRunner(milliseconds(150));
  Job j = Create("longer than a lease [sleep 700]");
  ASSERT_TRUE(Reaches(j.id, JobStatus::kCompleted));
  EXPECT_EQ(agent_.turns_started.load(), 1) << "the turn must not have been re-run";
  EXPECT_EQ((*store_->ListMessages(scope_, j.id))[0].attempts, 1);
}

// A pass of the heartbeat renews every running turn's lease in one call to the
// store (one statement a chunk of turns), not one call a turn.
TEST_F(RunnerTest, TheHeartbeatRenewsEveryRunningTurnInOneCallAPass) {
  constexpr int kTurns = 6;
  testing::CountingStore counting(*store_);
  RunnerOptions o;
  o.workers = kTurns;
  o.lease = milliseconds(1500);  // a pass every 500 ms: room for a slow (sanitized) build
  o.poll_interval = milliseconds(20);
  Runner runner(counting, agent_, o);
  runner.Start();
  for (int i = 0; i < kTurns; ++i) Create("slow " + std::to_string(i) + " [sleep 60000]");
  ASSERT_TRUE(WaitUntil([&] { return agent_.turns_started.load() == kTurns; }));
  auto whole_passes = [&] {
    auto batches = counting.RenewalBatches();
    return std::count(batches.begin(), batches.end(), static_cast<size_t>(kTurns));
  };
  // Four passes with every turn in one call: more than a lease's time.
  ASSERT_TRUE(WaitUntil([&] { return whole_passes() >= 4; }));
  EXPECT_EQ(counting.Calls("RenewLease"), 0) << "no turn renewed on its own";
  // The leases held: no turn is for another worker to take.
  auto other = store_->ClaimTurn("another node", milliseconds(1000), kMaxTurnAttempts);
  ASSERT_TRUE(other.ok()) << other.status().message();
  EXPECT_FALSE(other->has_value());
  EXPECT_EQ(agent_.turns_started.load(), kTurns) << "no turn was run again";
}

// Each claim's look_first, and whether it took a turn.
class ClaimRecorder : public testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  struct Claim {
    bool look_first;
    bool took;
    std::thread::id thread;
  };
  Result<std::optional<TurnInput>> ClaimTurn(const std::string& worker_id,
                                             std::chrono::milliseconds lease, int max_attempts,
                                             const std::vector<std::string>& held_projects,
                                             bool look_first) override {
    auto r = ForwardingStore::ClaimTurn(worker_id, lease, max_attempts, held_projects, look_first);
    std::lock_guard lock(mu_);
    claims_.push_back({look_first, r.ok() && r->has_value(), std::this_thread::get_id()});
    return r;
  }
  std::vector<Claim> Claims() {
    std::lock_guard lock(mu_);
    return claims_;
  }

 private:
  std::mutex mu_;
  std::vector<Claim> claims_;
};

TEST_F(RunnerTest, AWorkerWokenForQueuedWorkClaimsItWithoutLookingFirst) {
  auto taken = [](const std::vector<ClaimRecorder::Claim>& claims) {
    std::vector<bool> look_first;
    for (const auto& c : claims)
      if (c.took) look_first.push_back(c.look_first);
    return look_first;
  };
  {
    // No poll: only the start's claim and wake-ups; no hand-off in the write.
    ClaimRecorder recorder(*store_);
    RunnerOptions o;
    o.workers = 4;
    o.poll_interval = std::chrono::hours(1);
    o.claim_when_queued = false;
    Runner runner(recorder, agent_, o);
    runner.Start();
    ASSERT_TRUE(WaitUntil([&] { return !recorder.Claims().empty(); })) << "the start's claim";
    // Queued by a write of this process, which the store announces to it
    // (StoreWatcher::turn_queued_here): the woken worker's claim goes straight
    // to it.
    Job announced = Create("announced");
    ASSERT_TRUE(Reaches(announced.id, JobStatus::kCompleted));
    runner.Stop();
    std::vector<ClaimRecorder::Claim> claims = recorder.Claims();
    EXPECT_EQ(taken(claims), std::vector<bool>{false}) << "the announced job's claim looked first";
    // The start's claim and the one woken after the job's (a backlog's next)
    // looked first; only the announcement went without.
    int direct = 0;
    for (const auto& c : claims) direct += c.look_first ? 0 : 1;
    EXPECT_EQ(direct, 1);
  }
  {
    // Queued by another process and not heard of: a poll finds it, looking first.
    ClaimRecorder recorder(*store_);
    RunnerOptions o;
    o.workers = 4;
    o.poll_interval = milliseconds(20);
    Runner runner(recorder, agent_, o);
    runner.Start();
    // Through another process's store on the same file, which tells this one
    // nothing.
    auto other = OpenStore(dir_ / "docwright.db", testing::TestSecrets());
    ASSERT_TRUE(other.ok()) << other.status().message();
    Job polled = *(*other)->CreateJob(scope_, NewJob{"polled"});
    ASSERT_TRUE(Reaches(polled.id, JobStatus::kCompleted));
    runner.Stop();
    std::vector<ClaimRecorder::Claim> claims = recorder.Claims();
    EXPECT_EQ(taken(claims), std::vector<bool>{true});
    for (const auto& c : claims) EXPECT_TRUE(c.look_first) << "nothing was announced";
  }
}

// Runs each turn on its worker's thread (noted), holding it until released.
struct Gated : TurnHandler {
  TurnOutcome RunTurn(const TurnInput& input, CancelToken& cancel) override {
    std::unique_lock lock(mu);
    threads.push_back(std::this_thread::get_id());
    cv.wait(lock, [&] { return released; });
    return TurnOutcome{.succeeded = true, .pr_link = "http://pr/1", .summary = "done"};
  }
  size_t Started() {
    std::lock_guard lock(mu);
    return threads.size();
  }
  std::thread::id ThreadOf(size_t turn) {
    std::lock_guard lock(mu);
    return threads.at(turn);
  }
  void Release() {
    {
      std::lock_guard lock(mu);
      released = true;
    }
    cv.notify_all();
  }
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  std::vector<std::thread::id> threads;
};

// A turn queued here while a worker idles is claimed inside the write that
// queues it, and run by that worker: no wait for a worker to wake and claim
// after the write, and no Store::ClaimTurn at all.
TEST_F(RunnerTest, ATurnQueuedHereIsClaimedInItsWriteAndAnIdleWorkerRunsIt) {
  ClaimRecorder recorder(*store_);
  Gated gated;
  RunnerOptions o;
  o.workers = 2;
  o.poll_interval = std::chrono::hours(1);
  Runner runner(recorder, gated, o);
  runner.Start();
  // The start's claim found nothing: both workers idle, never woken.
  ASSERT_TRUE(WaitUntil([&] { return !recorder.Claims().empty(); })) << "the start's claim";
  ASSERT_TRUE(WaitUntil([&] { return IdleForAHandOff(runner); }));
  const size_t claims_before = recorder.Claims().size();
  Job j = Create("handed over");  // offered to the runner, the store's taker since Start()
  // The create returned with the turn claimed: no other worker can take it now.
  auto other = store_->ClaimTurn("another node", milliseconds(1000), kMaxTurnAttempts);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value()) << "the create returned before the turn was claimed";
  ASSERT_TRUE(WaitUntil([&] { return gated.Started() == 1; }));
  EXPECT_NE(gated.ThreadOf(0), std::this_thread::get_id()) << "the turn ran on the writing thread";
  gated.Release();
  ASSERT_TRUE(Reaches(j.id, JobStatus::kCompleted));
  std::vector<ClaimRecorder::Claim> claims = recorder.Claims();
  runner.Stop();
  // Only the worker's look for more once the turn ended: nothing woken for it.
  for (size_t i = claims_before; i < claims.size(); ++i) {
    EXPECT_FALSE(claims[i].took) << "claim " << i << " took a turn";
    EXPECT_TRUE(claims[i].look_first) << "claim " << i << " was woken as for a queued turn";
  }
  EXPECT_LE(claims.size() - claims_before, 1u);
  EXPECT_EQ((*store_->ListMessages(scope_, j.id))[0].attempts, 1);
}

// Waits for its turn's write to commit (TurnInput::committed) once it has
// started, noting that it started, what it learned, and whether `other` (a
// store on the same database, if set) saw the job then. With `ignore_commit`
// it does not wait: it records a step and succeeds, as a handler that forgot
// to would.
struct CommitWaiter : TurnHandler {
  TurnOutcome RunTurn(const TurnInput& input, CancelToken& cancel) override {
    {
      std::lock_guard lock(mu);
      ++started;
    }
    cv.notify_all();
    if (ignore_commit) {
      input.on_step(TranscriptStep{.text = "an edit"});
      std::lock_guard lock(mu);
      told.push_back(true);
      return TurnOutcome{.succeeded = true, .summary = "done"};
    }
    const bool committed = input.Committed();
    const bool seen =
        other && other->GetJob(Scope{input.project.org_id, input.project.id}, input.job.id).ok();
    {
      std::lock_guard lock(mu);
      told.push_back(committed);
      visible.push_back(seen);
    }
    cv.notify_all();
    if (!committed) return TurnOutcome{.interrupted = true};
    return TurnOutcome{.succeeded = true, .summary = "done"};
  }
  std::vector<bool> Visible() {
    std::lock_guard lock(mu);
    return visible;
  }
  Store* other = nullptr;
  bool ignore_commit = false;
  std::vector<bool> visible;
  bool WaitStarted(int n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return started >= n; });
  }
  std::vector<bool> Told() {
    std::lock_guard lock(mu);
    return told;
  }
  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  std::vector<bool> told;
};

// A turn handed over inside its write runs while the write commits: its worker
// starts on it before the write has ended, and learns of the commit before its
// first write (TurnInput::committed).
TEST_F(RunnerTest, ATurnHandedOverStartsBeforeItsWriteCommitsAndWaitsForTheCommit) {
  auto other = OpenStore(dir_ / "docwright.db", testing::TestSecrets());
  ASSERT_TRUE(other.ok()) << other.status().message();
  CommitWaiter handler;
  handler.other = other->get();
  RunnerOptions o;
  o.workers = 2;
  o.poll_interval = std::chrono::hours(1);
  Runner runner(*store_, handler, o);
  runner.Start();
  ASSERT_TRUE(WaitUntil([&] { return IdleForAHandOff(runner); }));
  TurnTaker hook = runner.Taker();
  bool started_inside = false;
  hook.claimed = [&, inner = hook.claimed](const ClaimFor& owner, TurnInput claimed,
                                           std::shared_future<bool> committed) {
    const bool took = inner(owner, std::move(claimed), committed);
    // The write holds here until the worker has started on the turn.
    started_inside = took && handler.WaitStarted(1);
    EXPECT_NE(committed.wait_for(milliseconds(0)), std::future_status::ready);
    return took;
  };
  Job j = CreateWith("overlapped", hook);
  EXPECT_TRUE(started_inside) << "the worker started only once the write had committed";
  ASSERT_TRUE(Reaches(j.id, JobStatus::kCompleted));
  runner.Stop();
  EXPECT_EQ(handler.Told(), std::vector<bool>{true});
  EXPECT_EQ(handler.Visible(), std::vector<bool>{true}) << "told of a commit not made yet";
  EXPECT_EQ((*store_->ListMessages(scope_, j.id))[0].attempts, 1);
}

// A turn handed over by a write that then fails (here, a trigger refuses its
// idempotency key) does not exist: its worker learns so and idles again, and
// nothing of it is written, even by a handler that does not ask.
TEST_F(RunnerTest, ATurnHandedOverByAWriteThatFailsIsDropped) {
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / "docwright.db").c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db,
                           "CREATE TRIGGER refuse_key BEFORE INSERT ON idempotency_keys "
                           "BEGIN SELECT RAISE(ABORT, 'key refused'); END;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  for (bool ignore_commit : {false, true}) {
    SCOPED_TRACE(ignore_commit ? "a handler that does not ask" : "a handler that asks");
    testing::CountingStore counted(*store_);
    CommitWaiter handler;
    handler.ignore_commit = ignore_commit;
    RunnerOptions o;
    o.workers = 1;
    o.poll_interval = std::chrono::hours(1);
    Runner runner(counted, handler, o);
    runner.Start();
    ASSERT_TRUE(WaitUntil([&] { return IdleForAHandOff(runner); }));
    counted.Reset();
    NewJob nj{"never committed"};
    IdempotentRequest keyed{.key = "k1",
                            .route = "create",
                            .body_sha256 = std::string(64, 'a'),
                            .status = 201,
                            .render = [](const Job& job) { return job.id; }};
    auto written = store_->CreateJobWithKey(scope_, nj, keyed);
    EXPECT_TRUE(!written.ok() || written->outcome != IdempotentWrite::Outcome::kDone);
    ASSERT_TRUE(WaitUntil([&] { return !handler.Told().empty(); })) << "the turn was not handed";
    if (!ignore_commit) {
      EXPECT_EQ(handler.Told(), std::vector<bool>{false});
    }
    ASSERT_TRUE(WaitUntil([&] { return IdleForAHandOff(runner); })) << "the worker idles again";
    EXPECT_TRUE(runner.Stop());
    for (const char* write : {"RecordStep", "FinishTurn", "ChargeTurnUsage", "ReleaseTurn"}) {
      EXPECT_EQ(counted.Calls(write), 0) << write << " of a turn never committed";
    }
    auto jobs = store_->ListJobs(scope_, JobQuery{});
    ASSERT_TRUE(jobs.ok()) << jobs.status().message();
    EXPECT_TRUE(jobs->jobs.empty());
    auto none = store_->ClaimTurn("another", milliseconds(1000), kMaxTurnAttempts);
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
  }
}

// With every worker busy, nothing is reserved: the turn waits for a worker,
// which claims it itself once its turn ends. And with claim_when_queued off
// (PostgreSQL), an idle worker is woken, which claims without looking first.
TEST_F(RunnerTest, ATurnQueuedWithNoIdleWorkerOrTheOptionOffIsClaimedByAWorker) {
  for (bool claim_when_queued : {true, false}) {
    SCOPED_TRACE(claim_when_queued ? "no worker idle" : "claim_when_queued off");
    ClaimRecorder recorder(*store_);
    Gated gated;
    RunnerOptions o;
    o.workers = 1;
    o.poll_interval = std::chrono::hours(1);
    o.claim_when_queued = claim_when_queued;
    Runner runner(recorder, gated, o);
    runner.Start();
    if (claim_when_queued) {
      ASSERT_TRUE(WaitUntil([&] { return IdleForAHandOff(runner); }));
      Job busy = CreateWith("busy", runner.Taker());
      ASSERT_TRUE(WaitUntil([&] { return gated.Started() == 1; })) << "the one worker is busy";
      EXPECT_FALSE(IdleForAHandOff(runner));
    } else {
      ASSERT_TRUE(WaitUntil([&] { return !recorder.Claims().empty(); })) << "the start's claim";
      EXPECT_FALSE(IdleForAHandOff(runner));
    }
    const size_t before = recorder.Claims().size();
    Job next = CreateWith("next", runner.Taker());
    auto waiting = store_->ListMessages(scope_, next.id);
    ASSERT_TRUE(waiting.ok());
    if (claim_when_queued) {
      EXPECT_EQ((*waiting)[0].state, docwright::TurnState::kQueued) << "claimed by its write";
    }
    gated.Release();
    ASSERT_TRUE(Reaches(next.id, JobStatus::kCompleted));
    runner.Stop();
    EXPECT_EQ(gated.Started(), claim_when_queued ? 2u : 1u);
    std::vector<ClaimRecorder::Claim> claims = recorder.Claims();
    int took = 0;
    for (size_t i = before; i < claims.size(); ++i) {
      EXPECT_NE(claims[i].thread, std::this_thread::get_id()) << "claim " << i;
      if (!claims[i].took) continue;
      ++took;
      // Woken for it (off), or looking for more after its turn (busy).
      EXPECT_EQ(claims[i].look_first, claim_when_queued) << "claim " << i;
    }
    EXPECT_EQ(took, 1);
  }
}

// A hand-off still open when Stop() begins (claimed in the write, not yet
// handed over) holds Stop() until it ends: the runner refuses the turn and the
// write undoes its claim (no attempt counted), for another worker to take at
// once.
TEST_F(RunnerTest, ATurnClaimedInAWriteThatEndsAfterStopIsGivenBack) {
  RunnerOptions o;
  o.workers = 2;
  o.poll_interval = std::chrono::hours(1);
  Runner runner(*store_, agent_, o);
  runner.Start();
  // One worker runs a turn until the stop cancels it; the other idles.
  Job running = Create("running [sleep 60000]");
  ASSERT_TRUE(WaitUntil([&] { return agent_.turns_started.load() == 1; }));
  ASSERT_TRUE(WaitUntil([&] { return IdleForAHandOff(runner); }));
  std::mutex mu;
  std::condition_variable cv;
  bool told = false, released = false, was_claimed = false;
  TurnTaker hook = runner.Taker();
  hook.claimed = [&, inner = hook.claimed](const ClaimFor& owner, TurnInput claimed,
                                           std::shared_future<bool> committed) {
    {
      std::unique_lock lock(mu);
      told = true;
      was_claimed = true;
      cv.notify_all();
      cv.wait(lock, [&] { return released; });
    }
    return inner(owner, std::move(claimed), std::move(committed));
  };
  std::string j_id;
  std::thread writer([&] { j_id = CreateWith("claimed as the runner stops", hook).id; });
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return told; }))
        << "the write reserved nothing";
    EXPECT_TRUE(was_claimed) << "the write claimed nothing";
  }
  std::atomic<bool> stopped{false};
  // Taken as soon as Stop() returns: what it gave back by then.
  std::vector<Result<std::optional<TurnInput>>> after_stop;
  std::thread stopper([&] {
    stopped = runner.Stop();
    for (int i = 0; i < 3; ++i) {
      after_stop.push_back(store_->ClaimTurn("next", milliseconds(1000), kMaxTurnAttempts));
    }
  });
  // The stop has begun once it cancels the running turn; then the hand-off ends.
  bool stopping = WaitUntil([&] { return agent_.turns_cancelled.load() == 1; });
  {
    std::lock_guard lock(mu);
    released = true;
  }
  cv.notify_all();
  writer.join();
  stopper.join();
  ASSERT_TRUE(stopping);
  EXPECT_TRUE(stopped) << "Stop() waits for the hand-off under way, and it ended";
  EXPECT_EQ(agent_.turns_started.load(), 1);
  // Both turns are back, neither attempt counted: the one stopped, and the one
  // claimed for a worker as the runner stopped.
  std::set<std::string> back;
  for (const auto& again : after_stop) {
    ASSERT_TRUE(again.ok()) << again.status().message();
    if (!again->has_value()) continue;
    EXPECT_EQ((*again)->attempt, 1);
    back.insert((*again)->job.id);
  }
  EXPECT_EQ(back, (std::set<std::string>{running.id, j_id})) << "given back before Stop() returned";
}

// Turns queued from many threads at once, with fewer workers than turns: each
// turn is claimed once and run once (a hand-off never lost, never run twice).
TEST_F(RunnerTest, ManyTurnsQueuedFromManyThreadsRunEachOnce) {
  RunnerOptions o;
  o.workers = 3;
  o.poll_interval = std::chrono::hours(1);  // only wake-ups and hand-offs
  Runner runner(*store_, agent_, o);
  runner.Start();
  constexpr int kThreads = 6, kJobs = 8;
  std::vector<std::vector<std::string>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kJobs; ++i) {
        ids[t].push_back(
            CreateWith("job " + std::to_string(t) + "." + std::to_string(i), runner.Taker()).id);
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& batch : ids) {
    for (const auto& id : batch) ASSERT_TRUE(Reaches(id, JobStatus::kCompleted)) << id;
  }
  EXPECT_EQ(agent_.turns_started.load(), kThreads * kJobs);
  for (const auto& batch : ids) {
    for (const auto& id : batch) EXPECT_EQ((*store_->ListMessages(scope_, id))[0].attempts, 1);
  }
}

TEST_F(RunnerTest, StopHandsTheRunningTurnBack) {
  auto runner = StartRunner();
  Job j = Create("slow [sleep 60000]");
  ASSERT_TRUE(WaitUntil([&] { return agent_.turns_started.load() == 1; }));
  auto t0 = std::chrono::steady_clock::now();
  runner->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  auto again = store_->ClaimTurn("next", milliseconds(1000), kMaxTurnAttempts);
  ASSERT_TRUE(again.ok() && again->has_value()) << "the lease must be released, not left to expire";
  EXPECT_EQ((*again)->job.id, j.id);
  EXPECT_EQ((*again)->attempt, 1);
  EXPECT_EQ(Get(j.id).status, JobStatus::kActive);
}

TEST_F(RunnerTest, TurnOfACrashedWorkerIsReRunAfterItsLeaseExpires) {
  Job j = Create("interrupted");
  // A worker that claims and dies.
  auto claimed = store_->ClaimTurn("dead-worker", milliseconds(200), kMaxTurnAttempts);
  ASSERT_TRUE(claimed.ok() && claimed->has_value());
  auto runner = StartRunner();
  ASSERT_TRUE(Reaches(j.id, JobStatus::kCompleted));
  EXPECT_EQ((*store_->ListMessages(scope_, j.id))[0].attempts, 2);
}

TEST_F(RunnerTest, TurnsOfDifferentJobsRunInParallel) {
  auto runner = StartRunner();
  // Each turn lasts a minute unless stopped: with two workers, the second
  // starts while the first still runs, however slow the machine (a turn of
  // 400 ms ended before the second began under TSan on a loaded machine).
  Job a = Create("a [sleep 60000]");
  Job b = Create("b [sleep 60000]");
  ASSERT_TRUE(WaitUntil([&] { return agent_.turns_started.load() == 2; }));
  auto events = agent_.Events();
  ASSERT_EQ(events.size(), 2u) << "both started, neither ended";
  EXPECT_EQ(events[0].rfind("start", 0), 0u);
  EXPECT_EQ(events[1].rfind("start", 0), 0u);
  runner->Stop();
  EXPECT_EQ(Get(a.id).status, JobStatus::kActive);
  EXPECT_EQ(Get(b.id).status, JobStatus::kActive);
}

TEST_F(RunnerTest, AResultThatArrivesWithAShutdownIsStillRecorded) {
  // An agent that finishes its work although it was asked to stop.
  struct Stubborn : TurnHandler {
    std::atomic<bool> started{false};
    TurnOutcome RunTurn(const TurnInput&, CancelToken& cancel) override {
      started = true;
      while (!cancel.cancelled()) std::this_thread::sleep_for(milliseconds(5));
      return TurnOutcome{
          .succeeded = true, .pr_link = "http://pr/done", .summary = "finished anyway"};
    }
  } stubborn;
  auto runner = StartRunner(milliseconds(30000), &stubborn, 1);
  Job j = Create("x");
  ASSERT_TRUE(WaitUntil([&] { return stubborn.started.load(); }));
  runner->Stop();
  Job after = Get(j.id);
  EXPECT_EQ(after.status, JobStatus::kCompleted) << "a finished turn must not be re-run";
  EXPECT_EQ(after.pr_link, "http://pr/done");
}

// A handler that never returns on its own for prompts with "[hang]", whatever
// the cancel token says, as a call without a deadline would; everything else goes
// to the scripted turns.
struct Hanging : TurnHandler {
  ScriptedTurns* scripted;
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  std::atomic<int> hung{0}, returned{0};
  TurnOutcome RunTurn(const TurnInput& input, CancelToken& cancel) override {
    if (input.message.prompt.find("[hang]") == std::string::npos) {
      return scripted->RunTurn(input, cancel);
    }
    ++hung;
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return released; });
    ++returned;
    return TurnOutcome{.succeeded = true, .pr_link = "http://pr/too-late", .summary = "too late"};
  }
  void Release() {
    {
      std::lock_guard lock(mu);
      released = true;
    }
    cv.notify_all();
  }
};

TEST_F(RunnerTest, ATurnPastItsDeadlineIsStoppedAndItsJobFails) {
  RunnerOptions o;
  o.workers = 1;
  o.lease = milliseconds(300);
  o.poll_interval = milliseconds(20);
  o.turn_deadline = milliseconds(500);
  Runner runner(*store_, agent_, o);
  runner.Start();
  Job j = Create("forever [sleep 600000]");  // the scripted turn stops when cancelled
  ASSERT_TRUE(Reaches(j.id, JobStatus::kFailed));
  ASSERT_TRUE(Get(j.id).error);
  EXPECT_NE(Get(j.id).error->find("time limit"), std::string::npos) << *Get(j.id).error;
  EXPECT_EQ(agent_.turns_cancelled.load(), 1);
  // The worker is free for the next job.
  Job next = Create("next");
  EXPECT_TRUE(Reaches(next.id, JobStatus::kCompleted));
}

TEST_F(RunnerTest, ATurnThatIgnoresItsDeadlineCostsAThreadNotAWorker) {
  // Static: the thread left behind may still be leaving the handler when the
  // test ends.
  static Hanging hanging;
  hanging.scripted = &agent_;
  RunnerOptions o;
  o.workers = 1;
  o.lease = milliseconds(300);
  o.poll_interval = milliseconds(20);
  o.turn_deadline = milliseconds(400);
  o.stuck_grace = milliseconds(300);
  o.stop_timeout = milliseconds(500);
  auto runner = std::make_unique<Runner>(*store_, hanging, o);
  runner->Start();
  Job stuck = Create("blocked in a call [hang]");
  ASSERT_TRUE(Reaches(stuck.id, JobStatus::kFailed)) << "the job must end although the turn hangs";
  EXPECT_NE(Get(stuck.id).error.value_or("").find("time limit"), std::string::npos);
  // The only worker is stuck, yet the next job runs: a new worker took its place.
  Job next = Create("next");
  EXPECT_TRUE(Reaches(next.id, JobStatus::kCompleted));
  // Shutdown does not wait for the hung thread, and says it was left behind.
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(runner->Stop());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  runner.reset();
  // When the call finally returns, its outcome is not recorded over the failure.
  hanging.Release();
  ASSERT_TRUE(WaitUntil([&] { return hanging.returned.load() == 1; }));
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(Get(stuck.id).status, JobStatus::kFailed);
  EXPECT_FALSE(Get(stuck.id).pr_link);
}

// A thread given up on still holds a turn's place: its project, at a cap of one
// turn in flight, gets no other turn until the thread ends, while another
// project's jobs keep running.
TEST_F(RunnerTest, AThreadGivenUpOnCountsAgainstItsProjectsCapUntilItEnds) {
  static Hanging hanging;  // see above
  hanging.scripted = &agent_;
  Project capped = project_;
  capped.max_active = 1;
  ASSERT_TRUE(store_->UpdateProject(capped).ok());
  Project other = project_;
  other.max_active.reset();
  other = *store_->CreateProject(other);
  RunnerOptions o;
  o.workers = 2;
  o.lease = milliseconds(300);
  o.poll_interval = milliseconds(20);
  o.turn_deadline = milliseconds(400);
  o.stuck_grace = milliseconds(300);
  o.stop_timeout = milliseconds(500);
  auto runner = std::make_unique<Runner>(*store_, hanging, o);
  runner->Start();
  Job stuck = Create("blocked in a call [hang]");
  ASSERT_TRUE(Reaches(stuck.id, JobStatus::kFailed));
  Job waiting = Create("next of the same project");
  Job elsewhere = *store_->CreateJob(Scope{other.org_id, other.id}, NewJob{"another project"});
  EXPECT_TRUE(WaitUntil([&] {
    return store_->GetJob(Scope{other.org_id, other.id}, elsewhere.id)->status ==
           JobStatus::kCompleted;
  }));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(Get(waiting.id).status, JobStatus::kActive);
  EXPECT_TRUE(TurnState(waiting.id, 1, docwright::TurnState::kQueued));
  // The call returns at last: the project's place is free again.
  hanging.Release();
  EXPECT_TRUE(Reaches(waiting.id, JobStatus::kCompleted));
  EXPECT_TRUE(runner->Stop());
}

TEST_F(RunnerTest, StopIsBoundedWhenATurnIgnoresTheShutdown) {
  static Hanging hanging;  // see above
  hanging.scripted = &agent_;
  RunnerOptions o;
  o.workers = 1;
  o.poll_interval = milliseconds(20);
  o.stop_timeout = milliseconds(300);
  auto runner = std::make_unique<Runner>(*store_, hanging, o);
  runner->Start();
  Create("blocked [hang]");
  ASSERT_TRUE(WaitUntil([&] { return hanging.hung.load() == 1; }));
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(runner->Stop()) << "a thread was left behind";
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  runner.reset();
  hanging.Release();
  ASSERT_TRUE(WaitUntil([&] { return hanging.returned.load() == 1; }));
  std::this_thread::sleep_for(milliseconds(100));  // the thread ends after the handler returns
}

TEST_F(RunnerTest, ManyJobsAllFinish) {
  auto runner = StartRunner();
  std::vector<std::string> ids;
  for (int i = 0; i < 50; ++i) ids.push_back(Create("job " + std::to_string(i)).id);
  for (const auto& id : ids) ASSERT_TRUE(Reaches(id, JobStatus::kCompleted)) << id;
  EXPECT_EQ(agent_.turns_started.load(), 50);
}

}  // namespace
}  // namespace docwright
