// Runs the docwright binary as a child process, for black-box tests: admin
// commands to completion, workers in the background, and the server in the
// background on a free loopback port.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace docwright::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  // The last non-empty line of stdout: what `create` commands print their id on.
  std::string LastLine() const;
};

CommandResult RunCommand(const std::string& binary, const std::vector<std::string>& args);

// A command running in the background with stdout and stderr appended to files.
class BackgroundProcess {
 public:
  BackgroundProcess() = default;
  ~BackgroundProcess();  // kills it if it still runs
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  // `env` ("NAME=value") is added to this process's environment.
  void Start(const std::string& binary, const std::vector<std::string>& args,
             const std::string& out_path, const std::string& err_path,
             const std::vector<std::string>& env = {});
  // True while the process runs; reaps it once it has exited.
  bool Running();
  void Kill9();
  // Sends SIGTERM and waits; returns the exit code, or -1 on timeout.
  int Terminate(std::chrono::milliseconds timeout = std::chrono::seconds(20));
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

class ServerProcess {
 public:
  // `args` follow "serve --data-dir DATA_DIR --listen 127.0.0.1:0"; `env`
  // ("NAME=value") is added to this process's environment. Unless `args` or
  // `env` say otherwise, the server runs kTestServerWorkers workers.
  static constexpr int kTestServerWorkers = 64;
  ServerProcess(std::string binary, std::string data_dir, std::vector<std::string> args = {},
                std::vector<std::string> env = {});

  // Starts the server and waits until it listens; false if it did not.
  bool Start();
  uint16_t port() const { return port_; }
  pid_t pid() const { return process_.pid(); }

  void Kill9() { process_.Kill9(); }
  bool Running() { return process_.Running(); }
  int Terminate(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    return process_.Terminate(timeout);
  }
  std::string Log() const;

 private:
  std::string binary_, data_dir_, log_path_;
  std::vector<std::string> args_, env_;
  BackgroundProcess process_;
  uint16_t port_ = 0;
};

}  // namespace docwright::testing
