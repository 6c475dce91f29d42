#include "fakes/scripted_http_server.h"

#include <condition_variable>
#include <mutex>

#include "support/loopback_http_server.h"

namespace docwright::testing {

struct ScriptedHttpServer::Impl {
  std::vector<CannedResponse> script;
  size_t next = 0;
  mutable std::mutex mu;
  std::vector<RecordedRequest> requests;
  bool stopping = false;  // the server is going away: delays end
  std::condition_variable stop;
  std::unique_ptr<LoopbackHttpServer> server;  // last: stops before the rest goes

  LoopbackResponse Answer(const LoopbackRequest& req) {
    CannedResponse canned{500, {}, "script exhausted", {}};
    {
      std::lock_guard lock(mu);
      requests.push_back(RecordedRequest{req.method, req.target, req.body, req.headers});
      if (next < script.size()) canned = script[next++];
    }
    if (canned.delay.count() > 0) {
      std::unique_lock lock(mu);
      stop.wait_for(lock, canned.delay, [this] { return stopping; });
    }
    LoopbackResponse res{canned.status, {}, canned.body};
    for (auto& [k, v] : canned.headers) res.headers.emplace_back(k, v);
    return res;
  }
};

ScriptedHttpServer::ScriptedHttpServer(std::vector<CannedResponse> script)
    : impl_(std::make_unique<Impl>()) {
  impl_->script = std::move(script);
  impl_->server = std::make_unique<LoopbackHttpServer>(
      [impl = impl_.get()](const LoopbackRequest& req) { return impl->Answer(req); });
}

ScriptedHttpServer::~ScriptedHttpServer() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->stop.notify_all();
  impl_->server.reset();
}

std::string ScriptedHttpServer::Url(const std::string& path) const {
  return impl_->server->Url(path);
}

std::vector<RecordedRequest> ScriptedHttpServer::Requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->requests;
}

}  // namespace docwright::testing
