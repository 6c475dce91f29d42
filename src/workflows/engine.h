// The workflows' engine (docs/architecture.md, "Workflows"): one per `serve` or
// `worker` process, it starts the runs of the workflows whose triggers fired.
// Each round (Tick):
//   1. schedules: each enabled schedule workflow whose next slot after its
//      schedule_from has come is run once (dedup "schedule:<slot>"), and its
//      schedule_from moves to now, so a downtime of many slots fires once;
//   2. polls, every poll_interval: for every unarchived project, the docs
//      repository's base branch and the branches of its push workflows are
//      fetched, and the context repositories' branches its merge workflows
//      watch. A branch seen for the first time is only recorded (a project's
//      workflow files are read then too); a branch that moved re-reads the
//      workflow files (base branch), and starts the push runs (unless every
//      new commit is docwright's own) or the merge runs for its new head;
//      The same poll asks the forges what became of jobs' open pull requests
//      (workflows/pull_request_polling.h);
//   3. forges' webhook deliveries recorded since (workflows/forge_events.h):
//      a push is handled as a polled move of its branch from its `before` to
//      its `after` (the same code, so the next poll finds nothing new), pull
//      requests' and comments' events go to their handlers;
//   4. queued runs whose workflow has no run under way any more are started.
// Every decision that must happen once is the store's (dedup keys, under the
// workflow's lock), so any number of engines on one database start each run
// once. Every error is logged (never a secret: URLs are redacted) and the work
// is tried again next round; none stops the engine.
//
// Every git call is bounded by the mirrors' TransferLimits, and fetches are
// abandoned when Stop is called; the stop flag is also read between projects.
//
// Thread-safety: Start, Stop and Tick may be called from any thread; rounds
// never overlap (a Tick called while the engine's thread runs one waits for
// it). Lifetime: the store and the pool must outlive the engine; the
// destructor stops it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "core/status.h"
#include "core/time.h"
#include "core/workflow.h"
#include "git/mirror_pool.h"
#include "workflows/forge_events.h"
#include "workflows/run_prompt.h"
#include "workflows/workflow_stores.h"

namespace docwright::workflows {

struct WorkflowEngineOptions {
  std::chrono::milliseconds tick{15000};           // between rounds
  std::chrono::milliseconds poll_interval{60000};  // between polls of the branches (0: every round)
  std::function<UnixMillis()> clock;               // "now" for the schedules; empty: NowMillis
  ForgeEventContext forge_events;                  // for the handlers of forges' events
};

// The most workflows and runs one round reads of each kind, and the commits a
// push's check for docwright's own reads before it counts the push as a
// person's.
inline constexpr int kMaxScheduledPerRound = 10000;
inline constexpr int kMaxQueuedPerRound = 200;
inline constexpr size_t kMaxOwnCommitsChecked = 200;
// The forges' events one round handles at most, and how long one whose
// handling failed for a passing reason (Unavailable) is tried again before
// its failure is recorded as its outcome.
inline constexpr int kMaxForgeEventsPerRound = 100;
inline constexpr std::chrono::minutes kForgeEventRetryWindow{60};

// Whether two repository URLs name one repository: the host in any case, with
// or without a port, user or trailing ".git" or "/", over https, ssh or git's
// scp-like form ("git@host:owner/repo.git"); a local path (or file: URL) as
// the same path. Paths compare without case (the hosted forges' do).
bool SameRepository(std::string_view a, std::string_view b);

// Whether a commit with this message is docwright's own: a "Docwright-Job:"
// trailer line, or a merge of one of its branches ("Merge branch 'docwright/").
bool IsDocwrightCommit(const git::CommitSummary& commit);

class WorkflowEngine {
 public:
  WorkflowEngine(WorkflowStores store, std::shared_ptr<git::MirrorPool> mirrors,
                 WorkflowEngineOptions options);
  ~WorkflowEngine();
  WorkflowEngine(const WorkflowEngine&) = delete;
  WorkflowEngine& operator=(const WorkflowEngine&) = delete;

  // Runs rounds on a thread of its own, one every `tick`, until Stop. Once.
  void Start() EXCLUDES(mu_);
  // Ends the round under way at its next check (a fetch is abandoned) and
  // joins the thread. Idempotent; Tick refuses to run after it.
  void Stop() EXCLUDES(mu_);

  // One round, now. OK, or the first error met (the round goes on past it:
  // every other project and workflow is still seen to).
  Status Tick() EXCLUDES(round_mu_, mu_);

 private:
  struct Round;
  void Loop() EXCLUDES(round_mu_, mu_);
  bool stopping() const EXCLUDES(mu_);
  UnixMillis Now() const;

  Status RunSchedules(Round& round);
  Status PollProjects(Round& round);
  Status PollProject(Round& round, const Project& project);
  // The branches of `repo` that the merge workflows `merged` (all on it) watch.
  Status PollContext(Round& round, const Project& project, const ContextRepository& repo,
                     const std::vector<const Workflow*>& merged);
  Status StartQueuedRuns(Round& round);

  // A branch of the docs repository moved from `from` (nullopt: first seen)
  // to `to`, both in `mirror`: the workflow files are read again (base
  // branch), the push workflows on it start their runs (unless every new
  // commit is docwright's own), and its watched head becomes `to` (unless a
  // run failed to start: the next round tries again). `listed`: the project's
  // workflows; `started`, if given, gets each run's workflow and outcome.
  // Used by the polls and by the forges' pushes alike.
  Status DocsBranchMoved(Round& round, const Project& project, git::Mirror& mirror,
                         const std::vector<Workflow>& listed,
                         const std::vector<ContextRepository>& contexts, const std::string& branch,
                         const std::optional<std::string>& from, const std::string& to,
                         std::vector<std::string>* started);
  // A branch of the context repository `repo` moved: as DocsBranchMoved, for
  // the merge workflows `merged` (those on this branch).
  Status ContextBranchMoved(Round& round, const Project& project, const ContextRepository& repo,
                            git::Mirror& mirror, const std::vector<const Workflow*>& merged,
                            const std::string& branch, const std::optional<std::string>& from,
                            const std::string& to, std::vector<std::string>* started);

  // The forges' events recorded since (Store::ListPendingForgeEvents), each
  // handled and finished with its outcome.
  Status HandleForgeEvents(Round& round);
  // A push the forge told of: what it did, in a sentence.
  Result<std::string> HandlePush(Round& round, const ForgeEvent& event);

  // The changes of `trigger` (a push or merge) for the prompt; `unavailable`
  // says why when they cannot be read.
  RunChanges ChangesOf(const Project& project, const RunTrigger& trigger);
  // Starts a run of `workflow` for `trigger` with the prompt it makes.
  // `outcome`, if given, gets what the store did.
  Status Start(const Workflow& workflow, const std::string& dedup_key, const RunTrigger& trigger,
               const RunChanges* changes, std::optional<UnixMillis> schedule_from,
               WorkflowRunStart::Outcome* outcome = nullptr);

  WorkflowStores store_;
  std::shared_ptr<git::MirrorPool> mirrors_;
  WorkflowEngineOptions options_;

  Mutex round_mu_;  // one round at a time
  std::optional<std::chrono::steady_clock::time_point> last_poll_ GUARDED_BY(round_mu_);

  mutable Mutex mu_;
  std::condition_variable wake_;
  bool stop_ GUARDED_BY(mu_) = false;
  bool started_ GUARDED_BY(mu_) = false;
  // Set by Start under mu_, joined by Stop without it: both are the owner's
  // calls, never made at once.
  std::thread thread_;
};

}  // namespace docwright::workflows
