// Store::RenewLeases, on SQLite and on PostgreSQL: a node's running turns
// renewed in one call, each turn answered as RenewLease answers it, a
// transaction (PostgreSQL: one statement) per kMaxLeasesPerRenewal turns.
#include <gtest/gtest.h>

#include <thread>

#include "store/cached_store.h"
#include "support/store_fixture.h"

namespace docwright {
namespace {

using std::chrono::milliseconds;

class StoreLeasesTest : public testing::StoreTest {
 protected:
  // Whether another worker can claim the turn of `job_id` now: its lease
  // expired (the one runnable turn is then that one).
  bool Claimable(const std::string& job_id) {
    auto c = store_->ClaimTurn("prober", milliseconds(60000), kMaxTurnAttempts);
    return c.ok() && c->has_value() && (*c)->job.id == job_id;
  }

  static std::string Name(const Result<LeaseState>& state) {
    if (!state.ok()) return "error " + state.status().message();
    switch (*state) {
      case LeaseState::kHeld:
        return "held";
      case LeaseState::kStopRequested:
        return "stop requested";
      case LeaseState::kLost:
        return "lost";
      case LeaseState::kCancelled:
        return "cancelled";
    }
    return "?";
  }
};

TEST_P(StoreLeasesTest, EachTurnIsAnsweredAsRenewLeaseAnswersIt) {
  Job live = Create(project_, "live");
  TurnInput t_live = Claim("w");
  Job archived = Create(project_, "archived");
  TurnInput t_archived = Claim("w");
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), archived.id).ok());
  Job taken = Create(project_, "taken over");
  TurnInput t_taken = Claim("crashed", milliseconds(1));
  std::this_thread::sleep_for(milliseconds(5));
  TurnInput t_rescued = Claim("rescuer");
  ASSERT_EQ(t_rescued.turn_id, t_taken.turn_id);
  Job stopped = Create(project_, "stopped");
  TurnInput t_stopped = Claim("w");
  ASSERT_TRUE(store_->StopJob(ScopeOf(project_), stopped.id).ok());

  auto states = store_->RenewLeases({{t_live.turn_id, "w"},
                                     {t_archived.turn_id, "w"},
                                     {t_taken.turn_id, "crashed"},
                                     {t_stopped.turn_id, "w"},
                                     {t_taken.turn_id, "rescuer"},
                                     {t_live.turn_id, "not its worker"},
                                     {987654321, "w"}},
                                    milliseconds(60000));
  ASSERT_EQ(states.size(), 7u);
  EXPECT_EQ(Name(states[0]), "held");
  EXPECT_EQ(Name(states[1]), "cancelled");
  EXPECT_EQ(Name(states[2]), "lost");
  EXPECT_EQ(Name(states[3]), "stop requested");
  EXPECT_EQ(Name(states[4]), "held") << "the turn's new worker holds it";
  EXPECT_EQ(Name(states[5]), "lost");
  ASSERT_FALSE(states[6].ok());
  EXPECT_EQ(states[6].status().code(), Code::kNotFound) << "as RenewLease: no such turn";

  // The same answers as RenewLease gives one at a time.
  EXPECT_EQ(*store_->RenewLease(t_archived.turn_id, "w", milliseconds(60000)),
            LeaseState::kCancelled);
  EXPECT_EQ(*store_->RenewLease(t_taken.turn_id, "crashed", milliseconds(60000)),
            LeaseState::kLost);
  EXPECT_EQ(*store_->RenewLease(t_stopped.turn_id, "w", milliseconds(60000)),
            LeaseState::kStopRequested);
}

TEST_P(StoreLeasesTest, TheLeaseGivenIsTheOneTheTurnsHoldFromNow) {
  Job first = Create(project_, "first");
  Job second = Create(project_, "second");
  TurnInput t_first = Claim("w", milliseconds(60000));
  TurnInput t_second = Claim("w", milliseconds(1));
  ASSERT_EQ(t_second.job.id, second.id);
  // The first turn's minute ends now, the second's lease of 1 ms is made a
  // minute: only the first is for another worker to take.
  auto ended = store_->RenewLeases({{t_first.turn_id, "w"}}, milliseconds(0));
  ASSERT_EQ(Name(ended.at(0)), "held");
  auto kept = store_->RenewLeases({{t_second.turn_id, "w"}}, milliseconds(60000));
  ASSERT_EQ(Name(kept.at(0)), "held");
  std::this_thread::sleep_for(milliseconds(5));
  EXPECT_TRUE(Claimable(first.id));
  EXPECT_TRUE(NothingToClaim()) << "the second turn's lease was renewed";
  EXPECT_EQ(*store_->RenewLease(t_second.turn_id, "w", milliseconds(60000)), LeaseState::kHeld);
}

TEST_P(StoreLeasesTest, ManyTurnsAreRenewedInOneTransactionPerChunk) {
  constexpr int kTurns = 1200;  // three chunks: 500, 500, 200
  Project busy = NewProject(org_.id, 10000);
  std::vector<HeldLease> leases;
  std::vector<std::string> jobs;
  for (int i = 0; i < kTurns; ++i) {
    jobs.push_back(Create(busy, "job " + std::to_string(i)).id);
    TurnInput t = Claim("w" + std::to_string(i));
    ASSERT_EQ(t.job.id, jobs.back());
    leases.push_back(HeldLease{t.turn_id, "w" + std::to_string(i)});
  }
  // Answers that are not "held", in the second and third chunks: each answer
  // must land in its turn's place.
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(busy), jobs[700]).ok());
  ASSERT_TRUE(store_->StopJob(ScopeOf(busy), jobs[1199]).ok());
  leases[1000].worker_id = "someone else";

  const double writes = Transactions("write"), reads = Transactions("read");
  auto states = store_->RenewLeases(leases, milliseconds(60000));
  EXPECT_EQ(Transactions("write") - writes, 3) << "one transaction per chunk of 500";
  EXPECT_EQ(Transactions("read") - reads, 0);

  ASSERT_EQ(states.size(), static_cast<size_t>(kTurns));
  for (int i = 0; i < kTurns; ++i) {
    std::string expected = i == 700    ? "cancelled"
                           : i == 1000 ? "lost"
                           : i == 1199 ? "stop requested"
                                       : "held";
    EXPECT_EQ(Name(states[i]), expected) << "turn " << i;
  }
}

TEST_P(StoreLeasesTest, NoTurnsCostNothing) {
  const double writes = Transactions("write"), reads = Transactions("read");
  EXPECT_TRUE(store_->RenewLeases({}, milliseconds(60000)).empty());
  EXPECT_EQ(Transactions("write") - writes, 0);
  EXPECT_EQ(Transactions("read") - reads, 0);
}

TEST_P(StoreLeasesTest, TheCacheRenewsThroughToTheStore) {
  Create(project_);
  TurnInput t = Claim("w");
  auto cached = NewCachedStore(Open(), CacheOptions{});
  auto states = cached->RenewLeases({{t.turn_id, "w"}, {t.turn_id, "x"}}, milliseconds(60000));
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(Name(states[0]), "held");
  EXPECT_EQ(Name(states[1]), "lost");
}

INSTANTIATE_TEST_SUITE_P(Store, StoreLeasesTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
