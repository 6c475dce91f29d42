// The SQL store: webhook endpoints, and the outbox of their deliveries (which
// AppendEvent fills, events.cc): claimed with a lease, recorded, retried.
#include <spdlog/spdlog.h>
#include "core/ids.h"

#include "store/sql/internal.h"
#include "store/sql/statements.h"

namespace docwright::sql {
namespace {

// As read: its secrets still sealed.
WebhookEndpoint ReadWebhook(const Rows& r) {
  WebhookEndpoint e;
  e.id = r.Text("id");
  e.project_id = r.Text("project_id");
  e.url = r.Text("url");
  e.events = ParseWebhookEventsText(r.Text("events"));
  e.secret = r.Text("secret");
  e.previous_secret = r.OptText("previous_secret");
  e.previous_secret_expires_at = r.OptInt("previous_secret_expires_at");
  e.enabled = r.Int("enabled") != 0;
  e.disabled_reason = r.OptText("disabled_reason");
  e.disabled_at = r.OptInt("disabled_at");
  e.created_at = r.Int("created_at");
  return e;
}

WebhookDelivery ReadDelivery(const Rows& r) {
  WebhookDelivery d;
  d.id = r.Int("id");
  d.endpoint_id = r.Text("endpoint_id");
  d.job_id = r.Text("job_id");
  d.sequence = r.Int("sequence");
  d.event_type = r.Text("event_type");
  d.state = r.Text("state") == "delivered" ? WebhookDelivery::State::kDelivered
                                           : WebhookDelivery::State::kPending;
  d.attempts = r.Int("attempts");
  d.last_status = r.OptInt("last_status");
  d.last_error = r.OptText("last_error");
  d.created_at = r.Int("created_at");
  d.last_attempt_at = r.OptInt("last_attempt_at");
  d.next_attempt_at = r.OptInt("next_attempt_at");
  d.first_failed_at = r.OptInt("first_failed_at");
  d.delivered_at = r.OptInt("delivered_at");
  return d;
}

constexpr const char* kNoWebhook = "webhook endpoint not found";

// The reason an endpoint is disabled with, bounded.
std::string DisableReason(const std::optional<std::string>& error, std::optional<int64_t> status,
                          UnixMillis since) {
  std::string why = status ? "answered " + std::to_string(*status) : error.value_or("failed");
  if (why.size() > 300) why = why.substr(0, 300) + "...";
  return "deliveries failing since " + FormatRfc3339(since) + " (last: " + why + ")";
}

}  // namespace

Result<WebhookEndpoint> SqlStore::CreateWebhook(WebhookEndpoint e) {
  if (Status s = CheckWebhookUrl(e.url); !s.ok()) return s;
  if (e.events.empty()) return Status::InvalidArgument("--events names no event type");
  if (!WebhookSecretKey(e.secret)) return Status::InvalidArgument("not a webhook secret");
  e.id = NewId();
  e.enabled = true;
  e.previous_secret.reset();
  e.previous_secret_expires_at.reset();
  e.disabled_reason.reset();
  e.disabled_at.reset();
  auto sealed = SealWebhookSecret(e.id, e.secret, false);  // once: the write may run again
  if (!sealed.ok()) return sealed.status();
  Status s = Write([&](Connection& c) -> Status {
    // Under the project's lock, so two adds never both pass the count.
    auto r = c.Exec(kLockProject, {V(e.project_id)});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status::NotFound("project not found");
    auto now = Now(c);
    if (!now.ok()) return now.status();
    e.created_at = *now;
    auto n = One(c, kCountWebhooks, {V(e.project_id)});
    if (!n.ok()) return n.status();
    if (*n >= kMaxWebhooksPerProject) {
      return Status::ResourceExhausted(
          "the project has " + std::to_string(*n) +
          " webhook endpoints, the most it may have: remove one first");
    }
    return Run(c, kInsertWebhook,
               {V(e.id), V(e.project_id), V(e.url), V(WebhookEventsText(e.events)), V(*sealed),
                V(e.created_at)});
  });
  if (!s.ok()) return s;
  return e;
}

Result<WebhookEndpoint> SqlStore::GetWebhook(const std::string& endpoint_id) {
  auto e = ReadOne(kSelectWebhook, {V(endpoint_id)}, &ReadWebhook, kNoWebhook);
  if (!e.ok()) return e;
  if (Status s = OpenWebhookSecrets(*e); !s.ok()) return s;
  return e;
}

Result<std::vector<WebhookEndpoint>> SqlStore::ListWebhooks(const std::string& project_id) {
  auto list = ReadAll(kSelectWebhooks, {V(project_id)}, &ReadWebhook);
  if (!list.ok()) return list;
  for (WebhookEndpoint& e : *list) {
    if (Status s = OpenWebhookSecrets(e); !s.ok()) return s;
  }
  return list;
}

Status SqlStore::DeleteWebhook(const std::string& endpoint_id) {
  return Write([&](Connection& c) -> Status {
    if (Status w = Run(c, kDeleteWebhookDeliveries, {V(endpoint_id)}); !w.ok()) return w;
    return Change(c, kDeleteWebhook, {V(endpoint_id)}, kNoWebhook);
  });
}

Result<WebhookEndpoint> SqlStore::EnableWebhook(const std::string& endpoint_id) {
  Status s = Write([&](Connection& c) -> Status {
    auto now = Now(c);
    if (!now.ok()) return now.status();
    if (Status w = Change(c, kEnableWebhook, {V(endpoint_id)}, kNoWebhook); !w.ok()) return w;
    auto restarted = c.Exec(kRestartWebhookDeliveries, {V(endpoint_id), V(*now)});
    if (!restarted.ok()) return restarted.status();
    if (restarted->affected() == 0) return Status();
    c.NoteDeliveriesDue();  // its pending deliveries go now, not at the next poll
    return Notify(c, "w");
  });
  if (!s.ok()) return s;
  return GetWebhook(endpoint_id);
}

Result<WebhookEndpoint> SqlStore::RotateWebhookSecret(const std::string& endpoint_id,
                                                      const std::string& secret) {
  if (!WebhookSecretKey(secret)) return Status::InvalidArgument("not a webhook secret");
  auto stored = ReadOne(kSelectWebhook, {V(endpoint_id)}, &ReadWebhook, kNoWebhook);
  if (!stored.ok()) return stored.status();
  auto current = OpenWebhookSecret(endpoint_id, stored->secret, false);
  if (!current.ok()) return current.status();
  auto sealed = SealWebhookSecret(endpoint_id, secret, false);
  if (!sealed.ok()) return sealed.status();
  auto previous = SealWebhookSecret(endpoint_id, *current, true);
  if (!previous.ok()) return previous.status();
  Status s = Write([&](Connection& c) -> Status {
    auto now = Now(c);
    if (!now.ok()) return now.status();
    const int64_t expires =
        *now + std::chrono::duration_cast<std::chrono::milliseconds>(kWebhookSecretOverlap).count();
    return Change(c, kRotateWebhookSecret,
                  {V(endpoint_id), V(stored->secret), V(*sealed), V(*previous), V(expires)},
                  "the endpoint's secret was changed meanwhile: rotate again");
  });
  if (!s.ok()) {
    return s.code() == Code::kNotFound ? Status::Conflict(s.message()) : s;
  }
  return GetWebhook(endpoint_id);
}

Result<std::vector<WebhookDelivery>> SqlStore::ListWebhookDeliveries(const std::string& endpoint_id,
                                                                     int limit) {
  return Read<std::vector<WebhookDelivery>>(
      [&](Connection& c) -> Result<std::vector<WebhookDelivery>> {
        auto e = c.Exec(kSelectWebhook, {V(endpoint_id)});
        if (!e.ok()) return e.status();
        if (!e->Next()) return Status::NotFound(kNoWebhook);
        auto r = c.Exec(kSelectDeliveries, {V(endpoint_id), V(int64_t{limit})});
        if (!r.ok()) return r.status();
        std::vector<WebhookDelivery> out;
        while (r->Next()) out.push_back(ReadDelivery(*r));
        return out;
      });
}

Result<std::optional<ClaimedDelivery>> SqlStore::ClaimWebhookDelivery(
    const std::string& worker_id, std::chrono::milliseconds lease) {
  std::optional<ClaimedDelivery> claimed;
  // The secrets as read, sealed: opened after the transaction.
  std::string secret;
  std::optional<std::string> previous;
  std::optional<int64_t> previous_expires;
  UnixMillis now = 0;
  auto any = Read<bool>([&](Connection& c) -> Result<bool> {
    auto r = c.Exec(kAnyDueDelivery, {});
    if (!r.ok()) return r.status();
    return r->size() > 0;
  });
  if (!any.ok()) return any.status();
  if (!*any) return claimed;
  Status s = WriteAs(Commit::kLeaseOnly, [&](Connection& c) -> Status {
    claimed.reset();
    if (Status locked = Run(c, kLockDeliveryClaims, {}); !locked.ok()) return locked;
    auto r = c.Exec(kFindDueDelivery, {});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status();
    ClaimedDelivery d;
    d.id = r->Int("id");
    d.endpoint_id = r->Text("endpoint_id");
    d.url = r->Text("url");
    d.attempts = r->Int("attempts");
    d.first_failed_at = r->OptInt("first_failed_at");
    d.event.job_id = r->Text("job_id");
    d.event.sequence = r->Int("sequence");
    d.event.project_id = r->Text("project_id");
    d.event.type = ParseEventType(r->Text("type")).value_or(EventType::kTurnStep);
    d.event.data = r->Text("data");
    d.event.created_at = r->Int("created_at");
    secret = r->Text("secret");
    previous = r->OptText("previous_secret");
    previous_expires = r->OptInt("previous_secret_expires_at");
    auto t = Now(c);
    if (!t.ok()) return t.status();
    now = *t;
    if (Status w = Run(c, kLeaseDelivery, {V(d.id), V(worker_id), V(int64_t{lease.count()})});
        !w.ok()) {
      return w;
    }
    claimed = std::move(d);
    return Status();
  });
  if (!s.ok()) return s;
  if (!claimed) return claimed;
  // A secret that does not open fails the attempt, not the worker: the claim
  // comes without it, the sender fails the attempt ("no usable secret"), and
  // the delivery backs off and in time disables its endpoint as any failure.
  auto opened = OpenWebhookSecret(claimed->endpoint_id, secret, false);
  if (!opened.ok()) {
    spdlog::warn("webhook endpoint {}: its secret cannot be opened: {}", claimed->endpoint_id,
                 opened.status().message());
    return claimed;
  }
  claimed->secrets.push_back(std::move(*opened));
  if (previous && previous_expires && *previous_expires > now) {
    auto old = OpenWebhookSecret(claimed->endpoint_id, *previous, true);
    if (old.ok()) {
      claimed->secrets.push_back(std::move(*old));
    } else {
      spdlog::warn("webhook endpoint {}: its previous secret cannot be opened: {}",
                   claimed->endpoint_id, old.status().message());
    }
  }
  return claimed;
}

Result<Store::DeliveryRecorded> SqlStore::FinishWebhookDelivery(
    int64_t delivery_id, const std::string& worker_id, const DeliveryAttempt& attempt,
    std::chrono::milliseconds give_up_after) {
  DeliveryRecorded result = DeliveryRecorded::kRecorded;
  // A delivered mark that a power loss undoes sends the event once more, which
  // at least once allows: it need not wait for the disk. A failure (which may
  // disable the endpoint) is flushed.
  const Commit commit = attempt.delivered ? Commit::kLeaseOnly : Commit::kDurable;
  Status s = WriteAs(commit, [&](Connection& c) -> Status {
    result = DeliveryRecorded::kRecorded;
    auto now = Now(c);
    if (!now.ok()) return now.status();
    if (attempt.delivered) {
      auto r =
          c.Exec(kDeliveryDelivered, {V(delivery_id), V(worker_id), V(attempt.status), V(*now)});
      if (!r.ok()) return r.status();
      if (r->affected() == 0) result = DeliveryRecorded::kLeaseLost;
      return Status();
    }
    auto r =
        c.Exec(kDeliveryFailed, {V(delivery_id), V(worker_id), V(attempt.status), V(attempt.error),
                                 V(*now), V(int64_t{attempt.retry_in.count()})});
    if (!r.ok()) return r.status();
    if (!r->Next()) {
      result = DeliveryRecorded::kLeaseLost;
      return Status();
    }
    const std::string endpoint_id = r->Text("endpoint_id");
    const UnixMillis since = r->Int("first_failed_at");
    if (*now - since < give_up_after.count()) return Status();
    auto d =
        c.Exec(kDisableWebhook,
               {V(endpoint_id), V(DisableReason(attempt.error, attempt.status, since)), V(*now)});
    if (!d.ok()) return d.status();
    if (d->affected() > 0) result = DeliveryRecorded::kEndpointDisabled;
    return Status();
  });
  if (!s.ok()) return s;
  return result;
}

}  // namespace docwright::sql
