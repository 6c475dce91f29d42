// A client of the docwright HTTP API, for the `docwright job ...` commands.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "core/status.h"
#include "http/client.h"

namespace docwright {

class ApiClient {
 public:
  // `base_url` like "http://127.0.0.1:8080" (https works too); `key` a dw_ key.
  ApiClient(std::string base_url, std::string key);

  // Any HTTP status is a reply; Unavailable only when no response arrived. GETs
  // are retried on transient failures. A POST is sent once, unless it carries
  // an `idempotency_key` (Idempotency-Key: the server answers its repeats with
  // the first one's response): then it is retried when no answer came, on a
  // 5xx, and while the key's first request is in progress (409).
  Result<http::Response> Get(const std::string& path);
  Result<http::Response> Post(const std::string& path, const std::string& json_body,
                              const std::string& idempotency_key = "");

 private:
  http::Request Make(const std::string& method, const std::string& path) const;

  std::string base_url_;
  std::string key_;
  http::Client client_;
};

}  // namespace docwright
