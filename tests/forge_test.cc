// The forges' pull request clients against stateful fakes that check each
// request the way the forge's API documents it.
#include "forge/forge.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/local_pull_request.h"
#include "fakes/fake_forge.h"
#include "forge/rest_client.h"
#include "git/git.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "support/test_tools.h"

namespace docwright::forge {
namespace {

using docwright::testing::FakeForge;
using docwright::testing::FakePull;
using docwright::testing::LoopbackResponse;
using std::chrono::milliseconds;

TEST(ForgeRepositoryUrl, NamesHostAndPathOfEveryUrlShape) {
  struct Case {
    const char* url;
    const char* scheme;
    const char* host;
    const char* path;
  };
  for (const Case& c : {
           Case{"https://github.com/acme/docs.git", "https", "github.com", "acme/docs"},
           Case{"https://github.com/acme/docs", "https", "github.com", "acme/docs"},
           Case{"https://x-access-token@ghe.example:8443/acme/docs/", "https", "ghe.example:8443",
                "acme/docs"},
           Case{"http://127.0.0.1:3000/acme/docs.git", "http", "127.0.0.1:3000", "acme/docs"},
           Case{"ssh://git@gitlab.example:2222/group/sub/docs.git", "ssh", "gitlab.example",
                "group/sub/docs"},
           Case{"git@github.com:acme/docs.git", "ssh", "github.com", "acme/docs"},
       }) {
    auto where = ParseRepositoryUrl(c.url);
    ASSERT_TRUE(where.ok()) << c.url << ": " << where.status().message();
    EXPECT_EQ(where->scheme, c.scheme) << c.url;
    EXPECT_EQ(where->host, c.host) << c.url;
    EXPECT_EQ(where->path, c.path) << c.url;
  }
  for (const char* bad : {"/srv/docs.git", "https://github.com/", "https://github.com", "docs"}) {
    EXPECT_FALSE(ParseRepositoryUrl(bad).ok()) << bad;
  }
}

TEST(ForgeRateLimits, WaitsComeFromRetryAfterOrTheLimitsReset) {
  http::Response r;
  r.status = 403;
  EXPECT_FALSE(RateLimitWait(r, 1000)) << "a plain 403 is a refusal, not a rate limit";
  r.headers = {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", "1042"}};
  EXPECT_EQ(RateLimitWait(r, 1000), std::chrono::seconds(43));
  r.headers = {{"retry-after", "9"}, {"x-ratelimit-remaining", "0"}};
  EXPECT_EQ(RateLimitWait(r, 1000), std::chrono::seconds(9)) << "Retry-After comes first";
  r.status = 429;
  r.headers = {{"ratelimit-remaining", "0"}, {"ratelimit-reset", "1005"}};
  EXPECT_EQ(RateLimitWait(r, 1000), std::chrono::seconds(6)) << "GitLab's headers";
  r.status = 200;
  EXPECT_FALSE(RateLimitWait(r, 1000));
}

class ForgeTest : public ::testing::TestWithParam<FakeForge::Kind> {
 protected:
  ForgeTest() : fake_(GetParam(), "tok_secret") {}

  Project MakeProject(const std::string& token = "tok_secret") const {
    Project p;
    p.id = "p1";
    p.repository = "https://forge.example/acme/docs.git";
    p.base_ref = "main";
    p.forge = GetParam() == FakeForge::Kind::kGithub   ? docwright::ForgeKind::kGithub
              : GetParam() == FakeForge::Kind::kGitlab ? docwright::ForgeKind::kGitlab
                                                       : docwright::ForgeKind::kGitea;
    p.forge_api_url = fake_.ApiUrl();
    p.forge_token = token;
    return p;
  }

  std::unique_ptr<Forge> Make(const std::string& token = "tok_secret") {
    ForgeContext context;
    context.max_attempts = 3;
    context.sleep = [this](milliseconds d) {
      waits_.push_back(d);
      return true;
    };
    auto forge = MakeForge(MakeProject(token), context);
    EXPECT_TRUE(forge.ok()) << forge.status().message();
    return forge.ok() ? std::move(*forge) : nullptr;
  }

  static PullRequestSpec Spec(const std::string& title = "Fix the quickstart") {
    return PullRequestSpec{
        "docwright/0123456789ab-fix", "", "main", "", title, "What changed.", false};
  }

  void TearDown() override {
    for (const auto& v : fake_.Violations())
      ADD_FAILURE() << "request off the API's documentation: " << v;
  }

  FakeForge fake_;
  std::vector<milliseconds> waits_;
};

// What the forge calls a draft: GitHub has a field, GitLab and Gitea a title prefix.
std::string DraftTitle(FakeForge::Kind kind, const std::string& title) {
  switch (kind) {
    case FakeForge::Kind::kGithub:
      return title;
    case FakeForge::Kind::kGitlab:
      return "Draft: " + title;
    case FakeForge::Kind::kGitea:
      return "WIP: " + title;
  }
  return title;
}

TEST_P(ForgeTest, OpensOnePullRequestAndUpdatesItAfterwards) {
  auto forge = Make();
  auto first = forge->Ensure(Spec());
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(fake_.Pulls().size(), 1u);
  EXPECT_EQ(first->url, fake_.WebUrl(1));
  EXPECT_EQ(first->number, 1);
  FakePull pull = fake_.Pulls()[0];
  EXPECT_EQ(pull.head, "docwright/0123456789ab-fix");
  EXPECT_EQ(pull.base, "main");
  EXPECT_EQ(pull.title, "Fix the quickstart");
  EXPECT_EQ(pull.body, "What changed.");

  // A follow-up (or a re-run) finds it, and brings its title and body up to date.
  PullRequestSpec later = Spec("Fix the quickstart and the FAQ");
  later.body = "What changed, twice.";
  auto second = Make()->Ensure(later);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->url, first->url);
  ASSERT_EQ(fake_.Pulls().size(), 1u) << "never a second pull request for a branch";
  EXPECT_EQ(fake_.Pulls()[0].title, "Fix the quickstart and the FAQ");
  EXPECT_EQ(fake_.Pulls()[0].body, "What changed, twice.");
  EXPECT_TRUE(waits_.empty());
}

TEST_P(ForgeTest, ABranchWhosePullRequestWasClosedGetsANewOne) {
  fake_.AddPull(FakePull{0, Spec().head, "main", "Old", "", /*open=*/false});
  fake_.AddPull(FakePull{0, "someone/else", "main", "Other", "", true});
  auto pr = Make()->Ensure(Spec());
  ASSERT_TRUE(pr.ok()) << pr.status().message();
  EXPECT_EQ(pr->number, 3);
  EXPECT_EQ(fake_.Pulls().size(), 3u);
}

TEST_P(ForgeTest, ARetargetedPullRequestIsStillTheBranchsOwnAndAForksIsNot) {
  // A fork's branch with the very same name: never adopted.
  FakePull fork{0, Spec().head, "main", "Someone else's", "Theirs", true};
  fork.from_fork = true;
  fake_.AddPull(fork);
  auto ours = Make()->Ensure(Spec());
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  EXPECT_EQ(ours->number, 2);
  EXPECT_EQ(fake_.Pulls()[0].title, "Someone else's") << "the fork's is untouched";
  EXPECT_EQ(fake_.Pulls()[0].body, "Theirs");

  // A reviewer points ours at another base: a follow-up still finds it.
  fake_.SetBase(2, "develop");
  PullRequestSpec later = Spec("Fix the quickstart, again");
  auto again = Make()->Ensure(later);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->number, 2);
  EXPECT_EQ(fake_.Pulls().size(), 2u);
  EXPECT_EQ(fake_.Pulls()[1].title, "Fix the quickstart, again");
}

TEST_P(ForgeTest, DraftsAreMarkedTheForgesWay) {
  PullRequestSpec spec = Spec();
  spec.draft = true;
  ASSERT_TRUE(Make()->Ensure(spec).ok());
  EXPECT_EQ(fake_.Pulls()[0].title, DraftTitle(GetParam(), "Fix the quickstart"));
  EXPECT_EQ(fake_.Pulls()[0].draft, GetParam() == FakeForge::Kind::kGithub);
}

TEST_P(ForgeTest, ACreateThatRacesAnotherFindsTheOneThatWon) {
  fake_.RaceNextCreate();
  auto pr = Make()->Ensure(Spec());
  ASSERT_TRUE(pr.ok()) << pr.status().message();
  EXPECT_EQ(fake_.Pulls().size(), 1u);
  EXPECT_EQ(pr->url, fake_.WebUrl(1));
}

TEST_P(ForgeTest, AWrongTokenIsAClearErrorWithoutTheToken) {
  auto pr = Make("tok_wrong_and_secret")->Ensure(Spec());
  ASSERT_FALSE(pr.ok());
  EXPECT_EQ(pr.status().code(), Code::kUnauthenticated);
  EXPECT_NE(pr.status().message().find("401"), std::string::npos) << pr.status().message();
  EXPECT_NE(pr.status().message().find("forge token"), std::string::npos);
  EXPECT_EQ(pr.status().message().find("tok_"), std::string::npos) << pr.status().message();
  EXPECT_TRUE(waits_.empty()) << "a refusal is not retried";
}

TEST_P(ForgeTest, ServerErrorsAndRateLimitsAreRetriedWithTheWaitTheyAskFor) {
  fake_.FailNext(1, LoopbackResponse{502, {}, "bad gateway"});
  std::string reset = std::to_string(std::time(nullptr) + 20);
  fake_.FailNext(1, LoopbackResponse{403,
                                     {{"X-RateLimit-Remaining", "0"},
                                      {"X-RateLimit-Reset", reset},
                                      {"Content-Type", "application/json"}},
                                     R"({"message":"API rate limit exceeded"})"});
  auto pr = Make()->Ensure(Spec());
  ASSERT_TRUE(pr.ok()) << pr.status().message();
  EXPECT_EQ(fake_.Pulls().size(), 1u);
  ASSERT_EQ(waits_.size(), 2u);
  EXPECT_GE(waits_[1], milliseconds(19000)) << "waits for the limit's reset";
  EXPECT_LE(waits_[1], milliseconds(22000));

  waits_.clear();
  fake_.FailNext(1, LoopbackResponse{429, {{"Retry-After", "7"}}, ""});
  ASSERT_TRUE(Make()->Ensure(Spec()).ok());
  ASSERT_EQ(waits_.size(), 1u);
  EXPECT_EQ(waits_[0], milliseconds(7000));
}

TEST_P(ForgeTest, PersistentFailuresAndRefusalsAreClearErrors) {
  fake_.FailNext(3, LoopbackResponse{503, {}, "down"});
  auto down = Make()->Ensure(Spec());
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.status().code(), Code::kUnavailable);
  EXPECT_NE(down.status().message().find("503"), std::string::npos) << down.status().message();
  EXPECT_EQ(waits_.size(), 2u) << "3 attempts";

  waits_.clear();
  fake_.FailNext(1, LoopbackResponse{
                        404, {{"Content-Type", "application/json"}}, R"({"message":"Not Found"})"});
  auto missing = Make()->Ensure(Spec());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("404"), std::string::npos);
  EXPECT_NE(missing.status().message().find("Not Found"), std::string::npos)
      << "the forge's own words";
  EXPECT_TRUE(waits_.empty());
  EXPECT_TRUE(fake_.Pulls().empty());

  auto unreachable_project = MakeProject();
  unreachable_project.forge_api_url = "http://127.0.0.1:1/api";
  ForgeContext context;
  context.max_attempts = 2;
  context.sleep = [](milliseconds) { return true; };
  auto unreachable = (*MakeForge(unreachable_project, context))->Ensure(Spec());
  ASSERT_FALSE(unreachable.ok());
  EXPECT_EQ(unreachable.status().code(), Code::kUnavailable);
}

// The merge request each forge documents: its method, and the field naming
// the head the merge must be made at.
struct MergeCall {
  std::string method, sha_field;
};
MergeCall MergeCallOf(FakeForge::Kind kind) {
  switch (kind) {
    case FakeForge::Kind::kGithub:
      return {"PUT", "sha"};
    case FakeForge::Kind::kGitlab:
      return {"PUT", "sha"};
    case FakeForge::Kind::kGitea:
      return {"POST", "head_commit_id"};
  }
  return {};
}

// The page of commit `sha` of the project's repository, as each forge shows it.
std::string CommitPage(FakeForge::Kind kind, const std::string& sha) {
  return std::string("https://forge.example/acme/docs") +
         (kind == FakeForge::Kind::kGitlab ? "/-/commit/" : "/commit/") + sha;
}

TEST_P(ForgeTest, StateIsOpenMergedOrClosed) {
  fake_.AddPull(FakePull{0, Spec().head, "main", "Open", "", true});
  fake_.AddPull(FakePull{0, "docwright/b", "main", "Closed", "", /*open=*/false});
  FakePull merged{0, "docwright/c", "main", "Merged", "", /*open=*/false};
  merged.merged = true;
  merged.merge_commit = std::string(40, 'c');
  fake_.AddPull(merged);
  auto forge = Make();
  auto open = forge->State(1);
  ASSERT_TRUE(open.ok()) << open.status().message();
  EXPECT_EQ(open->state, "open");
  auto closed = forge->State(2);
  ASSERT_TRUE(closed.ok()) << closed.status().message();
  EXPECT_EQ(closed->state, "closed");
  EXPECT_EQ(closed->merge_commit, "");
  auto done = forge->State(3);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_EQ(done->state, "merged");
  EXPECT_EQ(done->merge_commit, std::string(40, 'c'));
  // Closed by a person after it was read: the forge is asked again each time.
  fake_.Change(1, [](FakePull& p) { p.open = false; });
  EXPECT_EQ(forge->State(1)->state, "closed");
  auto missing = forge->State(99);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound) << missing.status().message();
}

TEST_P(ForgeTest, MergeMergesAtTheHeadTheChecksPassedAndNamesTheCommitsPage) {
  const std::string head(40, 'a');
  FakePull pull{0, Spec().head, "main", "Fix", "", true};
  pull.head_sha = head;
  fake_.AddPull(pull);
  auto merged = Make()->Merge(1, head);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  FakePull after = fake_.Pulls()[0];
  EXPECT_TRUE(after.merged);
  EXPECT_FALSE(after.open);
  EXPECT_EQ(merged->commit, after.merge_commit);
  EXPECT_EQ(merged->url, CommitPage(GetParam(), after.merge_commit));
  // The request named the head: the forge refuses it if the branch moved since.
  MergeCall call = MergeCallOf(GetParam());
  int merges = 0;
  for (const auto& req : fake_.Requests()) {
    if (!req.target.ends_with("/1/merge")) continue;
    ++merges;
    EXPECT_EQ(req.method, call.method);
    auto body = nlohmann::json::parse(req.body);
    EXPECT_EQ(body.value(call.sha_field, ""), head) << req.body;
    if (GetParam() == FakeForge::Kind::kGitea) {
      EXPECT_EQ(body.value("Do", ""), "merge");
    }
  }
  EXPECT_EQ(merges, 1);
}

TEST_P(ForgeTest, AMergeTheForgeRefusesIsAConflictAndMergesNothing) {
  const std::string reviewed(40, 'a');
  FakePull moved{0, Spec().head, "main", "Moved", "", true};
  moved.head_sha = std::string(40, 'b');  // pushed to after the checks ran
  fake_.AddPull(moved);
  FakePull conflicting{0, "docwright/x", "main", "Conflicts", "", true};
  conflicting.mergeable = false;
  fake_.AddPull(conflicting);
  fake_.AddPull(FakePull{0, "docwright/y", "main", "Closed", "", /*open=*/false});
  auto forge = Make();
  for (int64_t number : {1, 2, 3}) {
    auto refused = forge->Merge(number, reviewed);
    ASSERT_FALSE(refused.ok()) << number;
    EXPECT_EQ(refused.status().code(), Code::kConflict) << refused.status().message();
    EXPECT_NE(refused.status().message().find("refused to merge"), std::string::npos)
        << refused.status().message();
    EXPECT_EQ(refused.status().message().find("tok_secret"), std::string::npos);
  }
  for (const FakePull& p : fake_.Pulls()) EXPECT_FALSE(p.merged) << p.number;
  EXPECT_FALSE(forge->Merge(99, reviewed).ok()) << "no such pull request";
}

TEST_P(ForgeTest, AMergeRetriedAfterItWentThroughIsASuccess) {
  const std::string head(40, 'a');
  FakePull pull{0, Spec().head, "main", "Fix", "", true};
  pull.head_sha = head;
  fake_.AddPull(pull);
  // A forge failing for a moment is asked again.
  fake_.FailNext(1, LoopbackResponse{502, {}, "bad gateway"});
  auto merged = Make()->Merge(1, head);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(waits_.size(), 1u);
  EXPECT_TRUE(fake_.Pulls()[0].merged);
  // A merge asked again once merged (its reply lost, a re-run turn) is told
  // "not mergeable" by the forge, and finds the pull request merged: the same
  // success.
  auto again = Make()->Merge(1, head);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->commit, fake_.Pulls()[0].merge_commit);
}

TEST_P(ForgeTest, CommitPagesAreTheForgesAndOnlyForCommitIds) {
  auto forge = Make();
  const std::string sha = "0123456789abcdef0123456789abcdef01234567";
  EXPECT_EQ(forge->CommitUrl(sha), CommitPage(GetParam(), sha));
  EXPECT_EQ(forge->CommitUrl("main"), "");
  EXPECT_EQ(forge->CommitUrl("../../evil"), "");
  // An SSH remote's pages are on the web host.
  Project p = MakeProject();
  p.repository = "git@forge.example:acme/docs.git";
  ForgeContext context;
  auto ssh = MakeForge(p, context);
  ASSERT_TRUE(ssh.ok());
  EXPECT_EQ((*ssh)->CommitUrl(sha), CommitPage(GetParam(), sha));
}

// The permissions that may push, and those that may not, as each forge names
// them (the fake's SetPermission).
struct PermissionCases {
  std::vector<std::string> writers, readers;
};

PermissionCases PermissionsOf(FakeForge::Kind kind) {
  switch (kind) {
    case FakeForge::Kind::kGithub:
      return {{"admin", "maintain", "write"}, {"triage", "read", "none"}};
    case FakeForge::Kind::kGitlab:
      // access_level: Owner, Maintainer, Developer; Reporter, Guest, no member.
      return {{"50", "40", "30"}, {"20", "10", "none"}};
    case FakeForge::Kind::kGitea:
      return {{"owner", "admin", "write"}, {"read", "none"}};
  }
  return {};
}

TEST_P(ForgeTest, AnAccountMayWriteFromTheForgesWritePermissionUp) {
  PermissionCases cases = PermissionsOf(GetParam());
  int n = 0;
  for (const auto& level : cases.writers)
    fake_.SetPermission("writer" + std::to_string(n++), level);
  for (const auto& level : cases.readers)
    fake_.SetPermission("reader" + std::to_string(n++), level);
  auto forge = Make();
  n = 0;
  for (const auto& level : cases.writers) {
    auto may = forge->CanWrite("writer" + std::to_string(n++));
    ASSERT_TRUE(may.ok()) << level << ": " << may.status().message();
    EXPECT_TRUE(*may) << level;
  }
  for (const auto& level : cases.readers) {
    auto may = forge->CanWrite("reader" + std::to_string(n++));
    ASSERT_TRUE(may.ok()) << level << ": " << may.status().message();
    EXPECT_FALSE(*may) << level;
  }

  auto unknown = forge->CanWrite("nobody");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Code::kNotFound) << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("nobody"), std::string::npos);
  EXPECT_EQ(forge->CanWrite("").status().code(), Code::kInvalidArgument);
  // A login that is not one stays a path segment: nothing else is asked.
  EXPECT_EQ(forge->CanWrite("../../user").status().code(), Code::kNotFound);

  auto refused = Make("tok_wrong_and_secret")->CanWrite("writer0");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kUnauthenticated);
  EXPECT_EQ(refused.status().message().find("tok_"), std::string::npos);
}

TEST_P(ForgeTest, ACommentLandsOnThePullRequest) {
  fake_.AddPull(FakePull{0, "docwright/0123456789ab-fix", "main", "Fix", "", true});
  auto forge = Make();
  ASSERT_TRUE(forge->Comment(1, "Done: fixed the link.", std::nullopt).ok());
  // Where the forge has no threads in its API (GitLab, Gitea), a reply to a
  // review comment is a comment on the pull request too.
  bool threads = GetParam() == FakeForge::Kind::kGithub;
  Status replied = forge->Comment(1, "In the thread.", "4242");
  ASSERT_TRUE(replied.ok()) << replied.message();
  auto comments = fake_.Comments();
  ASSERT_EQ(comments.size(), 2u);
  EXPECT_EQ(comments[0].number, 1);
  EXPECT_EQ(comments[0].body, "Done: fixed the link.");
  EXPECT_FALSE(comments[0].in_reply_to);
  EXPECT_EQ(comments[1].body, "In the thread.");
  EXPECT_EQ(comments[1].in_reply_to, threads ? std::optional<std::string>("4242") : std::nullopt);

  // Cut below the forges' limits, at a character.
  std::string longer(70000, 'x');
  longer[59999] = '\xc3';
  longer[60000] = '\xa9';
  ASSERT_TRUE(forge->Comment(1, longer, std::nullopt).ok());
  ASSERT_EQ(fake_.Comments().size(), 3u);
  EXPECT_EQ(fake_.Comments()[2].body, std::string(59999, 'x'));

  // Retried as every request is; a pull request the forge does not have is a
  // refusal, in the forge's words.
  fake_.FailNext(1, LoopbackResponse{502, {}, "bad gateway"});
  ASSERT_TRUE(forge->Comment(1, "Again.", std::nullopt).ok());
  EXPECT_EQ(fake_.Comments().size(), 4u);
  EXPECT_EQ(waits_.size(), 1u);
  Status missing = forge->Comment(99, "Nowhere.", std::nullopt);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.code(), Code::kInvalidArgument);
  EXPECT_NE(missing.message().find("404"), std::string::npos) << missing.message();
  EXPECT_EQ(fake_.Comments().size(), 4u);
}

INSTANTIATE_TEST_SUITE_P(Forges, ForgeTest,
                         ::testing::Values(FakeForge::Kind::kGithub, FakeForge::Kind::kGitlab,
                                           FakeForge::Kind::kGitea),
                         [](const auto& info) {
                           switch (info.param) {
                             case FakeForge::Kind::kGithub:
                               return std::string("Github");
                             case FakeForge::Kind::kGitlab:
                               return std::string("Gitlab");
                             case FakeForge::Kind::kGitea:
                               return std::string("Gitea");
                           }
                           return std::string();
                         });

TEST(GiteaForge, FindsTheBranchsPullRequestBeyondTheFirstPage) {
  FakeForge fake(FakeForge::Kind::kGitea, "tok");
  fake.AddPull(FakePull{0, "docwright/0123456789ab-fix", "main", "Ours", "", true});
  for (int i = 0; i < 60; ++i) {
    fake.AddPull(FakePull{0, "feature/" + std::to_string(i), "main", "Other", "", true});
  }
  Project p;
  p.repository = "https://gitea.example/acme/docs";
  p.forge = docwright::ForgeKind::kGitea;
  p.forge_api_url = fake.ApiUrl();
  p.forge_token = "tok";
  auto pr = (*MakeForge(p, ForgeContext{}))
                ->Ensure(PullRequestSpec{"docwright/0123456789ab-fix", "", "main", "",
                                         "Ours, updated", "", false});
  ASSERT_TRUE(pr.ok()) << pr.status().message();
  EXPECT_EQ(pr->number, 1);
  EXPECT_EQ(fake.Pulls().size(), 61u);
  EXPECT_EQ(fake.Pulls()[0].title, "Ours, updated");
  EXPECT_TRUE(fake.Violations().empty());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// GitHub's client against GitHub's published OpenAPI description: Prism, as a
// validating proxy, refuses any request that does not conform (and any reply of
// the fake that does not), in front of the stateful fake.
TEST(GithubOpenApi, EveryRequestAndReplyConformsToGitHubsDescription) {
  const std::string dir = DOCWRIGHT_GITHUB_OPENAPI_DIR;
  const std::string prism = dir + "/node_modules/.bin/prism";
  DOCWRIGHT_REQUIRE_TOOL(std::filesystem::exists(prism),
                         "Prism is not installed: `./dw test` installs it (npm ci in " + dir + ")");
  docwright::testing::TempDir tmp;
  // The two endpoints' part of the description, with every schema in place:
  // Prism starts on it in seconds rather than on the whole 13 MB.
  auto cut = docwright::testing::RunCommand("/usr/bin/env",
                                            {"node", dir + "/make_subset.js", tmp / "pulls.json"});
  ASSERT_EQ(cut.exit_code, 0) << cut.err;

  FakeForge upstream(FakeForge::Kind::kGithub, "ghp_token");
  docwright::testing::BackgroundProcess proxy;
  proxy.Start(prism,
              {"proxy", "--host", "127.0.0.1", "--port", "0", "--errors", tmp / "pulls.json",
               "http://127.0.0.1:" + std::to_string(upstream.port())},
              tmp / "prism.out", tmp / "prism.err");
  std::smatch listening;
  std::string log;
  std::regex ready("Prism is listening on (http://127\\.0\\.0\\.1:[0-9]+)");
  ASSERT_TRUE(docwright::testing::WaitUntil(
      [&] {
        log = ReadFile(tmp / "prism.out");
        return std::regex_search(log, listening, ready) || !proxy.Running();
      },
      std::chrono::seconds(90)))
      << log << ReadFile(tmp / "prism.err");
  ASSERT_TRUE(proxy.Running()) << log << ReadFile(tmp / "prism.err");

  Project p;
  p.repository = "https://github.com/acme/docs.git";
  p.forge = docwright::ForgeKind::kGithub;
  p.forge_api_url = listening[1].str();
  p.forge_token = "ghp_token";
  ForgeContext context;
  context.sleep = [](milliseconds) { return true; };
  auto forge = MakeForge(p, context);
  ASSERT_TRUE(forge.ok());

  PullRequestSpec spec{
      "docwright/0123456789ab-fix", "", "main", "", "Fix the quickstart", "What changed.", false};
  auto created = (*forge)->Ensure(spec);
  ASSERT_TRUE(created.ok()) << created.status().message() << "\n" << ReadFile(tmp / "prism.out");
  spec.title = "Fix the quickstart and the FAQ";
  auto updated = (*forge)->Ensure(spec);
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  EXPECT_EQ(updated->url, created->url);
  PullRequestSpec draft{"docwright/ba9876543210-draft", "", "main", "", "A draft", "", true};
  ASSERT_TRUE((*forge)->Ensure(draft).ok());
  upstream.RaceNextCreate();
  PullRequestSpec raced{"docwright/aaaaaaaaaaaa-raced", "", "main", "", "Raced", "", false};
  auto won = (*forge)->Ensure(raced);
  ASSERT_TRUE(won.ok()) << won.status().message();

  // The proxy does validate: a request off the description is refused, unsent.
  http::Client raw;
  http::Request bad;
  bad.method = "POST";
  bad.url = listening[1].str() + "/repos/acme/docs/pulls";
  bad.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer ghp_token"}};
  bad.body = R"({"title": 5, "base": "main"})";
  auto refused = raw.Send(bad);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->status, 422) << refused->body;
  EXPECT_NE(refused->body.find("stoplight.io/prism/errors"), std::string::npos) << refused->body;

  auto pulls = upstream.Pulls();
  ASSERT_EQ(pulls.size(), 3u);
  EXPECT_EQ(pulls[0].title, "Fix the quickstart and the FAQ");
  EXPECT_TRUE(pulls[1].draft);
  EXPECT_EQ(won->number, 3);
  for (const auto& v : upstream.Violations()) ADD_FAILURE() << v;
  // The refusal above, the last request, is the only error Prism reports. Its
  // log is written in order, but lazily.
  const std::string error = "Request terminated with error";
  EXPECT_TRUE(docwright::testing::WaitUntil([&] {
    log = ReadFile(tmp / "prism.out");
    return log.find(error) != std::string::npos;
  }));
  size_t first = log.find(error);
  EXPECT_NE(log.find("UNPROCESSABLE_ENTITY", first), std::string::npos) << log;
  EXPECT_EQ(log.find(error, first + 1), std::string::npos) << log;
  EXPECT_EQ(log.find("VIOLATIONS"), std::string::npos) << "a reply of the fake off the description";
  proxy.Terminate();
  // Every request went through the proxy: the upstream saw all of them.
  EXPECT_GE(upstream.Requests().size(), 9u);
}

TEST(GithubForge, RepliesInTheThreadOfAReviewCommentOrOnTheConversation) {
  FakeForge fake(FakeForge::Kind::kGithub, "tok");
  fake.AddPull(FakePull{0, "docwright/0123456789ab-fix", "main", "Fix", "", true});
  Project p;
  p.repository = "https://github.com/acme/docs.git";
  p.forge = docwright::ForgeKind::kGithub;
  p.forge_api_url = fake.ApiUrl();
  p.forge_token = "tok";
  auto forge = MakeForge(p, ForgeContext{});
  ASSERT_TRUE(forge.ok());
  ASSERT_TRUE((*forge)->Comment(1, "In the thread.", "1234567").ok());
  // Not a review comment's id (GitHub's are numbers): on the conversation.
  ASSERT_TRUE((*forge)->Comment(1, "On the conversation.", "IC_kwDO").ok());
  auto comments = fake.Comments();
  ASSERT_EQ(comments.size(), 2u);
  EXPECT_EQ(comments[0].in_reply_to, "1234567");
  EXPECT_FALSE(comments[1].in_reply_to);
  auto requests = fake.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].target, "/api/v3/repos/acme/docs/pulls/1/comments/1234567/replies");
  EXPECT_EQ(requests[1].target, "/api/v3/repos/acme/docs/issues/1/comments");
  EXPECT_TRUE(fake.Violations().empty());
}

TEST(LocalForge, HasNoCommentsAndNoAccounts) {
  docwright::testing::TempDir tmp;
  Project p;
  p.id = "p1";
  p.forge = docwright::ForgeKind::kLocal;
  // The local forge needs its records and mirror to be made; neither is used
  // by these two.
  struct NoRecords : LocalPullRequestRecords {
    Result<LocalPullRequest> UpsertPullRequest(const LocalPullRequest&) override {
      return Status::Internal("unused");
    }
    Result<LocalPullRequest> GetPullRequest(const std::string&) override {
      return Status::Internal("unused");
    }
    Result<LocalPullRequest> MarkPullRequestMerged(const std::string&, const std::string&,
                                                   UnixMillis) override {
      return Status::Internal("unused");
    }
    Result<LocalPullRequest> GetPullRequestByNumber(const std::string&, int64_t) override {
      return Status::Internal("unused");
    }
  } records;
  auto mirror = git::Mirror::Open(tmp / "mirror.git", tmp / "origin.git", git::Credentials{});
  ASSERT_TRUE(mirror.ok()) << mirror.status().message();
  ForgeContext context;
  context.pull_requests = &records;
  context.mirror = mirror->get();
  auto forge = MakeForge(p, context);
  ASSERT_TRUE(forge.ok()) << forge.status().message();
  auto may = (*forge)->CanWrite("alice");
  ASSERT_TRUE(may.ok());
  EXPECT_FALSE(*may);
  Status comment = (*forge)->Comment(1, "Done.", std::nullopt);
  EXPECT_EQ(comment.code(), Code::kUnavailable);
  EXPECT_NE(comment.message().find("no comments"), std::string::npos);
}

TEST(HostedForges, NeedARepositoryUrlThatNamesTheRepository) {
  Project p;
  p.forge_token = "tok";
  p.forge = docwright::ForgeKind::kGithub;
  p.repository = "https://github.com/acme";
  EXPECT_EQ(MakeForge(p, ForgeContext{}).status().code(), Code::kInvalidArgument);
  p.repository = "/srv/docs.git";
  EXPECT_EQ(MakeForge(p, ForgeContext{}).status().code(), Code::kInvalidArgument);
  p.forge = docwright::ForgeKind::kGitlab;
  p.repository = "https://gitlab.example/group/sub/docs.git";
  EXPECT_TRUE(MakeForge(p, ForgeContext{}).ok()) << "GitLab projects may sit in subgroups";
}

}  // namespace
}  // namespace docwright::forge
