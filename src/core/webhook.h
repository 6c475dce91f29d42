// A project's webhook endpoints and the deliveries of its events to them
// (docs/api.md, "Webhooks"): the records the store keeps, and the rules an
// endpoint's settings follow, checked wherever they are set (the command line's
// `project webhook add`, whose flag names the messages use). Pure functions,
// safe from any thread; they reach no network (the delivery workers in
// src/events/ check the address actually connected).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/event.h"
#include "core/status.h"
#include "core/time.h"

namespace docwright {

inline constexpr int kMaxWebhooksPerProject = 16;
inline constexpr size_t kMaxWebhookUrlBytes = 2048;
// How long the secret a rotation replaced still signs deliveries, beside the new one.
inline constexpr std::chrono::hours kWebhookSecretOverlap{24};
// The secret's random part, in bytes (the secret is "whsec_" + its base64).
inline constexpr size_t kWebhookSecretBytes = 24;
inline constexpr std::string_view kWebhookSecretPrefix = "whsec_";
// The type of the event `project webhook test` sends; not in the vocabulary of
// job events, and never stored.
inline constexpr std::string_view kWebhookTestEventType = "webhook.test";

struct WebhookEndpoint {
  std::string id;
  std::string project_id;
  std::string url;
  std::vector<EventType> events;  // the types delivered, in the vocabulary's order
  // "whsec_...": in the clear in memory, sealed in the database (secrets.cc).
  std::string secret;
  // The secret a rotation replaced, signing beside `secret` until its expiry.
  std::optional<std::string> previous_secret;
  std::optional<UnixMillis> previous_secret_expires_at;
  bool enabled = true;
  std::optional<std::string> disabled_reason;  // why it was disabled, while it is
  std::optional<UnixMillis> disabled_at;
  UnixMillis created_at = 0;
};

// One event's delivery to one endpoint, as the delivery log shows it.
struct WebhookDelivery {
  int64_t id = 0;
  std::string endpoint_id;
  std::string job_id;
  int64_t sequence = 0;  // the event's, in its job
  std::string event_type;
  enum class State { kPending, kDelivered } state = State::kPending;
  int64_t attempts = 0;
  std::optional<int64_t> last_status;  // the receiver's HTTP status, if it answered
  std::optional<std::string> last_error;
  UnixMillis created_at = 0;
  std::optional<UnixMillis> last_attempt_at;
  std::optional<UnixMillis> next_attempt_at;  // while pending
  std::optional<UnixMillis> first_failed_at;  // of the failures since it was last due afresh
  std::optional<UnixMillis> delivered_at;

  // "<jobId>.<sequence>": the event's id (EventId), the webhook-id header.
  std::string EventId() const { return job_id + "." + std::to_string(sequence); }
};

std::string_view DeliveryStateName(WebhookDelivery::State state);

// A delivery a worker claimed: what it sends, and where.
struct ClaimedDelivery {
  int64_t id = 0;
  std::string endpoint_id;
  std::string url;
  // The secrets that sign it, the current one first ("whsec_...", opened).
  std::vector<std::string> secrets;
  JobEvent event;
  int64_t attempts = 0;                       // before this one
  std::optional<UnixMillis> first_failed_at;  // see WebhookDelivery
};

// How a claimed delivery's attempt ended (Store::FinishWebhookDelivery).
struct DeliveryAttempt {
  bool delivered = false;                 // a 2xx answer
  std::optional<int64_t> status;          // the receiver's HTTP status, if it answered
  std::optional<std::string> error;       // a short, bounded, secret-free reason when not delivered
  std::chrono::milliseconds retry_in{0};  // not delivered: when to try again
};

// The types an endpoint gets when none are named: every type but turn.step.
std::vector<EventType> DefaultWebhookEvents();

// "job.completed,job.failed" (spaces around names allowed) as types, in the
// vocabulary's order, each once; InvalidArgument naming --events and the first
// unknown name, or for an empty list.
Result<std::vector<EventType>> ParseWebhookEvents(std::string_view list);

// The stored form of a list of types: ",job.completed,job.failed," (so a type is
// found by looking for ",name,"); and back (unknown names skipped).
std::string WebhookEventsText(const std::vector<EventType>& events);
std::vector<EventType> ParseWebhookEventsText(std::string_view text);

// An endpoint's URL: http or https, a host, at most kMaxWebhookUrlBytes, no
// credentials, no spaces or control characters. InvalidArgument naming --url.
Status CheckWebhookUrl(std::string_view url);

// A new secret: "whsec_" + base64 of kWebhookSecretBytes random bytes.
std::string NewWebhookSecret();

// The HMAC key of a secret: the base64 after "whsec_" decoded; nullopt for a
// value that is not such a secret.
std::optional<std::string> WebhookSecretKey(std::string_view secret);

// --- Signing, as Standard Webhooks specifies ---

// "v1,<base64 of HMAC-SHA256 of "<id>.<timestamp>.<body>">" keyed with the
// secret's key; nullopt for a secret WebhookSecretKey refuses.
std::optional<std::string> WebhookSignature(std::string_view secret, std::string_view id,
                                            int64_t timestamp_s, std::string_view body);

// The webhook-signature header: one signature a secret, space-separated, in
// the order given (secrets WebhookSecretKey refuses are left out).
std::string WebhookSignatureHeader(const std::vector<std::string>& secrets, std::string_view id,
                                   int64_t timestamp_s, std::string_view body);

// --- Retries ---

struct WebhookRetryPolicy {
  std::chrono::milliseconds base{5000};
  std::chrono::milliseconds cap{3600 * 1000};
  // A delivery failing for this long since its first failure disables its endpoint.
  std::chrono::milliseconds give_up_after{24 * 3600 * 1000};
};

// The wait before the next attempt after `failures` failed ones (1 after the
// first): full jitter over base * 2^(failures - 1), capped at `cap`. `random`
// is any uniformly random number.
std::chrono::milliseconds WebhookRetryDelay(int64_t failures, const WebhookRetryPolicy& policy,
                                            uint64_t random);

}  // namespace docwright
