#include "store/postgres/listener.h"

#include <poll.h>

#include <atomic>
#include <condition_variable>
#include <thread>
#include <vector>

#include "core/mutex.h"

namespace docwright::postgres {

class Listener::Impl {
 public:
  Impl(std::string url, ConnectOptions options) : url_(std::move(url)), options_(options) {}

  Status Connect() {
    auto opened = Connection::Open(url_, options_);
    if (!opened.ok()) return opened.status();
    Status s = (*opened)->ExecScript("LISTEN docwright");
    if (!s.ok()) return s;
    conn_ = std::move(*opened);
    hearing_.store(true);
    return Status();
  }

  void Run() EXCLUDES(mu_) {
    std::chrono::milliseconds backoff{100};
    auto heard_at = std::chrono::steady_clock::now();
    while (!stopping()) {
      if (!conn_) {
        if (Connect().ok()) {
          backoff = std::chrono::milliseconds(100);
          Tell([](const StoreWatcher& w) {
            if (w.hearing) w.hearing(true);
          });
        } else {
          Sleep(backoff);
          backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
          continue;
        }
      }
      pollfd fd{.fd = PQsocket(conn_->raw()), .events = POLLIN, .revents = 0};
      int ready = fd.fd < 0 ? -1 : ::poll(&fd, 1, 200);
      bool lost = ready < 0 && errno != EINTR;
      if (ready > 0 && PQconsumeInput(conn_->raw()) == 0) lost = true;
      auto now = std::chrono::steady_clock::now();
      if (ready > 0) {
        heard_at = now;
      } else if (!lost && now - heard_at >= std::chrono::seconds(5)) {
        // Quiet for a while: make sure the server is still there.
        lost = !conn_->ExecScript("SELECT 1").ok();
        heard_at = now;
      }
      if (!lost && PQstatus(conn_->raw()) != CONNECTION_OK) lost = true;
      if (lost) {
        conn_.reset();
        hearing_.store(false);
        Tell([](const StoreWatcher& w) {
          if (w.hearing) w.hearing(false);
        });
        continue;
      }
      while (PGnotify* n = PQnotifies(conn_->raw())) {
        std::string payload = n->extra ? n->extra : "";
        PQfreemem(n);
        Dispatch(payload);
      }
    }
  }

  void Dispatch(const std::string& payload) EXCLUDES(mu_) {
    if (payload == "t") {
      Tell([](const StoreWatcher& w) {
        if (w.turn_queued) w.turn_queued();
      });
    } else if (payload == "k") {
      Tell([](const StoreWatcher& w) {
        if (w.keys_changed) w.keys_changed();
      });
    } else if (payload == "w") {
      Tell([](const StoreWatcher& w) {
        if (w.webhook_deliveries) w.webhook_deliveries();
      });
    } else if (payload.size() > 2 &&
               (payload[0] == 'j' || payload[0] == 'a' || payload[0] == 'e') && payload[1] == ':') {
      std::string job_id = payload.substr(2);
      bool archived = payload[0] == 'a';
      bool events = payload[0] == 'e';
      Tell([&](const StoreWatcher& w) {
        if (w.job_changed) w.job_changed(job_id);
        if (archived && w.job_archived) w.job_archived(job_id);
        if (events && w.job_events) w.job_events(job_id);
      });
    }
  }

  template <typename Fn>
  void Tell(Fn&& fn) EXCLUDES(mu_) {
    std::vector<StoreWatcher> watchers;
    {
      MutexLock lock(mu_);
      watchers = watchers_;
    }
    for (const auto& w : watchers) fn(w);
  }

  void Sleep(std::chrono::milliseconds d) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() + d;
    while (!stop_ && lock.WaitUntil(stop_cv_, deadline)) {
    }
  }
  bool stopping() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return stop_;
  }
  void Stop() EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      stop_ = true;
    }
    stop_cv_.notify_all();
  }

  const std::string url_;
  const ConnectOptions options_;
  std::unique_ptr<Connection> conn_;  // the listening thread's only
  std::atomic<bool> hearing_{false};
  Mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  std::vector<StoreWatcher> watchers_ GUARDED_BY(mu_);
  std::thread thread_;  // set by Start, joined by ~Listener
};

Result<std::unique_ptr<Listener>> Listener::Start(const std::string& url,
                                                  const ConnectOptions& options) {
  auto impl = std::make_shared<Impl>(url, options);
  Status s = impl->Connect();
  if (!s.ok()) return s;
  impl->thread_ = std::thread([impl = impl.get()] { impl->Run(); });
  return std::unique_ptr<Listener>(new Listener(std::move(impl)));
}

Listener::Listener(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Listener::~Listener() {
  impl_->Stop();
  if (impl_->thread_.joinable()) impl_->thread_.join();
}

void Listener::Add(StoreWatcher watcher) {
  // One that arrives while the connection is down hears so at once.
  if (!impl_->hearing_.load() && watcher.hearing) watcher.hearing(false);
  MutexLock lock(impl_->mu_);
  impl_->watchers_.push_back(std::move(watcher));
}

bool Listener::hearing() const { return impl_->hearing_.load(); }

}  // namespace docwright::postgres
