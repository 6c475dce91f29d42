// The listener (http/server_internal.h): the acceptor, the caps on
// connections (in all and per client address), signals and a graceful
// shutdown. Each connection it admits is served by its session
// (server_connection.cc).
#include "http/server.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <thread>

#include "http/server_internal.h"

namespace docwright {
namespace {

// The peer's address, an IPv4-mapped IPv6 address as IPv4.
net::ip::address PeerAddress(const tcp::endpoint& endpoint) {
  net::ip::address a = endpoint.address();
  if (a.is_v6() && a.to_v6().is_v4_mapped()) {
    a = net::ip::make_address_v4(net::ip::v4_mapped, a.to_v6());
  }
  return a;
}

// The client address connections are counted by: an IPv4 address (also when
// mapped into IPv6), or an IPv6 address's /64 prefix, since one host usually has
// a whole /64 to pick addresses from.
std::string PeerKey(const tcp::endpoint& endpoint) {
  net::ip::address a = PeerAddress(endpoint);
  if (a.is_v4()) return a.to_string();
  auto bytes = a.to_v6().to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return net::ip::address_v6(bytes).to_string() + "/64";
}

}  // namespace

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, HttpHandlers handlers)
      : state_(std::move(options), std::move(handlers)),
        acceptor_(state_.main()),
        signals_(state_.main()),
        grace_timer_(state_.main()),
        accept_retry_(state_.main()) {
    state_.on_last_session_closed = [this] {
      net::post(state_.main(), [this] { grace_timer_.cancel(); });
    };
  }

  ~Impl() {
    // Sessions still queued die with their contexts; nothing must be posted then.
    state_.on_last_session_closed = nullptr;
  }

  Status Listen() {
    beast::error_code ec;
    auto address = net::ip::make_address(state_.options.host, ec);
    if (ec) return Status::InvalidArgument("invalid listen address: " + state_.options.host);
    tcp::endpoint endpoint(address, state_.options.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return Status::Unavailable("cannot listen on " + state_.options.host + ":" +
                                 std::to_string(state_.options.port) + ": " + ec.message());
    }
    port_ = acceptor_.local_endpoint().port();
    // Caught from now on: a signal sent once the port is known (and written
    // for others to read) and before Run is acted on as Run starts, never
    // taken by the default action that ends the process at once.
    if (state_.options.handle_signals) {
      signals_.add(SIGINT);
      signals_.add(SIGTERM);
      signals_.async_wait([this](beast::error_code ec, int sig) {
        if (ec) return;
        spdlog::info("signal {} received: shutting down", sig);
        BeginShutdown();
      });
    }
    return Status();
  }

  uint16_t port() const { return port_; }

  void Run() {
    DoAccept();
    std::vector<std::thread> threads;
    for (size_t i = 1; i < state_.contexts.size(); ++i) {
      threads.emplace_back([this, i] { state_.contexts[i]->run(); });
    }
    state_.main().run();
    for (auto& t : threads) t.join();
    state_.blocking.join();
    state_.reads.join();
  }

  void Shutdown() {
    net::post(acceptor_.get_executor(), [this] { BeginShutdown(); });
  }

 private:
  void DoAccept() {
    auto& ctx = *state_.contexts[state_.next_context++ % state_.contexts.size()];
    acceptor_.async_accept(ctx, beast::bind_front_handler(&Impl::OnAccept, this));
  }

  void OnAccept(beast::error_code ec, Socket socket) {
    if (state_.stopping.load()) return;
    if (ec) {
      // Out of file descriptors, typically: accepting again at once would spin.
      spdlog::warn("accept failed: {}; pausing new connections for 100 ms", ec.message());
      accept_retry_.expires_after(std::chrono::milliseconds(100));
      accept_retry_.async_wait([this](beast::error_code wait_ec) {
        if (!wait_ec && !state_.stopping.load()) DoAccept();
      });
      return;
    }
    if (state_.connections.load(std::memory_order_relaxed) >= state_.options.max_connections) {
      Refuse(socket, "the server is at its connection limit");
    } else {
      auto endpoint = socket.remote_endpoint(ec);
      std::string peer = ec ? std::string("unknown") : PeerKey(endpoint);
      std::string address = ec ? std::string("unknown") : PeerAddress(endpoint).to_string();
      if (InRanges(address, state_.options.trusted_proxies)) peer.clear();
      if (!state_.AdmitPeer(peer)) {
        Refuse(socket, "too many connections from your address");
        auto now = std::chrono::steady_clock::now();
        if (now - last_refusal_log_ > std::chrono::seconds(10)) {
          last_refusal_log_ = now;
          spdlog::warn("refusing connections from {}: {} open, the limit per address", peer,
                       state_.options.max_connections_per_ip);
        }
      } else {
        socket.set_option(tcp::no_delay(true), ec);
        StartConnection(std::move(socket), state_, std::move(peer), std::move(address));
      }
    }
    DoAccept();
  }

  // A connection over a cap gets a 503 if its send buffer takes it at once (it
  // always does on a new connection), and is closed; nothing waits on it.
  static void Refuse(Socket& socket, std::string_view why) {
    std::string body = ErrorResponse(503, why, "unavailable").body;
    std::string answer =
        "HTTP/1.1 503 Service Unavailable\r\nServer: docwright\r\n"
        "Content-Type: application/json\r\nRetry-After: 1\r\n"
        "Connection: close\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body;
    [[maybe_unused]] ssize_t sent =
        ::send(socket.native_handle(), answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
  }

  // Runs on the main context, where the acceptor lives.
  void BeginShutdown() {
    if (state_.stopping.exchange(true)) return;
    beast::error_code ec;
    acceptor_.close(ec);
    signals_.cancel(ec);
    accept_retry_.cancel();
    // Each context's run() returns once its last connection is gone.
    for (auto& g : state_.guards) g.reset();
    std::vector<std::shared_ptr<HttpConnection>> live;
    {
      MutexLock lock(state_.sessions_mu);
      for (auto& [ptr, weak] : state_.sessions) {
        if (auto s = weak.lock()) live.push_back(std::move(s));
      }
    }
    if (live.empty()) return;
    for (auto& s : live) StopConnection(s);
    // Sessions still busy when the grace period ends are cut off.
    grace_timer_.expires_after(state_.options.shutdown_grace);
    grace_timer_.async_wait([this](beast::error_code ec) {
      if (!ec) {
        spdlog::warn("shutdown: requests still running after the grace period; stopping");
        for (auto& ctx : state_.contexts) ctx->stop();
      }
    });
  }

  ServerState state_;
  Acceptor acceptor_;
  net::signal_set signals_;
  net::steady_timer grace_timer_;
  net::steady_timer accept_retry_;
  std::chrono::steady_clock::time_point last_refusal_log_{};
  uint16_t port_ = 0;
};

HttpServer::HttpServer(HttpServerOptions options, HttpHandlers handlers)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handlers))) {}
HttpServer::~HttpServer() = default;
Status HttpServer::Listen() { return impl_->Listen(); }
uint16_t HttpServer::port() const { return impl_->port(); }
void HttpServer::Run() { impl_->Run(); }
void HttpServer::Shutdown() { impl_->Shutdown(); }

std::string_view HookHeader(const HttpRequest& request, std::string_view name) {
  for (const auto& [key, value] : request.hook_headers) {
    if (key == name) return value;
  }
  return {};
}

}  // namespace docwright
