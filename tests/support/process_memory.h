// The memory and CPU time of a process under test, read from /proc, for the tests that bound
// what an attack can make the service hold.
#pragma once

#include <sys/types.h>

#include <unistd.h>
#include <cstdint>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

// The sanitizers make memory figures meaningless (ASan's shadow and
// quarantine): memory bounds are checked in plain builds only.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DOCWRIGHT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DOCWRIGHT_SANITIZED 1
#endif

namespace docwright::testing {

// A figure of /proc/PID/status in KiB ("VmRSS", "VmHWM": the peak); -1 if unknown.
inline int64_t ProcKib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(field + ":")) return std::stoll(line.substr(field.size() + 1));
  }
  return -1;
}

// The CPU time process `pid` has used (user and system, all its threads), in
// seconds; -1 if unknown.
inline double CpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t end = stat.rfind(')');  // the command may hold spaces
  if (end == std::string::npos) return -1;
  std::istringstream fields(stat.substr(end + 2));
  std::string field;
  double ticks = 0;
  // After the command: state (3), ..., utime (14), stime (15).
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace docwright::testing
