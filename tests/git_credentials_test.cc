// Credentials go only to the remote the project names: a server that redirects
// the fetch elsewhere never sees the token, while the remote itself is offered it.
#include <gtest/gtest.h>

#include <atomic>

#include "git/git.h"
#include "support/loopback_http_server.h"
#include "support/temp_dir.h"

namespace docwright::git {
namespace {

using testing::LoopbackHttpServer;
using testing::LoopbackRequest;
using testing::LoopbackResponse;

// A git server that wants a login: it counts the requests that carry one. The
// 401 has no body: libgit2 1.5 sometimes parses a 401's body, when it comes in a
// packet of its own, as the start of the next response ("http parser error").
struct LoginWanted {
  std::atomic<int> with_credentials{0};
  std::atomic<int> requests{0};
  LoopbackHttpServer server{[this](const LoopbackRequest& r) {
    ++requests;
    if (r.headers.count("authorization")) ++with_credentials;
    return LoopbackResponse{401, {{"WWW-Authenticate", "Basic realm=\"git\""}}, "", false};
  }};
};

Credentials Token() {
  Credentials c;
  c.token = "the-project-token";
  return c;
}

TransferLimits Short() {
  TransferLimits limits;
  limits.idle_timeout = std::chrono::seconds(5);
  limits.transfer_timeout = std::chrono::seconds(20);
  return limits;
}

TEST(GitCredentialsTest, TheRemoteItselfIsOfferedTheToken) {
  testing::TempDir dir;
  LoginWanted remote;
  auto mirror = Mirror::Open(dir / "m.git", remote.server.Url("/docs.git"), Token(), Short());
  ASSERT_TRUE(mirror.ok()) << mirror.status().message();
  auto fetched = (*mirror)->FetchBranches({"main"});
  EXPECT_FALSE(fetched.ok());
  EXPECT_GE(remote.with_credentials.load(), 1)
      << "the configured remote is offered the token: " << fetched.status().message() << " after "
      << remote.requests.load() << " requests";
}

TEST(GitCredentialsTest, ARedirectToAnotherServerGetsNoCredentials) {
  testing::TempDir dir;
  LoginWanted elsewhere;
  LoopbackHttpServer redirecting([&](const LoopbackRequest& r) {
    return LoopbackResponse{302, {{"Location", elsewhere.server.Url(r.target)}}, "", false};
  });
  auto mirror = Mirror::Open(dir / "m.git", redirecting.Url("/docs.git"), Token(), Short());
  ASSERT_TRUE(mirror.ok()) << mirror.status().message();
  auto fetched = (*mirror)->FetchBranches({"main"});
  EXPECT_FALSE(fetched.ok());
  EXPECT_GE(elsewhere.requests.load(), 1) << "the redirect was followed";
  EXPECT_EQ(elsewhere.with_credentials.load(), 0) << "the token went to another server";
  EXPECT_EQ(fetched.status().message().find("the-project-token"), std::string::npos);
}

}  // namespace
}  // namespace docwright::git
