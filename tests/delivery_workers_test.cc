// The webhook delivery workers (events/delivery_workers.h) over a real store,
// on SQLite and on PostgreSQL: they look for deliveries when one is made due,
// not at every event (a node whose events no endpoint takes does no delivery
// work per event), and what is made due goes out at once, not at the next poll.
#include "events/delivery_workers.h"

#include <gtest/gtest.h>

#include <memory>

#include "core/webhook.h"
#include "fakes/counting_store.h"
#include "support/postgres_database.h"
#include "support/secrets.h"
#include "support/temp_dir.h"
#include "support/test_tools.h"
#include "support/webhook_receiver.h"

namespace docwright {
namespace {

using std::chrono::milliseconds;

class DeliveryWorkersTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string url = dir_ / "docwright.db";
    if (GetParam() == "postgres") {
      std::string why;
      database_ = testing::PostgresDatabase::Create(&why);
      DOCWRIGHT_REQUIRE_TOOL(database_ != nullptr, "no PostgreSQL server: " + why);
      url = database_->url();
    }
    auto opened = OpenStore(url, testing::TestSecrets());
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    store_ = std::move(*opened);
    counting_ = std::make_unique<testing::CountingStore>(*store_);
    org_ = *store_->CreateOrg("acme");
    Project p;
    p.org_id = org_.id;
    p.repository = "https://git.example/acme/docs";
    p.base_ref = "main";
    p.rate_limit_per_hour = 1000;
    project_ = *store_->CreateProject(p);
  }

  void TearDown() override {
    if (workers_) workers_->Stop();
  }

  WebhookEndpoint AddEndpoint(std::vector<EventType> events) {
    WebhookEndpoint e;
    e.project_id = project_.id;
    e.url = receiver_.Url();
    e.events = std::move(events);
    e.secret = NewWebhookSecret();
    auto made = store_->CreateWebhook(e);
    EXPECT_TRUE(made.ok()) << made.status().message();
    receiver_.AddSecret(e.secret);
    return *made;
  }

  // Four workers that poll once an hour: within a test, only wake-ups make
  // them look again after their first look.
  void StartWorkers() {
    events::DeliveryWorkersOptions o;
    o.threads = 4;
    o.sender.timeout = o.sender.connect_timeout = milliseconds(5000);
    o.sender.allow_private = true;  // the receiver is on loopback
    o.lease = milliseconds(15000);
    o.poll = std::chrono::hours(1);
    workers_ = std::make_unique<events::DeliveryWorkers>(*counting_, o);
    workers_->Start();
  }

  // A job with a running turn, claimed by "w".
  std::pair<Job, TurnInput> RunningJob() {
    auto job = store_->CreateJob(Scope{org_.id, project_.id}, NewJob{"Fix the typo"});
    EXPECT_TRUE(job.ok()) << job.status().message();
    auto turn = store_->ClaimTurn("w", milliseconds(60000), kMaxTurnAttempts);
    EXPECT_TRUE(turn.ok() && turn->has_value());
    return {*job, std::move(**turn)};
  }

  // Writes `n` turn.step events, the most frequent event there is.
  void WriteSteps(const TurnInput& turn, int n) {
    for (int i = 1; i <= n; ++i) {
      TranscriptStep step{.kind = TranscriptStep::Kind::kAssistant,
                          .text = "step " + std::to_string(i)};
      auto r = store_->RecordStep(turn.turn_id, "w", i, step);
      ASSERT_TRUE(r.ok()) << r.status().message();
      ASSERT_EQ(*r, LeaseState::kHeld);
    }
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::PostgresDatabase> database_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<testing::CountingStore> counting_;  // the workers' looks: ClaimWebhookDelivery
  Org org_;
  Project project_;
  testing::WebhookReceiver receiver_{{}};
  std::unique_ptr<events::DeliveryWorkers> workers_;  // last: stopped first
};

TEST_P(DeliveryWorkersTest, EventsNoEndpointTakesCostTheWorkersNoLooks) {
  // An endpoint that takes only job.archived: the thousand steps go nowhere.
  AddEndpoint({EventType::kJobArchived});
  StartWorkers();
  auto [job, turn] = RunningJob();
  WriteSteps(turn, 1000);
  // The one event the endpoint takes goes out at once (the workers poll once
  // an hour): by then every step's event has long been written and announced.
  ASSERT_TRUE(store_->ArchiveJob(Scope{org_.id, project_.id}, job.id).ok());
  ASSERT_TRUE(receiver_.WaitForAccepted(1)) << "the archive's delivery did not arrive";
  EXPECT_EQ(receiver_.Accepted()[0]["type"], "job.archived");
  workers_->Stop();
  // Each worker's first look, the archive's delivery, and the look of the
  // worker its claim woke: a handful. Woken by every event, the four workers
  // looked a few thousand times.
  EXPECT_LE(counting_->Calls("ClaimWebhookDelivery"), 12);
  EXPECT_EQ(receiver_.Problems(), std::vector<std::string>{});
}

TEST_P(DeliveryWorkersTest, WithoutAnyEndpointEventsCostTheWorkersNoLooks) {
  StartWorkers();
  auto [job, turn] = RunningJob();
  WriteSteps(turn, 1000);
  // Then an endpoint, and an event it takes: its delivery arriving says every
  // step's event was heard before it.
  AddEndpoint({EventType::kJobArchived});
  ASSERT_TRUE(store_->ArchiveJob(Scope{org_.id, project_.id}, job.id).ok());
  ASSERT_TRUE(receiver_.WaitForAccepted(1)) << "the archive's delivery did not arrive";
  workers_->Stop();
  EXPECT_LE(counting_->Calls("ClaimWebhookDelivery"), 12);
  EXPECT_EQ(receiver_.Accepted().size(), 1u);
}

TEST_P(DeliveryWorkersTest, EveryDeliveryMadeDueGoesOutWithoutWaitingForAPoll) {
  AddEndpoint({EventType::kTurnStep, EventType::kJobArchived});
  StartWorkers();
  auto [job, turn] = RunningJob();
  WriteSteps(turn, 50);
  ASSERT_TRUE(store_->ArchiveJob(Scope{org_.id, project_.id}, job.id).ok());
  // The workers poll once an hour: only the wake-ups bring these.
  ASSERT_TRUE(receiver_.WaitForAccepted(51));
  EXPECT_EQ(receiver_.Problems(), std::vector<std::string>{});  // in order, each verified
  EXPECT_EQ(receiver_.Accepted().back()["type"], "job.archived");
}

INSTANTIATE_TEST_SUITE_P(Stores, DeliveryWorkersTest, ::testing::Values("sqlite", "postgres"));

}  // namespace
}  // namespace docwright
