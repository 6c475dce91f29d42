// UsageStore: the store's concern of what the turns spent: tokens and cost by
// day, project and model, and the spend that budgets are held to.
#pragma once

#include <string>
#include <vector>

#include "core/job.h"
#include "core/status.h"
#include "core/usage.h"

namespace docwright {

// Reads only: the spend is written by JobStore::FinishTurn and
// JobStore::ChargeTurnUsage with the turn it belongs to. Thread-safe; each
// call is one read transaction.
class UsageStore {
 public:
  virtual ~UsageStore() = default;

  // --- Usage and budgets (core/usage.h) ---
  // FinishTurn records each turn's TokenUsage, model and estimated cost
  // (TurnOutcome's) on the turn and adds them to its job's Job::usage, in the
  // same transaction. A turn that failed or was cancelled counts like any
  // other: its tokens were spent. FinishTurn and ChargeTurnUsage add to what
  // the turn's row holds, so the turn's tokens stay those of its job's totals
  // over every attempt.
  //
  // What the turns of `query` used, by day, project and model, in that order;
  // at most kMaxUsageRows rows (the rest left out: a caller given that many
  // must not take them for the whole). InvalidArgument if until < since.
  virtual Result<std::vector<UsageRow>> ListUsage(const UsageQuery& query) = 0;
  // What the project `project_id` and its organisation `org_id` spent in turns
  // that ended at or after `since` (a budget month's start): one read.
  virtual Result<BudgetSpend> SpendSince(const std::string& org_id, const std::string& project_id,
                                         UnixMillis since) = 0;
  // Every project with a budget of its own or of its organisation, and what
  // each spent since `since`; at most 10,000 projects.
  virtual Result<std::vector<ProjectBudgetUse>> ListBudgetUse(UnixMillis since) = 0;
};

}  // namespace docwright
