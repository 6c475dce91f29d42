#include "core/webhook.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>

#include "core/ids.h"
#include "core/text.h"
#include "core/url.h"

namespace docwright {

std::string_view DeliveryStateName(WebhookDelivery::State state) {
  return state == WebhookDelivery::State::kDelivered ? "delivered" : "pending";
}

std::vector<EventType> DefaultWebhookEvents() {
  std::vector<EventType> out;
  for (EventType t : AllEventTypes()) {
    if (t != EventType::kTurnStep) out.push_back(t);
  }
  return out;
}

Result<std::vector<EventType>> ParseWebhookEvents(std::string_view list) {
  std::vector<bool> wanted(AllEventTypes().size(), false);
  bool any = false;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view name = TrimSpace(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (name.empty()) continue;
    auto type = ParseEventType(name);
    if (!type) {
      std::string known;
      for (EventType t : AllEventTypes())
        known += (known.empty() ? "" : ", ") + std::string(EventTypeName(t));
      return Status::InvalidArgument("--events: unknown event type \"" + OneLogLine(name, 100) +
                                     "\" (known: " + known + ")");
    }
    for (size_t i = 0; i < AllEventTypes().size(); ++i) {
      if (AllEventTypes()[i] == *type) wanted[i] = true;
    }
    any = true;
  }
  if (!any) return Status::InvalidArgument("--events names no event type");
  std::vector<EventType> out;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (wanted[i]) out.push_back(AllEventTypes()[i]);
  }
  return out;
}

std::string WebhookEventsText(const std::vector<EventType>& events) {
  std::string out = ",";
  for (EventType t : events) out += std::string(EventTypeName(t)) + ",";
  return out;
}

std::vector<EventType> ParseWebhookEventsText(std::string_view text) {
  std::vector<EventType> out;
  for (EventType t : AllEventTypes()) {
    if (text.find("," + std::string(EventTypeName(t)) + ",") != std::string_view::npos) {
      out.push_back(t);
    }
  }
  return out;
}

Status CheckWebhookUrl(std::string_view url) {
  if (url.size() > kMaxWebhookUrlBytes) {
    return Status::InvalidArgument("--url is longer than " + std::to_string(kMaxWebhookUrlBytes) +
                                   " bytes");
  }
  if (HasControlCharacter(url, false) || url.find(' ') != std::string_view::npos) {
    return Status::InvalidArgument("--url must not hold spaces or control characters");
  }
  std::optional<Url> parsed = ParseUrl(url);
  if (!parsed || (parsed->scheme != "http" && parsed->scheme != "https") ||
      !url.starts_with(parsed->scheme + "://")) {
    return Status::InvalidArgument("--url must be an http:// or https:// URL");
  }
  if (parsed->host.empty()) return Status::InvalidArgument("--url names no host");
  if (parsed->has_userinfo) {
    return Status::InvalidArgument("--url must not hold credentials: the signature authenticates");
  }
  return Status();
}

std::string NewWebhookSecret() {
  return std::string(kWebhookSecretPrefix) + Base64Encode(RandomBytes(kWebhookSecretBytes));
}

std::optional<std::string> WebhookSecretKey(std::string_view secret) {
  if (!secret.starts_with(kWebhookSecretPrefix)) return std::nullopt;
  auto key = Base64Decode(secret.substr(kWebhookSecretPrefix.size()));
  if (!key || key->empty()) return std::nullopt;
  return key;
}

std::optional<std::string> WebhookSignature(std::string_view secret, std::string_view id,
                                            int64_t timestamp_s, std::string_view body) {
  auto key = WebhookSecretKey(secret);
  if (!key) return std::nullopt;
  std::string content;
  content.reserve(id.size() + body.size() + 24);
  content.append(id).append(".").append(std::to_string(timestamp_s)).append(".").append(body);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  if (!HMAC(EVP_sha256(), key->data(), static_cast<int>(key->size()),
            reinterpret_cast<const unsigned char*>(content.data()), content.size(), mac,
            &mac_len)) {
    return std::nullopt;
  }
  return "v1," + Base64Encode(std::string_view(reinterpret_cast<const char*>(mac), mac_len));
}

std::string WebhookSignatureHeader(const std::vector<std::string>& secrets, std::string_view id,
                                   int64_t timestamp_s, std::string_view body) {
  std::string out;
  for (const std::string& secret : secrets) {
    auto signature = WebhookSignature(secret, id, timestamp_s, body);
    if (!signature) continue;
    if (!out.empty()) out += ' ';
    out += *signature;
  }
  return out;
}

std::chrono::milliseconds WebhookRetryDelay(int64_t failures, const WebhookRetryPolicy& policy,
                                            uint64_t random) {
  int64_t cap = std::max<int64_t>(policy.base.count(), 0);
  for (int64_t i = 1; i < failures && cap < policy.cap.count(); ++i) cap *= 2;
  cap = std::min<int64_t>(cap, policy.cap.count());
  return std::chrono::milliseconds(cap <= 0 ? 0 : static_cast<int64_t>(random % (cap + 1)));
}

}  // namespace docwright
