#include "cli/serve_metrics.h"

#include <spdlog/async.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "core/metrics.h"
#include "core/mutex.h"
#include "core/time.h"
#include "core/version.h"
#include "docs/commit_cache.h"
#include "http/server.h"
#include "store/store.h"

namespace docwright {

void AddMetricsOptions(CLI::App* cmd, MetricsFlags& flags) {
  cmd->add_option("--metrics-listen", flags.listen,
                  "HOST:PORT to serve GET /metrics on, in Prometheus's text format (default: "
                  "off; the API's listener never serves it)")
      ->envname("DOCWRIGHT_METRICS_LISTEN");
  cmd->add_option("--prices", flags.prices_file,
                  "a JSON price table of the models, per million tokens: turns' estimated "
                  "costs and cost budgets (docs/operations.md; default: none)")
      ->envname("DOCWRIGHT_PRICES");
}

bool ParseListen(const std::string& s, std::string* host, uint16_t* port) {
  size_t colon = s.rfind(':');
  if (colon == std::string::npos) return false;
  std::string h = s.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h.empty()) h = "0.0.0.0";
  try {
    size_t used = 0;
    int p = std::stoi(s.substr(colon + 1), &used);
    if (used != s.size() - colon - 1 || p < 0 || p > 65535) return false;
    *port = static_cast<uint16_t>(p);
  } catch (...) {
    return false;
  }
  *host = h;
  return true;
}

Result<std::shared_ptr<const PriceTable>> PrepareMetrics(
    const MetricsFlags& flags, const std::optional<std::string>& default_model) {
  auto prices = std::make_shared<PriceTable>();
  if (!flags.prices_file.empty()) {
    auto loaded = PriceTable::Load(flags.prices_file);
    if (!loaded.ok()) return Status::InvalidArgument("--prices: " + loaded.status().message());
    *prices = std::move(*loaded);
    spdlog::info("prices: {} models priced in {}", prices->Models().size(), prices->currency());
  }
  // Model labels stay few: the operator's models by name, any other as "other".
  std::vector<std::string> models = prices->Models();
  if (default_model) models.push_back(*default_model);
  metrics::AllowModelLabels(std::move(models));
  metrics::SetBuildInfo(Version());
  return std::shared_ptr<const PriceTable>(std::move(prices));
}

// The access log: a line per answered request, written by a thread of its own
// so that no request waits on a disk or a terminal; when it falls behind, the
// oldest lines waiting are dropped, never a request held. nullptr for "off".
Result<std::shared_ptr<spdlog::logger>> MakeAccessLog(const std::string& where) {
  if (where == "off") return std::shared_ptr<spdlog::logger>();
  spdlog::sink_ptr sink;
  try {
    if (where == "stderr") {
      sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    } else {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(where);  // appends
    }
  } catch (const spdlog::spdlog_ex& e) {
    return Status::InvalidArgument("--access-log must be off, stderr or a file to append to: " +
                                   std::string(e.what()));
  }
  spdlog::init_thread_pool(8192, 1);
  auto logger = std::make_shared<spdlog::async_logger>(
      "access", sink, spdlog::thread_pool(), spdlog::async_overflow_policy::overrun_oldest);
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ access %v", spdlog::pattern_time_type::utc);
  logger->flush_on(spdlog::level::info);  // each line, on the log's own thread
  return std::shared_ptr<spdlog::logger>(std::move(logger));
}

// One access log line: method, route pattern, status, time taken, the key's id,
// the client's address and the body's size. Never the key, the query or the body.
void LogAccess(spdlog::logger& log, const AccessRecord& r) {
  auto or_dash = [](std::string_view s) { return s.empty() ? std::string_view("-") : s; };
  log.info("{} {} {} {:.3f}ms key={} client={} bytes={}", or_dash(r.method), or_dash(r.route),
           r.status, static_cast<double>(r.duration.count()) / 1000.0, or_dash(r.principal),
           or_dash(r.client), r.body_bytes);
}

namespace {

// The ratio of `spent` to `budget`, when there is a budget to speak of.
void AddUse(std::vector<metrics::BudgetUse>& out, const std::string& project, const char* owner,
            const MonthlyBudget& budget, const Spend& spent) {
  if (budget.tokens && *budget.tokens > 0) {
    out.push_back({project, owner, "tokens",
                   static_cast<double>(spent.tokens) / static_cast<double>(*budget.tokens)});
  }
  if (budget.cost_micros && *budget.cost_micros > 0) {
    out.push_back(
        {project, owner, "cost",
         static_cast<double>(spent.cost_micros) / static_cast<double>(*budget.cost_micros)});
  }
}

}  // namespace

std::shared_ptr<docs::CommitCache> MakeDocsCache(int megabytes) {
  if (megabytes <= 0) return nullptr;
  // The cache and the handle of its collector live and die together; the
  // collector holds the cache weakly (a scrape may run it after the handle is
  // gone).
  struct Held {
    explicit Held(docs::CommitCache::Options o) : cache(o) {}
    docs::CommitCache cache;
    std::shared_ptr<void> collector;
  };
  auto held = std::make_shared<Held>(
      docs::CommitCache::Options{.max_bytes = static_cast<size_t>(megabytes) << 20});
  std::shared_ptr<docs::CommitCache> cache(held, &held->cache);
  std::weak_ptr<docs::CommitCache> weak = cache;
  held->collector = metrics::Default().AddCollector([weak] {
    std::shared_ptr<docs::CommitCache> c = weak.lock();
    if (!c) return;
    docs::CommitCache::Stats s = c->stats();
    metrics::SetDocsCache({.hits = s.hits,
                           .misses = s.misses,
                           .stores = s.stores,
                           .evictions = s.evictions,
                           .bytes = s.bytes,
                           .entries = s.entries});
  });
  spdlog::info("docs cache: up to {} MiB of site maps and check reports", megabytes);
  return cache;
}

// serve's collector: the queue and the budgets, read from the store at most
// once a second whatever the scrape rate; between reads (and when a read
// fails) the last values stand.
struct MetricsListener::State {
  // Set once, before the collector is added.
  Store* store = nullptr;
  Mutex mu;  // one read at a time; scrapes that overlap wait for it
  std::chrono::steady_clock::time_point last_read GUARDED_BY(mu){};
  bool read_once GUARDED_BY(mu) = false;
  std::shared_ptr<void> collector;

  void Collect() EXCLUDES(mu) {
    MutexLock lock(mu);
    auto now = std::chrono::steady_clock::now();
    if (read_once && now - last_read < std::chrono::seconds(1)) return;
    read_once = true;
    last_read = now;
    UnixMillis wall = NowMillis();
    if (auto queue = store->GetQueueStats(); queue.ok()) {
      double age =
          queue->oldest_queued_at
              ? std::max<double>(0, static_cast<double>(wall - *queue->oldest_queued_at) / 1000.0)
              : 0;
      metrics::SetQueue(queue->queued, age);
    } else {
      spdlog::warn("metrics: cannot read the queue: {}", queue.status().message());
    }
    if (auto uses = store->ListBudgetUse(MonthStart(wall)); uses.ok()) {
      std::vector<metrics::BudgetUse> out;
      for (const ProjectBudgetUse& u : *uses) {
        AddUse(out, u.project_id, "project", u.project_budget, u.spent.project);
        AddUse(out, u.project_id, "organisation", u.organisation_budget, u.spent.organisation);
      }
      metrics::SetBudgetUse(out);
    } else {
      spdlog::warn("metrics: cannot read the budgets: {}", uses.status().message());
    }
  }
};

Result<std::unique_ptr<MetricsListener>> MetricsListener::Start(const MetricsFlags& flags,
                                                                Store* store) {
  if (flags.listen.empty()) return std::unique_ptr<MetricsListener>();
  HttpServerOptions so;
  if (!ParseListen(flags.listen, &so.host, &so.port)) {
    return Status::InvalidArgument("--metrics-listen must be HOST:PORT, got " + flags.listen);
  }
  // Scrapes are few: one thread of each kind, small limits.
  so.io_threads = so.blocking_threads = so.read_threads = 1;
  so.body_limit = 1024;
  so.max_connections = 64;
  so.handle_signals = false;  // the node's own listener or sigwait has them
  std::unique_ptr<MetricsListener> l(new MetricsListener());
  l->state_ = std::make_unique<State>();
  if (store) {
    l->state_->store = store;
    State* state = l->state_.get();
    l->state_->collector = metrics::Default().AddCollector([state] { state->Collect(); });
  }
  HttpHandlers handlers;
  handlers.handle = [](HttpRequest& r) {
    std::string_view path(r.target);
    path = path.substr(0, path.find('?'));
    if (r.method != "GET" || path != "/metrics") {
      return ErrorResponse(404, "not found: this listener serves GET /metrics only", "not_found");
    }
    r.route = "/metrics";
    HttpResponse response;
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = metrics::Default().Render();
    return response;
  };
  l->server_ = std::make_unique<HttpServer>(so, std::move(handlers));
  if (Status s = l->server_->Listen(); !s.ok()) {
    return Status::Unavailable("--metrics-listen: " + s.message());
  }
  HttpServer* server = l->server_.get();
  l->thread_ = std::thread([server] { server->Run(); });
  spdlog::info("metrics on http://{}:{}/metrics",
               so.host.find(':') != std::string::npos ? "[" + so.host + "]" : so.host, l->port());
  return l;
}

MetricsListener::~MetricsListener() {
  if (server_) server_->Shutdown();
  if (thread_.joinable()) thread_.join();
  state_.reset();  // the collector's handle first goes with it
}

uint16_t MetricsListener::port() const { return server_->port(); }

}  // namespace docwright
