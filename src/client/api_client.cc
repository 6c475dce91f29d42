#include "client/api_client.h"

namespace docwright {

ApiClient::ApiClient(std::string base_url, std::string key)
    : base_url_(std::move(base_url)), key_(std::move(key)) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
}

http::Request ApiClient::Make(const std::string& method, const std::string& path) const {
  http::Request r;
  r.method = method;
  r.url = base_url_ + path;
  r.headers = {{"Authorization", "Bearer " + key_}, {"Accept", "application/json"}};
  r.max_response_bytes = 16u << 20;
  return r;
}

Result<http::Response> ApiClient::Get(const std::string& path) {
  http::RetryPolicy retries;
  retries.max_attempts = 4;
  return client_.SendWithRetries(Make("GET", path), retries);
}

Result<http::Response> ApiClient::Post(const std::string& path, const std::string& json_body) {
  http::Request r = Make("POST", path);
  r.headers.emplace_back("Content-Type", "application/json");
  r.body = json_body;
  return client_.Send(r);
}

}  // namespace docwright
