// A cron schedule in an IANA time zone: when a scheduled workflow fires.
//
// Five fields (minute hour day-of-month month day-of-week) with lists, ranges,
// steps, `*`, month and weekday names (jan..dec, sun..sat; 0 and 7 are Sunday),
// and the shorthands @hourly, @daily (@midnight), @weekly, @monthly, @yearly
// (@annually). Day-of-month and day-of-week combine as cron does: when both are
// restricted, a day matching either fires.
//
// Times are read in the schedule's zone (Debian's tzdata, through
// libhowardhinnant-date), and daylight-saving changes are handled as cron does:
// a fixed time that a jump forward skips fires once, at the end of the gap; a
// fixed time that a jump back repeats fires once, at its first occurrence; a
// schedule with a wildcard hour (every hour, every 15 minutes) follows the
// clock, firing at each real instant its fields match.
//
// Parsing is linear in the expression and bounded (at most kMaxCronChars).
// A CronSchedule is immutable, cheap to copy and safe to share between threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/time.h"

namespace docwright {

inline constexpr size_t kMaxCronChars = 200;
inline constexpr size_t kMaxTimeZoneChars = 64;

class CronSchedule {
 public:
  // InvalidArgument, saying which field is wrong and why (or that the zone is
  // not an IANA zone this machine knows), for anything else.
  static Result<CronSchedule> Parse(std::string_view expression, std::string_view time_zone);

  // The first time the schedule fires strictly after `after` (UTC, ms; fire
  // times are whole minutes); nullopt if it never fires within the next eight
  // years (for example "0 0 30 2 *").
  std::optional<UnixMillis> NextAfter(UnixMillis after) const;

  const std::string& expression() const { return expression_; }
  const std::string& time_zone() const { return time_zone_; }

 private:
  CronSchedule() = default;
  std::string expression_;
  std::string time_zone_;
  // Bit sets of the allowed values of each field, and whether the day fields
  // and the hour field were restricted (the `*` rules above).
  uint64_t minutes_ = 0;
  uint32_t hours_ = 0;
  uint32_t days_of_month_ = 0;
  uint16_t months_ = 0;
  uint8_t days_of_week_ = 0;
  bool day_of_month_star_ = false;
  bool day_of_week_star_ = false;
  bool hour_star_ = false;
  const void* zone_ = nullptr;  // date::time_zone, owned by the library's database
};

// Whether `name` is an IANA time zone this machine knows ("UTC" always is).
bool IsKnownTimeZone(std::string_view name);

// `t` as RFC 3339 in `time_zone`, with its offset ("2026-12-01T09:00:00+01:00");
// in UTC ("...Z") if the zone is unknown.
std::string FormatInZone(UnixMillis t, std::string_view time_zone);

}  // namespace docwright
