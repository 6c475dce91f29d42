// What turns cost: the operator's price table, the estimated cost of a turn's
// tokens, monthly budgets and what a turn may still spend under them. Pure
// values and functions (the table is read from a file once, at start): safe
// from any thread once made.
//
// Money is counted in millionths of the price table's one currency ("micros"),
// as int64: sums are exact in SQL and in C++, and a turn's cost is rounded to
// the nearest micro once, when it ends.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "core/status.h"

namespace docwright {

// Prices of one model, in the table's currency per million tokens of each
// kind. `cached_input` and `cache_write` default to `input` when the file
// leaves them out.
struct ModelPrice {
  double input = 0;
  double cached_input = 0;
  double cache_write = 0;
  double output = 0;
};

// The largest price table: models and file size.
inline constexpr size_t kMaxPricedModels = 1000;
inline constexpr size_t kMaxPriceFileBytes = 1 << 20;

// The operator's price table (`serve --prices FILE`, docs/operations.md):
//   {"currency": "USD",
//    "models": {"claude-sonnet-4-5": {"input": 3, "cachedInput": 0.3,
//                                     "cacheWrite": 3.75, "output": 15}, ...}}
// Prices per million tokens, each 0 to 1,000,000; currency 1 to 8 of [A-Z]
// (an ISO 4217 code, or any the operator uses). No built-in prices: they go
// stale. A model is looked up by its exact name, then by the longest "prefix*"
// key it starts with ("claude-sonnet-4*").
class PriceTable {
 public:
  PriceTable() = default;  // empty: no model priced, currency ""

  // InvalidArgument naming the field and what is wrong; never half-applied.
  static Result<PriceTable> Parse(std::string_view json);
  // Parse of the file at `path`; InvalidArgument if it cannot be read or is
  // over kMaxPriceFileBytes.
  static Result<PriceTable> Load(const std::string& path);

  const std::string& currency() const { return currency_; }
  bool empty() const { return models_.empty(); }
  // The model's prices; none if the table does not name it.
  std::optional<ModelPrice> Find(std::string_view model) const;
  // The estimated cost of `usage` with `model`, in micros, rounded to the
  // nearest: the uncached input (input - cached - cache writes) at `input`, the
  // cached input at `cached_input`, cache writes at `cache_write`, the output at
  // `output`. None if the table does not name the model.
  std::optional<int64_t> CostMicros(std::string_view model, const TokenUsage& usage) const;
  // The models named, exact names and "prefix*" keys, sorted.
  std::vector<std::string> Models() const;

 private:
  std::string currency_;
  std::map<std::string, ModelPrice, std::less<>> models_;
};

// "12.345678 USD" cut to what matters: at least two decimals, at most six
// ("0.0042 USD", "12.50 USD"); without a currency, the number alone.
std::string FormatCost(int64_t micros, std::string_view currency);
// A cost as a person writes it ("50", "12.5", "0.25"): micros. InvalidArgument
// for anything else (negative, more than six decimals, over 1e12).
Result<int64_t> ParseCost(std::string_view text);
// The cost as a JSON number of currency units (micros / 1e6).
double CostUnits(int64_t micros);

// The first instant (Unix ms) of the calendar month in UTC that `now` is in:
// where a budget month starts.
UnixMillis MonthStart(UnixMillis now);
// "2026-11": the budget month of `now`, for messages.
std::string MonthName(UnixMillis now);

// What a project or an organisation spent in a budget month.
struct Spend {
  int64_t tokens = 0;       // TokenUsage::total of its turns
  int64_t cost_micros = 0;  // estimated, of its priced turns
};

// Whose budget: the project's or the organisation's, for messages.
enum class BudgetOwner { kProject, kOrganisation };

// How messages name a budget: "the project's monthly token budget (1,000,000
// tokens)", "the organisation's monthly cost budget (50.00 USD)" (as
// BudgetSpentError does, and SpendLimit's tokens_budget and cost_budget).
std::string TokenBudgetName(BudgetOwner owner, int64_t tokens);
std::string CostBudgetName(BudgetOwner owner, int64_t micros, std::string_view currency);

// Error text if `spent` has reached `budget` (tokens or cost), naming the
// budget, e.g. "the project's monthly token budget (1,000,000 tokens) is spent:
// 1,000,412 tokens used in 2026-11"; none if it has not. `now` names the month.
std::optional<std::string> BudgetSpentError(BudgetOwner owner, const MonthlyBudget& budget,
                                            const Spend& spent, std::string_view currency,
                                            UnixMillis now);

// What a turn may still spend: set by the runner from the budgets that apply
// (the project's and the organisation's) and what they have spent this month,
// and charged by the agent as the model answers. Not thread-safe (one turn's).
struct SpendLimit {
  // Tokens and cost (micros) left under the tightest budget of each kind;
  // none: that kind is not capped.
  std::optional<int64_t> tokens_left;
  std::optional<int64_t> cost_micros_left;
  // The budget each kind belongs to, as BudgetSpentError names it ("the
  // project's monthly token budget (1,000,000 tokens)").
  std::string tokens_budget;
  std::string cost_budget;
  // To price the turn's tokens; not owned, outlives the turn. Null: cost is not
  // capped whatever cost_micros_left says.
  const PriceTable* prices = nullptr;

  // Error text once `used` by `model` (the turn so far) has crossed a limit:
  // "the turn was stopped after it crossed the project's monthly cost budget
  // (50.00 USD)"; none while within.
  std::optional<std::string> Crossed(std::string_view model, const TokenUsage& used) const;
};

// --- What the store reads of usage (store/store.h) ---

// The most rows Store::ListUsage returns.
inline constexpr int64_t kMaxUsageRows = 100000;

// What turns used (Store::ListUsage): those of an organisation, or of one of its
// projects, that ended in [since, until), in Unix ms.
struct UsageQuery {
  std::string org_id;
  std::optional<std::string> project_id;  // none: all the organisation's projects
  UnixMillis since = 0;
  UnixMillis until = 0;
};

// One line of Store::ListUsage: a day (UTC, "2026-11-26"), a project and a
// model ("" for turns that used none), and what the turns that ended then used.
struct UsageRow {
  std::string day;
  std::string project_id;
  std::string model;
  UsageTotals totals;
};

// What a project and its organisation spent from an instant on (Store::SpendSince).
struct BudgetSpend {
  Spend project;
  Spend organisation;
};

// A project under a budget, its own or its organisation's, and what each has
// spent this month (Store::ListBudgetUse, for the metrics).
struct ProjectBudgetUse {
  std::string project_id;
  MonthlyBudget project_budget;
  MonthlyBudget organisation_budget;
  BudgetSpend spent;
};

}  // namespace docwright
