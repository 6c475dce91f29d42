// A test agent whose behaviour is written in the prompt, so black-box tests can
// drive every runner path through the HTTP API. Directives, anywhere in a prompt:
//   [sleep MS]      wait MS milliseconds (cancellable) before finishing
//   [fail MESSAGE]  end the turn failed with MESSAGE
//   [throw]         throw an exception from RunTurn
//   [nochange]      succeed without a pull request
// Otherwise the turn succeeds with a pull request link and a summary.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "runner/agent.h"

namespace docwright::testing {

class ScriptedAgent final : public Agent {
 public:
  TurnResult RunTurn(const TurnInput& input, CancelToken& cancel) override;

  std::atomic<int> turns_started{0};
  std::atomic<int> turns_cancelled{0};

  // "start <job> <seq>" and "end <job> <seq>", in the order they happened.
  std::vector<std::string> Events() {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  void Record(const std::string& what, const TurnInput& input);
  std::mutex mu_;
  std::vector<std::string> events_;
};

}  // namespace docwright::testing
