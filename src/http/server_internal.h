// Internal to http/: what the server's two halves share. The listener
// (server.cc: the acceptor, the connection caps, signals and shutdown) admits
// each connection and hands it to its session (server_connection.cc: reading a
// request within its limits, handing it to the handlers, writing the answer or
// a stream); the sessions report back through ServerState.
#pragma once

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/mutex.h"
#include "http/server.h"

namespace docwright {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
// Concrete executor types: the type-erased default costs on every handler.
using Executor = net::io_context::executor_type;
using Socket = net::basic_stream_socket<tcp, Executor>;
using Stream = beast::basic_stream<tcp, Executor, beast::unlimited_rate_policy>;
using Acceptor = net::basic_socket_acceptor<tcp, Executor>;

// A connection's session (server_connection.cc); it lives as long as its
// handlers hold it.
class HttpConnection;

// What sessions share with the server.
// Members are destroyed bottom-up: the contexts go first, and destroying them
// destroys the sessions still queued in them, which use the members above.
struct ServerState {
  HttpServerOptions options;
  HttpHandlers handlers;
  std::atomic<bool> stopping{false};
  std::atomic<size_t> connections{0};

  Mutex sessions_mu;
  std::unordered_map<HttpConnection*, std::weak_ptr<HttpConnection>> sessions
      GUARDED_BY(sessions_mu);
  // Open connections by client address (PeerKey).
  std::unordered_map<std::string, size_t> peers GUARDED_BY(sessions_mu);
  // Set by the server before it accepts and cleared once its contexts are
  // gone: not under sessions_mu.
  std::function<void()> on_last_session_closed;

  net::thread_pool blocking;  // writes
  net::thread_pool reads;     // reads that are not quick
  // One single-threaded io_context per I/O thread, each connection bound to one of
  // them (as nginx binds connections to workers): a session's handlers never run
  // concurrently, so no strands, and no scheduler shared across threads.
  std::vector<std::unique_ptr<net::io_context>> contexts;
  std::vector<net::executor_work_guard<net::io_context::executor_type>> guards;
  size_t next_context = 0;  // used by the acceptor only

  ServerState(HttpServerOptions o, HttpHandlers h)
      : options(std::move(o)),
        handlers(std::move(h)),
        blocking(static_cast<size_t>(std::max(1, options.blocking_threads))),
        reads(static_cast<size_t>(std::max(1, options.read_threads))) {
    for (int i = 0; i < std::max(1, options.io_threads); ++i) {
      contexts.push_back(std::make_unique<net::io_context>(1));
      guards.push_back(net::make_work_guard(*contexts.back()));
    }
  }

  net::io_context& main() { return *contexts.front(); }

  // Counts a new connection from `peer`; false if that address has its share.
  // A trusted proxy's connections (peer "") are not counted.
  bool AdmitPeer(const std::string& peer) EXCLUDES(sessions_mu) {
    if (peer.empty()) return true;
    MutexLock lock(sessions_mu);
    size_t& n = peers[peer];
    if (n >= options.max_connections_per_ip) {
      if (n == 0) peers.erase(peer);
      return false;
    }
    ++n;
    return true;
  }
  void ReleasePeer(const std::string& peer) EXCLUDES(sessions_mu) {
    if (peer.empty()) return;
    MutexLock lock(sessions_mu);
    auto it = peers.find(peer);
    if (it != peers.end() && --it->second == 0) peers.erase(it);
  }
};

// Serves `socket` on its own session, until the connection closes. `peer` was
// admitted by state.AdmitPeer (the session releases it); `address` is the
// peer's address in text. `state` outlives the session.
void StartConnection(Socket&& socket, ServerState& state, std::string peer, std::string address);

// Asks a session to stop (on its own I/O thread, so from any): an idle
// connection closes now, a busy one after its response, a stream at once.
void StopConnection(const std::shared_ptr<HttpConnection>& connection);

}  // namespace docwright
