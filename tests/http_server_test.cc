// The HTTP server under the real binary: malformed and slow clients, Expect:
// 100-continue, bodies refused unread, HEAD, keep-alive.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include <atomic>
#include <regex>
#include <set>
#include <thread>

#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;

using HttpServerTest = ServiceTest;

TEST_F(HttpServerTest, MalformedHttpIsAnsweredAndTheServerCarriesOn) {
  HttpResult garbage = client_->SendRaw("THIS IS NOT HTTP\r\n\r\n");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_EQ(garbage.Json()["code"], "bad_request");
  std::string big_header =
      "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20 << 10, 'a') + "\r\n\r\n";
  EXPECT_EQ(client_->SendRaw(big_header).status, 431);
  // Headers under the limit but over a typical buffer are fine.
  std::string fair_header =
      "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Fair: " + std::string(12 << 10, 'a') + "\r\n\r\n";
  EXPECT_EQ(client_->SendRaw(fair_header).status, 200);
  EXPECT_EQ(client_->Send("GET", "/healthz").status, 200);
}

TEST_F(HttpServerTest, SlowClientsAreCutOffAndOthersAreServed) {
  server_->Terminate();
  StartServer(kScripted, {"--request-timeout", "1"});
  // A client that sends half a request and then nothing.
  int fd = ConnectLoopback(server_->port(), std::chrono::seconds(5));
  ASSERT_GE(fd, 0);
  std::string partial = "POST " + Jobs(project_a_) +
                        " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key_a_ +
                        "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
  ASSERT_EQ(write(fd, partial.data(), partial.size()), static_cast<ssize_t>(partial.size()));
  EXPECT_EQ(client_->Send("GET", "/healthz").status, 200) << "others are served meanwhile";
  char buf[256];
  auto t0 = std::chrono::steady_clock::now();
  ssize_t n = read(fd, buf, sizeof buf);  // 0 (closed) once the timeout hits
  EXPECT_LE(n, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(4000));
  close(fd);
  EXPECT_EQ(client_->Send("GET", "/healthz").status, 200);
}

TEST_F(HttpServerTest, ExpectContinueGetsTheGoAheadBeforeTheBody) {
  // A client that waits for "100 Continue" before sending the body, as curl and
  // many HTTP libraries do for larger bodies.
  std::string body = Prompt("Document the CLI [nochange]");
  int fd = ConnectLoopback(server_->port(), std::chrono::seconds(5));
  ASSERT_GE(fd, 0);
  std::string head = "POST " + Jobs(project_a_) + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                     key_a_ + "\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n" +
                     "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  ASSERT_EQ(write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n).rfind("HTTP/1.1 100 Continue\r\n\r\n", 0), 0u)
      << std::string(buf, n);
  ASSERT_EQ(write(fd, body.data(), body.size()), static_cast<ssize_t>(body.size()));
  n = read(fd, buf, sizeof buf);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n).rfind("HTTP/1.1 201", 0), 0u) << std::string(buf, n);
  close(fd);
}

TEST_F(HttpServerTest, BodiesOfUnauthenticatedRequestsAreRefusedBeforeTheyAreRead) {
  // The answer comes from the header alone: the body is never sent.
  for (const std::string& auth :
       {std::string(), "Authorization: Bearer dw_" + std::string(43, 'Q') + "\r\n"}) {
    int fd = ConnectLoopback(server_->port(), std::chrono::seconds(5));
    ASSERT_GE(fd, 0);
    std::string head = "POST " + Jobs(project_a_) + " HTTP/1.1\r\nHost: x\r\n" + auth +
                       "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n";
    ASSERT_EQ(write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    ASSERT_GT(n, 0);
    std::string answer(buf, n);
    EXPECT_EQ(answer.rfind("HTTP/1.1 401", 0), 0u) << answer;
    EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
    close(fd);
  }
  EXPECT_EQ(client_->Send("GET", "/healthz").status, 200);
}

TEST_F(HttpServerTest, HeadIsGetWithoutTheBody) {
  std::string id = CreateJob("x [nochange]")["id"];
  WaitForEnd(id);  // the job no longer changes between the GET and the HEAD
  HttpResult get = Get(Job(project_a_, id), key_a_);
  HttpResult head = client_->Send("HEAD", Job(project_a_, id), "", Auth(key_a_));
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(head.Header("content-length"), std::to_string(get.body.size()));
  // The connection is still in step: the next request gets its own answer.
  EXPECT_EQ(Get(Job(project_a_, id), key_a_).Json()["id"], id);
  EXPECT_EQ(client_->connections_opened(), 1);
  // A request refused from its header alone, right after a HEAD, has its body.
  client_->Send("HEAD", Job(project_a_, id), "", Auth(key_a_));
  HttpResult refused = Post(Jobs(project_a_), Prompt("x"), "dw_" + std::string(43, 'N'));
  ExpectError(refused, 401, "refused after HEAD");
}

TEST_F(HttpServerTest, KeepAliveServesManyRequestsOnOneConnection) {
  std::string id = CreateJob("x [nochange]")["id"];
  for (int i = 0; i < 200; ++i) ASSERT_EQ(Get(Job(project_a_, id), key_a_).status, 200);
  EXPECT_EQ(client_->connections_opened(), 1);
}

}  // namespace
}  // namespace docwright::testing
