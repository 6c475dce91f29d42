// A TCP listener on 127.0.0.1 that accepts every connection and then never
// answers, or (with `trickle`) sends the start of an HTTP response and then one
// byte per `trickle`, forever: a remote that is alive but useless. For tests of
// the deadlines of whatever talks to remotes.
#pragma once

#include <atomic>
#include <chrono>
#include <stop_token>
#include <thread>
#include <vector>

namespace docwright::testing {

class SilentServer {
 public:
  explicit SilentServer(std::chrono::milliseconds trickle = std::chrono::milliseconds(0));
  ~SilentServer();  // stops serving and closes every connection
  SilentServer(const SilentServer&) = delete;
  SilentServer& operator=(const SilentServer&) = delete;

  int port() const { return port_; }
  int accepted() const { return accepted_.load(); }

 private:
  void Serve(std::stop_token stop);

  std::chrono::milliseconds trickle_;
  int listener_ = -1;
  int port_ = 0;
  std::vector<int> clients_;  // the server thread's until it is joined
  std::atomic<int> accepted_{0};
  std::jthread thread_;
};

}  // namespace docwright::testing
