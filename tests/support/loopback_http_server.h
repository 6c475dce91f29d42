// An HTTP/1.1 server on 127.0.0.1 for tests: a thread per connection, keep-alive,
// and every request handed to one function. The fakes of outside services are
// such functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace docwright::testing {

struct LoopbackRequest {
  std::string method, target, body;
  std::map<std::string, std::string> headers;  // names in lowercase
};

struct LoopbackResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool close = false;  // close the connection after this response
  // Close it after this response without saying so (no "Connection: close"),
  // as a server whose keep-alive ran out closes an idle connection.
  bool hang_up = false;
  // Instead of `body`: a body sent in pieces as a stream, with chunked transfer
  // coding, each piece after its delay (cut short when the server stops; a
  // piece without bytes is only a pause); the
  // connection then closes, after the last chunk unless `broken` (a stream that
  // breaks off).
  struct Piece {
    std::chrono::milliseconds delay{0};
    std::string bytes;
  };
  std::vector<Piece> stream;
  bool broken = false;
};

class LoopbackHttpServer {
 public:
  using Handler = std::function<LoopbackResponse(const LoopbackRequest&)>;

  explicit LoopbackHttpServer(Handler handler);
  ~LoopbackHttpServer();  // waits for open connections to end

  uint16_t port() const;
  // Connections accepted so far (a client that keeps one alive makes one).
  size_t connections() const;
  std::string Url(const std::string& path = "/") const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docwright::testing
