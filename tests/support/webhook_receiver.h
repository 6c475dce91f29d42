// A webhook receiver for tests: a real HTTP server on 127.0.0.1 that checks
// every request as a receiver following Standard Webhooks would, with its own
// implementation of the algorithm (OpenSSL's HMAC here, not docwright's code):
// the three headers present, the timestamp within five minutes, the body's
// "id" the webhook-id, and a valid v1 signature for one of the secrets it
// knows. It answers with what `respond` says (204 by default), records every
// request, and keeps the events it accepted once each (deduplicated by
// webhook-id, as a receiver must for at-least-once delivery).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/loopback_http_server.h"

namespace docwright::testing {

// "v1,<base64>" as the specification computes it.
std::string StandardWebhookSignature(const std::string& secret, const std::string& id,
                                     const std::string& timestamp, const std::string& body);

class WebhookReceiver {
 public:
  struct Delivery {
    std::string id, timestamp, signature, body;
    nlohmann::json event;
    int answered = 0;
    bool verified = false;     // one signature valid
    int valid_signatures = 0;  // of those in the header
    int signatures = 0;
  };

  explicit WebhookReceiver(std::vector<std::string> secrets);
  ~WebhookReceiver();  // releases handlers held by Hold(), then stops

  // What to answer a request (the n-th from 0); 204 by default. Called on
  // the server's threads.
  void Respond(std::function<int(const Delivery&, int n)> respond);
  // While held, requests wait (up to a minute) before they are answered.
  void Hold(bool held);
  void AddSecret(const std::string& secret);

  std::string Url() const { return server_->Url("/hook"); }
  std::vector<Delivery> Requests();
  // The accepted events (2xx), each once, in the order first accepted.
  std::vector<nlohmann::json> Accepted();
  // Problems seen: unverified requests, events out of order within their job
  // (a sequence at or below one already accepted for it, unless a repeat of an
  // accepted id), ids repeated after acceptance are fine (at least once).
  std::vector<std::string> Problems();
  // Waits until `n` distinct events are accepted.
  bool WaitForAccepted(size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(30));

 private:
  LoopbackResponse Handle(const LoopbackRequest& request);

  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  bool closing_ = false;
  std::vector<std::string> secrets_;
  std::function<int(const Delivery&, int)> respond_;
  std::vector<Delivery> requests_;
  std::vector<nlohmann::json> accepted_;
  std::set<std::string> accepted_ids_;
  std::map<std::string, int64_t> last_sequence_;  // of each job, accepted
  std::vector<std::string> problems_;
  std::unique_ptr<LoopbackHttpServer> server_;  // last: stopped first
};

}  // namespace docwright::testing
