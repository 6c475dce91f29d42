// Store::ClaimTurn over a backlog, on SQLite and on PostgreSQL: the claim
// weighs only each project's oldest runnable turn, and must choose as if it
// weighed them all: fairly between organisations, oldest first within a
// project, each job's turns in order.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/store_fixture.h"

namespace docwright {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class StoreClaimTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (!store_) return;
    // This process's wake-ups of queued turns (store/wakeups.h), each told to
    // on_turn_queued_ as the test sets it for its next write.
    store_->Watch(StoreWatcher{.turn_queued_here = [this] {
      if (on_turn_queued_) on_turn_queued_();
    }});
  }
  std::function<double()> Flushes() {
    return [this] { return Transactions("flush"); };
  }
  // Makes `q` the store's turn taker, lending `owner` to the first write that
  // asks (once), and counts in q.woken the wake-ups of the writes after.
  template <typename Claims>
  void Take(Claims& q, std::optional<ClaimFor> owner) {
    store_->TakeQueuedTurns(q.Taker(Flushes(), std::move(owner)));
    on_turn_queued_ = [&q] { ++q.woken; };
  }
  std::function<void()> on_turn_queued_;
};

TEST_P(StoreClaimTest, ABacklogIsTakenFairlyOldestFirstAndEachJobInOrder) {
  // Jobs 0 and 2 of the first project have a follow-up queued right behind
  // their first turn: older than the project's later jobs, not runnable yet.
  std::vector<Job> a, b;
  for (int i = 0; i < 6; ++i) {
    a.push_back(Create(project_, "a" + std::to_string(i)));
    if (i == 0 || i == 2) {
      ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), a.back().id, "follow-up").ok());
    }
  }
  for (int i = 0; i < 6; ++i) b.push_back(Create(other_project_, "b" + std::to_string(i)));

  // Nothing finishes: each organisation's count of turns running grows in
  // turn, so the claims alternate, each project's jobs oldest first.
  std::vector<TurnInput> first_turns;
  for (int i = 0; i < 6; ++i) {
    TurnInput ta = Claim("w");
    EXPECT_EQ(ta.job.id, a[i].id) << "claim " << 2 * i;
    EXPECT_EQ(ta.message.prompt, "a" + std::to_string(i));
    TurnInput tb = Claim("w");
    EXPECT_EQ(tb.job.id, b[i].id) << "claim " << 2 * i + 1;
    first_turns.push_back(ta);
  }
  EXPECT_TRUE(NothingToClaim()) << "a follow-up waits for its job's running turn";

  // The younger job's follow-up goes first when its job's turn ends first.
  ASSERT_TRUE(store_->FinishTurn(first_turns[2].turn_id, "w", TurnOutcome{.succeeded = true}).ok());
  TurnInput f2 = Claim("w");
  EXPECT_EQ(f2.job.id, a[2].id);
  EXPECT_EQ(f2.message.prompt, "follow-up");
  EXPECT_TRUE(NothingToClaim());
  ASSERT_TRUE(store_->FinishTurn(first_turns[0].turn_id, "w", TurnOutcome{.succeeded = true}).ok());
  TurnInput f0 = Claim("w");
  EXPECT_EQ(f0.job.id, a[0].id);
  EXPECT_EQ(f0.message.prompt, "follow-up");
  EXPECT_TRUE(NothingToClaim());
}

TEST_P(StoreClaimTest, AProjectAtItsCapLetsTheNextProjectsOldestTurnGo) {
  Project capped = NewProject(org_.id, 100);
  capped.max_active = 1;
  ASSERT_TRUE(store_->UpdateProject(capped).ok());
  Job c0 = Create(capped, "c0");
  Job c1 = Create(capped, "c1");
  Job a0 = Create(project_, "a0");
  Job a1 = Create(project_, "a1");
  EXPECT_EQ(Claim("w").job.id, c0.id) << "the oldest turn first";
  // Same organisation: its count is the same for both projects; the capped
  // project's own count of one keeps c1 back, whatever its age.
  EXPECT_EQ(Claim("w").job.id, a0.id);
  EXPECT_EQ(Claim("w").job.id, a1.id);
  EXPECT_TRUE(NothingToClaim()) << "c1 waits for the cap";
}

// A claim made because work was just queued skips the look: it answers as a
// poll does, caps, order and all, and finds nothing as cleanly.
TEST_P(StoreClaimTest, AClaimWithoutALookFirstTakesWhatAPollWould) {
  auto direct = [&](const std::string& worker) {
    return store_->ClaimTurn(worker, milliseconds(60000), kMaxTurnAttempts, {},
                             /*look_first=*/false);
  };
  double reads = Transactions("read"), writes = Transactions("write");
  auto none = direct("w");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_FALSE(none->has_value());
  EXPECT_EQ(Transactions("read") - reads, 0) << "no look";
  EXPECT_EQ(Transactions("write") - writes, 1);
  // A poll looks, and finds nothing there: no write.
  reads = Transactions("read"), writes = Transactions("write");
  EXPECT_TRUE(NothingToClaim());
  EXPECT_EQ(Transactions("read") - reads, 1);
  EXPECT_EQ(Transactions("write") - writes, 0);

  Project capped = NewProject(org_.id, 100);
  capped.max_active = 1;
  ASSERT_TRUE(store_->UpdateProject(capped).ok());
  Job c0 = Create(capped, "c0");
  Create(capped, "c1");
  Job a0 = Create(project_, "a0");
  auto first = direct("w");
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->job.id, c0.id);
  EXPECT_EQ((*first)->attempt, 1);
  auto second = direct("w");
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->job.id, a0.id) << "c1 waits for its project's cap";
  auto capped_out = direct("w");
  ASSERT_TRUE(capped_out.ok());
  EXPECT_FALSE(capped_out->has_value());
  EXPECT_TRUE(NothingToClaim());
}

TEST_P(StoreClaimTest, AnExpiredLeaseIsTakenBeforeYoungerTurnsOfItsProject) {
  Create(project_, "j0");
  TurnInput crashed = Claim("crashed", milliseconds(1));
  Job j1 = Create(project_, "j1");
  std::this_thread::sleep_for(milliseconds(5));
  TurnInput rescued = Claim("rescuer");
  EXPECT_EQ(rescued.turn_id, crashed.turn_id);
  EXPECT_EQ(rescued.attempt, 2);
  EXPECT_EQ(Claim("w").job.id, j1.id);
}

// An organisation's count of turns running includes those of its projects with
// nothing left to claim (the claim counts for its candidates' organisations,
// not only for its candidates' projects): for its cap and for the fairness.
TEST_P(StoreClaimTest, AnOrganisationCountsTheTurnsRunningOfItsProjectsWithNoCandidate) {
  Org capped = org_;
  capped.max_active = 1;
  ASSERT_TRUE(store_->UpdateOrg(capped).ok());
  Job a0 = Create(project_, "a0");
  EXPECT_EQ(Claim("w").job.id, a0.id);
  Project second = NewProject(org_.id, 100);
  Job s0 = Create(second, "s0");
  EXPECT_TRUE(NothingToClaim()) << s0.id << " waits for acme's cap, filled by a0";
  capped.max_active.reset();
  ASSERT_TRUE(store_->UpdateOrg(capped).ok());
  Job g0 = Create(other_project_, "g0");
  EXPECT_EQ(Claim("w").job.id, g0.id) << "globex has nothing running; acme has a0";
  EXPECT_EQ(Claim("w").job.id, s0.id);
}

// Runs `sql` on the test's database directly, as another version of docwright
// would: the SQLite file, or the PostgreSQL database.
void RawSql(const std::string& url, const std::string& sql) {
  if (url.starts_with("postgres")) {
    PGconn* c = PQconnectdb(url.c_str());
    ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
    PGresult* r = PQexec(c, sql.c_str());
    EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(c);
    PQclear(r);
    PQfinish(c);
    return;
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(url.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST_P(StoreClaimTest, ATurnWrittenWithoutItsProjectTakesItsJobsAndItsCap) {
  // A node of the version before writes turns without their project; the
  // claim's caps count by project, so the database fills it in.
  Project capped = project_;
  capped.max_active = 1;
  ASSERT_TRUE(store_->UpdateProject(capped).ok());
  Job a0 = Create(project_, "a0");
  Job a1 = Create(project_, "a1");
  RawSql(url_, "DELETE FROM turns WHERE job_id = '" + a1.id + "'; " +
                   "INSERT INTO turns (job_id, seq, state) VALUES ('" + a1.id + "', 1, 'queued');");
  EXPECT_EQ(Claim("w").job.id, a0.id);
  EXPECT_TRUE(NothingToClaim()) << a1.id << " waits for its project's cap, filled by a0";
}

// StoreWatcher::turn_queued_here: the runner is woken while the job is made durable, and
// its worker (here, this store and another node's) can claim the turn from the
// call on, before CreateJob returns; nothing refused or replayed wakes anyone.
TEST_P(StoreClaimTest, AJobCanBeClaimedFromItsOnQueuedBeforeItsCreateReturns) {
  auto other = Open();  // another node's store on the same database
  std::vector<std::string> claimed;
  int calls = 0;
  // SQLite flushes its log after the call (its "flush" transactions, from the
  // process's metrics); PostgreSQL commits durably before it.
  double flushes_at_call = -1;
  auto claim_with = [&](Store& by) {
    return [&calls, &claimed, &by, &flushes_at_call, this] {
      flushes_at_call = Transactions("flush");
      ++calls;
      auto c = by.ClaimTurn("w", milliseconds(60000), kMaxTurnAttempts, {}, /*look_first=*/false);
      ASSERT_TRUE(c.ok()) << c.status().message();
      ASSERT_TRUE(c->has_value()) << "the job's turn is claimable when its worker is woken";
      claimed.push_back((*c)->job.id);
    };
  };
  NewJob nj{"Fix the typo"};
  on_turn_queued_ = claim_with(*store_);  // a worker of this process: the writer is free
  const double flushes_before = Transactions("flush");
  auto mine = store_->CreateJob(ScopeOf(project_), nj);
  ASSERT_TRUE(mine.ok()) << mine.status().message();
  EXPECT_EQ(flushes_at_call, flushes_before) << "woken before the flush";
  EXPECT_EQ(Transactions("flush"), flushes_at_call + (postgres() ? 0 : 1))
      << "flushed before it returned";
  on_turn_queued_ = claim_with(*other);
  auto theirs = store_->CreateJob(ScopeOf(project_), nj);
  ASSERT_TRUE(theirs.ok()) << theirs.status().message();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(claimed, (std::vector<std::string>{mine->id, theirs->id}));
  auto read = other->GetJob(ScopeOf(project_), theirs->id);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->status, JobStatus::kActive);

  // Refused: nothing written, nobody woken.
  Project limited = NewProject(org_.id, 1);
  auto first = store_->CreateJob(ScopeOf(limited), nj);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(store_->CreateJob(ScopeOf(limited), nj).status().code(), Code::kRateLimited);
  EXPECT_EQ(calls, 3);

  // Under a key: woken for the write, not for its replay.
  IdempotentRequest keyed{.key = "k1",
                          .route = "create",
                          .body_sha256 = std::string(64, 'a'),
                          .status = 201,
                          .render = [](const Job& j) { return j.id; }};
  on_turn_queued_ = claim_with(*store_);
  auto written = store_->CreateJobWithKey(ScopeOf(project_), nj, keyed);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(written->outcome, IdempotentWrite::Outcome::kDone);
  EXPECT_EQ(calls, 4);
  ASSERT_EQ(claimed.size(), 4u);
  EXPECT_EQ(claimed.back(), written->job->id);
  auto replayed = store_->CreateJobWithKey(ScopeOf(project_), nj, keyed);
  ASSERT_TRUE(replayed.ok()) << replayed.status().message();
  EXPECT_EQ(replayed->outcome, IdempotentWrite::Outcome::kReplayed);
  EXPECT_EQ(calls, 4);
}

// turn_queued_here, likewise: a follow-up's turn can be claimed from the
// call, once its job's turn has ended, and is flushed before AddMessage
// returns; a replay under the same key wakes nobody.
TEST_P(StoreClaimTest, AFollowUpCanBeClaimedFromItsOnQueuedBeforeAddMessageReturns) {
  Job job = Create(project_);
  TurnInput first = Claim("w");
  ASSERT_TRUE(store_->FinishTurn(first.turn_id, "w", TurnOutcome{.succeeded = true}).ok());
  std::vector<std::string> claimed;
  double flushes_at_call = -1;
  NewMessage follow_up{"And the heading"};
  on_turn_queued_ = [&] {
    flushes_at_call = Transactions("flush");
    auto c = store_->ClaimTurn("w", milliseconds(60000), kMaxTurnAttempts, {},
                               /*look_first=*/false);
    ASSERT_TRUE(c.ok()) << c.status().message();
    ASSERT_TRUE(c->has_value()) << "the follow-up's turn is claimable when its worker is woken";
    claimed.push_back((*c)->message.prompt);
    ASSERT_TRUE(store_->FinishTurn((*c)->turn_id, "w", TurnOutcome{.succeeded = true}).ok());
  };
  const double flushes_before = Transactions("flush");
  auto added = store_->AddMessage(ScopeOf(project_), job.id, follow_up);
  ASSERT_TRUE(added.ok()) << added.status().message();
  EXPECT_EQ(flushes_at_call, flushes_before) << "woken before the flush";
  EXPECT_EQ(Transactions("flush"), flushes_at_call + (postgres() ? 0 : 1))
      << "flushed before it returned";
  EXPECT_EQ(claimed, (std::vector<std::string>{"And the heading"}));

  IdempotentRequest keyed{.key = "m1",
                          .route = "message " + job.id,
                          .body_sha256 = std::string(64, 'b'),
                          .status = 200,
                          .render = [](const Job& j) { return j.id; }};
  follow_up.prompt = "And the footer";
  auto written = store_->AddMessageWithKey(ScopeOf(project_), job.id, follow_up, keyed);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(written->outcome, IdempotentWrite::Outcome::kDone);
  auto replayed = store_->AddMessageWithKey(ScopeOf(project_), job.id, follow_up, keyed);
  ASSERT_TRUE(replayed.ok()) << replayed.status().message();
  EXPECT_EQ(replayed->outcome, IdempotentWrite::Outcome::kReplayed);
  EXPECT_EQ(claimed, (std::vector<std::string>{"And the heading", "And the footer"}));
}

// A taker that reserves a lease claims the turn inside the write that queues
// it (TurnTaker): told once, with the turn, before the write commits; the turn
// is held under that lease when the write returns (another node finds
// nothing), its turn.started event written with the job's; no worker is woken
// (turn_queued_here). `visible_to`, if set, is read at the call: whether the
// job is there.
class QueuedClaims {
 public:
  TurnTaker Taker(std::function<double()> flushes, std::optional<ClaimFor> owner) {
    return TurnTaker{
        .reserve = [this, owner]() -> std::optional<ClaimFor> {
          ++reserved;
          if (lent) return std::nullopt;  // one write's
          lent = owner.has_value();
          return owner;
        },
        .claimed =
            [this, flushes](const ClaimFor& by, TurnInput turn,
                            std::shared_future<bool> committed) {
              flushes_at_call = flushes();
              ready_at_call.push_back(committed.wait_for(seconds(0)) == std::future_status::ready);
              if (visible_to) {
                seen_at_call.push_back(
                    visible_to->GetJob(Scope{turn.project.org_id, turn.project.id}, turn.job.id)
                        .ok());
              }
              owners.push_back(by.worker_id);
              turns.push_back(std::move(turn));
              commits.push_back(std::move(committed));
              return take;
            },
        .unclaimed =
            [this](const ClaimFor& by) {
              owners.push_back(by.worker_id);
              turns.push_back(std::nullopt);
              commits.emplace_back();
            }};
  }
  // Whether the write committed the turn handed over as turns[i].
  bool Committed(size_t i) const {
    return commits[i].valid() && commits[i].wait_for(seconds(0)) == std::future_status::ready &&
           commits[i].get();
  }
  bool take = true;  // what `claimed` answers
  Store* visible_to = nullptr;
  int reserved = 0, woken = 0;
  bool lent = false;
  double flushes_at_call = -1;
  std::vector<std::string> owners;
  std::vector<std::optional<TurnInput>> turns;  // nullopt: unclaimed
  std::vector<std::shared_future<bool>> commits;
  std::vector<bool> ready_at_call, seen_at_call;
};

ClaimFor Lease(const std::string& worker, std::vector<std::string> held = {}) {
  return ClaimFor{
      .worker_id = worker, .lease = milliseconds(60000), .held_projects = std::move(held)};
}

TEST_P(StoreClaimTest, AReservedTurnIsClaimedInsideTheWriteThatQueuesIt) {
  auto other = Open();  // another node's store on the same database
  QueuedClaims q;
  q.visible_to = other.get();
  NewJob nj{"Fix the typo"};
  Take(q, Lease("here/1"));
  const double flushes_before = Transactions("flush");
  const double writes_before = Transactions("write");
  auto job = store_->CreateJob(ScopeOf(project_), nj);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(Transactions("write") - writes_before, 1) << "one transaction, the claim in it";
  EXPECT_EQ(q.flushes_at_call, flushes_before) << "told before the flush";
  EXPECT_EQ(Transactions("flush"), flushes_before + (postgres() ? 0 : 1));
  EXPECT_EQ(q.reserved, 1);
  EXPECT_EQ(q.woken, 0);
  ASSERT_EQ(q.turns.size(), 1u);
  ASSERT_TRUE(q.turns[0].has_value()) << "the turn was runnable";
  // Told inside the write: before its commit, which it learns of after.
  EXPECT_EQ(q.ready_at_call, std::vector<bool>{false});
  EXPECT_EQ(q.seen_at_call, std::vector<bool>{false}) << "another connection saw the job";
  EXPECT_TRUE(q.Committed(0)) << "told of the commit once the create returned";
  const TurnInput& turn = *q.turns[0];
  EXPECT_EQ(q.owners[0], "here/1");
  EXPECT_EQ(turn.job.id, job->id);
  EXPECT_EQ(turn.message.prompt, "Fix the typo");
  EXPECT_EQ(turn.attempt, 1);
  EXPECT_EQ(turn.project.id, project_.id);
  auto theirs = other->ClaimTurn("there", milliseconds(60000), kMaxTurnAttempts, {}, false);
  ASSERT_TRUE(theirs.ok()) << theirs.status().message();
  EXPECT_FALSE(theirs->has_value()) << "claimed when the create returned";
  auto held = other->RenewLease(turn.turn_id, "here/1", milliseconds(60000));
  ASSERT_TRUE(held.ok()) << held.status().message();
  EXPECT_EQ(*held, LeaseState::kHeld);
  auto events = other->ListEvents(ScopeOf(project_), job->id, 0, 10);
  ASSERT_TRUE(events.ok()) << events.status().message();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].type, EventType::kJobCreated);
  EXPECT_EQ((*events)[1].type, EventType::kTurnStarted);
  ASSERT_TRUE(store_->FinishTurn(turn.turn_id, "here/1", TurnOutcome{.succeeded = true}).ok());

  // No lease reserved: nothing claimed, the runner woken instead.
  QueuedClaims none;
  Take(none, std::nullopt);
  auto unclaimed = store_->CreateJob(ScopeOf(project_), nj);
  ASSERT_TRUE(unclaimed.ok()) << unclaimed.status().message();
  EXPECT_EQ(none.reserved, 1);
  EXPECT_EQ(none.woken, 1);
  EXPECT_TRUE(none.turns.empty());
  EXPECT_EQ(Claim("w").job.id, unclaimed->id);

  // Refused: nothing reserved, nobody told.
  Project limited = NewProject(org_.id, 1);
  QueuedClaims refused;
  Take(refused, Lease("here/2"));
  ASSERT_TRUE(store_->CreateJob(ScopeOf(limited), nj).ok());
  EXPECT_EQ(refused.turns.size(), 1u);
  EXPECT_EQ(store_->CreateJob(ScopeOf(limited), nj).status().code(), Code::kRateLimited);
  EXPECT_EQ(refused.reserved, 1);
  EXPECT_EQ(refused.turns.size(), 1u);
  EXPECT_EQ(refused.woken, 0);

  // Under a key: claimed for the write; its replay reserves nothing.
  IdempotentRequest keyed{.key = "k1",
                          .route = "create",
                          .body_sha256 = std::string(64, 'a'),
                          .status = 201,
                          .render = [](const Job& j) { return j.id; }};
  QueuedClaims by_key;
  Take(by_key, Lease("here/3"));
  auto written = store_->CreateJobWithKey(ScopeOf(project_), nj, keyed);
  ASSERT_TRUE(written.ok()) << written.status().message();
  ASSERT_EQ(by_key.turns.size(), 1u);
  ASSERT_TRUE(by_key.turns[0].has_value());
  EXPECT_EQ(by_key.turns[0]->job.id, written->job->id);
  auto replayed = store_->CreateJobWithKey(ScopeOf(project_), nj, keyed);
  ASSERT_TRUE(replayed.ok()) << replayed.status().message();
  EXPECT_EQ(replayed->outcome, IdempotentWrite::Outcome::kReplayed);
  EXPECT_EQ(by_key.reserved, 1);
  EXPECT_EQ(by_key.turns.size(), 1u);
}

// A turn handed over that the hook refuses is unclaimed within the write: the
// job is made, its turn left queued for any worker and the runner woken. A
// turn handed over by a write that then fails is told it was not committed:
// there is no such job, and nothing is claimed.
TEST_P(StoreClaimTest, AHandOffRefusedOrNeverCommittedLeavesNothingClaimed) {
  QueuedClaims refused;
  refused.take = false;
  NewJob nj{"Fix the typo"};
  Take(refused, Lease("here/refused"));
  auto job = store_->CreateJob(ScopeOf(project_), nj);
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_EQ(refused.turns.size(), 1u) << "handed over, which ended the reservation";
  ASSERT_TRUE(refused.turns[0].has_value());
  EXPECT_EQ(refused.owners, (std::vector<std::string>{"here/refused"}));
  EXPECT_EQ(refused.woken, 1) << "a worker is woken for the turn left queued";
  auto events = store_->ListEvents(ScopeOf(project_), job->id, 0, 10);
  ASSERT_TRUE(events.ok()) << events.status().message();
  ASSERT_EQ(events->size(), 1u) << "no turn.started: the claim was undone";
  TurnInput turn = Claim("w");
  EXPECT_EQ(turn.job.id, job->id);
  EXPECT_EQ(turn.attempt, 1);
  ASSERT_TRUE(store_->FinishTurn(turn.turn_id, "w", TurnOutcome{.succeeded = true}).ok());

  // The write fails after the hand-off: here a trigger refuses its key.
  if (postgres()) {
    RawSql(url_,
           "CREATE FUNCTION refuse_key() RETURNS trigger AS $$ BEGIN "
           "RAISE EXCEPTION 'key refused'; END $$ LANGUAGE plpgsql; "
           "CREATE TRIGGER refuse_key BEFORE INSERT ON idempotency_keys FOR EACH ROW "
           "EXECUTE FUNCTION refuse_key();");
  } else {
    RawSql(url_,
           "CREATE TRIGGER refuse_key BEFORE INSERT ON idempotency_keys "
           "BEGIN SELECT RAISE(ABORT, 'key refused'); END;");
  }
  QueuedClaims failed;
  Take(failed, Lease("here/failed"));
  IdempotentRequest keyed{.key = "k1",
                          .route = "create",
                          .body_sha256 = std::string(64, 'a'),
                          .status = 201,
                          .render = [](const Job& j) { return j.id; }};
  auto written = store_->CreateJobWithKey(ScopeOf(project_), nj, keyed);
  EXPECT_TRUE(!written.ok() || written->outcome != IdempotentWrite::Outcome::kDone)
      << "the key's insert was refused";
  ASSERT_GE(failed.turns.size(), 1u);
  ASSERT_TRUE(failed.turns[0].has_value()) << "handed over before the key's insert";
  for (size_t i = 0; i < failed.turns.size(); ++i) {
    if (!failed.turns[i]) continue;
    ASSERT_TRUE(failed.commits[i].valid());
    ASSERT_EQ(failed.commits[i].wait_for(seconds(0)), std::future_status::ready)
        << "told once the write returned";
    EXPECT_FALSE(failed.commits[i].get()) << "hand-off " << i << " told it was committed";
    EXPECT_EQ(store_->GetJob(ScopeOf(project_), failed.turns[i]->job.id).status().code(),
              Code::kNotFound);
  }
  EXPECT_TRUE(NothingToClaim());
}

// A turn not runnable when it is queued is not claimed by its write: the
// reservation ends (told with nullopt) and the turn waits for a worker's claim,
// as any: a follow-up behind its job's running turn, a turn of a project or an
// organisation at its cap (a held entry counting as a turn running).
TEST_P(StoreClaimTest, AQueuedTurnThatIsNotRunnableIsLeftToTheWorkers) {
  Job job = Create(project_);
  TurnInput first = Claim("w");
  QueuedClaims q;
  NewMessage follow_up{"And the heading"};
  Take(q, Lease("here/1"));
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), job.id, follow_up).ok());
  ASSERT_EQ(q.turns.size(), 1u);
  EXPECT_FALSE(q.turns[0].has_value()) << "its job's first turn is running";
  EXPECT_TRUE(NothingToClaim());
  ASSERT_TRUE(store_->FinishTurn(first.turn_id, "w", TurnOutcome{.succeeded = true}).ok());
  TurnInput next = Claim("w");
  EXPECT_EQ(next.message.prompt, "And the heading");
  ASSERT_TRUE(store_->FinishTurn(next.turn_id, "w", TurnOutcome{.succeeded = true}).ok());

  // Once the job's turns have ended, a follow-up is claimed by its write.
  QueuedClaims after;
  follow_up.prompt = "And the footer";
  Take(after, Lease("here/2"));
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), job.id, follow_up).ok());
  ASSERT_EQ(after.turns.size(), 1u);
  ASSERT_TRUE(after.turns[0].has_value());
  EXPECT_EQ(after.turns[0]->message.prompt, "And the footer");
  EXPECT_EQ(after.turns[0]->message.seq, 3);
  ASSERT_TRUE(
      store_->FinishTurn(after.turns[0]->turn_id, "here/2", TurnOutcome{.succeeded = true}).ok());

  // A project at its cap: one turn running, or one held entry naming it.
  Project capped = NewProject(org_.id, 100);
  capped.max_active = 1;
  ASSERT_TRUE(store_->UpdateProject(capped).ok());
  QueuedClaims held;
  NewJob nj{"Fix the typo"};
  Take(held, Lease("here/3", {capped.id}));
  auto waits = store_->CreateJob(ScopeOf(capped), nj);
  ASSERT_TRUE(waits.ok()) << waits.status().message();
  ASSERT_EQ(held.turns.size(), 1u);
  EXPECT_FALSE(held.turns[0].has_value()) << "a held entry fills the project's cap";
  TurnInput running = Claim("w");
  EXPECT_EQ(running.job.id, waits->id);
  QueuedClaims full;
  Take(full, Lease("here/4"));
  auto behind = store_->CreateJob(ScopeOf(capped), nj);
  ASSERT_TRUE(behind.ok()) << behind.status().message();
  ASSERT_EQ(full.turns.size(), 1u);
  EXPECT_FALSE(full.turns[0].has_value()) << "a turn running fills the project's cap";

  // An organisation at its cap, by a turn of another of its projects.
  Org org = other_org_;
  org.max_active = 1;
  ASSERT_TRUE(store_->UpdateOrg(org).ok());
  Project sibling = NewProject(other_org_.id, 100);
  Create(other_project_);
  TurnInput busy = Claim("w");
  EXPECT_EQ(busy.project.id, other_project_.id);
  QueuedClaims org_full;
  Take(org_full, Lease("here/5"));
  ASSERT_TRUE(store_->CreateJob(ScopeOf(sibling), nj).ok());
  ASSERT_EQ(org_full.turns.size(), 1u);
  EXPECT_FALSE(org_full.turns[0].has_value()) << "the organisation's cap is full";
  ASSERT_TRUE(store_->FinishTurn(busy.turn_id, "w", TurnOutcome{.succeeded = true}).ok());
  QueuedClaims org_free;
  Take(org_free, Lease("here/6"));
  auto free = store_->CreateJob(ScopeOf(sibling), nj);
  ASSERT_TRUE(free.ok()) << free.status().message();
  ASSERT_EQ(org_free.turns.size(), 1u);
  ASSERT_TRUE(org_free.turns[0].has_value()) << "the cap has room again";
  EXPECT_EQ(org_free.turns[0]->job.id, free->id);
}

// A claim that fails inside the write (here, a trigger refuses its update of
// the turn) is undone alone: the job is made, its turn left queued for any
// worker, the reservation ended and the runner woken for the turn.
TEST_P(StoreClaimTest, AClaimThatFailsInsideTheWriteIsUndoneAndTheWriteGoesOn) {
  if (postgres()) {
    RawSql(url_,
           "CREATE FUNCTION refuse_claim() RETURNS trigger AS $$ BEGIN "
           "IF NEW.lease_owner = 'here/refused' THEN RAISE EXCEPTION 'claim refused'; END IF; "
           "RETURN NEW; END $$ LANGUAGE plpgsql; "
           "CREATE TRIGGER refuse_claim BEFORE UPDATE ON turns FOR EACH ROW "
           "EXECUTE FUNCTION refuse_claim();");
  } else {
    RawSql(url_,
           "CREATE TRIGGER refuse_claim BEFORE UPDATE ON turns "
           "WHEN NEW.lease_owner = 'here/refused' BEGIN SELECT RAISE(ABORT, 'claim refused'); "
           "END;");
  }
  QueuedClaims q;
  NewJob nj{"Fix the typo"};
  Take(q, Lease("here/refused"));
  auto job = store_->CreateJob(ScopeOf(project_), nj);
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_EQ(q.turns.size(), 1u);
  EXPECT_FALSE(q.turns[0].has_value());
  EXPECT_EQ(q.woken, 1) << "a worker is woken for the turn left queued";
  auto events = store_->ListEvents(ScopeOf(project_), job->id, 0, 10);
  ASSERT_TRUE(events.ok()) << events.status().message();
  ASSERT_EQ(events->size(), 1u) << "no turn.started: the claim's event was undone with it";
  EXPECT_EQ((*events)[0].type, EventType::kJobCreated);
  TurnInput turn = Claim("w");
  EXPECT_EQ(turn.job.id, job->id);
  EXPECT_EQ(turn.attempt, 1) << "the undone claim counted no attempt";
}

// SQLite commits such a create without a flush and flushes its log after the
// call: a log that cannot be flushed (here, removed) is Unavailable, the job
// made (its turn was claimed from the call), never a job answered as durable;
// and the store takes no more writes, a later flush not being trusted.
TEST_P(StoreClaimTest, ACreateWhoseLogCannotBeFlushedIsUnavailableAndStopsTheWrites) {
  if (postgres()) GTEST_SKIP() << "PostgreSQL's commit is durable before the call";
  ASSERT_EQ(::unlink((url_ + "-wal").c_str()), 0) << "the log is open";
  bool claimed = false;
  NewJob nj{"Fix the typo"};
  on_turn_queued_ = [&] {
    auto c = store_->ClaimTurn("w", milliseconds(60000), kMaxTurnAttempts, {},
                               /*look_first=*/false);
    claimed = c.ok() && c->has_value();
  };
  auto job = store_->CreateJob(ScopeOf(project_), nj);
  EXPECT_EQ(job.status().code(), Code::kUnavailable);
  EXPECT_NE(job.status().message().find("removed or replaced"), std::string::npos)
      << job.status().message();
  EXPECT_TRUE(claimed) << "the job is made all the same";
  auto later = store_->CreateJob(ScopeOf(project_), NewJob{"Fix the typo"});
  EXPECT_EQ(later.status().code(), Code::kUnavailable);
  EXPECT_NE(later.status().message().find("no more writes"), std::string::npos)
      << later.status().message();
}

INSTANTIATE_TEST_SUITE_P(Store, StoreClaimTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
