#include "workflows/clock_file.h"

#include <spdlog/spdlog.h>

#include <fstream>
#include <memory>

#include "core/mutex.h"
#include "core/text.h"

namespace docwright::workflows {

std::function<UnixMillis()> FileClock(std::string path) {
  struct State {
    Mutex mu;
    std::optional<UnixMillis> last GUARDED_BY(mu);
  };
  auto state = std::make_shared<State>();
  return [path = std::move(path), state]() -> UnixMillis {
    std::string text(100, '\0');
    std::ifstream in(path, std::ios::binary);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(in ? text.size() : static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    Result<UnixMillis> read = Status::Unavailable("cannot read the clock file");
    if (!text.empty()) {
      std::string_view trimmed = Trim(text, " \t\r\n");
      if (auto t = ParseRfc3339(trimmed)) {
        read = *t;
      } else {
        read = Status::InvalidArgument("not an RFC 3339 time (2026-12-01T09:00:00Z): \"" +
                                       OneLogLine(trimmed, 100) + "\"");
      }
    }
    MutexLock lock(state->mu);
    if (read.ok()) {
      state->last = *read;
      return *read;
    }
    spdlog::warn("workflows: the clock file {}: {}", OneLogLine(path, 300),
                 OneLogLine(read.status().message(), 300));
    return state->last.value_or(NowMillis());
  };
}

}  // namespace docwright::workflows
