// Internal to RepositoryTurns (runner/repository_turns.h): what the steps of a
// turn share, over its rounds and within one. Split over several files:
//   repository_turns.cc  the turn's steps: prepare, edit, publish on the branch,
//                        its story and pull request
//   budgets.cc           the monthly budgets: checked as the turn starts, the
//                        agent's spending limit, the turn failed once published
//                        when the agent crossed one
//   publish_modes.cc     how the edits are published: onto the base branch
//                        (PublishMode::kPush), merged once the checks pass
//                        (kAutomerge), and a new branch for a follow-up after
//                        the job's pull request was merged or closed
// A Turn and its Rounds live on the turn's thread only.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "agent/write_policy.h"
#include "core/work_budget.h"
#include "forge/forge.h"
#include "git/git.h"
#include "runner/repository_turns.h"

namespace docwright {

// A turn that failed with `error` (clear, and free of secrets).
inline TurnOutcome FailedTurn(std::string error) {
  TurnOutcome r;
  r.error = std::move(error);
  return r;
}

// A turn stopped short because it was cancelled: nothing of it is recorded but
// the tokens it spent (RunRounds sets them, and the runner charges them).
inline TurnOutcome InterruptedTurn() {
  TurnOutcome r;
  r.interrupted = true;
  return r;
}

// Whose budget each kind of the agent's spending limit (TurnInput::spend_limit)
// is: the tightest of the project's and the organisation's.
struct RepositoryTurns::BudgetOwners {
  BudgetOwner tokens = BudgetOwner::kProject;
  BudgetOwner cost = BudgetOwner::kProject;
};

// What the steps of one turn share, over all its rounds.
struct RepositoryTurns::Turn {
  const TurnInput& input;  // with the model resolved as the turn started
  CancelToken& cancel;
  git::Mirror& repo;
  std::string repository;  // the project's, without credentials, for messages
  // A fetch or push under way is abandoned when the job is archived.
  std::function<bool()> stopped;
  // What the turn's work over the repository and the model's replies may cost,
  // charged by every walk, read, search, check and diff (docs/operations.md).
  WorkBudget work;
  TokenUsage spent;  // by the agent, over both rounds when the branch moved
  // The context repositories the agent reads (ReadContext), opened once and
  // read at the same commits over both rounds. The snapshots go before their
  // mirrors, and before `work`, which they charge.
  bool context_read = false;
  std::vector<std::shared_ptr<git::Mirror>> context_mirrors;
  std::vector<std::unique_ptr<git::Snapshot>> context_snapshots;
  agent::TurnContext context;
  // Set when the job's pull request was merged or closed and the turn works on
  // a new branch (input.job.ref): the branch the job had, and what became of
  // its pull request ("merged" or "closed"). The job is moved to the new
  // branch in the store once there is something to push to it.
  std::optional<std::string> earlier_branch;
  std::string earlier_state;
  bool branch_recorded = false;
  // Whose budgets the agent runs under, and what the agent said when it
  // crossed one (AgentResult::budget_error): the turn fails with it once its
  // work is published.
  BudgetOwners budget_owners;
  std::optional<std::string> budget_error;
};

// One round of a turn: from the fetch to the push, or to the pull request.
struct RepositoryTurns::Round {
  // The agent's edits and what they are checked against.
  struct Edits {
    std::unique_ptr<git::Snapshot> snapshot;   // where the round starts
    std::optional<git::Workspace> workspace;   // over *snapshot
    std::optional<agent::WritePolicy> policy;  // from the site as it was before any edit
    agent::AgentResult result;
  };

  int number = 1;
  std::optional<std::string> branch_head;    // nullopt: the job's branch is not on the remote
  std::optional<std::string> pushed_before;  // the message of the turn's commit, on a re-run
  std::optional<Edits> edits;                // unless pushed before
  TurnOutcome done;                          // the outcome if the round succeeds
  forge::PullRequestSpec spec;
  // The round's commit, once made (a push onto the base branch that falls
  // back to the pull request pushes the same commit to the job's branch).
  std::optional<std::string> commit;
  // What the checks report on the branch as it stands (TellStory); nullopt
  // when they could not be run.
  std::optional<std::vector<std::string>> problems;
};

}  // namespace docwright
