#include "core/crash_point.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace docwright {
namespace {

// Read once: the environment is not written after start.
std::string_view Armed() {
  static const std::string_view armed = [] {
    const char* value = std::getenv("DOCWRIGHT_CRASH_AT");
    return value ? std::string_view(value) : std::string_view();
  }();
  return armed;
}

}  // namespace

void CrashPoint(CrashPointName point) {
  std::string_view armed = Armed();
  if (armed.empty() || armed != point.name) return;
  std::string line = "docwright: crash point " + std::string(point.name) + " reached\n";
  // write(2), not a logger: nothing buffered, nothing that takes a lock.
  [[maybe_unused]] ssize_t written = ::write(2, line.data(), line.size());
  ::kill(::getpid(), SIGKILL);
  for (;;) ::pause();  // SIGKILL is delivered before kill() returns, or at once after
}

Status CheckCrashPointSetting() {
  std::string_view armed = Armed();
  if (armed.empty()) return Status();
  std::string known;
  for (std::string_view point : kCrashPoints) {
    if (point == armed) return Status();
    known += (known.empty() ? "" : ", ") + std::string(point);
  }
  return Status::InvalidArgument("DOCWRIGHT_CRASH_AT names no crash point: " + std::string(armed) +
                                 " (known: " + known + ")");
}

std::string_view ArmedCrashPoint() { return Armed(); }

}  // namespace docwright
