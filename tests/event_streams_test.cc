// The event stream hub (events/event_streams.h) over a real SQLite store:
// streams at different points of one job, read at different speeds while
// events are written, each get exactly the events after their point, in order.
#include "events/event_streams.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <atomic>
#include <future>
#include <random>
#include <thread>

#include "core/api_key.h"
#include "store/store.h"
#include "support/secrets.h"
#include "support/temp_dir.h"

namespace docwright {
namespace {

using std::chrono::milliseconds;

class EventStreamsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = OpenStore(dir_ / "docwright.db", testing::TestSecrets());
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(*s);
    Org org = *store_->CreateOrg("acme");
    Project p;
    p.org_id = org.id;
    p.repository = "https://git.example/acme/docs";
    p.base_ref = "main";
    p.rate_limit_per_hour = 1000;
    project_ = *store_->CreateProject(p);
    scope_ = Scope{org.id, project_.id};
    // Streams stand on keys the hub checks: real ones.
    for (std::string* id : {&key_, &other_key_}) {
      GeneratedApiKey k = GenerateApiKey(org.id, "reader");
      ASSERT_TRUE(store_->CreateApiKey(k.record).ok());
      *id = k.record.id;
    }
    job_ = *store_->CreateJob(scope_, NewJob{.prompt = "Go"});
    auto claimed = store_->ClaimTurn("w", milliseconds(600000), kMaxTurnAttempts);
    ASSERT_TRUE(claimed.ok() && claimed->has_value());
    turn_ = (*claimed)->turn_id;
  }

  // Steps `from` to `to` of the turn, each an event.
  void Steps(int from, int to) {
    for (int i = from; i <= to; ++i) {
      auto r =
          store_->RecordStep(turn_, "w", i, TranscriptStep{.text = "step " + std::to_string(i)});
      ASSERT_TRUE(r.ok() && *r == LeaseState::kHeld);
    }
  }

  // Reads `stream` as a connection would, a piece at a time, pausing at
  // random, until it has the event `last`; returns the ids it got.
  static std::vector<int64_t> Drain(BodySource& stream, int64_t last, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<int64_t> ids;
    while (ids.empty() || ids.back() < last) {
      std::promise<std::optional<std::string>> got;
      auto piece = got.get_future();
      stream.Next([&got](std::optional<std::string> p) { got.set_value(std::move(p)); });
      if (piece.wait_for(std::chrono::seconds(30)) != std::future_status::ready) break;
      std::optional<std::string> bytes = piece.get();
      if (!bytes) break;
      for (size_t at = bytes->find("id: "); at != std::string::npos;
           at = bytes->find("\nid: ", at + 1)) {
        size_t start = bytes->find("id: ", at) + 4;
        ids.push_back(std::stoll(bytes->substr(start, bytes->find('\n', start) - start)));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));
    }
    stream.Close();
    return ids;
  }

  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  Project project_;
  Scope scope_;
  std::string key_, other_key_;  // ids of two keys of the organisation
  Job job_;
  int64_t turn_ = 0;
};

TEST_F(EventStreamsTest, StreamsAtEveryPointGetExactlyTheEventsAfterItInOrder) {
  Steps(1, 100);  // events 3..102 (after job.created and turn.started)
  EventStreams hub(*store_, EventStreamOptions{.heartbeat = std::chrono::hours(1), .batch = 4});
  constexpr int kStreams = 24;
  constexpr int64_t kLast = 2 + 200;
  std::vector<std::future<std::vector<int64_t>>> readers;
  std::vector<int64_t> starts;
  std::mt19937 rng(7);
  for (int i = 0; i < kStreams; ++i) {
    int64_t after = rng() % 103;
    starts.push_back(after);
    auto stream = hub.Open(StreamRequest{.scope = scope_,
                                         .job_id = job_.id,
                                         .after = after,
                                         .key_id = key_,
                                         .framing = ServerSentEventFraming()});
    ASSERT_TRUE(stream.ok()) << stream.status().message();
    readers.push_back(std::async(std::launch::async, [s = *stream, i] {
      return Drain(*s, kLast, static_cast<unsigned>(i));
    }));
  }
  Steps(101, 200);  // written while the streams are read
  for (int i = 0; i < kStreams; ++i) {
    std::vector<int64_t> ids = readers[i].get();
    ASSERT_EQ(ids.size(), static_cast<size_t>(kLast - starts[i])) << "stream " << i;
    for (size_t k = 0; k < ids.size(); ++k) {
      ASSERT_EQ(ids[k], starts[i] + 1 + static_cast<int64_t>(k)) << "stream " << i;
    }
  }
  EXPECT_EQ(hub.open_streams(), 0u) << "closed streams free their slots";
}

TEST_F(EventStreamsTest, ABoundPerKeyAndTheHubsStopEndEveryStream) {
  EventStreams hub(*store_, EventStreamOptions{.max_streams_per_key = 2});
  auto open = [&](const std::string& key) {
    return hub.Open(StreamRequest{.scope = scope_, .job_id = job_.id, .key_id = key});
  };
  auto a = open(key_);
  auto b = open(key_);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(open(key_).status().code(), Code::kRateLimited);
  EXPECT_TRUE(open(other_key_).ok());
  // A stream waiting for events ends when the hub stops.
  std::promise<std::optional<std::string>> start, next;
  (*a)->Next([&](std::optional<std::string> p) { start.set_value(std::move(p)); });
  ASSERT_TRUE(start.get_future().get().has_value()) << "the framing's start";
  (*a)->Next([&](std::optional<std::string> p) { next.set_value(std::move(p)); });
  auto events = next.get_future();
  ASSERT_TRUE(events.get().has_value()) << "job.created and turn.started";
  std::promise<std::optional<std::string>> waiting;
  (*a)->Next([&](std::optional<std::string> p) { waiting.set_value(std::move(p)); });
  auto end = waiting.get_future();
  EXPECT_EQ(end.wait_for(milliseconds(200)), std::future_status::timeout) << "nothing new yet";
  hub.Stop();
  ASSERT_EQ(end.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_FALSE(end.get().has_value());
  EXPECT_FALSE(open("k2").ok()) << "a stopped hub opens nothing";
  (*a)->Close();
  (*b)->Close();
}

// Reads `stream`'s start and the job's events; returns the piece it then waits for.
std::future<std::optional<std::string>> Waiting(BodySource& stream,
                                                std::promise<std::optional<std::string>>& next) {
  for (int i = 0; i < 2; ++i) {  // the framing's start, then job.created and turn.started
    std::promise<std::optional<std::string>> got;
    stream.Next([&](std::optional<std::string> p) { got.set_value(std::move(p)); });
    EXPECT_TRUE(got.get_future().get().has_value());
  }
  stream.Next([&](std::optional<std::string> p) { next.set_value(std::move(p)); });
  return next.get_future();
}

TEST_F(EventStreamsTest, StreamsOfARevokedKeyOrAnEndedSessionEnd) {
  GeneratedApiKey revoked = GenerateApiKey(scope_.org_id, "revoked");
  GeneratedApiKey kept = GenerateApiKey(scope_.org_id, "kept");
  ASSERT_TRUE(store_->CreateApiKey(revoked.record).ok());
  ASSERT_TRUE(store_->CreateApiKey(kept.record).ok());
  // No announcement on SQLite: the periodic check finds the revocation.
  EventStreams hub(*store_, EventStreamOptions{.heartbeat = std::chrono::hours(1),
                                               .credential_check = milliseconds(50)});
  auto open = [&](const std::string& key_id, const std::string& session_hash) {
    return hub.Open(StreamRequest{
        .scope = scope_, .job_id = job_.id, .key_id = key_id, .session_hash = session_hash});
  };
  auto of_revoked = open(revoked.record.id, "");
  auto of_kept = open(kept.record.id, "");
  NewSession session = GenerateSession(kept.record, NowMillis(), 3600000);
  ASSERT_TRUE(store_->CreateSession(session.record).ok());
  auto signed_out = open(kept.record.id, session.record.token_hash);
  ASSERT_TRUE(of_revoked.ok() && of_kept.ok() && signed_out.ok());
  std::promise<std::optional<std::string>> p1, p2, p3;
  auto end_revoked = Waiting(**of_revoked, p1);
  auto end_kept = Waiting(**of_kept, p2);
  auto end_signed_out = Waiting(**signed_out, p3);

  ASSERT_TRUE(store_->RevokeApiKey(revoked.record.id).ok());
  // A sign-out made by another process: only the store knows.
  ASSERT_TRUE(store_->DeleteSession(session.record.token_hash).ok());
  ASSERT_EQ(end_revoked.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_FALSE(end_revoked.get().has_value()) << "the body ends";
  // The session deleted behind the hub's back ends as well, as one that expired
  // would.
  ASSERT_EQ(end_signed_out.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_FALSE(end_signed_out.get().has_value());
  EXPECT_EQ(end_kept.wait_for(milliseconds(300)), std::future_status::timeout)
      << "an active key's stream goes on";

  // This process's own revocation: at once, without the store.
  hub.EndStreamsOf(kept.record.id);
  ASSERT_EQ(end_kept.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_FALSE(end_kept.get().has_value());
  for (auto* s : {&*of_revoked, &*of_kept, &*signed_out}) (*s)->Close();
  EXPECT_EQ(hub.open_streams(), 0u);
}

TEST_F(EventStreamsTest, EndSessionEndsThatSessionsStreamsOnly) {
  EventStreams hub(*store_, EventStreamOptions{.heartbeat = std::chrono::hours(1),
                                               .credential_check = std::chrono::hours(1)});
  // Two live sessions of one key: the hub's own check finds both standing.
  auto keys = store_->ListApiKeys(scope_.org_id);
  ASSERT_TRUE(keys.ok());
  const ApiKey& key =
      *std::find_if(keys->begin(), keys->end(), [&](const ApiKey& k) { return k.id == key_; });
  std::string hashes[2];
  for (std::string& hash : hashes) {
    NewSession made = GenerateSession(key, NowMillis(), 3600000);
    ASSERT_TRUE(store_->CreateSession(made.record).ok());
    hash = made.record.token_hash;
  }
  auto mine = hub.Open(
      StreamRequest{.scope = scope_, .job_id = job_.id, .key_id = key_, .session_hash = hashes[0]});
  auto theirs = hub.Open(
      StreamRequest{.scope = scope_, .job_id = job_.id, .key_id = key_, .session_hash = hashes[1]});
  ASSERT_TRUE(mine.ok() && theirs.ok());
  std::promise<std::optional<std::string>> p1, p2;
  auto end_mine = Waiting(**mine, p1);
  auto end_theirs = Waiting(**theirs, p2);
  hub.EndSession(hashes[0]);
  ASSERT_EQ(end_mine.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_FALSE(end_mine.get().has_value());
  EXPECT_EQ(end_theirs.wait_for(milliseconds(300)), std::future_status::timeout);
  // A stream that ended sends nothing more, even when asked again.
  std::promise<std::optional<std::string>> again;
  (*mine)->Next([&](std::optional<std::string> p) { again.set_value(std::move(p)); });
  EXPECT_FALSE(again.get_future().get().has_value());
  hub.Stop();
  (*mine)->Close();
  (*theirs)->Close();
}

}  // namespace
}  // namespace docwright
