#include "events/webhook_sender.h"

#include "core/ids.h"
#include "core/json_writer.h"
#include "core/text.h"
#include "core/time.h"
#include "core/url.h"
#include "core/webhook.h"

namespace docwright::events {

WebhookSender::WebhookSender(WebhookSenderOptions options)
    : options_(options),
      client_(http::ClientOptions{.refuse_private_addresses = !options.allow_private}) {}

SendOutcome WebhookSender::Send(const std::string& url, const std::vector<std::string>& secrets,
                                const std::string& id, int64_t timestamp_s, const std::string& body,
                                const std::function<bool()>& cancelled) {
  const std::string signature = WebhookSignatureHeader(secrets, id, timestamp_s, body);
  if (signature.empty()) return {.error = "the endpoint has no usable secret"};
  http::Request request{
      .method = "POST",
      .url = url,
      .headers = {{"Content-Type", "application/json"},
                  {"User-Agent", "docwright-webhooks"},
                  {"webhook-id", id},
                  {"webhook-timestamp", std::to_string(timestamp_s)},
                  {"webhook-signature", signature}},
      .body = body,
      .timeout = options_.timeout,
      .connect_timeout = std::min(options_.connect_timeout, options_.timeout),
      .max_response_bytes = options_.max_response_bytes,
      .truncate_response = true,
      .cancelled = cancelled,
  };
  auto reply = client_.Send(request);
  if (!reply.ok()) return {.error = OneLogLine(reply.status().message(), 300)};
  SendOutcome out;
  out.status = reply->status;
  if (reply->status >= 200 && reply->status < 300) {
    out.delivered = true;
    return out;
  }
  std::optional<Url> parsed = ParseUrl(url);
  std::string reason = (parsed ? OriginText(*parsed) : std::string("the endpoint")) + " answered " +
                       std::to_string(reply->status);
  std::string_view excerpt = TrimSpace(reply->body);
  if (!excerpt.empty()) reason += ": " + OneLogLine(excerpt, options_.excerpt_bytes);
  out.error = std::move(reason);
  return out;
}

SendOutcome WebhookSender::SendEvent(const std::string& url,
                                     const std::vector<std::string>& secrets, const JobEvent& event,
                                     const std::function<bool()>& cancelled) {
  return Send(url, secrets, EventId(event), NowMillis() / 1000, EventJson(event), cancelled);
}

TestEvent MakeTestEvent(const std::string& project_id, const std::string& endpoint_id) {
  TestEvent t;
  t.id = "test." + RandomBase62(22);
  JsonWriter w(&t.body);
  w.BeginObject();
  w.Key("id").String(t.id);
  w.Key("type").String(kWebhookTestEventType);
  w.Key("version").Int(kEventVersion);
  w.Key("timestamp").String(FormatRfc3339(NowMillis()));
  w.Key("projectId").String(project_id);
  w.Key("data").BeginObject();
  w.Key("endpointId").String(endpoint_id);
  w.EndObject();
  w.EndObject();
  return t;
}

}  // namespace docwright::events
