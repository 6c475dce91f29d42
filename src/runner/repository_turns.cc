#include "runner/repository_turns.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "agent/write_policy.h"
#include "core/crash_point.h"
#include "core/text.h"
#include "docs/docs.h"
#include "forge/forge.h"
#include "runner/branch_story.h"
#include "runner/pull_request_text.h"
#include "runner/turn_rounds.h"

namespace docwright {
namespace {

// How far back from a branch's head a re-run looks for its own commit.
constexpr int kMaxCommitsToSearch = 50;
// A context repository's files are counted for the agent up to this many
// ("more than" past it), visiting at most this many entries of its tree.
constexpr size_t kMaxContextFilesCounted = 100000;
constexpr uint64_t kMaxContextCountEntries = 200000;

// The context repositories of `listed` a turn of `job` reads: the job's own
// list, if it has one (names the project lacks are noted in
// `context.unread`), else all of the project's; at most
// kMaxContextRepositories, each once.
std::vector<const ContextRepository*> ChooseContext(const Job& job,
                                                    const std::vector<ContextRepository>& listed,
                                                    agent::TurnContext& context) {
  std::vector<const ContextRepository*> chosen;
  auto named = [&](const std::string& name) -> const ContextRepository* {
    for (const ContextRepository& repo : listed) {
      if (repo.name == name) return &repo;
    }
    return nullptr;
  };
  if (job.context) {
    for (const std::string& name : *job.context) {
      if (chosen.size() == kMaxContextRepositories ||
          context.unread.size() == kMaxContextRepositories) {
        break;
      }
      const ContextRepository* repo = named(name);
      if (!repo) {
        context.unread.push_back({name, "the project has no context repository of that name"});
      } else if (std::find(chosen.begin(), chosen.end(), repo) == chosen.end()) {
        chosen.push_back(repo);
      }
    }
  } else {
    for (const ContextRepository& repo : listed) {
      if (chosen.size() == kMaxContextRepositories) break;
      chosen.push_back(&repo);
    }
  }
  return chosen;
}

// The branch of `repo` a turn reads: its own, else the remote's default branch
// (what HEAD names there now). An error says why the repository cannot be read.
Result<std::string> ContextBranch(const ContextRepository& repo,
                                  const git::Credentials& credentials,
                                  const git::TransferLimits& limits) {
  std::string branch = repo.branch.value_or("");
  if (!branch.empty()) return branch;
  auto probe = git::ProbeRemote(repo.repository, credentials, limits);
  if (!probe.ok()) return probe.status();
  if (!probe->default_branch) {
    return Status::NotFound("the repository has no default branch (is it empty?)");
  }
  return *probe->default_branch;
}

// How many files `snapshot` has, counted within a bound of its own (and the
// turn's `work`): a huge tree costs the turn a little, and is told as "more
// than" (`*cut`). The snapshot charges `work` again afterwards.
size_t CountFiles(git::Snapshot& snapshot, const CancelToken& cancel, WorkBudget& work, bool* cut) {
  size_t files = 0;
  WorkBudget counting(WorkBudget::Limits{.entries = kMaxContextCountEntries}, &cancel,
                      std::chrono::steady_clock::time_point::max(), &work);
  snapshot.SetBudget(&counting);
  auto walked = snapshot.Walk("", kMaxContextFilesCounted, cut);
  snapshot.SetBudget(&work);
  if (walked.ok()) files = walked->size();
  *cut = *cut || !walked.ok();
  return files;
}

}  // namespace

RepositoryTurns::RepositoryTurns(RunnerStores store, agent::Agent& agent,
                                 RepositoryTurnsOptions options,
                                 std::shared_ptr<git::MirrorPool> mirrors)
    : store_(store), agent_(agent), options_(std::move(options)), mirrors_(std::move(mirrors)) {
  if (!mirrors_) {
    mirrors_ = std::make_shared<git::MirrorPool>(options_.mirrors_dir, options_.git_limits);
  }
}

RepositoryTurns::~RepositoryTurns() = default;

Result<PullRequestMerge> RepositoryTurns::MergePullRequest(const LocalPullRequest& pr,
                                                           std::string_view method,
                                                           std::string_view expected_head) {
  git::MergeMethod how;
  if (method == "merge") {
    how = git::MergeMethod::kMerge;
  } else if (method == "fast-forward") {
    how = git::MergeMethod::kFastForward;
  } else {
    return Status::InvalidArgument("method must be \"merge\" or \"fast-forward\"");
  }
  auto project = store_.tenants.GetProjectById(pr.project_id);
  if (!project.ok()) return project.status();
  auto mirror = mirrors_->ForProject(*project);
  if (!mirror.ok()) return mirror.status();
  auto merged =
      (*mirror)->Merge(pr.head, pr.base, how, options_.identity, {}, std::string(expected_head));
  // The mirror keeps the base's head, not the branch's (as after a turn).
  (*mirror)->Forget(pr.head);
  if (!merged.ok()) return merged.status();
  auto marked = store_.pull_requests.MarkPullRequestMerged(pr.id, merged->commit, NowMillis());
  if (!marked.ok()) {
    if (!merged->already_merged) {
      spdlog::warn("pull request #{} of project {} was merged into {} as {}, but not recorded: {}",
                   pr.number, pr.project_id, pr.base, merged->commit, marked.status().message());
    }
    return marked.status();
  }
  // Not its id: that is its page's only secret.
  spdlog::info("pull request #{} of project {} merged into {} as {}", pr.number, pr.project_id,
               pr.base, merged->commit);
  // The job of the branch, if this is its pull request, shows it merged.
  auto job = store_.pull_requests.FindJobByBranch(pr.project_id, pr.head);
  if (job.ok() && job->pr_link && job->pr_link->ends_with(PullRequestPagePath(pr.id))) {
    if (Status s = store_.pull_requests.SetPullRequestState(job->id, "merged"); !s.ok()) {
      spdlog::warn("job {}: cannot record its pull request merged: {}", job->id,
                   OneLogLine(s.message()));
    }
  }
  return PullRequestMerge{.merge_commit = marked->merge_commit, .merged_at = *marked->merged_at};
}

TurnOutcome RepositoryTurns::RunTurn(const TurnInput& given, CancelToken& cancel) {
  // The model is resolved as the turn starts, from the settings as they are now:
  // a job that failed for want of one is retried by a follow-up once one is set.
  TurnInput input = given;
  auto model = ResolveModel(input.job.requested_model, input.project.model, options_.default_model);
  if (!model) input.job.model.reset();  // none configured now: the agent says so
  if (model && model != input.job.model) {
    input.job.model = model;
    if (!input.Committed()) return InterruptedTurn();
    if (Status s = store_.jobs.SetJobModel(input.job.id, *model); !s.ok()) {
      spdlog::warn("job {}: cannot record its model {}: {}", input.job.id, *model, s.message());
    }
  }
  BudgetOwners owners;
  TurnOutcome outcome;
  if (auto refused = ApplyBudgets(input, owners)) {
    outcome = std::move(*refused);
  } else {
    outcome = RunRounds(input, cancel, owners);
  }
  // What the turn used and its estimated cost, whichever way it ended; a turn
  // that asked the model nothing used no model.
  outcome.model = outcome.usage.total() > 0 ? input.job.model.value_or("") : "";
  outcome.cost_micros.reset();
  if (const PriceTable* prices = Prices(); prices && !outcome.model.empty()) {
    outcome.cost_micros = prices->CostMicros(outcome.model, outcome.usage);
  }
  return outcome;
}

TurnOutcome RepositoryTurns::RunRounds(TurnInput& input, CancelToken& cancel,
                                       const BudgetOwners& owners) const {
  auto mirror = mirrors_->ForProject(input.project);
  if (!mirror.ok()) return FailedTurn(mirror.status().message());
  git::Mirror& repo = **mirror;
  // The mirror keeps the base's head between turns, not every job's branch.
  struct ForgetBranch {
    git::Mirror& repo;
    const std::string& branch;
    ~ForgetBranch() { repo.Forget(branch); }
  } forget{repo, input.job.ref};

  Turn turn{.input = input,
            .cancel = cancel,
            .repo = repo,
            .repository = RedactCredentials(input.project.repository),
            .stopped = [&cancel] { return cancel.cancelled(); },
            .work = WorkBudget(WorkBudget::TurnLimits(), &cancel),
            .budget_owners = owners};
  auto rounds = [&]() -> TurnOutcome {
    if (auto end = NewBranchIfDone(input, turn)) return std::move(*end);
    for (int number = 1;; ++number) {
      Round round{.number = number};
      if (auto end = Prepare(turn, round)) return std::move(*end);
      // What follows writes: the store (steps), the model, the remote.
      if (!input.Committed()) return InterruptedTurn();
      if (turn.budget_error && !round.pushed_before) {
        // The branch moved after the agent crossed its budget: it is not run
        // again on the new head.
        return FailedTurn("the branch " + input.job.ref +
                          " moved while the turn ran, and the turn was not carried out again "
                          "over it; nothing was pushed");
      }
      if (!round.pushed_before) {
        if (auto end = Edit(turn, round)) return std::move(*end);
      }
      if (auto end = Publish(turn, round)) return std::move(*end);
      // The branch moved while the agent worked: the turn is carried out again.
    }
  };
  TurnOutcome outcome = rounds();
  // Every way the turn ends counts what the agent used, over both rounds: the
  // tokens were spent whether or not the edits were published, and whether or
  // not the turn was interrupted (the runner charges them then).
  outcome.usage = turn.spent;
  if (outcome.interrupted) return outcome;
  return AfterBudgetStop(turn, std::move(outcome));
}

std::optional<TurnOutcome> RepositoryTurns::Prepare(Turn& turn, Round& round) const {
  const Job& job = turn.input.job;
  const Project& project = turn.input.project;
  // Where the turn starts: the branch as it is now on the remote (people may
  // push to it), or the base. One fetch brings both.
  auto fetched = turn.repo.FetchBranches({job.ref, project.base_ref}, turn.stopped);
  if (turn.cancel.cancelled()) return InterruptedTurn();
  if (!fetched.ok()) {
    return FailedTurn("cannot read the repository " + turn.repository + ": " +
                      fetched.status().message());
  }
  round.branch_head = fetched->at(job.ref);
  std::optional<std::string> base_head = fetched->at(project.base_ref);
  if (!round.branch_head && !base_head) {
    return FailedTurn("the repository " + turn.repository + " has no branch " + project.base_ref +
                      " (is it empty, or is the project's --ref wrong?)");
  }
  std::string start = round.branch_head ? *round.branch_head : *base_head;
  if (turn.cancel.cancelled()) return InterruptedTurn();
  turn.context.site_map.reset();  // the last round's start's, until this one's is built

  round.done.succeeded = true;
  round.spec = forge::PullRequestSpec{.head = job.ref,
                                      .head_commit = start,
                                      .base = project.base_ref,
                                      .base_commit = base_head.value_or(""),
                                      .draft = job.draft};
  // A re-run of a turn whose commit was pushed already (the process stopped
  // before recording the outcome): the instruction is not carried out again.
  if (round.branch_head) {
    auto found = turn.repo.FindCommitMessage(*round.branch_head, TurnTrailer(turn.input),
                                             kMaxCommitsToSearch);
    if (!found.ok()) return FailedTurn(found.status().message());
    round.pushed_before = *found;
  }
  if (round.pushed_before) return std::nullopt;
  if (auto done = PushedOntoBaseBefore(turn, round)) return done;

  ReadContext(turn);
  if (turn.cancel.cancelled()) return InterruptedTurn();
  auto snapshot = turn.repo.OpenSnapshot(start);
  if (!snapshot.ok()) return FailedTurn(snapshot.status().message());
  Round::Edits& edits = round.edits.emplace();
  edits.snapshot = std::move(*snapshot);
  edits.snapshot->SetBudget(&turn.work);
  git::Workspace& workspace = edits.workspace.emplace(*edits.snapshot);
  // What the agent may change is decided by the site as it was before the
  // turn: an edit cannot move the site to cover more. The agent is given the
  // same map (this round's: a second round starts from another commit), built
  // once for every turn starting from this commit when the node has a cache.
  std::shared_ptr<const docs::SiteMap> map =
      docs::SharedSiteMap(workspace, {.cancel = &turn.cancel,
                                      .turn = &turn.work,
                                      .site_root = project.site_root,
                                      .cache = options_.docs_cache.get()});
  edits.policy.emplace(*map, project.write_paths);
  turn.context.site_map = std::move(map);
  turn.context.docs_cache = options_.docs_cache.get();
  return std::nullopt;
}

void RepositoryTurns::ReadContext(Turn& turn) const {
  if (turn.context_read) return;
  turn.context_read = true;
  const Job& job = turn.input.job;
  const Project& project = turn.input.project;
  agent::TurnContext& context = turn.context;
  auto listed = store_.workflows.ListContextRepositories(project.id);
  if (!listed.ok()) {
    spdlog::warn("job {}: cannot list the project's context repositories: {}", job.id,
                 OneLogLine(listed.status().message()));
    context.unread.push_back(
        {"(all)", "the project's context repositories could not be listed; try again later"});
    return;
  }
  std::vector<const ContextRepository*> chosen = ChooseContext(job, *listed, context);

  git::Credentials credentials = git::CredentialsFor(project);
  for (const ContextRepository* repo : chosen) {
    if (turn.cancel.cancelled()) return;
    // Why it cannot be read, for the agent and the log: git's errors carry no
    // secrets, and URLs in them are redacted all the same.
    auto unread = [&](const Status& why) {
      std::string reason = OneLogLine(RedactCredentials(why.message()), 300);
      spdlog::warn("job {}: context repository {} cannot be read: {}", job.id, repo->name, reason);
      context.unread.push_back({repo->name, "could not be read: " + reason});
    };
    auto mirror = mirrors_->ForContext(project, *repo);
    if (!mirror.ok()) {
      unread(mirror.status());
      continue;
    }
    auto branch = ContextBranch(*repo, credentials, mirrors_->limits());
    if (!branch.ok()) {
      unread(branch.status());
      continue;
    }
    auto fetched = (*mirror)->FetchBranches({*branch}, turn.stopped);
    if (turn.cancel.cancelled()) return;
    if (!fetched.ok()) {
      unread(fetched.status());
      continue;
    }
    auto head = fetched->find(*branch);
    if (head == fetched->end() || !head->second) {
      unread(Status::NotFound("the repository has no branch " + *branch));
      continue;
    }
    auto snapshot = (*mirror)->OpenSnapshot(*head->second);
    if (!snapshot.ok()) {
      unread(snapshot.status());
      continue;
    }
    bool cut = false;
    const size_t files = CountFiles(**snapshot, turn.cancel, turn.work, &cut);
    context.repositories.push_back(agent::ContextSnapshot{.name = repo->name,
                                                          .branch = *branch,
                                                          .commit = *head->second,
                                                          .files = files,
                                                          .files_cut = cut,
                                                          .snapshot = snapshot->get()});
    turn.context_snapshots.push_back(std::move(*snapshot));
    turn.context_mirrors.push_back(std::move(*mirror));
  }
}

std::optional<TurnOutcome> RepositoryTurns::Edit(Turn& turn, Round& round) const {
  Round::Edits& edits = *round.edits;
  agent::AgentResult& result = edits.result;
  if (turn.input.spend_limit && turn.spent.total() > 0) {
    // A second round: what the first spent is charged against the budgets.
    TurnInput again = turn.input;
    SpendLimit& limit = *again.spend_limit;
    if (limit.tokens_left) *limit.tokens_left -= turn.spent.total();
    if (limit.cost_micros_left && limit.prices && again.job.model) {
      *limit.cost_micros_left -= limit.prices->CostMicros(*again.job.model, turn.spent).value_or(0);
    }
    result = agent_.Run(again, *edits.workspace, turn.context, turn.cancel);
  } else {
    result = agent_.Run(turn.input, *edits.workspace, turn.context, turn.cancel);
  }
  turn.spent += result.usage;
  if (result.budget_error && result.succeeded) turn.budget_error = result.budget_error;
  if (result.interrupted) return InterruptedTurn();
  if (!result.succeeded) {
    TurnOutcome failed = FailedTurn(result.error.value_or("the agent failed"));
    failed.steps = std::move(result.steps);
    failed.usage = turn.spent;
    return failed;
  }
  if (turn.work.spent()) {
    // Every way out of the agent checks the budget; this is the last gate
    // before a commit made from reads that may have been refused.
    if (turn.cancel.cancelled()) return InterruptedTurn();
    TurnOutcome failed = FailedTurn("the turn's work over the repository was stopped: " +
                                    turn.work.status().message() + "; nothing was pushed");
    failed.steps = std::move(result.steps);
    failed.usage = turn.spent;
    return failed;
  }
  round.done.summary = result.summary;
  round.done.steps = std::move(result.steps);
  round.done.usage = turn.spent;
  return std::nullopt;
}

std::optional<TurnOutcome> RepositoryTurns::Publish(Turn& turn, Round& round) const {
  const TurnInput& input = turn.input;
  const Job& job = input.job;
  if (round.pushed_before) {
    auto [title, summary] = FromCommitMessage(*round.pushed_before, input);
    spdlog::info("job {}: turn {} was pushed before; opening its pull request only", job.id,
                 input.message.seq);
    round.done.summary = summary;
    round.spec.title = PullRequestTitle(input, title);
    round.spec.body = PullRequestBody(input, {.summary = summary});
    if (auto end = TellStory(turn, round)) return end;
    return OpenPullRequest(turn, round);
  }
  if (auto refused = CheckEdits(turn, round)) return refused;
  Round::Edits& edits = *round.edits;
  if (!edits.workspace->Changes().empty()) {
    if (OntoBase(turn, round)) {
      bool again = false;
      if (auto end = PushOntoBase(turn, round, again)) return end;
      if (again) return std::nullopt;
      // Falling back to the branch and its pull request, with the commit made.
    }
    if (!round.commit) {
      auto made = turn.repo.Commit(*edits.workspace, options_.identity,
                                   CommitMessage(round.spec.title, input, edits.result.summary));
      if (!made.ok()) return FailedTurn("cannot commit the changes: " + made.status().message());
      round.commit = *made;
      Published(turn, round, kPublishCommit,
                "committed " + std::to_string(edits.workspace->Changes().size()) + " changed " +
                    (edits.workspace->Changes().size() == 1 ? "file" : "files") + " as " +
                    made->substr(0, 12));
    }
    const std::string* commit = &*round.commit;
    if (turn.cancel.cancelled()) return InterruptedTurn();  // nothing is pushed after an archive
    if (auto end = RecordNewBranch(turn)) return end;
    Status pushed = turn.repo.Push(*commit, job.ref, round.branch_head, turn.stopped);
    if (turn.cancel.cancelled() && !pushed.ok()) return InterruptedTurn();
    if (pushed.code() == Code::kConflict) {
      if (round.number == 1) {
        spdlog::info(
            "job {}: branch {} moved during the turn; carrying it out again from "
            "the new head",
            job.id, job.ref);
        return std::nullopt;
      }
      return FailedTurn("the branch " + job.ref +
                        " kept changing on the remote while the agent worked; send the "
                        "instruction again to retry");
    }
    if (!pushed.ok()) {
      return FailedTurn("cannot push the branch " + job.ref + ": " + pushed.message());
    }
    CrashPoint("push.ref-moved");
    Published(turn, round, kPublishPush, "pushed the branch " + job.ref);
    round.spec.head_commit = *commit;
  } else if (!round.branch_head || job.pr_link) {
    // Nothing to push, and either no branch (no pull request wanted) or the
    // pull request exists already.
    round.done.pr_link = job.pr_link;
    return std::move(round.done);
  }
  // The edits are in memory, and may be large: not held through the forge's retries.
  round.edits.reset();
  if (auto end = TellStory(turn, round)) return end;
  return OpenPullRequest(turn, round);
}

std::optional<TurnOutcome> RepositoryTurns::CheckEdits(Turn& turn, Round& round) const {
  const Round::Edits& edits = *round.edits;
  std::vector<std::string> files, outside_site, code, refused;
  for (const auto& [path, change] : edits.workspace->Changes()) {
    files.push_back(path);
    // The agent's tools refuse these already; this is the last gate before
    // anything is pushed with the project's token.
    if (!git::CheckPath(path).ok() || !edits.policy->Check(path).ok()) {
      refused.push_back(path);
    } else {
      if (edits.policy->OutsideSite(path)) outside_site.push_back(path);
      if (agent::WritePolicy::RunsAtBuild(path)) code.push_back(path);
    }
  }
  if (!refused.empty()) {
    std::string list;
    for (size_t i = 0; i < refused.size() && i < 10; ++i) {
      list += (i ? ", " : "") + std::string(CutUtf8(refused[i], 200));
    }
    spdlog::warn("job {}: the agent changed paths it may not change: {}", turn.input.job.id, list);
    TurnOutcome failed = FailedTurn(
        "the turn changed files the project does not allow the agent "
        "to change (" +
        list + "); nothing was pushed");
    failed.steps = std::move(round.done.steps);
    failed.usage = turn.spent;
    return failed;
  }
  // The title an earlier turn left on the branch (its commit's: the pull
  // request's title then), so that a turn whose finish gives none keeps it. The
  // branch, not the forge, keeps it: it survives a crash and is the same on
  // every forge.
  std::optional<std::string> earlier;
  if (round.branch_head) {
    auto found = turn.repo.FindCommitMessage(
        *round.branch_head, JobTrailerPrefix(turn.input.job.id), kMaxCommitsToSearch);
    if (found.ok() && *found) {
      earlier = found->value().substr(0, found->value().find('\n'));
    } else if (!found.ok()) {
      spdlog::warn("job {}: cannot read the branch's earlier title: {}", turn.input.job.id,
                   OneLogLine(found.status().message()));
    }
  }
  round.spec.title = PullRequestTitle(turn.input, edits.result.title, earlier);
  round.spec.body = PullRequestBody(turn.input, {.summary = edits.result.summary,
                                                 .files = std::move(files),
                                                 .problems = edits.result.problems,
                                                 .outside_site = std::move(outside_site),
                                                 .code = std::move(code),
                                                 .notes = edits.result.notes});
  return std::nullopt;
}

std::optional<TurnOutcome> RepositoryTurns::TellStory(Turn& turn, Round& round) const {
  const TurnInput& input = turn.input;
  if (turn.cancel.cancelled()) return InterruptedTurn();
  if (round.spec.base_commit.empty()) return std::nullopt;  // no base to compare with
  // A budget of its own: the branch is pushed, whatever the agent spent.
  WorkBudget budget(WorkBudget::TurnLimits(), &turn.cancel);
  auto story = ReadBranchStory(turn.repo, round.spec.base_commit, round.spec.head_commit,
                               input.project, budget, turn.cancel, options_.docs_cache.get());
  if (turn.cancel.cancelled()) return InterruptedTurn();
  // A review that cannot be made must not leave the earlier one standing: the
  // pages would show an older description and problems than the pull request's.
  auto drop_review = [&] {
    Review empty;
    empty.job_id = input.job.id;
    empty.project_id = input.project.id;
    empty.branch = input.job.ref;
    empty.base = input.project.base_ref;
    if (Status s = store_.pull_requests.PutReview(empty); !s.ok()) {
      spdlog::warn("job {}: cannot clear the review of its branch: {}", input.job.id,
                   OneLogLine(s.message()));
    }
  };
  if (!story.ok()) {
    spdlog::warn(
        "job {}: cannot compare the branch {} with {}; its pull request tells this turn "
        "only: {}",
        input.job.id, input.job.ref, input.project.base_ref, OneLogLine(story.status().message()));
    drop_review();
    return std::nullopt;
  }
  round.problems = story->problems;
  round.spec.body = PullRequestBody(input, {.summary = round.done.summary,
                                            .instructions = JobInstructions(store_.jobs, input),
                                            .files = story->diff.files,
                                            .problems = story->problems,
                                            .outside_site = story->outside_site,
                                            .code = story->code,
                                            .notes = story->notes});
  auto review = MakeReview(turn.repo, input, *story, round.spec.body, budget);
  if (turn.cancel.cancelled()) return InterruptedTurn();
  Status stored = review.ok() ? store_.pull_requests.PutReview(*review) : review.status();
  if (!stored.ok()) {
    spdlog::warn("job {}: cannot store the review of its branch: {}", input.job.id,
                 OneLogLine(stored.message()));
    drop_review();
  }
  return std::nullopt;
}

TurnOutcome RepositoryTurns::OpenPullRequest(Turn& turn, Round& round) const {
  const Job& job = turn.input.job;
  const Project& project = turn.input.project;
  CancelToken& cancel = turn.cancel;
  if (cancel.cancelled()) return InterruptedTurn();
  // A budget of its own: the branch is pushed, whatever the agent spent.
  WorkBudget diff_budget(WorkBudget::TurnLimits(), &cancel);
  auto forge = forge::MakeForge(project, ForgeContextFor(turn, diff_budget));
  if (!forge.ok()) return FailedTurn("cannot open the pull request: " + forge.status().message());
  auto pr = (*forge)->Ensure(round.spec);
  if (!pr.ok()) {
    if (cancel.cancelled()) return InterruptedTurn();
    if (pr.status().code() == Code::kResourceExhausted) {
      return FailedTurn("pushed the branch " + job.ref +
                        " but cannot open its pull request: comparing it with " + project.base_ref +
                        " was stopped: " + pr.status().message());
    }
    return FailedTurn("pushed the branch " + job.ref +
                      " but cannot open its pull request: " + pr.status().message());
  }
  CrashPoint("pr.opened");
  round.done.pr_link = pr->url;
  round.done.pr_state = "open";
  bool opened = job.pr_link != pr->url;
  std::string text = std::string(opened ? "opened" : "updated") + " the pull request " + pr->url;
  if (turn.earlier_branch) {
    // A follow-up after the job's pull request was merged or closed.
    std::string note =
        "the earlier pull request was " + turn.earlier_state + "; this one continues on " + job.ref;
    text += ": " + note;
    round.done.summary = round.done.summary ? *round.done.summary + "\n\n" + note : note;
  }
  Published(turn, round, kPublishPullRequest, std::move(text));
  if (auto end = MergeIfChecksPass(turn, round, **forge, *pr)) return std::move(*end);
  return std::move(round.done);
}

void RepositoryTurns::Published(Turn& turn, Round& round, const char* action,
                                std::string text) const {
  TranscriptStep step{
      .kind = TranscriptStep::Kind::kPublish, .text = std::move(text), .tool = action};
  if (turn.input.on_step) turn.input.on_step(step);
  round.done.steps.push_back(std::move(step));
}

}  // namespace docwright
