// A client of the docwright HTTP API, for the `docwright job ...` commands.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "client/sse.h"
#include "core/status.h"
#include "http/client.h"

namespace docwright {

// How an event stream (ApiClient::Stream) ended.
struct EventStreamEnd {
  // OK when the server ended the stream, or the caller stopped it; otherwise
  // why it broke: Unavailable when the connection failed, dropped or went
  // silent (worth resuming), InvalidArgument when the stream was malformed or
  // over the parser's bounds, Internal when the answer was no event stream.
  Status status;
  // The reply's status and headers (status 0 when none came); the body only
  // for a reply other than 2xx (the server's error).
  http::Response response;
  // Where to resume: the stream's last event id when it ended (the one given
  // when it set none).
  std::string last_event_id;
  // The reconnection time the server asked for, if it did.
  std::optional<std::chrono::milliseconds> retry;
};

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

  // Opens the Server-Sent Events stream at `path` (sending `last_event_id` as
  // Last-Event-ID unless empty) and hands each event over as it arrives, on
  // this thread, until the server ends the stream, `on_event` returns false,
  // nothing arrives for kStreamIdle (the server sends a heartbeat every 15 s),
  // or `cancelled` (asked about once a second; may be empty) returns true
  // (then Unavailable). One attempt: resuming is the caller's, with
  // EventStreamEnd::last_event_id. `on_event` must not use this client.
  EventStreamEnd Stream(const std::string& path, const std::string& last_event_id,
                        const std::function<bool(const ServerSentEvent&)>& on_event,
                        const std::function<bool()>& cancelled = {});
  static constexpr std::chrono::seconds kStreamIdle{45};

 private:
  http::Request Make(const std::string& method, const std::string& path) const;

  std::string base_url_;
  std::string key_;
  http::Client client_;
};

}  // namespace docwright
