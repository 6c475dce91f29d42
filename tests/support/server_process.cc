#include "support/server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>

namespace docwright::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// fork + exec with stdout and stderr sent to files, and `env` ("NAME=value")
// added to this process's environment; returns the child's pid.
pid_t Spawn(const std::string& binary, const std::vector<std::string>& args,
            const std::string& out_path, const std::string& err_path,
            const std::vector<std::string>& env = {}) {
  // argv and envp are made before fork(): the child of a threaded process may
  // call only async-signal-safe functions until exec (a malloc can deadlock).
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    bool replaced = false;
    for (const std::string& extra : env) {
      replaced = replaced || entry.starts_with(extra.substr(0, extra.find('=') + 1));
    }
    if (!replaced) envp.push_back(*e);
  }
  for (auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid != 0) return pid;
  int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  int devnull = open("/dev/null", O_RDONLY);
  dup2(devnull, 0);
  dup2(out, 1);
  dup2(err, 2);
  execve(binary.c_str(), argv.data(), envp.data());
  _exit(127);
}

}  // namespace

std::string CommandResult::LastLine() const {
  std::istringstream in(out);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

CommandResult RunCommand(const std::string& binary, const std::vector<std::string>& args) {
  char out_tmpl[] = "/tmp/docwright-cmd-out.XXXXXX";
  char err_tmpl[] = "/tmp/docwright-cmd-err.XXXXXX";
  close(mkstemp(out_tmpl));
  close(mkstemp(err_tmpl));
  pid_t pid = Spawn(binary, args, out_tmpl, err_tmpl);
  int status = 0;
  waitpid(pid, &status, 0);
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out_tmpl);
  r.err = ReadFile(err_tmpl);
  unlink(out_tmpl);
  unlink(err_tmpl);
  return r;
}

BackgroundProcess::~BackgroundProcess() { Kill9(); }

void BackgroundProcess::Start(const std::string& binary, const std::vector<std::string>& args,
                              const std::string& out_path, const std::string& err_path,
                              const std::vector<std::string>& env) {
  Kill9();
  pid_ = Spawn(binary, args, out_path, err_path, env);
}

bool BackgroundProcess::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void BackgroundProcess::Kill9() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

int BackgroundProcess::Terminate(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

ServerProcess::ServerProcess(std::string binary, std::string data_dir,
                             std::vector<std::string> args, std::vector<std::string> env)
    : binary_(std::move(binary)),
      data_dir_(std::move(data_dir)),
      log_path_(data_dir_ + "/serve.log"),
      args_(std::move(args)),
      env_(std::move(env)) {
  // The default number of workers is sized to the machine, up to 1000 threads
  // a server: the suite's many servers (under the sanitizers too) keep to the
  // 64 they always ran. A test that sets DOCWRIGHT_WORKERS, even to nothing
  // (then the default holds), or passes --workers, decides for itself (the
  // variable would win over the flag).
  bool set = false;
  for (const std::string& e : env_) set = set || e.starts_with("DOCWRIGHT_WORKERS=");
  for (const std::string& a : args_) set = set || a == "--workers" || a.starts_with("--workers=");
  if (!set) env_.push_back("DOCWRIGHT_WORKERS=" + std::to_string(kTestServerWorkers));
}

bool ServerProcess::Start() {
  const std::string port_file = data_dir_ + "/port";
  std::vector<std::string> args = {"serve",       "--data-dir",  data_dir_, "--listen",
                                   "127.0.0.1:0", "--port-file", port_file};
  args.insert(args.end(), args_.begin(), args_.end());
  unlink(port_file.c_str());  // the port of this start, not of an earlier one
  process_.Start(binary_, args, data_dir_ + "/serve.out", log_path_, env_);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string text = ReadFile(port_file);
    if (!text.empty()) {
      port_ = static_cast<uint16_t>(std::stoi(text));
      return true;
    }
    if (!process_.Running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

std::string ServerProcess::Log() const { return ReadFile(log_path_); }

}  // namespace docwright::testing
