#include "api/views.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <vector>

#include "core/job_json.h"
#include "core/json_writer.h"
#include "core/time.h"
#include "core/version.h"

namespace docwright {
namespace {

HttpResponse Rendered(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

std::string StepJson(const TranscriptStep& step) {
  std::string out;
  JsonWriter w(&out);
  WriteStep(step, w);
  return out;
}

// A prompt, the outcome of its turn, and the turn's steps (each already
// rendered) in order.
std::string MessageJson(const Message& m, std::span<const std::string> steps, size_t omitted,
                        std::string_view currency) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("seq").Int(m.seq);
  w.Key("role").String("user");
  w.Key("prompt").String(m.prompt);
  w.Key("createdAt").String(FormatRfc3339(m.created_at));
  w.Key("turn").BeginObject();
  w.Key("state").String(ToString(m.state));
  w.Key("attempts").Int(m.attempts);
  w.Key("summary").OptString(m.summary);
  w.Key("error").OptString(m.error);
  w.Key("finishedAt");
  WriteOptTime(m.finished_at, w);
  w.Key("usage");
  WriteUsage(TokenUsage{.input_tokens = m.input_tokens,
                        .output_tokens = m.output_tokens,
                        .cached_input_tokens = m.cached_input_tokens,
                        .cache_write_tokens = m.cache_write_tokens},
             w);
  // The model the turn used and the estimated cost of its tokens, as the
  // turn's node priced them when it ended (null: no model, or no price).
  w.Key("model");
  if (m.usage_model.empty()) {
    w.Null();
  } else {
    w.String(m.usage_model);
  }
  w.Key("estimatedCost");
  if (m.cost_micros && !currency.empty()) {
    w.Raw(CostJsonNumber(*m.cost_micros));
  } else {
    w.Null();
  }
  w.Key("steps").BeginArray();
  for (const std::string& step : steps) w.Raw(step);
  w.EndArray();
  if (omitted > 0) w.Key("stepsOmitted").Int(static_cast<int64_t>(omitted));
  w.EndObject();
  w.EndObject();
  return out;
}

struct FittedMessage {
  std::string json;
  size_t size = 0;  // what it counts toward the page's cap
};

// `m` with its `steps`, if it fits in a page that holds `page_bytes` already.
// A message counts its size without steps, and each step one byte more than
// its own. The page's first message always fits: the steps that do not are
// left out and counted. Any other message fits whole or not at all (nullopt:
// it starts the next page).
std::optional<FittedMessage> FitMessage(const Message& m,
                                        std::span<const std::pair<int, TranscriptStep>> steps,
                                        size_t page_bytes, bool first_on_page,
                                        std::string_view currency) {
  size_t size = MessageJson(m, {}, 0, currency).size();
  if (page_bytes + size > kMaxTranscriptPageBytes && !first_on_page) return std::nullopt;
  std::vector<std::string> kept;
  size_t omitted = 0;
  for (const auto& [seq, step] : steps) {
    std::string view = StepJson(step);
    size_t step_size = view.size() + 1;
    if (page_bytes + size + step_size > kMaxTranscriptPageBytes) {
      if (!first_on_page) return std::nullopt;
      ++omitted;
      continue;
    }
    size += step_size;
    kept.push_back(std::move(view));
  }
  return FittedMessage{MessageJson(m, kept, omitted, currency), size};
}

}  // namespace

HttpResponse JobResponse(int status, const Job& job, std::string_view currency) {
  std::string body;
  body.reserve(768);
  JsonWriter w(&body);
  WriteAgentJob(job, w, currency);
  return Rendered(status, std::move(body));
}

HttpResponse JobListResponse(const JobPage& page, std::string_view currency) {
  std::string body;
  JsonWriter w(&body);
  w.BeginObject().Key("jobs").BeginArray();
  for (const Job& j : page.jobs) WriteAgentJob(j, w, currency);
  w.EndArray().Key("nextCursor").OptString(page.next_after_id).EndObject();
  return Rendered(200, std::move(body));
}

HttpResponse TranscriptResponse(const std::string& job_id, const TokenUsage& usage,
                                const MessagePage& page,
                                std::span<const std::pair<int, TranscriptStep>> steps,
                                std::string_view currency) {
  std::string body;
  JsonWriter w(&body);
  w.BeginObject();
  w.Key("jobId").String(job_id);
  w.Key("usage");
  WriteUsage(usage, w);
  w.Key("messages").BeginArray();
  std::optional<int> next_seq = page.next_after_seq;
  std::optional<int> last_seq;  // of the last message on the page
  size_t page_bytes = 0;
  size_t step = 0;  // the first of `steps` not yet given to a message
  for (const Message& m : page.messages) {
    // The message's steps: the run of `steps` with its seq.
    while (step < steps.size() && steps[step].first < m.seq) ++step;
    size_t own = step;
    while (step < steps.size() && steps[step].first == m.seq) ++step;
    auto fitted = FitMessage(m, steps.subspan(own, step - own), page_bytes, !last_seq, currency);
    if (!fitted) {
      next_seq = last_seq;  // this message starts the next page
      break;
    }
    w.Raw(fitted->json);
    page_bytes += fitted->size;
    last_seq = m.seq;
  }
  w.EndArray();
  w.Key("nextCursor");
  if (next_seq) {
    w.String(std::to_string(*next_seq));
  } else {
    w.Null();
  }
  w.EndObject();
  return Rendered(200, std::move(body));
}

HttpResponse HealthResponse() {
  std::string body;
  JsonWriter w(&body);
  w.BeginObject();
  w.Key("status").String("ok");
  w.Key("version").String(Version());
  w.Key("commit").String(Commit());
  w.EndObject();
  return Rendered(200, std::move(body));
}

HttpResponse ResponseFromStatus(const Status& s) {
  switch (s.code()) {
    case Code::kInvalidArgument:
      return ErrorResponse(400, s.message(), "invalid_request");
    case Code::kNotFound:
      return ErrorResponse(404, s.message(), "not_found");
    case Code::kConflict:
      return ErrorResponse(409, s.message(), "conflict");
    case Code::kRateLimited: {
      HttpResponse r = ErrorResponse(429, s.message(), "rate_limited");
      r.headers.emplace_back("Retry-After", std::to_string(s.retry_after_seconds()));
      return r;
    }
    case Code::kUnauthenticated: {
      HttpResponse r = ErrorResponse(401, s.message(), "unauthorized");
      r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"docwright\"");
      return r;
    }
    case Code::kUnavailable: {
      spdlog::warn("request failed: {}", s.message());
      HttpResponse r = ErrorResponse(503, "the service is busy; try again", "unavailable");
      r.headers.emplace_back("Retry-After", "1");
      return r;
    }
    case Code::kOk:
    case Code::kInternal:
    case Code::kResourceExhausted:
      break;
  }
  spdlog::error("request failed: {}", s.message());
  return ErrorResponse(500, "internal error", "internal");
}

HttpResponse MethodNotAllowed(std::string_view allow) {
  HttpResponse r = ErrorResponse(405, "method not allowed; allowed: " + std::string(allow),
                                 "method_not_allowed");
  r.headers.emplace_back("Allow", std::string(allow));
  return r;
}

HttpResponse UnsupportedMediaType() {
  return ErrorResponse(415, "the request body must be JSON (Content-Type: application/json)",
                       "unsupported_media_type");
}

}  // namespace docwright
