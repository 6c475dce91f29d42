// A client of the docwright HTTP API, for the `docwright job ...` commands.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "core/status.h"

namespace docwright {

struct ApiReply {
  int status = 0;
  std::string body;  // the response body as received (JSON)
};

class ApiClient {
 public:
  // `base_url` like "http://127.0.0.1:8080" (https works too); `key` a dw_ key.
  ApiClient(std::string base_url, std::string key,
            std::chrono::milliseconds timeout = std::chrono::seconds(30));
  ~ApiClient();

  // Any HTTP status is a reply; Unavailable only when no response arrived.
  Result<ApiReply> Get(const std::string& path);
  Result<ApiReply> Post(const std::string& path, const std::string& json_body);

 private:
  Result<ApiReply> Send(const std::string& method, const std::string& path,
                        const std::string& body);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docwright
