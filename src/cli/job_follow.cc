#include "cli/job_follow.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "core/text.h"
#include "core/url.h"

namespace docwright {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// Attempts in a row that brought no event before following gives up.
constexpr int kMaxFailures = 8;
constexpr size_t kMaxLine = 397;  // bytes of a plain line, before "..." when cut

// Text from the job (a prompt, the model's output, a repository's text) made
// safe for a terminal and a log: one line of well-formed UTF-8 without C0 or
// C1 control characters (so no escape sequence), at most `max` bytes.
std::string Safe(std::string_view text, size_t max) {
  std::string line = OneLogLine(text, max);
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    // U+0080..U+009F (C1, CSI among them) are C2 80..C2 9F in UTF-8.
    if (line[i] == '\xC2' && i + 1 < line.size() &&
        static_cast<unsigned char>(line[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(line[i + 1]) <= 0x9F) {
      out += ' ';
      ++i;
      continue;
    }
    out += line[i];
  }
  return out;
}

std::string Text(const Json& j, const char* name) {
  if (!j.is_object() || !j.contains(name) || j[name].is_null()) return "";
  return j[name].is_string() ? j[name].get<std::string>() : j[name].dump();
}

const Json& Member(const Json& j, const char* name) {
  static const Json kNull;
  return j.is_object() && j.contains(name) ? j[name] : kNull;
}

// At most `columns` characters of valid UTF-8 `text` (a wide character counts
// as one: the line may then wrap, once).
std::string Columns(const std::string& text, size_t columns) {
  size_t count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (count++ == columns) return text.substr(0, i);
  }
  return text;
}

size_t TerminalColumns() {
  winsize size{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 80;
  return std::clamp<size_t>(size.ws_col, 20, 500);
}

// A step of a turn, in one line.
std::string StepText(const Json& step) {
  const std::string type = Text(step, "type");
  if (type == "tool") {
    return std::string(Member(step, "isError") == true ? "! " : "") + Safe(Text(step, "tool"), 64) +
           " " + Safe(Text(step, "arguments"), 120) + " -> " + Safe(Text(step, "result"), 120);
  }
  if (type == "publish")
    return Safe(Text(step, "action"), 32) + ": " + Safe(Text(step, "text"), 200);
  return Safe(type, 32) + ": " + Safe(Text(step, "text"), 240);
}

// How the stream's events are shown, and what the job is known to be.
class Printer {
 public:
  Printer(bool json, bool terminal) : json_(json), terminal_(terminal && !json) {}

  void Print(const ServerSentEvent& e) {
    Json event = Json::parse(e.data, nullptr, false);
    if (json_) {
      if (event.is_discarded()) {
        std::cerr << "warning: an event that is not JSON was skipped\n";
      } else {
        std::cout << event.dump() << "\n" << std::flush;
      }
      return;
    }
    const std::string type = Safe(event.is_object() ? Text(event, "type") : e.type, 40);
    const Json& data = Member(event, "data");
    const std::string seq = "#" + Safe(Text(data, "seq"), 12);
    std::string what;  // the event's essentials
    const Json& job = Member(data, "job");
    if (type == "job.created") {
      status_ = Text(job, "status");
      what = "on " + Safe(Text(Member(job, "source"), "ref"), 100) +
             "  prompt: " + Safe(Text(data, "prompt"), 200);
    } else if (type == "job.message_added") {
      status_ = Text(job, "status");
      what = seq + "  prompt: " + Safe(Text(data, "prompt"), 200);
    } else if (type == "turn.started") {
      status_ = "running";
      turn_ = seq;
      steps_ = 0;
      step_.clear();
      what = seq + " attempt " + Safe(Text(data, "attempt"), 12);
    } else if (type == "turn.step") {
      ++steps_;
      step_ = StepText(Member(data, "step"));
      what = seq + " " + step_;
    } else if (type == "turn.ended") {
      status_ = Text(data, "outcome");
      what = seq + " " + Safe(Text(data, "outcome"), 20);
      if (!Text(data, "summary").empty()) what += "  summary: " + Safe(Text(data, "summary"), 240);
      if (!Text(data, "error").empty()) what += "  error: " + Safe(Text(data, "error"), 240);
    } else if (type == "pull_request.opened" || type == "pull_request.updated") {
      what = seq + " " + Safe(Text(data, "prLink"), 200);
    } else if (type == "job.completed" || type == "job.failed" || type == "job.archived") {
      status_ = Text(job, "status");
      what = "status: " + Safe(status_, 20);
      if (!Text(job, "prLink").empty()) what += "  " + Safe(Text(job, "prLink"), 200);
      if (!Text(job, "error").empty()) what += "  error: " + Safe(Text(job, "error"), 240);
    } else {
      what = Safe(e.data, 200);
    }
    if (!terminal_) {
      std::string line = Safe(Text(event, "timestamp"), 40) + " " + type + " " + what;
      std::cout << Safe(line, kMaxLine) << "\n" << std::flush;
      return;
    }
    // A terminal: the milestones on lines of their own, the rest in the
    // progress line.
    std::cout << "\r\x1b[K";
    if (type != "turn.step" && type != "turn.started") std::cout << type << " " << what << "\n";
    std::cout << Columns(Progress(), TerminalColumns() - 1) << std::flush;
  }

  // Ends the progress line, before anything else is printed.
  void Interrupt() {
    if (terminal_) std::cout << "\r\x1b[K" << std::flush;
  }

 private:
  std::string Progress() const {
    std::string line = "[" + Safe(status_.empty() ? "active" : status_, 20) + "]";
    if (!turn_.empty()) line += " turn " + turn_;
    if (steps_ > 0) line += " step " + std::to_string(steps_) + ": " + step_;
    return line;
  }

  const bool json_;
  const bool terminal_;
  std::string status_, turn_, step_;
  int steps_ = 0;
};

bool IsFinal(const std::string& type) {
  return type == "job.completed" || type == "job.failed" || type == "job.archived";
}

int Error(const std::string& message) {
  std::cerr << "error: " << message << "\n";
  return 1;
}

}  // namespace

int FollowJob(ApiClient& client, const FollowOptions& o) {
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  const std::string job_path =
      "/v2/agent/" + PercentEncode(o.project) + "/job/" + PercentEncode(o.job_id);
  Printer printer(o.json, isatty(STDOUT_FILENO) == 1);
  std::string last_id;
  int failures = 0;
  std::random_device random;
  for (;;) {
    bool received = false;
    Json final_event;  // the job.completed, job.failed or job.archived that stopped the stream
    EventStreamEnd end = client.Stream(
        job_path + "/events", last_id,
        [&](const ServerSentEvent& e) {
          received = true;
          printer.Print(e);
          Json event = Json::parse(e.data, nullptr, false);
          if (!event.is_object() || !IsFinal(Text(event, "type"))) return true;
          final_event = std::move(event);
          return false;
        },
        [&] { return Clock::now() >= deadline; });
    last_id = end.last_event_id;
    if (final_event.is_object()) {
      const std::string type = Text(final_event, "type");
      if (type == "job.archived") return 0;  // final: nothing follows it
      // A completed or failed job may have had a follow-up since (the stream
      // starts at the job's first event): it ends here only if this is still
      // the job's state.
      auto now = client.Get(job_path);
      if (!now.ok()) return Error(now.status().message());
      Json job = Json::parse(now->body, nullptr, false);
      if (now->status != 200 || !job.is_object()) {
        return Error("cannot read job " + o.job_id + " (HTTP " + std::to_string(now->status) + ")");
      }
      // Times in one format compare as text. Older than the event: a read
      // from a cache not yet told of it; newer: something happened since.
      const std::string status = Text(job, "status");
      const std::string then = Text(Member(Member(final_event, "data"), "job"), "updatedAt");
      const std::string updated = Text(job, "updatedAt");
      if (updated < then || (updated == then && status != "active")) {
        printer.Interrupt();
        return type == "job.failed" ? 1 : 0;
      }
      failures = 0;
      continue;  // more happened since: read on
    }
    if (Clock::now() >= deadline) {
      printer.Interrupt();
      return Error("timed out following job " + o.job_id);
    }
    const int http_status = end.response.status;
    std::optional<std::chrono::milliseconds> retry_after;
    if (end.status.ok() && http_status / 100 != 2) {
      if (!http::IsRetryable(http_status)) {
        printer.Interrupt();
        Json body = Json::parse(end.response.body, nullptr, false);
        std::string message = Text(body, "error");
        if (message.empty()) message = Safe(end.response.body, 200);
        return Error(Safe(message, 400) + " (HTTP " + std::to_string(http_status) + ")");
      }
      retry_after = http::ParseRetryAfter(end.response.Header("retry-after"));
    } else if (!end.status.ok() && end.status.code() != Code::kUnavailable) {
      printer.Interrupt();
      return Error(end.status.message());
    }
    // The stream ended or broke off: resume after the last event received.
    failures = received ? 1 : failures + 1;
    if (failures > kMaxFailures) {
      printer.Interrupt();
      return Error(
          "gave up following job " + o.job_id + " after " + std::to_string(kMaxFailures) +
          " attempts in a row: " +
          (end.status.ok() ? "HTTP " + std::to_string(http_status) : end.status.message()));
    }
    http::RetryPolicy backoff;
    backoff.base_delay =
        std::clamp(end.retry.value_or(std::chrono::milliseconds(1000)),
                   std::chrono::milliseconds(100), std::chrono::milliseconds(30000));
    backoff.max_delay = std::chrono::milliseconds(30000);
    auto wait = http::RetryDelay(failures, backoff, retry_after, random());
    if (!end.status.ok()) {
      printer.Interrupt();
      std::cerr << "note: " << end.status.message() << "; resuming"
                << (last_id.empty() ? "" : " after event " + Safe(last_id, 40)) << "\n";
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    std::this_thread::sleep_for(std::max(std::chrono::milliseconds(0), std::min(wait, left)));
  }
}

}  // namespace docwright
