#include "events/delivery_workers.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <condition_variable>
#include <random>

#include "core/crash_point.h"
#include "core/ids.h"
#include "core/metrics.h"
#include "core/mutex.h"

namespace docwright::events {

// Outlives the workers when the store's watcher still holds it.
struct DeliveryWorkers::Shared {
  Mutex mu;
  std::condition_variable cv;
  uint64_t wakes GUARDED_BY(mu) = 0;
  std::atomic<bool> stopping{false};

  // A waiting worker looks once `wakes` moves past what it saw before its
  // last look, so a wake-up while every worker is busy is not lost: the next
  // to finish looks again at once.
  void Wake(bool all) EXCLUDES(mu) {
    {
      MutexLock lock(mu);
      ++wakes;
    }
    // One look per delivery made due, not one per worker: a worker that
    // claims one wakes the next (Run), so a burst still fans out to them all.
    if (all) {
      cv.notify_all();
    } else {
      cv.notify_one();
    }
  }
};

DeliveryWorkers::DeliveryWorkers(EventStore& outbox, Wakeups& wakeups,
                                 DeliveryWorkersOptions options)
    : store_(outbox),
      wakeups_(wakeups),
      options_(std::move(options)),
      shared_(std::make_shared<Shared>()) {}

DeliveryWorkers::~DeliveryWorkers() { Stop(); }

void DeliveryWorkers::Start() {
  std::weak_ptr<Shared> weak = shared_;
  // Woken by deliveries made due, not by every event: on a node whose events
  // no endpoint takes (most steps of most turns) the workers do nothing per
  // event. After a gap in the store's announcements, all look once.
  wakeups_.Watch(StoreWatcher{.webhook_deliveries =
                                  [weak] {
                                    if (auto shared = weak.lock()) shared->Wake(false);
                                  },
                              .hearing =
                                  [weak](bool hearing) {
                                    if (!hearing) return;
                                    if (auto shared = weak.lock()) shared->Wake(true);
                                  }});
  for (int i = 0; i < options_.threads; ++i) threads_.emplace_back([this, i] { Run(i); });
}

void DeliveryWorkers::Wake() { shared_->Wake(true); }

void DeliveryWorkers::Stop() {
  shared_->stopping = true;
  shared_->Wake(true);
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void DeliveryWorkers::Run(int index) {
  const std::string worker_id = (options_.node_id.empty() ? NewId() : options_.node_id) +
                                "/webhooks-" + std::to_string(index);
  WebhookSender sender(options_.sender);
  std::mt19937_64 rng{std::random_device{}()};
  Shared& shared = *shared_;
  const std::function<bool()> cancelled = [&shared] { return shared.stopping.load(); };
  bool failing = false;  // the store failed last time: said once until it recovers
  while (!shared.stopping) {
    uint64_t seen;
    {
      MutexLock lock(shared.mu);
      seen = shared.wakes;
    }
    auto claimed = store_.ClaimWebhookDelivery(worker_id, options_.lease);
    if (!claimed.ok() && !failing) {
      spdlog::warn("webhooks: cannot claim deliveries: {}", claimed.status().message());
    }
    failing = !claimed.ok();
    if (!claimed.ok() || !*claimed) {
      MutexLock lock(shared.mu);
      const auto deadline = std::chrono::steady_clock::now() + options_.poll;
      while (!shared.stopping && shared.wakes == seen && lock.WaitUntil(shared.cv, deadline)) {
      }
      continue;
    }
    // There may be more due: another idle worker looks at once, and so on.
    shared.Wake(false);
    const ClaimedDelivery& d = **claimed;
    CrashPoint("webhook.claimed");
    SendOutcome sent = sender.SendEvent(d.url, d.secrets, d.event, cancelled);
    if (shared.stopping && !sent.delivered) break;  // abandoned: the lease brings it back
    DeliveryAttempt attempt{
        .delivered = sent.delivered, .status = sent.status, .error = sent.error};
    if (!sent.delivered)
      attempt.retry_in = WebhookRetryDelay(d.attempts + 1, options_.retry, rng());
    auto recorded =
        store_.FinishWebhookDelivery(d.id, worker_id, attempt, options_.retry.give_up_after);
    const std::string event_id = EventId(d.event);
    bool gave_up = recorded.ok() && *recorded == EventStore::DeliveryRecorded::kEndpointDisabled;
    metrics::RecordWebhookDelivery("out", sent.delivered ? "delivered"
                                          : gave_up      ? "gave_up"
                                                         : "failed");
    if (!recorded.ok()) {
      spdlog::warn("webhooks: cannot record the delivery of {} to endpoint {}: {}", event_id,
                   d.endpoint_id, recorded.status().message());
    } else if (*recorded == EventStore::DeliveryRecorded::kLeaseLost) {
      spdlog::warn("webhooks: the claim of {} for endpoint {} expired during its attempt", event_id,
                   d.endpoint_id);
    } else if (sent.delivered) {
      spdlog::debug("webhooks: {} delivered to endpoint {} ({})", event_id, d.endpoint_id,
                    sent.status.value_or(0));
    } else if (*recorded == EventStore::DeliveryRecorded::kEndpointDisabled) {
      spdlog::warn(
          "webhooks: endpoint {} disabled: its deliveries failed for {} s (last: {}); "
          "`docwright project webhook enable {}` resumes them",
          d.endpoint_id, options_.retry.give_up_after.count() / 1000, sent.error.value_or(""),
          d.endpoint_id);
    } else {
      spdlog::info("webhooks: {} to endpoint {} failed (attempt {}): {}; again in {} ms", event_id,
                   d.endpoint_id, d.attempts + 1, sent.error.value_or(""),
                   attempt.retry_in.count());
    }
  }
}

}  // namespace docwright::events
