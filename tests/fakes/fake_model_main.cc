// docwright_fake_model: the fake model (fakes/fake_model.h) as a process, for the
// demo and the benchmarks.
//
//   docwright_fake_model --wire openai|anthropic --key KEY --script FILE.json
//                        [--prompt-cache on|off] [--arrivals FILE]
//
// --arrivals FILE: a line per request received, "<microseconds since the epoch>",
// written as it arrives (the job-start benchmark times a job's start with it).
// --prompt-cache off: the provider caches nothing (fakes/fake_prompt_cache.h
// describes what it does when on, the default).
// Prints "fake model listening on BASE_URL" (flushed) once it serves, then serves
// until SIGTERM or SIGINT; then it prints the violations it recorded to stderr
// and exits 1 if there were any, else 0. The port is one the system picks:
// read it from that line.
//
// The script file is a JSON array of steps (or {"steps": [...]}; // comments are
// allowed). Step k answers every conversation's k-th model request, the last
// step every later one:
//   {
//     "text": "I will write the page.",                 // optional
//     "tool_calls": [                                    // optional
//       {"name": "write_file",
//        "arguments": {"path": "notes/{{prompt_hash}}.md", "content": "..."}},
//       {"name": "edit_file", "raw_arguments": "{\"path\": "}  // sent verbatim
//     ],
//     "fail": {"status": 429, "times": 2,                // optional: the first 2
//              "headers": {"Retry-After": "1"}},         // requests here fail
//     "raw_body": "{not json",                           // optional: the whole reply
//     "delay_ms": 50                                     // optional: before answering
//   }
// Substitutions in text and arguments: {{prompt_hash}}, {{last_tool_result}}.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>

#include "fakes/fake_model.h"

namespace {

int Usage(const std::string& problem) {
  std::cerr << "docwright_fake_model: " << problem << "\n"
            << "usage: docwright_fake_model --wire openai|anthropic --key KEY --script FILE.json"
               " [--prompt-cache on|off] [--arrivals FILE]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using docwright::testing::FakeModelServer;
  std::string wire, key, script_path, prompt_cache = "on", arrivals_path;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return Usage("a scripted model server on 127.0.0.1");
    if (i + 1 >= argc) return Usage(arg + " needs a value");
    std::string value = argv[++i];
    if (arg == "--wire") {
      wire = value;
    } else if (arg == "--key") {
      key = value;
    } else if (arg == "--script") {
      script_path = value;
    } else if (arg == "--arrivals") {
      arrivals_path = value;
    } else if (arg == "--prompt-cache") {
      prompt_cache = value;
    } else {
      return Usage("unknown argument " + arg);
    }
  }
  if (wire != "openai" && wire != "anthropic") return Usage("--wire must be openai or anthropic");
  if (key.empty()) return Usage("--key is required");
  if (script_path.empty()) return Usage("--script is required");
  if (prompt_cache != "on" && prompt_cache != "off")
    return Usage("--prompt-cache must be on or off");

  std::ifstream in(script_path);
  if (!in) return Usage("cannot read " + script_path);
  std::stringstream text;
  text << in.rdbuf();
  auto script = FakeModelServer::ParseScript(text.str());
  if (!script.ok()) return Usage(script_path + ": " + script.status().message());

  // Blocked before the server starts its threads, so they inherit the mask and
  // the signals are left for sigwait below.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  FakeModelServer server(
      wire == "openai" ? FakeModelServer::Wire::kOpenAI : FakeModelServer::Wire::kAnthropic, key,
      std::move(*script));
  server.RecordRequests(false);  // a benchmark's bodies would only grow memory
  server.SetPromptCaching(prompt_cache == "on");
  std::FILE* arrivals = nullptr;
  std::mutex arrivals_mu;
  if (!arrivals_path.empty()) {
    arrivals = std::fopen(arrivals_path.c_str(), "a");
    if (!arrivals) return Usage("cannot write " + arrivals_path);
    server.OnArrival([arrivals, &arrivals_mu] {
      auto now = std::chrono::system_clock::now().time_since_epoch();
      std::lock_guard lock(arrivals_mu);
      std::fprintf(arrivals, "%lld\n",
                   static_cast<long long>(
                       std::chrono::duration_cast<std::chrono::microseconds>(now).count()));
      std::fflush(arrivals);
    });
  }
  std::cout << "fake model listening on " << server.BaseUrl() << std::endl;

  int signal = 0;
  sigwait(&stop, &signal);
  auto violations = server.Violations();
  for (const auto& v : violations) std::cerr << "violation: " << v << "\n";
  std::cerr << "fake model: " << violations.size() << " violation(s)" << std::endl;
  // Exits without destroying the server: its destructor waits for every open
  // connection to end, and a client may keep one alive indefinitely.
  std::fflush(nullptr);
  std::_Exit(violations.empty() ? 0 : 1);
}
