#include "support/loopback_http_server.h"

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

#include <sys/socket.h>

namespace docwright::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

struct LoopbackHttpServer::Impl {
  Handler handler;
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::atomic<bool> stopping{false};
  std::atomic<size_t> accepted{0};
  std::thread thread;
  // Connections being served: shut down when the server goes, so a client
  // that keeps one alive (curl does) cannot hold the destructor.
  std::mutex mu;
  std::set<int> open_fds;

  // Writes `out` as a chunked stream, piece by piece.
  void Stream(tcp::socket& socket, const LoopbackResponse& out) {
    std::string head = "HTTP/1.1 " + std::to_string(out.status) + " " +
                       std::string(http::obsolete_reason(static_cast<http::status>(out.status))) +
                       "\r\n";
    for (const auto& [k, v] : out.headers) head += k + ": " + v + "\r\n";
    head += "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    beast::error_code ec;
    net::write(socket, net::buffer(head), ec);
    for (const LoopbackResponse::Piece& piece : out.stream) {
      auto until = std::chrono::steady_clock::now() + piece.delay;
      while (!stopping && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      if (ec || piece.bytes.empty()) continue;
      char size[32];
      std::snprintf(size, sizeof size, "%zx\r\n", piece.bytes.size());
      net::write(socket, net::buffer(std::string(size) + piece.bytes + "\r\n"), ec);
    }
    if (!ec && !out.broken) net::write(socket, net::buffer(std::string("0\r\n\r\n")), ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  void Serve(tcp::socket socket) {
    {
      std::lock_guard lock(mu);
      if (stopping) return;
      open_fds.insert(socket.native_handle());
    }
    struct Forget {
      Impl* impl;
      int fd;
      ~Forget() {
        std::lock_guard lock(impl->mu);
        impl->open_fds.erase(fd);
      }
    } forget{this, socket.native_handle()};
    beast::flat_buffer buffer;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(256 << 20);
      beast::error_code ec;
      http::read(socket, buffer, parser, ec);
      if (ec) return;
      auto& req = parser.get();
      LoopbackRequest in{
          std::string(req.method_string()), std::string(req.target()), req.body(), {}};
      for (auto& f : req) {
        std::string name(f.name_string());
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        in.headers[name] = std::string(f.value());
      }
      LoopbackResponse out = handler(in);
      if (!out.stream.empty()) return Stream(socket, out);
      http::response<http::string_body> res{static_cast<http::status>(out.status), 11};
      for (auto& [k, v] : out.headers) res.set(k, v);
      res.body() = std::move(out.body);
      res.keep_alive(req.keep_alive() && !out.close);
      res.prepare_payload();
      http::write(socket, res, ec);
      if (!ec && out.hang_up) socket.shutdown(tcp::socket::shutdown_both, ec);
      if (ec || !res.keep_alive() || out.hang_up) return;
    }
  }
};

LoopbackHttpServer::LoopbackHttpServer(Handler handler) : impl_(std::make_unique<Impl>()) {
  impl_->handler = std::move(handler);
  tcp::endpoint ep(net::ip::make_address("127.0.0.1"), 0);
  impl_->acceptor.open(ep.protocol());
  impl_->acceptor.bind(ep);
  impl_->acceptor.listen();
  impl_->thread = std::thread([impl = impl_.get()] {
    std::vector<std::thread> connections;
    while (!impl->stopping) {
      beast::error_code ec;
      tcp::socket socket(impl->ioc);
      impl->acceptor.accept(socket, ec);
      if (ec || impl->stopping) break;
      ++impl->accepted;
      connections.emplace_back(
          [impl, s = std::move(socket)]() mutable { impl->Serve(std::move(s)); });
    }
    for (auto& c : connections) c.join();
  });
}

LoopbackHttpServer::~LoopbackHttpServer() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
    for (int fd : impl_->open_fds) ::shutdown(fd, SHUT_RDWR);
  }
  beast::error_code ec;
  // Wake the blocking accept with a connection of our own.
  tcp::socket poke(impl_->ioc);
  poke.connect(impl_->acceptor.local_endpoint(), ec);
  poke.close(ec);
  impl_->thread.join();
}

size_t LoopbackHttpServer::connections() const { return impl_->accepted; }

uint16_t LoopbackHttpServer::port() const { return impl_->acceptor.local_endpoint().port(); }

std::string LoopbackHttpServer::Url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port()) + path;
}

}  // namespace docwright::testing
