// The SQL store: what turns used, read back (Store::ListUsage, SpendSince,
// ListBudgetUse) and the work queue's depth (Store::GetQueueStats). Each is one
// statement in one read, over the turns that ended in a range of time (the
// turns_finished index), so a scrape or a turn's budget check costs one probe
// and a scan of the month's turns of one organisation at most.
//
// A turn counts as one that used the model (UsageTotals::turns) if it names a
// model or used tokens, as FinishTurn counts it in Job::usage; of those, one
// without a cost is unpriced.
#include <algorithm>

#include "core/time.h"
#include "store/sql/internal.h"

namespace docwright::sql {
namespace {

constexpr int64_t kMillisPerDay = 86400 * 1000;
// Store::ListUsage's and Store::ListBudgetUse's bounds.
constexpr int64_t kMaxBudgetProjects = 10000;

// The UTC day of a turn's end, as a whole number of days since the epoch: the
// same integer division in both databases (finished_at is an integer in both),
// turned into "YYYY-MM-DD" here rather than by either's date functions.
#define DW_USAGE_DAY "t.finished_at / 86400000"
#define DW_COUNTED "(t.model <> '' OR t.input_tokens + t.output_tokens > 0)"

// ?1 the organisation, ?2 one of its projects or NULL for all, [?3, ?4) when
// the turns ended, ?5 the most rows.
#define DW_LIST_USAGE                                                                          \
  "SELECT " DW_USAGE_DAY                                                                       \
  " AS day_number, j.project_id, t.model, SUM(t.input_tokens) AS input_tokens, "               \
  "SUM(t.output_tokens) AS output_tokens, SUM(t.cached_input_tokens) AS cached_input_tokens, " \
  "SUM(t.cache_write_tokens) AS cache_write_tokens, SUM(COALESCE(t.cost_micros, 0)) AS "       \
  "cost_micros, COUNT(*) AS turns, SUM(CASE WHEN t.cost_micros IS NULL THEN 1 ELSE 0 END) AS " \
  "unpriced_turns FROM turns t JOIN jobs j ON j.id = t.job_id JOIN projects p ON "             \
  "p.id = j.project_id WHERE p.org_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR j.project_id = "   \
  "CAST(?2 AS TEXT)) AND t.finished_at >= ?3 AND t.finished_at < ?4 AND " DW_COUNTED           \
  " GROUP BY " DW_USAGE_DAY ", j.project_id, t.model ORDER BY " DW_USAGE_DAY                   \
  ", j.project_id, "                                                                           \
  "t.model LIMIT ?5"
constexpr Statement kListUsage{DW_LIST_USAGE, DW_LIST_USAGE};
#undef DW_LIST_USAGE

// What the project ?2 and its organisation ?1 spent in turns that ended at ?3
// or later.
#define DW_SPEND_SINCE                                                                        \
  "SELECT COALESCE(SUM(CASE WHEN j.project_id = CAST(?2 AS TEXT) THEN t.input_tokens + "      \
  "t.output_tokens ELSE 0 END), 0) AS project_tokens, COALESCE(SUM(CASE WHEN j.project_id = " \
  "CAST(?2 AS TEXT) THEN COALESCE(t.cost_micros, 0) ELSE 0 END), 0) AS project_cost, "        \
  "COALESCE(SUM(t.input_tokens + t.output_tokens), 0) AS org_tokens, "                        \
  "COALESCE(SUM(COALESCE(t.cost_micros, 0)), 0) AS org_cost FROM turns t JOIN jobs j ON "     \
  "j.id = t.job_id JOIN projects p ON p.id = j.project_id WHERE p.org_id = ?1 AND "           \
  "t.finished_at >= ?3"
constexpr Statement kSpendSince{DW_SPEND_SINCE, DW_SPEND_SINCE};
#undef DW_SPEND_SINCE

// Every project under a budget, its own or its organisation's, with what the
// project and the organisation spent in turns that ended at ?1 or later; ?2
// the most projects.
#define DW_BUDGET_USE                                                                              \
  "WITH spent AS (SELECT j.project_id, p.org_id, SUM(t.input_tokens + t.output_tokens) AS "        \
  "tokens, SUM(COALESCE(t.cost_micros, 0)) AS cost FROM turns t JOIN jobs j ON j.id = t.job_id "   \
  "JOIN projects p ON p.id = j.project_id WHERE t.finished_at >= ?1 GROUP BY j.project_id, "       \
  "p.org_id), org_spent AS (SELECT org_id, SUM(tokens) AS tokens, SUM(cost) AS cost FROM spent "   \
  "GROUP BY org_id) "                                                                              \
  "SELECT p.id AS project_id, p.token_budget, p.cost_budget_micros, o.token_budget AS "            \
  "org_token_budget, o.cost_budget_micros AS org_cost_budget_micros, COALESCE(s.tokens, 0) AS "    \
  "project_tokens, COALESCE(s.cost, 0) AS project_cost, COALESCE(os.tokens, 0) AS org_tokens, "    \
  "COALESCE(os.cost, 0) AS org_cost FROM projects p JOIN orgs o ON o.id = p.org_id "               \
  "LEFT JOIN spent s ON s.project_id = p.id LEFT JOIN org_spent os ON os.org_id = p.org_id "       \
  "WHERE p.token_budget IS NOT NULL OR p.cost_budget_micros IS NOT NULL OR o.token_budget IS NOT " \
  "NULL OR o.cost_budget_micros IS NOT NULL ORDER BY p.id LIMIT ?2"
constexpr Statement kListBudgetUse{DW_BUDGET_USE, DW_BUDGET_USE};
#undef DW_BUDGET_USE

// The turns waiting to run, and when the oldest of them was asked for (its
// message's creation).
#define DW_QUEUE_STATS                                                                      \
  "SELECT COUNT(*) AS queued, MIN(m.created_at) AS oldest FROM turns t JOIN messages m ON " \
  "m.job_id = t.job_id AND m.seq = t.seq WHERE t.state = 'queued'"
constexpr Statement kQueueStats{DW_QUEUE_STATS, DW_QUEUE_STATS};
#undef DW_QUEUE_STATS

#undef DW_COUNTED
#undef DW_USAGE_DAY

// "2026-11-26": the UTC day `day_number` days after the epoch.
std::string DayName(int64_t day_number) {
  return FormatRfc3339(day_number * kMillisPerDay).substr(0, 10);
}

Spend ReadSpend(const Rows& r, std::string_view tokens, std::string_view cost) {
  return Spend{.tokens = r.Int(tokens), .cost_micros = r.Int(cost)};
}

}  // namespace

Result<std::vector<UsageRow>> SqlStore::ListUsage(const UsageQuery& query) {
  if (query.until < query.since) {
    return Status::InvalidArgument("the end of the usage range is before its start");
  }
  return Read<std::vector<UsageRow>>([&](Connection& c) -> Result<std::vector<UsageRow>> {
    auto r = c.Exec(kListUsage, {V(query.org_id), V(query.project_id), V(query.since),
                                 V(query.until), V(kMaxUsageRows)});
    if (!r.ok()) return r.status();
    std::vector<UsageRow> rows;
    while (r->Next()) {
      UsageRow row;
      row.day = DayName(r->Int("day_number"));
      row.project_id = r->Text("project_id");
      row.model = r->Text("model");
      row.totals.tokens = TokenUsage{.input_tokens = r->Int("input_tokens"),
                                     .output_tokens = r->Int("output_tokens"),
                                     .cached_input_tokens = r->Int("cached_input_tokens"),
                                     .cache_write_tokens = r->Int("cache_write_tokens")};
      row.totals.cost_micros = r->Int("cost_micros");
      row.totals.turns = r->Int("turns");
      row.totals.unpriced_turns = r->Int("unpriced_turns");
      rows.push_back(std::move(row));
    }
    return rows;
  });
}

Result<BudgetSpend> SqlStore::SpendSince(const std::string& org_id, const std::string& project_id,
                                         UnixMillis since) {
  return Read<BudgetSpend>([&](Connection& c) -> Result<BudgetSpend> {
    auto r = c.Exec(kSpendSince, {V(org_id), V(project_id), V(since)});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status::Internal("no spend row");
    return BudgetSpend{.project = ReadSpend(*r, "project_tokens", "project_cost"),
                       .organisation = ReadSpend(*r, "org_tokens", "org_cost")};
  });
}

Result<std::vector<ProjectBudgetUse>> SqlStore::ListBudgetUse(UnixMillis since) {
  return Read<std::vector<ProjectBudgetUse>>(
      [&](Connection& c) -> Result<std::vector<ProjectBudgetUse>> {
        auto r = c.Exec(kListBudgetUse, {V(since), V(kMaxBudgetProjects)});
        if (!r.ok()) return r.status();
        std::vector<ProjectBudgetUse> out;
        while (r->Next()) {
          ProjectBudgetUse use;
          use.project_id = r->Text("project_id");
          use.project_budget = ReadBudget(*r);
          use.organisation_budget =
              MonthlyBudget{.tokens = r->OptInt("org_token_budget"),
                            .cost_micros = r->OptInt("org_cost_budget_micros")};
          use.spent = BudgetSpend{.project = ReadSpend(*r, "project_tokens", "project_cost"),
                                  .organisation = ReadSpend(*r, "org_tokens", "org_cost")};
          out.push_back(std::move(use));
        }
        return out;
      });
}

Result<QueueStats> SqlStore::GetQueueStats() {
  return Read<QueueStats>([&](Connection& c) -> Result<QueueStats> {
    auto r = c.Exec(kQueueStats, {});
    if (!r.ok()) return r.status();
    QueueStats stats;
    if (r->Next()) {
      stats.queued = r->Int("queued");
      if (stats.queued > 0) stats.oldest_queued_at = r->OptInt("oldest");
    }
    return stats;
  });
}

}  // namespace docwright::sql
