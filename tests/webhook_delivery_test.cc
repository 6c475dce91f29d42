// Webhooks end to end, against the real binary over loopback: endpoints added
// with `project webhook add`, jobs run by the scripted agent, and receivers
// (support/webhook_receiver.h) that verify every delivery with their own
// implementation of Standard Webhooks, and check order per job and
// deduplication by webhook-id.
#include <gtest/gtest.h>

#include <thread>

#include "support/service_fixture.h"
#include "support/webhook_receiver.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;

// Quick retries, a short deadline; loopback receivers allowed.
const std::vector<std::string> kFastWebhooks = {
    "--lease-seconds",   "1", "--webhook-allow-private", "--webhook-retry-base", "0.05",
    "--webhook-timeout", "2"};

class WebhookTest : public ServiceTest {
 protected:
  void StartDefaultServer() override { StartServer(kScripted, kFastWebhooks); }

  struct Endpoint {
    std::string id, secret;
  };

  Endpoint AddEndpoint(const std::string& url, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"project", "webhook", "add",   project_a_,
                                     "--url",   url,       "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult r = Admin(args);
    json made = json::parse(r.out, nullptr, false);
    EXPECT_TRUE(made.is_object()) << r.out << r.err;
    if (!made.is_object()) return {};
    EXPECT_TRUE(made["secret"].get<std::string>().starts_with("whsec_"));
    return {made["id"], made["secret"]};
  }

  json Deliveries(const std::string& endpoint) {
    return json::parse(Admin({"project", "webhook", "deliveries", endpoint, "--json"}).out);
  }

  // The job's events a default endpoint takes (all but turn.step), from the database.
  int64_t EventsFor(const std::string& job_id) {
    return Count("SELECT COUNT(*) FROM events WHERE job_id = '" + job_id +
                 "' AND type <> 'turn.step'");
  }

  static std::vector<std::string> Ids(const std::vector<json>& events) {
    std::vector<std::string> out;
    for (const json& e : events) out.push_back(e["id"]);
    return out;
  }
};

TEST_F(WebhookTest, EveryEventIsDeliveredSignedOnceInOrderPerJob) {
  WebhookReceiver receiver({});
  Endpoint e = AddEndpoint(receiver.Url());
  receiver.AddSecret(e.secret);
  std::vector<std::string> jobs;
  for (int i = 0; i < 3; ++i) jobs.push_back(CreateJob("Fix typo " + std::to_string(i))["id"]);
  int64_t expected = 0;
  for (const std::string& id : jobs) {
    EXPECT_EQ(WaitForEnd(id)["status"], "completed");
    expected += EventsFor(id);
  }
  ASSERT_GE(expected, 3 * 4);  // created, turn started and ended, pull request, completed
  ASSERT_TRUE(receiver.WaitForAccepted(expected)) << server_->Log();
  EXPECT_EQ(receiver.Problems(), std::vector<std::string>{});
  std::vector<json> accepted = receiver.Accepted();
  EXPECT_EQ(accepted.size(), static_cast<size_t>(expected));
  for (const json& event : accepted) {
    EXPECT_NE(event["type"], "turn.step") << "turn.step is off by default";
    EXPECT_EQ(event["projectId"], project_a_);
    EXPECT_EQ(event["id"], event["jobId"].get<std::string>() + "." +
                               std::to_string(event["sequence"].get<int64_t>()));
  }
  for (const WebhookReceiver::Delivery& d : receiver.Requests()) {
    EXPECT_EQ(d.signatures, 1) << d.signature;
  }
  json log = Deliveries(e.id);
  ASSERT_TRUE(log.is_array());
  for (const json& d : log) {
    EXPECT_EQ(d["state"], "delivered") << d;
    EXPECT_EQ(d["lastStatus"], 204);
  }
  // The endpoint is listed, never with its secret.
  CommandResult list = Admin({"project", "webhook", "list", project_a_, "--json"});
  EXPECT_EQ(list.out.find(e.secret), std::string::npos);
  EXPECT_EQ(json::parse(list.out)[0]["id"], e.id);
}

TEST_F(WebhookTest, OnlyTheEventTypesAskedForAreSent) {
  WebhookReceiver receiver({});
  Endpoint e = AddEndpoint(receiver.Url(), {"--events", "job.completed,turn.step"});
  receiver.AddSecret(e.secret);
  std::string id = CreateJob("Fix the typo")["id"];
  WaitForEnd(id);
  int64_t steps =
      Count("SELECT COUNT(*) FROM events WHERE job_id = '" + id + "' AND type = 'turn.step'");
  ASSERT_TRUE(receiver.WaitForAccepted(steps + 1)) << server_->Log();
  std::this_thread::sleep_for(milliseconds(300));
  std::vector<json> accepted = receiver.Accepted();
  ASSERT_EQ(accepted.size(), static_cast<size_t>(steps + 1));
  EXPECT_EQ(accepted.back()["type"], "job.completed");
  EXPECT_EQ(Admin({"project", "webhook", "add", project_a_, "--url", receiver.Url(), "--events",
                   "job.exploded"},
                  1)
                    .err.find("job.exploded") != std::string::npos,
            true);
}

TEST_F(WebhookTest, AReceiverFailingForAWhileGetsEverythingLaterInOrder) {
  WebhookReceiver receiver({});
  auto start = std::chrono::steady_clock::now();
  receiver.Respond([start](const WebhookReceiver::Delivery&, int) {
    return std::chrono::steady_clock::now() - start < milliseconds(2500) ? 503 : 200;
  });
  Endpoint e = AddEndpoint(receiver.Url());
  receiver.AddSecret(e.secret);
  std::vector<std::string> jobs;
  for (int i = 0; i < 2; ++i) jobs.push_back(CreateJob("Fix typo " + std::to_string(i))["id"]);
  int64_t expected = 0;
  for (const std::string& id : jobs) {
    WaitForEnd(id);
    expected += EventsFor(id);
  }
  ASSERT_TRUE(receiver.WaitForAccepted(expected, milliseconds(60000))) << server_->Log();
  EXPECT_EQ(receiver.Problems(), std::vector<std::string>{});
  EXPECT_GT(receiver.Requests().size(), static_cast<size_t>(expected)) << "some were retried";
  bool retried = false;
  for (const json& d : Deliveries(e.id)) {
    EXPECT_EQ(d["state"], "delivered") << d;
    retried = retried || d["attempts"].get<int>() > 1;
  }
  EXPECT_TRUE(retried);
}

TEST_F(WebhookTest, AHangingReceiverDoesNotDelayAnotherEndpoint) {
  WebhookReceiver hanging({}), quick({});
  hanging.Hold(true);
  Endpoint h = AddEndpoint(hanging.Url());
  Endpoint q = AddEndpoint(quick.Url());
  hanging.AddSecret(h.secret);
  quick.AddSecret(q.secret);
  std::string id = CreateJob("Fix the typo")["id"];
  WaitForEnd(id);
  const int64_t expected = EventsFor(id);
  // The hanging one holds a worker for its deadline (2 s) at each attempt; the
  // other gets everything meanwhile, while the hanging one still holds.
  ASSERT_TRUE(quick.WaitForAccepted(expected, milliseconds(60000))) << server_->Log();
  EXPECT_TRUE(hanging.Accepted().empty());
  EXPECT_EQ(quick.Problems(), std::vector<std::string>{});
  // Released, the hanging one gets everything too, in order.
  hanging.Hold(false);
  ASSERT_TRUE(hanging.WaitForAccepted(expected, milliseconds(30000))) << server_->Log();
  EXPECT_EQ(hanging.Problems(), std::vector<std::string>{});
  EXPECT_EQ(Ids(hanging.Accepted()), Ids(quick.Accepted()));
}

TEST_F(WebhookTest, RotationSignsWithBothSecretsForADay) {
  WebhookReceiver receiver({});
  Endpoint e = AddEndpoint(receiver.Url());
  json rotated = json::parse(Admin({"project", "webhook", "rotate-secret", e.id, "--json"}).out);
  const std::string next = rotated["secret"];
  ASSERT_NE(next, e.secret);
  EXPECT_FALSE(rotated["previousSecretValidUntil"].is_null());
  receiver.AddSecret(e.secret);
  receiver.AddSecret(next);
  std::string id = CreateJob("Fix the typo")["id"];
  WaitForEnd(id);
  ASSERT_TRUE(receiver.WaitForAccepted(EventsFor(id))) << server_->Log();
  EXPECT_EQ(receiver.Problems(), std::vector<std::string>{});
  for (const WebhookReceiver::Delivery& d : receiver.Requests()) {
    EXPECT_EQ(d.signatures, 2) << d.signature;
    EXPECT_EQ(d.valid_signatures, 2) << d.signature;
    // The new secret's signature first, each valid on its own.
    EXPECT_TRUE(
        d.signature.starts_with(StandardWebhookSignature(next, d.id, d.timestamp, d.body) + " " +
                                StandardWebhookSignature(e.secret, d.id, d.timestamp, d.body)));
  }
}

TEST_F(WebhookTest, TheTestCommandSendsASignedTestEventAtOnce) {
  WebhookReceiver receiver({});
  Endpoint e = AddEndpoint(receiver.Url());
  receiver.AddSecret(e.secret);
  CommandResult sent =
      Admin({"project", "webhook", "test", e.id, "--webhook-allow-private", "--json"});
  json result = json::parse(sent.out);
  EXPECT_EQ(result["delivered"], true);
  EXPECT_EQ(result["status"], 204);
  ASSERT_TRUE(receiver.WaitForAccepted(1));
  EXPECT_EQ(receiver.Accepted()[0]["type"], "webhook.test");
  EXPECT_EQ(receiver.Accepted()[0]["data"]["endpointId"], e.id);
  EXPECT_EQ(receiver.Problems(), std::vector<std::string>{});
}

class PrivateAddressTest : public WebhookTest {
 protected:
  // Private addresses refused, as by default.
  void StartDefaultServer() override {
    StartServer(kScripted,
                {"--lease-seconds", "1", "--webhook-retry-base", "0.05", "--webhook-timeout", "2"});
  }
};

TEST_F(PrivateAddressTest, ALoopbackReceiverIsRefusedAndTheRefusalRecorded) {
  WebhookReceiver receiver({});
  Endpoint e = AddEndpoint(receiver.Url());
  receiver.AddSecret(e.secret);
  WaitForEnd(CreateJob("Fix the typo")["id"]);
  json failed;
  ASSERT_TRUE(WaitUntil([&] {
    for (const json& d : Deliveries(e.id)) {
      if (d["lastError"].is_string()) failed = d;
    }
    return !failed.is_null();
  }));
  EXPECT_EQ(failed["state"], "pending");
  EXPECT_TRUE(failed["lastStatus"].is_null());
  EXPECT_NE(failed["lastError"].get<std::string>().find("127.0.0.1 is a private address"),
            std::string::npos)
      << failed;
  EXPECT_TRUE(receiver.Requests().empty());
  // `test` refuses it too, unless allowed.
  CommandResult refused = Admin({"project", "webhook", "test", e.id}, 1);
  EXPECT_NE(refused.out.find("private address"), std::string::npos) << refused.out;
  EXPECT_TRUE(receiver.Requests().empty());
}

TEST_F(WebhookTest, AnEndpointFailingPastTheLimitIsDisabledAndResumesWhenEnabled) {
  server_->Terminate();
  std::vector<std::string> args = kFastWebhooks;
  args.insert(args.end(), {"--webhook-disable-after", "1"});
  StartServer(kScripted, args);
  WebhookReceiver receiver({});
  std::atomic<bool> up{false};
  receiver.Respond([&](const WebhookReceiver::Delivery&, int) { return up ? 200 : 500; });
  Endpoint e = AddEndpoint(receiver.Url());
  receiver.AddSecret(e.secret);
  std::string id = CreateJob("Fix the typo")["id"];
  WaitForEnd(id);
  json endpoint;
  ASSERT_TRUE(WaitUntil([&] {
    endpoint = json::parse(Admin({"project", "webhook", "list", project_a_, "--json"}).out)[0];
    return endpoint["enabled"] == false;
  }));
  EXPECT_NE(endpoint["disabledReason"].get<std::string>().find("500"), std::string::npos)
      << endpoint;
  const size_t tried = receiver.Requests().size();
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(receiver.Requests().size(), tried) << "a disabled endpoint gets nothing";
  // What was queued before it was disabled (events written since are not).
  const int64_t queued =
      Count("SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = '" + e.id + "'");
  ASSERT_GE(queued, 1);
  up = true;
  Admin({"project", "webhook", "enable", e.id});
  ASSERT_TRUE(receiver.WaitForAccepted(queued)) << server_->Log();
  EXPECT_EQ(receiver.Problems(), std::vector<std::string>{});
}

}  // namespace
}  // namespace docwright::testing
