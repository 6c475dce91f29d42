// Publish modes on a real repository behind smart HTTP, with the scripted
// agent, a real SQLite store (turns claimed and recorded as the runner does),
// the local forge and GitHub's fake: a push onto the base branch when the
// checks pass, a fallback to a pull request when they do not or the base
// keeps moving, a pull request merged once the checks pass, a follow-up after
// the job's pull request was merged, and the pull request's state learned from
// the forge's webhook and from polls.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "fakes/fake_forge.h"
#include "fakes/scripted_agent.h"
#include "runner/repository_turns.h"
#include "store/sqlite_store.h"
#include "support/git_http_server.h"
#include "support/git_repo.h"
#include "support/secrets.h"
#include "support/temp_dir.h"
#include "workflows/forge_events.h"
#include "workflows/pull_request_polling.h"

namespace docwright {
namespace {

using testing::FakeForge;
using testing::Sh;

// Edits of the sample site's existing pages (a new page would also be one
// missing from its navigation).
const std::string kQuickstart = "---\ntitle: Quickstart\n---\n# Quickstart\n\nInstall the CLI.";
const std::string kFixQuickstart =
    "Fix the install step [write quickstart.mdx " + kQuickstart + "]";
std::string IndexLinkingTo(const std::string& href) {
  return "Link the index [write index.mdx ---\ntitle: Home\n---\n# Acme\n\nWelcome. <Card href=\"" +
         href + "\">x</Card>]";
}
const std::string kBrokenLink = IndexLinkingTo("/nowhere");
const std::string kFixedLink = IndexLinkingTo("/quickstart");

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The scripted agent, with the base branch moved on the remote (a person's
// push) while it works, the first `moves` times it runs.
class MovingBaseAgent final : public agent::Agent {
 public:
  MovingBaseAgent(std::string remote, std::string scratch)
      : remote_(std::move(remote)), scratch_(std::move(scratch)) {}
  std::atomic<int> moves{0};
  testing::ScriptedAgent inner;

  agent::AgentResult Run(const TurnInput& input, git::Workspace& workspace,
                         const agent::TurnContext& context, CancelToken& cancel) override {
    if (moves.fetch_sub(1) > 0) {
      std::string clone = scratch_ + "/move-" + std::to_string(++made_);
      Sh(std::string(testing::kGit) + " clone -q " + remote_ + " " + clone);
      std::ofstream(clone + "/person-" + std::to_string(made_) + ".md") << "A person's page\n";
      Sh("cd " + clone + " && " + testing::kGit + " add -A && " + testing::kGit +
         " commit -qm 'A change by a person' && " + testing::kGit + " push -q origin HEAD:main");
    }
    return inner.Run(input, workspace, context, cancel);
  }

 private:
  std::string remote_, scratch_;
  int made_ = 0;
};

class PublishModesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "git/acme");
    std::filesystem::create_directories(dir_ / "scratch");
    remote_ = dir_ / "git/acme/docs.git";
    testing::MakeDocsRemote(remote_);
    store_ = std::move(*OpenSqliteStore(dir_ / "db.sqlite", testing::TestSecrets()));
    org_ = *store_->CreateOrg("acme");
    agent_ = std::make_unique<MovingBaseAgent>(remote_, dir_ / "scratch");
    RepositoryTurnsOptions o;
    o.mirrors_dir = dir_ / "mirrors";
    o.public_url = "http://docwright.test";
    o.identity = git::Identity{"Docs Bot", "bot@example.com"};
    o.forge_attempts = 2;
    o.forge_max_delay = std::chrono::milliseconds(1);
    turns_ = std::make_unique<RepositoryTurns>(*store_, *agent_, o);
    context_.public_url = o.public_url;
    context_.forge_attempts = 2;
    context_.forge_max_delay = std::chrono::milliseconds(1);
    context_.identity = o.identity;
  }

  void TearDown() override {
    for (const auto& v : github_.Violations()) ADD_FAILURE() << v;
  }

  void UseProject(ForgeKind forge, PublishMode publish) {
    Project p;
    p.org_id = org_.id;
    p.repository = git_server_.Url("acme/docs");
    p.base_ref = "main";
    p.forge = forge;
    if (forge == ForgeKind::kGithub) p.forge_api_url = github_.ApiUrl();
    p.forge_token = "tok_secret";  // the git remote's and the forge's
    p.publish = publish;
    project_ = *store_->CreateProject(p);
  }

  Scope scope() const { return Scope{org_.id, project_.id}; }

  // Sends `prompt` to the job (its first creates it), and runs its turn as the
  // runner does: claimed from the store, carried out, its outcome recorded.
  TurnOutcome Send(const std::string& prompt) {
    if (job_.id.empty()) {
      auto job = store_->CreateJob(scope(), NewJob{prompt});
      EXPECT_TRUE(job.ok()) << job.status().message();
      if (job.ok()) job_ = *job;
    } else {
      auto job = store_->AddMessage(scope(), job_.id, prompt);
      EXPECT_TRUE(job.ok()) << job.status().message();
    }
    auto claimed = store_->ClaimTurn("w", std::chrono::seconds(60), kMaxTurnAttempts);
    EXPECT_TRUE(claimed.ok() && claimed->has_value());
    if (!claimed.ok() || !claimed->has_value()) return {};
    TurnInput in = **claimed;
    CancelToken cancel;
    TurnOutcome r = turns_->RunTurn(in, cancel);
    EXPECT_TRUE(r.succeeded) << r.error.value_or("");
    auto finished = store_->FinishTurn(in.turn_id, "w", r);
    EXPECT_TRUE(finished.ok() && *finished == LeaseState::kHeld);
    job_ = *store_->GetJob(scope(), job_.id);
    return r;
  }

  std::string Head(const std::string& branch) {
    return Sh("git --git-dir=" + remote_ + " rev-parse --verify -q refs/heads/" + branch +
              " || true");
  }

  // The turn's publish steps' texts, of `action`.
  static std::vector<std::string> Steps(const TurnOutcome& r, const std::string& action) {
    std::vector<std::string> texts;
    for (const auto& s : r.steps) {
      if (s.kind == TranscriptStep::Kind::kPublish && s.tool == action) texts.push_back(s.text);
    }
    return texts;
  }

  static std::string LocalId(const std::string& link) { return link.substr(link.rfind('/') + 1); }

  testing::TempDir dir_;
  testing::GitHttpServer git_server_{dir_ / "git", "tok_secret"};
  FakeForge github_{FakeForge::Kind::kGithub, "tok_secret"};
  std::string remote_;
  std::unique_ptr<Store> store_;
  Org org_;
  Project project_;
  std::unique_ptr<MovingBaseAgent> agent_;
  std::unique_ptr<RepositoryTurns> turns_;
  workflows::ForgeEventContext context_;
  Job job_;
};

TEST_F(PublishModesTest, PushLandsOnTheBaseBranchWhenTheChecksPass) {
  UseProject(ForgeKind::kLocal, PublishMode::kPush);
  std::string before = Head("main");
  TurnOutcome r = Send(kFixQuickstart);
  ASSERT_TRUE(r.succeeded);
  ASSERT_TRUE(r.commit_sha);
  EXPECT_EQ(Head("main"), *r.commit_sha) << "the base moved to the turn's commit";
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse main^"), before) << "made on its head";
  EXPECT_EQ(testing::ShowFile(remote_, "main:quickstart.mdx"), kQuickstart);
  EXPECT_EQ(Head(job_.ref), "") << "no branch";
  EXPECT_FALSE(r.pr_link);
  EXPECT_EQ(store_->GetPullRequestByNumber(project_.id, 1).status().code(), Code::kNotFound)
      << "no pull request";
  EXPECT_EQ(Steps(r, kPublishPush).size(), 1u);
  // The job shows it.
  EXPECT_EQ(job_.publish, PublishMode::kPush);
  EXPECT_EQ(job_.commit_sha, r.commit_sha);
  EXPECT_FALSE(job_.commit_url) << "the local forge has no commit pages";
  EXPECT_FALSE(job_.pr_link);
  EXPECT_EQ(job_.status, JobStatus::kCompleted);

  // A follow-up lands on the base too, on top of the first.
  TurnOutcome again = Send(kFixedLink);
  ASSERT_TRUE(again.commit_sha);
  EXPECT_EQ(Head("main"), *again.commit_sha);
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse main^"), *r.commit_sha);
}

TEST_F(PublishModesTest, PushWithABrokenLinkFallsBackToAPullRequestAndSaysWhy) {
  UseProject(ForgeKind::kLocal, PublishMode::kPush);
  std::string before = Head("main");
  TurnOutcome r = Send(kBrokenLink);
  ASSERT_TRUE(r.succeeded);
  EXPECT_EQ(Head("main"), before) << "nothing pushed onto the base";
  EXPECT_FALSE(r.commit_sha);
  ASSERT_TRUE(r.pr_link);
  EXPECT_NE(Head(job_.ref), "") << "the branch is pushed";
  EXPECT_EQ(r.pr_state, "open");
  ASSERT_TRUE(r.summary);
  EXPECT_TRUE(Has(*r.summary, "Not pushed onto main: the checks report 1 problem: index.mdx:"))
      << *r.summary;
  EXPECT_TRUE(Has(*r.summary, "link /nowhere does not resolve")) << *r.summary;
  // Two push steps: why the base was not pushed, then the branch's push.
  auto pushes = Steps(r, kPublishPush);
  ASSERT_EQ(pushes.size(), 2u);
  EXPECT_TRUE(Has(pushes[0], "not pushed onto main")) << pushes[0];
  EXPECT_FALSE(Has(pushes[1], "not pushed onto main")) << pushes[1];
  EXPECT_EQ(Steps(r, kPublishPullRequest).size(), 1u);
  auto pr = store_->GetPullRequest(LocalId(*r.pr_link));
  ASSERT_TRUE(pr.ok());
  EXPECT_EQ(pr->head, job_.ref);
  EXPECT_TRUE(Has(pr->body, "Not pushed onto main")) << pr->body;
  EXPECT_EQ(job_.pr_link, r.pr_link);
  EXPECT_FALSE(job_.commit_sha);

  // Once it has a pull request, the job's later turns update it.
  TurnOutcome fixed = Send(kFixedLink);
  EXPECT_EQ(Head("main"), before);
  EXPECT_EQ(fixed.pr_link, r.pr_link);
}

TEST_F(PublishModesTest, PushIsCarriedOutAgainWhenTheBaseMovesAndFallsBackWhenItMovesTwice) {
  UseProject(ForgeKind::kLocal, PublishMode::kPush);
  agent_->moves = 1;
  TurnOutcome once = Send(kFixQuickstart);
  ASSERT_TRUE(once.commit_sha) << once.summary.value_or("");
  EXPECT_EQ(Head("main"), *once.commit_sha);
  EXPECT_EQ(agent_->inner.turns_started.load(), 2) << "carried out again on the new head";
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " log -1 --format=%s main^"), "A change by a person");

  job_ = Job{};
  agent_->moves = 2;
  std::string before_second = Head("main");
  TurnOutcome twice = Send(kFixedLink);
  EXPECT_FALSE(twice.commit_sha);
  ASSERT_TRUE(twice.pr_link);
  ASSERT_TRUE(twice.summary);
  EXPECT_TRUE(Has(*twice.summary, "the branch main moved twice while the agent worked"))
      << *twice.summary;
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " log -1 --format=%s main"), "A change by a person")
      << "the person's pushes stand; nothing overwritten";
  EXPECT_NE(Head("main"), before_second);
}

TEST_F(PublishModesTest, AutomergeOnTheLocalForgeMergesThePullRequest) {
  UseProject(ForgeKind::kLocal, PublishMode::kAutomerge);
  TurnOutcome r = Send(kFixQuickstart);
  ASSERT_TRUE(r.pr_link);
  EXPECT_EQ(r.pr_state, "merged");
  ASSERT_TRUE(r.commit_sha);
  EXPECT_EQ(Head("main"), *r.commit_sha) << "the base moved to the merge";
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse main^2"), Head(job_.ref))
      << "a merge commit of the branch";
  EXPECT_EQ(testing::ShowFile(remote_, "main:quickstart.mdx"), kQuickstart);
  auto pr = store_->GetPullRequest(LocalId(*r.pr_link));
  ASSERT_TRUE(pr.ok());
  EXPECT_TRUE(pr->merged_at);
  EXPECT_EQ(pr->merge_commit, *r.commit_sha);
  EXPECT_EQ(Steps(r, kPublishMerge).size(), 1u);
  EXPECT_EQ(job_.pr_state, "merged");
  EXPECT_EQ(job_.commit_sha, r.commit_sha);
  EXPECT_EQ(job_.publish, PublishMode::kAutomerge);
}

TEST_F(PublishModesTest, AutomergeOnGithubCallsTheMergeEndpointWithThePushedHead) {
  UseProject(ForgeKind::kGithub, PublishMode::kAutomerge);
  TurnOutcome r = Send(kFixQuickstart);
  ASSERT_EQ(github_.Pulls().size(), 1u);
  testing::FakePull pull = github_.Pulls()[0];
  EXPECT_TRUE(pull.merged);
  EXPECT_EQ(r.pr_link, github_.WebUrl(1));
  EXPECT_EQ(r.pr_state, "merged");
  EXPECT_EQ(r.commit_sha, pull.merge_commit);
  EXPECT_EQ(r.commit_url, "http://127.0.0.1:" + std::to_string(git_server_.port()) +
                              "/acme/docs/commit/" + pull.merge_commit);
  int merges = 0;
  for (const auto& req : github_.Requests()) {
    if (!req.target.ends_with("/pulls/1/merge")) continue;
    ++merges;
    EXPECT_EQ(req.method, "PUT");
    EXPECT_EQ(nlohmann::json::parse(req.body).value("sha", ""), Head(job_.ref))
        << "merged at the commit the checks passed";
  }
  EXPECT_EQ(merges, 1);
  EXPECT_EQ(job_.pr_state, "merged");
  EXPECT_EQ(job_.commit_url, r.commit_url);
}

TEST_F(PublishModesTest, AutomergeLeavesAPullRequestOpenWhenTheChecksFailOrTheForgeRefuses) {
  UseProject(ForgeKind::kGithub, PublishMode::kAutomerge);
  TurnOutcome broken = Send(kBrokenLink);
  EXPECT_EQ(broken.pr_state, "open");
  EXPECT_FALSE(broken.commit_sha);
  EXPECT_FALSE(github_.Pulls()[0].merged);
  ASSERT_TRUE(broken.summary);
  EXPECT_TRUE(Has(*broken.summary, "The pull request was not merged: the checks report 1 problem"))
      << *broken.summary;
  auto why = Steps(broken, kPublishMerge);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_TRUE(Has(why[0], "did not merge the pull request")) << why[0];

  // The link fixed, but the forge will not merge it (a check it requires).
  github_.Change(1, [](testing::FakePull& p) { p.mergeable = false; });
  TurnOutcome refused = Send(kFixedLink);
  EXPECT_EQ(refused.pr_state, "open");
  EXPECT_FALSE(github_.Pulls()[0].merged);
  ASSERT_TRUE(refused.summary);
  EXPECT_TRUE(Has(*refused.summary, "GitHub refused to merge pull request #1")) << *refused.summary;
  EXPECT_EQ(job_.pr_state, "open");
}

TEST_F(PublishModesTest, AFollowUpAfterTheMergeOpensANewBranchAndPullRequest) {
  UseProject(ForgeKind::kLocal, PublishMode::kPullRequest);
  TurnOutcome first = Send(kFixQuickstart);
  ASSERT_TRUE(first.pr_link);
  const std::string branch = job_.ref;
  auto pr = store_->GetPullRequest(LocalId(*first.pr_link));
  ASSERT_TRUE(pr.ok());
  // Merged through the API's merge button: the job learns it at once.
  auto merged = turns_->MergePullRequest(*pr, "merge");
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(store_->GetJob(scope(), job_.id)->pr_state, "merged");

  TurnOutcome next = Send("Now the FAQ [write faq.md - Which flags are there?]");
  EXPECT_EQ(job_.ref, branch + "-2");
  ASSERT_TRUE(next.pr_link);
  EXPECT_NE(next.pr_link, first.pr_link);
  EXPECT_EQ(job_.pr_link, next.pr_link);
  EXPECT_EQ(job_.pr_state, "open");
  auto second = store_->GetPullRequest(LocalId(*next.pr_link));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->head, branch + "-2");
  EXPECT_FALSE(second->merged_at);
  // The new branch starts from the base as merged.
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse " + branch + "-2^"), merged->merge_commit);
  EXPECT_FALSE(Has(second->diff, "quickstart.mdx")) << "the merged work is not shown again";
  ASSERT_TRUE(next.summary);
  EXPECT_TRUE(Has(*next.summary,
                  "the earlier pull request was merged; this one continues on " + branch + "-2"))
      << *next.summary;

  // Merged again: the next follow-up goes on to "-3".
  ASSERT_TRUE(turns_->MergePullRequest(*second, "merge").ok());
  Send("And the index [write index.mdx Welcome.]");
  EXPECT_EQ(job_.ref, branch + "-3");
}

TEST_F(PublishModesTest, APullRequestClosedEventSetsItsStateAndAFollowUpStartsANewOne) {
  UseProject(ForgeKind::kGithub, PublishMode::kPullRequest);
  TurnOutcome first = Send(kFixQuickstart);
  ASSERT_EQ(first.pr_link, github_.WebUrl(1));
  EXPECT_EQ(job_.pr_state, "open");
  const std::string branch = job_.ref;

  ForgeEvent event;
  event.project_id = project_.id;
  event.forge = ForgeKind::kGithub;
  event.delivery_id = "d-1";
  event.kind = ForgeEventKind::kPullRequest;
  event.pr_number = 1;
  event.pr_url = github_.WebUrl(1);
  event.pr_head = branch;
  event.pr_base = "main";
  event.pr_action = "closed";
  event.pr_merged = true;
  // Another pull request of the branch (not the job's) changes nothing.
  ForgeEvent other = event;
  other.pr_number = 7;
  auto ignored = workflows::HandlePullRequestEvent(*store_, *turns_->mirrors(), context_, other);
  ASSERT_TRUE(ignored.ok()) << ignored.status().message();
  EXPECT_TRUE(Has(*ignored, "nothing done")) << *ignored;
  EXPECT_EQ(store_->GetJob(scope(), job_.id)->pr_state, "open");

  // The delivery says "merged", but what is recorded is what the forge says:
  // still open, until it is merged there.
  auto early = workflows::HandlePullRequestEvent(*store_, *turns_->mirrors(), context_, event);
  ASSERT_TRUE(early.ok()) << early.status().message();
  EXPECT_EQ(store_->GetJob(scope(), job_.id)->pr_state, "open") << "a replayed delivery";
  github_.Change(1, [](testing::FakePull& p) {
    p.open = false;
    p.merged = true;
    p.merge_commit = std::string(40, 'e');
  });
  auto handled = workflows::HandlePullRequestEvent(*store_, *turns_->mirrors(), context_, event);
  ASSERT_TRUE(handled.ok()) << handled.status().message();
  EXPECT_TRUE(Has(*handled, job_.id)) << *handled;
  EXPECT_EQ(store_->GetJob(scope(), job_.id)->pr_state, "merged");

  TurnOutcome next = Send("Now the FAQ [write faq.md - Which flags are there?]");
  ASSERT_EQ(github_.Pulls().size(), 2u);
  EXPECT_EQ(github_.Pulls()[1].head, branch + "-2");
  EXPECT_EQ(next.pr_link, github_.WebUrl(2));
  EXPECT_EQ(job_.ref, branch + "-2");
  EXPECT_EQ(job_.pr_link, github_.WebUrl(2));
  EXPECT_EQ(job_.pr_state, "open");
}

TEST_F(PublishModesTest, PollsLearnWhatBecameOfPullRequests) {
  UseProject(ForgeKind::kGithub, PublishMode::kPullRequest);
  Send(kFixQuickstart);
  const std::string hosted_job = job_.id;
  ASSERT_TRUE(workflows::PollPullRequests(*store_, context_, nullptr).ok());
  EXPECT_EQ(store_->GetJob(scope(), hosted_job)->pr_state, "open");
  github_.Change(1, [](testing::FakePull& p) { p.open = false; });
  ASSERT_TRUE(workflows::PollPullRequests(*store_, context_, nullptr).ok());
  EXPECT_EQ(store_->GetJob(scope(), hosted_job)->pr_state, "closed");
  auto polled = store_->ListJobsWithOpenPullRequests(50);
  ASSERT_TRUE(polled.ok());
  EXPECT_TRUE(polled->empty()) << "a closed pull request is not asked about again";

  // The local forge's: from its record, merged here without the merge button.
  Scope github_scope = scope();
  UseProject(ForgeKind::kLocal, PublishMode::kPullRequest);
  job_ = Job{};
  TurnOutcome local = Send("Fix the FAQ [write faq.md - Which flags are there?]");
  ASSERT_TRUE(local.pr_link);
  ASSERT_TRUE(
      store_->MarkPullRequestMerged(LocalId(*local.pr_link), std::string(40, 'c'), NowMillis())
          .ok());
  EXPECT_EQ(job_.pr_state, "open");
  ASSERT_TRUE(workflows::PollPullRequests(*store_, context_, nullptr).ok());
  EXPECT_EQ(store_->GetJob(scope(), job_.id)->pr_state, "merged");
  EXPECT_EQ(store_->GetJob(github_scope, hosted_job)->pr_state, "closed");
}

TEST(PullRequestLinks, NameTheirNumber) {
  EXPECT_EQ(workflows::PullRequestNumberOf("https://github.com/acme/docs/pull/12"), 12);
  EXPECT_EQ(workflows::PullRequestNumberOf("https://gitlab.example/g/docs/-/merge_requests/3"), 3);
  EXPECT_EQ(workflows::PullRequestNumberOf("https://gitea.example/acme/docs/pulls/7/"), 7);
  EXPECT_FALSE(
      workflows::PullRequestNumberOf("http://docwright.test/pulls/AbCdEfGhIjKlMnOpQrStUv"));
  EXPECT_FALSE(workflows::PullRequestNumberOf("https://github.com/acme/docs/pull/012"));
  EXPECT_FALSE(workflows::PullRequestNumberOf(""));
}

}  // namespace
}  // namespace docwright
