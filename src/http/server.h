// The http room (http/): HTTP on both sides, this server and the outgoing client
// (http/client.h); neither knows the API.
//
// An asynchronous HTTP/1.1 server (Boost.Beast): keep-alive, bounded request
// size and headers, timeouts for slow clients, connection caps (in all and per
// client address) and graceful shutdown. It knows nothing of the API: it hands
// each request to a handler.
//
// Memory before a request is let through by `precheck` is bounded per
// connection, whatever the client sends: the read buffer holds at most
// header_limit + kReadSlack bytes (a chunk header or trailer that does not fit is
// refused), GET and HEAD requests with a body are refused before it is read, and
// a body is read only once `precheck` has let the request through.
//
// Quick requests (the poll) are answered on the I/O threads; the rest run on
// separate pools, because they write durably or read more and may wait on the
// disk: reads (GET, HEAD) on one, everything else (the writes) on another, so a
// flood of slow reads never delays a write.
// HEAD is answered as GET without the body. A response may be a stream
// (BodySource): its connection then serves nothing else and closes after it.
#pragma once

#include <any>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "http/forwarded.h"

namespace docwright {

// Bytes the read buffer may hold beyond header_limit: a chunk header (with its
// extensions) or a chunked body's trailer must fit in it whole.
inline constexpr size_t kReadSlack = 8 << 10;

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path and query, as sent
  std::string authorization;
  std::string content_type;
  // Headers the API reads, as sent (empty when absent; a repeated one is
  // comma-joined): conditional polling, idempotent POSTs, resumed event streams.
  std::string if_none_match;
  std::string idempotency_key;
  std::string last_event_id;
  // Sign-in sessions of browsers: the cookies (every Cookie line, "; "-joined),
  // the page's CSRF token (X-Docwright-CSRF), and where the request says it
  // comes from (Origin) and goes to (Host).
  std::string cookie;
  std::string csrf_token;
  std::string origin;
  std::string host;
  // Forges' webhook deliveries (POST /hooks/...): the headers of
  // kForgeHookHeaders that were sent, by their lower-case name, as sent (a
  // repeated one comma-joined). Secrets among them (a signature, GitLab's
  // token) are never logged.
  std::vector<std::pair<std::string, std::string>> hook_headers;
  std::string body;
  // The client's address: the connection's, or, from a trusted proxy, the
  // address it forwards for (see ClientAddress).
  std::string client;
  // The application's own: what `precheck` found out about the request, handed
  // to `handle` with the same request (so a key is resolved once). Empty when
  // `precheck` did not run (requests without a body).
  std::any context;
  // Set by the application for the access log: the route's pattern
  // ("/v2/agent/{projectId}/job") and who asked (an API key's id). Never a secret.
  std::string route;
  std::string principal;
};

// The headers forges send with a webhook delivery (GitHub, GitLab, Gitea and
// Forgejo: its event, its id, its signature or token), in lower case.
inline constexpr std::string_view kForgeHookHeaders[] = {
    "x-github-event",    "x-github-delivery",   "x-hub-signature-256", "x-gitlab-event",
    "x-gitlab-token",    "x-gitlab-event-uuid", "x-gitea-event",       "x-gitea-delivery",
    "x-gitea-signature", "x-forgejo-event",     "x-forgejo-delivery",  "x-forgejo-signature"};

// The value of the hook header `name` (lower case) of `request`; "" if absent.
std::string_view HookHeader(const HttpRequest& request, std::string_view name);

// One answered request, for the access log.
struct AccessRecord {
  std::string_view method;  // empty if none was read
  std::string_view route;   // empty if the application named none
  std::string_view principal;
  std::string_view client;
  int status = 0;
  size_t body_bytes = 0;
  std::chrono::microseconds duration{0};  // from the header's arrival to the answer
};

// A response body written as it is produced (an event stream). The server
// sends the status and headers at once, then each piece as the source hands it
// over, in chunked transfer coding (to an HTTP/1.0 client: as they come, the
// end told by closing), and closes the connection after the last piece. At
// most one piece waits to be written: the source is asked for the next only
// once the last is written, so a slow reader holds back the source, not memory.
class BodySource {
 public:
  virtual ~BodySource() = default;
  // Asks for the next piece. The source calls `deliver` exactly once, from any
  // thread, at any later time: with the bytes to send (not empty), or with
  // nullopt to end the body.
  virtual void Next(std::function<void(std::optional<std::string>)> deliver) = 0;
  // The response is over: its end was sent, the client left, a write failed or
  // timed out, or the server is shutting down. A `deliver` still pending may be
  // called after this, and is ignored. Called once, on an I/O thread.
  virtual void Close() = 0;
};

struct HttpResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  // Set: the body is this source's, and `body` is ignored (a HEAD request gets
  // the headers only, and the source is closed at once).
  std::shared_ptr<BodySource> stream;
};

// An error answer in the API's shape, {"error": message, "code": code}: the one
// writer of it, for the server's own refusals and the application's.
HttpResponse ErrorResponse(int status, std::string_view message, std::string_view code);

// What the application provides. All three are called from several threads.
struct HttpHandlers {
  // Answers a request.
  std::function<HttpResponse(HttpRequest&)> handle;
  // Sees a request whose body is still unread (its `body` is empty): returns an
  // answer to send at once instead of reading the body (an unknown route, a
  // missing key), or nullopt to go on. Optional.
  std::function<std::optional<HttpResponse>(HttpRequest&)> precheck;
  // True if `handle` answers this GET or HEAD from memory, so it may run on the
  // I/O thread; everything else runs on the blocking pool. Optional.
  std::function<bool(const HttpRequest&)> is_quick;
  // Told of every answer, the server's own refusals included, as it is sent;
  // called on the I/O threads, so it must not block. Optional.
  std::function<void(const AccessRecord&)> access_log;
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;  // 0: any free port (see HttpServer::port())
  int io_threads = 2;
  int blocking_threads = 4;  // writes: every request but GET and HEAD
  int read_threads = 4;      // reads (GET, HEAD) that are not quick
  size_t body_limit = 1 << 20;
  size_t header_limit = 16 << 10;
  size_t max_connections = 10000;  // see MaxConnectionsForFdLimit
  // Open connections from one client address (an IPv6 client counts by its /64,
  // which one host usually has whole); more are answered 503 and closed.
  size_t max_connections_per_ip = 128;
  // Reverse proxies: from these peers the client address is read from the
  // Forwarded or X-Forwarded-For headers, and their connections are not capped
  // per address (the proxy's own limits apply).
  std::vector<IpRange> trusted_proxies;
  ForwardedHeader forwarded_header = ForwardedHeader::kXForwardedFor;  // the one they write
  // A request's header must arrive within this time of its first byte (of the
  // connection, for its first request), so slow headers cannot hold connections.
  std::chrono::seconds header_timeout{10};
  // A request's body must arrive, and a keep-alive connection may idle between
  // requests, within this time.
  std::chrono::seconds read_timeout{30};
  std::chrono::seconds write_timeout{30};
  // On shutdown, in-flight requests get this long to finish.
  std::chrono::seconds shutdown_grace{10};
  // Shut down on SIGINT and SIGTERM, caught from Listen() on: one that comes
  // before Run() is acted on as Run() starts.
  bool handle_signals = false;
};

// Raises the soft limit on open files to the hard limit; returns the limit now
// (SIZE_MAX: none).
size_t RaiseOpenFileLimit();
// Raises the soft limit on open files (as above), and returns how many
// connections fit under it with `reserve` descriptors left for the rest of the
// process (the database, logs, and each worker's model connection and git).
size_t MaxConnectionsForFdLimit(size_t wanted, size_t reserve = 256);

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, HttpHandlers handlers);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens.
  Status Listen();
  // The bound port (after Listen).
  uint16_t port() const;
  // Serves until shutdown has finished: stops accepting, lets in-flight requests
  // finish (up to shutdown_grace), closes idle connections. Blocks the calling
  // thread, which becomes one of the server's I/O threads; called once, after
  // a successful Listen(). The handlers must outlive it.
  void Run();
  // Starts a graceful shutdown; thread-safe.
  void Shutdown();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docwright
