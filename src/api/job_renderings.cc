#include "api/job_renderings.h"

#include <array>
#include <functional>
#include <optional>

#include "api/etag.h"
#include "api/views.h"

namespace docwright {
namespace {

struct Slot {
  std::optional<Job> job;  // what `rendered` was made from; nullopt: empty
  std::string currency;
  RenderedJob rendered;
};

// The job as the API's other answers render it (views.h), with its tag.
RenderedJob Render(const Job& job, std::string_view currency) {
  RenderedJob r;
  r.body = std::move(JobResponse(200, job, currency).body);
  r.tag = EntityTag(r.body);
  return r;
}

}  // namespace

const RenderedJob& JobRenderings::Of(const Job& job, std::string_view currency) {
  thread_local std::array<Slot, kSlots> slots;
  thread_local RenderedJob unkept;
  Slot& slot = slots[std::hash<std::string>{}(job.id) % kSlots];
  if (slot.job && slot.currency == currency && *slot.job == job) return slot.rendered;
  RenderedJob fresh = Render(job, currency);
  if (fresh.body.size() > kMaxBytes) {
    unkept = std::move(fresh);
    return unkept;
  }
  slot.job = job;
  slot.currency = std::string(currency);
  slot.rendered = std::move(fresh);
  return slot.rendered;
}

}  // namespace docwright
