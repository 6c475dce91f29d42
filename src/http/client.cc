#include "http/client.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <random>
#include <thread>

#include "core/mutex.h"
#include "core/url.h"

namespace docwright::http {
namespace {

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

struct Sink {
  std::string* body;
  size_t limit;
  bool truncate = false;
  bool overflow = false;
  const int* status = nullptr;  // of the response whose body arrives
  const std::function<bool(std::string_view)>* on_body = nullptr;
  bool stopped = false;  // on_body asked to end the exchange
};

size_t CollectBody(char* data, size_t size, size_t n, void* out) {
  auto* sink = static_cast<Sink*>(out);
  if (sink->on_body && *sink->status >= 200 && *sink->status < 300) {
    if ((*sink->on_body)(std::string_view(data, size * n))) return size * n;
    sink->stopped = true;
    return 0;  // aborts the transfer
  }
  if (sink->body->size() + size * n > sink->limit) {
    sink->overflow = true;
    if (sink->truncate) sink->body->append(data, sink->limit - sink->body->size());
    return 0;  // aborts the transfer
  }
  sink->body->append(data, size * n);
  return size * n;
}

struct HeaderSink {
  std::map<std::string, std::string>* headers;
  int status = 0;  // of the last status line
};

size_t CollectHeader(char* data, size_t size, size_t n, void* out) {
  auto* sink = static_cast<HeaderSink*>(out);
  auto* headers = sink->headers;
  std::string line(data, size * n);
  if (line.starts_with("HTTP/")) {  // a new response (after 100, redirects)
    headers->clear();
    size_t space = line.find(' ');
    sink->status = 0;
    for (size_t i = space + 1; space != std::string::npos && i < line.size() && i < space + 4;
         ++i) {
      if (line[i] < '0' || line[i] > '9') break;
      sink->status = sink->status * 10 + (line[i] - '0');
    }
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return size * n;
  std::string name = line.substr(0, colon);
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string value = line.substr(colon + 1);
  auto not_space = [](char c) { return c != ' ' && c != '\t' && c != '\r' && c != '\n'; };
  value.erase(value.begin(), std::find_if(value.begin(), value.end(), not_space));
  value.erase(std::find_if(value.rbegin(), value.rend(), not_space).base(), value.end());
  (*headers)[name] = value;
  return size * n;
}

// "scheme://host[:port]" of a URL, for messages: never its path, query or user.
std::string Origin(const std::string& url) {
  std::optional<Url> parsed = ParseUrl(url);
  return parsed ? OriginText(*parsed) : "the server";
}

// libcurl's progress callback for a request with `cancelled` or `on_sent`.
struct Progress {
  const std::function<bool()>* cancelled;
  const std::function<void()>* on_sent;
  bool* sent;                // on_sent was called (kept over a request's attempts)
  std::exception_ptr error;  // thrown by a callback: the transfer is abandoned, and it rethrown
};

// Nothing may be thrown through libcurl's frames: it would leave the handle
// inside its transfer, and unusable for every later request.
int OnProgress(void* data, curl_off_t, curl_off_t, curl_off_t upload_total,
               curl_off_t uploaded) noexcept {
  auto* p = static_cast<Progress*>(data);
  try {
    if (p->on_sent && !*p->sent && upload_total > 0 && uploaded >= upload_total) {
      *p->sent = true;
      (*p->on_sent)();
    }
    return p->cancelled && (*p->cancelled)() ? 1 : 0;
  } catch (...) {
    p->error = std::current_exception();
    return 1;
  }
}

// An IPv4 address (4 bytes, network order) that IsPrivateAddress refuses.
bool IsPrivateV4(const unsigned char* a) {
  return a[0] == 0 ||                                // "this network", unspecified
         a[0] == 10 ||                               // RFC 1918
         a[0] == 127 ||                              // loopback
         (a[0] == 100 && (a[1] & 0xc0) == 64) ||     // shared address space (CGNAT)
         (a[0] == 169 && a[1] == 254) ||             // link-local
         (a[0] == 172 && (a[1] & 0xf0) == 16) ||     // RFC 1918
         (a[0] == 192 && a[1] == 168) ||             // RFC 1918
         (a[0] == 192 && a[1] == 0 && a[2] == 0) ||  // IETF protocol assignments
         (a[0] == 198 && (a[1] & 0xfe) == 18) ||     // benchmarking
         a[0] >= 224;                                // multicast, reserved, broadcast
}

// An IPv6 address (16 bytes) that IsPrivateAddress refuses.
bool IsPrivateV6(const unsigned char* a) {
  static constexpr unsigned char kZero[16] = {};
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static constexpr unsigned char kNat64[12] = {0, 0x64, 0xff, 0x9b};
  if (std::memcmp(a, kZero, 15) == 0 && (a[15] == 0 || a[15] == 1)) return true;  // ::, ::1
  // IPv4-mapped, IPv4-compatible (deprecated) and NAT64: judged by the IPv4 address.
  if (std::memcmp(a, kMapped, 12) == 0 || std::memcmp(a, kZero, 12) == 0 ||
      std::memcmp(a, kNat64, 12) == 0) {
    return IsPrivateV4(a + 12);
  }
  return (a[0] & 0xfe) == 0xfc ||                    // unique local, fc00::/7
         (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) ||  // link-local, fe80::/10
         (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0) ||  // site-local, fec0::/10
         a[0] == 0xff;                               // multicast
}

// The address a socket is about to connect to, as text, and whether it is refused.
bool IsPrivateSockaddr(const sockaddr* sa, std::string* text) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
    *text = buf;
    return IsPrivateV4(reinterpret_cast<const unsigned char*>(&in->sin_addr));
  }
  if (sa->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
    *text = buf;
    return IsPrivateV6(reinterpret_cast<const unsigned char*>(&in6->sin6_addr));
  }
  *text = "an address of family " + std::to_string(sa->sa_family);
  return true;  // a Unix socket or anything else is no public address
}

// CURLOPT_OPENSOCKETFUNCTION of a client refusing private addresses: called
// for each address curl is about to connect to, after resolution. Refusing
// makes curl try the next address, and fail when none is left.
curl_socket_t OpenPublicSocket(void* refused, curlsocktype purpose, curl_sockaddr* address) {
  std::string text;
  if (purpose != CURLSOCKTYPE_IPCXN || IsPrivateSockaddr(&address->addr, &text)) {
    *static_cast<std::string*>(refused) = text.empty() ? "a socket of another kind" : text;
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

// The request's header lines, as curl takes them, into `*list`. Bodies go at
// once: no "Expect: 100-continue" round trip (curl adds it for large bodies,
// and a server that ignores it costs a second's wait).
Status HeaderLines(const Request& request, std::unique_ptr<curl_slist, SlistDeleter>* list) {
  std::vector<std::pair<std::string, std::string>> all = request.headers;
  all.emplace_back("Expect", "");
  for (const auto& [name, value] : all) {
    std::string line = value.empty() ? name + ":" : name + ": " + value;
    curl_slist* l = curl_slist_append(list->get(), line.c_str());
    if (!l) return Status::Internal("out of memory");
    list->release();
    list->reset(l);
  }
  return Status();
}

// The options of one exchange of `request` on `c` (just reset): its URL,
// method, headers, body, time limits and sinks. `headers`, `sink` and
// `header_sink` must outlive the exchange.
void SetExchangeOptions(CURL* c, const Request& request, curl_slist* headers, Sink* sink,
                        HeaderSink* header_sink) {
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(request.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  // A connection idle for longer is not used again: servers and load balancers
  // close idle ones after a minute or so, some sending a 408 first, which
  // libcurl would read as the next request's reply.
  curl_easy_setopt(c, CURLOPT_MAXAGE_CONN, 30L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, CollectBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, sink);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, CollectHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, header_sink);
  if (request.idle_timeout.count() > 0) {
    // Under a byte a second for this many seconds: nothing but, at most, a
    // stray heartbeat arrived.
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(
        c, CURLOPT_LOW_SPEED_TIME,
        static_cast<long>(std::max<int64_t>(1, (request.idle_timeout.count() + 999) / 1000)));
  }
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT" ||
      request.method == "PATCH") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  if (request.connect_only) curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
}

// What an exchange came to, once curl_easy_perform returned `rc`: `response`
// completed, or why there is none. Unavailable only for what may pass (the
// retries' test); `refused` is the last private address refused, if any.
Result<Response> ExchangeResult(CURL* c, CURLcode rc, const Request& request, Response response,
                                const Sink& sink, const HeaderSink& header_sink,
                                const std::string& refused) {
  if (rc == CURLE_ABORTED_BY_CALLBACK) {
    return Status::Unavailable("the request to " + Origin(request.url) + " was cancelled");
  }
  if (sink.stopped) {  // the caller has what it wanted
    response.status = header_sink.status;
    return response;
  }
  if (sink.overflow && request.truncate_response) {
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
    return response;
  }
  if (sink.overflow) {  // not transient: no retry will shrink it
    return Status::Internal("the response from " + Origin(request.url) + " is larger than " +
                            std::to_string(request.max_response_bytes) + " bytes");
  }
  if (rc != CURLE_OK && !refused.empty()) {
    return Status::Unavailable("refused to connect to " + Origin(request.url) + ": " + refused +
                               " is a private address");
  }
  if (rc == CURLE_OPERATION_TIMEDOUT && request.idle_timeout.count() > 0 &&
      header_sink.status != 0) {
    std::string idle = std::to_string((request.idle_timeout.count() + 999) / 1000) + " s";
    return Status::Unavailable(
        Origin(request.url) + " sent nothing for " + idle +
        (request.timeout.count() > 0 ? ", or took longer than the exchange may" : ""));
  }
  if (rc != CURLE_OK && header_sink.status != 0) {  // it answered, then broke off
    return Status::Unavailable("the response from " + Origin(request.url) +
                               " broke off: " + curl_easy_strerror(rc));
  }
  if (rc != CURLE_OK) {
    return Status::Unavailable("cannot reach " + Origin(request.url) + ": " +
                               curl_easy_strerror(rc));
  }
  if (request.connect_only) return response;
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace

bool IsPrivateAddress(const std::string& ip) {
  unsigned char bytes[16];
  if (inet_pton(AF_INET, ip.c_str(), bytes) == 1) return IsPrivateV4(bytes);
  if (inet_pton(AF_INET6, ip.c_str(), bytes) == 1) return IsPrivateV6(bytes);
  return false;
}

std::string Response::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

bool IsRetryable(int status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
         status == 504;
}

std::optional<std::chrono::milliseconds> ParseRetryAfter(const std::string& value) {
  if (value.empty() || value.size() > 9) return std::nullopt;
  int64_t seconds = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    seconds = seconds * 10 + (c - '0');
  }
  return std::chrono::milliseconds(seconds * 1000);
}

std::chrono::milliseconds RetryDelay(int retry, const RetryPolicy& policy,
                                     std::optional<std::chrono::milliseconds> retry_after,
                                     uint64_t random) {
  if (retry_after) return std::min(*retry_after, policy.max_delay);
  int64_t cap = policy.base_delay.count();
  for (int i = 1; i < retry && cap < policy.max_delay.count(); ++i) cap *= 2;
  cap = std::min<int64_t>(cap, policy.max_delay.count());
  return std::chrono::milliseconds(cap <= 0 ? 0 : static_cast<int64_t>(random % (cap + 1)));
}

struct ConnectionPool::Impl {
  explicit Impl(size_t max) : max_idle(max) {}
  ~Impl() {
    for (CURL* handle : idle) curl_easy_cleanup(handle);
  }

  // A handle of the pool, or null when none is idle.
  std::unique_ptr<CURL, CurlDeleter> Take() EXCLUDES(mu) {
    MutexLock lock(mu);
    if (idle.empty()) return nullptr;
    std::unique_ptr<CURL, CurlDeleter> handle(idle.back());
    idle.pop_back();
    return handle;
  }
  // Keeps `handle` unless max_idle are kept; else it is closed (after the lock).
  void Give(std::unique_ptr<CURL, CurlDeleter> handle) EXCLUDES(mu) {
    curl_easy_reset(handle.get());  // nothing of the last request's options stays
    MutexLock lock(mu);
    if (idle.size() < max_idle) idle.push_back(handle.release());
  }

  const size_t max_idle;
  Mutex mu;
  std::vector<CURL*> idle GUARDED_BY(mu);  // most recently returned last
};

ConnectionPool::ConnectionPool(size_t max_idle) : impl_(std::make_unique<Impl>(max_idle)) {}
ConnectionPool::~ConnectionPool() = default;

size_t ConnectionPool::idle() const {
  MutexLock lock(impl_->mu);
  return impl_->idle.size();
}

struct Client::Impl {
  ClientOptions options;
  std::unique_ptr<CURL, CurlDeleter> curl;
  // The retries' jitter, seeded at the first retry: a client is made for each
  // turn's model and most never retry (a random_device costs a system call).
  std::optional<std::mt19937_64> rng;
};

Client::Client() : Client(ClientOptions{}) {}
Client::Client(ClientOptions options) : impl_(std::make_unique<Impl>()) {
  if (options.refuse_private_addresses) options.pool = nullptr;
  impl_->options = std::move(options);
  if (impl_->options.pool) impl_->curl = impl_->options.pool->impl_->Take();
  if (!impl_->curl) impl_->curl.reset(curl_easy_init());
}

Client::~Client() {
  if (impl_->options.pool && impl_->curl) {
    impl_->options.pool->impl_->Give(std::move(impl_->curl));
  }
}

Result<Response> Client::Send(const Request& request) {
  bool sent = false;
  return Attempt(request, &sent);
}

Result<Response> Client::Attempt(const Request& request, bool* sent) {
  if (request.cancelled && request.cancelled()) {
    return Status::Unavailable("the request to " + Origin(request.url) + " was cancelled");
  }
  CURL* c = impl_->curl.get();
  if (!c) return Status::Internal("cannot initialise libcurl");
  curl_easy_reset(c);
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  if (Status s = HeaderLines(request, &headers); !s.ok()) return s;
  Response response;
  HeaderSink header_sink{&response.headers};
  Sink sink{&response.body, request.max_response_bytes, request.truncate_response};
  if (request.on_body) {
    sink.status = &header_sink.status;
    sink.on_body = &request.on_body;
  }
  SetExchangeOptions(c, request, headers.get(), &sink, &header_sink);
  Progress progress{.cancelled = request.cancelled ? &request.cancelled : nullptr,
                    .on_sent = request.on_sent ? &request.on_sent : nullptr,
                    .sent = sent};
  if (progress.cancelled || progress.on_sent) {
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, OnProgress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &progress);
  }
  std::string refused;  // the last private address refused
  if (impl_->options.refuse_private_addresses) {
    // A proxy's address would be the one checked, not the receiver's.
    curl_easy_setopt(c, CURLOPT_PROXY, "");
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, OpenPublicSocket);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &refused);
  }
  CURLcode rc = curl_easy_perform(c);
  if (progress.error) std::rethrow_exception(progress.error);
  return ExchangeResult(c, rc, request, std::move(response), sink, header_sink, refused);
}

Result<Response> Client::SendWithRetries(const Request& request, const RetryPolicy& policy,
                                         int* attempts) {
  auto sleep = policy.sleep ? policy.sleep : [](std::chrono::milliseconds d) {
    std::this_thread::sleep_for(d);
    return true;
  };
  bool sent = false;  // on_sent is called once over the attempts
  for (int attempt = 1;; ++attempt) {
    if (attempts) *attempts = attempt;
    Result<Response> r = Attempt(request, &sent);
    bool retryable = r.ok() ? IsRetryable(r->status) : r.status().code() == Code::kUnavailable;
    std::optional<std::chrono::milliseconds> retry_after;
    if (r.ok()) {
      retry_after = ParseRetryAfter(r->Header("retry-after"));
      if (policy.rate_limit_wait) {
        if (auto wait = policy.rate_limit_wait(*r)) {
          retryable = true;
          retry_after = wait;
        }
      }
    }
    if (!retryable || attempt >= policy.max_attempts) return r;
    if (request.cancelled && request.cancelled()) return r;
    if (!impl_->rng) impl_->rng.emplace(std::random_device{}());
    if (!sleep(RetryDelay(attempt, policy, retry_after, (*impl_->rng)()))) return r;
  }
}

}  // namespace docwright::http
