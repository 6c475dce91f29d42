// What turns used, in the Store (store.h, "Usage and budgets"), on SQLite and
// on PostgreSQL: each turn's tokens by kind, model and cost recorded as it
// ends and added to its job's totals; the usage read back by day (UTC),
// project and model; what a project and its organisation spent from an instant
// on; the budgets of organisations and projects, and their use; the queue.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "core/time.h"
#include "store/cached_store.h"
#include "support/store_fixture.h"

namespace docwright {
namespace {

class StoreUsageTest : public testing::StoreTest {
 protected:
  static TurnOutcome Used(std::string model, int64_t input, int64_t output, int64_t cached,
                          int64_t cache_write, std::optional<int64_t> cost) {
    TurnOutcome o{.succeeded = true};
    o.usage = TokenUsage{.input_tokens = input,
                         .output_tokens = output,
                         .cached_input_tokens = cached,
                         .cache_write_tokens = cache_write};
    o.model = std::move(model);
    o.cost_micros = cost;
    return o;
  }

  // Creates a job of `p` and runs its first turn to `outcome`, as ending at
  // `at` if given (the store stamps the end with its own clock); the job.
  Job RunJob(const Project& p, const TurnOutcome& outcome,
             std::optional<UnixMillis> at = std::nullopt) {
    Job j = Create(p, "Job " + std::to_string(++jobs_));
    Finish(outcome, at);
    return j;
  }

  // Claims the one runnable turn and ends it with `outcome` (at `at`).
  void Finish(const TurnOutcome& outcome, std::optional<UnixMillis> at = std::nullopt) {
    TurnInput t = Claim("w");
    auto finished = store_->FinishTurn(t.turn_id, "w", outcome);
    ASSERT_TRUE(finished.ok()) << finished.status().message();
    ASSERT_EQ(*finished, LeaseState::kHeld);
    if (at) {
      Exec("UPDATE turns SET finished_at = " + std::to_string(*at) +
           " WHERE id = " + std::to_string(t.turn_id));
    }
  }

  void Exec(const std::string& sql) {
    if (postgres()) {
      EXPECT_EQ(testing::PostgresDatabase::Exec(url_, sql), "") << sql;
      return;
    }
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(url_.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    sqlite3_close(db);
  }

  static UnixMillis At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

  int jobs_ = 0;
};

TEST_P(StoreUsageTest, ATurnsUsageIsRecordedOnItAndAddedToItsJob) {
  Job j = Create(project_, "Document the limits");
  Finish(Used("claude-sonnet-4-5", 10000, 800, 6000, 2000, 42000));
  ASSERT_TRUE(store_->AddMessage(ScopeOf(project_), j.id, "And the quotas").ok());
  // A failed turn's tokens were spent too; it carries the pull request it published.
  TurnOutcome failed = Used("gpt-5-mini", 3000, 200, 1024, 0, std::nullopt);
  failed.succeeded = false;
  failed.error = "the project's monthly token budget is spent";
  failed.pr_link = "https://forge.example/acme/docs/pull/7";
  Finish(failed);

  auto messages = store_->ListMessages(ScopeOf(project_), j.id);
  ASSERT_TRUE(messages.ok()) << messages.status().message();
  ASSERT_EQ(messages->size(), 2u);
  const Message& first = (*messages)[0];
  EXPECT_EQ(first.input_tokens, 10000);
  EXPECT_EQ(first.output_tokens, 800);
  EXPECT_EQ(first.cached_input_tokens, 6000);
  EXPECT_EQ(first.cache_write_tokens, 2000);
  EXPECT_EQ(first.usage_model, "claude-sonnet-4-5");
  EXPECT_EQ(first.cost_micros, 42000);
  const Message& second = (*messages)[1];
  EXPECT_EQ(second.state, TurnState::kFailed);
  EXPECT_EQ(second.usage_model, "gpt-5-mini");
  EXPECT_EQ(second.cached_input_tokens, 1024);
  EXPECT_FALSE(second.cost_micros) << "no price known: no cost, not a zero cost";

  auto job = store_->GetJob(ScopeOf(project_), j.id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->status, JobStatus::kFailed);
  EXPECT_EQ(job->pr_link, failed.pr_link) << "a failed turn's pull request is the job's";
  EXPECT_EQ(job->usage.tokens.input_tokens, 13000);
  EXPECT_EQ(job->usage.tokens.output_tokens, 1000);
  EXPECT_EQ(job->usage.tokens.cached_input_tokens, 7024);
  EXPECT_EQ(job->usage.tokens.cache_write_tokens, 2000);
  EXPECT_EQ(job->usage.cost_micros, 42000);
  EXPECT_EQ(job->usage.turns, 2);
  EXPECT_EQ(job->usage.unpriced_turns, 1);

  auto usage = store_->JobUsage(ScopeOf(project_), j.id);
  ASSERT_TRUE(usage.ok());
  EXPECT_EQ(usage->input_tokens, 13000);
  EXPECT_EQ(usage->output_tokens, 1000);
  EXPECT_EQ(usage->cached_input_tokens, 7024);
  EXPECT_EQ(usage->cache_write_tokens, 2000);
  EXPECT_EQ(usage->total(), 14000);

  // A turn that used no model is not one of the job's turns that did.
  Job scripted = RunJob(project_, TurnOutcome{.succeeded = true});
  auto read = store_->GetJob(ScopeOf(project_), scripted.id);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->usage.turns, 0);
  EXPECT_EQ(read->usage.tokens.total(), 0);
  // Other jobs' and listed jobs' totals are their own.
  auto page = store_->ListJobs(ScopeOf(project_), JobQuery{});
  ASSERT_TRUE(page.ok());
  for (const Job& listed : page->jobs) {
    EXPECT_EQ(listed.usage.turns, listed.id == j.id ? 2 : 0) << listed.id;
  }
}

TEST_P(StoreUsageTest, TokensOfAnAttemptThatDidNotFinishAreChargedToItsTurnAndJob) {
  // Archived while its turn ran: the turn is cancelled, and charged after.
  Job archived = Create(project_, "Document the limits");
  TurnInput first = Claim("w1");
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), archived.id).ok());
  Status charged =
      store_->ChargeTurnUsage(first.turn_id, Used("m", 1000, 100, 400, 50, 3000).usage, "m", 3000);
  ASSERT_TRUE(charged.ok()) << charged.message();
  // Charged again without a price: the cost stays, the turn counts once.
  ASSERT_TRUE(store_
                  ->ChargeTurnUsage(first.turn_id,
                                    TokenUsage{.input_tokens = 10, .output_tokens = 5}, "other",
                                    std::nullopt)
                  .ok());
  auto messages = store_->ListMessages(ScopeOf(project_), archived.id);
  ASSERT_TRUE(messages.ok()) << messages.status().message();
  ASSERT_EQ(messages->size(), 1u);
  EXPECT_EQ((*messages)[0].state, TurnState::kCancelled);
  EXPECT_EQ((*messages)[0].input_tokens, 1010);
  EXPECT_EQ((*messages)[0].output_tokens, 105);
  EXPECT_EQ((*messages)[0].cached_input_tokens, 400);
  EXPECT_EQ((*messages)[0].cache_write_tokens, 50);
  EXPECT_EQ((*messages)[0].usage_model, "m") << "the model the turn first named stays";
  EXPECT_EQ((*messages)[0].cost_micros, 3000);
  auto job = store_->GetJob(ScopeOf(project_), archived.id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->usage.tokens.input_tokens, 1010);
  EXPECT_EQ(job->usage.tokens.output_tokens, 105);
  EXPECT_EQ(job->usage.cost_micros, 3000);
  EXPECT_EQ(job->usage.turns, 1);
  EXPECT_EQ(job->usage.unpriced_turns, 0);

  // Its lease lost, then claimed again and finished: the finish adds to what
  // the lost attempt was charged, and the turn is priced once it has a cost.
  Job rerun = Create(project_, "Document the quotas");
  TurnInput lost = Claim("w1");
  ASSERT_TRUE(store_
                  ->ChargeTurnUsage(lost.turn_id,
                                    TokenUsage{.input_tokens = 500, .output_tokens = 50}, "m",
                                    std::nullopt)
                  .ok());
  job = store_->GetJob(ScopeOf(project_), rerun.id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->usage.turns, 1);
  EXPECT_EQ(job->usage.unpriced_turns, 1);
  Exec("UPDATE turns SET lease_expires_at = 0 WHERE id = " + std::to_string(lost.turn_id));
  TurnInput again = Claim("w2");
  ASSERT_EQ(again.turn_id, lost.turn_id);
  auto finished = store_->FinishTurn(again.turn_id, "w2", Used("m", 200, 20, 100, 0, 700));
  ASSERT_TRUE(finished.ok()) << finished.status().message();
  ASSERT_EQ(*finished, LeaseState::kHeld);
  messages = store_->ListMessages(ScopeOf(project_), rerun.id);
  ASSERT_TRUE(messages.ok());
  ASSERT_EQ(messages->size(), 1u);
  EXPECT_EQ((*messages)[0].state, TurnState::kSucceeded);
  EXPECT_EQ((*messages)[0].input_tokens, 700);
  EXPECT_EQ((*messages)[0].output_tokens, 70);
  EXPECT_EQ((*messages)[0].cached_input_tokens, 100);
  EXPECT_EQ((*messages)[0].cost_micros, 700);
  job = store_->GetJob(ScopeOf(project_), rerun.id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->usage.tokens.input_tokens, 700);
  EXPECT_EQ(job->usage.tokens.output_tokens, 70);
  EXPECT_EQ(job->usage.cost_micros, 700);
  EXPECT_EQ(job->usage.turns, 1) << "one turn, however many attempts";
  EXPECT_EQ(job->usage.unpriced_turns, 0);

  // Both turns ended: what they spent counts against the month and is listed.
  auto spent = store_->SpendSince(org_.id, project_.id, 0);
  ASSERT_TRUE(spent.ok()) << spent.status().message();
  EXPECT_EQ(spent->project.tokens, 1115 + 770);
  EXPECT_EQ(spent->project.cost_micros, 3700);
  UsageQuery q{.org_id = org_.id,
               .project_id = project_.id,
               .since = 0,
               .until = NowMillis() + 86400 * 1000};
  auto rows = store_->ListUsage(q);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  UsageTotals listed;
  for (const UsageRow& row : *rows) {
    EXPECT_EQ(row.model, "m");
    listed.tokens += row.totals.tokens;
    listed.cost_micros += row.totals.cost_micros;
    listed.turns += row.totals.turns;
    listed.unpriced_turns += row.totals.unpriced_turns;
  }
  EXPECT_EQ(listed.tokens.input_tokens, 1710);
  EXPECT_EQ(listed.tokens.output_tokens, 175);
  EXPECT_EQ(listed.cost_micros, 3700);
  EXPECT_EQ(listed.turns, 2);
  EXPECT_EQ(listed.unpriced_turns, 0);

  // No tokens: nothing changes. An unknown turn: NotFound.
  ASSERT_TRUE(store_->ChargeTurnUsage(first.turn_id, TokenUsage{}, "m", 5).ok());
  job = store_->GetJob(ScopeOf(project_), archived.id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->usage.cost_micros, 3000);
  EXPECT_EQ(
      store_
          ->ChargeTurnUsage(first.turn_id + 1000, TokenUsage{.input_tokens = 1}, "m", std::nullopt)
          .code(),
      Code::kNotFound);
}

// A worker that finishes a turn no longer its own (archived meanwhile, or
// taken over after its lease lapsed) records nothing of the outcome, but the
// tokens it spent are added to the turn and its job.
TEST_P(StoreUsageTest, ALateFinishOfATurnNoLongerHeldStillChargesItsTokens) {
  Job archived = Create(project_, "Document the limits");
  TurnInput first = Claim("w1");
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), archived.id).ok());
  auto late = store_->FinishTurn(first.turn_id, "w1", Used("m", 1000, 100, 0, 0, 2000));
  ASSERT_TRUE(late.ok()) << late.status().message();
  EXPECT_EQ(*late, LeaseState::kCancelled);
  auto job = store_->GetJob(ScopeOf(project_), archived.id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->status, JobStatus::kArchived);
  EXPECT_EQ(job->usage.tokens.input_tokens, 1000);
  EXPECT_EQ(job->usage.cost_micros, 2000);
  auto messages = store_->ListMessages(ScopeOf(project_), archived.id);
  ASSERT_TRUE(messages.ok());
  ASSERT_EQ(messages->size(), 1u);
  EXPECT_EQ((*messages)[0].state, TurnState::kCancelled) << "the outcome is not recorded";
  EXPECT_EQ((*messages)[0].summary, std::nullopt);
  EXPECT_EQ((*messages)[0].output_tokens, 100);

  Job taken = Create(project_, "Document the quotas");
  TurnInput mine = Claim("w1");
  Exec("UPDATE turns SET lease_expires_at = 0 WHERE id = " + std::to_string(mine.turn_id));
  TurnInput theirs = Claim("w2");
  ASSERT_EQ(theirs.turn_id, mine.turn_id);
  late = store_->FinishTurn(mine.turn_id, "w1", Used("m", 300, 30, 0, 0, 600));
  ASSERT_TRUE(late.ok()) << late.status().message();
  EXPECT_EQ(*late, LeaseState::kLost);
  auto finished = store_->FinishTurn(theirs.turn_id, "w2", Used("m", 200, 20, 0, 0, 400));
  ASSERT_TRUE(finished.ok());
  EXPECT_EQ(*finished, LeaseState::kHeld);
  job = store_->GetJob(ScopeOf(project_), taken.id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->status, JobStatus::kCompleted);
  EXPECT_EQ(job->usage.tokens.input_tokens, 500) << "both attempts' tokens";
  EXPECT_EQ(job->usage.cost_micros, 1000);
  EXPECT_EQ(job->usage.turns, 1);
  messages = store_->ListMessages(ScopeOf(project_), taken.id);
  ASSERT_TRUE(messages.ok());
  EXPECT_EQ((*messages)[0].input_tokens, 500);
}

TEST_P(StoreUsageTest, UsageIsListedByUtcDayProjectAndModel) {
  Project docs2 = NewProject(org_.id, 100);
  const UnixMillis late = At("2026-11-25T23:59:59.999Z");
  const UnixMillis midnight = At("2026-11-26T00:00:00.000Z");
  RunJob(project_, Used("m-a", 100, 10, 50, 0, 7), late);
  RunJob(project_, Used("m-a", 200, 20, 0, 100, 11), At("2026-11-25T08:00:00Z"));
  RunJob(project_, Used("m-a", 1000, 1, 0, 0, std::nullopt), midnight);
  RunJob(project_, Used("m-b", 300, 30, 0, 0, std::nullopt), midnight + 1000);
  RunJob(docs2, Used("m-a", 400, 40, 0, 0, 13), midnight + 2000);
  RunJob(other_project_, Used("m-a", 5000, 500, 0, 0, 99), midnight);        // another organisation
  RunJob(project_, Used("m-a", 7, 7, 0, 0, 7), At("2026-11-27T00:00:00Z"));  // at `until`
  RunJob(project_, Used("m-a", 9, 9, 0, 0, 9), At("2026-11-24T23:59:59.999Z"));  // before

  UsageQuery q{
      .org_id = org_.id, .since = At("2026-11-25T00:00:00Z"), .until = At("2026-11-27T00:00:00Z")};
  auto rows = store_->ListUsage(q);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 4u);
  const UsageRow& day1 = (*rows)[0];
  EXPECT_EQ(day1.day, "2026-11-25");
  EXPECT_EQ(day1.project_id, project_.id);
  EXPECT_EQ(day1.model, "m-a");
  EXPECT_EQ(day1.totals.tokens.input_tokens, 300);
  EXPECT_EQ(day1.totals.tokens.output_tokens, 30);
  EXPECT_EQ(day1.totals.tokens.cached_input_tokens, 50);
  EXPECT_EQ(day1.totals.tokens.cache_write_tokens, 100);
  EXPECT_EQ(day1.totals.cost_micros, 18);
  EXPECT_EQ(day1.totals.turns, 2);
  EXPECT_EQ(day1.totals.unpriced_turns, 0);
  // The 26th: project_ before docs2 (by id), models in order within a project.
  std::vector<UsageRow> day2(rows->begin() + 1, rows->end());
  for (const UsageRow& r : day2) EXPECT_EQ(r.day, "2026-11-26");
  const bool docs2_last = project_.id < docs2.id;
  const UsageRow& a = day2[docs2_last ? 0 : 1];
  const UsageRow& b = day2[docs2_last ? 1 : 2];
  const UsageRow& other = day2[docs2_last ? 2 : 0];
  EXPECT_EQ(a.project_id, project_.id);
  EXPECT_EQ(a.model, "m-a");
  EXPECT_EQ(a.totals.tokens.input_tokens, 1000);
  EXPECT_EQ(a.totals.unpriced_turns, 1);
  EXPECT_EQ(a.totals.cost_micros, 0);
  EXPECT_EQ(b.project_id, project_.id);
  EXPECT_EQ(b.model, "m-b");
  EXPECT_EQ(b.totals.tokens.total(), 330);
  EXPECT_EQ(other.project_id, docs2.id);
  EXPECT_EQ(other.totals.cost_micros, 13);

  // One project of the organisation.
  q.project_id = docs2.id;
  rows = store_->ListUsage(q);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].totals.tokens.input_tokens, 400);
  // Another organisation's project through this one's: nothing.
  q.project_id = other_project_.id;
  rows = store_->ListUsage(q);
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->empty());

  UsageQuery backwards{.org_id = org_.id, .since = midnight, .until = late};
  EXPECT_EQ(store_->ListUsage(backwards).status().code(), Code::kInvalidArgument);

  // The same through the cached store.
  auto cached = NewCachedStore(Open(), CacheOptions{});
  q.project_id.reset();
  auto through = cached->ListUsage(q);
  ASSERT_TRUE(through.ok());
  EXPECT_EQ(through->size(), 4u);
}

TEST_P(StoreUsageTest, SpendSinceCountsTurnsThatEndedFromTheInstantOn) {
  Project docs2 = NewProject(org_.id, 100);
  const UnixMillis month = At("2026-11-01T00:00:00Z");
  RunJob(project_, Used("m", 1000, 100, 500, 0, 5000), month - 1);  // last month
  RunJob(project_, Used("m", 2000, 200, 1500, 0, 7000), month);
  RunJob(project_, Used("m", 10, 1, 0, 0, std::nullopt), month + 60000);
  RunJob(docs2, Used("m", 300, 30, 0, 0, 900), At("2026-11-20T12:00:00Z"));
  RunJob(other_project_, Used("m", 99999, 1, 0, 0, 99999), month + 1);

  auto spent = store_->SpendSince(org_.id, project_.id, month);
  ASSERT_TRUE(spent.ok()) << spent.status().message();
  EXPECT_EQ(spent->project.tokens, 2211);
  EXPECT_EQ(spent->project.cost_micros, 7000);
  EXPECT_EQ(spent->organisation.tokens, 2541);
  EXPECT_EQ(spent->organisation.cost_micros, 7900);

  spent = store_->SpendSince(org_.id, docs2.id, month);
  ASSERT_TRUE(spent.ok());
  EXPECT_EQ(spent->project.tokens, 330);
  EXPECT_EQ(spent->organisation.tokens, 2541);

  // A running turn has not ended: from an instant after every end, nothing.
  Create(project_, "Still running");
  Claim("w");
  spent = store_->SpendSince(org_.id, project_.id, At("2026-11-21T00:00:00Z"));
  ASSERT_TRUE(spent.ok());
  EXPECT_EQ(spent->project.tokens, 0);
  EXPECT_EQ(spent->organisation.cost_micros, 0);
}

TEST_P(StoreUsageTest, BudgetsRoundTripAndTheirUseIsListed) {
  // An organisation's budget, set and read back; then removed.
  Org org = org_;
  org.budget = MonthlyBudget{.tokens = 1000000, .cost_micros = 50000000};
  ASSERT_TRUE(store_->UpdateOrg(org).ok());
  auto got = store_->GetOrg(org_.id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->budget.tokens, 1000000);
  EXPECT_EQ(got->budget.cost_micros, 50000000);
  auto orgs = store_->ListOrgs();
  ASSERT_TRUE(orgs.ok());
  for (const Org& o : *orgs) EXPECT_EQ(o.budget.empty(), o.id != org_.id) << o.id;

  // A project's, set at creation and by an update.
  Project capped;
  capped.org_id = other_org_.id;
  capped.repository = "https://git.example/globex/docs";
  capped.base_ref = "main";
  capped.rate_limit_per_hour = 100;
  capped.budget.cost_micros = 2500000;
  auto created = store_->CreateProject(capped);
  ASSERT_TRUE(created.ok()) << created.status().message();
  auto read = store_->GetProject(ScopeOf(*created));
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->budget.tokens);
  EXPECT_EQ(read->budget.cost_micros, 2500000);
  Project updated = *read;
  updated.budget = MonthlyBudget{.tokens = 5000};
  ASSERT_TRUE(store_->UpdateProject(updated).ok());
  read = store_->GetProject(ScopeOf(*created));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->budget.tokens, 5000);
  EXPECT_FALSE(read->budget.cost_micros);

  // Use this month: project_ is under its organisation's budget; `capped` under
  // its own; other_project_ (globex, no budget of its own or its
  // organisation's) is not listed.
  const UnixMillis month = At("2026-11-01T00:00:00Z");
  RunJob(project_, Used("m", 100, 10, 0, 0, 40), month + 1);
  RunJob(other_project_, Used("m", 200, 20, 0, 0, 50), month + 2);
  RunJob(*created, Used("m", 300, 30, 0, 0, 60), month + 3);
  RunJob(*created, Used("m", 400, 40, 0, 0, 70), month - 1);  // last month

  auto uses = store_->ListBudgetUse(month);
  ASSERT_TRUE(uses.ok()) << uses.status().message();
  ASSERT_EQ(uses->size(), 2u);
  for (const ProjectBudgetUse& use : *uses) {
    if (use.project_id == project_.id) {
      EXPECT_TRUE(use.project_budget.empty());
      EXPECT_EQ(use.organisation_budget.tokens, 1000000);
      EXPECT_EQ(use.spent.project.tokens, 110);
      EXPECT_EQ(use.spent.organisation.cost_micros, 40);
    } else {
      EXPECT_EQ(use.project_id, created->id);
      EXPECT_EQ(use.project_budget.tokens, 5000);
      EXPECT_TRUE(use.organisation_budget.empty());
      EXPECT_EQ(use.spent.project.tokens, 330);
      EXPECT_EQ(use.spent.project.cost_micros, 60);
      EXPECT_EQ(use.spent.organisation.tokens, 330 + 220) << "globex's projects together";
    }
  }

  // Removed again: listed no more.
  org.budget = MonthlyBudget{};
  ASSERT_TRUE(store_->UpdateOrg(org).ok());
  got = store_->GetOrg(org_.id);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->budget.empty());
  uses = store_->ListBudgetUse(month);
  ASSERT_TRUE(uses.ok());
  ASSERT_EQ(uses->size(), 1u);
  EXPECT_EQ((*uses)[0].project_id, created->id);
}

// A claimed turn carries its organisation's budget as of the claim, with its
// project's: the turn checks both as it starts without reading either again.
TEST_P(StoreUsageTest, AClaimedTurnCarriesItsOrganisationsBudget) {
  Org org = org_;
  org.budget = MonthlyBudget{.tokens = 123456, .cost_micros = 7890};
  ASSERT_TRUE(store_->UpdateOrg(org).ok());
  Create(project_);
  TurnInput t = Claim("w");
  ASSERT_TRUE(t.org_budget);
  EXPECT_EQ(t.org_budget->tokens, 123456);
  EXPECT_EQ(t.org_budget->cost_micros, 7890);
  EXPECT_TRUE(t.project.budget.empty());

  // An organisation without one: none, known as none (not unknown).
  Create(other_project_);
  TurnInput other = Claim("w");
  ASSERT_EQ(other.project.id, other_project_.id);
  ASSERT_TRUE(other.org_budget);
  EXPECT_TRUE(other.org_budget->empty());
}

TEST_P(StoreUsageTest, QueueStatsCountTheTurnsWaitingAndTheOldest) {
  auto stats = store_->GetQueueStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->queued, 0);
  EXPECT_FALSE(stats->oldest_queued_at);

  Job first = Create(project_, "First");
  Create(other_project_, "Second");
  Create(project_, "Third");
  stats = store_->GetQueueStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->queued, 3);
  ASSERT_TRUE(stats->oldest_queued_at);
  EXPECT_EQ(*stats->oldest_queued_at, first.created_at);

  TurnInput running = Claim("w");
  stats = store_->GetQueueStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->queued, 2) << "a running turn waits no more";
  ASSERT_TRUE(store_->FinishTurn(running.turn_id, "w", TurnOutcome{.succeeded = true}).ok());

  auto cached = NewCachedStore(Open(), CacheOptions{});
  auto through = cached->GetQueueStats();
  ASSERT_TRUE(through.ok());
  EXPECT_EQ(through->queued, 2);
}

INSTANTIATE_TEST_SUITE_P(Store, StoreUsageTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
