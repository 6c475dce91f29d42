// A smart-HTTP git server on loopback for tests: `git http-backend` (from git
// itself) behind a small HTTP server that demands Basic auth with one token.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace docwright::testing {

class GitHttpServer {
 public:
  // Serves the repositories under `root` as http://127.0.0.1:PORT/<name>.git;
  // requests must carry Basic auth whose password is `token` (user x-access-token
  // or oauth2).
  GitHttpServer(std::string root, std::string token);
  ~GitHttpServer();

  uint16_t port() const;
  std::string Url(const std::string& repo) const;
  int requests() const;  // answered so far, refused ones included

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docwright::testing
