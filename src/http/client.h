// Outgoing HTTP (libcurl): timeouts, bounded response bodies, and retries with
// exponential backoff and full jitter that honour Retry-After. The one place for
// talking to other services: forges, model providers, and docwright itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace docwright::http {

struct Request {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The whole exchange; 0 for no limit (for a stream that lasts, with
  // idle_timeout to notice a peer gone silent).
  std::chrono::milliseconds timeout{30000};
  std::chrono::milliseconds connect_timeout{10000};
  // Unavailable when nothing arrived for about this long once connected (0: no
  // such limit). Measured in whole seconds, by libcurl's average over its last
  // few seconds, so it may fire up to about 5 s later than asked: a stream
  // whose server sends a heartbeat every 15 s takes 45 s here.
  std::chrono::milliseconds idle_timeout{0};
  // The body collected in Response::body; over it, see truncate_response. Not
  // applied to a body handed to on_body.
  size_t max_response_bytes = 64u << 20;
  // A body over max_response_bytes: false, the request fails (Internal); true,
  // the reply is kept with its body cut at max_response_bytes (the rest is not
  // read), for a caller that needs the status and at most an excerpt.
  bool truncate_response = false;
  // Asked while the exchange is under way (as data moves, and about once a second
  // while it waits); returning true abandons it: Unavailable, and no retry.
  std::function<bool()> cancelled;
  // Called once, on the thread of Send, as soon as the whole body has been
  // handed to the connection (while the reply is awaited): the caller may do
  // other work then without holding the request up. Only for a request with a
  // body; not called if the body was never sent whole, and at most once over
  // SendWithRetries' attempts. The reply is read once it returns; what it
  // throws abandons the exchange and is thrown on by Send.
  std::function<void()> on_sent;
  // Only connect (TCP, and TLS for https): whether anything answers there, with
  // nothing sent. The response is empty, status 0.
  bool connect_only = false;
  // Streaming: a 2xx response's body is handed over piece by piece as it
  // arrives, instead of being collected (Response::body stays empty); called on
  // the thread of Send. Returning false ends the exchange cleanly: Send then
  // returns the Response, as when the server ends the body. A reply of any
  // other status is collected as usual, for its error message. A stream is
  // sent once: not through SendWithRetries, which would hand a piece over twice.
  std::function<bool(std::string_view piece)> on_body;
};

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lowercase
  std::string body;

  std::string Header(const std::string& lowercase_name) const;
};

struct RetryPolicy {
  int max_attempts = 1;  // 1: no retries
  std::chrono::milliseconds base_delay{500};
  std::chrono::milliseconds max_delay{30000};  // also caps Retry-After
  // Waits between attempts; returns false if the wait was cancelled (then no more
  // attempts are made). Tests replace it; the default sleeps. A request's own
  // `cancelled` also ends the attempts.
  std::function<bool(std::chrono::milliseconds)> sleep;
  // Recognises replies that are rate limits in a service's own terms (GitHub's
  // 403 with an exhausted x-ratelimit-remaining, say) and returns the wait they
  // ask for; such replies are retried like a 429 with that Retry-After.
  std::function<std::optional<std::chrono::milliseconds>(const Response&)> rate_limit_wait;
};

// Whether a reply with this status is worth another attempt: 408, 429, 500,
// 502, 503, 504.
bool IsRetryable(int status);

// The wait before retry `retry` (1 for the first retry): the server's
// Retry-After if it gave one, else full jitter over an exponential backoff,
// capped at max_delay. `random` is any uniformly random number.
std::chrono::milliseconds RetryDelay(int retry, const RetryPolicy& policy,
                                     std::optional<std::chrono::milliseconds> retry_after,
                                     uint64_t random);

// Parses a Retry-After value in seconds ("120"); HTTP dates are not used by the
// services docwright talks to and give nullopt.
std::optional<std::chrono::milliseconds> ParseRetryAfter(const std::string& value);

// Whether `ip` (a literal IPv4 or IPv6 address) is one a client refusing
// private addresses does not connect to: unspecified, loopback, private (RFC
// 1918, 100.64/10, fc00::/7), link-local (169.254/16, fe80::/10), site-local
// (fec0::/10), multicast, broadcast and reserved (240/4), and the IPv4-mapped,
// IPv4-compatible and NAT64 (64:ff9b::/96) forms of these. False for text that
// is no address.
bool IsPrivateAddress(const std::string& ip);

// Connections kept open between clients. A client made with a pool takes its
// libcurl handle from it, with the connections that handle holds open, and
// gives it back when destroyed: the next client to the same server sends at
// once, with no new TCP or TLS handshake (a turn's first model request). The
// most recently returned handle is taken first; at most `max_idle` are kept.
// libcurl reuses a connection only for the same scheme, host and port, not
// one idle for 30 s (every client's bound), and opens a new one when the
// server closed the old. Thread-safe; a handle is used by one client at a time. Must outlive
// nothing: clients hold it.
class ConnectionPool {
 public:
  explicit ConnectionPool(size_t max_idle = 64);
  ~ConnectionPool();
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  size_t idle() const;  // handles kept, waiting for a client

 private:
  friend class Client;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct ClientOptions {
  // Refuse to connect to a private address (IsPrivateAddress), checked on each
  // address the client is about to connect to, after name resolution (so a name
  // that resolves to a public address when checked and a private one when used
  // gains nothing); no proxy is used then. A refused request fails Unavailable
  // naming the address. For sending to URLs that the service's users give
  // (webhooks), so that they cannot reach the service's own network. Such a
  // client never uses a pool: a pooled connection was opened without the check.
  bool refuse_private_addresses = false;
  // Where the client's connections come from and go back to (null: its own,
  // closed with it).
  std::shared_ptr<ConnectionPool> pool;
};

class Client {
 public:
  Client();
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // One attempt. Any HTTP status is a Response; Unavailable when none arrived
  // (connection refused, timeout), Internal for a body over max_response_bytes.
  // Messages name the server's origin, never a path, query or credentials.
  Result<Response> Send(const Request& request);

  // Attempts until a reply is not retryable (see IsRetryable; Unavailable errors
  // are retried too) or `policy.max_attempts` are spent. Returns the last reply
  // (which may be a retryable status) or the last error. Only for requests that
  // are safe to repeat. `attempts`, if given, is set to the number of attempts
  // made (1 when the first one was kept), for the callers' metrics.
  Result<Response> SendWithRetries(const Request& request, const RetryPolicy& policy,
                                   int* attempts = nullptr);

 private:
  // Send, `*sent` telling whether on_sent was called (by an earlier attempt,
  // or this one).
  Result<Response> Attempt(const Request& request, bool* sent);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docwright::http
