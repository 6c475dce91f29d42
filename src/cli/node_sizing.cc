#include "cli/node_sizing.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <vector>

#include "http/server.h"

namespace docwright {
namespace {

// The kernel's files read here are a few KiB at most; anything longer is not
// what the kernel writes and is not read at all.
constexpr size_t kMaxSystemFileBytes = 64 << 10;
// A cgroup's path is at most a page; its ancestors are looked at up to this
// many levels (and the root).
constexpr size_t kMaxCgroupPathBytes = 4096;
constexpr int kMaxCgroupLevels = 64;

// The file's whole text, or nullopt if it cannot be read or is over `max`.
std::optional<std::string> ReadSmallFile(const std::string& path,
                                         size_t max = kMaxSystemFileBytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buf[4096];
  bool ok = true;
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || text.size() + static_cast<size_t>(n) > max) {
      ok = false;
      break;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!ok) return std::nullopt;
  return text;
}

std::string_view Trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// Digits only, no sign, within uint64_t.
std::optional<uint64_t> ParseDigits(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

std::optional<uint64_t> Lowest(std::optional<uint64_t> a, std::optional<uint64_t> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

// The lowest `file` (memory.max, pids.max) of the cgroup at `path` and its
// ancestors up to the root of `root`: a parent's limit holds its children too.
// A missing or unreadable file (the root has none) bounds nothing.
std::optional<uint64_t> LowestCgroupLimit(const std::string& root, const std::string& path,
                                          const char* file) {
  std::optional<uint64_t> lowest;
  std::string at = path;
  for (int level = 0; level < kMaxCgroupLevels && at.size() > 1; ++level) {
    if (auto text = ReadSmallFile(root + at + "/" + file)) {
      lowest = Lowest(lowest, ParseLimitNumber(*text));
    }
    at.resize(at.rfind('/'));
    if (at.empty()) at = "/";
  }
  if (auto text = ReadSmallFile(root + "/" + file)) {
    lowest = Lowest(lowest, ParseLimitNumber(*text));
  }
  return lowest;
}

std::optional<uint64_t> SoftLimit(int resource) {
  rlimit lim{};
  if (getrlimit(resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<uint64_t>(lim.rlim_cur);
}

uint64_t Left(uint64_t limit, uint64_t beside) { return limit > beside ? limit - beside : 0; }

// "24 GiB", "23.4 GiB", "512 MiB".
std::string FormatBytes(uint64_t bytes) {
  constexpr uint64_t kMiB = uint64_t{1} << 20, kGiB = uint64_t{1} << 30;
  const uint64_t unit = bytes >= kGiB ? kGiB : kMiB;
  char buf[48];
  const double n = static_cast<double>(bytes) / static_cast<double>(unit);
  const bool whole = bytes % unit == 0 || n >= 100;
  std::snprintf(buf, sizeof buf, whole ? "%.0f %s" : "%.1f %s", n, unit == kGiB ? "GiB" : "MiB");
  return buf;
}

std::string LimitsText(const NodeLimits& l) {
  std::string text = l.memory_bytes
                         ? FormatBytes(*l.memory_bytes) + " of memory (" +
                               (l.memory_from_cgroup ? "the cgroup's memory.max" : "MemTotal") + ")"
                         : "memory unknown";
  if (l.descriptors) {
    text += ", " + std::to_string(*l.descriptors) + " descriptors";
    if (l.descriptors_found && *l.descriptors_found < *l.descriptors) {
      text += " (soft limit raised from " + std::to_string(*l.descriptors_found) + ")";
    }
  } else {
    text += ", no descriptor limit";
  }
  text += l.threads ? ", " + std::to_string(*l.threads) + " threads" : ", no thread limit";
  return text;
}

}  // namespace

WorkerSizing SizeWorkers(const NodeLimits& limits, int max_workers) {
  uint64_t turns = kMostDefaultWorkers;
  std::string bound = "the default's most";
  auto consider = [&](std::optional<uint64_t> allowed, std::string what) {
    if (allowed && *allowed < turns) {
      turns = *allowed;
      bound = std::move(what);
    }
  };
  if (limits.memory_bytes) {
    consider(*limits.memory_bytes / kTurnMemoryShare / kTurnMemoryBytes,
             "1/" + std::to_string(kTurnMemoryShare) + " of the memory at " +
                 FormatBytes(kTurnMemoryBytes) + " a turn");
  }
  if (limits.descriptors) {
    consider(Left(*limits.descriptors, kDescriptorsBesideTurns) / 2 / kTurnDescriptors,
             "half the descriptors left at " + std::to_string(kTurnDescriptors) + " a turn");
  }
  if (limits.threads) {
    consider(Left(*limits.threads, kThreadsBesideTurns) / kTurnThreads,
             "the threads left at " + std::to_string(kTurnThreads) + " a turn");
  }
  WorkerSizing sized;
  if (turns < static_cast<uint64_t>(kLeastDefaultWorkers)) {
    bound = "the default's least; " + bound + " would allow " + std::to_string(turns);
    turns = kLeastDefaultWorkers;
  }
  if (turns > static_cast<uint64_t>(std::max(max_workers, 0))) {
    turns = static_cast<uint64_t>(std::max(max_workers, 0));
    bound = "the most --workers takes";
  }
  sized.workers = static_cast<int>(turns);
  sized.why = std::to_string(turns) + " turns in flight (" + bound + "): " + LimitsText(limits) +
              "; --workers sets another number";
  return sized;
}

NodeLimits ReadNodeLimits(const SystemFiles& files) {
  NodeLimits l;
  l.descriptors_found = SoftLimit(RLIMIT_NOFILE);
  const size_t raised = RaiseOpenFileLimit();
  if (raised != SIZE_MAX) l.descriptors = raised;

  std::optional<std::string> cgroup;
  if (auto text = ReadSmallFile(files.proc + "/self/cgroup")) cgroup = ParseCgroupV2Path(*text);
  std::optional<uint64_t> total;
  if (auto text = ReadSmallFile(files.proc + "/meminfo")) total = ParseMemTotal(*text);
  std::optional<uint64_t> cgroup_memory;
  if (cgroup) cgroup_memory = LowestCgroupLimit(files.cgroup, *cgroup, "memory.max");
  l.memory_bytes = Lowest(cgroup_memory, total);
  l.memory_from_cgroup = cgroup_memory && (!total || *cgroup_memory < *total);

  l.threads = SoftLimit(RLIMIT_NPROC);
  if (auto text = ReadSmallFile(files.proc + "/sys/kernel/threads-max")) {
    l.threads = Lowest(l.threads, ParseLimitNumber(*text));
  }
  if (cgroup) l.threads = Lowest(l.threads, LowestCgroupLimit(files.cgroup, *cgroup, "pids.max"));
  return l;
}

int NodeWorkers(int given, int max_workers) {
  if (given >= 0) return given;
  WorkerSizing sized = SizeWorkers(ReadNodeLimits(), max_workers);
  spdlog::info("{}", sized.why);
  return sized.workers;
}

std::optional<std::string> ParseCgroupV2Path(std::string_view text) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!line.starts_with("0::")) continue;  // cgroup v1: "N:controllers:/path"
    std::string_view path = line.substr(3);
    if (path.empty() || path.front() != '/' || path.size() > kMaxCgroupPathBytes) {
      return std::nullopt;
    }
    for (char c : path) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return std::nullopt;
    }
    // No part may climb out of the hierarchy, or name the folder itself.
    std::string_view rest = path.substr(1);
    while (!rest.empty()) {
      size_t slash = rest.find('/');
      std::string_view part = rest.substr(0, slash);
      if (part == "." || part == ".." || (part.empty() && slash != std::string_view::npos)) {
        return std::nullopt;
      }
      rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    }
    if (path.size() > 1 && path.back() == '/') return std::nullopt;
    return std::string(path);
  }
  return std::nullopt;
}

std::optional<uint64_t> ParseLimitNumber(std::string_view text) {
  std::string_view s = Trim(text);
  if (s == "max") return std::nullopt;
  return ParseDigits(s);
}

std::optional<uint64_t> ParseMemTotal(std::string_view meminfo) {
  while (!meminfo.empty()) {
    size_t end = meminfo.find('\n');
    std::string_view line = meminfo.substr(0, end);
    meminfo = end == std::string_view::npos ? std::string_view() : meminfo.substr(end + 1);
    if (!line.starts_with("MemTotal:")) continue;
    std::string_view value = Trim(line.substr(9));
    size_t digits = 0;
    while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9') ++digits;
    auto kib = ParseDigits(value.substr(0, digits));
    std::string_view unit = Trim(value.substr(digits));
    if (!kib || (unit != "kB" && !unit.empty())) return std::nullopt;
    if (*kib > UINT64_MAX / 1024) return std::nullopt;
    return *kib * 1024;
  }
  return std::nullopt;
}

}  // namespace docwright
