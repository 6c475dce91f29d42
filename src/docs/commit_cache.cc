// The cache of docs/commit_cache.h: one list in order of use and an index over
// it, under one mutex. What it holds is immutable and shared, so a lookup is a
// pointer copy; nothing is built or destroyed under the lock.
#include "docs/commit_cache.h"

#include <list>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "docs/docs.h"

namespace docwright::docs {
namespace {

// What the list node, the index's node and the shared pointer's control block
// cost besides the key and the value: a guess that keeps a flood of tiny
// entries counted.
constexpr size_t kEntryOverhead = 160;

// The heap bytes of a string: none while it fits in the object itself.
size_t HeapBytes(const std::string& s) {
  static const size_t inline_capacity = std::string().capacity();
  return s.capacity() > inline_capacity ? s.capacity() + 1 : 0;
}

template <typename T>
size_t VectorBytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

size_t StringsBytes(const std::vector<std::string>& v) {
  size_t bytes = VectorBytes(v);
  for (const std::string& s : v) bytes += HeapBytes(s);
  return bytes;
}

size_t ProblemsBytes(const std::vector<Problem>& v) {
  size_t bytes = VectorBytes(v);
  for (const Problem& p : v)
    bytes += HeapBytes(p.path) + HeapBytes(p.message) + HeapBytes(p.subject);
  return bytes;
}

size_t EstimatedBytes(const SiteMap& map) {
  size_t bytes = sizeof(SiteMap) + HeapBytes(map.config_path) + HeapBytes(map.content_root) +
                 HeapBytes(map.commit_key) + VectorBytes(map.navigation) + StringsBytes(map.pages) +
                 StringsBytes(map.other_sites);
  for (const NavEntry& e : map.navigation) {
    bytes += HeapBytes(e.group) + HeapBytes(e.page) + HeapBytes(e.path) + HeapBytes(e.title);
  }
  return bytes;
}

size_t EstimatedBytes(const CheckReport& report) {
  return sizeof(CheckReport) + ProblemsBytes(report.problems) + ProblemsBytes(report.notes) +
         HeapBytes(report.more_problems) + VectorBytes(report.counts);
}

}  // namespace

struct CommitCache::Impl {
  // One answer; exactly one of `map`, `report` and `text` is set.
  struct Entry {
    std::string key;
    std::shared_ptr<const SiteMap> map;
    std::shared_ptr<const CheckReport> report;
    std::shared_ptr<const std::string> text;
    size_t bytes = 0;
  };
  using List = std::list<Entry>;

  explicit Impl(const Options& o) : options(o) {}

  // The value `field` of the entry under `key`, which is made the most
  // recently used; null (a miss) when there is none, or when the key holds the
  // other kind of answer (keys name their kind: docs/internal.h). Counted
  // either way.
  template <typename Value>
  std::shared_ptr<const Value> Find(std::string_view key,
                                    std::shared_ptr<const Value> Entry::*field) EXCLUDES(mu) {
    MutexLock lock(mu);
    auto it = index.find(key);
    if (it == index.end() || !(*it->second.*field)) {
      ++stats.misses;
      return nullptr;
    }
    order.splice(order.begin(), order, it->second);
    ++stats.hits;
    return *it->second.*field;
  }
  // Keeps `entry` (replacing one with its key), then drops the least recently
  // used until the bounds hold. What is dropped is released after the lock.
  void Put(Entry entry) EXCLUDES(mu);

  const Options options;
  Mutex mu;
  List order GUARDED_BY(mu);  // most recently used first
  // Keys are views of the entries' own: a list node never moves.
  std::unordered_map<std::string_view, List::iterator> index GUARDED_BY(mu);
  Stats stats GUARDED_BY(mu);
};

void CommitCache::Impl::Put(Entry entry) {
  List dropped;  // destroyed after the lock is released: a large map takes a while
  {
    MutexLock lock(mu);
    if (options.max_entries == 0 || entry.bytes > options.max_bytes / 4) {
      ++stats.refused;
      return;
    }
    if (auto it = index.find(entry.key); it != index.end()) {
      stats.bytes -= it->second->bytes;
      dropped.splice(dropped.end(), order, it->second);
      index.erase(it);
    }
    stats.bytes += entry.bytes;
    order.push_front(std::move(entry));
    index.emplace(order.front().key, order.begin());
    ++stats.stores;
    while (!order.empty() &&
           (stats.bytes > options.max_bytes || order.size() > options.max_entries)) {
      auto last = std::prev(order.end());
      index.erase(last->key);
      stats.bytes -= last->bytes;
      dropped.splice(dropped.end(), order, last);
      ++stats.evictions;
    }
    stats.entries = order.size();
  }
}

CommitCache::CommitCache(Options options)
    : options_(options), impl_(std::make_unique<Impl>(options)) {}

CommitCache::~CommitCache() = default;

CommitCache::Stats CommitCache::stats() const {
  MutexLock lock(impl_->mu);
  return impl_->stats;
}

std::shared_ptr<const SiteMap> CommitCache::FindMap(std::string_view key) {
  return impl_->Find(key, &Impl::Entry::map);
}

std::shared_ptr<const CheckReport> CommitCache::FindReport(std::string_view key) {
  return impl_->Find(key, &Impl::Entry::report);
}

void CommitCache::PutMap(std::string key, std::shared_ptr<const SiteMap> map) {
  if (!map) return;
  size_t bytes = kEntryOverhead + HeapBytes(key) + EstimatedBytes(*map);
  impl_->Put(Impl::Entry{std::move(key), std::move(map), nullptr, nullptr, bytes});
}

void CommitCache::PutReport(std::string key, std::shared_ptr<const CheckReport> report) {
  if (!report) return;
  size_t bytes = kEntryOverhead + HeapBytes(key) + EstimatedBytes(*report);
  impl_->Put(Impl::Entry{std::move(key), nullptr, std::move(report), nullptr, bytes});
}

std::shared_ptr<const std::string> CommitCache::FindText(std::string_view key) {
  return impl_->Find(key, &Impl::Entry::text);
}

void CommitCache::PutText(std::string key, std::shared_ptr<const std::string> text) {
  if (!text) return;
  size_t bytes = kEntryOverhead + HeapBytes(key) + sizeof(std::string) + HeapBytes(*text);
  impl_->Put(Impl::Entry{std::move(key), nullptr, nullptr, std::move(text), bytes});
}

}  // namespace docwright::docs
