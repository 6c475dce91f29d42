// Cron schedules (core/cron.h): every field form, the day rule, the
// shorthands, errors, and daylight-saving changes in real zones (tzdata).
#include "core/cron.h"

#include <date/date.h>
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <string>
#include <vector>

namespace docwright {
namespace {

UnixMillis Utc(int y, unsigned mo, unsigned d, int h = 0, int mi = 0) {
  using namespace std::chrono;
  auto t = date::sys_days{date::year{y} / date::month{mo} / date::day{d}} + hours{h} + minutes{mi};
  return duration_cast<milliseconds>(t.time_since_epoch()).count();
}

CronSchedule Must(std::string_view expression, std::string_view zone = "UTC") {
  Result<CronSchedule> s = CronSchedule::Parse(expression, zone);
  EXPECT_TRUE(s.ok()) << expression << " in " << zone << ": " << s.status().message();
  return s.ok() ? *s : *CronSchedule::Parse("0 0 1 1 *", "UTC");
}

// The first `n` fire times after `after`, as RFC 3339 in UTC ("never" ends them).
std::vector<std::string> Fires(const CronSchedule& s, UnixMillis after, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    std::optional<UnixMillis> t = s.NextAfter(after);
    if (!t) {
      out.push_back("never");
      break;
    }
    EXPECT_GT(*t, after);
    out.push_back(FormatRfc3339(*t));
    after = *t;
  }
  return out;
}

using Times = std::vector<std::string>;

std::string ParseError(std::string_view expression, std::string_view zone = "UTC") {
  Result<CronSchedule> s = CronSchedule::Parse(expression, zone);
  EXPECT_FALSE(s.ok()) << expression << " parsed";
  return s.ok() ? "" : s.status().message();
}

TEST(Cron, FieldForms) {
  EXPECT_EQ(Fires(Must("*/15 * * * *"), Utc(2026, 6, 1, 10, 7), 4),
            (Times{"2026-06-01T10:15:00.000Z", "2026-06-01T10:30:00.000Z",
                   "2026-06-01T10:45:00.000Z", "2026-06-01T11:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("0,20,40 9 * * *"), Utc(2026, 6, 1, 8), 4),
            (Times{"2026-06-01T09:00:00.000Z", "2026-06-01T09:20:00.000Z",
                   "2026-06-01T09:40:00.000Z", "2026-06-02T09:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("0 9-11 * * *"), Utc(2026, 6, 1), 4),
            (Times{"2026-06-01T09:00:00.000Z", "2026-06-01T10:00:00.000Z",
                   "2026-06-01T11:00:00.000Z", "2026-06-02T09:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("10-30/10 8 * * *"), Utc(2026, 6, 1), 4),
            (Times{"2026-06-01T08:10:00.000Z", "2026-06-01T08:20:00.000Z",
                   "2026-06-01T08:30:00.000Z", "2026-06-02T08:10:00.000Z"}));
  EXPECT_EQ(Fires(Must("0 0 1,15 * *"), Utc(2026, 6, 2), 2),
            (Times{"2026-06-15T00:00:00.000Z", "2026-07-01T00:00:00.000Z"}));
  // Every minute, from inside a minute: the next whole one.
  EXPECT_EQ(Fires(Must("* * * * *"), Utc(2026, 6, 1, 10, 7) + 30500, 2),
            (Times{"2026-06-01T10:08:00.000Z", "2026-06-01T10:09:00.000Z"}));
  // Strictly after: a fire time is not its own next.
  EXPECT_EQ(Fires(Must("0 9 * * *"), Utc(2026, 6, 1, 9), 1), (Times{"2026-06-02T09:00:00.000Z"}));
  // Spaces and tabs between fields, around the expression too.
  CronSchedule spaced = Must("  0\t9  * * 1 ");
  EXPECT_EQ(spaced.expression(), "0\t9  * * 1");
  EXPECT_EQ(spaced.time_zone(), "UTC");
}

TEST(Cron, Names) {
  EXPECT_EQ(Fires(Must("0 0 1 jan,JUL *"), Utc(2026, 2, 1), 2),
            (Times{"2026-07-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"}));
  // 2026-06-12 is a Friday.
  EXPECT_EQ(Fires(Must("0 9 * * mon-fri"), Utc(2026, 6, 12, 10), 2),
            (Times{"2026-06-15T09:00:00.000Z", "2026-06-16T09:00:00.000Z"}));
  // Sunday is 0, 7 and "sun"; as a range's end "sun" is 7. 2026-06-01 is a Monday.
  for (const char* sunday : {"0 0 * * 0", "0 0 * * 7", "0 0 * * Sun"}) {
    EXPECT_EQ(Fires(Must(sunday), Utc(2026, 6, 1), 1), (Times{"2026-06-07T00:00:00.000Z"}))
        << sunday;
  }
  EXPECT_EQ(Fires(Must("0 0 * * fri-sun"), Utc(2026, 6, 1), 4),
            (Times{"2026-06-05T00:00:00.000Z", "2026-06-06T00:00:00.000Z",
                   "2026-06-07T00:00:00.000Z", "2026-06-12T00:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("0 0 1 mar-may/2 *"), Utc(2026, 1, 1), 2),
            (Times{"2026-03-01T00:00:00.000Z", "2026-05-01T00:00:00.000Z"}));
}

TEST(Cron, EitherDayFieldWhenBothAreRestricted) {
  // The 13th or a Friday.
  EXPECT_EQ(
      Fires(Must("0 0 13 * fri"), Utc(2026, 6, 1), 5),
      (Times{"2026-06-05T00:00:00.000Z", "2026-06-12T00:00:00.000Z", "2026-06-13T00:00:00.000Z",
             "2026-06-19T00:00:00.000Z", "2026-06-26T00:00:00.000Z"}));
  // One restricted: that one alone.
  EXPECT_EQ(Fires(Must("0 0 13 * *"), Utc(2026, 6, 1), 2),
            (Times{"2026-06-13T00:00:00.000Z", "2026-07-13T00:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("0 0 * * fri"), Utc(2026, 6, 6), 1), (Times{"2026-06-12T00:00:00.000Z"}));
  // A field starting with * is not restricted (cron's rule): both must match.
  EXPECT_EQ(Fires(Must("0 0 */10 * mon"), Utc(2026, 6, 2), 2),
            (Times{"2026-08-31T00:00:00.000Z", "2026-09-21T00:00:00.000Z"}));
}

TEST(Cron, Shorthands) {
  UnixMillis from = Utc(2026, 6, 3, 10, 7);  // a Wednesday
  EXPECT_EQ(Fires(Must("@hourly"), from, 1), (Times{"2026-06-03T11:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("@daily"), from, 1), (Times{"2026-06-04T00:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("@midnight"), from, 1), (Times{"2026-06-04T00:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("@DAILY"), from, 1), (Times{"2026-06-04T00:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("@weekly"), from, 1), (Times{"2026-06-07T00:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("@monthly"), from, 1), (Times{"2026-07-01T00:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("@yearly"), from, 1), (Times{"2027-01-01T00:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("@annually"), from, 1), (Times{"2027-01-01T00:00:00.000Z"}));
  EXPECT_EQ(Must(" @weekly ").expression(), "@weekly");
  EXPECT_NE(ParseError("@reboot").find("shorthand"), std::string::npos);
}

TEST(Cron, ErrorsNameTheField) {
  struct Case {
    const char* expression;
    const char* says;
  };
  for (const Case& c : {
           Case{"60 * * * *", "minute"},
           Case{"*/0 * * * *", "minute"},
           Case{"5/10 * * * *", "minute"},
           Case{"10-5 * * * *", "minute"},
           Case{"1,,2 * * * *", "minute"},
           Case{"-5 * * * *", "minute"},
           Case{"1-2-3 * * * *", "minute"},
           Case{"x * * * *", "minute"},
           Case{"* 24 * * *", "hour"},
           Case{"* mon * * *", "hour"},
           Case{"* * 0 * *", "day-of-month"},
           Case{"* * 32 * *", "day-of-month"},
           Case{"* * * 13 *", "month"},
           Case{"* * * foo *", "month"},
           Case{"* * * * 8", "day-of-week"},
           Case{"* * * * mon-foo", "day-of-week"},
           Case{"0 0 * * 1000", "day-of-week"},
           Case{"* * * *", "five fields"},
           Case{"* * * * * *", "five fields"},
           Case{"", "empty"},
           Case{"   ", "empty"},
       }) {
    std::string message = ParseError(c.expression);
    EXPECT_NE(message.find(c.says), std::string::npos) << c.expression << ": " << message;
  }
  EXPECT_NE(ParseError(std::string(kMaxCronChars + 1, '*')).find("longer"), std::string::npos);
  EXPECT_NE(ParseError("0 0 * * 1\n").find("printable"), std::string::npos);
  EXPECT_NE(ParseError(std::string("0 0 * * \0", 10)).find("printable"), std::string::npos);
}

TEST(Cron, TimeZones) {
  EXPECT_TRUE(IsKnownTimeZone("UTC"));
  EXPECT_TRUE(IsKnownTimeZone("Europe/Berlin"));
  EXPECT_TRUE(IsKnownTimeZone("America/New_York"));
  for (const char* bad : {"", "Mars/Olympus", "Europe/Berlin\n", "../etc/passwd", "/etc/passwd",
                          "Europe/", "europe berlin"}) {
    EXPECT_FALSE(IsKnownTimeZone(bad)) << bad;
  }
  EXPECT_FALSE(IsKnownTimeZone(std::string(kMaxTimeZoneChars + 1, 'A')));
  std::string message = ParseError("0 9 * * *", "Mars/Olympus");
  EXPECT_NE(message.find("Mars/Olympus"), std::string::npos) << message;
  EXPECT_NE(message.find("time zone"), std::string::npos) << message;
  // A hostile zone name comes back in the message as one plain line.
  message = ParseError("0 9 * * *", "Evil\n\x01zone");
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_EQ(Must("0 9 * * *", "Europe/Berlin").time_zone(), "Europe/Berlin");
}

TEST(Cron, FormatInZone) {
  EXPECT_EQ(FormatInZone(Utc(2026, 12, 1, 8), "Europe/Berlin"), "2026-12-01T09:00:00+01:00");
  EXPECT_EQ(FormatInZone(Utc(2026, 7, 1, 7), "Europe/Berlin"), "2026-07-01T09:00:00+02:00");
  EXPECT_EQ(FormatInZone(Utc(2026, 12, 1, 8), "America/New_York"), "2026-12-01T03:00:00-05:00");
  EXPECT_EQ(FormatInZone(Utc(2026, 12, 1, 8), "Asia/Kolkata"), "2026-12-01T13:30:00+05:30");
  EXPECT_EQ(FormatInZone(Utc(2026, 12, 1, 8), "Europe/London"), "2026-12-01T08:00:00+00:00");
  EXPECT_EQ(FormatInZone(Utc(2026, 12, 1, 8), "UTC"), "2026-12-01T08:00:00Z");
  EXPECT_EQ(FormatInZone(Utc(2026, 12, 1, 8) + 999, "UTC"), "2026-12-01T08:00:00Z");
  EXPECT_EQ(FormatInZone(Utc(2026, 12, 1, 8), "Mars/Olympus"), "2026-12-01T08:00:00Z");
  EXPECT_EQ(FormatInZone(Utc(2026, 12, 1, 8), ""), "2026-12-01T08:00:00Z");
}

TEST(Cron, SchedulesReadInTheirZone) {
  EXPECT_EQ(Fires(Must("0 9 * * *", "Europe/Berlin"), Utc(2026, 12, 1), 1),
            (Times{"2026-12-01T08:00:00.000Z"}));
  EXPECT_EQ(Fires(Must("0 9 * * *", "Europe/Berlin"), Utc(2026, 7, 1), 1),
            (Times{"2026-07-01T07:00:00.000Z"}));
  // Midnight in Kolkata is the evening before in UTC.
  EXPECT_EQ(Fires(Must("@daily", "Asia/Kolkata"), Utc(2026, 6, 1, 12), 1),
            (Times{"2026-06-01T18:30:00.000Z"}));
}

TEST(Cron, BerlinSpringForward) {
  // 2026-03-29: 02:00 CET becomes 03:00 CEST (01:00Z); 02:30 does not exist.
  // A fixed time in the gap fires once, at the gap's end.
  EXPECT_EQ(Fires(Must("30 2 * * *", "Europe/Berlin"), Utc(2026, 3, 28, 12), 2),
            (Times{"2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"}));
  EXPECT_EQ(
      Fires(Must("0,30 2 * * *", "Europe/Berlin"), Utc(2026, 3, 28, 12), 3),
      (Times{"2026-03-29T01:00:00.000Z", "2026-03-30T00:00:00.000Z", "2026-03-30T00:30:00.000Z"}));
  // A time after the gap is not moved.
  EXPECT_EQ(Fires(Must("30 3 * * *", "Europe/Berlin"), Utc(2026, 3, 28, 12), 1),
            (Times{"2026-03-29T01:30:00.000Z"}));
  // A wildcard hour follows the clock: the hour that does not exist has no :30.
  EXPECT_EQ(Fires(Must("30 * * * *", "Europe/Berlin"), Utc(2026, 3, 28, 23), 4),
            (Times{"2026-03-28T23:30:00.000Z", "2026-03-29T00:30:00.000Z",
                   "2026-03-29T01:30:00.000Z", "2026-03-29T02:30:00.000Z"}));
}

TEST(Cron, BerlinFallBack) {
  // 2026-10-25: 03:00 CEST becomes 02:00 CET (01:00Z); 02:30 happens twice
  // (00:30Z and 01:30Z). A fixed time fires once, at its first occurrence.
  EXPECT_EQ(Fires(Must("30 2 * * *", "Europe/Berlin"), Utc(2026, 10, 24, 12), 2),
            (Times{"2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"}));
  // Asked from inside the repeated hour, it does not fire again that day.
  EXPECT_EQ(Fires(Must("30 2 * * *", "Europe/Berlin"), Utc(2026, 10, 25, 1), 1),
            (Times{"2026-10-26T01:30:00.000Z"}));
  EXPECT_EQ(Fires(Must("30 2 * * *", "Europe/Berlin"), Utc(2026, 10, 25, 1, 15), 1),
            (Times{"2026-10-26T01:30:00.000Z"}));
  // A wildcard hour fires at each real instant: 02:30 CEST and 02:30 CET.
  EXPECT_EQ(Fires(Must("30 * * * *", "Europe/Berlin"), Utc(2026, 10, 24, 23), 4),
            (Times{"2026-10-24T23:30:00.000Z", "2026-10-25T00:30:00.000Z",
                   "2026-10-25T01:30:00.000Z", "2026-10-25T02:30:00.000Z"}));
}

TEST(Cron, NewYork) {
  // 2026-03-08: 02:00 EST becomes 03:00 EDT (07:00Z).
  EXPECT_EQ(Fires(Must("30 2 * * *", "America/New_York"), Utc(2026, 3, 7, 12), 2),
            (Times{"2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"}));
  // 2026-11-01: 02:00 EDT becomes 01:00 EST (06:00Z); 01:30 happens twice.
  EXPECT_EQ(Fires(Must("30 1 * * *", "America/New_York"), Utc(2026, 10, 31, 12), 2),
            (Times{"2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"}));
  EXPECT_EQ(Fires(Must("0 9 * * mon-fri", "America/New_York"), Utc(2026, 12, 4, 15), 1),
            (Times{"2026-12-07T14:00:00.000Z"}));
}

TEST(Cron, NeverAndRareSchedulesEndQuickly) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Must("0 0 30 2 *").NextAfter(Utc(2026, 1, 1)), std::nullopt);
  EXPECT_EQ(Must("0 0 30 2 *", "Europe/Berlin").NextAfter(Utc(2026, 1, 1)), std::nullopt);
  EXPECT_EQ(Must("* * 31 4 *", "America/New_York").NextAfter(Utc(2026, 1, 1)), std::nullopt);
  EXPECT_EQ(Must("*/5 3 31 11 *", "Europe/Berlin").NextAfter(Utc(2026, 1, 1)), std::nullopt);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(2));
  // Once in four years is within the eight looked at.
  EXPECT_EQ(Fires(Must("0 0 29 2 *", "Europe/Berlin"), Utc(2026, 6, 1), 1),
            (Times{"2028-02-28T23:00:00.000Z"}));
  // Times far outside any calendar a schedule needs: none, and no failure.
  EXPECT_EQ(Must("* * * * *").NextAfter(INT64_MIN), std::nullopt);
  EXPECT_EQ(Must("* * * * *").NextAfter(INT64_MAX), std::nullopt);
}

TEST(Cron, SchedulesAreCopiesThatKeepTheirZone) {
  CronSchedule a = Must("0 9 * * *", "Europe/Berlin");
  CronSchedule b = a;
  EXPECT_EQ(b.NextAfter(Utc(2026, 12, 1)), a.NextAfter(Utc(2026, 12, 1)));
  EXPECT_EQ(b.expression(), "0 9 * * *");
}

}  // namespace
}  // namespace docwright
