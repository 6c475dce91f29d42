// How a turn publishes its edits besides the branch and its pull request
// (runner/turn_rounds.h): straight onto the base branch (PublishMode::kPush),
// the pull request merged once the checks pass (kAutomerge), and a new branch
// for a follow-up after the job's pull request was merged or closed.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "core/local_pull_request.h"
#include "core/text.h"
#include "runner/branch_story.h"
#include "runner/pull_request_text.h"
#include "runner/turn_rounds.h"

namespace docwright {
namespace {

// How far back from the base's head a re-run of a push looks for its commit.
constexpr size_t kMaxBaseCommitsToSearch = 50;
// New branch names tried after a merged pull request ("-2" .. "-21"), in one
// fetch.
constexpr int kBranchCandidates = 20;
// A problem quoted in a turn's words is cut to this many bytes.
constexpr size_t kMaxProblemQuoted = 300;

// `branch` without a numeric suffix the turns add ("-2" .. "-999"), and the
// suffix to try first: "x-3" gives ("x", 4), "x" gives ("x", 2).
std::pair<std::string, int> SuffixBase(const std::string& branch) {
  size_t dash = branch.rfind('-');
  if (dash != std::string::npos && dash > 0 && dash + 1 < branch.size() &&
      branch.size() - dash - 1 <= 3 &&
      std::all_of(branch.begin() + static_cast<ptrdiff_t>(dash) + 1, branch.end(),
                  [](unsigned char c) { return std::isdigit(c); }) &&
      branch[dash + 1] != '0') {
    int n = std::stoi(branch.substr(dash + 1));
    if (n >= 2) return {branch.substr(0, dash), n + 1};
  }
  return {branch, 2};
}

// "N problems, such as: FIRST" for a turn's words.
std::string Problems(const std::vector<std::string>& problems) {
  std::string first(CutUtf8(problems.front(), kMaxProblemQuoted));
  if (problems.size() == 1) return "1 problem: " + first;
  return std::to_string(problems.size()) + " problems, such as: " + first;
}

// `summary` with `note` after it, as a paragraph of its own.
std::optional<std::string> WithNote(const std::optional<std::string>& summary,
                                    const std::string& note) {
  if (!summary || summary->empty()) return note;
  return *summary + "\n\n" + note;
}

}  // namespace

forge::ForgeContext RepositoryTurns::ForgeContextFor(Turn& turn, WorkBudget& budget) const {
  forge::ForgeContext context;
  context.pull_requests = &store_.pull_requests;
  context.mirror = &turn.repo;
  context.budget = &budget;
  context.identity = &options_.identity;
  context.public_url = options_.public_url;
  context.max_attempts = options_.forge_attempts;
  context.max_delay = options_.forge_max_delay;
  CancelToken& cancel = turn.cancel;
  context.sleep = [&cancel](std::chrono::milliseconds d) { return !cancel.WaitFor(d); };
  return context;
}

std::optional<TurnOutcome> RepositoryTurns::NewBranchIfDone(TurnInput& input, Turn& turn) const {
  Job& job = input.job;
  if (!job.pr_link) return std::nullopt;
  std::string state = job.pr_state.value_or("");
  if (state != "merged" && state != "closed" && input.project.forge == ForgeKind::kLocal) {
    // The local forge knows at once: its record of the branch's pull request.
    std::string id = job.pr_link->substr(job.pr_link->rfind('/') + 1);
    if (LooksLikePullRequestId(id)) {
      auto pr = store_.pull_requests.GetPullRequest(id);
      if (pr.ok() && pr->project_id == job.project_id && pr->head == job.ref && pr->merged_at) {
        state = "merged";
      }
    }
  }
  if (state != "merged" && state != "closed") return std::nullopt;

  auto [root, first] = SuffixBase(job.ref);
  std::vector<std::string> names;
  for (int n = first; n < first + kBranchCandidates; ++n) {
    std::string name = root + "-" + std::to_string(n);
    if (!CheckBranchName(name).ok()) break;  // too long
    names.push_back(std::move(name));
  }
  if (names.empty()) {
    return FailedTurn("the job's pull request was " + state + ", and its branch " + job.ref +
                      " leaves no room for a new branch's name; start a new job");
  }
  auto fetched = turn.repo.FetchBranches(names, turn.stopped);
  if (turn.cancel.cancelled()) return InterruptedTurn();
  if (!fetched.ok()) {
    return FailedTurn("cannot read the repository " + turn.repository + ": " +
                      fetched.status().message());
  }
  std::optional<std::string> chosen;
  for (const std::string& name : names) {
    auto head = fetched->find(name);
    bool on_remote = head != fetched->end() && head->second;
    if (on_remote) {
      turn.repo.Forget(name);  // the mirror keeps the base's head only
      continue;
    }
    if (chosen) continue;
    auto holder = store_.pull_requests.FindJobByBranch(job.project_id, name);
    if (holder.ok() && holder->id != job.id) continue;  // another job's (not pushed yet)
    chosen = name;
  }
  if (!chosen) {
    return FailedTurn("the job's pull request was " + state + ", and the branches " +
                      names.front() + " to " + names.back() + " are all taken; start a new job");
  }
  spdlog::info("job {}: its pull request on {} was {}; the turn works on {}", job.id, job.ref,
               state, *chosen);
  turn.earlier_branch = job.ref;
  turn.earlier_state = state;
  job.ref = *chosen;
  job.pr_state.reset();
  return std::nullopt;
}

std::optional<TurnOutcome> RepositoryTurns::RecordNewBranch(Turn& turn) const {
  if (!turn.earlier_branch || turn.branch_recorded) return std::nullopt;
  const Job& job = turn.input.job;
  // Before the push: a turn run again after a crash then finds its commit on
  // the job's branch, as any turn does.
  if (Status s = store_.pull_requests.SetJobBranch(job.id, job.ref); !s.ok()) {
    return FailedTurn("cannot move the job to the new branch " + job.ref + ": " + s.message());
  }
  turn.branch_recorded = true;
  return std::nullopt;
}

bool RepositoryTurns::OntoBase(const Turn& turn, const Round& round) const {
  const Job& job = turn.input.job;
  return job.publish == PublishMode::kPush && !round.branch_head && !job.pr_link &&
         !turn.earlier_branch && !round.spec.base_commit.empty();
}

std::optional<TurnOutcome> RepositoryTurns::PushedOntoBaseBefore(Turn& turn, Round& round) const {
  if (!OntoBase(turn, round)) return std::nullopt;
  const TurnInput& input = turn.input;
  auto log = turn.repo.Log("", round.spec.base_commit, kMaxBaseCommitsToSearch);
  if (!log.ok()) return FailedTurn(log.status().message());
  const std::string trailer = TurnTrailer(input);
  for (const git::CommitSummary& c : *log) {
    if (c.message.find(trailer) == std::string::npos) continue;
    spdlog::info("job {}: turn {} was pushed onto {} before", input.job.id, input.message.seq,
                 input.project.base_ref);
    round.done.summary = FromCommitMessage(c.message, input).second;
    round.done.commit_sha = c.sha;
    WorkBudget budget(WorkBudget::TurnLimits(), &turn.cancel);
    auto forge = forge::MakeForge(input.project, ForgeContextFor(turn, budget));
    if (forge.ok() && !(*forge)->CommitUrl(c.sha).empty()) {
      round.done.commit_url = (*forge)->CommitUrl(c.sha);
    }
    Published(turn, round, kPublishPush,
              "pushed onto " + input.project.base_ref + " as " + c.sha.substr(0, 12));
    return std::move(round.done);
  }
  return std::nullopt;
}

std::optional<TurnOutcome> RepositoryTurns::PushOntoBase(Turn& turn, Round& round,
                                                         bool& again) const {
  const TurnInput& input = turn.input;
  const Project& project = input.project;
  const std::string& base = project.base_ref;
  const std::string base_head = round.spec.base_commit;  // where the round started
  Round::Edits& edits = *round.edits;
  auto made = turn.repo.Commit(*edits.workspace, options_.identity,
                               CommitMessage(round.spec.title, input, edits.result.summary));
  if (!made.ok()) return FailedTurn("cannot commit the changes: " + made.status().message());
  round.commit = *made;
  size_t changed = edits.workspace->Changes().size();
  Published(turn, round, kPublishCommit,
            "committed " + std::to_string(changed) + " changed " +
                (changed == 1 ? "file" : "files") + " as " + made->substr(0, 12));

  // The checks, on the commit against the base: what the agent's repairs left,
  // and what the branch's story finds (as a pull request's body would list).
  std::string why_not;
  {
    WorkBudget budget(WorkBudget::TurnLimits(), &turn.cancel);
    auto story = ReadBranchStory(turn.repo, base_head, *made, project, budget, turn.cancel,
                                 options_.docs_cache.get());
    if (turn.cancel.cancelled()) return InterruptedTurn();
    std::vector<std::string> problems = edits.result.problems;
    if (story.ok()) {
      for (const std::string& p : story->problems) {
        if (std::find(problems.begin(), problems.end(), p) == problems.end()) problems.push_back(p);
      }
    }
    if (!problems.empty()) {
      why_not = "the checks report " + Problems(problems);
    } else if (!story.ok()) {
      why_not = "the checks could not be run on it (" +
                OneLogLine(story.status().message(), kMaxProblemQuoted) + ")";
    }
  }

  if (why_not.empty()) {
    if (turn.cancel.cancelled()) return InterruptedTurn();  // nothing is pushed after an archive
    Status pushed = turn.repo.Push(*made, base, base_head, turn.stopped);
    if (turn.cancel.cancelled() && !pushed.ok()) return InterruptedTurn();
    if (pushed.code() == Code::kConflict) {
      if (round.number == 1) {
        spdlog::info("job {}: {} moved during the turn; carrying it out again from the new head",
                     input.job.id, base);
        again = true;
        return std::nullopt;
      }
      why_not = "the branch " + base + " moved twice while the agent worked";
    } else if (!pushed.ok()) {
      return FailedTurn("cannot push onto the branch " + base + ": " + pushed.message());
    } else {
      round.done.commit_sha = *made;
      WorkBudget budget(WorkBudget::TurnLimits(), &turn.cancel);
      auto forge = forge::MakeForge(project, ForgeContextFor(turn, budget));
      if (forge.ok() && !(*forge)->CommitUrl(*made).empty()) {
        round.done.commit_url = (*forge)->CommitUrl(*made);
      }
      Published(turn, round, kPublishPush, "pushed onto " + base + " as " + made->substr(0, 12));
      round.done.pr_link = input.job.pr_link;
      return std::move(round.done);
    }
  }

  // Falling back to the job's branch and its pull request, saying why.
  spdlog::info("job {}: not pushed onto {}: {}; a pull request instead", input.job.id, base,
               OneLogLine(why_not));
  Published(turn, round, kPublishPush,
            "not pushed onto " + base + ": " + why_not + "; a pull request instead");
  round.done.summary = WithNote(round.done.summary, "Not pushed onto " + base + ": " + why_not +
                                                        "; opened a pull request instead.");
  return std::nullopt;
}

std::optional<TurnOutcome> RepositoryTurns::MergeIfChecksPass(Turn& turn, Round& round,
                                                              forge::Forge& forge,
                                                              const forge::PullRequest& pr) const {
  if (turn.input.job.publish != PublishMode::kAutomerge) return std::nullopt;
  const std::string& base = turn.input.project.base_ref;
  std::string why_not;
  if (!round.problems) {
    why_not = "the checks could not be run on the branch";
  } else if (!round.problems->empty()) {
    why_not = "the checks report " + Problems(*round.problems);
  }
  if (why_not.empty()) {
    if (turn.cancel.cancelled()) return InterruptedTurn();
    auto merged = forge.Merge(pr.number, round.spec.head_commit);
    if (turn.cancel.cancelled() && !merged.ok()) return InterruptedTurn();
    if (merged.ok()) {
      round.done.pr_state = "merged";
      if (!merged->commit.empty()) round.done.commit_sha = merged->commit;
      if (!merged->url.empty()) round.done.commit_url = merged->url;
      Published(turn, round, kPublishMerge,
                "merged the pull request into " + base +
                    (merged->commit.empty() ? "" : " as " + merged->commit.substr(0, 12)));
      return std::nullopt;
    }
    why_not = OneLogLine(merged.status().message(), kMaxProblemQuoted * 2);
  }
  spdlog::info("job {}: its pull request is not merged: {}", turn.input.job.id,
               OneLogLine(why_not));
  Published(turn, round, kPublishMerge, "did not merge the pull request: " + why_not);
  round.done.summary =
      WithNote(round.done.summary, "The pull request was not merged: " + why_not + ".");
  return std::nullopt;
}

}  // namespace docwright
