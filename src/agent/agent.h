// The contract of an agent: it carries out one prompt of a job by editing an
// in-memory workspace over the repository. What happens to the edits (commit,
// push, pull request) is not its business.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/turn.h"
#include "git/git.h"

namespace docwright::docs {
struct SiteMap;
class CommitCache;
}  // namespace docwright::docs

namespace docwright::agent {

// The turn's outcome as far as the agent takes it (never `pr_link`: the edits
// are not pushed yet), and what the pull request needs from it besides.
struct AgentResult : TurnOutcome {
  std::optional<std::string> title;  // for the pull request, if the agent has one
  // Check problems left in the edits after the repair rounds, for the pull request.
  std::vector<std::string> problems;
  // What the checks noted without asking for repair (the site's older problems,
  // remarks on style), for the pull request.
  std::vector<std::string> notes;
  // Set when the turn crossed a monthly budget (TurnInput::spend_limit): the
  // agent stopped after that step with `succeeded` and its work kept, to be
  // published as usual; the turn then ends failed with this error.
  std::optional<std::string> budget_error;
};

// One of the project's context repositories (core/workflow.h) as a turn reads
// it: read-only, pinned at one commit for the whole turn.
struct ContextSnapshot {
  std::string name;    // what the tools' "repository" argument names
  std::string branch;  // the branch read
  std::string commit;  // its head when the turn started
  // Files in it, counted up to a bound: `files_cut` says there are more.
  size_t files = 0;
  bool files_cut = false;
  // At `commit`, charging the turn's work budget; outlives the agent's run.
  const git::Snapshot* snapshot = nullptr;
};

// A context repository the turn goes on without, and why (no secrets in it).
struct UnreadContext {
  std::string name;
  std::string reason;
};

// What a turn may read besides the docs repository, and what the runner knows
// of the repository already.
struct TurnContext {
  std::vector<ContextSnapshot> repositories;  // by name, at most kMaxContextRepositories
  std::vector<UnreadContext> unread;
  // The site map of the workspace's base (the commit the turn starts from), as
  // the runner built it for the write policy (docs::SharedSiteMap): the agent's
  // prompt and policy use it rather than build it again. Null: the agent builds
  // its own.
  std::shared_ptr<const docs::SiteMap> site_map;
  // The node's cache of what depends only on a commit, for the agent's checks
  // (docs::Limits::cache); null: none.
  docs::CommitCache* docs_cache = nullptr;
};

class Agent {
 public:
  virtual ~Agent() = default;
  // Carries out `turn.message` by editing `workspace`, which starts at the head
  // of the job's branch (or the project's base branch on the first turn), and
  // may read (never write) the repositories of `context`. Runs on a worker
  // thread; called concurrently for different jobs. Returns soon after `cancel`
  // is set, with `interrupted`. May be called again for the same turn (after a
  // crash, or when the branch moved while it ran) with a fresh workspace: it
  // must start over.
  virtual AgentResult Run(const TurnInput& turn, git::Workspace& workspace,
                          const TurnContext& context, CancelToken& cancel) = 0;
};

}  // namespace docwright::agent
