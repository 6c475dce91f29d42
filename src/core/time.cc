#include "core/time.h"

#include <chrono>
#include <ctime>

namespace docwright {

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

}  // namespace docwright
