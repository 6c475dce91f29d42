// A job's pull request tells the whole branch after every turn, on every forge:
// a real repository behind smart HTTP, the scripted agent, the hosted forges'
// fakes and the local forge, and a real SQLite store holding the job's messages
// and the branch's review.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fakes/fake_forge.h"
#include "fakes/scripted_agent.h"
#include "runner/repository_turns.h"
#include "store/sqlite_store.h"
#include "support/git_http_server.h"
#include "support/git_repo.h"
#include "support/secrets.h"
#include "support/temp_dir.h"

namespace docwright {
namespace {

using testing::FakeForge;
using testing::Sh;

constexpr const char* kBrokenLink = "guide.mdx:1: link /nowhere does not resolve to a page or file";

struct PullText {
  std::string title, body;
};

FakeForge::Kind FakeKind(ForgeKind kind) {
  switch (kind) {
    case ForgeKind::kGithub:
      return FakeForge::Kind::kGithub;
    case ForgeKind::kGitea:
      return FakeForge::Kind::kGitea;
    default:
      return FakeForge::Kind::kGitlab;  // also stands by, unused, for the local forge
  }
}

class PullRequestStoryTest : public ::testing::TestWithParam<ForgeKind> {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "git/acme");
    remote_ = dir_ / "git/acme/docs.git";
    testing::MakeDocsRemote(remote_);
    store_ = std::move(*OpenSqliteStore(dir_ / "db.sqlite", testing::TestSecrets()));
    org_ = *store_->CreateOrg("acme");
    Project p;
    p.org_id = org_.id;
    p.repository = git_server_.Url("acme/docs");
    p.base_ref = "main";
    p.forge = GetParam();
    if (GetParam() != ForgeKind::kLocal) p.forge_api_url = forge_.ApiUrl();
    p.forge_token = "tok_secret";  // the git remote's and the forge's
    project_ = *store_->CreateProject(p);
    RepositoryTurnsOptions o;
    o.mirrors_dir = dir_ / "mirrors";
    o.public_url = "http://docwright.test";
    o.forge_attempts = 2;
    o.forge_max_delay = std::chrono::milliseconds(1);
    turns_ = std::make_unique<RepositoryTurns>(*store_, agent_, o);
  }

  void TearDown() override {
    for (const auto& v : forge_.Violations()) ADD_FAILURE() << v;
  }

  Scope scope() const { return Scope{org_.id, project_.id}; }

  // Sends `prompt` as the job's next instruction (its first creates the job)
  // and carries out its turn as the runner would: with the job's pull request
  // so far and the earlier instructions as history.
  TurnOutcome Send(const std::string& prompt) {
    if (history_.empty()) {
      auto job = store_->CreateJob(scope(), NewJob{prompt});
      EXPECT_TRUE(job.ok()) << job.status().message();
      job_ = *job;
    } else {
      auto job = store_->AddMessage(scope(), job_.id, prompt);
      EXPECT_TRUE(job.ok()) << job.status().message();
    }
    TurnInput in;
    in.job = job_;
    in.job.pr_link = pr_link_;
    in.project = project_;
    in.message.job_id = job_.id;
    in.message.seq = static_cast<int>(history_.size()) + 1;
    in.message.prompt = prompt;
    in.history = history_;
    CancelToken cancel;
    TurnOutcome r = turns_->RunTurn(in, cancel);
    EXPECT_TRUE(r.succeeded) << r.error.value_or("");
    if (r.pr_link) pr_link_ = r.pr_link;
    history_.push_back(in.message);
    return r;
  }

  // The job's pull request as the forge has it now.
  PullText Pull() {
    if (GetParam() == ForgeKind::kLocal) {
      EXPECT_TRUE(pr_link_);
      if (!pr_link_) return {};
      auto pr = store_->GetPullRequest(pr_link_->substr(pr_link_->rfind('/') + 1));
      EXPECT_TRUE(pr.ok()) << *pr_link_;
      if (!pr.ok()) return {};
      return {pr->title, pr->body};
    }
    std::vector<testing::FakePull> pulls = forge_.Pulls();
    EXPECT_EQ(pulls.size(), 1u);
    if (pulls.empty()) return {};
    return {pulls.back().title, pulls.back().body};
  }

  std::string Head(const std::string& branch) {
    return Sh("git --git-dir=" + remote_ + " rev-parse " + branch);
  }

  testing::TempDir dir_;
  testing::GitHttpServer git_server_{dir_ / "git", "tok_secret"};
  FakeForge forge_{FakeKind(GetParam()), "tok_secret"};
  std::string remote_;
  std::unique_ptr<Store> store_;
  Org org_;
  Project project_;
  testing::ScriptedAgent agent_;
  std::unique_ptr<RepositoryTurns> turns_;
  Job job_;
  std::optional<std::string> pr_link_;
  std::vector<Message> history_;
};

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const ReviewFile* FileOf(const Review& review, const std::string& path) {
  for (const ReviewFile& f : review.files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

TEST_P(PullRequestStoryTest, AFollowUpKeepsTheEarlierTurnsInstructionsFilesAndProblems) {
  // Turn 1 adds a page with a broken link.
  Send("Add a guide [write guide.mdx <Card href=\"/nowhere\">x</Card>]");
  PullText first = Pull();
  EXPECT_TRUE(first.title.starts_with("Add a guide")) << first.title;
  EXPECT_TRUE(Has(first.body, kBrokenLink)) << first.body;

  // Turn 2 fixes a typo in another page, and gives no title.
  Send(
      "Fix the typo [write quickstart.mdx ---\ntitle: Quickstart\n---\n# Quickstart\n\n"
      "Install the CLI.]");
  PullText second = Pull();
  EXPECT_EQ(second.title, first.title) << "the first instruction's title stays";
  EXPECT_TRUE(Has(second.body, "Message 1:\n\n> Add a guide")) << second.body;
  EXPECT_TRUE(Has(second.body, "Message 2:\n\n> Fix the typo")) << second.body;
  EXPECT_LT(second.body.find("> Add a guide"), second.body.find("> Fix the typo"));
  EXPECT_TRUE(Has(second.body, "- `guide.mdx`\n")) << second.body;
  EXPECT_TRUE(Has(second.body, "- `quickstart.mdx`\n")) << second.body;
  EXPECT_TRUE(Has(second.body, "### Problems the checks report on this branch")) << second.body;
  EXPECT_TRUE(Has(second.body, kBrokenLink)) << "the link is still broken on the branch:\n"
                                             << second.body;

  // The review stored after turn 2 tells the same branch.
  auto review = store_->GetReview(scope(), job_.id);
  ASSERT_TRUE(review.ok()) << review.status().message();
  EXPECT_EQ(review->branch, job_.ref);
  EXPECT_EQ(review->base, "main");
  EXPECT_EQ(review->base_commit, Head("main"));
  EXPECT_EQ(review->head_commit, Head(job_.ref));
  ASSERT_EQ(review->files.size(), 2u);
  const ReviewFile* guide = FileOf(*review, "guide.mdx");
  const ReviewFile* quickstart = FileOf(*review, "quickstart.mdx");
  ASSERT_TRUE(guide && quickstart);
  EXPECT_EQ(guide->change, "added");
  EXPECT_EQ(guide->additions, 1);
  EXPECT_EQ(guide->deletions, 0);
  EXPECT_TRUE(guide->preview_html.has_value());
  EXPECT_EQ(quickstart->change, "modified");
  EXPECT_EQ(quickstart->additions, 1);
  EXPECT_EQ(quickstart->deletions, 1);
  EXPECT_TRUE(quickstart->preview_html.has_value());
  EXPECT_TRUE(Has(review->diff, "-Instal the CLI.\n+Install the CLI.\n")) << review->diff;
  EXPECT_TRUE(Has(review->diff, "+<Card href=\"/nowhere\">x</Card>\n")) << review->diff;
  EXPECT_FALSE(review->diff_truncated);
  EXPECT_NE(std::find(review->problems.begin(), review->problems.end(), kBrokenLink),
            review->problems.end());
  EXPECT_FALSE(review->pull_request_body_html.empty());

  // Turn 3's finish gives a title: it replaces the first instruction's.
  Send(
      "Say more [title Guide and quickstart] [write quickstart.mdx ---\ntitle: Quickstart\n"
      "---\n# Quickstart\n\nInstall the CLI, then sign in.]");
  EXPECT_EQ(Pull().title, "Guide and quickstart");

  // Turn 4 fixes the link and gives no title: the latest given one stays, and
  // the problem is gone from the list; every instruction is still there.
  Send("Fix the link [write guide.mdx <Card href=\"/quickstart\">x</Card>]");
  PullText fourth = Pull();
  EXPECT_EQ(fourth.title, "Guide and quickstart");
  EXPECT_FALSE(Has(fourth.body, kBrokenLink)) << fourth.body;
  for (const char* said : {"> Add a guide", "> Fix the typo", "> Say more", "> Fix the link"}) {
    EXPECT_TRUE(Has(fourth.body, said)) << said << "\n" << fourth.body;
  }
  review = store_->GetReview(scope(), job_.id);
  ASSERT_TRUE(review.ok()) << review.status().message();
  EXPECT_EQ(review->head_commit, Head(job_.ref));
  for (const std::string& p : review->problems) EXPECT_FALSE(Has(p, "/nowhere")) << p;
}

// A turn run again after a crash (its commit on the branch, its pull request
// not updated) tells the same story, with the title the branch carries.
TEST_P(PullRequestStoryTest, ARerunTellsTheSameStory) {
  Send("Add a guide [write guide.mdx <Card href=\"/nowhere\">x</Card>] [title A guide]");
  Send("Fix the typo [write quickstart.mdx Install the CLI.]");
  PullText before = Pull();
  ASSERT_EQ(before.title, "A guide");
  // The same turn once more, as the store hands it out after a lost lease.
  TurnInput again;
  again.job = job_;
  again.job.pr_link = pr_link_;
  again.project = project_;
  again.message = history_.back();
  again.history = {history_.front()};
  again.attempt = 2;
  std::string head = Head(job_.ref);
  CancelToken cancel;
  TurnOutcome r = turns_->RunTurn(again, cancel);
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  EXPECT_EQ(Head(job_.ref), head) << "nothing pushed twice";
  PullText after = Pull();
  EXPECT_EQ(after.title, "A guide");
  EXPECT_TRUE(Has(after.body, kBrokenLink)) << after.body;
  EXPECT_TRUE(Has(after.body, "> Add a guide")) << after.body;
  EXPECT_TRUE(Has(after.body, "- `quickstart.mdx`\n")) << after.body;
}

INSTANTIATE_TEST_SUITE_P(Forges, PullRequestStoryTest,
                         ::testing::Values(ForgeKind::kLocal, ForgeKind::kGithub,
                                           ForgeKind::kGitlab, ForgeKind::kGitea),
                         [](const auto& info) { return std::string(ToString(info.param)); });

}  // namespace
}  // namespace docwright
