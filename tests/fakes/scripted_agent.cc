#include "fakes/scripted_agent.h"

#include <chrono>
#include <stdexcept>
#include <string>

namespace docwright::testing {
namespace {

// The argument of "[name ARG]" in `text`, or nullopt.
std::optional<std::string> Directive(const std::string& text, const std::string& name) {
  std::string open = "[" + name;
  size_t at = text.find(open);
  if (at == std::string::npos) return std::nullopt;
  size_t start = at + open.size();
  size_t end = text.find(']', start);
  if (end == std::string::npos) return std::nullopt;
  std::string arg = text.substr(start, end - start);
  if (!arg.empty() && arg.front() == ' ') arg.erase(0, 1);
  return arg;
}

}  // namespace

void ScriptedAgent::Record(const std::string& what, const TurnInput& input) {
  std::lock_guard lock(mu_);
  events_.push_back(what + " " + input.job.id + " " + std::to_string(input.message.seq));
}

TurnResult ScriptedAgent::RunTurn(const TurnInput& input, CancelToken& cancel) {
  turns_started.fetch_add(1);
  Record("start", input);
  struct End {
    ScriptedAgent* self;
    const TurnInput& input;
    ~End() { self->Record("end", input); }
  } end{this, input};
  const std::string& prompt = input.message.prompt;
  if (auto ms = Directive(prompt, "sleep")) {
    if (cancel.WaitFor(std::chrono::milliseconds(std::stoll(*ms)))) {
      turns_cancelled.fetch_add(1);
      TurnResult r;
      r.interrupted = true;
      return r;
    }
  }
  if (Directive(prompt, "throw")) throw std::runtime_error("scripted failure");
  if (auto message = Directive(prompt, "fail")) return TurnResult{false, {}, {}, *message};
  TurnResult r;
  r.succeeded = true;
  r.summary = "Carried out message " + std::to_string(input.message.seq) + " of job " +
              input.job.id + " (" + std::to_string(input.history.size()) + " earlier)";
  if (!Directive(prompt, "nochange")) {
    r.pr_link = "http://forge.test/pulls/" + input.job.id;
  }
  return r;
}

}  // namespace docwright::testing
