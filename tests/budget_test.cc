// Monthly budgets over real turns: a real bare repository and the local forge,
// the real store (SQLite), and the documentation agent against a fake model
// that calls the tools as a model would. Turns are claimed, run and recorded
// as the runner does.
#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/model_agent.h"
#include "fakes/counting_store.h"
#include "fakes/fake_model.h"
#include "runner/repository_turns.h"
#include "store/sqlite_store.h"
#include "support/git_repo.h"
#include "support/secrets.h"
#include "support/temp_dir.h"

namespace docwright {
namespace {

using nlohmann::json;
using testing::FakeModelServer;
using testing::FakeStep;
using testing::FakeToolCall;
using testing::ShowFile;

constexpr const char* kModelKey = "sk-test-model-secret";
constexpr const char* kModel = "docs-model-1";

FakeToolCall Call(std::string name, json arguments) {
  return FakeToolCall{std::move(name), std::move(arguments), std::nullopt};
}
FakeStep Step(std::vector<FakeToolCall> calls) {
  FakeStep s;
  s.tool_calls = std::move(calls);
  return s;
}
// A two-step turn: a fix, then finish. A budget crossed by the first reply
// ends the turn before the second.
std::vector<FakeStep> FixThenFinish() {
  return {Step({Call("edit_file", {{"path", "quickstart.mdx"},
                                   {"old_text", "Instal the CLI."},
                                   {"new_text", "Install the CLI."}})}),
          Step({Call("finish", {{"summary", "Fixed a typo."}, {"title", "Fix a typo"}})})};
}

class BudgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = dir_ / "docs.git";
    testing::MakeDocsRemote(remote_);
    store_ = std::move(*OpenSqliteStore(dir_ / "db.sqlite", testing::TestSecrets()));
    org_ = *store_->CreateOrg("acme");
  }

  void TearDown() override {
    turns_.reset();
    if (model_) {
      for (const auto& v : model_->Violations()) ADD_FAILURE() << "off the provider's API: " << v;
    }
  }

  // The project with `budget`, the organisation with `org_budget`, the model
  // answering with `script`, and prices from `prices` (none if empty).
  void Start(MonthlyBudget budget, MonthlyBudget org_budget, const std::string& prices = "") {
    Project p;
    p.org_id = org_.id;
    p.repository = remote_;
    p.base_ref = "main";
    p.budget = budget;
    auto project = store_->CreateProject(p);
    ASSERT_TRUE(project.ok()) << project.status().message();
    project_ = *project;
    org_.budget = org_budget;
    ASSERT_TRUE(store_->UpdateOrg(org_).ok());
    model_ = std::make_unique<FakeModelServer>(FakeModelServer::Wire::kOpenAI, kModelKey,
                                               FixThenFinish());
    agent_ = std::make_unique<agent::ModelAgent>(llm::ProviderConfig{
        .provider = "openai", .base_url = model_->BaseUrl(), .api_key = kModelKey});
    RepositoryTurnsOptions o;
    o.mirrors_dir = dir_ / "mirrors";
    o.public_url = "http://docwright.test";
    o.default_model = kModel;
    if (!prices.empty()) {
      auto table = PriceTable::Parse(prices);
      ASSERT_TRUE(table.ok()) << table.status().message();
      prices_ = std::make_shared<const PriceTable>(*table);
      o.prices = prices_;
    }
    // The turns' calls to the store are counted.
    counting_ = std::make_unique<testing::CountingStore>(*store_);
    turns_ = std::make_unique<RepositoryTurns>(*counting_, *agent_, o);
  }

  Scope scope() const { return Scope{org_.id, project_.id}; }

  // Sends `prompt` (a new job, or a follow-up of job_), claims its turn, runs
  // it and records its outcome, as the runner does.
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
    auto finished = store_->FinishTurn(in.turn_id, "w", r);
    EXPECT_TRUE(finished.ok() && *finished == LeaseState::kHeld);
    job_ = *store_->GetJob(scope(), job_.id);
    return r;
  }

  std::string BranchFile(const std::string& path) {
    return ShowFile(remote_, job_.ref + ":" + path);
  }

  static bool HasStep(const TurnOutcome& r, TranscriptStep::Kind kind, const std::string& needle) {
    for (const TranscriptStep& s : r.steps) {
      if (s.kind == kind && (s.text + s.tool).find(needle) != std::string::npos) return true;
    }
    return false;
  }

  testing::TempDir dir_;
  std::string remote_;
  std::unique_ptr<Store> store_;
  Org org_;
  Project project_;
  Job job_;
  std::unique_ptr<FakeModelServer> model_;
  std::unique_ptr<agent::ModelAgent> agent_;
  std::shared_ptr<const PriceTable> prices_;
  std::unique_ptr<testing::CountingStore> counting_;
  std::unique_ptr<RepositoryTurns> turns_;
};

TEST_F(BudgetTest, ATurnThatCrossesATokenBudgetIsPublishedThenFails) {
  Start(MonthlyBudget{.tokens = 100}, MonthlyBudget{});
  TurnOutcome r = Send("Fix the typo in the quickstart");

  // Ended after the first step: the model was asked once, the fix it made is
  // kept, pushed, and has its pull request.
  EXPECT_EQ(model_->Requests().size(), 1u);
  EXPECT_FALSE(r.succeeded);
  const std::string error =
      "the turn was stopped after it crossed the project's monthly token budget (100 tokens)";
  EXPECT_EQ(r.error, error);
  EXPECT_TRUE(r.budget_stopped);
  EXPECT_GE(r.usage.total(), 100);
  ASSERT_TRUE(r.pr_link);
  EXPECT_NE(BranchFile("quickstart.mdx").find("Install the CLI."), std::string::npos);
  EXPECT_TRUE(HasStep(r, TranscriptStep::Kind::kContext, error));
  EXPECT_TRUE(HasStep(r, TranscriptStep::Kind::kPublish, kPublishPush));
  EXPECT_TRUE(HasStep(r, TranscriptStep::Kind::kPublish, kPublishPullRequest));

  // The job failed with the budget's error, and keeps its pull request.
  EXPECT_EQ(job_.status, JobStatus::kFailed);
  EXPECT_EQ(job_.error, error);
  EXPECT_EQ(job_.pr_link, r.pr_link);
  EXPECT_EQ(r.model, kModel);
  EXPECT_FALSE(r.cost_micros) << "no price table";
}

TEST_F(BudgetTest, ASpentBudgetRefusesTheNextTurnBeforeAnythingIsDone) {
  Start(MonthlyBudget{.tokens = 100}, MonthlyBudget{});
  TurnOutcome first = Send("Fix the typo in the quickstart");
  ASSERT_TRUE(first.budget_stopped);
  std::string head = testing::Sh("git --git-dir=" + remote_ + " rev-parse " + job_.ref);

  TurnOutcome second = Send("And the title of the home page");
  EXPECT_FALSE(second.succeeded);
  EXPECT_TRUE(second.budget_stopped);
  ASSERT_TRUE(second.error);
  EXPECT_EQ(second.error->rfind("the project's monthly token budget (100 tokens) is spent: ", 0),
            0u)
      << *second.error;
  EXPECT_NE(second.error->find("used in " + MonthName(NowMillis())), std::string::npos);
  EXPECT_EQ(model_->Requests().size(), 1u) << "the model is not asked";
  EXPECT_EQ(second.usage.total(), 0);
  EXPECT_EQ(testing::Sh("git --git-dir=" + remote_ + " rev-parse " + job_.ref), head)
      << "nothing pushed";
  EXPECT_EQ(job_.status, JobStatus::kFailed);
  EXPECT_EQ(job_.error, second.error);
  EXPECT_EQ(job_.pr_link, first.pr_link) << "the pull request stays the job's";
}

TEST_F(BudgetTest, AnOrganisationsCostBudgetCountsThePricedTokens) {
  // A thousandth of a euro per token: the first reply costs more than a cent.
  Start(MonthlyBudget{}, MonthlyBudget{.cost_micros = 10000},
        R"({"currency": "EUR", "models": {"docs-model-*": {"input": 1000, "output": 1000}}})");
  TurnOutcome r = Send("Fix the typo in the quickstart");
  EXPECT_EQ(model_->Requests().size(), 1u);
  EXPECT_FALSE(r.succeeded);
  EXPECT_EQ(r.error,
            "the turn was stopped after it crossed the organisation's monthly cost budget (0.01 "
            "EUR)");
  ASSERT_TRUE(r.pr_link);
  EXPECT_EQ(r.model, kModel);
  ASSERT_TRUE(r.cost_micros);
  EXPECT_EQ(r.cost_micros, prices_->CostMicros(kModel, r.usage));
  EXPECT_GE(*r.cost_micros, 10000);
  EXPECT_EQ(job_.status, JobStatus::kFailed);
  EXPECT_EQ(job_.pr_link, r.pr_link);

  // Spent for the month: the organisation's next turn is refused.
  TurnOutcome next = Send("And the home page");
  ASSERT_TRUE(next.error);
  EXPECT_EQ(next.error->rfind("the organisation's monthly cost budget (0.01 EUR) is spent: ", 0),
            0u)
      << *next.error;
  EXPECT_EQ(model_->Requests().size(), 1u);
}

// A cost budget counts priced turns only: a turn whose spend could not be
// priced is refused before it asks the model anything, rather than run
// unchecked (no price table at all, or none for the job's model).
TEST_F(BudgetTest, ACostBudgetRefusesATurnItCannotPrice) {
  Start(MonthlyBudget{.cost_micros = 50000000}, MonthlyBudget{});
  TurnOutcome r = Send("Fix the typo in the quickstart");
  EXPECT_FALSE(r.succeeded);
  EXPECT_TRUE(r.budget_stopped);
  EXPECT_NE(r.error.value_or("").find("project's monthly cost budget (50.00) cannot be kept: "
                                      "this server has no price table"),
            std::string::npos)
      << r.error.value_or("");
  EXPECT_EQ(model_->Requests().size(), 0u);
  EXPECT_EQ(r.model, "") << "no model was asked";
  EXPECT_EQ(r.usage.total(), 0);
}

TEST_F(BudgetTest, AnOrganisationsCostBudgetRefusesAModelWithoutAPrice) {
  Start(MonthlyBudget{}, MonthlyBudget{.cost_micros = 1000000},
        R"({"currency": "USD", "models": {"other-model": {"input": 2, "output": 10}}})");
  TurnOutcome r = Send("Fix the typo in the quickstart");
  EXPECT_FALSE(r.succeeded);
  EXPECT_TRUE(r.budget_stopped);
  EXPECT_NE(r.error.value_or("").find("organisation's monthly cost budget (1.00 USD) cannot be "
                                      "kept: the price table (serve --prices) has no price for "
                                      "the model " +
                                      std::string(kModel)),
            std::string::npos)
      << r.error.value_or("");
  EXPECT_EQ(model_->Requests().size(), 0u);
}

TEST_F(BudgetTest, ATurnWithinItsBudgetsCarriesItsModelTokensAndCost) {
  Start(MonthlyBudget{.tokens = 10000000, .cost_micros = 50000000},
        MonthlyBudget{.tokens = 20000000},
        R"({"currency": "USD", "models": {"docs-model-1": {"input": 2, "output": 10}}})");
  TurnOutcome r = Send("Fix the typo in the quickstart");
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  EXPECT_FALSE(r.budget_stopped);
  EXPECT_EQ(model_->Requests().size(), 2u);
  EXPECT_EQ(r.model, kModel);
  EXPECT_GT(r.usage.input_tokens, 0);
  EXPECT_GT(r.usage.output_tokens, 0);
  ASSERT_TRUE(r.cost_micros);
  int64_t uncached =
      r.usage.input_tokens - r.usage.cached_input_tokens - r.usage.cache_write_tokens;
  EXPECT_EQ(*r.cost_micros,
            std::llround(uncached * 2.0 + r.usage.cached_input_tokens * 2.0 +
                         r.usage.cache_write_tokens * 2.0 + r.usage.output_tokens * 10.0));
  EXPECT_EQ(job_.status, JobStatus::kCompleted);
  EXPECT_EQ(job_.model, kModel);
}

// Every step of a turn is told live (TurnInput::on_step) once, in the
// transcript's order: the first request's context (the repository's
// instructions), held back until that request is on its way, before the
// reply's steps.
TEST_F(BudgetTest, EveryStepIsToldLiveOnceInTheTranscriptsOrder) {
  std::string clone = dir_ / "clone";
  testing::Sh("git clone -q " + remote_ + " " + clone + " && cd " + clone +
              " && printf 'Write in British English.\\n' > AGENTS.md && git add -A" +
              " && git -c user.name=a -c user.email=a@b commit -qm instructions" +
              " && git push -q origin HEAD:main");
  Start(MonthlyBudget{}, MonthlyBudget{});
  auto job = store_->CreateJob(scope(), NewJob{"Fix the typo in the quickstart"});
  ASSERT_TRUE(job.ok()) << job.status().message();
  auto claimed = store_->ClaimTurn("w", std::chrono::seconds(60), kMaxTurnAttempts);
  ASSERT_TRUE(claimed.ok() && claimed->has_value());
  TurnInput in = **claimed;
  // The first step is told between the first request's arrival and its reply:
  // the model holds its reply until then (or 10 s, noted), and the step's
  // telling waits for the arrival (or 10 s, noted). Told before the request
  // was sent, or only after its reply, one of the two waits in vain.
  std::mutex mu;
  std::condition_variable cv;
  bool arrived = false;
  std::vector<TranscriptStep> told;
  std::vector<bool> told_before_reply;
  bool told_after_arrival = false;
  model_->OnArrival([&] {
    std::unique_lock lock(mu);
    arrived = true;
    cv.notify_all();
    told_before_reply.push_back(
        cv.wait_for(lock, std::chrono::seconds(10), [&] { return !told.empty(); }));
  });
  in.on_step = [&](const TranscriptStep& step) {
    std::unique_lock lock(mu);
    if (told.empty()) {
      told_after_arrival = cv.wait_for(lock, std::chrono::seconds(10), [&] { return arrived; });
    }
    told.push_back(step);
    cv.notify_all();
  };
  CancelToken cancel;
  TurnOutcome r = turns_->RunTurn(in, cancel);
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  ASSERT_TRUE(HasStep(r, TranscriptStep::Kind::kContext, "AGENTS.md"));
  ASSERT_EQ(told.size(), r.steps.size());
  for (size_t i = 0; i < told.size(); ++i) {
    EXPECT_EQ(told[i].kind, r.steps[i].kind) << "step " << i;
    EXPECT_EQ(told[i].text, r.steps[i].text) << "step " << i;
  }
  EXPECT_EQ(r.steps[0].kind, TranscriptStep::Kind::kContext);
  EXPECT_TRUE(told_after_arrival) << "told before the first request was sent";
  ASSERT_FALSE(told_before_reply.empty());
  EXPECT_TRUE(told_before_reply[0]) << "told only once the reply came";
}

// The runner's part (outcomes.cc, which charges an interrupted turn through
// Store::ChargeTurnUsage) is done here by hand: this fixture runs turns without
// a Runner.
TEST_F(BudgetTest, ATurnArchivedWhileItRunsStillCountsTheTokensItSpent) {
  Start(MonthlyBudget{}, MonthlyBudget{},
        R"({"currency": "USD", "models": {"docs-model-1": {"input": 2, "output": 10}}})");
  auto job = store_->CreateJob(scope(), NewJob{"Fix the typo in the quickstart"});
  ASSERT_TRUE(job.ok()) << job.status().message();
  auto claimed = store_->ClaimTurn("w", std::chrono::seconds(60), kMaxTurnAttempts);
  ASSERT_TRUE(claimed.ok() && claimed->has_value());
  TurnInput in = **claimed;
  CancelToken cancel;
  // Archived once the model's first reply was acted on, as the runner's
  // heartbeat cancels a turn whose job was archived.
  in.on_step = [&](const TranscriptStep& step) {
    if (step.kind != TranscriptStep::Kind::kTool || cancel.cancelled()) return;
    ASSERT_TRUE(store_->ArchiveJob(scope(), job->id).ok());
    cancel.Cancel(CancelToken::Reason::kArchived);
  };
  TurnOutcome r = turns_->RunTurn(in, cancel);
  ASSERT_TRUE(r.interrupted);
  EXPECT_EQ(model_->Requests().size(), 1u);
  EXPECT_GT(r.usage.total(), 0) << "the first reply's tokens";
  EXPECT_EQ(r.model, kModel);
  ASSERT_TRUE(r.cost_micros);
  EXPECT_GT(*r.cost_micros, 0);

  ASSERT_TRUE(store_->ChargeTurnUsage(in.turn_id, r.usage, r.model, r.cost_micros).ok());
  auto archived = store_->GetJob(scope(), job->id);
  ASSERT_TRUE(archived.ok());
  EXPECT_EQ(archived->status, JobStatus::kArchived);
  EXPECT_EQ(archived->usage.tokens.total(), r.usage.total());
  EXPECT_EQ(archived->usage.cost_micros, *r.cost_micros);
  EXPECT_EQ(archived->usage.turns, 1);
  auto spent = store_->SpendSince(org_.id, project_.id, 0);
  ASSERT_TRUE(spent.ok()) << spent.status().message();
  EXPECT_EQ(spent->project.tokens, r.usage.total());
  EXPECT_EQ(spent->organisation.cost_micros, *r.cost_micros);
}

// A turn checks its organisation's budget as its claim read it, and quotes
// the job's instructions in its pull request from the messages its claim gave
// it: the store is asked for neither again.
TEST_F(BudgetTest, ATurnReadsNeitherItsOrganisationsBudgetNorItsMessagesAgain) {
  Start(MonthlyBudget{.tokens = 10000000}, MonthlyBudget{.tokens = 20000000});
  TurnOutcome r = Send("Fix the typo in the quickstart");
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  ASSERT_TRUE(r.pr_link);
  EXPECT_EQ(counting_->Calls("GetOrg"), 0);
  EXPECT_EQ(counting_->Calls("ListMessages"), 0);
  EXPECT_EQ(counting_->Calls("SpendSince"), 1) << "the month's spend is read once";
  auto pr = store_->GetPullRequest(r.pr_link->substr(r.pr_link->rfind('/') + 1));
  ASSERT_TRUE(pr.ok()) << pr.status().message();
  EXPECT_NE(pr->body.find("Fix the typo in the quickstart"), std::string::npos) << pr->body;
}

// The organisation's budget the claim read is the one kept: spent, it refuses
// the turn before the model is asked.
TEST_F(BudgetTest, AnOrganisationsSpentBudgetRefusesTheTurnFromItsClaim) {
  Start(MonthlyBudget{}, MonthlyBudget{.tokens = 100});
  TurnOutcome first = Send("Fix the typo in the quickstart");
  ASSERT_TRUE(first.budget_stopped);
  TurnOutcome second = Send("And the title of the home page");
  EXPECT_TRUE(second.budget_stopped);
  ASSERT_TRUE(second.error);
  EXPECT_EQ(
      second.error->rfind("the organisation's monthly token budget (100 tokens) is spent: ", 0), 0u)
      << *second.error;
  EXPECT_EQ(model_->Requests().size(), 1u) << "the model is not asked again";
  EXPECT_EQ(counting_->Calls("GetOrg"), 0);
}

TEST_F(BudgetTest, AnUnpricedModelHasNoCost) {
  Start(MonthlyBudget{}, MonthlyBudget{},
        R"({"currency": "USD", "models": {"other-model": {"input": 2, "output": 10}}})");
  TurnOutcome r = Send("Fix the typo in the quickstart");
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  EXPECT_EQ(r.model, kModel);
  EXPECT_FALSE(r.cost_micros);
  EXPECT_GT(r.usage.total(), 0);
}

}  // namespace
}  // namespace docwright
