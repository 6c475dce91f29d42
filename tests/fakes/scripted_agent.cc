#include "fakes/scripted_agent.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace docwright::testing {
namespace {

// Records "start" now and "end" when it goes out of scope.
struct TurnEvents {
  TurnEvents(ScriptedLog& log, const TurnInput& input) : log(log), input(input) {
    log.turns_started.fetch_add(1);
    log.Record("start", input);
  }
  ~TurnEvents() { log.Record("end", input); }
  ScriptedLog& log;
  const TurnInput& input;
};

// The directives every scripted fake obeys: sleeping, failing, throwing. Returns
// the failure or interruption to report, or nullopt to go on.
std::optional<agent::AgentResult> Common(ScriptedLog& log, const std::string& prompt,
                                         CancelToken& cancel) {
  if (auto ms = Directive(prompt, "sleep")) {
    if (cancel.WaitFor(std::chrono::milliseconds(std::stoll(*ms)))) {
      log.turns_cancelled.fetch_add(1);
      agent::AgentResult r;
      r.interrupted = true;
      return r;
    }
  }
  if (auto path = Directive(prompt, "await")) {
    // Until the file exists: a test holds every turn in flight until it has
    // seen them all running. Looking after 10 ms, then less and less often (up
    // to every 250 ms), so that a thousand turns held at once do not take the
    // cores from the turns still starting.
    for (auto wait = std::chrono::milliseconds(10); !std::filesystem::exists(*path);
         wait = std::min(wait * 2, std::chrono::milliseconds(250))) {
      if (cancel.WaitFor(wait)) {
        log.turns_cancelled.fetch_add(1);
        agent::AgentResult r;
        r.interrupted = true;
        return r;
      }
    }
  }
  if (Directive(prompt, "throw")) throw std::runtime_error("scripted failure");
  if (auto message = Directive(prompt, "fail")) {
    agent::AgentResult r;
    r.error = *message;
    return r;
  }
  return std::nullopt;
}

std::string Summary(const TurnInput& input) {
  return "Carried out message " + std::to_string(input.message.seq) + " of job " + input.job.id +
         " (" + std::to_string(input.history.size()) + " earlier)";
}

}  // namespace

std::optional<std::string> Directive(const std::string& text, const std::string& name) {
  std::string open = "[" + name;
  for (size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    size_t start = at + open.size();
    if (start < text.size() && text[start] != ' ' && text[start] != ']') continue;  // a longer name
    size_t end = text.find(']', start);
    if (end == std::string::npos) return std::nullopt;
    std::string arg = text.substr(start, end - start);
    if (!arg.empty() && arg.front() == ' ') arg.erase(0, 1);
    return arg;
  }
  return std::nullopt;
}

void ScriptedLog::Record(const std::string& what, const TurnInput& input) {
  std::lock_guard lock(mu_);
  events_.push_back(what + " " + input.job.id + " " + std::to_string(input.message.seq));
}

agent::AgentResult ScriptedAgent::Run(const TurnInput& input, git::Workspace& workspace,
                                      const agent::TurnContext&, CancelToken& cancel) {
  TurnEvents events(*this, input);
  const std::string& prompt = input.message.prompt;
  if (auto stop = Common(*this, prompt, cancel)) return *stop;
  agent::AgentResult r;
  r.summary = Summary(input);
  if (auto summary = Directive(prompt, "summary")) {
    r.summary = *summary;
    for (size_t at = r.summary->find("{job}"); at != std::string::npos;
         at = r.summary->find("{job}", at)) {
      r.summary->replace(at, 5, input.job.id);
    }
  }
  r.title = Directive(prompt, "title");
  if (Directive(prompt, "nochange")) {
    r.succeeded = true;
    return r;
  }
  Status s;
  if (auto write = Directive(prompt, "write")) {
    size_t space = write->find(' ');
    s = workspace.Write(write->substr(0, space),
                        space == std::string::npos ? "" : write->substr(space + 1) + "\n");
  } else if (auto append = Directive(prompt, "append")) {
    size_t space = append->find(' ');
    std::string path = append->substr(0, space);
    auto current = workspace.Read(path);
    std::string text = current.ok() ? current->text : "";
    s = workspace.Write(
        path, text + (space == std::string::npos ? "" : append->substr(space + 1)) + "\n");
  } else if (auto del = Directive(prompt, "delete")) {
    s = workspace.Delete(*del);
  } else {
    s = workspace.Write("notes/" + input.job.id + "-" + std::to_string(input.message.seq) + ".md",
                        prompt + "\n");
  }
  if (!s.ok()) {
    r.error = s.message();
    return r;
  }
  r.succeeded = true;
  return r;
}

TurnOutcome ScriptedTurns::RunTurn(const TurnInput& input, CancelToken& cancel) {
  TurnEvents events(*this, input);
  const std::string& prompt = input.message.prompt;
  TurnOutcome r;
  if (auto stop = Common(*this, prompt, cancel)) {
    r.interrupted = stop->interrupted;
    r.error = stop->error;
    return r;
  }
  r.succeeded = true;
  r.summary = Summary(input);
  if (!Directive(prompt, "nochange")) r.pr_link = "http://forge.test/pulls/" + input.job.id;
  return r;
}

}  // namespace docwright::testing
