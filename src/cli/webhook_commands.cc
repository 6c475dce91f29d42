#include "cli/webhook_commands.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "core/time.h"
#include "core/webhook.h"
#include "events/webhook_sender.h"

namespace docwright {
namespace {

using Json = nlohmann::ordered_json;

struct WebhookOptions {
  std::string project_id, id, url, events;
  int limit = 20;
  bool allow_private = false;
  double timeout_s = 10;
};
using WebhookOptionsPtr = std::shared_ptr<WebhookOptions>;

Json OptTime(const std::optional<UnixMillis>& t) {
  return t ? Json(FormatRfc3339(*t)) : Json(nullptr);
}

std::string EventsText(const std::vector<EventType>& events) {
  std::string out;
  for (EventType t : events) out += (out.empty() ? "" : ",") + std::string(EventTypeName(t));
  return out;
}

// Never the secrets: whether a previous one still signs, and until when.
Json EndpointJson(const WebhookEndpoint& e) {
  Json events = Json::array();
  for (EventType t : e.events) events.push_back(EventTypeName(t));
  const bool overlap = e.previous_secret_expires_at && *e.previous_secret_expires_at > NowMillis();
  return Json{
      {"id", e.id},
      {"projectId", e.project_id},
      {"url", e.url},
      {"events", events},
      {"enabled", e.enabled},
      {"disabledReason", e.disabled_reason ? Json(*e.disabled_reason) : Json(nullptr)},
      {"disabledAt", OptTime(e.disabled_at)},
      {"previousSecretValidUntil", overlap ? OptTime(e.previous_secret_expires_at) : Json(nullptr)},
      {"createdAt", FormatRfc3339(e.created_at)}};
}

Json DeliveryJson(const WebhookDelivery& d) {
  return Json{{"id", d.id},
              {"eventId", d.EventId()},
              {"type", d.event_type},
              {"state", DeliveryStateName(d.state)},
              {"attempts", d.attempts},
              {"lastStatus", d.last_status ? Json(*d.last_status) : Json(nullptr)},
              {"lastError", d.last_error ? Json(*d.last_error) : Json(nullptr)},
              {"createdAt", FormatRfc3339(d.created_at)},
              {"lastAttemptAt", OptTime(d.last_attempt_at)},
              {"nextAttemptAt", OptTime(d.next_attempt_at)},
              {"deliveredAt", OptTime(d.delivered_at)}};
}

// The endpoint and its new secret, which is shown this once.
void PrintSecret(const Common& common, const WebhookEndpoint& e, const std::string& what) {
  if (common.json) {
    Json j = EndpointJson(e);
    j["secret"] = e.secret;
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << what << " Store the secret now: it is not shown again.\n\n"
            << "  id:     " << e.id << "\n  secret: " << e.secret << "\n";
}

int AddWebhook(const Common& common, const WebhookOptions& o, const CLI::App& cmd) {
  WebhookEndpoint e;
  e.project_id = o.project_id;
  e.url = o.url;
  if (Status s = CheckWebhookUrl(e.url); !s.ok()) return Fail(s);
  if (cmd.count("--events") > 0) {
    auto events = ParseWebhookEvents(o.events);
    if (!events.ok()) return Fail(events.status());
    e.events = std::move(*events);
  } else {
    e.events = DefaultWebhookEvents();
  }
  e.secret = NewWebhookSecret();
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto made = (*store)->CreateWebhook(e);
  if (!made.ok()) return Fail(made.status());
  PrintSecret(common, *made,
              "Added webhook endpoint " + made->id + " for " + EventsText(made->events) + ".");
  return 0;
}

int ListWebhooks(const Common& common, const WebhookOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto list = (*store)->ListWebhooks(o.project_id);
  if (!list.ok()) return Fail(list.status());
  if (common.json) {
    Json arr = Json::array();
    for (const auto& e : *list) arr.push_back(EndpointJson(e));
    std::cout << arr.dump() << "\n";
    return 0;
  }
  for (const auto& e : *list) {
    std::cout << e.id << "  " << (e.enabled ? "enabled" : "disabled") << "  " << e.url << "  "
              << EventsText(e.events) << "\n";
    if (e.disabled_reason) std::cout << "    disabled: " << *e.disabled_reason << "\n";
  }
  return 0;
}

int RemoveWebhook(const Common& common, const WebhookOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  if (Status s = (*store)->DeleteWebhook(o.id); !s.ok()) return Fail(s);
  std::cout << "Removed webhook endpoint " << o.id << " and its deliveries.\n";
  return 0;
}

int EnableWebhook(const Common& common, const WebhookOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto e = (*store)->EnableWebhook(o.id);
  if (!e.ok()) return Fail(e.status());
  if (common.json) {
    std::cout << EndpointJson(*e).dump() << "\n";
  } else {
    std::cout << "Enabled webhook endpoint " << e->id << ": its pending deliveries are due now.\n";
  }
  return 0;
}

int RotateSecret(const Common& common, const WebhookOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto e = (*store)->RotateWebhookSecret(o.id, NewWebhookSecret());
  if (!e.ok()) return Fail(e.status());
  PrintSecret(common, *e,
              "Rotated the secret of webhook endpoint " + e->id +
                  ": deliveries carry a signature with each secret until " +
                  FormatRfc3339(e->previous_secret_expires_at.value_or(0)) +
                  ", then with the new one only.");
  return 0;
}

// Sends a webhook.test event now, from this process, signed as deliveries are.
int TestWebhook(const Common& common, const WebhookOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto e = (*store)->GetWebhook(o.id);
  if (!e.ok()) return Fail(e.status());
  std::vector<std::string> secrets{e->secret};
  if (e->previous_secret && e->previous_secret_expires_at.value_or(0) > NowMillis()) {
    secrets.push_back(*e->previous_secret);
  }
  events::WebhookSenderOptions so;
  so.allow_private = o.allow_private;
  so.timeout = so.connect_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  events::TestEvent test = events::MakeTestEvent(e->project_id, e->id);
  events::SendOutcome sent =
      events::WebhookSender(so).Send(e->url, secrets, test.id, NowMillis() / 1000, test.body);
  if (common.json) {
    std::cout << Json{{"eventId", test.id},
                      {"delivered", sent.delivered},
                      {"status", sent.status ? Json(*sent.status) : Json(nullptr)},
                      {"error", sent.error ? Json(*sent.error) : Json(nullptr)}}
                     .dump()
              << "\n";
  } else if (sent.delivered) {
    std::cout << "Delivered " << test.id << ": the endpoint answered " << *sent.status << ".\n";
  } else {
    std::cout << "Not delivered: " << sent.error.value_or("failed") << "\n";
  }
  return sent.delivered ? 0 : 1;
}

int ListDeliveries(const Common& common, const WebhookOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto list = (*store)->ListWebhookDeliveries(o.id, o.limit);
  if (!list.ok()) return Fail(list.status());
  if (common.json) {
    Json arr = Json::array();
    for (const auto& d : *list) arr.push_back(DeliveryJson(d));
    std::cout << arr.dump() << "\n";
    return 0;
  }
  for (const auto& d : *list) {
    std::cout << d.EventId() << "  " << d.event_type << "  " << DeliveryStateName(d.state)
              << "  attempts=" << d.attempts;
    if (d.last_status) std::cout << "  status=" << *d.last_status;
    std::cout << "  created=" << FormatRfc3339(d.created_at);
    if (d.last_attempt_at) std::cout << "  last=" << FormatRfc3339(*d.last_attempt_at);
    if (d.state == WebhookDelivery::State::kPending && d.next_attempt_at) {
      std::cout << "  next=" << FormatRfc3339(*d.next_attempt_at);
    }
    std::cout << "\n";
    if (d.last_error && d.state == WebhookDelivery::State::kPending) {
      std::cout << "    " << *d.last_error << "\n";
    }
  }
  return 0;
}

// A subcommand of `webhook` taking one id, running `run`.
CLI::App* AddIdCommand(CLI::App* webhook, Common& common, std::function<int()>& action,
                       const WebhookOptionsPtr& o, const char* name, const char* help,
                       int (*run)(const Common&, const WebhookOptions&)) {
  auto* cmd = webhook->add_subcommand(name, help);
  AddCommon(cmd, common, true);
  cmd->add_option("ID", o->id, "id of the webhook endpoint")->required();
  cmd->callback([&, o, run] { action = [&, o, run] { return run(common, *o); }; });
  return cmd;
}

}  // namespace

void AddWebhookCommands(CLI::App* project, Common& common, std::function<int()>& action) {
  auto* webhook = project->add_subcommand(
      "webhook", "a project's webhook endpoints: its jobs' events, signed, POSTed as they happen");
  webhook->require_subcommand(1);
  auto o = std::make_shared<WebhookOptions>();

  auto* add =
      webhook->add_subcommand("add", "add an endpoint; prints its id and its secret (once)");
  AddCommon(add, common, true);
  add->add_option("PROJECT_ID", o->project_id, "id of the project")->required();
  add->add_option("--url", o->url, "http(s) URL the events are POSTed to")->required();
  add->add_option("--events", o->events,
                  "event types to send, comma-separated (default: all but turn.step)");
  add->callback([&, o, add] { action = [&, o, add] { return AddWebhook(common, *o, *add); }; });

  auto* list = webhook->add_subcommand("list", "list a project's endpoints (never their secrets)");
  AddCommon(list, common, true);
  list->add_option("PROJECT_ID", o->project_id, "id of the project")->required();
  list->callback([&, o] { action = [&, o] { return ListWebhooks(common, *o); }; });

  AddIdCommand(webhook, common, action, o, "remove", "remove an endpoint and its deliveries",
               RemoveWebhook);
  AddIdCommand(webhook, common, action, o, "enable",
               "enable an endpoint again after it was disabled; its pending deliveries resume",
               EnableWebhook);
  AddIdCommand(webhook, common, action, o, "rotate-secret",
               "give an endpoint a new secret, printed once; the old one keeps signing for 24 "
               "hours",
               RotateSecret);
  auto* test =
      AddIdCommand(webhook, common, action, o, "test",
                   "send a webhook.test event now and print the endpoint's answer", TestWebhook);
  test->add_flag("--webhook-allow-private", o->allow_private,
                 "allow a private, loopback or link-local address")
      ->envname("DOCWRIGHT_WEBHOOK_ALLOW_PRIVATE");
  test->add_option("--timeout", o->timeout_s, "seconds the request may take (default 10)")
      ->check(CLI::Range(0.1, 300.0));
  auto* deliveries = AddIdCommand(webhook, common, action, o, "deliveries",
                                  "an endpoint's delivery log, newest first", ListDeliveries);
  deliveries->add_option("--limit", o->limit, "deliveries shown (default 20)")
      ->check(CLI::Range(1, 10000));
}

}  // namespace docwright
