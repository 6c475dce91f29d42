// A Store decorator that caches the lookups every poll makes: the API key (or
// a browser's sign-in session) and the job. Polling is most of the traffic, and
// these answers rarely change.
//
// Consistency: a write made through this object is visible to the next read at
// once (it invalidates the cache, and a read that raced with it is not cached).
// A write made by another process (a `docwright worker`, `key revoke` from the
// command line) is visible within `ttl`; on a store that announces other
// processes' writes (PostgreSQL), as soon as it is announced, and while the
// announcements are interrupted nothing is served from the cache.
#pragma once

#include <chrono>
#include <memory>

#include "store/store.h"

namespace docwright {

struct CacheOptions {
  std::chrono::milliseconds ttl{250};
  size_t max_entries = 100000;  // per cache; beyond it expired entries are dropped
};

std::unique_ptr<Store> NewCachedStore(std::unique_ptr<Store> inner, CacheOptions options);

}  // namespace docwright
