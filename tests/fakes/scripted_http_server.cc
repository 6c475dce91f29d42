#include "fakes/scripted_http_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <atomic>
#include <mutex>
#include <thread>

namespace docwright::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

struct ScriptedHttpServer::Impl {
  std::vector<CannedResponse> script;
  size_t next = 0;
  mutable std::mutex mu;
  std::vector<RecordedRequest> requests;
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::atomic<bool> stopping{false};
  std::thread thread;

  void Serve(tcp::socket socket) {
    beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> req;
      beast::error_code ec;
      http::read(socket, buffer, req, ec);
      if (ec) return;
      CannedResponse canned{500, {}, "script exhausted", {}};
      {
        std::lock_guard lock(mu);
        RecordedRequest rec{std::string(req.method_string()), std::string(req.target()), req.body(), {}};
        for (auto& f : req) {
          std::string name(f.name_string());
          for (auto& c : name) c = static_cast<char>(std::tolower(c));
          rec.headers[name] = std::string(f.value());
        }
        requests.push_back(std::move(rec));
        if (next < script.size()) canned = script[next++];
      }
      std::this_thread::sleep_for(canned.delay);
      http::response<http::string_body> res{static_cast<http::status>(canned.status), 11};
      for (auto& [k, v] : canned.headers) res.set(k, v);
      res.body() = canned.body;
      res.keep_alive(req.keep_alive());
      res.prepare_payload();
      http::write(socket, res, ec);
      if (ec || !req.keep_alive()) return;
    }
  }
};

ScriptedHttpServer::ScriptedHttpServer(std::vector<CannedResponse> script)
    : impl_(std::make_unique<Impl>()) {
  impl_->script = std::move(script);
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
      connections.emplace_back([impl, s = std::move(socket)]() mutable { impl->Serve(std::move(s)); });
    }
    for (auto& c : connections) c.join();
  });
}

ScriptedHttpServer::~ScriptedHttpServer() {
  impl_->stopping = true;
  beast::error_code ec;
  tcp::socket poke(impl_->ioc);
  poke.connect(impl_->acceptor.local_endpoint(), ec);
  poke.close(ec);
  impl_->thread.join();
}

std::string ScriptedHttpServer::Url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(impl_->acceptor.local_endpoint().port()) + path;
}

std::vector<RecordedRequest> ScriptedHttpServer::Requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->requests;
}

}  // namespace docwright::testing
