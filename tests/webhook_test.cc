// Webhooks' pure parts (core/webhook.h): the Standard Webhooks signature,
// checked against an implementation of the specification written here with
// OpenSSL directly; secrets, event lists, URLs, the retry schedule; and the
// addresses the HTTP client refuses when it refuses private ones.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <set>

#include "core/text.h"
#include "core/webhook.h"
#include "http/client.h"

namespace docwright {
namespace {

// The specification's algorithm, independently: HMAC-SHA256 keyed with the
// base64-decoded part of the secret after "whsec_", over "id.timestamp.body",
// base64 (standard alphabet, padded), after "v1,".
std::string SpecSignature(const std::string& secret, const std::string& id, int64_t ts,
                          const std::string& body) {
  std::string key = *Base64Decode(secret.substr(6));
  std::string content = id + "." + std::to_string(ts) + "." + body;
  unsigned char mac[32];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(content.data()), content.size(), mac, &len);
  unsigned char b64[64];
  int n = EVP_EncodeBlock(b64, mac, static_cast<int>(len));
  return "v1," + std::string(reinterpret_cast<char*>(b64), n);
}

TEST(WebhookSignature, IsTheStandardWebhooksSignature) {
  // The example of the specification's reference libraries.
  const std::string secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const std::string id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  const std::string body = R"({"test": 2432232314})";
  EXPECT_EQ(WebhookSignature(secret, id, 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  EXPECT_EQ(WebhookSignature(secret, id, 1614265330, body),
            SpecSignature(secret, id, 1614265330, body));
}

TEST(WebhookSignature, OneSignatureASecretSpaceSeparated) {
  const std::string a = NewWebhookSecret(), b = NewWebhookSecret();
  EXPECT_EQ(WebhookSignatureHeader({a, b}, "j.1", 42, "{}"),
            SpecSignature(a, "j.1", 42, "{}") + " " + SpecSignature(b, "j.1", 42, "{}"));
  EXPECT_EQ(WebhookSignatureHeader({"not a secret", a}, "j.1", 42, "{}"),
            SpecSignature(a, "j.1", 42, "{}"));
  EXPECT_FALSE(WebhookSignature("whsec_", "j.1", 42, "{}").has_value());
}

TEST(WebhookSecret, IsWhsecAndTheBase64Of24RandomBytes) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string s = NewWebhookSecret();
    ASSERT_TRUE(s.starts_with("whsec_"));
    auto key = WebhookSecretKey(s);
    ASSERT_TRUE(key.has_value());
    EXPECT_EQ(key->size(), 24u);
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(WebhookEvents, ListsAreCheckedAgainstTheVocabulary) {
  auto parsed = ParseWebhookEvents(" job.failed,job.completed , job.failed");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, (std::vector<EventType>{EventType::kJobCompleted, EventType::kJobFailed}));
  auto unknown = ParseWebhookEvents("job.completed,job.exploded");
  EXPECT_EQ(unknown.status().code(), Code::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("job.exploded"), std::string::npos);
  EXPECT_EQ(ParseWebhookEvents(" , ").status().code(), Code::kInvalidArgument);
  std::vector<EventType> all = DefaultWebhookEvents();
  EXPECT_EQ(all.size(), AllEventTypes().size() - 1);
  for (EventType t : all) EXPECT_NE(t, EventType::kTurnStep);
  EXPECT_EQ(ParseWebhookEventsText(WebhookEventsText(all)), all);
}

TEST(WebhookUrl, MustBeHttpOrHttpsBoundedWithoutCredentials) {
  EXPECT_TRUE(CheckWebhookUrl("https://hooks.example.com/docwright?x=1").ok());
  EXPECT_TRUE(CheckWebhookUrl("http://127.0.0.1:9000/hook").ok());
  for (const char* bad : {"ftp://hooks.example.com/", "hooks.example.com/x", "https://",
                          "https://user:pw@hooks.example.com/", "https://a b.example/",
                          "file:///etc/passwd", "https://hooks.example.com/\n"}) {
    EXPECT_EQ(CheckWebhookUrl(bad).code(), Code::kInvalidArgument) << bad;
  }
  EXPECT_EQ(CheckWebhookUrl("https://hooks.example.com/" + std::string(2100, 'a')).code(),
            Code::kInvalidArgument);
}

TEST(WebhookRetryDelay, FullJitterOverADoublingBackoffCappedAtAnHour) {
  WebhookRetryPolicy p;  // 5 s doubling, capped at an hour
  auto ms = [](int64_t n) { return std::chrono::milliseconds(n); };
  EXPECT_EQ(WebhookRetryDelay(1, p, UINT64_MAX), ms(UINT64_MAX % 5001));
  EXPECT_EQ(WebhookRetryDelay(1, p, 5000), ms(5000));
  EXPECT_EQ(WebhookRetryDelay(1, p, 5001), ms(0));
  EXPECT_EQ(WebhookRetryDelay(2, p, 10000), ms(10000));
  EXPECT_EQ(WebhookRetryDelay(3, p, 20000), ms(20000));
  EXPECT_EQ(WebhookRetryDelay(11, p, 3600000), ms(3600000));  // 5 s * 2^10 > 1 h
  EXPECT_EQ(WebhookRetryDelay(1000, p, 3600000), ms(3600000));
  for (int64_t failures = 1; failures < 40; ++failures) {
    for (uint64_t r : {0ull, 1ull, 12345678901ull, ~0ull}) {
      EXPECT_LE(WebhookRetryDelay(failures, p, r), std::chrono::hours(1));
    }
  }
}

TEST(PrivateAddresses, LoopbackPrivateLinkLocalMulticastAndTheirMappedFormsAreRefused) {
  for (const char* ip : {"127.0.0.1",
                         "127.1.2.3",
                         "10.0.0.1",
                         "172.16.0.1",
                         "172.31.255.255",
                         "192.168.1.1",
                         "169.254.169.254",
                         "0.0.0.0",
                         "100.64.0.1",
                         "224.0.0.1",
                         "255.255.255.255",
                         "::",
                         "::1",
                         "fc00::1",
                         "fd12:3456::1",
                         "fe80::1",
                         "febf::1",
                         "ff02::1",
                         "::ffff:127.0.0.1",
                         "::ffff:10.1.2.3",
                         "::ffff:169.254.169.254",
                         "::127.0.0.1",
                         "64:ff9b::a00:1"}) {
    EXPECT_TRUE(http::IsPrivateAddress(ip)) << ip;
  }
  for (const char* ip : {"93.184.216.34", "8.8.8.8", "172.32.0.1", "192.169.0.1",
                         "2606:2800:220:1:248:1893:25c8:1946", "::ffff:8.8.8.8", "not an ip"}) {
    EXPECT_FALSE(http::IsPrivateAddress(ip)) << ip;
  }
}

}  // namespace
}  // namespace docwright
