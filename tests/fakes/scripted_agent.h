// Test agents whose behaviour is written in the prompt, so tests can drive every
// path through the HTTP API. Directives, anywhere in a prompt:
//   [sleep MS]            wait MS milliseconds (cancellable) before finishing
//   [await PATH]          wait (cancellable) until the file PATH exists
//   [fail MESSAGE]        end the turn failed with MESSAGE
//   [throw]               throw an exception
//   [nochange]            succeed without editing anything
//   [write PATH TEXT]     write TEXT to PATH (instead of the default edit)
//   [append PATH TEXT]    append a line TEXT to PATH: a re-run would append again
//   [delete PATH]         delete PATH
//   [title TEXT]          the pull request title
//   [summary TEXT]        the summary, with "{job}" replaced by the job's id
// Otherwise the turn succeeds with one edit: "notes/<job id>-<seq>.md" holds the
// prompt (the same bytes on a re-run, so a re-run changes nothing).
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "runner/turn.h"

namespace docwright::testing {

// What every scripted fake records and counts.
class ScriptedLog {
 public:
  std::atomic<int> turns_started{0};
  std::atomic<int> turns_cancelled{0};

  // "start <job> <seq>" and "end <job> <seq>", in the order they happened.
  std::vector<std::string> Events() {
    std::lock_guard lock(mu_);
    return events_;
  }
  void Record(const std::string& what, const TurnInput& input);

 private:
  std::mutex mu_;
  std::vector<std::string> events_;
};

// The argument of "[name ARG]" in `text`, or nullopt.
std::optional<std::string> Directive(const std::string& text, const std::string& name);

// Edits the workspace as the prompt says.
class ScriptedAgent final : public agent::Agent, public ScriptedLog {
 public:
  agent::AgentResult Run(const TurnInput& input, git::Workspace& workspace,
                         const agent::TurnContext& context, CancelToken& cancel) override;
};

// A whole turn without a repository, for runner tests: succeeds with the pull
// request "http://forge.test/pulls/<job id>" unless told [nochange].
class ScriptedTurns final : public TurnHandler, public ScriptedLog {
 public:
  TurnOutcome RunTurn(const TurnInput& input, CancelToken& cancel) override;
};

}  // namespace docwright::testing
