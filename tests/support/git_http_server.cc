#include "support/git_http_server.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/beast/core/detail/base64.hpp>
#include <thread>
#include <vector>

#include "support/loopback_http_server.h"

namespace docwright::testing {

namespace beast = boost::beast;

namespace {

std::string Base64(const std::string& in) {
  std::string out(beast::detail::base64::encoded_size(in.size()), '\0');
  out.resize(beast::detail::base64::encode(out.data(), in.data(), in.size()));
  return out;
}

// Runs `git http-backend` as a CGI program: the request's body on stdin, the
// response (CGI headers, blank line, body) on stdout.
std::string RunCgi(const std::vector<std::string>& env, const std::string& body) {
  // Everything the child needs is made before fork(): the child of a threaded
  // process may call only async-signal-safe functions, and a malloc there can
  // wait forever for a lock another thread held at the fork (ASan's allocator
  // does, in the tests that fetch while another thread serves).
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  char* argv[] = {const_cast<char*>("git"), const_cast<char*>("http-backend"), nullptr};
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
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
  std::atomic<int> requests{0};
  std::unique_ptr<LoopbackHttpServer> server;  // last: stops before the rest goes

  LoopbackResponse Answer(const LoopbackRequest& req) {
    ++requests;
    auto auth = req.headers.find("authorization");
    // The user names GitHub and GitLab take with a token as the password.
    if (auth == req.headers.end() ||
        (auth->second != "Basic " + Base64("x-access-token:" + token) &&
         auth->second != "Basic " + Base64("oauth2:" + token))) {
      // libgit2 re-sends with credentials on a new connection.
      return LoopbackResponse{401, {{"WWW-Authenticate", "Basic realm=\"git\""}}, "", true};
    }
    size_t q = req.target.find('?');
    std::vector<std::string> env = {
        "GIT_PROJECT_ROOT=" + root,
        "GIT_HTTP_EXPORT_ALL=1",
        "REMOTE_USER=x-access-token",
        "REQUEST_METHOD=" + req.method,
        "PATH_INFO=" + req.target.substr(0, q),
        "QUERY_STRING=" + (q == std::string::npos ? std::string() : req.target.substr(q + 1)),
        "CONTENT_LENGTH=" + std::to_string(req.body.size()),
        "PATH=/usr/bin:/bin",
    };
    if (auto ct = req.headers.find("content-type"); ct != req.headers.end()) {
      env.push_back("CONTENT_TYPE=" + ct->second);
    }
    // The CGI answer: headers (Status: among them), a blank line, the body.
    std::string cgi = RunCgi(env, req.body);
    size_t split = cgi.find("\r\n\r\n");
    size_t sep = 4;
    if (split == std::string::npos) split = cgi.find("\n\n"), sep = 2;
    LoopbackResponse res;
    std::string headers = cgi.substr(0, split);
    for (size_t start = 0; start < headers.size();) {
      size_t end = headers.find('\n', start);
      std::string line = headers.substr(start, end == std::string::npos ? end : end - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon), value = line.substr(colon + 2);
        if (name == "Status") {
          res.status = std::stoi(value);
        } else {
          res.headers.emplace_back(name, value);
        }
      }
      if (end == std::string::npos) break;
      start = end + 1;
    }
    res.body = split == std::string::npos ? std::string() : cgi.substr(split + sep);
    return res;
  }
};

GitHttpServer::GitHttpServer(std::string root, std::string token)
    : impl_(std::make_unique<Impl>()) {
  impl_->root = std::move(root);
  impl_->token = std::move(token);
  impl_->server = std::make_unique<LoopbackHttpServer>(
      [impl = impl_.get()](const LoopbackRequest& req) { return impl->Answer(req); });
}

GitHttpServer::~GitHttpServer() { impl_->server.reset(); }

uint16_t GitHttpServer::port() const { return impl_->server->port(); }
std::string GitHttpServer::Url(const std::string& repo) const {
  return impl_->server->Url("/" + repo);
}
int GitHttpServer::requests() const { return impl_->requests.load(); }

}  // namespace docwright::testing
