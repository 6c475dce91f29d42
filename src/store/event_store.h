// EventStore: the store's concern of what happened to each job, in order (the
// event log), and the webhook endpoints with the outbox of their deliveries.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/event.h"
#include "core/job.h"
#include "core/status.h"
#include "core/webhook.h"
#include "store/scope.h"

namespace docwright {

// The events are written by the other concerns' writes in their own
// transactions (a job created, a turn ended...), so an event is never lost nor
// told of a change that did not commit; this interface reads them and owns
// the endpoints and deliveries. Thread-safe; every call blocks on the
// database. Deliveries are claimed under a lease, so nodes sharing the
// database send each at most once at a time.
class EventStore {
 public:
  virtual ~EventStore() = default;

  // --- Events: what happened to each job, in order (core/event.h) ---
  // Every change to a job writes its events in the same transaction: created,
  // a follow-up, a turn started, each step, a turn ended, its pull request
  // opened or updated, completed, failed, archived.
  // The job's events after `after_sequence`, in order, at most `limit`. NotFound
  // as GetJob.
  virtual Result<std::vector<JobEvent>> ListEvents(const Scope& scope, const std::string& job_id,
                                                   int64_t after_sequence, int limit) = 0;

  // --- Webhooks: a project's endpoints and the outbox of their deliveries ---
  // Every event written (see Events) puts, in its transaction, one delivery in
  // the outbox for each enabled endpoint of its project that takes its type:
  // a crash after the commit loses no delivery. Endpoints are the operator's:
  // these methods take ids, not a Scope (a caller acting for an organisation
  // checks first that it owns the project). Secrets are sealed in the database
  // and opened here.

  // Stores `endpoint` (its url and events checked as CheckWebhookUrl and
  // ParseWebhookEvents check them, its secret a NewWebhookSecret); its id and
  // created_at are assigned. NotFound for an unknown project; ResourceExhausted
  // when the project has kMaxWebhooksPerProject endpoints.
  virtual Result<WebhookEndpoint> CreateWebhook(WebhookEndpoint endpoint) = 0;
  // NotFound if there is no such endpoint.
  virtual Result<WebhookEndpoint> GetWebhook(const std::string& endpoint_id) = 0;
  // The project's endpoints, oldest first.
  virtual Result<std::vector<WebhookEndpoint>> ListWebhooks(const std::string& project_id) = 0;
  // Removes the endpoint and its deliveries, pending or not. NotFound if there
  // is no such endpoint.
  virtual Status DeleteWebhook(const std::string& endpoint_id) = 0;
  // Enables the endpoint again after it was disabled; its pending deliveries
  // are due at once, their failures forgotten. Idempotent; NotFound as above.
  virtual Result<WebhookEndpoint> EnableWebhook(const std::string& endpoint_id) = 0;
  // Makes `secret` the endpoint's secret; the one it replaces signs beside it
  // for kWebhookSecretOverlap (a secret older than that is dropped). Conflict if
  // another rotation changed the secret meanwhile; NotFound as above.
  virtual Result<WebhookEndpoint> RotateWebhookSecret(const std::string& endpoint_id,
                                                      const std::string& secret) = 0;
  // The endpoint's deliveries, newest first, at most `limit`. NotFound as above.
  virtual Result<std::vector<WebhookDelivery>> ListWebhookDeliveries(const std::string& endpoint_id,
                                                                     int limit) = 0;
  // Claims a delivery that is due, for `lease`: pending, of an enabled
  // endpoint, its next attempt's time come, not leased (or its lease expired:
  // a crashed worker's), and the first pending one of its endpoint and job (so
  // a job's events reach an endpoint in order, one request in flight a job and
  // endpoint, across every node). The earliest due first. nullopt when none is
  // due.
  virtual Result<std::optional<ClaimedDelivery>> ClaimWebhookDelivery(
      const std::string& worker_id, std::chrono::milliseconds lease) = 0;
  // What recording an attempt did.
  enum class DeliveryRecorded { kRecorded, kEndpointDisabled, kLeaseLost };
  // Records the attempt of the delivery `worker_id` claimed: delivered, or
  // failed and due again after `attempt.retry_in`; a failure when the delivery
  // has failed for `give_up_after` since its first failure disables the
  // endpoint (kEndpointDisabled). kLeaseLost, and nothing recorded, if the
  // worker no longer holds the delivery.
  virtual Result<DeliveryRecorded> FinishWebhookDelivery(
      int64_t delivery_id, const std::string& worker_id, const DeliveryAttempt& attempt,
      std::chrono::milliseconds give_up_after) = 0;
};

}  // namespace docwright
