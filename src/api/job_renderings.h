// The poll path's memo: a job's JSON body (WriteAgentJob) and its entity tag,
// rendered once and served again for as long as the job read from the store is
// the same. A client polling a job every second asks for the same bytes until
// the job changes; rendering them (times, the trigger's JSON, escaping) and
// hashing them for the ETag was most of docwright's own work per poll.
//
// Correctness rests on Job's operator==, which compares every field: a body is
// used again only for a job equal to the one it was rendered from, with the
// same currency, so a change of any field renders afresh. Nothing here reads
// the store or the clock.
//
// Threads: each thread has its own memo (thread_local), so no lock is taken; a
// reference returned stays valid until the same thread's next call. Bounded:
// kSlots entries a thread, direct-mapped by job id (a colliding job replaces
// the slot); a body over kMaxBytes is rendered every time and not kept.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/job.h"

namespace docwright {

struct RenderedJob {
  std::string body;  // JobResponse's body (views.h: WriteAgentJob's JSON)
  std::string tag;   // EntityTag(body)
};

class JobRenderings {
 public:
  static constexpr size_t kSlots = 32;
  static constexpr size_t kMaxBytes = 16 * 1024;

  // `job` rendered with `currency` (the price table's, "" for none), from this
  // thread's memo when it rendered an equal job with that currency last.
  static const RenderedJob& Of(const Job& job, std::string_view currency);
};

}  // namespace docwright
