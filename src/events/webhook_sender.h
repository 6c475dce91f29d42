// Sends one event to one webhook endpoint: the event's JSON, signed as
// Standard Webhooks specifies (core/webhook.h), POSTed over the outgoing HTTP
// client within a deadline, the reply's body read up to a cap. A 2xx reply is
// a delivery; any other reply, a timeout, an unreachable or refused address is
// a failed attempt, with a short reason fit for the delivery log and the log:
// it names the endpoint's origin and the status, with at most a bounded,
// one-line excerpt of the reply; never a secret or a URL's path or query.
//
// One object a thread: it holds a connection to the last endpoint it reached.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/event.h"
#include "http/client.h"

namespace docwright::events {

struct WebhookSenderOptions {
  std::chrono::milliseconds timeout{10000};          // the whole exchange
  std::chrono::milliseconds connect_timeout{10000};  // within `timeout`
  size_t max_response_bytes = 64 * 1024;             // read of a reply's body; the rest is dropped
  size_t excerpt_bytes = 200;                        // of a failed reply's body, in its reason
  // Connect to private, loopback and link-local addresses too
  // (http::ClientOptions); off, such an address is a failed attempt.
  bool allow_private = false;
};

// What one attempt came to.
struct SendOutcome {
  bool delivered = false;
  std::optional<int64_t> status;     // the reply's, if one came
  std::optional<std::string> error;  // when not delivered: why, bounded
};

class WebhookSender {
 public:
  explicit WebhookSender(WebhookSenderOptions options);

  // POSTs `body` to `url` with the headers webhook-id (`id`), webhook-timestamp
  // (`timestamp_s`) and webhook-signature (one signature for each of
  // `secrets`), Content-Type application/json. `cancelled` (may be empty) is
  // asked while it waits: true abandons the attempt (a failed one).
  SendOutcome Send(const std::string& url, const std::vector<std::string>& secrets,
                   const std::string& id, int64_t timestamp_s, const std::string& body,
                   const std::function<bool()>& cancelled = {});

  // An event's delivery: its id, now, EventJson.
  SendOutcome SendEvent(const std::string& url, const std::vector<std::string>& secrets,
                        const JobEvent& event, const std::function<bool()>& cancelled = {});

 private:
  WebhookSenderOptions options_;
  http::Client client_;
};

// The body of `project webhook test`: {"id", "type": "webhook.test", "version",
// "timestamp", "projectId", "data": {"endpointId"}}, and its id ("test.<random>").
struct TestEvent {
  std::string id;
  std::string body;
};
TestEvent MakeTestEvent(const std::string& project_id, const std::string& endpoint_id);

}  // namespace docwright::events
