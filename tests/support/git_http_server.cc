#include "support/git_http_server.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detail/base64.hpp>
#include <boost/beast/http.hpp>
#include <thread>
#include <vector>

namespace docwright::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

std::string Base64(const std::string& in) {
  std::string out(beast::detail::base64::encoded_size(in.size()), '\0');
  out.resize(beast::detail::base64::encode(out.data(), in.data(), in.size()));
  return out;
}

// Runs `git http-backend` as a CGI program: the request's body on stdin, the
// response (CGI headers, blank line, body) on stdout.
std::string RunCgi(const std::vector<std::string>& env, const std::string& body) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    char* argv[] = {const_cast<char*>("git"), const_cast<char*>("http-backend"), nullptr};
    execve("/usr/bin/git", argv, envp.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  // Write the body from a thread: the backend may answer before reading it all.
  std::thread writer([&] {
    size_t off = 0;
    while (off < body.size()) {
      ssize_t n = write(in[1], body.data() + off, body.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(in[1]);
  });
  std::string response;
  char buf[65536];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) response.append(buf, n);
  close(out[0]);
  writer.join();
  int status = 0;
  waitpid(pid, &status, 0);
  return response;
}

}  // namespace

struct GitHttpServer::Impl {
  std::string root, token;
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<int> requests{0};

  void Serve(tcp::socket socket) {
    beast::flat_buffer buffer;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(256 << 20);
      beast::error_code ec;
      http::read(socket, buffer, parser, ec);
      if (ec) return;
      auto& req = parser.get();
      ++requests;
      http::response<http::string_body> res;
      res.version(11);
      res.keep_alive(req.keep_alive());
      std::string expected = "Basic " + Base64("x-access-token:" + token);
      auto auth = req.find(http::field::authorization);
      if (auth == req.end() || auth->value() != expected) {
        res.result(http::status::unauthorized);
        res.set(http::field::www_authenticate, "Basic realm=\"git\"");
        res.keep_alive(false);  // libgit2 re-sends on a new connection
      } else {
        std::string target(req.target());
        size_t q = target.find('?');
        std::vector<std::string> env = {
            "GIT_PROJECT_ROOT=" + root,
            "GIT_HTTP_EXPORT_ALL=1",
            "REMOTE_USER=x-access-token",
            "REQUEST_METHOD=" + std::string(req.method_string()),
            "PATH_INFO=" + target.substr(0, q),
            "QUERY_STRING=" + (q == std::string::npos ? std::string() : target.substr(q + 1)),
            "CONTENT_LENGTH=" + std::to_string(req.body().size()),
            "PATH=/usr/bin:/bin",
        };
        if (auto ct = req.find(http::field::content_type); ct != req.end()) {
          env.push_back("CONTENT_TYPE=" + std::string(ct->value()));
        }
        std::string cgi = RunCgi(env, req.body());
        size_t split = cgi.find("\r\n\r\n");
        size_t sep = 4;
        if (split == std::string::npos) split = cgi.find("\n\n"), sep = 2;
        res.result(http::status::ok);
        std::string headers = cgi.substr(0, split);
        for (size_t start = 0; start < headers.size();) {
          size_t end = headers.find('\n', start);
          std::string line = headers.substr(start, end == std::string::npos ? end : end - start);
          if (!line.empty() && line.back() == '\r') line.pop_back();
          size_t colon = line.find(':');
          if (colon != std::string::npos) {
            std::string name = line.substr(0, colon), value = line.substr(colon + 2);
            if (name == "Status") {
              res.result(static_cast<http::status>(std::stoi(value)));
            } else {
              res.set(name, value);
            }
          }
          if (end == std::string::npos) break;
          start = end + 1;
        }
        res.body() = split == std::string::npos ? std::string() : cgi.substr(split + sep);
      }
      res.prepare_payload();
      http::write(socket, res, ec);
      if (ec || !res.keep_alive()) return;
    }
  }
};

GitHttpServer::GitHttpServer(std::string root, std::string token) : impl_(std::make_unique<Impl>()) {
  impl_->root = std::move(root);
  impl_->token = std::move(token);
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

GitHttpServer::~GitHttpServer() {
  impl_->stopping = true;
  beast::error_code ec;
  // Wake the blocking accept with a connection of our own.
  tcp::socket poke(impl_->ioc);
  poke.connect(impl_->acceptor.local_endpoint(), ec);
  poke.close(ec);
  impl_->thread.join();
}

uint16_t GitHttpServer::port() const { return impl_->acceptor.local_endpoint().port(); }
std::string GitHttpServer::Url(const std::string& repo) const {
  return "http://127.0.0.1:" + std::to_string(port()) + "/" + repo;
}
int GitHttpServer::requests() const { return impl_->requests.load(); }

}  // namespace docwright::testing
