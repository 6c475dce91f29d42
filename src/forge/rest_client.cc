#include "forge/rest_client.h"

#include <cctype>
#include <chrono>
#include <thread>

#include "core/metrics.h"
#include "core/text.h"

namespace docwright::forge {

std::optional<std::chrono::milliseconds> RateLimitWait(const http::Response& reply,
                                                       int64_t now_epoch_seconds) {
  if (reply.status != 403 && reply.status != 429) return std::nullopt;
  if (auto after = http::ParseRetryAfter(reply.Header("retry-after"))) return after;
  for (const char* prefix : {"x-ratelimit-", "ratelimit-"}) {
    std::string prefix_s = prefix;
    if (reply.Header(prefix_s + "remaining") != "0") continue;
    try {
      int64_t reset = std::stoll(reply.Header(prefix_s + "reset"));
      return std::chrono::seconds(std::max<int64_t>(reset - now_epoch_seconds, 0) + 1);
    } catch (...) {
      return std::chrono::seconds(60);
    }
  }
  return std::nullopt;
}

RestClient::RestClient(std::string name, std::string api_base,
                       std::vector<std::pair<std::string, std::string>> headers,
                       const ForgeContext& context)
    : name_(std::move(name)), api_base_(std::move(api_base)), headers_(std::move(headers)) {
  while (!api_base_.empty() && api_base_.back() == '/') api_base_.pop_back();
  policy_.max_attempts = context.max_attempts;
  policy_.max_delay = context.max_delay;
  policy_.base_delay = std::chrono::milliseconds(500);
  policy_.sleep = context.sleep;
  policy_.rate_limit_wait = [](const http::Response& reply) {
    auto now = std::chrono::duration_cast<std::chrono::seconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    return RateLimitWait(reply, now);
  };
}

namespace {

// The forge's own explanation in an error reply, bounded.
std::string ErrorText(const RestReply& reply) {
  std::string text;
  if (reply.body.is_object()) {
    for (const char* field : {"message", "error", "errors"}) {
      auto it = reply.body.find(field);
      if (it == reply.body.end()) continue;
      std::string part = it->is_string() ? it->get<std::string>() : it->dump();
      text += text.empty() ? part : "; " + part;
    }
  }
  if (text.size() > 400) text = text.substr(0, 400) + "...";
  return text;
}

}  // namespace

Result<RestReply> RestClient::Call(const std::string& method, const std::string& target,
                                   const std::optional<nlohmann::json>& body,
                                   std::initializer_list<int> accepted) {
  http::Request request;
  request.method = method;
  request.url = api_base_ + target;
  request.headers = headers_;
  bool has_accept = false;
  for (const auto& [name, value] : headers_) has_accept = has_accept || name == "Accept";
  if (!has_accept) request.headers.emplace_back("Accept", "application/json");
  if (body) {
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = body->dump();
  }
  request.max_response_bytes = 8u << 20;
  std::string what = method + " " + RedactCredentials(request.url);
  for (const auto& [name, value] : request.headers) {
    if (value.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument(name_ +
                                     ": a header value holds a line break (check the token)");
    }
  }
  // Each attempt is one request to the forge: an attempt that is retried ends
  // as the wait before the next begins.
  std::string forge = name_;  // "GitHub": "github"
  for (char& c : forge) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto attempt_start = std::chrono::steady_clock::now();
  bool counted = false;
  http::RetryPolicy policy = policy_;
  policy.sleep = [&](std::chrono::milliseconds wait) {
    metrics::RecordForgeRequest(forge, false, metrics::SecondsSince(attempt_start));
    bool go_on = true;
    if (policy_.sleep) {
      go_on = policy_.sleep(wait);
    } else {
      std::this_thread::sleep_for(wait);
    }
    attempt_start = std::chrono::steady_clock::now();
    counted = !go_on;  // no attempt follows: the last one is counted
    return go_on;
  };
  auto sent = client_.SendWithRetries(request, policy);
  if (!counted) {
    metrics::RecordForgeRequest(forge, sent.ok() && sent->status / 100 == 2,
                                metrics::SecondsSince(attempt_start));
  }
  if (!sent.ok()) {
    return Status::Unavailable(name_ + " could not be used (" + what +
                               "): " + sent.status().message());
  }
  RestReply reply;
  reply.status = sent->status;
  reply.body = nlohmann::json::parse(sent->body, nullptr, /*allow_exceptions=*/false);
  if (reply.body.is_discarded()) reply.body = nullptr;
  bool ok = reply.status / 100 == 2;
  for (int a : accepted) ok = ok || reply.status == a;
  if (ok) return reply;

  std::string detail = ErrorText(reply);
  std::string message = name_ + " answered " + std::to_string(reply.status) + " to " + what +
                        (detail.empty() ? "" : ": " + detail);
  if (reply.status == 401) {
    return Status::Unauthenticated(message + " (check the project's forge token)");
  }
  if (reply.status / 100 == 5 || reply.status == 429 || reply.status == 408 ||
      RateLimitWait(*sent, 0)) {
    return Status::Unavailable(message);
  }
  return Status::InvalidArgument(message);
}

}  // namespace docwright::forge
