// The registry, the text exposition format (0.0.4) and the catalog of
// core/metrics.h. Written here rather than taken from a client library: the
// format is small, and the libraries bring an HTTP server of their own.
#include "core/metrics.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>

#include "core/mutex.h"

namespace docwright::metrics {

enum class Kind { kCounter, kGauge, kHistogram };

namespace {

bool ValidName(std::string_view name, bool colon_allowed) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (colon_allowed && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

[[noreturn]] void Bug(std::string_view what) {
  std::fprintf(stderr, "metrics: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

// A sample value as the format writes floats: "+Inf", "-Inf", "NaN", or the
// shortest text that reads back as the same double.
void AppendNumber(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
  } else {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, ec == std::errc() ? end : buf);
  }
}

// A label value inside double quotes: backslash, double quote and line feed escaped.
void AppendLabelValue(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

// HELP text: backslash and line feed escaped (a double quote is left as it is).
void AppendHelp(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

}  // namespace

// One family's label sets and their values. Histograms keep a count per bucket
// (not cumulative; summed as they are written) and their sum; their count is
// the buckets' total, so a scrape taken while values are recorded stays
// consistent (+Inf equals _count).
//
// Recording is on every request's path, from every thread: a series, once
// made, is found through a small cache of the calling thread and changed with
// atomic operations, so recording takes no lock and writes no shared line but
// the series' own. Series are freed only by Clear, which gives the family a new
// id: ids are never reused, so no cache entry of a family gone, or of one
// cleared, ever matches again. (Clear is for gauges set whole by one thread,
// which is the only one recording into them: core/metrics.h.)
class Family {
 public:
  Family(std::string name, std::string help, Kind kind, std::vector<std::string> labels,
         std::vector<double> buckets)
      : id_(next_id_.fetch_add(1, std::memory_order_relaxed)),
        name_(std::move(name)),
        help_(std::move(help)),
        kind_(kind),
        labels_(std::move(labels)),
        buckets_(std::move(buckets)) {}

  void Add(std::initializer_list<std::string_view> labels, double by) EXCLUDES(mu_) {
    Find(labels).value.fetch_add(by, std::memory_order_relaxed);
  }
  void Set(std::initializer_list<std::string_view> labels, double value) EXCLUDES(mu_) {
    Find(labels).value.store(value, std::memory_order_relaxed);
  }
  void Clear() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    id_.store(next_id_.fetch_add(1, std::memory_order_relaxed), std::memory_order_release);
    series_.clear();
  }
  void Observe(std::initializer_list<std::string_view> labels, double value) EXCLUDES(mu_) {
    Series& s = Find(labels);
    // The first bucket whose bound is at least the value; past the last: +Inf only.
    size_t i = std::lower_bound(buckets_.begin(), buckets_.end(), value) - buckets_.begin();
    s.buckets[i].fetch_add(1, std::memory_order_relaxed);
    s.value.fetch_add(value, std::memory_order_relaxed);
  }

  void Render(std::string& out) const EXCLUDES(mu_) {
    out += "# HELP ";
    out += name_;
    out += ' ';
    AppendHelp(out, help_);
    out += "\n# TYPE ";
    out += name_;
    out += kind_ == Kind::kCounter ? " counter\n"
           : kind_ == Kind::kGauge ? " gauge\n"
                                   : " histogram\n";
    MutexLock lock(mu_);
    for (const auto& [values, s] : series_) {
      if (kind_ != Kind::kHistogram) {
        Line(out, "", values, nullptr, s->value.load(std::memory_order_relaxed));
        continue;
      }
      uint64_t cumulative = 0;
      for (size_t i = 0; i <= buckets_.size(); ++i) {
        cumulative += s->buckets[i].load(std::memory_order_relaxed);
        std::string le;
        AppendNumber(le, i < buckets_.size() ? buckets_[i] : INFINITY);
        Line(out, "_bucket", values, &le, static_cast<double>(cumulative));
      }
      Line(out, "_sum", values, nullptr, s->value.load(std::memory_order_relaxed));
      Line(out, "_count", values, nullptr, static_cast<double>(cumulative));
    }
  }

  void SetKindCheck(Kind kind) const {
    if (kind != kind_) Bug("family " + name_ + " made twice with different kinds");
  }

 private:
  struct Series {
    explicit Series(size_t buckets)
        : buckets(buckets ? std::make_unique<std::atomic<uint64_t>[]>(buckets) : nullptr) {}
    std::atomic<double> value{0};                      // counters and gauges; a histogram's sum
    std::unique_ptr<std::atomic<uint64_t>[]> buckets;  // histograms: one a bound, then +Inf
  };

  // What a thread remembers of the series it recorded into lately.
  struct CacheEntry {
    uint64_t family = 0;
    size_t hash = 0;
    std::vector<std::string> labels;
    Series* series = nullptr;
  };
  static constexpr size_t kCacheEntries = 256;

  static size_t HashOf(uint64_t family, std::initializer_list<std::string_view> labels) {
    size_t h = std::hash<uint64_t>{}(family);
    for (std::string_view l : labels) {
      h ^= std::hash<std::string_view>{}(l) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    }
    return h;
  }
  static bool Same(const std::vector<std::string>& a, std::initializer_list<std::string_view> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

  // The series of `labels`, made if new; past kMaxSeries a new label set is
  // counted as every label "other".
  Series& Find(std::initializer_list<std::string_view> labels) EXCLUDES(mu_) {
    if (labels.size() != labels_.size()) {
      Bug("family " + name_ + " takes " + std::to_string(labels_.size()) + " labels");
    }
    thread_local std::vector<CacheEntry> cache;
    uint64_t id = id_.load(std::memory_order_acquire);
    size_t hash = HashOf(id, labels);
    for (const CacheEntry& e : cache) {
      if (e.hash == hash && e.family == id && Same(e.labels, labels)) return *e.series;
    }
    Series* found = nullptr;
    {
      MutexLock lock(mu_);
      id = id_.load(std::memory_order_relaxed);  // as of the series found below
      hash = HashOf(id, labels);
      std::vector<std::string> key(labels.begin(), labels.end());
      auto it = series_.find(key);
      if (it == series_.end()) {
        if (series_.size() >= kMaxSeries) key.assign(labels_.size(), "other");
        it = series_.find(key);
        if (it == series_.end()) {
          size_t buckets = kind_ == Kind::kHistogram ? buckets_.size() + 1 : 0;
          it = series_.emplace(key, std::make_unique<Series>(buckets)).first;
        }
      }
      found = it->second.get();
    }
    if (cache.size() >= kCacheEntries) cache.clear();
    cache.push_back(
        CacheEntry{id, hash, std::vector<std::string>(labels.begin(), labels.end()), found});
    return *found;
  }

  void Line(std::string& out, std::string_view suffix, const std::vector<std::string>& values,
            const std::string* le, double value) const {
    out += name_;
    out += suffix;
    if (!values.empty() || le) {
      out += '{';
      for (size_t i = 0; i < values.size(); ++i) {
        if (i) out += ',';
        out += labels_[i];
        out += "=\"";
        AppendLabelValue(out, values[i]);
        out += '"';
      }
      if (le) {
        if (!values.empty()) out += ',';
        out += "le=\"";
        out += *le;
        out += '"';
      }
      out += '}';
    }
    out += ' ';
    AppendNumber(out, value);
    out += '\n';
  }

  static inline std::atomic<uint64_t> next_id_{1};
  std::atomic<uint64_t> id_;  // changed by Clear
  const std::string name_;
  const std::string help_;
  const Kind kind_;
  const std::vector<std::string> labels_;
  const std::vector<double> buckets_;
  mutable Mutex mu_;
  // Ordered by label values, for a stable exposition; never erased (see above).
  std::map<std::vector<std::string>, std::unique_ptr<Series>, std::less<>> series_ GUARDED_BY(mu_);
};

void Counter::Add(std::initializer_list<std::string_view> labels, double by) {
  // A counter only goes up: a negative or NaN step is dropped.
  if (!(by >= 0)) return;
  family_->Add(labels, by);
}

void Counter::Set(std::initializer_list<std::string_view> labels, double value) {
  if (!(value >= 0)) return;
  family_->Set(labels, value);
}

void Gauge::Set(std::initializer_list<std::string_view> labels, double value) {
  family_->Set(labels, value);
}
void Gauge::Add(std::initializer_list<std::string_view> labels, double by) {
  family_->Add(labels, by);
}
void Gauge::Clear() { family_->Clear(); }

void Histogram::Observe(std::initializer_list<std::string_view> labels, double value) {
  if (std::isnan(value)) return;
  family_->Observe(labels, value);
}

std::vector<double> DurationBuckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
          1,     2.5,    5,     10,   30,    60,   120, 300,  600};
}

// The collectors live in a list of their own, shared with the handles that
// remove them, so that a handle may outlive the registry.
struct CollectorList {
  Mutex mu;
  uint64_t next_id GUARDED_BY(mu) = 0;
  std::map<uint64_t, std::shared_ptr<Registry::Collector>> collectors GUARDED_BY(mu);
};

struct Registry::State {
  Mutex mu;  // the families and the objects handed out
  std::map<std::string, std::unique_ptr<Family>, std::less<>> families GUARDED_BY(mu);
  std::list<Counter> counters GUARDED_BY(mu);  // stable addresses
  std::list<Gauge> gauges GUARDED_BY(mu);
  std::list<Histogram> histograms GUARDED_BY(mu);
  // name -> Counter*/Gauge*/Histogram*
  std::map<std::string, void*, std::less<>> handles GUARDED_BY(mu);
  // Set once; the list has a mutex of its own.
  const std::shared_ptr<CollectorList> collectors = std::make_shared<CollectorList>();

  Family* Make(std::string name, std::string help, Kind kind, std::vector<std::string> labels,
               std::vector<double> buckets) REQUIRES(mu) {
    if (!ValidName(name, true)) Bug("invalid metric name " + name);
    for (const std::string& l : labels) {
      // "le" is the histograms' own; "__" starts names Prometheus reserves.
      if (!ValidName(l, false) || l.starts_with("__") || (kind == Kind::kHistogram && l == "le")) {
        Bug("invalid label name " + l + " of " + name);
      }
    }
    if (kind == Kind::kHistogram &&
        (buckets.empty() || !std::is_sorted(buckets.begin(), buckets.end()) ||
         std::adjacent_find(buckets.begin(), buckets.end()) != buckets.end() ||
         std::isinf(buckets.back()) || std::isnan(buckets.back()))) {
      Bug("the buckets of " + name + " must increase, finite");
    }
    if (auto it = families.find(name); it != families.end()) {
      it->second->SetKindCheck(kind);
      return nullptr;  // already made: the caller returns the handle it has
    }
    auto family = std::make_unique<Family>(name, std::move(help), kind, std::move(labels),
                                           std::move(buckets));
    Family* f = family.get();
    families.emplace(std::move(name), std::move(family));
    return f;
  }
};

Registry::Registry() : state_(std::make_unique<State>()) {}
Registry::~Registry() = default;

Counter& Registry::MakeCounter(std::string name, std::string help,
                               std::vector<std::string> labels) {
  MutexLock lock(state_->mu);
  std::string key = name;
  if (Family* f =
          state_->Make(std::move(name), std::move(help), Kind::kCounter, std::move(labels), {})) {
    Counter& c = state_->counters.emplace_back(Counter(f));
    state_->handles[key] = &c;
    return c;
  }
  return *static_cast<Counter*>(state_->handles[key]);
}

Gauge& Registry::MakeGauge(std::string name, std::string help, std::vector<std::string> labels) {
  MutexLock lock(state_->mu);
  std::string key = name;
  bool unlabelled = labels.empty();
  if (Family* f =
          state_->Make(std::move(name), std::move(help), Kind::kGauge, std::move(labels), {})) {
    Gauge& g = state_->gauges.emplace_back(Gauge(f));
    state_->handles[key] = &g;
    // One sample from the start: "0", not absent, until it is set.
    if (unlabelled) g.Set({}, 0);
    return g;
  }
  return *static_cast<Gauge*>(state_->handles[key]);
}

Histogram& Registry::MakeHistogram(std::string name, std::string help,
                                   std::vector<std::string> labels, std::vector<double> buckets) {
  MutexLock lock(state_->mu);
  std::string key = name;
  if (Family* f = state_->Make(std::move(name), std::move(help), Kind::kHistogram,
                               std::move(labels), std::move(buckets))) {
    Histogram& h = state_->histograms.emplace_back(Histogram(f));
    state_->handles[key] = &h;
    return h;
  }
  return *static_cast<Histogram*>(state_->handles[key]);
}

std::shared_ptr<void> Registry::AddCollector(Collector collect) {
  auto list = state_->collectors;
  uint64_t id;
  {
    MutexLock lock(list->mu);
    id = list->next_id++;
    list->collectors[id] = std::make_shared<Collector>(std::move(collect));
  }
  std::weak_ptr<CollectorList> weak = list;
  // The handle owns nothing but the removal.
  return std::shared_ptr<void>(static_cast<void*>(nullptr), [weak, id](void*) {
    if (auto l = weak.lock()) {
      MutexLock lock(l->mu);
      l->collectors.erase(id);
    }
  });
}

std::string Registry::Render() {
  std::vector<std::shared_ptr<Collector>> collectors;
  {
    MutexLock lock(state_->collectors->mu);
    for (auto& [id, c] : state_->collectors->collectors) collectors.push_back(c);
  }
  for (auto& c : collectors) (*c)();  // outside the lock: they record into families
  std::string out;
  MutexLock lock(state_->mu);
  for (const auto& [name, family] : state_->families) family->Render(out);
  return out;
}

// --- The catalog -----------------------------------------------------------------

namespace {

struct Catalog {
  Gauge* build_info;
  Counter* http_requests;
  Histogram* http_duration;
  Counter* turns;
  Histogram* turn_duration;
  Gauge* turns_in_flight;
  Histogram* step_duration;
  Histogram* git_duration;
  Histogram* forge_duration;
  Counter* model_requests;
  Counter* model_retries;
  Counter* model_tokens;
  Histogram* model_duration;
  Counter* webhook_deliveries;
  Histogram* store_duration;
  Counter* store_retries;
  Counter* budget_stops;
  Gauge* queue_depth;
  Gauge* queue_age;
  Gauge* budget_used;
  Counter* docs_cache_hits;
  Counter* docs_cache_misses;
  Counter* docs_cache_stores;
  Counter* docs_cache_evictions;
  Gauge* docs_cache_bytes;
  Gauge* docs_cache_entries;
};

Catalog* catalog = nullptr;

void MakeCatalog(Registry& r, Catalog& c) {
  auto d = DurationBuckets();
  c.build_info =
      &r.MakeGauge("docwright_build_info", "The docwright version this process runs.", {"version"});
  c.http_requests = &r.MakeCounter("docwright_http_requests_total",
                                   "HTTP requests answered, by route pattern, method and status.",
                                   {"route", "method", "status"});
  c.http_duration = &r.MakeHistogram(
      "docwright_http_request_duration_seconds",
      "Time from a request's first byte read to its response written.", {"route", "method"}, d);
  c.turns = &r.MakeCounter("docwright_turns_total", "Turns ended, by outcome.", {"outcome"});
  c.turn_duration = &r.MakeHistogram("docwright_turn_duration_seconds",
                                     "How long turns ran, by outcome.", {"outcome"}, d);
  c.turns_in_flight = &r.MakeGauge("docwright_turns_in_flight", "Turns running on this node.", {});
  c.step_duration = &r.MakeHistogram(
      "docwright_turn_step_duration_seconds",
      "One step of the agent's loop: a model request and the tool calls of its reply.", {}, d);
  c.git_duration =
      &r.MakeHistogram("docwright_git_operation_duration_seconds",
                       "Fetches and pushes of projects' repositories.", {"operation", "result"}, d);
  c.forge_duration =
      &r.MakeHistogram("docwright_forge_request_duration_seconds",
                       "HTTP requests to hosted forges' APIs.", {"forge", "result"}, d);
  c.model_requests =
      &r.MakeCounter("docwright_model_requests_total",
                     "Model requests, with their retries, by provider, model and result.",
                     {"provider", "model", "result"});
  c.model_retries =
      &r.MakeCounter("docwright_model_retries_total", "Model request attempts beyond the first.",
                     {"provider", "model"});
  c.model_tokens = &r.MakeCounter(
      "docwright_model_tokens_total",
      "Tokens of model requests by kind: input (uncached), cached_input, cache_write, output.",
      {"provider", "model", "kind"});
  c.model_duration =
      &r.MakeHistogram("docwright_model_request_duration_seconds",
                       "Model requests, retries included.", {"provider", "model"}, d);
  c.webhook_deliveries = &r.MakeCounter(
      "docwright_webhook_deliveries_total",
      "Webhook deliveries: out (the service's own) and in (forges' to /hooks), by outcome.",
      {"direction", "outcome"});
  c.store_duration =
      &r.MakeHistogram("docwright_store_transaction_duration_seconds",
                       "Store transactions over all their attempts.", {"driver", "kind"}, d);
  c.store_retries =
      &r.MakeCounter("docwright_store_transaction_retries_total",
                     "Store transaction attempts beyond the first.", {"driver", "kind"});
  c.budget_stops = &r.MakeCounter("docwright_budget_stops_total",
                                  "Turns refused (start) or ended (running) by a monthly budget.",
                                  {"owner", "when"});
  c.queue_depth = &r.MakeGauge("docwright_queue_depth", "Turns waiting to run, on all nodes.", {});
  c.queue_age = &r.MakeGauge("docwright_queue_oldest_age_seconds",
                             "How long the oldest waiting turn has waited; 0 when none waits.", {});
  c.budget_used =
      &r.MakeGauge("docwright_budget_used_ratio",
                   "What a monthly budget has spent this month over the budget (1: spent).",
                   {"project", "owner", "kind"});
  c.docs_cache_hits = &r.MakeCounter(
      "docwright_docs_cache_hits_total",
      "Site maps and check reports served from the node's cache of what depends on a commit.", {});
  c.docs_cache_misses = &r.MakeCounter(
      "docwright_docs_cache_misses_total",
      "Site maps and check reports looked for in the node's cache and not found.", {});
  c.docs_cache_stores = &r.MakeCounter("docwright_docs_cache_stores_total",
                                       "Site maps and check reports kept in the node's cache.", {});
  c.docs_cache_evictions = &r.MakeCounter(
      "docwright_docs_cache_evictions_total",
      "Answers dropped from the node's cache to make room, the least recently used first.", {});
  c.docs_cache_bytes = &r.MakeGauge("docwright_docs_cache_bytes",
                                    "Estimated heap bytes the node's docs cache holds.", {});
  c.docs_cache_entries =
      &r.MakeGauge("docwright_docs_cache_entries", "Answers the node's docs cache holds.", {});
}

Catalog& Cat() {
  Default();
  return *catalog;
}

// `value` if it is one of `allowed`, else "other": labels stay bounded whatever
// a caller passes.
std::string_view OneOf(std::string_view value, std::initializer_list<std::string_view> allowed) {
  for (std::string_view a : allowed) {
    if (a == value) return value;
  }
  return "other";
}

SharedMutex models_mu;
std::set<std::string, std::less<>>* const allowed_models PT_GUARDED_BY(models_mu) =
    new std::set<std::string, std::less<>>();

}  // namespace

Registry& Default() {
  // Never destroyed: threads may record while the process exits.
  static Registry* registry = [] {
    auto* r = new Registry();
    catalog = new Catalog();
    MakeCatalog(*r, *catalog);
    return r;
  }();
  return *registry;
}

void AllowModelLabels(std::vector<std::string> models) {
  WriterMutexLock lock(models_mu);
  allowed_models->clear();
  for (std::string& m : models) {
    // A label is short and printable; the table's "prefix*" keys stand as written.
    if (!m.empty() && m.size() <= 200) allowed_models->insert(std::move(m));
  }
}

std::string ModelLabel(std::string_view model) {
  ReaderMutexLock lock(models_mu);
  if (allowed_models->count(model)) return std::string(model);
  // A model the price table prices by a "prefix*" key is shown as that key
  // (bounded: the table's keys), the longest that matches, as it is priced.
  std::string_view best;
  for (const std::string& key : *allowed_models) {
    if (key.empty() || key.back() != '*' || key.size() <= best.size()) continue;
    if (model.starts_with(std::string_view(key).substr(0, key.size() - 1))) best = key;
  }
  return best.empty() ? std::string("other") : std::string(best);
}

void SetBuildInfo(std::string_view version) {
  Cat().build_info->Clear();
  Cat().build_info->Set({version.substr(0, 100)}, 1);
}

void RecordHttpRequest(std::string_view route, std::string_view method, int status,
                       double seconds) {
  std::string_view m = OneOf(method, {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"});
  std::string_view r = route.empty() ? std::string_view("unmatched") : route;
  char code[8] = "other";
  if (status >= 100 && status <= 599) std::snprintf(code, sizeof code, "%d", status);
  Cat().http_requests->Add({r, m, code});
  Cat().http_duration->Observe({r, m}, seconds);
}

void RecordTurnEnded(std::string_view outcome, double seconds) {
  std::string_view o =
      OneOf(outcome, {"succeeded", "failed", "cancelled", "interrupted", "budget"});
  Cat().turns->Add({o});
  Cat().turn_duration->Observe({o}, seconds);
}

void AddTurnsInFlight(int delta) { Cat().turns_in_flight->Add({}, delta); }

void RecordStep(double seconds) { Cat().step_duration->Observe({}, seconds); }

void RecordGitOperation(std::string_view operation, bool ok, double seconds) {
  Cat().git_duration->Observe({OneOf(operation, {"fetch", "push"}), ok ? "ok" : "error"}, seconds);
}

void RecordForgeRequest(std::string_view forge, bool ok, double seconds) {
  Cat().forge_duration->Observe({OneOf(forge, {"github", "gitlab", "gitea"}), ok ? "ok" : "error"},
                                seconds);
}

void RecordModelRequest(std::string_view provider, std::string_view model, bool ok, int attempts,
                        double seconds, const TokenUsage& usage) {
  std::string_view p = OneOf(provider, {"openai", "anthropic"});
  std::string m = ModelLabel(model);
  Catalog& c = Cat();
  c.model_requests->Add({p, m, ok ? "ok" : "error"});
  if (attempts > 1) c.model_retries->Add({p, m}, attempts - 1);
  c.model_duration->Observe({p, m}, seconds);
  // Input as billed: the uncached part, then what the cache served and what it stored.
  int64_t uncached = usage.input_tokens - usage.cached_input_tokens - usage.cache_write_tokens;
  for (auto [kind, n] : {std::pair<std::string_view, int64_t>{"input", uncached},
                         {"cached_input", usage.cached_input_tokens},
                         {"cache_write", usage.cache_write_tokens},
                         {"output", usage.output_tokens}}) {
    if (n > 0) c.model_tokens->Add({p, m, kind}, static_cast<double>(n));
  }
}

void RecordWebhookDelivery(std::string_view direction, std::string_view outcome) {
  std::string_view d = OneOf(direction, {"out", "in"});
  std::string_view o = d == "out"  ? OneOf(outcome, {"delivered", "failed", "gave_up"})
                       : d == "in" ? OneOf(outcome, {"accepted", "duplicate", "refused"})
                                   : "other";
  Cat().webhook_deliveries->Add({d, o});
}

void RecordStoreTransaction(std::string_view driver, std::string_view kind, int retries,
                            double seconds) {
  std::string_view d = OneOf(driver, {"sqlite", "postgres"});
  std::string_view k = OneOf(kind, {"read", "write", "flush"});
  Cat().store_duration->Observe({d, k}, seconds);
  if (retries > 0) Cat().store_retries->Add({d, k}, retries);
}

void RecordBudgetStop(std::string_view owner, std::string_view when) {
  Cat().budget_stops->Add(
      {OneOf(owner, {"project", "organisation"}), OneOf(when, {"start", "running"})});
}

void SetQueue(int64_t queued, double oldest_age_seconds) {
  Cat().queue_depth->Set({}, static_cast<double>(std::max<int64_t>(queued, 0)));
  Cat().queue_age->Set({}, std::max(oldest_age_seconds, 0.0));
}

void SetDocsCache(const DocsCacheUse& use) {
  Catalog& c = Cat();
  c.docs_cache_hits->Set({}, static_cast<double>(use.hits));
  c.docs_cache_misses->Set({}, static_cast<double>(use.misses));
  c.docs_cache_stores->Set({}, static_cast<double>(use.stores));
  c.docs_cache_evictions->Set({}, static_cast<double>(use.evictions));
  c.docs_cache_bytes->Set({}, static_cast<double>(use.bytes));
  c.docs_cache_entries->Set({}, static_cast<double>(use.entries));
}

void SetBudgetUse(const std::vector<BudgetUse>& uses) {
  // Only budgets past half their month, the fullest first, at most
  // kMaxBudgetSeries of them: what an alert needs, within the family's bound
  // however many projects have budgets.
  std::vector<const BudgetUse*> shown;
  for (const BudgetUse& u : uses) {
    if (u.ratio >= 0.5) shown.push_back(&u);
  }
  std::sort(shown.begin(), shown.end(),
            [](const BudgetUse* a, const BudgetUse* b) { return a->ratio > b->ratio; });
  if (shown.size() > kMaxBudgetSeries) shown.resize(kMaxBudgetSeries);
  Gauge& g = *Cat().budget_used;
  g.Clear();
  for (const BudgetUse* use : shown) {
    const BudgetUse& u = *use;
    g.Set({u.project_id, OneOf(u.owner, {"project", "organisation"}),
           OneOf(u.kind, {"tokens", "cost"})},
          u.ratio);
  }
}

}  // namespace docwright::metrics
