#include "core/cron.h"

#include <date/tz.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <exception>
#include <vector>

#include "core/text.h"

namespace docwright {

namespace {

constexpr int64_t kSecondsPerDay = 86400;
// How far ahead NextAfter looks: eight years of days, and a little more, so a
// schedule of one day in four years ("0 0 29 2 *") always finds its next day.
constexpr int64_t kHorizonSeconds = (8 * 366 + 2) * kSecondsPerDay;
// The times NextAfter answers for (1900-01-01 to 9000-01-01 UTC): beyond them
// the calendar arithmetic would need care no schedule needs.
constexpr int64_t kMinSeconds = -2208988800;
constexpr int64_t kMaxSeconds = 221845392000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

struct Civil {
  int64_t year;
  unsigned month;    // 1..12
  unsigned day;      // 1..31
  unsigned weekday;  // 0 = Sunday
};

// The proleptic Gregorian date of a day counted from 1970-01-01 (the
// days_from_civil algorithm's inverse, as in Howard Hinnant's date library).
Civil CivilFromDays(int64_t z) {
  unsigned weekday = static_cast<unsigned>(((z % 7) + 7 + 4) % 7);  // 1970-01-01 was a Thursday
  z += 719468;
  const int64_t era = FloorDiv(z, 146097);
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<int64_t>(yoe) + era * 400 + (m <= 2), m, d, weekday};
}

// --- Time zones ------------------------------------------------------------------

// The zone of `name`: nullptr for "UTC" (no database needed: it always works),
// nullopt if unknown. IANA names are ASCII letters, digits and "/_+-": anything
// else is refused before the library sees it.
std::optional<const date::time_zone*> LocateZone(std::string_view name) {
  if (name == "UTC") return nullptr;
  if (name.empty() || name.size() > kMaxTimeZoneChars || name.front() == '/' ||
      name.back() == '/') {
    return std::nullopt;
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '/' || c == '_' || c == '+' || c == '-';
    if (!ok) return std::nullopt;
  }
  try {
    const date::time_zone* zone = date::locate_zone(std::string(name));
    // Reading the zone's data once here makes a broken file an unknown zone,
    // not a failure of a later NextAfter.
    if (zone != nullptr) zone->get_info(date::sys_seconds{});
    return zone;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A stretch of time with one UTC offset: UTC seconds [begin, end).
struct Period {
  int64_t begin;
  int64_t end;
  int64_t offset;  // seconds east of UTC
};

Period PeriodAt(const date::time_zone* zone, int64_t utc) {
  if (zone == nullptr) return {INT64_MIN / 4, INT64_MAX / 4, 0};
  date::sys_info info = zone->get_info(date::sys_seconds{std::chrono::seconds{utc}});
  return {info.begin.time_since_epoch().count(), info.end.time_since_epoch().count(),
          static_cast<int64_t>(info.offset.count())};
}

// The instant a fixed wall-clock time `local` (seconds, as if the zone were
// UTC) fires at: the first time the clock shows it or later. That is the time
// itself when it occurs once; the end of the gap when a jump forward skips it;
// its first occurrence when a jump back repeats it.
int64_t WallTimeInstant(const date::time_zone* zone, int64_t local) {
  if (zone == nullptr) return local;
  date::local_info info = zone->get_info(date::local_seconds{std::chrono::seconds{local}});
  if (info.result == date::local_info::nonexistent)
    return info.first.end.time_since_epoch().count();
  return local - info.first.offset.count();
}

// --- Fields ----------------------------------------------------------------------

struct FieldSpec {
  const char* name;
  int min;
  int max;
  // Names for the values from names_base on ("jan" = 1, "sun" = 0), or none.
  const std::array<const char*, 12>* names;
  int names_count;
  int names_base;
};

constexpr std::array<const char*, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                     "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<const char*, 12> kDayNames = {"sun", "mon", "tue", "wed", "thu", "fri",
                                                   "sat", "",    "",    "",    "",    ""};

const FieldSpec kFields[5] = {
    {"minute", 0, 59, nullptr, 0, 0},
    {"hour", 0, 23, nullptr, 0, 0},
    {"day-of-month", 1, 31, nullptr, 0, 0},
    {"month", 1, 12, &kMonthNames, 12, 1},
    // 7 is Sunday too; folded onto 0 once parsed.
    {"day-of-week", 0, 7, &kDayNames, 7, 0},
};

Status FieldError(const FieldSpec& spec, std::string_view field, std::string_view why) {
  return Status::InvalidArgument("cron: the " + std::string(spec.name) + " field \"" +
                                 std::string(field) + "\": " + std::string(why));
}

// A number (at most three digits: no field goes higher) or a name of the field.
std::optional<int> ParseValue(const FieldSpec& spec, std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text[0] >= '0' && text[0] <= '9') {
    if (text.size() > 3) return std::nullopt;
    int v = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  }
  if (spec.names == nullptr || text.size() != 3) return std::nullopt;
  for (int i = 0; i < spec.names_count; ++i) {
    const char* n = (*spec.names)[i];
    bool same = true;
    for (size_t k = 0; k < 3; ++k) {
      char c = text[k];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != n[k]) same = false;
    }
    if (same) return spec.names_base + i;
  }
  return std::nullopt;
}

// One field: a comma-separated list of `*`, values and ranges, each with an
// optional step, into the bits of its values. `star` says whether the field
// starts with `*` (cron's test of "restricted").
Status ParseField(const FieldSpec& spec, std::string_view field, uint64_t* bits, bool* star) {
  *bits = 0;
  *star = !field.empty() && field.front() == '*';
  size_t start = 0;
  while (start <= field.size()) {
    size_t comma = field.find(',', start);
    std::string_view item = field.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    start = comma == std::string_view::npos ? field.size() + 1 : comma + 1;
    if (item.empty()) return FieldError(spec, field, "an empty list item");
    std::string_view range = item;
    int step = 1;
    bool has_step = false;
    if (size_t slash = item.find('/'); slash != std::string_view::npos) {
      range = item.substr(0, slash);
      std::string_view step_text = item.substr(slash + 1);
      bool digits = !step_text.empty() && step_text.size() <= 3 &&
                    std::all_of(step_text.begin(), step_text.end(),
                                [](char c) { return c >= '0' && c <= '9'; });
      if (!digits) return FieldError(spec, field, "a step must be a number");
      step = std::stoi(std::string(step_text));
      if (step < 1 || step > spec.max - spec.min + 1) {
        return FieldError(spec, field,
                          "a step must be 1 to " + std::to_string(spec.max - spec.min + 1));
      }
      has_step = true;
    }
    int lo = 0;
    int hi = 0;
    if (range == "*") {
      lo = spec.min;
      hi = spec.max;
    } else {
      size_t dash = range.find('-');
      std::optional<int> a = ParseValue(spec, range.substr(0, dash));
      if (!a) {
        return FieldError(spec, field,
                          "\"" + std::string(range.substr(0, dash)) + "\" is not a " +
                              (spec.names ? "number or name" : "number"));
      }
      lo = hi = *a;
      if (dash != std::string_view::npos) {
        std::optional<int> b = ParseValue(spec, range.substr(dash + 1));
        if (!b) {
          return FieldError(spec, field,
                            "\"" + std::string(range.substr(dash + 1)) + "\" is not a " +
                                (spec.names ? "number or name" : "number"));
        }
        hi = *b;
        // "mon-sun": Sunday as the end of a range is 7.
        if (spec.max == 7 && hi == 0 && lo > 0) hi = 7;
      } else if (has_step) {
        return FieldError(spec, field, "a step needs a range or *, as in 0-30/5 or */5");
      }
      if (lo < spec.min || lo > spec.max || hi < spec.min || hi > spec.max) {
        return FieldError(
            spec, field,
            "values must be " + std::to_string(spec.min) + " to " + std::to_string(spec.max));
      }
      if (lo > hi) return FieldError(spec, field, "a range must not run backwards");
    }
    for (int v = lo; v <= hi; v += step) *bits |= uint64_t{1} << v;
  }
  return Status();
}

// The five fields of a shorthand.
std::optional<std::string_view> Shorthand(std::string_view name) {
  std::string lower;
  for (char c : name) lower.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  if (lower == "@hourly") return "0 * * * *";
  if (lower == "@daily" || lower == "@midnight") return "0 0 * * *";
  if (lower == "@weekly") return "0 0 * * 0";
  if (lower == "@monthly") return "0 0 1 * *";
  if (lower == "@yearly" || lower == "@annually") return "0 0 1 1 *";
  return std::nullopt;
}

// The fields NextAfter matches, as plain values.
struct Fields {
  uint64_t minutes;
  uint32_t hours;
  uint32_t days_of_month;
  uint16_t months;
  uint8_t days_of_week;
  bool dom_star;
  bool dow_star;
};

bool DayMatches(const Fields& f, int64_t day) {
  Civil c = CivilFromDays(day);
  if (!((f.months >> c.month) & 1)) return false;
  bool dom = (f.days_of_month >> c.day) & 1;
  bool dow = (f.days_of_week >> c.weekday) & 1;
  // Cron's rule: when both day fields are restricted, either may match.
  return (f.dom_star || f.dow_star) ? (dom && dow) : (dom || dow);
}

// The first whole minute at or after `from` and before `limit` (local seconds)
// that the fields match, walking days: at most (limit - from) / 1 day of them.
std::optional<int64_t> NextMatchingMinute(const Fields& f, int64_t from, int64_t limit) {
  int64_t minute = FloorDiv(from + 59, 60);
  int64_t day = FloorDiv(minute, 1440);
  int first_minute_of_day = static_cast<int>(minute - day * 1440);
  for (; day * kSecondsPerDay < limit; ++day, first_minute_of_day = 0) {
    if (!DayMatches(f, day)) continue;
    const int first_hour = first_minute_of_day / 60;
    for (int h = first_hour; h < 24; ++h) {
      if (!((f.hours >> h) & 1)) continue;
      for (int m = h == first_hour ? first_minute_of_day % 60 : 0; m < 60; ++m) {
        if (!((f.minutes >> m) & 1)) continue;
        int64_t t = day * kSecondsPerDay + h * 3600 + m * 60;
        if (t >= limit) return std::nullopt;
        return t;
      }
    }
  }
  return std::nullopt;
}

// A schedule at fixed wall-clock times. Its firing instant never decreases as
// the wall time grows (WallTimeInstant is "the first time the clock shows it or
// later"), so the answer is the first matching wall time above the highest
// reading the clock has shown up to `after`: its reading then, or, in the hour
// after a jump back, the reading just before the jump.
std::optional<int64_t> NextAtWallTime(const Fields& f, const date::time_zone* zone, int64_t after,
                                      int64_t horizon) {
  Period now = PeriodAt(zone, after);
  int64_t shown = after + now.offset;
  int64_t begin = now.begin;
  for (int i = 0; zone != nullptr && i < 2 && begin > kMinSeconds; ++i) {
    Period before = PeriodAt(zone, begin - 1);
    shown = std::max(shown, begin - 1 + before.offset);
    begin = before.begin;
  }
  int64_t from = shown + 1;
  // The bound is a safety net: the first wall time found fires after `after`.
  for (int guard = 0; guard < 1000; ++guard) {
    std::optional<int64_t> local = NextMatchingMinute(f, from, horizon + kSecondsPerDay);
    if (!local) return std::nullopt;
    int64_t at = WallTimeInstant(zone, *local);
    if (at > horizon) return std::nullopt;
    if (at > after) return at;
    from = *local + 60;
  }
  return std::nullopt;
}

// A schedule with a wildcard hour follows the clock: within each stretch of
// one offset, the first instant whose reading matches.
std::optional<int64_t> NextFollowingClock(const Fields& f, const date::time_zone* zone,
                                          int64_t after, int64_t horizon) {
  int64_t t = after + 1;
  for (int guard = 0; guard < 1000 && t <= horizon; ++guard) {
    Period p = PeriodAt(zone, t);
    int64_t end = std::min(p.end, horizon + 1);
    if (std::optional<int64_t> local = NextMatchingMinute(f, t + p.offset, end + p.offset)) {
      return *local - p.offset;
    }
    t = std::max(end, t + 1);
  }
  return std::nullopt;
}

}  // namespace

Result<CronSchedule> CronSchedule::Parse(std::string_view expression, std::string_view time_zone) {
  if (expression.size() > kMaxCronChars) {
    return Status::InvalidArgument("cron: the expression is longer than " +
                                   std::to_string(kMaxCronChars) + " characters");
  }
  for (char c : expression) {
    if ((c < 0x20 || c > 0x7e) && c != '\t') {
      return Status::InvalidArgument("cron: the expression must be printable ASCII");
    }
  }
  size_t first = expression.find_first_not_of(" \t");
  size_t last = expression.find_last_not_of(" \t");
  std::string_view trimmed = first == std::string_view::npos
                                 ? std::string_view()
                                 : expression.substr(first, last - first + 1);
  if (trimmed.empty()) return Status::InvalidArgument("cron: the expression is empty");

  std::string_view fields_text = trimmed;
  if (trimmed.front() == '@') {
    std::optional<std::string_view> five = Shorthand(trimmed);
    if (!five) {
      return Status::InvalidArgument(
          "cron: unknown shorthand \"" + std::string(trimmed) +
          "\"; known: @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually");
    }
    fields_text = *five;
  }
  std::vector<std::string_view> fields;
  for (size_t i = 0; i < fields_text.size();) {
    size_t j = fields_text.find_first_of(" \t", i);
    if (j == std::string_view::npos) j = fields_text.size();
    if (j > i) fields.push_back(fields_text.substr(i, j - i));
    i = j + 1;
  }
  if (fields.size() != 5) {
    return Status::InvalidArgument(
        "cron: expected five fields (minute hour day-of-month month day-of-week) or a shorthand "
        "such as @daily, got " +
        std::to_string(fields.size()));
  }

  CronSchedule s;
  uint64_t bits[5];
  bool stars[5];
  for (size_t i = 0; i < 5; ++i) {
    if (Status st = ParseField(kFields[i], fields[i], &bits[i], &stars[i]); !st.ok()) return st;
  }
  std::optional<const date::time_zone*> zone = LocateZone(time_zone);
  if (!zone) {
    return Status::InvalidArgument("cron: \"" + OneLogLine(time_zone, kMaxTimeZoneChars) +
                                   "\" is not a time zone this machine knows (an IANA name such "
                                   "as Europe/Berlin, or UTC)");
  }
  s.expression_ = std::string(trimmed);
  s.time_zone_ = std::string(time_zone);
  s.minutes_ = bits[0];
  s.hours_ = static_cast<uint32_t>(bits[1]);
  s.days_of_month_ = static_cast<uint32_t>(bits[2]);
  s.months_ = static_cast<uint16_t>(bits[3]);
  // Day 7 is Sunday, day 0.
  s.days_of_week_ = static_cast<uint8_t>((bits[4] | (bits[4] >> 7)) & 0x7f);
  s.day_of_month_star_ = stars[2];
  s.day_of_week_star_ = stars[4];
  s.hour_star_ = stars[1];
  s.zone_ = *zone;
  return s;
}

std::optional<UnixMillis> CronSchedule::NextAfter(UnixMillis after) const {
  const int64_t after_seconds = FloorDiv(after, 1000);
  if (minutes_ == 0 || after_seconds < kMinSeconds || after_seconds > kMaxSeconds) {
    return std::nullopt;
  }
  Fields f{minutes_,           hours_,           days_of_month_, months_, days_of_week_,
           day_of_month_star_, day_of_week_star_};
  const auto* zone = static_cast<const date::time_zone*>(zone_);
  const int64_t horizon = after_seconds + kHorizonSeconds;
  try {
    // A fire time is a whole second, so "after `after`" is "after its second".
    std::optional<int64_t> at = hour_star_ ? NextFollowingClock(f, zone, after_seconds, horizon)
                                           : NextAtWallTime(f, zone, after_seconds, horizon);
    if (!at) return std::nullopt;
    return *at * 1000;
  } catch (const std::exception&) {
    // The zone's data could not be read (checked when parsed; a file changed
    // since): no fire time rather than a wrong one.
    return std::nullopt;
  }
}

bool IsKnownTimeZone(std::string_view name) { return LocateZone(name).has_value(); }

std::string FormatInZone(UnixMillis t, std::string_view time_zone) {
  const int64_t seconds = FloorDiv(t, 1000);
  std::optional<const date::time_zone*> zone = LocateZone(time_zone);
  bool utc = !zone || *zone == nullptr;
  int64_t offset = 0;
  if (!utc) {
    try {
      offset = PeriodAt(*zone, seconds).offset;
    } catch (const std::exception&) {
      utc = true;
    }
  }
  const int64_t local = seconds + offset;
  const int64_t day = FloorDiv(local, kSecondsPerDay);
  const int64_t second_of_day = local - day * kSecondsPerDay;
  Civil c = CivilFromDays(day);
  char text[80];
  int n = std::snprintf(
      text, sizeof text, "%04lld-%02u-%02uT%02d:%02d:%02d", static_cast<long long>(c.year), c.month,
      c.day, static_cast<int>(second_of_day / 3600), static_cast<int>(second_of_day / 60 % 60),
      static_cast<int>(second_of_day % 60));
  std::string out(text, n > 0 ? static_cast<size_t>(n) : 0);
  if (utc) {
    out += 'Z';
  } else {
    int64_t minutes = (offset < 0 ? -offset : offset) / 60;
    std::snprintf(text, sizeof text, "%c%02d:%02d", offset < 0 ? '-' : '+',
                  static_cast<int>(minutes / 60), static_cast<int>(minutes % 60));
    out += text;
  }
  return out;
}

}  // namespace docwright
