// Turns on a real repository: a smart-HTTP remote behind token auth, the scripted
// agent, and a hosted forge's fake. The black-box tests cover the local forge.
#include "runner/repository_turns.h"

#include <gtest/gtest.h>

#include <thread>

#include "fakes/fake_forge.h"
#include "fakes/scripted_agent.h"
#include "store/sqlite_store.h"
#include "support/git_http_server.h"
#include "support/git_repo.h"
#include "support/secrets.h"
#include "support/ssh_server.h"
#include "support/temp_dir.h"

namespace docwright {
namespace {

using testing::FakeForge;
using testing::LoopbackResponse;
using testing::Sh;
using testing::ShowFile;

class RepositoryTurnsTest : public ::testing::Test {
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
    p.forge = ForgeKind::kGitlab;
    p.forge_api_url = forge_.ApiUrl();
    p.forge_token = "tok_secret";  // the git remote's and the forge's
    project_ = *store_->CreateProject(p);
    RepositoryTurnsOptions o;
    o.mirrors_dir = dir_ / "mirrors";
    o.identity = git::Identity{"Docs Bot", "bot@example.com"};
    o.forge_attempts = 2;
    o.forge_max_delay = std::chrono::milliseconds(1);
    turns_ = std::make_unique<RepositoryTurns>(*store_, agent_, o);
  }

  TurnInput Input(const std::string& prompt) {
    auto job = store_->CreateJob(Scope{org_.id, project_.id}, NewJob{prompt});
    EXPECT_TRUE(job.ok());
    Message m;
    m.job_id = job->id;
    m.seq = 1;
    m.prompt = prompt;
    return TurnInput{.job = *job, .project = project_, .message = m};
  }

  std::string BranchHead(const std::string& branch) {
    return Sh("git --git-dir=" + remote_ + " rev-parse " + branch);
  }

  void TearDown() override {
    for (const auto& v : forge_.Violations()) ADD_FAILURE() << v;
  }

  testing::TempDir dir_;
  testing::GitHttpServer git_server_{dir_ / "git", "tok_secret"};
  FakeForge forge_{FakeForge::Kind::kGitlab, "tok_secret"};
  std::string remote_;
  std::unique_ptr<Store> store_;
  Org org_;
  Project project_;
  testing::ScriptedAgent agent_;
  std::unique_ptr<RepositoryTurns> turns_;
};

TEST_F(RepositoryTurnsTest, ATurnPushesItsBranchOverHttpAndOpensThePullRequest) {
  TurnInput in = Input("Fix the install step [title Fix the install step]");
  CancelToken cancel;
  TurnOutcome r = turns_->RunTurn(in, cancel);
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  EXPECT_EQ(r.pr_link, forge_.WebUrl(1));
  EXPECT_EQ(ShowFile(remote_, in.job.ref + ":notes/" + in.job.id + "-1.md"),
            "Fix the install step [title Fix the install step]");
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " log -1 --format='%an <%ae>|%s' " + in.job.ref),
            "Docs Bot <bot@example.com>|Fix the install step");
  ASSERT_EQ(forge_.Pulls().size(), 1u);
  EXPECT_EQ(forge_.Pulls()[0].title, "Fix the install step");
  EXPECT_EQ(forge_.Pulls()[0].head, in.job.ref);
  EXPECT_NE(forge_.Pulls()[0].body.find(in.job.id), std::string::npos);
  EXPECT_NE(forge_.Pulls()[0].body.find("> Fix the install step"), std::string::npos);
}

TEST_F(RepositoryTurnsTest, ARerunAfterThePushNeitherRepeatsTheEditNorOpensASecondPullRequest) {
  // An instruction that would change the file again if carried out twice.
  TurnInput in = Input("Document the CLI flags [append faq.md - Which flags are there?]");
  CancelToken cancel;
  // The forge is down when the branch has just been pushed: the turn ends with
  // the branch pushed and no pull request, as when the process dies in between.
  forge_.FailNext(2, LoopbackResponse{503, {}, "down"});
  TurnOutcome first = turns_->RunTurn(in, cancel);
  ASSERT_FALSE(first.succeeded);
  EXPECT_NE(first.error->find("pushed the branch"), std::string::npos) << *first.error;
  EXPECT_EQ(first.error->find("tok_secret"), std::string::npos);
  std::string pushed = BranchHead(in.job.ref);
  EXPECT_TRUE(forge_.Pulls().empty());

  // The turn is run again, as after a crash: its commit is on the branch, so the
  // agent is not run again; the pull request opens.
  in.attempt = 2;
  int agent_runs = agent_.turns_started.load();
  TurnOutcome second = turns_->RunTurn(in, cancel);
  ASSERT_TRUE(second.succeeded) << second.error.value_or("");
  EXPECT_EQ(second.pr_link, forge_.WebUrl(1));
  EXPECT_EQ(BranchHead(in.job.ref), pushed) << "no second commit";
  EXPECT_EQ(agent_.turns_started.load(), agent_runs) << "the instruction is not carried out twice";
  EXPECT_EQ(ShowFile(remote_, in.job.ref + ":faq.md"), "- Which flags are there?");
  ASSERT_EQ(forge_.Pulls().size(), 1u);
  EXPECT_NE(forge_.Pulls()[0].body.find("Carried out message 1"), std::string::npos)
      << "the summary comes back from the commit: " << forge_.Pulls()[0].body;

  // And once more, as if the process died before recording the outcome.
  in.attempt = 3;
  TurnOutcome third = turns_->RunTurn(in, cancel);
  ASSERT_TRUE(third.succeeded) << third.error.value_or("");
  EXPECT_EQ(third.pr_link, second.pr_link);
  EXPECT_EQ(forge_.Pulls().size(), 1u) << "no duplicate pull request";

  // A follow-up on the job updates the same pull request.
  TurnInput follow = in;
  follow.job.pr_link = second.pr_link;
  follow.message.seq = 2;
  follow.message.prompt = "Also the environment variables [title Document the CLI]";
  follow.history = {in.message};
  follow.attempt = 1;
  TurnOutcome fourth = turns_->RunTurn(follow, cancel);
  ASSERT_TRUE(fourth.succeeded) << fourth.error.value_or("");
  EXPECT_EQ(fourth.pr_link, second.pr_link);
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse " + follow.job.ref + "^"), pushed);
  ASSERT_EQ(forge_.Pulls().size(), 1u);
  EXPECT_EQ(forge_.Pulls()[0].title, "Document the CLI");
}

TEST_F(RepositoryTurnsTest, ConcurrentTurnsOfOneProjectShareItsMirror) {
  std::vector<TurnInput> inputs;
  for (int i = 0; i < 4; ++i) inputs.push_back(Input("Page " + std::to_string(i)));
  std::vector<TurnOutcome> results(inputs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < inputs.size(); ++i) {
    threads.emplace_back([&, i] {
      CancelToken cancel;
      results[i] = turns_->RunTurn(inputs[i], cancel);
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_TRUE(results[i].succeeded) << results[i].error.value_or("");
    EXPECT_EQ(ShowFile(remote_, inputs[i].job.ref + ":notes/" + inputs[i].job.id + "-1.md"),
              "Page " + std::to_string(i));
  }
  EXPECT_EQ(forge_.Pulls().size(), inputs.size());
}

TEST_F(RepositoryTurnsTest, AnSshRemoteWithADeployKeyAndTheLocalForge) {
  testing::SshServer ssh(dir_ / "ssh");
  DOCWRIGHT_START_SSH_SERVER(ssh);
  Project p;
  p.org_id = org_.id;
  p.repository = ssh.Url(remote_);
  p.base_ref = "main";
  p.ssh_key_path = ssh.client_key();
  p.ssh_known_hosts_path = ssh.known_hosts();
  p = *store_->CreateProject(p);
  auto job = store_->CreateJob(Scope{org_.id, p.id}, NewJob{"Over SSH"});
  ASSERT_TRUE(job.ok());
  Message m;
  m.seq = 1;
  m.prompt = "Over SSH";
  CancelToken cancel;
  TurnOutcome r = turns_->RunTurn(
      TurnInput{.job = *job, .project = *store_->GetProject(Scope{org_.id, p.id}), .message = m},
      cancel);
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  EXPECT_EQ(ShowFile(remote_, job->ref + ":notes/" + job->id + "-1.md"), "Over SSH");
  ASSERT_TRUE(r.pr_link);
  std::string id = r.pr_link->substr(r.pr_link->rfind('/') + 1);
  auto pr = store_->GetPullRequest(id);
  ASSERT_TRUE(pr.ok()) << *r.pr_link;
  EXPECT_EQ(pr->head, job->ref);
  EXPECT_NE(pr->diff.find("+Over SSH"), std::string::npos) << pr->diff;
}

TEST_F(RepositoryTurnsTest, AWrongTokenFailsTheTurnWithoutShowingIt) {
  Project wrong = project_;
  wrong.id = "other";  // a mirror of its own
  wrong.forge_token = "tok_wrong_one";
  TurnInput in = Input("Edit");
  in.project = wrong;
  CancelToken cancel;
  TurnOutcome r = turns_->RunTurn(in, cancel);
  ASSERT_FALSE(r.succeeded);
  EXPECT_NE(r.error->find("credentials"), std::string::npos) << *r.error;
  EXPECT_EQ(r.error->find("tok_wrong_one"), std::string::npos);
}

TEST_F(RepositoryTurnsTest, AnArchivedTurnPushesNothing) {
  TurnInput in = Input("Edit [sleep 5000]");
  CancelToken cancel;
  std::thread archive([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel.Cancel(CancelToken::Reason::kArchived);
  });
  TurnOutcome r = turns_->RunTurn(in, cancel);
  archive.join();
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " branch --list 'docwright/*'"), "");
  EXPECT_TRUE(forge_.Pulls().empty());
}

}  // namespace
}  // namespace docwright
