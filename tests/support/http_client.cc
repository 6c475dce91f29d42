#include "support/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace docwright::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

nlohmann::json HttpResult::Json() const {
  return nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
}

std::string HttpResult::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

int ConnectLoopback(uint16_t port, std::chrono::seconds read_timeout, const char* source) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (source) {
    sockaddr_in local{};
    local.sin_family = AF_INET;
    if (inet_pton(AF_INET, source, &local.sin_addr) != 1 ||
        bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
      close(fd);
      return -1;
    }
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  timeval tv{static_cast<time_t>(read_timeout.count()), 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

struct HttpClient::Impl {
  uint16_t port;
  net::io_context ioc;
  std::optional<beast::tcp_stream> stream;
  beast::flat_buffer buffer;

  bool Connect() {
    stream.emplace(ioc);
    beast::error_code ec;
    stream->socket().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
    buffer.clear();
    return !ec;
  }

  HttpResult Read(bool head_request = false) {
    HttpResult out;
    http::response_parser<http::string_body> parser;
    parser.skip(head_request);  // a response to HEAD has no body, whatever its length says
    parser.body_limit(64 << 20);
    beast::error_code ec;
    http::read(*stream, buffer, parser, ec);
    if (ec) {
      stream.reset();
      return out;
    }
    auto& res = parser.get();
    out.status = res.result_int();
    out.body = res.body();
    for (auto& field : res) {
      std::string name(field.name_string());
      for (auto& c : name) c = static_cast<char>(std::tolower(c));
      out.headers[name] = std::string(field.value());
    }
    if (!res.keep_alive()) stream.reset();
    return out;
  }
};

HttpClient::HttpClient(uint16_t port) : impl_(std::make_unique<Impl>()) { impl_->port = port; }
HttpClient::~HttpClient() = default;

HttpResult HttpClient::Send(const std::string& method, const std::string& target,
                            const std::string& body,
                            const std::vector<std::pair<std::string, std::string>>& headers) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!impl_->stream) {
      if (!impl_->Connect()) return {};
      ++connections_;
    }
    http::request<http::string_body> req;
    req.method_string(method);
    req.target(target);
    req.version(11);
    req.set(http::field::host, "127.0.0.1");
    for (auto& [k, v] : headers) req.set(k, v);
    req.body() = body;
    if (!body.empty() || method == "POST") req.prepare_payload();
    beast::error_code ec;
    http::write(*impl_->stream, req, ec);
    if (ec) {
      impl_->stream.reset();  // the server closed an idle connection: retry once
      continue;
    }
    HttpResult r = impl_->Read(method == "HEAD");
    if (r.status != 0 || attempt == 1) {
      if (check_) check_(method, target, r);
      return r;
    }
  }
  return {};
}

HttpResult HttpClient::SendRaw(const std::string& bytes) {
  if (!impl_->Connect()) return {};
  ++connections_;
  beast::error_code ec;
  net::write(impl_->stream->socket(), net::buffer(bytes), ec);
  if (ec) return {};
  HttpResult r = impl_->Read();
  if (check_) check_("", bytes, r);
  return r;
}

}  // namespace docwright::testing
