#include "fakes/scripted_http_server.h"

#include <mutex>
#include <thread>

#include "support/loopback_http_server.h"

namespace docwright::testing {

struct ScriptedHttpServer::Impl {
  std::vector<CannedResponse> script;
  size_t next = 0;
  mutable std::mutex mu;
  std::vector<RecordedRequest> requests;
  std::unique_ptr<LoopbackHttpServer> server;  // last: stops before the rest goes

  LoopbackResponse Answer(const LoopbackRequest& req) {
    CannedResponse canned{500, {}, "script exhausted", {}};
    {
      std::lock_guard lock(mu);
      requests.push_back(RecordedRequest{req.method, req.target, req.body, req.headers});
      if (next < script.size()) canned = script[next++];
    }
    std::this_thread::sleep_for(canned.delay);
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

ScriptedHttpServer::~ScriptedHttpServer() { impl_->server.reset(); }

std::string ScriptedHttpServer::Url(const std::string& path) const {
  return impl_->server->Url(path);
}

std::vector<RecordedRequest> ScriptedHttpServer::Requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->requests;
}

}  // namespace docwright::testing
