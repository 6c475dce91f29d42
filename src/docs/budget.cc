#include "docs/internal.h"

namespace docwright::docs {

Budget::Budget(const docs::Limits& limits)
    : WorkBudget({.steps = limits.max_steps}, limits.cancel, limits.deadline, limits.turn) {}

std::string Budget::Reason() const {
  switch (why()) {
    case Why::kNone:
      return "";
    case Why::kCancelled:
      return "the turn was stopped";
    case Why::kDeadline:
      return "the checks ran out of time";
    case Why::kLimit:
      break;
  }
  if (own_limit_reached()) {
    return "the site is larger than the checks' budget allows (nodes, links and bytes read)";
  }
  return "the turn's work budget is spent (" + status().message() + ")";
}

}  // namespace docwright::docs
