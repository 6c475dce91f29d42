// Monthly budgets of a turn (runner/turn_rounds.h): checked as it starts,
// handed to the agent as a spending limit, and the outcome of a turn whose
// agent crossed one.
#include <spdlog/spdlog.h>

#include "core/metrics.h"
#include "core/text.h"
#include "core/time.h"
#include "runner/turn_rounds.h"

namespace docwright {
namespace {

std::string_view OwnerLabel(BudgetOwner owner) {
  return owner == BudgetOwner::kProject ? "project" : "organisation";
}

// Tightens `left` (and whose it is) with what `budget` leaves after `spent`.
void Tighten(std::optional<int64_t> budget, int64_t spent, BudgetOwner owner,
             std::optional<int64_t>& left, BudgetOwner& left_owner) {
  if (!budget) return;
  int64_t rest = *budget - spent;
  if (!left || rest < *left) {
    left = rest;
    left_owner = owner;
  }
}

}  // namespace

const PriceTable* RepositoryTurns::Prices() const {
  return options_.prices && !options_.prices->empty() ? options_.prices.get() : nullptr;
}

std::optional<TurnOutcome> RepositoryTurns::ApplyBudgets(TurnInput& input,
                                                         BudgetOwners& owners) const {
  const PriceTable* prices = Prices();
  MonthlyBudget project_budget = input.project.budget;
  // The claim read the organisation's budget with the project's; a turn not
  // claimed through the store reads it here.
  MonthlyBudget org_budget = input.org_budget.value_or(MonthlyBudget{});
  if (!input.org_budget) {
    auto org = store_.tenants.GetOrg(input.project.org_id);
    if (!org.ok() && org.status().code() != Code::kNotFound) {
      return FailedTurn("cannot read the organisation's budget: " + org.status().message() +
                        "; send the instruction again to retry");
    }
    if (org.ok()) org_budget = org->budget;
  }
  if (project_budget.empty() && org_budget.empty()) return std::nullopt;

  UnixMillis now = NowMillis();
  std::string_view currency = prices ? std::string_view(prices->currency()) : "";
  // A cost budget is kept only for a model the price table prices: without a
  // price the turn's spend would count as nothing, so the turn is refused
  // rather than run unchecked. (No model at all: the agent fails the turn
  // before any request.)
  const std::string model = input.job.model.value_or("");
  if (!model.empty() && (!prices || !prices->Find(model))) {
    const std::pair<BudgetOwner, const MonthlyBudget*> capped[] = {
        {BudgetOwner::kProject, &project_budget}, {BudgetOwner::kOrganisation, &org_budget}};
    for (const auto& [owner, budget] : capped) {
      if (!budget->cost_micros) continue;
      metrics::RecordBudgetStop(OwnerLabel(owner), "start");
      TurnOutcome refused =
          FailedTurn(CostBudgetName(owner, *budget->cost_micros, currency) + " cannot be kept: " +
                     (prices ? "the price table (serve --prices) has no price for the model " +
                                   OneLogLine(model, 200)
                             : std::string("this server has no price table (serve --prices)")) +
                     "; nothing was asked of the model");
      refused.budget_stopped = true;
      return refused;
    }
  }

  auto spent = store_.usage.SpendSince(input.project.org_id, input.project.id, MonthStart(now));
  if (!spent.ok()) {
    // Not run unchecked: a budget is a promise to the operator.
    return FailedTurn("cannot read what this month's turns spent against the budget: " +
                      spent.status().message() + "; send the instruction again to retry");
  }
  const std::pair<BudgetOwner, const MonthlyBudget*> budgets[] = {
      {BudgetOwner::kProject, &project_budget}, {BudgetOwner::kOrganisation, &org_budget}};
  for (const auto& [owner, budget] : budgets) {
    const Spend& used = owner == BudgetOwner::kProject ? spent->project : spent->organisation;
    if (auto error = BudgetSpentError(owner, *budget, used, currency, now)) {
      spdlog::info("job {}: turn {} refused: {}", input.job.id, input.message.seq, *error);
      metrics::RecordBudgetStop(OwnerLabel(owner), "start");
      TurnOutcome refused = FailedTurn(std::move(*error));
      refused.budget_stopped = true;
      return refused;
    }
  }

  SpendLimit limit;
  limit.prices = prices;
  Tighten(project_budget.tokens, spent->project.tokens, BudgetOwner::kProject, limit.tokens_left,
          owners.tokens);
  Tighten(org_budget.tokens, spent->organisation.tokens, BudgetOwner::kOrganisation,
          limit.tokens_left, owners.tokens);
  Tighten(project_budget.cost_micros, spent->project.cost_micros, BudgetOwner::kProject,
          limit.cost_micros_left, owners.cost);
  Tighten(org_budget.cost_micros, spent->organisation.cost_micros, BudgetOwner::kOrganisation,
          limit.cost_micros_left, owners.cost);
  if (limit.tokens_left) {
    const MonthlyBudget& b = owners.tokens == BudgetOwner::kProject ? project_budget : org_budget;
    limit.tokens_budget = TokenBudgetName(owners.tokens, *b.tokens);
  }
  if (limit.cost_micros_left) {
    const MonthlyBudget& b = owners.cost == BudgetOwner::kProject ? project_budget : org_budget;
    limit.cost_budget = CostBudgetName(owners.cost, *b.cost_micros, currency);
  }
  input.spend_limit = std::move(limit);
  return std::nullopt;
}

TurnOutcome RepositoryTurns::AfterBudgetStop(Turn& turn, TurnOutcome outcome) const {
  if (!turn.budget_error) return outcome;
  const std::optional<SpendLimit>& limit = turn.input.spend_limit;
  BudgetOwner owner = limit && limit->tokens_left && turn.spent.total() >= *limit->tokens_left
                          ? turn.budget_owners.tokens
                          : turn.budget_owners.cost;
  metrics::RecordBudgetStop(OwnerLabel(owner), "running");
  outcome.budget_stopped = true;
  if (outcome.succeeded) {
    // Published as any turn is; the job then ends failed with the budget's
    // error and keeps the pull request's link.
    outcome.succeeded = false;
    outcome.error = *turn.budget_error;
  } else {
    outcome.error = *turn.budget_error + "; then " + outcome.error.value_or("the turn failed");
  }
  spdlog::info("job {}: turn {} {}", turn.input.job.id, turn.input.message.seq,
               OneLogLine(*turn.budget_error));
  return outcome;
}

}  // namespace docwright
