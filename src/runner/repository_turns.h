// Carries out a turn on the project's repository: brings the project's mirror up
// to date, lets the agent edit a workspace over the head of the job's branch,
// commits and pushes the edits with a lease on that head, and makes sure the
// branch has its pull request, whose title and description tell the whole
// branch against its base (runner/branch_story.h); the branch's review is
// stored with it. The job's prLink is that pull request. The job's publish
// mode (core/job.h) may instead put the edits straight onto the base branch,
// or merge the pull request once the checks pass (docs/api.md, "Publish
// modes").
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "agent/agent.h"
#include "forge/forge.h"
#include "git/git.h"
#include "git/mirror_pool.h"
#include "runner/runner_stores.h"
#include "runner/turn.h"

namespace docwright {

struct RepositoryTurnsOptions {
  // One bare mirror per repository is kept under it (git::MirrorPool), unless
  // the turns are given a pool.
  std::string mirrors_dir;
  std::string public_url;          // where the local forge's pages are served
  git::Identity identity;          // author and committer of the agent's commits
  git::TransferLimits git_limits;  // time limits of every fetch and push
  // Hosted forges: attempts per request and the longest wait between them.
  int forge_attempts = 4;
  std::chrono::milliseconds forge_max_delay{30000};
  // This server's default model (DOCWRIGHT_MODEL), used where neither the job
  // nor its project names one.
  std::optional<std::string> default_model;
  // The operator's price table (`serve --prices`): each turn's estimated cost
  // (TurnOutcome::cost_micros) and the cost budgets. Null or empty: no cost is
  // estimated and cost budgets are not enforced (token budgets are).
  std::shared_ptr<const PriceTable> prices;
  // The node's cache of what depends only on a commit (docs/commit_cache.h):
  // the site map of a turn's start and the checks of its edits, shared by the
  // runner, the agent and the branch's story, and by every turn starting from
  // the same commit. Null: each is computed each time.
  std::shared_ptr<docs::CommitCache> docs_cache;
};

class RepositoryTurns final : public TurnHandler {
 public:
  // `store`: the concerns turns read and write (runner_stores.h; a Store is all
  // of them), which keep the local forge's pull requests; `agent` does the
  // editing.
  // `mirrors`, if given, is the process's pool of mirrors (shared with the
  // workflows' engine); else the turns keep one of their own under
  // options.mirrors_dir, within options.git_limits.
  RepositoryTurns(RunnerStores store, agent::Agent& agent, RepositoryTurnsOptions options,
                  std::shared_ptr<git::MirrorPool> mirrors = nullptr);
  ~RepositoryTurns() override;

  // The pool the turns' mirrors come from.
  std::shared_ptr<git::MirrorPool> mirrors() const { return mirrors_; }

  // A turn succeeds when the agent does and its edits, if any, are pushed and
  // have a pull request. The first turn branches from the project's base branch;
  // later ones start from the branch as it is on the remote (people may push to
  // it). If the branch moves while the turn runs, the push is refused and the
  // turn is carried out once more from the new head; if it moves again, the turn
  // fails. A turn without edits succeeds with the job's pull request, if any:
  // one is opened if the branch exists without it (a crash between push and
  // pull request). A re-run of a turn whose commit is on the branch already
  // (found by its trailer) does not run the agent again: it opens or updates the
  // pull request only.
  // Publish modes: PublishMode::kPush commits onto the base branch's head and
  // pushes the base under a lease on it, no branch and no pull request, when
  // the checks report no new problem on the commit; a new problem, or a base
  // that moves twice, falls back to the branch and its pull request, saying
  // why. kAutomerge merges the pull request through the forge (Forge::Merge,
  // at the commit pushed) when the checks report no new problem on the branch;
  // one the forge refuses stays open, the turn saying why. A follow-up after
  // the job's pull request was merged or closed works on a new branch from the
  // base (the job's with "-2", "-3", ...: the first the remote lacks), to which
  // the job is moved (Store::SetJobBranch) before its first push, and opens a
  // new pull request.
  // The agent may read the job's context repositories (Job.context, or all of
  // the project's): each is fetched as the turn starts and read at that commit
  // for the whole turn, never written; one that cannot be fetched is left out,
  // and the agent is told why.
  // Budgets (core/usage.h): when the project or its organisation has a
  // monthly budget, what both spent this month is read first
  // (Store::SpendSince); one spent fails the turn at once with
  // BudgetSpentError's text, nothing fetched or asked of the model. Otherwise
  // the agent runs under TurnInput::spend_limit: one that crosses it ends
  // after that step (AgentResult::budget_error), its work is published as
  // usual (committed, pushed, the pull request opened or updated), and the
  // turn ends failed with that error and the pull request's link. Every
  // outcome carries the model and the estimated cost of its tokens
  // (options.prices).
  TurnOutcome RunTurn(const TurnInput& input, CancelToken& cancel) override;

  // Merges the local forge's pull request `pr` into its base on its project's
  // repository with `method` ("merge" or "fast-forward": git::MergeMethod), as
  // the turns' identity and within their git time limits, then records it
  // merged. A branch already in its base is recorded merged as the base's
  // head, with nothing pushed. Errors as git::Mirror::Merge and
  // MarkPullRequestMerged (Conflict when it was merged or closed meanwhile;
  // the base has moved then). Thread-safe; serialised with the project's
  // turns' use of the repository by its mirror.
  // `expected_head` (empty: any) is the branch commit the merger reviewed: the
  // branch at another commit is Conflict, nothing merged.
  // The job working on the branch, if it has this pull request, gets prState
  // "merged" (Store::SetPullRequestState).
  Result<PullRequestMerge> MergePullRequest(const LocalPullRequest& pr, std::string_view method,
                                            std::string_view expected_head = {});

 private:
  // The steps of a turn, in order. A round goes through them once; a second
  // round starts over from a fresh fetch when the push found the branch moved.
  // What they share, defined with them: the turn's state over its rounds (its
  // input, mirror, work budget, tokens spent) and one round's state (where it
  // starts, the agent's edits, the outcome and pull request it is making). Each
  // step returns the turn's outcome if the turn ends there.
  struct Turn;
  struct Round;
  struct BudgetOwners;
  // RunTurn once the model is resolved and the budgets allow the turn: the
  // rounds over the repository, and the outcome a crossed budget makes of
  // them (budgets.cc).
  TurnOutcome RunRounds(TurnInput& input, CancelToken& cancel, const BudgetOwners& owners) const;
  // budgets.cc: when the project or its organisation has a monthly budget,
  // reads what both spent this month; the turn's failed outcome if one is
  // spent (or cannot be read), else sets input.spend_limit and `owners`.
  std::optional<TurnOutcome> ApplyBudgets(TurnInput& input, BudgetOwners& owners) const;
  // budgets.cc: a turn whose agent crossed a budget (turn.budget_error) and
  // whose work was published (`outcome` succeeded) fails with that error,
  // keeping its pull request's link.
  TurnOutcome AfterBudgetStop(Turn& turn, TurnOutcome outcome) const;
  // The price table, if one with models is loaded; else null.
  const PriceTable* Prices() const;
  // Fetches the job's branch and the base and looks on the branch for the
  // turn's commit (a re-run). Without one, opens the workspace over the start
  // and the write policy from the site as it is before any edit.
  std::optional<TurnOutcome> Prepare(Turn& turn, Round& round) const;
  // Prepare's step for a turn that runs the agent, once per turn: opens the
  // job's context repositories (at most kMaxContextRepositories), each fetched
  // within the turn's cancel token and the mirrors' limits and charging the
  // turn's work budget; those that cannot be read are noted for the agent.
  void ReadContext(Turn& turn) const;
  // Runs the agent over the workspace (not for a turn pushed before); fails the
  // turn if the agent did, or if the turn's work budget is spent.
  std::optional<TurnOutcome> Edit(Turn& turn, Round& round) const;
  // Checks, commits and pushes the edits, then makes sure the branch has its pull
  // request; for a turn pushed before, only the latter. Nullopt when the push
  // was refused because the branch moved in the first round: the turn goes on
  // with a second one.
  std::optional<TurnOutcome> Publish(Turn& turn, Round& round) const;
  // Publish's checks: fails the turn if it changed a path the agent may not
  // change; else writes the pull request's title and body.
  std::optional<TurnOutcome> CheckEdits(Turn& turn, Round& round) const;
  // Publish's step before the pull request, once the branch is pushed: the
  // body tells the whole branch against its base (every instruction of the job,
  // every file changed, the checks run again on the branch as it stands), and
  // the branch's review is stored. Neither failing fails the turn: the body
  // then tells this turn only, and no review is stored. Ends the turn only if
  // it is cancelled.
  std::optional<TurnOutcome> TellStory(Turn& turn, Round& round) const;
  // Publish's last step: opens the pull request, or updates it, through the
  // project's forge.
  TurnOutcome OpenPullRequest(Turn& turn, Round& round) const;
  // Adds a publish step (core/turn.h) to the round's outcome, and tells the
  // turn's step sink.
  void Published(Turn& turn, Round& round, const char* action, std::string text) const;

  // publish_modes.cc (runner/turn_rounds.h)
  // What a forge of the turn's project needs: the records and mirror (the
  // local forge's), `budget` for its diffs, the identity it merges as, and
  // waits that end when the turn is cancelled.
  forge::ForgeContext ForgeContextFor(Turn& turn, WorkBudget& budget) const;
  // At the turn's start: when the job's pull request was merged or closed
  // (Job::pr_state, or the local forge's record of it), moves `input`'s job to
  // a new branch, noted in `turn`. Ends the turn only if the remote cannot be
  // read or it is cancelled.
  std::optional<TurnOutcome> NewBranchIfDone(TurnInput& input, Turn& turn) const;
  // Before the first push to a new branch (NewBranchIfDone): records the job
  // on it. Fails the turn if that cannot be done.
  std::optional<TurnOutcome> RecordNewBranch(Turn& turn) const;
  // Whether the round's edits go onto the base branch: PublishMode::kPush,
  // while the job has neither a branch on the remote nor a pull request.
  bool OntoBase(const Turn& turn, const Round& round) const;
  // Prepare's step for an OntoBase round: a re-run of a turn whose commit is
  // on the base branch already (found by its trailer) ends with it.
  std::optional<TurnOutcome> PushedOntoBaseBefore(Turn& turn, Round& round) const;
  // Commits the edits onto the base's head, checks the commit, and pushes the
  // base under a lease. The turn's outcome when it ends there; nullopt with
  // `again` set when the base moved in the first round (the turn is carried
  // out again); nullopt otherwise: the turn falls back to the pull request
  // with the commit made (round.commit), having said why.
  std::optional<TurnOutcome> PushOntoBase(Turn& turn, Round& round, bool& again) const;
  // Once the pull request `pr` is opened or updated: merges it through
  // `forge` if the job is PublishMode::kAutomerge and the checks report no new
  // problem on the branch (round.problems), else says why not. Ends the turn
  // only if it is cancelled.
  std::optional<TurnOutcome> MergeIfChecksPass(Turn& turn, Round& round, forge::Forge& forge,
                                               const forge::PullRequest& pr) const;

  RunnerStores store_;
  agent::Agent& agent_;
  RepositoryTurnsOptions options_;
  std::shared_ptr<git::MirrorPool> mirrors_;  // never null
};

}  // namespace docwright
