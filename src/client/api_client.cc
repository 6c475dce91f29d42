#include "client/api_client.h"

#include <random>
#include <thread>

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

namespace {

http::RetryPolicy Retries() {
  http::RetryPolicy retries;
  retries.max_attempts = 4;
  return retries;
}

}  // namespace

Result<http::Response> ApiClient::Get(const std::string& path) {
  return client_.SendWithRetries(Make("GET", path), Retries());
}

Result<http::Response> ApiClient::Post(const std::string& path, const std::string& json_body,
                                       const std::string& idempotency_key) {
  http::Request r = Make("POST", path);
  r.headers.emplace_back("Content-Type", "application/json");
  r.body = json_body;
  if (idempotency_key.empty()) return client_.Send(r);
  r.headers.emplace_back("Idempotency-Key", idempotency_key);
  // Retried when no answer came, the server failed or was busy, or the key's
  // first request was still in progress; not on a refusal such as 429, whose
  // wait may be an hour.
  const http::RetryPolicy policy = Retries();
  std::random_device random;
  for (int attempt = 1;; ++attempt) {
    auto reply = client_.Send(r);
    bool again = reply.ok() ? (reply->status >= 500 && reply->status != 501) ||
                                  (reply->status == 409 &&
                                   reply->body.find("idempotency_key_in_use") != std::string::npos)
                            : reply.status().code() == Code::kUnavailable;
    if (!again || attempt >= policy.max_attempts) return reply;
    std::optional<std::chrono::milliseconds> retry_after;
    if (reply.ok()) retry_after = http::ParseRetryAfter(reply->Header("retry-after"));
    std::this_thread::sleep_for(http::RetryDelay(attempt, policy, retry_after, random()));
  }
}

EventStreamEnd ApiClient::Stream(const std::string& path, const std::string& last_event_id,
                                 const std::function<bool(const ServerSentEvent&)>& on_event,
                                 const std::function<bool()>& cancelled) {
  http::Request r = Make("GET", path);
  r.headers = {{"Authorization", "Bearer " + key_},
               {"Accept", "text/event-stream"},
               {"Cache-Control", "no-cache"}};
  // An id holds no line break or NUL (the parser's lines and its rule), so it
  // cannot end the header.
  if (!last_event_id.empty()) r.headers.emplace_back("Last-Event-ID", last_event_id);
  r.timeout = std::chrono::milliseconds(0);  // a stream lasts: the idle timeout watches it
  r.idle_timeout = kStreamIdle;
  r.max_response_bytes = 64u << 10;  // an error's body
  r.cancelled = cancelled;
  SseParser parser;
  Status malformed;
  bool stopped = false;
  r.on_body = [&](std::string_view piece) {
    Status s = parser.Feed(piece, [&](const ServerSentEvent& event) {
      stopped = !on_event(event);
      return !stopped;
    });
    if (!s.ok()) malformed = s;
    return s.ok() && !stopped;
  };
  auto reply = client_.Send(r);
  EventStreamEnd end;
  end.last_event_id = parser.last_event_id().empty() ? last_event_id : parser.last_event_id();
  end.retry = parser.retry();
  if (!malformed.ok()) {
    end.status = malformed;
  } else if (!reply.ok()) {
    end.status = reply.status();
  } else {
    end.response = std::move(*reply);
    const std::string type = end.response.Header("content-type");
    if (end.response.status / 100 == 2 && !type.starts_with("text/event-stream")) {
      end.status = Status::Internal("the server's answer is not an event stream (" +
                                    (type.empty() ? std::string("no type") : type) + ")");
    }
  }
  return end;
}

}  // namespace docwright
