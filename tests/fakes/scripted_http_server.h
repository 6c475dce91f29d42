// A loopback HTTP server that answers from a script of canned responses, in
// order, and records every request it got: the test double for services that
// docwright calls out to.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace docwright::testing {

struct CannedResponse {
  int status = 200;
  std::map<std::string, std::string> headers;
  std::string body;
  std::chrono::milliseconds delay{0};  // before answering; cut short when the server stops
};

struct RecordedRequest {
  std::string method, target, body;
  std::map<std::string, std::string> headers;  // names in lowercase
};

class ScriptedHttpServer {
 public:
  // Answers with `script` in order; after it runs out, 500s.
  explicit ScriptedHttpServer(std::vector<CannedResponse> script);
  ~ScriptedHttpServer();

  std::string Url(const std::string& path = "/") const;
  std::vector<RecordedRequest> Requests() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docwright::testing
