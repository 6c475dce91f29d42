#include "core/work_budget.h"

namespace docwright {

WorkBudget::Limits WorkBudget::TurnLimits() {
  return Limits{
      .entries = 10'000'000,
      .bytes_read = uint64_t{2} << 30,
      .bytes_searched = uint64_t{1} << 30,
      .steps = 50'000'000,
  };
}

const char* MeterName(WorkBudget::Meter meter) {
  switch (meter) {
    case WorkBudget::Meter::kEntries:
      return "tree entries visited";
    case WorkBudget::Meter::kBytesRead:
      return "bytes read";
    case WorkBudget::Meter::kBytesSearched:
      return "bytes searched";
    case WorkBudget::Meter::kSteps:
      return "steps of the docs checks";
    case WorkBudget::Meter::kCount:
      break;
  }
  return "units";
}

WorkBudget::WorkBudget(Limits limits, const CancelToken* cancel,
                       std::chrono::steady_clock::time_point deadline, WorkBudget* parent)
    : cancel_(cancel), deadline_(deadline), parent_(parent) {
  limit_[static_cast<size_t>(Meter::kEntries)] = limits.entries;
  limit_[static_cast<size_t>(Meter::kBytesRead)] = limits.bytes_read;
  limit_[static_cast<size_t>(Meter::kBytesSearched)] = limits.bytes_searched;
  limit_[static_cast<size_t>(Meter::kSteps)] = limits.steps;
  Look();
}

void WorkBudget::Look() {
  until_look_ = kUnitsBetweenLooks;
  if (why_ != Why::kNone) return;
  if (cancel_ && cancel_->cancelled()) {
    why_ = Why::kCancelled;
  } else if (deadline_ != std::chrono::steady_clock::time_point::max() &&
             std::chrono::steady_clock::now() >= deadline_) {
    why_ = Why::kDeadline;
  }
}

bool WorkBudget::Check() {
  Look();
  if (parent_ && !parent_->Check()) return false;
  return why_ == Why::kNone;
}

bool WorkBudget::Charge(Meter meter, uint64_t amount) {
  if (why_ != Why::kNone) return false;
  size_t m = static_cast<size_t>(meter);
  if (amount > limit_[m] - used_[m]) {
    used_[m] = limit_[m];
    why_ = Why::kLimit;
    spent_meter_ = meter;
    return false;
  }
  used_[m] += amount;
  if (parent_ && !parent_->Charge(meter, amount)) return false;
  if (amount >= until_look_) {
    Look();
  } else {
    until_look_ -= amount;
  }
  return why_ == Why::kNone;
}

bool WorkBudget::cancelled() const { return why() == Why::kCancelled; }

Status WorkBudget::status() const {
  switch (why_) {
    case Why::kNone:
      return parent_ ? parent_->status() : Status();
    case Why::kLimit:
      return Status::ResourceExhausted("the limit of " +
                                       std::to_string(limit_[static_cast<size_t>(spent_meter_)]) +
                                       " " + MeterName(spent_meter_) + " was reached");
    case Why::kCancelled:
      return Status::ResourceExhausted("the turn was stopped");
    case Why::kDeadline:
      return Status::ResourceExhausted("the turn ran out of time");
  }
  return Status();
}

}  // namespace docwright
