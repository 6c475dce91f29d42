#include "http/client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "fakes/scripted_http_server.h"
#include "support/loopback_http_server.h"

namespace docwright::http {
namespace {

using std::chrono::milliseconds;
using testing::CannedResponse;
using testing::ScriptedHttpServer;

// A policy whose waits are recorded instead of slept.
struct RecordedWaits {
  std::vector<milliseconds> waits;
  RetryPolicy Policy(int attempts) {
    RetryPolicy p;
    p.max_attempts = attempts;
    p.base_delay = milliseconds(100);
    p.max_delay = milliseconds(5000);
    p.sleep = [this](milliseconds d) {
      waits.push_back(d);
      return true;
    };
    return p;
  }
};

TEST(HttpClient, SendsTheRequestAsGivenAndReturnsTheReply) {
  ScriptedHttpServer server({{201, {{"X-Thing", "yes"}}, "{\"ok\":true}"}});
  Client client;
  Request r;
  r.method = "POST";
  r.url = server.Url("/repos/acme/docs/pulls?state=open");
  r.headers = {{"Authorization", "Bearer tok"}, {"Content-Type", "application/json"}};
  r.body = "{\"title\":\"x\"}";
  auto reply = client.Send(r);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->status, 201);
  EXPECT_EQ(reply->body, "{\"ok\":true}");
  EXPECT_EQ(reply->Header("x-thing"), "yes");
  auto got = server.Requests();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].method, "POST");
  EXPECT_EQ(got[0].target, "/repos/acme/docs/pulls?state=open");
  EXPECT_EQ(got[0].headers["authorization"], "Bearer tok");
  EXPECT_EQ(got[0].body, "{\"title\":\"x\"}");
}

// A server that answers every request with 200 "ok", keeping the connection.
testing::LoopbackHttpServer OkServer() {
  return testing::LoopbackHttpServer([](const testing::LoopbackRequest&) {
    return testing::LoopbackResponse{.status = 200, .body = "ok"};
  });
}

Result<Response> Get(Client& client, const std::string& url) {
  Request r;
  r.url = url;
  return client.Send(r);
}

TEST(HttpConnectionPoolTest, AClientMadeAfterAnotherSendsOnItsConnection) {
  auto server = OkServer();
  auto pool = std::make_shared<ConnectionPool>();
  for (int i = 0; i < 3; ++i) {
    Client client({.pool = pool});
    auto reply = Get(client, server.Url("/"));
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    EXPECT_EQ(reply->body, "ok");
  }
  EXPECT_EQ(server.connections(), 1u);
  EXPECT_EQ(pool->idle(), 1u);

  // Without a pool each client opens its own, and closes it when it goes.
  auto other = OkServer();
  for (int i = 0; i < 3; ++i) {
    Client client;
    ASSERT_TRUE(Get(client, other.Url("/")).ok());
  }
  EXPECT_EQ(other.connections(), 3u);
}

TEST(HttpConnectionPoolTest, AConnectionTheServerClosedIsReplacedWithoutAnError) {
  std::atomic<int> served{0};
  testing::LoopbackHttpServer server([&](const testing::LoopbackRequest&) {
    // The first reply keeps its connection alive, then the server closes it
    // unannounced, as one whose keep-alive ran out while the handle was pooled.
    return testing::LoopbackResponse{.status = 200, .body = "ok", .hang_up = served++ == 0};
  });
  auto pool = std::make_shared<ConnectionPool>();
  {
    Client client({.pool = pool});
    ASSERT_TRUE(Get(client, server.Url("/")).ok());
  }
  Client client({.pool = pool});
  Request post;
  post.method = "POST";
  post.url = server.Url("/v1/chat/completions");
  post.body = "{}";
  auto reply = client.Send(post);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(served.load(), 2);
  EXPECT_EQ(server.connections(), 2u);
}

TEST(HttpConnectionPoolTest, KeepsAtMostItsIdleHandles) {
  auto server = OkServer();
  auto pool = std::make_shared<ConnectionPool>(2);
  {
    std::vector<std::unique_ptr<Client>> clients;
    for (int i = 0; i < 4; ++i) {
      clients.push_back(std::make_unique<Client>(ClientOptions{.pool = pool}));
      ASSERT_TRUE(Get(*clients.back(), server.Url("/")).ok());
    }
    EXPECT_EQ(pool->idle(), 0u);  // all four in use
  }
  EXPECT_EQ(pool->idle(), 2u);
  EXPECT_EQ(server.connections(), 4u);
}

TEST(HttpConnectionPoolTest, AClientRefusingPrivateAddressesNeitherTakesNorGives) {
  auto server = OkServer();
  auto pool = std::make_shared<ConnectionPool>();
  {
    Client client({.pool = pool});
    ASSERT_TRUE(Get(client, server.Url("/")).ok());
  }
  ASSERT_EQ(pool->idle(), 1u);
  {
    // The pooled connection to 127.0.0.1 was opened without the check: this
    // client must not send on it, and is refused.
    Client refusing({.refuse_private_addresses = true, .pool = pool});
    EXPECT_EQ(pool->idle(), 1u);
    auto reply = Get(refusing, server.Url("/"));
    ASSERT_FALSE(reply.ok());
    EXPECT_NE(reply.status().message().find("private address"), std::string::npos)
        << reply.status().message();
  }
  EXPECT_EQ(pool->idle(), 1u);
  EXPECT_EQ(server.connections(), 1u);
}

TEST(HttpConnectionPoolTest, ClientsOnManyThreadsShareOnePool) {
  auto server = OkServer();
  auto pool = std::make_shared<ConnectionPool>();
  constexpr int kThreads = 8, kClients = 25;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kClients; ++i) {
        Client client({.pool = pool});
        if (Get(client, server.Url("/")).ok()) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kThreads * kClients);
  // Never more connections than clients at once.
  EXPECT_LE(server.connections(), static_cast<size_t>(kThreads));
  EXPECT_LE(pool->idle(), static_cast<size_t>(kThreads));
}

TEST(HttpClient, RetriesTransientFailuresWithGrowingJitteredWaits) {
  ScriptedHttpServer server({{503, {}, ""}, {502, {}, ""}, {500, {}, ""}, {200, {}, "done"}});
  Client client;
  RecordedWaits w;
  auto reply = client.SendWithRetries(Request{"GET", server.Url()}, w.Policy(5));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(server.Requests().size(), 4u);
  ASSERT_EQ(w.waits.size(), 3u);
  // Full jitter: each wait is at most base * 2^(retry-1).
  EXPECT_LE(w.waits[0], milliseconds(100));
  EXPECT_LE(w.waits[1], milliseconds(200));
  EXPECT_LE(w.waits[2], milliseconds(400));
}

TEST(HttpClient, HonoursRetryAfterUpToTheCap) {
  ScriptedHttpServer server(
      {{429, {{"Retry-After", "3"}}, ""}, {429, {{"Retry-After", "120"}}, ""}, {200, {}, ""}});
  Client client;
  RecordedWaits w;
  auto reply = client.SendWithRetries(Request{"GET", server.Url()}, w.Policy(5));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(w.waits, (std::vector<milliseconds>{milliseconds(3000), milliseconds(5000)}));
}

TEST(HttpClient, AServicesOwnRateLimitRepliesAreRetriedWithTheWaitTheyAskFor) {
  ScriptedHttpServer server({{403, {{"X-Limited", "2"}}, ""}, {403, {}, ""}, {200, {}, ""}});
  Client client;
  RecordedWaits w;
  RetryPolicy policy = w.Policy(5);
  policy.rate_limit_wait = [](const Response& r) -> std::optional<milliseconds> {
    if (r.Header("x-limited").empty()) return std::nullopt;
    return milliseconds(1000 * std::stoi(r.Header("x-limited")));
  };
  auto reply = client.SendWithRetries(Request{"GET", server.Url()}, policy);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->status, 403) << "a 403 that is not a rate limit ends the attempts";
  EXPECT_EQ(w.waits, (std::vector<milliseconds>{milliseconds(2000)}));
  EXPECT_EQ(server.Requests().size(), 2u);
}

TEST(HttpClient, GivesUpAfterMaxAttemptsAndNeverRetriesClientErrors) {
  {
    ScriptedHttpServer server({{503, {}, "a"}, {503, {}, "b"}, {503, {}, "c"}, {200, {}, ""}});
    Client client;
    RecordedWaits w;
    auto reply = client.SendWithRetries(Request{"GET", server.Url()}, w.Policy(3));
    ASSERT_TRUE(reply.ok());
    EXPECT_EQ(reply->status, 503);
    EXPECT_EQ(reply->body, "c");
    EXPECT_EQ(server.Requests().size(), 3u);
  }
  for (int status : {400, 401, 403, 404, 409, 422}) {
    ScriptedHttpServer server({{status, {}, ""}, {200, {}, ""}});
    Client client;
    RecordedWaits w;
    auto reply = client.SendWithRetries(Request{"GET", server.Url()}, w.Policy(5));
    EXPECT_EQ(reply->status, status);
    EXPECT_EQ(server.Requests().size(), 1u) << status;
  }
}

TEST(HttpClient, CancelledWaitStopsRetrying) {
  ScriptedHttpServer server({{503, {}, ""}, {200, {}, ""}});
  Client client;
  RetryPolicy p;
  p.max_attempts = 5;
  p.sleep = [](milliseconds) { return false; };
  auto reply = client.SendWithRetries(Request{"GET", server.Url()}, p);
  EXPECT_EQ(reply->status, 503);
  EXPECT_EQ(server.Requests().size(), 1u);
}

TEST(HttpClient, ACancelledRequestIsAbandonedWithoutItsReplyOrARetry) {
  ScriptedHttpServer server({{200, {}, "late", std::chrono::minutes(10)}, {200, {}, ""}});
  Client client;
  Request request{"GET", server.Url()};
  // Cancelled as soon as the server has the request, long before it answers.
  request.cancelled = [&server] { return !server.Requests().empty(); };
  RecordedWaits w;
  auto r = client.SendWithRetries(request, w.Policy(5));
  ASSERT_FALSE(r.ok()) << "the reply was awaited";
  EXPECT_EQ(r.status().code(), Code::kUnavailable);
  EXPECT_NE(r.status().message().find("cancelled"), std::string::npos) << r.status().message();
  EXPECT_TRUE(w.waits.empty()) << "no retry after a cancel";
  EXPECT_EQ(server.Requests().size(), 1u);

  // Cancelled before it starts: nothing is sent.
  Request never{"GET", server.Url()};
  never.cancelled = [] { return true; };
  auto none = client.SendWithRetries(never, w.Policy(5));
  EXPECT_EQ(none.status().code(), Code::kUnavailable);
  EXPECT_EQ(server.Requests().size(), 1u) << "nothing more was sent";
}

// on_sent is called once the body is sent whole, while the reply is awaited:
// the server here answers only once it was called (or after 10 s, noted). Once
// over a request's attempts; never for a request without a body.
TEST(HttpClient, OnSentIsCalledOnceTheBodyIsSentWholeBeforeTheReply) {
  std::mutex mu;
  std::condition_variable cv;
  int sent = 0;
  std::vector<bool> sent_before_reply;
  testing::LoopbackHttpServer server([&](const testing::LoopbackRequest& r) {
    std::unique_lock lock(mu);
    bool told = cv.wait_for(lock, std::chrono::seconds(10), [&] { return sent > 0; });
    sent_before_reply.push_back(told);
    // The first of two attempts is refused, to be tried again.
    return testing::LoopbackResponse{.status = sent_before_reply.size() == 1 ? 503 : 200,
                                     .body = r.body};
  });
  Client client;
  Request request{"POST", server.Url("/v1/chat/completions")};
  request.body = std::string(256 << 10, 'x');  // more than a socket takes at once
  request.on_sent = [&] {
    std::lock_guard lock(mu);
    ++sent;
    cv.notify_all();
  };
  RecordedWaits w;
  auto r = client.SendWithRetries(request, w.Policy(3));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), request.body.size());
  EXPECT_EQ(w.waits.size(), 1u) << "two attempts";
  EXPECT_EQ(sent_before_reply, (std::vector<bool>{true, true})) << "told before each reply";
  EXPECT_EQ(sent, 1) << "once over the attempts";

  // What on_sent throws abandons the exchange and comes out of Send; the
  // client's connection handle serves its next request.
  Request throwing = request;
  throwing.on_sent = [] { throw std::runtime_error("the store is gone"); };
  EXPECT_THROW((void)client.Send(throwing), std::runtime_error);  // throws: no result to read
  auto after = client.Send(request);
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after->status, 200);

  // A request without a body is never told (the server answers it at once).
  Request get{"GET", server.Url("/")};
  int got = 0;
  get.on_sent = [&] { ++got; };
  ASSERT_TRUE(client.Send(get).ok());
  EXPECT_EQ(got, 0);
}

TEST(HttpClient, NetworkFailuresTimeoutsAndHugeBodiesAreClearErrors) {
  Client client;
  Request refused{"GET", "http://user:secret@127.0.0.1:1/private/path?token=abc"};
  RecordedWaits w;
  auto r = client.SendWithRetries(refused, w.Policy(3));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnavailable);
  EXPECT_EQ(w.waits.size(), 2u) << "network errors are retried";
  EXPECT_NE(r.status().message().find("http://127.0.0.1:1"), std::string::npos)
      << r.status().message();
  for (const char* secret : {"secret", "token=abc", "private"}) {
    EXPECT_EQ(r.status().message().find(secret), std::string::npos) << r.status().message();
  }

  ScriptedHttpServer slow({{200, {}, "late", milliseconds(1500)}});
  Request timed{"GET", slow.Url()};
  timed.timeout = milliseconds(200);
  auto t = client.Send(timed);
  EXPECT_EQ(t.status().code(), Code::kUnavailable) << (t.ok() ? "answered" : t.status().message());

  ScriptedHttpServer big({{200, {}, std::string(100000, 'x')}, {200, {}, ""}});
  Request bounded{"GET", big.Url()};
  bounded.max_response_bytes = 1000;
  RecordedWaits none;
  auto b = client.SendWithRetries(bounded, none.Policy(3));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("larger than 1000 bytes"), std::string::npos);
  EXPECT_TRUE(none.waits.empty()) << "a body too large is not transient";
}

using Clock = std::chrono::steady_clock;
using testing::LoopbackHttpServer;
using testing::LoopbackRequest;
using testing::LoopbackResponse;

// A server answering every request with a stream of `pieces`.
LoopbackHttpServer StreamingServer(std::vector<LoopbackResponse::Piece> pieces,
                                   bool broken = false) {
  return LoopbackHttpServer([pieces, broken](const LoopbackRequest&) {
    LoopbackResponse r;
    r.headers = {{"Content-Type", "text/event-stream"}};
    r.stream = pieces;
    r.broken = broken;
    return r;
  });
}

TEST(HttpClient, AStreamedBodyIsHandedOverPieceByPieceAsItArrives) {
  LoopbackHttpServer server = StreamingServer(
      {{milliseconds(0), "one"}, {milliseconds(300), "two"}, {milliseconds(300), "three"}});
  Client client;
  Request r{"GET", server.Url("/events")};
  r.timeout = milliseconds(0);  // no limit on the whole exchange
  std::string got;
  std::vector<Clock::time_point> when;
  r.on_body = [&](std::string_view piece) {
    got.append(piece);
    when.push_back(Clock::now());
    return true;
  };
  auto reply = client.Send(r);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->Header("content-type"), "text/event-stream");
  EXPECT_EQ(got, "onetwothree");
  EXPECT_TRUE(reply->body.empty()) << "handed over, not collected";
  ASSERT_GE(when.size(), 3u);
  EXPECT_GE(when.back() - when.front(), milliseconds(500)) << "each piece as it came";
}

TEST(HttpClient, AStreamEndsCleanlyWhenTheCallerHasEnough) {
  LoopbackHttpServer server =
      StreamingServer({{milliseconds(0), "first"}, {std::chrono::minutes(10), "never"}});
  Client client;
  Request r{"GET", server.Url()};
  r.timeout = milliseconds(0);
  int pieces = 0;
  r.on_body = [&](std::string_view) { return ++pieces < 1; };
  auto start = Clock::now();
  auto reply = client.Send(r);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(pieces, 1);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

TEST(HttpClient, AStreamLivesAsLongAsBytesKeepComingAndNoLongerThanItsIdleTimeout) {
  // A byte every 300 ms for 3 s, with a whole-exchange timeout of 0 and an
  // idle timeout of 1 s: it lives to its end.
  std::vector<LoopbackResponse::Piece> steady;
  for (int i = 0; i < 10; ++i) steady.push_back({milliseconds(300), ":"});
  LoopbackHttpServer lively = StreamingServer(steady);
  Client client;
  Request r{"GET", lively.Url()};
  r.timeout = milliseconds(0);
  r.idle_timeout = milliseconds(1000);
  std::string got;
  r.on_body = [&](std::string_view piece) {
    got.append(piece);
    return true;
  };
  auto reply = client.Send(r);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(got, std::string(10, ':'));

  // Silent after its first piece: Unavailable, within the idle timeout and
  // libcurl's few seconds of averaging.
  LoopbackHttpServer silent =
      StreamingServer({{milliseconds(0), "hello"}, {std::chrono::minutes(10), "late"}});
  Request quiet{"GET", silent.Url()};
  quiet.timeout = milliseconds(0);
  quiet.idle_timeout = milliseconds(1000);
  quiet.on_body = [](std::string_view) { return true; };
  auto start = Clock::now();
  auto idle = client.Send(quiet);
  ASSERT_FALSE(idle.ok());
  EXPECT_EQ(idle.status().code(), Code::kUnavailable);
  EXPECT_NE(idle.status().message().find("sent nothing for 1 s"), std::string::npos)
      << idle.status().message();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
}

TEST(HttpClient, AStreamThatBreaksOffIsUnavailableAndAnErrorReplyIsCollected) {
  LoopbackHttpServer broken = StreamingServer({{milliseconds(0), "partial"}}, /*broken=*/true);
  Client client;
  Request r{"GET", broken.Url()};
  r.timeout = milliseconds(0);
  std::string got;
  r.on_body = [&](std::string_view piece) {
    got.append(piece);
    return true;
  };
  auto reply = client.Send(r);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), Code::kUnavailable);
  EXPECT_NE(reply.status().message().find("broke off"), std::string::npos)
      << reply.status().message();
  EXPECT_EQ(got, "partial");

  ScriptedHttpServer refusing({{404, {}, "{\"error\":\"job not found\"}"}});
  Request missing{"GET", refusing.Url()};
  bool streamed = false;
  missing.on_body = [&](std::string_view) { return streamed = true; };
  auto answer = client.Send(missing);
  ASSERT_TRUE(answer.ok()) << answer.status().message();
  EXPECT_EQ(answer->status, 404);
  EXPECT_EQ(answer->body, "{\"error\":\"job not found\"}");
  EXPECT_FALSE(streamed) << "only a 2xx body is streamed";
}

TEST(HttpClient, RetryAfterParsingAndDelayBounds) {
  EXPECT_EQ(ParseRetryAfter("7"), milliseconds(7000));
  EXPECT_FALSE(ParseRetryAfter(""));
  EXPECT_FALSE(ParseRetryAfter("-1"));
  EXPECT_FALSE(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"));
  RetryPolicy p;
  p.base_delay = milliseconds(500);
  p.max_delay = milliseconds(30000);
  for (uint64_t rnd : {uint64_t{0}, uint64_t{12345}, ~uint64_t{0}}) {
    EXPECT_LE(RetryDelay(1, p, std::nullopt, rnd), milliseconds(500));
    EXPECT_LE(RetryDelay(10, p, std::nullopt, rnd), milliseconds(30000));
    EXPECT_LE(RetryDelay(1000, p, std::nullopt, rnd), milliseconds(30000));
  }
  EXPECT_EQ(RetryDelay(1, p, milliseconds(60000000), 0), milliseconds(30000));
}

}  // namespace
}  // namespace docwright::http
