#include "core/time.h"

#include <chrono>
#include <ctime>

namespace docwright {
namespace {

// Days from 1970-01-01 to the civil date (proleptic Gregorian), after Howard
// Hinnant's days_from_civil.
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// `n` digits at `*at`, moving past them; false if they are not all digits.
bool Digits(std::string_view s, size_t* at, size_t n, int64_t* out) {
  if (*at + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[*at + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *at += n;
  *out = v;
  return true;
}

bool Expect(std::string_view s, size_t* at, std::string_view any_of) {
  if (*at >= s.size() || any_of.find(s[*at]) == std::string_view::npos) return false;
  ++*at;
  return true;
}

}  // namespace

UnixMillis NowMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string FormatRfc3339(UnixMillis t) {
  std::time_t secs = static_cast<std::time_t>(t / 1000);
  int millis = static_cast<int>(t % 1000);
  if (millis < 0) {
    millis += 1000;
    secs -= 1;
  }
  std::tm tm{};
  gmtime_r(&secs, &tm);
  // Formatted by hand: this runs for every job rendered, and printf is slow.
  char buf[25] = "0000-00-00T00:00:00.000Z";
  auto put = [&buf](int pos, int width, int value) {
    for (int i = pos + width - 1; i >= pos; --i, value /= 10)
      buf[i] = static_cast<char>('0' + value % 10);
  };
  put(0, 4, tm.tm_year + 1900);
  put(5, 2, tm.tm_mon + 1);
  put(8, 2, tm.tm_mday);
  put(11, 2, tm.tm_hour);
  put(14, 2, tm.tm_min);
  put(17, 2, tm.tm_sec);
  put(20, 3, millis);
  return std::string(buf, 24);
}

std::optional<UnixMillis> ParseRfc3339(std::string_view text) {
  const std::optional<UnixMillis> bad;
  size_t at = 0;
  int64_t y, mo, d, h, mi, se;
  if (!Digits(text, &at, 4, &y) || !Expect(text, &at, "-") || !Digits(text, &at, 2, &mo) ||
      !Expect(text, &at, "-") || !Digits(text, &at, 2, &d) || !Expect(text, &at, "Tt ") ||
      !Digits(text, &at, 2, &h) || !Expect(text, &at, ":") || !Digits(text, &at, 2, &mi) ||
      !Expect(text, &at, ":") || !Digits(text, &at, 2, &se)) {
    return bad;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 ||
      d > kDays[mo - 1] + (mo == 2 && IsLeap(y) ? 1 : 0) || h > 23 || mi > 59 || se > 60) {
    return bad;
  }
  int64_t millis = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    size_t digits = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      if (digits < 3) millis = millis * 10 + (text[at] - '0');
      ++digits;
      ++at;
    }
    if (digits == 0) return bad;
    for (size_t i = digits; i < 3; ++i) millis *= 10;
  }
  int64_t offset_minutes = 0;
  if (Expect(text, &at, "Zz")) {
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int sign = text[at] == '-' ? -1 : 1;
    ++at;
    int64_t oh, om;
    if (!Digits(text, &at, 2, &oh) || !Expect(text, &at, ":") || !Digits(text, &at, 2, &om) ||
        oh > 23 || om > 59) {
      return bad;
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return bad;
  }
  if (at != text.size()) return bad;
  if (se == 60) se = 59;  // a leap second: as the second before it
  int64_t seconds = DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset_minutes * 60;
  return seconds * 1000 + millis;
}

}  // namespace docwright
