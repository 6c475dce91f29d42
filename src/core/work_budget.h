// WorkBudget: what a turn's work over untrusted data (a tenant's repository, a
// model's reply) may cost, charged by every operation whose cost grows with that
// data: tree walks entry by entry whatever the entry's type, file reads, searches,
// diffs, docs parsing and checks, tool calls. Once any meter is spent, the turn is
// cancelled or its deadline has passed, every later charge fails, so every loop
// that charges stops within a few thousand units of work (microseconds to a few
// milliseconds) of the reason.
//
// A budget may have a parent: a charge is taken from both, so one call's own
// limit (the site map's, one search's) and the turn's whole budget are kept at
// once.
//
// Not thread-safe: a budget belongs to one turn, run by one thread. The cancel
// token and the parent must outlive it.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

#include "core/status.h"
#include "core/turn.h"

namespace docwright {

class WorkBudget {
 public:
  // What is counted. Each meter has its own limit.
  enum class Meter {
    kEntries,        // tree entries visited (files, folders, links, submodules)
    kBytesRead,      // bytes of files read from the repository or the workspace
    kBytesSearched,  // bytes scanned by a regular expression
    kSteps,          // docs work: nodes parsed, links resolved, lines scanned
    kCount,
  };
  static constexpr size_t kMeters = static_cast<size_t>(Meter::kCount);
  static constexpr uint64_t kUnlimited = UINT64_MAX;

  struct Limits {
    uint64_t entries = kUnlimited;
    uint64_t bytes_read = kUnlimited;
    uint64_t bytes_searched = kUnlimited;
    uint64_t steps = kUnlimited;
  };

  // The limits of one turn (docs/operations.md, "Limits of a turn"): far above
  // what a large real docs site needs in a whole turn (a site of 10,000 pages of
  // 10 KiB is 100 MiB read once), far below what would hurt the node.
  static Limits TurnLimits();

  // `cancel` (may be null) and `deadline` end the budget as a spent meter does.
  explicit WorkBudget(
      Limits limits, const CancelToken* cancel = nullptr,
      std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max(),
      WorkBudget* parent = nullptr);
  WorkBudget(const WorkBudget&) = delete;
  WorkBudget& operator=(const WorkBudget&) = delete;

  // Takes `amount` from `meter` (and from the parent's); false, and false ever
  // after, once a meter is spent, the token is cancelled or the deadline passed.
  // Cheap: the clock and the token are looked at once per kUnitsBetweenLooks
  // units charged, whatever the meter.
  bool Charge(Meter meter, uint64_t amount = 1);
  // Looks at the token and the clock now; false once spent.
  bool Check();

  // Why the budget is spent: kNone while it is not. A parent's ending counts.
  enum class Why { kNone, kLimit, kCancelled, kDeadline };
  Why why() const { return why_ != Why::kNone || !parent_ ? why_ : parent_->why(); }
  // Spent by its own limit (not a parent's).
  bool own_limit_reached() const { return why_ == Why::kLimit; }
  bool spent() const { return why() != Why::kNone; }
  bool cancelled() const;
  // OK while not spent; else ResourceExhausted naming the limit that was reached
  // ("the turn's limit of 2000000 tree entries visited was reached"), or Cancelled.
  Status status() const;
  uint64_t used(Meter meter) const { return used_[static_cast<size_t>(meter)]; }

  // How many units of any meter are charged between two looks at the clock and
  // the token: a few milliseconds of the slowest work charged per unit.
  static constexpr uint64_t kUnitsBetweenLooks = 4096;

 private:
  void Look();

  std::array<uint64_t, kMeters> limit_{};
  std::array<uint64_t, kMeters> used_{};
  const CancelToken* cancel_;
  std::chrono::steady_clock::time_point deadline_;
  WorkBudget* parent_;
  uint64_t until_look_ = 0;
  Why why_ = Why::kNone;
  Meter spent_meter_ = Meter::kEntries;
};

// A meter's name in a sentence: "tree entries visited", "bytes read", ...
const char* MeterName(WorkBudget::Meter meter);

}  // namespace docwright
