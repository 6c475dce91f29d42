// Internal to the workflows' engine (engine.cc, engine_branches.cc,
// engine_forge_events.cc): what its parts share.
#pragma once

#include <spdlog/spdlog.h>

#include <string>
#include <string_view>

#include "core/text.h"
#include "core/work_budget.h"
#include "workflows/engine.h"

namespace docwright::workflows {

// The errors of one round: each logged when met, the first kept for Tick.
struct WorkflowEngine::Round {
  Status first;
  UnixMillis now = 0;
  void Note(const Status& s, const std::string& what) {
    if (s.ok()) return;
    spdlog::warn("workflows: {}: {} (tried again next round)", OneLogLine(what, 300),
                 OneLogLine(s.message(), 1000));
    if (first.ok()) first = s;
  }
};

namespace engine {

// What reading a project's workflow files or a run's diff may cost.
WorkBudget::Limits ReadLimits();

std::string_view OutcomeWord(WorkflowRunStart::Outcome o);

// The branch a push workflow watches: its own, or the project's base branch.
std::string PushBranch(const Workflow& w, const Project& project);

bool Runnable(const Workflow& w, TriggerKind kind);

// The changes between `from` and `to` in `mirror`, both fetched.
RunChanges ChangesIn(git::Mirror& mirror, const std::string& from, const std::string& to);

// A commit id for a log line or an outcome: its first 12 characters.
inline std::string Short(const std::string& sha) { return sha.substr(0, 12); }

}  // namespace engine
}  // namespace docwright::workflows
