// What `serve` and `worker` tell operators, and the prices they estimate costs
// with: serve's access log; --metrics-listen, a second HTTP server that answers GET /metrics and
// nothing else (the API's listener never serves it), with serve's collector of what is read from
// the store rather than counted; and --prices, the operator's price table, loaded once.
#pragma once

#include <spdlog/logger.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "core/status.h"
#include "core/usage.h"

namespace docwright::docs {
class CommitCache;
}  // namespace docwright::docs

namespace docwright {

class Store;
class HttpServer;
struct AccessRecord;

struct MetricsFlags {
  std::string listen;       // HOST:PORT; empty: no metrics listener
  std::string prices_file;  // empty: no price table
};

void AddMetricsOptions(CLI::App* cmd, MetricsFlags& flags);

// The access log: a line per answered request, written by a thread of its own
// so that no request waits on a disk or a terminal; when it falls behind, the
// oldest lines waiting are dropped, never a request held. Null for "off";
// `where` is "stderr" or a file to append to.
Result<std::shared_ptr<spdlog::logger>> MakeAccessLog(const std::string& where);
// One access log line: method, route pattern, status, time taken, the key's id,
// the client's address and the body's size. Never the key, the query or the body.
void LogAccess(spdlog::logger& log, const AccessRecord& r);

// Parses "HOST:PORT", "[V6]:PORT" or ":PORT" (any address).
bool ParseListen(const std::string& s, std::string* host, uint16_t* port);

// The price table of --prices (an empty table without the flag); a file that
// cannot be read or parsed is an error that stops the start. Also names the
// models metrics show by name (the default model and the table's) and sets
// the build info.
Result<std::shared_ptr<const PriceTable>> PrepareMetrics(
    const MetricsFlags& flags, const std::optional<std::string>& default_model);

// The node's cache of what depends only on a commit (--docs-cache-mb:
// `megabytes` MiB; null for 0), one per process, shared by all its turns. Its
// counts go into the metrics at every scrape for as long as it lives
// (metrics::SetDocsCache).
std::shared_ptr<docs::CommitCache> MakeDocsCache(int megabytes);

// The listener of --metrics-listen, serving on a thread of its own until
// destroyed. Thread-safe to destroy from the thread that made it.
class MetricsListener {
 public:
  // Listens as `flags.listen` says; null when it is empty. `store`, if given,
  // is read at scrapes for the queue and the budgets (at most one read of each
  // a second, however often scraped) and must outlive the listener. Start it
  // after the process's signal mask is set: its thread inherits the mask.
  static Result<std::unique_ptr<MetricsListener>> Start(const MetricsFlags& flags, Store* store);
  ~MetricsListener();
  MetricsListener(const MetricsListener&) = delete;
  MetricsListener& operator=(const MetricsListener&) = delete;

  uint16_t port() const;

 private:
  struct State;
  MetricsListener() = default;
  std::unique_ptr<State> state_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

}  // namespace docwright
