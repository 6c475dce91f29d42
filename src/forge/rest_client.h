// JSON over HTTPS to a hosted forge's REST API: authentication headers, retries
// with backoff that honour Retry-After and the forges' rate-limit headers, and
// errors that follow Forge::Ensure's contract. Internal to forge/.
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "forge/forge.h"
#include "http/client.h"

namespace docwright::forge {

struct RestReply {
  int status = 0;
  nlohmann::json body;  // null when the reply had no JSON body
};

class RestClient {
 public:
  // `name` is shown in errors ("GitHub"); `api_base` has no trailing slash.
  RestClient(std::string name, std::string api_base,
             std::vector<std::pair<std::string, std::string>> headers, const ForgeContext& context);

  // Sends `body` (if any) to api_base + `target` and returns a 2xx reply, or one
  // whose status is in `accepted`; any other reply is an error. Every method is
  // retried on 5xx, 429 and rate limits: the callers make their requests safe to
  // repeat.
  Result<RestReply> Call(const std::string& method, const std::string& target,
                         const std::optional<nlohmann::json>& body,
                         std::initializer_list<int> accepted = {});

  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::string api_base_;
  std::vector<std::pair<std::string, std::string>> headers_;
  http::RetryPolicy policy_;
  http::Client client_;
};

// The wait a rate-limited reply asks for: Retry-After, else the time until the
// reset of an exhausted limit (GitHub's x-ratelimit-*, GitLab's ratelimit-*);
// nullopt when the reply is not a rate limit.
std::optional<std::chrono::milliseconds> RateLimitWait(const http::Response& reply,
                                                       int64_t now_epoch_seconds);

}  // namespace docwright::forge
