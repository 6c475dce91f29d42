#include "git/socket_stream.h"

#include <git2.h>
#include <git2/sys/stream.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <stop_token>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/mutex.h"

namespace docwright::git {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {
// Short enough that a cancel is noticed within about a second even when a
// connection waits; long enough to cost nothing.
constexpr milliseconds kSlice(250);

milliseconds Until(Clock::time_point t) {
  return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(t - Clock::now()));
}
}  // namespace

std::string FormatSeconds(milliseconds d) {
  char text[32];
  if (d.count() % 1000 == 0) {
    std::snprintf(text, sizeof text, "%lld s", static_cast<long long>(d.count() / 1000));
  } else {
    std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(d.count()) / 1000.0);
  }
  return text;
}

class Connection;

// What one TransferScope shares with its connections and its watchdog.
class TransferContext {
 public:
  TransferContext(const TransferLimits& limits, std::function<bool()> cancelled)
      : limits_(limits),
        cancelled_(std::move(cancelled)),
        deadline_(Clock::now() + limits.transfer_timeout) {}
  ~TransferContext() { End(); }

  const TransferLimits& limits() const { return limits_; }
  Clock::time_point deadline() const { return deadline_; }

  // Why this scope must stop, asking the cancel check and the clock now; empty
  // while it may go on.
  std::string Check() EXCLUDES(mu_) {
    if (std::string why = stopped(); !why.empty()) return why;
    if (cancelled_ && cancelled_()) {
      Stop("cancelled", /*by_cancel=*/true);
    } else if (Clock::now() >= deadline_) {
      Stop("the transfer took longer than its limit of " + FormatSeconds(limits_.transfer_timeout));
    }
    return stopped();
  }

  // Records the first reason and wakes every connection of the scope: a
  // connection libssh2 waits on learns of it only from its socket.
  void Stop(const std::string& why, bool by_cancel = false) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    if (!why_.empty()) return;
    why_ = why;
    by_cancel_ = by_cancel;
    for (int fd : FdsLocked()) ::shutdown(fd, SHUT_RDWR);
  }

  std::string stopped() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return why_;
  }
  bool cancelled() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return by_cancel_;
  }

  // A connected socket, watched until Remove; starts the watchdog.
  void Add(Connection* connection, const std::string& host, const std::string& port) EXCLUDES(mu_);
  std::optional<std::pair<std::string, std::string>> last_connected() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return last_connected_;
  }
  void Remove(Connection* connection) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    std::erase(live_, connection);
  }

  // Stops and joins the watchdog, after which the cancel check is not called
  // from it; connections still open keep the limits.
  void End() EXCLUDES(mu_) {
    std::jthread watchdog;
    {
      MutexLock lock(mu_);
      ended_ = true;
      watchdog = std::move(watchdog_);
    }
    if (watchdog.joinable()) {
      watchdog.request_stop();
      wake_.notify_all();
      watchdog.join();
    }
  }

 private:
  std::vector<int> FdsLocked() const REQUIRES(mu_);
  void Watch(std::stop_token stop) EXCLUDES(mu_);
  // One look at the connections: shuts down what has broken a limit.
  void Inspect() EXCLUDES(mu_);

  const TransferLimits limits_;
  // Set once, called from the scope's thread and the watchdog: the caller
  // promises it is thread-safe.
  const std::function<bool()> cancelled_;
  const Clock::time_point deadline_;
  mutable Mutex mu_;
  std::condition_variable_any wake_;
  std::string why_ GUARDED_BY(mu_);
  bool by_cancel_ GUARDED_BY(mu_) = false;
  bool ended_ GUARDED_BY(mu_) = false;
  std::vector<Connection*> live_ GUARDED_BY(mu_);
  std::optional<std::pair<std::string, std::string>> last_connected_ GUARDED_BY(mu_);
  std::jthread watchdog_ GUARDED_BY(mu_);  // last: stopped before the members it reads go
};

namespace {
// Which scope this thread's new connections belong to (see socket_stream.h:
// libgit2 gives a stream no payload).
thread_local std::shared_ptr<TransferContext> t_scope;

// libgit2's own socket stream (git_socket_stream, streams/socket.h; the same
// from 0.28 through 1.7). Its SSH transport does not use a stream's read and
// write: it takes the socket out of this layout and gives it to libssh2. So
// ours starts with the same fields, for that socket to be ours.
struct SocketStreamLayout {
  git_stream parent;
  char* host;
  char* port;
  int socket;
};
}  // namespace

// One TCP connection of libgit2's. libgit2 holds it as &handle_.layout.parent
// and gives it back through the callbacks below.
class Connection {
 public:
  Connection(std::string host, std::string port, std::shared_ptr<TransferContext> context)
      : host_(std::move(host)), port_(std::move(port)), context_(std::move(context)) {
    git_stream& s = handle_.layout.parent;
    s.version = GIT_STREAM_VERSION;
    s.connect = [](git_stream* st) { return From(st)->Connect(); };
    s.read = [](git_stream* st, void* data, size_t len) { return From(st)->Read(data, len); };
    s.write = [](git_stream* st, const char* data, size_t len, int) {
      return From(st)->Write(data, len);
    };
    s.close = [](git_stream* st) { return From(st)->Close(); };
    s.free = [](git_stream* st) { std::unique_ptr<Connection> owned(From(st)); };
    handle_.layout.host = host_.data();
    handle_.layout.port = port_.data();
    handle_.layout.socket = -1;
    handle_.owner = this;
  }
  ~Connection() { Close(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  git_stream* stream() { return &handle_.layout.parent; }

  // For the watchdog, under the context's lock (the socket is not closed
  // before Remove).
  int fd() const { return fd_; }
  Clock::time_point connected_at() const { return connected_at_; }
  // Whether libgit2 reads and writes through this stream (then the waits below
  // keep the limits), or only took its socket (SSH: the watchdog must).
  bool streamed() const { return streamed_.load(std::memory_order_relaxed); }

 private:
  struct Handle {
    SocketStreamLayout layout;
    Connection* owner;
  };
  static_assert(std::is_standard_layout_v<Handle>);

  static Connection* From(git_stream* stream) {
    // `parent` starts `layout`, which starts the standard-layout Handle.
    return reinterpret_cast<Handle*>(stream)->owner;
  }

  static int Fail(const std::string& why) {
    git_error_set_str(GIT_ERROR_NET, why.c_str());
    return -1;
  }

  // Waits up to `limit` (and never past the scope's deadline) for `events`,
  // one slice at a time, asking the scope between slices. 1 when ready, 0 when
  // `limit` passed, -1 (libgit2 error set) when the scope must stop.
  int Await(short events, Clock::time_point limit) {
    for (;;) {
      if (std::string why = context_->Check(); !why.empty()) return Fail(why);
      milliseconds left = std::min(Until(limit), Until(context_->deadline()));
      if (Clock::now() >= limit) return 0;
      pollfd p{fd_, events, 0};
      int n = ::poll(&p, 1, static_cast<int>(std::min(left, kSlice).count()));
      if (n > 0) return 1;
      if (n < 0 && errno != EINTR)
        return Fail(std::string("cannot wait for the remote: ") + std::strerror(errno));
    }
  }

  // A non-blocking connect to one address: true when connected; otherwise
  // `problem` says why, and -1 in `stop` means the scope must stop.
  bool ConnectTo(const addrinfo& a, std::string* problem, int* stop) {
    int fd = ::socket(a.ai_family, a.ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a.ai_protocol);
    if (fd < 0) {
      *problem = std::strerror(errno);
      return false;
    }
    fd_ = fd;
    auto give_up = [&] {
      ::close(fd_);
      fd_ = -1;
      return false;
    };
    if (::connect(fd_, a.ai_addr, a.ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        *problem = std::strerror(errno);
        return give_up();
      }
      int ready = Await(POLLOUT, Clock::now() + context_->limits().connect_timeout);
      if (ready < 0) {
        *stop = -1;
        return give_up();
      }
      if (ready == 0) {
        *problem = "no answer within " + FormatSeconds(context_->limits().connect_timeout);
        return give_up();
      }
      int error = 0;
      socklen_t size = sizeof error;
      if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &size) != 0) error = errno;
      if (error != 0) {
        *problem = std::strerror(error);
        return give_up();
      }
    }
    return true;
  }

  int Connect() {
    if (std::string why = context_->Check(); !why.empty()) return Fail(why);
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_family = AF_UNSPEC;
    addrinfo* found = nullptr;
    // Name resolution has the resolver's own bounded timeouts (resolv.conf).
    if (int rc = ::getaddrinfo(host_.c_str(), port_.c_str(), &hints, &found); rc != 0) {
      return Fail("cannot resolve " + host_ + ": " + ::gai_strerror(rc));
    }
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, ::freeaddrinfo);
    std::string problem = "no address";
    for (const addrinfo* a = found; a; a = a->ai_next) {
      int stop = 0;
      if (ConnectTo(*a, &problem, &stop)) {
        handle_.layout.socket = fd_;
        connected_at_ = Clock::now();
        context_->Add(this, host_, port_);
        return 0;
      }
      if (stop) return -1;
    }
    return Fail("cannot connect to " + host_ + ":" + port_ + ": " + problem);
  }

  // One recv or send that moves at least one byte, waiting for at most the
  // idle timeout for the remote to send or take some.
  template <typename Io>
  ssize_t Move(short events, const char* idle_words, Io io) {
    streamed_.store(true, std::memory_order_relaxed);
    if (fd_ < 0) return Fail("the connection to the remote is closed");
    Clock::time_point idle_limit = Clock::now() + context_->limits().idle_timeout;
    for (;;) {
      if (std::string why = context_->Check(); !why.empty()) return Fail(why);
      ssize_t n = io();
      if (n > 0) return n;
      if (n == 0) {
        // The remote closed, or the watchdog shut the socket: say why if so.
        if (std::string why = context_->stopped(); !why.empty()) return Fail(why);
        return 0;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        if (std::string why = context_->stopped(); !why.empty()) return Fail(why);
        return Fail(std::string("the connection to the remote failed: ") + std::strerror(errno));
      }
      int ready = Await(events, idle_limit);
      if (ready < 0) return -1;
      if (ready == 0) {
        context_->Stop(std::string(idle_words) + FormatSeconds(context_->limits().idle_timeout));
        return Fail(context_->stopped());
      }
    }
  }

  ssize_t Read(void* data, size_t len) {
    return Move(POLLIN, "the remote sent nothing for ", [&] { return ::recv(fd_, data, len, 0); });
  }

  ssize_t Write(const char* data, size_t len) {
    if (len == 0) return 0;  // nothing to move: not a reason to wait
    // MSG_NOSIGNAL: a remote that hung up is an error here, not a SIGPIPE.
    return Move(POLLOUT, "the remote accepted nothing for ",
                [&] { return ::send(fd_, data, len, MSG_NOSIGNAL); });
  }

  int Close() {
    if (fd_ < 0) return 0;
    context_->Remove(this);  // before the number can be reused
    int rc = ::close(fd_);
    fd_ = -1;
    handle_.layout.socket = -1;
    return rc == 0 ? 0 : Fail(std::string("cannot close the connection: ") + std::strerror(errno));
  }

  Handle handle_{};
  std::string host_;
  std::string port_;
  std::shared_ptr<TransferContext> context_;
  int fd_ = -1;
  Clock::time_point connected_at_;
  std::atomic<bool> streamed_{false};
};

void TransferContext::Add(Connection* connection, const std::string& host,
                          const std::string& port) {
  MutexLock lock(mu_);
  live_.push_back(connection);
  last_connected_.emplace(host, port);
  if (!why_.empty()) ::shutdown(connection->fd(), SHUT_RDWR);
  if (!ended_ && !watchdog_.joinable()) {
    watchdog_ = std::jthread([this](std::stop_token stop) { Watch(stop); });
  }
}

std::vector<int> TransferContext::FdsLocked() const {
  std::vector<int> fds;
  for (const Connection* c : live_) fds.push_back(c->fd());
  return fds;
}

void TransferContext::Watch(std::stop_token stop) {
  while (!stop.stop_requested()) {
    {
      MutexLock lock(mu_);
      const auto deadline = Clock::now() + kSlice;
      while (!stop.stop_requested() && lock.WaitUntil(wake_, stop, deadline)) {
      }
    }
    if (stop.stop_requested()) return;
    Inspect();
  }
}

void TransferContext::Inspect() {
  // Only connections libgit2 does not read through need watching: the others
  // keep the limits (and ask the cancel check) on the caller's thread. One
  // just opened may not have been read yet: it gets a slice to show which it is.
  Clock::time_point now = Clock::now();
  auto unwatched = [&](const Connection* c) {
    return !c->streamed() && now - c->connected_at() >= kSlice;
  };
  {
    MutexLock lock(mu_);
    if (std::none_of(live_.begin(), live_.end(), unwatched)) return;
  }
  if (!Check().empty()) return;  // Stop has shut every connection down
  MutexLock lock(mu_);
  for (const Connection* c : live_) {
    if (!unwatched(c)) continue;
    // libssh2 works the socket itself: the kernel's record of the last data in
    // either direction is the only sign of progress.
    tcp_info info{};
    socklen_t size = sizeof info;
    if (::getsockopt(c->fd(), IPPROTO_TCP, TCP_INFO, &info, &size) != 0) continue;
    milliseconds quiet(std::min(info.tcpi_last_data_recv, info.tcpi_last_data_sent));
    Clock::time_point last = std::max(c->connected_at(), now - quiet);
    if (now - last >= limits_.idle_timeout && why_.empty()) {
      why_ = "the remote sent nothing for " + FormatSeconds(limits_.idle_timeout);
      for (int fd : FdsLocked()) ::shutdown(fd, SHUT_RDWR);
      return;
    }
  }
}

TransferScope::TransferScope(const TransferLimits& limits, std::function<bool()> cancelled)
    : context_(std::make_shared<TransferContext>(limits, std::move(cancelled))),
      previous_(std::exchange(t_scope, context_)) {}

TransferScope::~TransferScope() {
  t_scope = std::move(previous_);
  context_->End();
}

std::string TransferScope::stopped() const { return context_->stopped(); }
bool TransferScope::cancelled() const { return context_->cancelled(); }
std::optional<std::pair<std::string, std::string>> TransferScope::last_connected() const {
  return context_->last_connected();
}

namespace {
int NewConnection(git_stream** out, const char* host, const char* port) {
  try {
    std::shared_ptr<TransferContext> context = t_scope;
    if (!context) context = std::make_shared<TransferContext>(TransferLimits{}, nullptr);
    auto connection = std::make_unique<Connection>(host, port, std::move(context));
    *out = connection.release()->stream();  // libgit2 frees it through its `free`
    return 0;
  } catch (const std::exception& e) {
    git_error_set_str(GIT_ERROR_NET, e.what());
    return -1;
  }
}
}  // namespace

Status RegisterSocketStream() {
  // The registry is libgit2's own process-wide table, so this is one-time
  // process state by nature; git_stream_register copies the registration.
  static const int rc = [] {
    git_stream_registration registration{};
    registration.version = GIT_STREAM_VERSION;
    registration.init = NewConnection;
    return git_stream_register(GIT_STREAM_STANDARD, &registration);
  }();
  if (rc != 0) {
    const git_error* e = git_error_last();
    return Status::Internal(std::string("cannot install the git socket stream: ") +
                            (e && e->message ? e->message : "unknown error"));
  }
  return Status();
}

}  // namespace docwright::git
