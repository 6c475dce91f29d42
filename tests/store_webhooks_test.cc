// The webhook outbox of the Store (store.h, "Webhooks"): on SQLite and on
// PostgreSQL, deliveries are written with their events, claimed in order per
// endpoint and job with one in flight an endpoint, retried, taken over after a
// lease expires, and claimed once across two store objects on one database.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "core/webhook.h"
#include "store/sqlite_store.h"
#include "support/postgres_database.h"
#include "support/secrets.h"
#include "support/temp_dir.h"
#include "support/test_tools.h"

namespace docwright {
namespace {

using std::chrono::milliseconds;

class StoreWebhooksTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres") {
      std::string why;
      database_ = testing::PostgresDatabase::Create(&why);
      DOCWRIGHT_REQUIRE_TOOL(database_ != nullptr, "no PostgreSQL server: " + why);
      url_ = database_->url();
    } else {
      url_ = dir_ / "docwright.db";
    }
    store_ = Open();
    org_ = *store_->CreateOrg("acme");
    project_ = NewProject();
    other_project_ = NewProject();
  }

  std::unique_ptr<Store> Open() {
    auto s = OpenStore(url_, testing::TestSecrets());
    EXPECT_TRUE(s.ok()) << s.status().message();
    return std::move(*s);
  }

  Project NewProject() {
    Project p;
    p.org_id = org_.id;
    p.repository = "https://git.example/acme/docs";
    p.base_ref = "main";
    p.rate_limit_per_hour = 1000;
    return *store_->CreateProject(p);
  }

  WebhookEndpoint AddEndpoint(const Project& p, std::vector<EventType> events = {}) {
    WebhookEndpoint e;
    e.project_id = p.id;
    e.url = "https://hooks.example/receive";
    e.events = events.empty() ? DefaultWebhookEvents() : events;
    e.secret = NewWebhookSecret();
    auto made = store_->CreateWebhook(e);
    EXPECT_TRUE(made.ok()) << made.status().message();
    return *made;
  }

  Job Create(const Project& p) {
    auto j = store_->CreateJob(Scope{p.org_id, p.id}, NewJob{"Fix the typo"});
    EXPECT_TRUE(j.ok()) << j.status().message();
    return *j;
  }

  std::optional<ClaimedDelivery> Claim(Store& store, const std::string& worker,
                                       milliseconds lease = milliseconds(60000)) {
    auto c = store.ClaimWebhookDelivery(worker, lease);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? *c : std::nullopt;
  }
  std::optional<ClaimedDelivery> Claim(const std::string& worker = "w") {
    return Claim(*store_, worker);
  }

  void Deliver(const ClaimedDelivery& d, const std::string& worker = "w") {
    auto r = store_->FinishWebhookDelivery(
        d.id, worker, DeliveryAttempt{.delivered = true, .status = 204}, std::chrono::hours(24));
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(*r, Store::DeliveryRecorded::kRecorded);
  }

  Store::DeliveryRecorded Fail(const ClaimedDelivery& d, milliseconds retry_in,
                               milliseconds give_up_after = std::chrono::hours(24),
                               const std::string& worker = "w") {
    auto r = store_->FinishWebhookDelivery(
        d.id, worker, DeliveryAttempt{.status = 503, .error = "answered 503", .retry_in = retry_in},
        give_up_after);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : Store::DeliveryRecorded::kLeaseLost;
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

  bool postgres() const { return GetParam() == "postgres"; }

  testing::TempDir dir_;
  std::unique_ptr<testing::PostgresDatabase> database_;
  std::string url_;
  std::unique_ptr<Store> store_;
  Org org_;
  Project project_, other_project_;
};

TEST_P(StoreWebhooksTest, EachEventIsQueuedForEachEnabledEndpointTakingItsType) {
  WebhookEndpoint all = AddEndpoint(project_);
  WebhookEndpoint completed_only = AddEndpoint(project_, {EventType::kJobCompleted});
  AddEndpoint(other_project_);
  Job job = Create(project_);  // job.created, and nothing else yet
  auto d = Claim();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->endpoint_id, all.id);
  EXPECT_EQ(d->event.job_id, job.id);
  EXPECT_EQ(d->event.sequence, 1);
  EXPECT_EQ(d->event.type, EventType::kJobCreated);
  EXPECT_EQ(d->event.project_id, project_.id);
  ASSERT_EQ(d->secrets.size(), 1u);
  EXPECT_EQ(d->secrets[0], all.secret);  // opened
  EXPECT_FALSE(Claim("other").has_value()) << "one delivery only";
  auto log = store_->ListWebhookDeliveries(completed_only.id, 10);
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE(log->empty());
}

TEST_P(StoreWebhooksTest, SecretsAreSealedInTheDatabaseAndNeverListedInTheClear) {
  WebhookEndpoint e = AddEndpoint(project_);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM webhook_endpoints WHERE secret LIKE 'dwenc:v1:%'"), 1);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM webhook_endpoints WHERE secret LIKE '%" +
                  e.secret.substr(6, 16) + "%'"),
            0);
  auto read = store_->GetWebhook(e.id);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->secret, e.secret);
}

TEST_P(StoreWebhooksTest, AJobsDeliveriesGoInOrderAndOneAtATimeAJobAndEndpoint) {
  WebhookEndpoint e = AddEndpoint(project_);
  Job a = Create(project_);
  Job b = Create(project_);
  ASSERT_TRUE(store_->ArchiveJob(Scope{org_.id, project_.id}, a.id).ok());  // a: 2 events
  auto first = Claim("w1");
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->event.job_id, a.id);
  EXPECT_EQ(first->event.sequence, 1);
  // a's first is in flight: its second waits; b's goes at once.
  auto second = Claim("w2");
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->event.job_id, b.id);
  EXPECT_FALSE(Claim("w3").has_value()) << "a's second waits for its first";
  Deliver(*second, "w2");
  EXPECT_FALSE(Claim("w3").has_value());
  Deliver(*first, "w1");
  auto third = Claim("w3");
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->event.job_id, a.id);
  EXPECT_EQ(third->event.sequence, 2);
  Deliver(*third, "w3");
  EXPECT_FALSE(Claim().has_value());
}

TEST_P(StoreWebhooksTest, AFailedDeliveryHoldsItsJobsLaterEventsUntilItsRetry) {
  WebhookEndpoint e = AddEndpoint(project_);
  Job a = Create(project_);
  ASSERT_TRUE(store_->ArchiveJob(Scope{org_.id, project_.id}, a.id).ok());
  auto first = Claim();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(Fail(*first, milliseconds(300)), Store::DeliveryRecorded::kRecorded);
  // Its retry is not due, and the job's second event waits behind it.
  EXPECT_FALSE(Claim().has_value());
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto again = store_->ClaimWebhookDelivery("w", milliseconds(60000));
    if (!again.ok() || !*again) return false;
    EXPECT_EQ((*again)->event.sequence, 1);
    EXPECT_EQ((*again)->attempts, 1);
    EXPECT_TRUE((*again)->first_failed_at.has_value());
    Deliver(**again);
    return true;
  }));
  auto second = Claim();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->event.sequence, 2);
  auto log = store_->ListWebhookDeliveries(e.id, 10);
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 2u);
  const WebhookDelivery& delivered = log->back();  // newest first
  EXPECT_EQ(delivered.EventId(), a.id + ".1");
  EXPECT_EQ(delivered.state, WebhookDelivery::State::kDelivered);
  EXPECT_EQ(delivered.attempts, 2);
  EXPECT_EQ(delivered.last_status, 204);
}

TEST_P(StoreWebhooksTest, FailingPastTheLimitDisablesTheEndpointUntilEnabled) {
  WebhookEndpoint e = AddEndpoint(project_);
  Create(project_);
  auto d = Claim();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(Fail(*d, milliseconds(0), milliseconds(0)), Store::DeliveryRecorded::kEndpointDisabled);
  auto read = store_->GetWebhook(e.id);
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->enabled);
  ASSERT_TRUE(read->disabled_reason.has_value());
  EXPECT_NE(read->disabled_reason->find("503"), std::string::npos) << *read->disabled_reason;
  EXPECT_FALSE(Claim().has_value()) << "a disabled endpoint's deliveries wait";
  Create(project_);  // an event while disabled is not queued for it
  auto enabled = store_->EnableWebhook(e.id);
  ASSERT_TRUE(enabled.ok());
  EXPECT_TRUE(enabled->enabled);
  EXPECT_FALSE(enabled->disabled_reason.has_value());
  auto again = Claim();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->id, d->id);
  EXPECT_FALSE(again->first_failed_at.has_value()) << "its failures are forgotten";
}

TEST_P(StoreWebhooksTest, AnExpiredLeaseIsTakenOverAndTheOldWorkerRecordsNothing) {
  AddEndpoint(project_);
  Create(project_);
  auto d = Claim(*store_, "crashed", milliseconds(100));
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(Claim("other").has_value());
  std::optional<ClaimedDelivery> taken;
  ASSERT_TRUE(testing::WaitUntil([&] { return (taken = Claim("other")).has_value(); }));
  EXPECT_EQ(taken->id, d->id);
  EXPECT_EQ(Fail(*d, milliseconds(0), std::chrono::hours(24), "crashed"),
            Store::DeliveryRecorded::kLeaseLost);
  Deliver(*taken, "other");
}

TEST_P(StoreWebhooksTest, RotationKeepsThePreviousSecretForADay) {
  WebhookEndpoint e = AddEndpoint(project_);
  const std::string next = NewWebhookSecret();
  auto rotated = store_->RotateWebhookSecret(e.id, next);
  ASSERT_TRUE(rotated.ok()) << rotated.status().message();
  EXPECT_EQ(rotated->secret, next);
  EXPECT_EQ(rotated->previous_secret, e.secret);
  ASSERT_TRUE(rotated->previous_secret_expires_at.has_value());
  EXPECT_GT(*rotated->previous_secret_expires_at, NowMillis() + 23 * 3600 * 1000);
  Create(project_);
  auto d = Claim();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->secrets, (std::vector<std::string>{next, e.secret}));
}

TEST_P(StoreWebhooksTest, AProjectHasAtMostItsLimitOfEndpointsAndRemovalTakesTheirDeliveries) {
  std::vector<WebhookEndpoint> made;
  for (int i = 0; i < kMaxWebhooksPerProject; ++i) made.push_back(AddEndpoint(project_));
  WebhookEndpoint e;
  e.project_id = project_.id;
  e.url = "https://hooks.example/one-too-many";
  e.events = DefaultWebhookEvents();
  e.secret = NewWebhookSecret();
  EXPECT_EQ(store_->CreateWebhook(e).status().code(), Code::kResourceExhausted);
  e.project_id = "no-such-project";
  EXPECT_EQ(store_->CreateWebhook(e).status().code(), Code::kNotFound);
  Create(project_);
  for (const WebhookEndpoint& m : made) ASSERT_TRUE(store_->DeleteWebhook(m.id).ok());
  EXPECT_FALSE(Claim().has_value());
  EXPECT_EQ(store_->DeleteWebhook(made[0].id).code(), Code::kNotFound);
  auto list = store_->ListWebhooks(project_.id);
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->empty());
}

TEST_P(StoreWebhooksTest, TwoNodesClaimingAtOnceDeliverEachEventOnce) {
  auto other_node = Open();
  for (int i = 0; i < 4; ++i) AddEndpoint(project_);
  for (int i = 0; i < 10; ++i) Create(project_);
  std::mutex mu;
  std::multiset<std::string> delivered;  // endpoint id + event id
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      Store& node = t % 2 == 0 ? *store_ : *other_node;
      const std::string worker = "node" + std::to_string(t % 2) + "/" + std::to_string(t);
      for (int idle = 0; idle < 50;) {
        auto c = node.ClaimWebhookDelivery(worker, milliseconds(60000));
        ASSERT_TRUE(c.ok()) << c.status().message();
        if (!*c) {
          ++idle;
          std::this_thread::sleep_for(milliseconds(5));
          continue;
        }
        idle = 0;
        {
          std::lock_guard lock(mu);
          delivered.insert((*c)->endpoint_id + " " + EventId((*c)->event));
        }
        auto r = node.FinishWebhookDelivery((*c)->id, worker,
                                            DeliveryAttempt{.delivered = true, .status = 200},
                                            std::chrono::hours(24));
        ASSERT_TRUE(r.ok()) << r.status().message();
        ASSERT_EQ(*r, Store::DeliveryRecorded::kRecorded);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(delivered.size(), 40u);
  EXPECT_EQ(std::set<std::string>(delivered.begin(), delivered.end()).size(), 40u)
      << "no delivery twice";
}

TEST_P(StoreWebhooksTest, DeletingTheProjectRemovesItsEndpointsAndDeliveries) {
  AddEndpoint(project_);
  Job j = Create(project_);
  ASSERT_TRUE(store_->ArchiveJob(Scope{org_.id, project_.id}, j.id).ok());
  ASSERT_TRUE(store_->DeleteProject(Scope{org_.id, project_.id}).ok());
  auto list = store_->ListWebhooks(project_.id);
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->empty());
  EXPECT_FALSE(Claim().has_value());
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreWebhooksTest, ::testing::Values("sqlite", "postgres"));

}  // namespace
}  // namespace docwright
