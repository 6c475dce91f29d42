// Cron expressions and zone names from workflow definitions (core/cron.h).
// The input is "EXPRESSION\nZONE". Whatever it holds: parsing ends, and a
// schedule that parses answers NextAfter with a time after the one asked, or
// none, quickly (the walk is bounded by days, not minutes).
#include <chrono>

#include "core/cron.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view text = fuzz::AsText(data, size);
  size_t newline = text.find('\n');
  std::string_view expression = text.substr(0, newline);
  std::string_view zone =
      newline == std::string_view::npos ? std::string_view("UTC") : text.substr(newline + 1);
  (void)IsKnownTimeZone(zone);
  (void)FormatInZone(1796112000000, zone);
  Result<CronSchedule> schedule = CronSchedule::Parse(expression, zone);
  if (!schedule.ok()) return 0;
  FUZZ_CHECK(schedule->expression().size() <= kMaxCronChars);
  const UnixMillis times[] = {0,
                              1774746000000 /* Berlin's jump forward, 2026 */,
                              1792891800000 /* its jump back */,
                              1796112000123,
                              -1,
                              4102444800000 /* 2100 */};
  auto start = std::chrono::steady_clock::now();
  for (UnixMillis after : times) {
    std::optional<UnixMillis> next = schedule->NextAfter(after);
    if (!next) continue;
    FUZZ_CHECK(*next > after);
    // Within the eight years (and a few days) it looks at.
    FUZZ_CHECK(*next - after <= (8LL * 366 + 3) * 86400000LL);
    // The next one after it comes later still.
    if (std::optional<UnixMillis> again = schedule->NextAfter(*next)) FUZZ_CHECK(*again > *next);
  }
  FUZZ_CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  return 0;
}
