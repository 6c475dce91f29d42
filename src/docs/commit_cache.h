// What the docs layer computes from a commit alone, kept between calls so that
// every turn starting from the same commit (a burst of jobs on one project, a
// turn's own second and third reads of its base) does the work once: the site
// map of a commit (and its text for the prompt), and the check report of a set
// of changes over a commit.
//
// Keys are content, never names: a commit id (which names its whole tree) and,
// for a check, the blob ids of the changed files' new contents (git's own hash
// of them), with every Limits field that shapes the answer (max_files,
// max_problems, max_notes, max_steps, site_root). Two projects on the same
// commit share the answer; nothing is trusted across commits. An answer cut
// short by something outside the commit (the caller's cancel token, deadline or
// turn budget) is never stored; one cut by its own step limit is (the same
// commit and limits cut it the same way).
//
// Bounded by bytes (each entry's estimated heap size) and by entries; the least
// recently used go first. An entry larger than a quarter of max_bytes is not
// kept. Thread-safe: any thread may call any method at any time; values are
// shared, immutable, and outlive their eviction for as long as a caller holds
// them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace docwright::docs {

struct SiteMap;
struct CheckReport;

class CommitCache {
 public:
  struct Options {
    size_t max_bytes = size_t{64} << 20;  // 64 MiB
    size_t max_entries = 4096;
  };
  // Counted since construction; `bytes` and `entries` are what is held now.
  struct Stats {
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t stores = 0;     // answers kept
    uint64_t evictions = 0;  // answers dropped to make room
    uint64_t refused = 0;    // answers too large to keep
    size_t bytes = 0;
    size_t entries = 0;
  };

  explicit CommitCache(Options options);
  CommitCache() : CommitCache(Options{}) {}
  ~CommitCache();
  CommitCache(const CommitCache&) = delete;
  CommitCache& operator=(const CommitCache&) = delete;

  Stats stats() const;
  const Options& options() const { return options_; }

  // Used by SharedSiteMap, SharedRender and CheckChanges (docs.h); the key is
  // theirs to make (docs/internal.h). Null when absent.
  std::shared_ptr<const SiteMap> FindMap(std::string_view key);
  std::shared_ptr<const CheckReport> FindReport(std::string_view key);
  std::shared_ptr<const std::string> FindText(std::string_view key);
  void PutMap(std::string key, std::shared_ptr<const SiteMap> map);
  void PutReport(std::string key, std::shared_ptr<const CheckReport> report);
  void PutText(std::string key, std::shared_ptr<const std::string> text);

 private:
  struct Impl;
  Options options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docwright::docs
