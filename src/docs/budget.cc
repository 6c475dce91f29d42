#include "core/turn.h"
#include "docs/internal.h"

namespace docwright::docs {

namespace {
// The clock and the token are looked at once per this many steps: often enough
// to stop within milliseconds, rarely enough to cost nothing.
constexpr size_t kStepsBetweenLooks = 4096;
}  // namespace

Budget::Budget(const Limits& limits)
    : left_(limits.max_steps), cancel_(limits.cancel), deadline_(limits.deadline) {
  Look();
}

void Budget::Look() {
  until_look_ = kStepsBetweenLooks;
  if (why_ != Why::kNone) return;
  if (cancel_ && cancel_->cancelled()) {
    why_ = Why::kCancelled;
  } else if (deadline_ != std::chrono::steady_clock::time_point::max() &&
             std::chrono::steady_clock::now() >= deadline_) {
    why_ = Why::kDeadline;
  }
}

bool Budget::Spend(size_t steps) {
  if (why_ != Why::kNone) return false;
  if (steps > left_) {
    left_ = 0;
    why_ = Why::kSteps;
    return false;
  }
  left_ -= steps;
  if (steps >= until_look_) {
    Look();
  } else {
    until_look_ -= steps;
  }
  return why_ == Why::kNone;
}

std::string Budget::Reason() const {
  switch (why_) {
    case Why::kNone:
      return "";
    case Why::kSteps:
      return "the site is larger than the checks' budget allows (nodes, links and bytes read)";
    case Why::kCancelled:
      return "the turn was stopped";
    case Why::kDeadline:
      return "the checks ran out of time";
  }
  return "";
}

}  // namespace docwright::docs
