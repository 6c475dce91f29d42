// Metrics in the Prometheus text exposition format (version 0.0.4): counters,
// gauges and histograms in labelled families, one registry per process, served
// by `serve --metrics-listen` at GET /metrics (cli/serve_command.cc) and never
// with the API.
//
// Every metric docwright has is declared in one place, the catalog at the end of
// this header (implemented in core/metrics.cc, listed in docs/operations.md);
// the code that does the work calls its Record function. Label values are
// bounded: route patterns (never a path as sent), outcomes, kinds, providers,
// model names the operator configured (AllowModelLabels; any other is "other")
// and project ids, never a job id, a prompt, a key or a repository URL. A family
// keeps at most kMaxSeries label sets; past that, new ones are counted under
// every label "other".
//
// Thread-safe: any thread may record at any time; recording takes no lock
// once the thread has recorded into that label set (a cache of its own), and
// allocates only for a new one.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"

namespace docwright::metrics {

// Label sets a family keeps, at most.
inline constexpr size_t kMaxSeries = 2000;

class Family;

// A family of one kind: its name (`docwright_...`), help text, label names, and
// for histograms the bucket bounds. Made by the Registry; lives as long as it.
class Counter {
 public:
  void Add(std::initializer_list<std::string_view> labels, double by = 1);
  // For a count kept elsewhere and read at each scrape (a cache's hits), which
  // only grows: the series becomes it.
  void Set(std::initializer_list<std::string_view> labels, double value);

 private:
  friend class Registry;
  explicit Counter(Family* family) : family_(family) {}
  Family* family_;
};

class Gauge {
 public:
  void Set(std::initializer_list<std::string_view> labels, double value);
  void Add(std::initializer_list<std::string_view> labels, double by);
  // Forgets every label set: for gauges set whole at each scrape, by the one
  // thread that sets them (a Set racing a Clear of the same gauge is a bug).
  void Clear();

 private:
  friend class Registry;
  explicit Gauge(Family* family) : family_(family) {}
  Family* family_;
};

class Histogram {
 public:
  void Observe(std::initializer_list<std::string_view> labels, double value);

 private:
  friend class Registry;
  explicit Histogram(Family* family) : family_(family) {}
  Family* family_;
};

// Bucket bounds (seconds) for durations from a millisecond to ten minutes.
std::vector<double> DurationBuckets();

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Families, made once by name; the name must match [a-zA-Z_:][a-zA-Z0-9_:]*
  // and each label name [a-zA-Z_][a-zA-Z0-9_]* (a bug otherwise: aborts).
  Counter& MakeCounter(std::string name, std::string help, std::vector<std::string> labels);
  Gauge& MakeGauge(std::string name, std::string help, std::vector<std::string> labels);
  Histogram& MakeHistogram(std::string name, std::string help, std::vector<std::string> labels,
                           std::vector<double> buckets);

  // Runs before each Render, on the scraping thread, to set gauges that are
  // read rather than counted (the queue's depth). Kept while the handle lives.
  using Collector = std::function<void()>;
  std::shared_ptr<void> AddCollector(Collector collect);

  // Every family, sorted by name, in the text exposition format: # HELP and
  // # TYPE lines, then one line per label set (histograms: _bucket with `le`,
  // _sum, _count), label values escaped (\\, \", \n). Runs the collectors first.
  std::string Render();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The process's registry, which the catalog below records into.
Registry& Default();

// Seconds since `start`, for durations.
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// --- The catalog: every metric of docwright -------------------------------------

// Model names shown as themselves in labels (the server's default model and
// the price table's models, set at start); any other is "other". Replaces the
// earlier list.
void AllowModelLabels(std::vector<std::string> models);
// `model` if allowed, else "other".
std::string ModelLabel(std::string_view model);

// docwright_build_info{version} 1. Called once at start.
void SetBuildInfo(std::string_view version);

// docwright_http_requests_total{route,method,status} and
// docwright_http_request_duration_seconds{route,method}: one request the API
// answered, by its route pattern ("/v2/agent/{projectId}/job"; "" when none
// matched is shown as "unmatched"), from its first byte read to its response
// written. Called by http/server.cc.
void RecordHttpRequest(std::string_view route, std::string_view method, int status, double seconds);

// docwright_turns_total{outcome} and docwright_turn_duration_seconds{outcome}:
// a turn ended: "succeeded", "failed", "cancelled" (archived, or stopped for
// good), "interrupted" (lease lost or shutdown: it runs again), "budget" (a
// monthly budget refused or stopped it). Called by the runner.
void RecordTurnEnded(std::string_view outcome, double seconds);
// docwright_turns_in_flight: turns running on this node (the runner, +1 as a
// turn starts, -1 as it ends).
void AddTurnsInFlight(int delta);
// docwright_turn_step_duration_seconds: one step of the agent's loop (a model
// request and the tool calls of its reply). Called by the agent.
void RecordStep(double seconds);
// docwright_git_operation_duration_seconds{operation,result}: "fetch" or
// "push" of a project's repository, "ok" or "error". Called by the git layer.
void RecordGitOperation(std::string_view operation, bool ok, double seconds);
// docwright_forge_request_duration_seconds{forge,result}: one HTTP request to
// a hosted forge's API ("github", "gitlab", "gitea"), "ok" (2xx) or "error".
// Called by the forge layer.
void RecordForgeRequest(std::string_view forge, bool ok, double seconds);

// One model request of a turn, with its retries: docwright_model_requests_total
// {provider,model,result} ("ok" or "error"), docwright_model_retries_total
// {provider,model} (attempts beyond the first), docwright_model_tokens_total
// {provider,model,kind} (kind "input" for uncached input, "cached_input",
// "cache_write", "output", so that they add up to what is billed), and
// docwright_model_request_duration_seconds{provider,model}. `model` passes
// through ModelLabel. Called by the llm layer.
void RecordModelRequest(std::string_view provider, std::string_view model, bool ok, int attempts,
                        double seconds, const TokenUsage& usage);

// docwright_webhook_deliveries_total{direction,outcome}: "out" for the
// service's own webhooks ("delivered", "failed": a retry follows, "gave_up"),
// "in" for forges' deliveries to /hooks ("accepted", "duplicate", "refused").
void RecordWebhookDelivery(std::string_view direction, std::string_view outcome);

// docwright_store_transaction_duration_seconds{driver,kind} and
// docwright_store_transaction_retries_total{driver,kind}: one transaction of
// the store ("sqlite" or "postgres"; "read" or "write"), over all its
// attempts; `retries` beyond the first; or ("flush") the SQLite driver's own
// flush of its log after a write that did not wait for it. Called by the
// store's drivers.
void RecordStoreTransaction(std::string_view driver, std::string_view kind, int retries,
                            double seconds);

// docwright_budget_stops_total{owner,when}: a turn refused ("start") or ended
// ("running") by a monthly budget of the "project" or the "organisation".
void RecordBudgetStop(std::string_view owner, std::string_view when);

// Read at each scrape (serve's collector, from the store): docwright_queue_depth
// (turns waiting to run, all nodes), docwright_queue_oldest_age_seconds (how
// long the oldest has waited; 0 when none waits).
void SetQueue(int64_t queued, double oldest_age_seconds);

// The node's cache of what depends only on a commit (docs/commit_cache.h),
// read at each scrape (cli/serve_metrics.cc): docwright_docs_cache_hits_total,
// _misses_total, _stores_total, _evictions_total (its counts since the process
// started), docwright_docs_cache_bytes and _entries (what it holds now).
struct DocsCacheUse {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t stores = 0;
  uint64_t evictions = 0;
  size_t bytes = 0;
  size_t entries = 0;
};
void SetDocsCache(const DocsCacheUse& use);

// docwright_budget_used_ratio{project,owner,kind}: what a project's budget
// ("project") or its organisation's ("organisation") has spent this month,
// tokens or cost, over the budget (1 = spent). Replaced whole at each scrape,
// with the budgets at least half spent only, the fullest kMaxBudgetSeries.
inline constexpr size_t kMaxBudgetSeries = 1000;
struct BudgetUse {
  std::string project_id;
  std::string owner;  // "project" or "organisation"
  std::string kind;   // "tokens" or "cost"
  double ratio = 0;
};
void SetBudgetUse(const std::vector<BudgetUse>& uses);

}  // namespace docwright::metrics
