// A black-box reader of the server's event streams: one HTTP/1.0 GET over a
// loopback socket (so the body comes without chunked framing), its events
// parsed as they arrive. For tests only: the product's parser is client/sse.h.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "support/http_client.h"

namespace docwright::testing {

struct SseEvent {
  std::string id;
  std::string type;
  std::string data;
  nlohmann::json Json() const { return nlohmann::json::parse(data); }
};

class SseReader {
 public:
  // Sends GET `target` with `headers` to 127.0.0.1:`port` and reads the
  // response's status and headers.
  SseReader(uint16_t port, const std::string& target,
            const std::vector<std::pair<std::string, std::string>>& headers) {
    fd_ = ConnectLoopback(port, std::chrono::seconds(30));
    if (fd_ < 0) return;
    std::string request = "GET " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\n";
    for (const auto& [k, v] : headers) request += k + ": " + v + "\r\n";
    request += "\r\n";
    if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size())) {
      return;
    }
    // The head arrives at once (the stream sends its start with it).
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (buffer_.find("\r\n\r\n") == std::string::npos && Fill(deadline)) {
    }
    size_t end = buffer_.find("\r\n\r\n");
    if (end == std::string::npos) return;
    head_ = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    if (head_.size() > 12) status_ = std::stoi(head_.substr(9, 3));
  }
  ~SseReader() {
    if (fd_ >= 0) ::close(fd_);
  }

  int status() const { return status_; }
  const std::string& head() const { return head_; }
  // Bytes received after the head that are not part of an event yet.
  const std::string& pending() const { return buffer_; }
  bool closed() const { return closed_; }

  // Reads until `done` holds for the events read so far (all of them, in
  // order), the connection closes, or `timeout` passes. Returns every event
  // read since the stream opened.
  const std::vector<SseEvent>& ReadUntil(
      const std::function<bool(const std::vector<SseEvent>&)>& done,
      std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    Parse();
    while (!done(events_) && Fill(deadline)) Parse();
    return events_;
  }
  // Reads until an event of `type` has arrived.
  const std::vector<SseEvent>& ReadUntilType(const std::string& type,
                                             std::chrono::milliseconds timeout) {
    return ReadUntil(
        [&](const std::vector<SseEvent>& events) {
          for (const auto& e : events) {
            if (e.type == type) return true;
          }
          return false;
        },
        timeout);
  }
  // Comments (heartbeats) seen so far.
  int comments() const { return comments_; }

  // Reads for `d`, whatever comes.
  void ReadFor(std::chrono::milliseconds d) {
    ReadUntil([](const auto&) { return false; }, d);
  }

 private:
  bool Fill(std::chrono::steady_clock::time_point deadline) {
    if (fd_ < 0 || closed_) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[16384];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  void Parse() {
    for (size_t end; (end = buffer_.find("\n\n")) != std::string::npos;) {
      std::string block = buffer_.substr(0, end);
      buffer_.erase(0, end + 2);
      SseEvent e;
      bool any = false;
      size_t pos = 0;
      while (pos <= block.size()) {
        size_t nl = block.find('\n', pos);
        if (nl == std::string::npos) nl = block.size();
        std::string line = block.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.empty()) continue;
        if (line[0] == ':') {
          ++comments_;
          continue;
        }
        size_t colon = line.find(':');
        std::string field = line.substr(0, colon);
        std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
        if (!value.empty() && value[0] == ' ') value.erase(0, 1);
        if (field == "id") e.id = value, any = true;
        if (field == "event") e.type = value, any = true;
        if (field == "data") e.data += value, any = true;
      }
      if (any && !e.data.empty()) events_.push_back(std::move(e));
    }
  }

  int fd_ = -1;
  int status_ = 0;
  bool closed_ = false;
  int comments_ = 0;
  std::string head_;
  std::string buffer_;
  std::vector<SseEvent> events_;
};

}  // namespace docwright::testing
