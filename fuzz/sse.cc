// The Server-Sent Events parser (client/sse.h), fed any bytes in pieces cut
// anywhere: the events do not depend on where the stream was cut; no event
// holds a line break outside its data or more data than the cap; an error is
// an error whatever the cut.
#include <string>
#include <vector>

#include "client/sse.h"
#include "fuzz_check.h"

namespace {

struct Run {
  std::vector<docwright::ServerSentEvent> events;
  bool failed = false;
  std::string last_event_id;
  std::optional<std::chrono::milliseconds> retry;
};

constexpr docwright::SseLimits kLimits{.max_line = 256, .max_data = 1024};

// `text` fed in pieces of `step` bytes (0: at once).
Run Parse(std::string_view text, size_t step) {
  Run run;
  docwright::SseParser parser(kLimits);
  auto keep = [&](const docwright::ServerSentEvent& e) {
    run.events.push_back(e);
    return true;
  };
  for (size_t i = 0; i < text.size() || i == 0; i += step == 0 ? text.size() + 1 : step) {
    if (!parser.Feed(text.substr(i, step == 0 ? std::string_view::npos : step), keep).ok()) {
      run.failed = true;
      break;
    }
  }
  run.last_event_id = parser.last_event_id();
  run.retry = parser.retry();
  return run;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  if (size == 0) return 0;
  // The first byte chooses the size of the pieces; the rest is the stream.
  const size_t step = data[0] % 17 + 1;
  std::string_view text = fuzz::AsText(data + 1, size - 1);
  Run whole = Parse(text, 0);
  Run cut = Parse(text, step);
  FUZZ_CHECK(whole.failed == cut.failed);
  if (whole.failed) return 0;
  FUZZ_CHECK(whole.events.size() == cut.events.size());
  for (size_t i = 0; i < whole.events.size(); ++i) {
    const ServerSentEvent& a = whole.events[i];
    const ServerSentEvent& b = cut.events[i];
    FUZZ_CHECK(a.type == b.type && a.data == b.data && a.last_event_id == b.last_event_id);
    FUZZ_CHECK(!a.type.empty() && a.type.size() <= kLimits.max_line);
    FUZZ_CHECK(a.type.find_first_of("\r\n") == std::string::npos);
    FUZZ_CHECK(a.last_event_id.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
    FUZZ_CHECK(a.data.find('\r') == std::string::npos);
    FUZZ_CHECK(a.data.size() < kLimits.max_data);
  }
  FUZZ_CHECK(whole.last_event_id == cut.last_event_id);
  FUZZ_CHECK(whole.retry == cut.retry);
  return 0;
}
