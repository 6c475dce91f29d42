// The webhook delivery workers of a node (`serve` and `worker`): threads that
// claim due deliveries from the store's outbox (Store::ClaimWebhookDelivery,
// a lease: nodes never send one delivery at once, and a crashed node's claims
// are taken over when their lease expires), send each (WebhookSender), and
// record the attempt: delivered, or due again after the retry schedule's wait
// (core/webhook.h), the endpoint disabled once a delivery has failed for
// `retry.give_up_after`.
//
// A receiver that hangs holds one thread for at most the sender's deadline;
// the store lets one request at a time go to an endpoint, so the other threads
// serve the other endpoints. A worker wakes when this process makes a
// delivery due (and, on PostgreSQL, when any node does:
// StoreWatcher::webhook_deliveries), one worker a delivery, and one that
// claims wakes another; events no endpoint takes wake none. Idle workers also
// poll, for retries that came due and other processes' writes on SQLite.
// Logs name deliveries by their event id and endpoint id, with bounded reasons;
// never a secret or a body.
//
// Start, Wake and Stop may be called from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/webhook.h"
#include "events/webhook_sender.h"
#include "store/event_store.h"
#include "store/wakeups.h"

namespace docwright::events {

struct DeliveryWorkersOptions {
  int threads = 4;  // requests in flight on this node, one a job and endpoint at most
  WebhookSenderOptions sender;
  WebhookRetryPolicy retry;
  // How long a claim holds a delivery: past the sender's deadline, so a live
  // worker never loses it mid-request; a crashed one's is taken over after it.
  std::chrono::milliseconds lease{30000};
  // How often idle workers look for deliveries that became due without a wake
  // (retries, other processes' writes on SQLite).
  std::chrono::milliseconds poll{5000};
  std::string node_id;  // names this node's workers in the store's leases
};

class DeliveryWorkers {
 public:
  // `outbox` and `wakeups` (a Store is both) must outlive this object; the
  // wake-ups are watched (Wakeups::Watch) from Start.
  DeliveryWorkers(EventStore& outbox, Wakeups& wakeups, DeliveryWorkersOptions options);
  template <typename AStore>
  DeliveryWorkers(AStore& store, DeliveryWorkersOptions options)
      : DeliveryWorkers(static_cast<EventStore&>(store), static_cast<Wakeups&>(store),
                        std::move(options)) {}
  ~DeliveryWorkers();  // Stop
  DeliveryWorkers(const DeliveryWorkers&) = delete;
  DeliveryWorkers& operator=(const DeliveryWorkers&) = delete;

  // Starts the threads. Once.
  void Start();
  // Makes idle workers look for due deliveries now.
  void Wake();
  // Abandons requests under way (their deliveries stay claimed until their
  // lease expires, then are sent again) and joins the threads. Idempotent.
  void Stop();

  struct Shared;  // what the threads and the store's watcher share

 private:
  void Run(int index);

  EventStore& store_;
  Wakeups& wakeups_;
  const DeliveryWorkersOptions options_;
  std::shared_ptr<Shared> shared_;
  std::vector<std::thread> threads_;
};

}  // namespace docwright::events
