#include "client/api_client.h"

#include <curl/curl.h>

namespace docwright {
namespace {

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

size_t Collect(char* data, size_t size, size_t n, void* out) {
  auto* body = static_cast<std::string*>(out);
  // Responses of this API are small; refuse anything absurd rather than grow.
  if (body->size() + size * n > (64u << 20)) return 0;
  body->append(data, size * n);
  return size * n;
}

}  // namespace

struct ApiClient::Impl {
  std::string base_url;
  std::string auth_header;
  std::chrono::milliseconds timeout;
  std::unique_ptr<CURL, CurlDeleter> curl{curl_easy_init()};
};

ApiClient::ApiClient(std::string base_url, std::string key, std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>()) {
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  impl_->base_url = std::move(base_url);
  impl_->auth_header = "Authorization: Bearer " + key;
  impl_->timeout = timeout;
}
ApiClient::~ApiClient() = default;

Result<ApiReply> ApiClient::Get(const std::string& path) { return Send("GET", path, ""); }
Result<ApiReply> ApiClient::Post(const std::string& path, const std::string& json_body) {
  return Send("POST", path, json_body);
}

Result<ApiReply> ApiClient::Send(const std::string& method, const std::string& path,
                                 const std::string& body) {
  CURL* c = impl_->curl.get();
  if (!c) return Status::Internal("cannot initialise libcurl");
  curl_easy_reset(c);
  std::string url = impl_->base_url + path;
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  curl_slist* list = curl_slist_append(nullptr, impl_->auth_header.c_str());
  list = curl_slist_append(list, "Accept: application/json");
  if (method == "POST") list = curl_slist_append(list, "Content-Type: application/json");
  headers.reset(list);
  ApiReply reply;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(impl_->timeout.count()));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply.body);
  if (method == "POST") {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    // The message names the URL's problem, never the key.
    return Status::Unavailable("cannot reach " + impl_->base_url + ": " + curl_easy_strerror(rc));
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  reply.status = static_cast<int>(status);
  return reply;
}

}  // namespace docwright
