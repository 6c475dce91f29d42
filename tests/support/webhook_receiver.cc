#include "support/webhook_receiver.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <ctime>
#include <sstream>

namespace docwright::testing {
namespace {

std::string Base64(const unsigned char* data, size_t n) {
  std::string out(4 * ((n + 2) / 3) + 1, '\0');
  int len =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(n));
  out.resize(len);
  return out;
}

std::string Unbase64(const std::string& text) {
  std::string out(text.size(), '\0');
  int len = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(text.data()),
                            static_cast<int>(text.size()));
  if (len < 0) return "";
  size_t pad = 0;
  for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) ++pad;
  out.resize(len - pad);
  return out;
}

}  // namespace

std::string StandardWebhookSignature(const std::string& secret, const std::string& id,
                                     const std::string& timestamp, const std::string& body) {
  const std::string key = Unbase64(secret.substr(secret.find('_') + 1));
  const std::string content = id + "." + timestamp + "." + body;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(content.data()), content.size(), mac, &len);
  return "v1," + Base64(mac, len);
}

WebhookReceiver::WebhookReceiver(std::vector<std::string> secrets) : secrets_(std::move(secrets)) {
  server_ =
      std::make_unique<LoopbackHttpServer>([this](const LoopbackRequest& r) { return Handle(r); });
}

WebhookReceiver::~WebhookReceiver() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
    held_ = false;
  }
  cv_.notify_all();
  server_.reset();
}

void WebhookReceiver::Respond(std::function<int(const Delivery&, int)> respond) {
  std::lock_guard lock(mu_);
  respond_ = std::move(respond);
}

void WebhookReceiver::Hold(bool held) {
  {
    std::lock_guard lock(mu_);
    held_ = held;
  }
  cv_.notify_all();
}

void WebhookReceiver::AddSecret(const std::string& secret) {
  std::lock_guard lock(mu_);
  secrets_.push_back(secret);
}

LoopbackResponse WebhookReceiver::Handle(const LoopbackRequest& request) {
  auto header = [&](const char* name) {
    auto it = request.headers.find(name);
    return it == request.headers.end() ? std::string() : it->second;
  };
  Delivery d{header("webhook-id"), header("webhook-timestamp"), header("webhook-signature"),
             request.body};
  d.event = nlohmann::json::parse(request.body, nullptr, false);
  std::unique_lock lock(mu_);
  std::vector<std::string> problems;
  if (request.method != "POST" || header("content-type") != "application/json") {
    problems.push_back("not a POST of JSON: " + request.method + " " + header("content-type"));
  }
  if (d.id.empty() || d.timestamp.empty() || d.signature.empty()) {
    problems.push_back("a header is missing");
  }
  if (!d.timestamp.empty() && std::llabs(std::stoll(d.timestamp) - std::time(nullptr)) > 300) {
    problems.push_back("timestamp " + d.timestamp + " is not now");
  }
  if (!d.event.is_object() || d.event.value("id", "") != d.id) {
    problems.push_back("the body's id is not the webhook-id " + d.id);
  }
  std::istringstream signatures(d.signature);
  for (std::string s; signatures >> s;) {
    ++d.signatures;
    for (const std::string& secret : secrets_) {
      if (s == StandardWebhookSignature(secret, d.id, d.timestamp, d.body)) {
        ++d.valid_signatures;
        break;
      }
    }
  }
  d.verified = d.valid_signatures > 0;
  if (!d.verified) problems.push_back("no valid signature on " + d.id);
  const int n = static_cast<int>(requests_.size());
  std::function<int(const Delivery&, int)> respond = respond_;
  lock.unlock();
  d.answered = respond ? respond(d, n) : 204;
  lock.lock();
  cv_.wait_for(lock, std::chrono::minutes(1), [&] { return !held_ || closing_; });
  const bool ok = problems.empty() && d.answered >= 200 && d.answered < 300;
  if (ok && !accepted_ids_.count(d.id)) {
    if (d.event.contains("jobId")) {
      const std::string job = d.event["jobId"];
      const int64_t seq = d.event["sequence"];
      auto last = last_sequence_.find(job);
      if (last != last_sequence_.end() && seq <= last->second) {
        problems.push_back("out of order: " + d.id + " after sequence " +
                           std::to_string(last->second));
      }
      last_sequence_[job] = seq;
    }
    accepted_ids_.insert(d.id);
    accepted_.push_back(d.event);
  }
  for (auto& p : problems) problems_.push_back(std::move(p));
  requests_.push_back(d);
  lock.unlock();
  cv_.notify_all();
  return LoopbackResponse{.status = d.answered, .body = ok ? "" : "{\"error\": \"not now\"}"};
}

std::vector<WebhookReceiver::Delivery> WebhookReceiver::Requests() {
  std::lock_guard lock(mu_);
  return requests_;
}

std::vector<nlohmann::json> WebhookReceiver::Accepted() {
  std::lock_guard lock(mu_);
  return accepted_;
}

std::vector<std::string> WebhookReceiver::Problems() {
  std::lock_guard lock(mu_);
  return problems_;
}

bool WebhookReceiver::WaitForAccepted(size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return accepted_.size() >= n; });
}

}  // namespace docwright::testing
