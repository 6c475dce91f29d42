// POST /hooks/{forge}/{projectId} over real HTTP, against the real binary
// (docs/api.md, "Forge webhooks"): a delivery signed with the project's hook
// secret is recorded once; a bad signature is 401, logged without the secret,
// and records nothing; a project on another forge, without a secret, or
// unknown is 404 alike; GitLab's token and Gitea's signatures verify; and
// `project hooks` makes the secret the deliveries are then signed with.
#include <gtest/gtest.h>

#include "api/hook_signature.h"
#include "support/service_fixture.h"

namespace docwright {
namespace {

using testing::Headers;
using testing::json;

constexpr const char* kGithubSecret = "GithubHookSecret0123456789abcdefghijklmn";
constexpr const char* kGitlabSecret = "GitlabHookSecret0123456789abcdefghijklmn";
constexpr const char* kGiteaSecret = "GiteaHookSecret0123456789abcdefghijklmno";

const std::string kPush = R"({"ref": "refs/heads/main",
  "before": "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
  "after": "76ae82fb2d9a7c46fa7cbe0a0b4b5c3bd7b3f5e1",
  "repository": {"clone_url": "https://github.com/acme/docs.git",
                 "ssh_url": "git@github.com:acme/docs.git"},
  "sender": {"login": "octocat"}})";

class HookRoutesTest : public testing::ServiceTest {
 protected:
  // Projects on the hosted forges, made before the server starts.
  void StartDefaultServer() override {
    {
      auto store =
          OpenSqliteStore(dir_ / "docwright.db", testing::KeyFileSecrets(dir_ / "secret.key"));
      ASSERT_TRUE(store.ok()) << store.status().message();
      github_ = Hosted(**store, ForgeKind::kGithub, "https://github.com/acme/docs", kGithubSecret);
      gitlab_ = Hosted(**store, ForgeKind::kGitlab, "https://gitlab.com/acme/docs", kGitlabSecret);
      gitea_ = Hosted(**store, ForgeKind::kGitea, "https://gitea.example/acme/docs", kGiteaSecret);
      no_secret_ =
          Hosted(**store, ForgeKind::kGithub, "https://github.com/acme/other", std::nullopt);
    }
    ServiceTest::StartDefaultServer();
  }

  std::string Hosted(Store& store, ForgeKind forge, const std::string& repository,
                     std::optional<std::string> secret) {
    Project p;
    p.org_id = org_a_;
    p.repository = repository;
    p.base_ref = "main";
    p.forge = forge;
    p.forge_token = "token-for-tests";
    p.hook_secret = std::move(secret);
    auto made = store.CreateProject(p);
    EXPECT_TRUE(made.ok()) << made.status().message();
    return made.ok() ? made->id : "";
  }

  testing::HttpResult Deliver(const std::string& forge, const std::string& project,
                              const std::string& body, Headers headers) {
    headers.emplace_back("Content-Type", "application/json");
    return client_->Send("POST", "/hooks/" + forge + "/" + project, body, headers);
  }

  testing::HttpResult GithubPush(const std::string& project, const std::string& delivery,
                                 const std::string& secret = kGithubSecret,
                                 const std::string& event = "push") {
    return Deliver("github", project, kPush,
                   {{"X-GitHub-Event", event},
                    {"X-GitHub-Delivery", delivery},
                    {"X-Hub-Signature-256", "sha256=" + HmacSha256Hex(secret, kPush)}});
  }

  int64_t Recorded(const std::string& project) {
    return Count("SELECT COUNT(*) FROM forge_events WHERE project_id = '" + project + "'");
  }

  static std::string StatusOf(const testing::HttpResult& r) {
    return json::parse(r.body, nullptr, false).value("status", "");
  }

  std::string github_, gitlab_, gitea_, no_secret_;
};

TEST_F(HookRoutesTest, AGithubSignedDeliveryIsRecordedOnce) {
  auto first = GithubPush(github_, "d-1");
  EXPECT_EQ(first.status, 202) << first.body;
  EXPECT_EQ(StatusOf(first), "accepted");
  EXPECT_EQ(Recorded(github_), 1);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM forge_events WHERE delivery_id = 'd-1' AND kind = 'push' "
                  "AND handled_at IS NULL"),
            1);

  auto again = GithubPush(github_, "d-1");
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(StatusOf(again), "already received");
  EXPECT_EQ(Recorded(github_), 1);

  auto ping = GithubPush(github_, "d-2", kGithubSecret, "ping");
  EXPECT_EQ(ping.status, 200) << ping.body;
  auto star = GithubPush(github_, "d-3", kGithubSecret, "star");
  EXPECT_EQ(star.status, 202) << star.body;
  EXPECT_EQ(StatusOf(star), "ignored");
  EXPECT_EQ(Recorded(github_), 1) << "pings and other events are not recorded";
}

TEST_F(HookRoutesTest, ABadSignatureIsRefusedLoggedAndNothingRecorded) {
  auto wrong = GithubPush(github_, "bad-1", "not-the-secret");
  EXPECT_EQ(wrong.status, 401) << wrong.body;
  auto missing = Deliver("github", github_, kPush, {{"X-GitHub-Event", "push"}});
  EXPECT_EQ(missing.status, 401) << missing.body;
  // Signed for another body.
  auto other = Deliver("github", github_, kPush + " ",
                       {{"X-GitHub-Event", "push"},
                        {"X-Hub-Signature-256", "sha256=" + HmacSha256Hex(kGithubSecret, kPush)}});
  EXPECT_EQ(other.status, 401) << other.body;
  EXPECT_EQ(Recorded(github_), 0);
  std::string log = server_->Log();
  EXPECT_NE(log.find("refused a github delivery for project " + github_), std::string::npos) << log;
  EXPECT_NE(log.find("bad-1"), std::string::npos) << "the delivery id is logged";
  EXPECT_EQ(log.find(kGithubSecret), std::string::npos) << "never the secret";
  EXPECT_EQ(log.find("6113728f27ae"), std::string::npos) << "never the body";
}

TEST_F(HookRoutesTest, ProjectsThatTakeNoSuchDeliveryAreNotFoundAlike) {
  EXPECT_EQ(GithubPush(no_secret_, "n-1").status, 404) << "no hook secret";
  auto wrong_forge = Deliver("gitlab", github_, kPush,
                             {{"X-Gitlab-Event", "Push Hook"}, {"X-Gitlab-Token", kGithubSecret}});
  EXPECT_EQ(wrong_forge.status, 404) << "the project is on GitHub";
  EXPECT_EQ(GithubPush("0190f0e0-0000-7000-8000-000000000000", "n-2").status, 404);
  EXPECT_EQ(GithubPush("not-an-id", "n-3").status, 404);
  EXPECT_EQ(Deliver("local", project_a_, kPush, {}).status, 404);
  EXPECT_EQ(Deliver("bitbucket", github_, kPush, {}).status, 404);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM forge_events"), 0);
}

TEST_F(HookRoutesTest, GitlabSendsItsTokenAndGiteaItsSignatures) {
  const std::string push = R"({"object_kind": "push", "ref": "refs/heads/main",
    "before": "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
    "after": "da1560886d4f094c3e6c9ef40349f7d38b5d27d7", "user_username": "jsmith",
    "project": {"git_http_url": "https://gitlab.com/acme/docs.git"}})";
  auto refused = Deliver("gitlab", gitlab_, push,
                         {{"X-Gitlab-Event", "Push Hook"}, {"X-Gitlab-Token", "wrong"}});
  EXPECT_EQ(refused.status, 401) << refused.body;
  auto accepted = Deliver("gitlab", gitlab_, push,
                          {{"X-Gitlab-Event", "Push Hook"},
                           {"X-Gitlab-Token", kGitlabSecret},
                           {"X-Gitlab-Event-UUID", "13792a34-cac6-4fda-95a8-c58e00a3954e"}});
  EXPECT_EQ(accepted.status, 202) << accepted.body;
  EXPECT_EQ(Recorded(gitlab_), 1);

  const std::string gitea_push = R"({"ref": "refs/heads/main",
    "before": "28e1879d029cb852e4844d9c718537df08844e03",
    "after": "bffeb74224043ba2feb48d137756c8a9331c449a",
    "repository": {"clone_url": "https://gitea.example/acme/docs.git"}})";
  auto gitea = Deliver("gitea", gitea_, gitea_push,
                       {{"X-Gitea-Event", "push"},
                        {"X-Gitea-Delivery", "f6266f16-1bf3-46a5-9ea4-602e06ead473"},
                        {"X-Gitea-Signature", HmacSha256Hex(kGiteaSecret, gitea_push)}});
  EXPECT_EQ(gitea.status, 202) << gitea.body;
  auto hub =
      Deliver("gitea", gitea_, gitea_push,
              {{"X-Gitea-Event", "push"},
               {"X-Gitea-Delivery", "f6266f16-0000-46a5-9ea4-602e06ead473"},
               {"X-Hub-Signature-256", "sha256=" + HmacSha256Hex(kGiteaSecret, gitea_push)}});
  EXPECT_EQ(hub.status, 202) << hub.body;
  auto bad = Deliver(
      "gitea", gitea_, gitea_push,
      {{"X-Gitea-Event", "push"}, {"X-Gitea-Signature", HmacSha256Hex(kGithubSecret, gitea_push)}});
  EXPECT_EQ(bad.status, 401) << bad.body;
  EXPECT_EQ(Recorded(gitea_), 2);
}

TEST_F(HookRoutesTest, ProjectHooksMakesTheSecretOnceAndRotatesIt) {
  const std::vector<std::string> cmd = {"project",  "hooks",        "--project",
                                        no_secret_, "--org",        org_a_,
                                        "--json",   "--public-url", "https://dw.example/"};
  json made = json::parse(Admin(cmd).out);
  ASSERT_TRUE(made["secretMade"].get<bool>()) << made.dump();
  const std::string secret = made["secret"].get<std::string>();
  EXPECT_EQ(secret.size(), 40u);
  EXPECT_EQ(made["url"], "https://dw.example/hooks/github/" + no_secret_);
  EXPECT_EQ(made["contentType"], "application/json");
  EXPECT_EQ(made["mentionHandle"], "docwright");

  json again = json::parse(Admin(cmd).out);
  EXPECT_FALSE(again["secretMade"].get<bool>());
  EXPECT_TRUE(again["secret"].is_null()) << "shown once";

  EXPECT_EQ(GithubPush(no_secret_, "h-1", secret).status, 202);

  std::vector<std::string> rotate = cmd;
  rotate.push_back("--rotate");
  rotate.push_back("--mention-handle");
  rotate.push_back("docs-bot");
  json rotated = json::parse(Admin(rotate).out);
  ASSERT_TRUE(rotated["secretMade"].get<bool>());
  EXPECT_NE(rotated["secret"].get<std::string>(), secret);
  EXPECT_EQ(rotated["mentionHandle"], "docs-bot");
  EXPECT_EQ(GithubPush(no_secret_, "h-2", secret).status, 401) << "the old secret is gone";
  EXPECT_EQ(GithubPush(no_secret_, "h-3", rotated["secret"].get<std::string>()).status, 202);

  Admin({"project", "hooks", "--project", project_a_, "--org", org_a_}, 1);  // the local forge
  Admin({"project", "hooks", "--project", github_, "--org", org_a_, "--mention-handle", "@x"}, 1);
}

}  // namespace
}  // namespace docwright
