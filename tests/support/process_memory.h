// The memory of a process under test, read from /proc, for the tests that bound
// what an attack can make the service hold.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <fstream>
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

}  // namespace docwright::testing
