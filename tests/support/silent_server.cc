#include "support/silent_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace docwright::testing {
namespace {

void Send(int fd, const char* text) {
  [[maybe_unused]] ssize_t n = ::send(fd, text, std::strlen(text), MSG_NOSIGNAL);
}

}  // namespace

SilentServer::SilentServer(std::chrono::milliseconds trickle) : trickle_(trickle) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof addr;
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), size) != 0 ||
      ::listen(listener_, 16) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
    ADD_FAILURE() << "cannot listen on 127.0.0.1";
    return;
  }
  port_ = ntohs(addr.sin_port);
  thread_ = std::jthread([this](std::stop_token stop) { Serve(stop); });
}

SilentServer::~SilentServer() {
  thread_ = {};  // stops and joins
  for (int fd : clients_) ::close(fd);
  if (listener_ >= 0) ::close(listener_);
}

void SilentServer::Serve(std::stop_token stop) {
  auto next = std::chrono::steady_clock::now();
  while (!stop.stop_requested()) {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, 20) > 0) {
      int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        clients_.push_back(fd);
        ++accepted_;
        if (trickle_ > std::chrono::milliseconds(0)) Send(fd, "HTTP/1.1 200 OK\r\nX-Slow: ");
      }
    }
    if (trickle_ > std::chrono::milliseconds(0) && std::chrono::steady_clock::now() >= next) {
      for (int fd : clients_) Send(fd, "a");
      next = std::chrono::steady_clock::now() + trickle_;
    }
  }
}

}  // namespace docwright::testing
