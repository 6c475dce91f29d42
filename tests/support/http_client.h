// A blocking HTTP/1.1 client over one keep-alive loopback connection, for
// black-box tests. It can also send raw bytes, to test malformed requests.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace docwright::testing {

struct HttpResult {
  int status = 0;  // 0: no response (connection failed or closed)
  std::string body;
  std::map<std::string, std::string> headers;  // names in lowercase

  nlohmann::json Json() const;
  std::string Header(const std::string& lowercase_name) const;
};

// A plain TCP connection to 127.0.0.1:`port` with a `read_timeout` on reads, for
// tests that must control every byte and its timing; -1 on failure. The caller
// closes it. `source`, if given, is the client's own address (another address of
// the loopback range, such as "127.0.0.2", to act as a second client host).
int ConnectLoopback(uint16_t port, std::chrono::seconds read_timeout, const char* source = nullptr);

class HttpClient {
 public:
  explicit HttpClient(uint16_t port);
  ~HttpClient();

  // Sends a request on the current connection (reconnecting if the server closed
  // it) and reads the response.
  HttpResult Send(const std::string& method, const std::string& target,
                  const std::string& body = "",
                  const std::vector<std::pair<std::string, std::string>>& headers = {});
  // Writes `bytes` as they are on a fresh connection and reads one response.
  HttpResult SendRaw(const std::string& bytes);
  // Called with every answer Send and SendRaw receive (SendRaw's with an empty
  // method, and the raw bytes as its target), on the calling thread: the
  // service's tests check each answer against the API's document with it.
  using ResponseCheck = std::function<void(const std::string& method, const std::string& target,
                                           const HttpResult& response)>;
  void SetResponseCheck(ResponseCheck check) { check_ = std::move(check); }
  // How many TCP connections this client has opened.
  int connections_opened() const { return connections_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int connections_ = 0;
  ResponseCheck check_;
};

}  // namespace docwright::testing
