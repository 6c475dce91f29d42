#include "api/v1_stream.h"

#include <nlohmann/json.hpp>

#include "core/json_writer.h"

namespace docwright {
namespace {

using Json = nlohmann::json;

// One part: its code, ':', the JSON value `write` writes, a line feed.
template <typename Fn>
std::string Part(char code, Fn&& write) {
  std::string out;
  out.push_back(code);
  out.push_back(':');
  JsonWriter w(&out);
  write(w);
  out.push_back('\n');
  return out;
}

std::string TextPart(std::string_view text) {
  return Part('0', [&](JsonWriter& w) { w.String(text); });
}

// docwright's own event, whole, as a data part.
std::string EventPart(const JobEvent& event) {
  return Part('2', [&](JsonWriter& w) { w.BeginArray().Raw(EventJson(event)).EndArray(); });
}

// A JSON value as compact text, invalid UTF-8 replaced.
std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string StringAt(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t IntAt(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

// The end of the stream for a job in `status`, failed with `error`.
std::string EndFor(JobStatus status, std::string_view error) {
  std::string out;
  std::string_view reason = "unknown";
  switch (status) {
    case JobStatus::kCompleted:
      reason = "stop";
      break;
    case JobStatus::kFailed:
      reason = "error";
      out += Part('3', [&](JsonWriter& w) { w.String(error.empty() ? "the job failed" : error); });
      break;
    case JobStatus::kArchived:
      reason = "other";
      break;
    case JobStatus::kActive:
      break;
  }
  out += Part(
      'd', [&](JsonWriter& w) { w.BeginObject().Key("finishReason").String(reason).EndObject(); });
  return out;
}

// A turn.step event's parts.
std::string StepParts(const JobEvent& event, const Json& data) {
  auto step = data.find("step");
  if (step == data.end() || !step->is_object()) return {};
  std::string type = StringAt(*step, "type");
  if (type == "assistant") {
    std::string text = StringAt(*step, "text");
    // Replies follow one another in one message: a blank line keeps them apart.
    return text.empty() ? std::string() : TextPart(text + "\n\n");
  }
  if (type == "publish") return EventPart(event);
  if (type != "tool") return {};  // context: what the agent told the model
  // Unique within the job: its turn, the turn's attempt, the step's index.
  std::string call_id = "call-" + std::to_string(IntAt(data, "seq")) + "-" +
                        std::to_string(IntAt(data, "attempt")) + "-" +
                        std::to_string(IntAt(data, "index"));
  // The arguments as the model sent them, bounded: an object when they still
  // are one, else kept as text.
  Json args = Json::parse(StringAt(*step, "arguments"), nullptr, /*allow_exceptions=*/false);
  if (!args.is_object()) args = Json{{"input", StringAt(*step, "arguments")}};
  Json result = StringAt(*step, "result");
  auto is_error = step->find("isError");
  if (is_error != step->end() && is_error->is_boolean() && is_error->get<bool>()) {
    result = Json{{"error", result}};
  }
  std::string out = "9:" +
                    Dump(Json{{"toolCallId", call_id},
                              {"toolName", StringAt(*step, "tool")},
                              {"args", std::move(args)}}) +
                    "\n";
  out += "a:" + Dump(Json{{"toolCallId", call_id}, {"result", std::move(result)}}) + "\n";
  return out;
}

std::string TurnEndedParts(const Json& data) {
  std::string out;
  std::string summary = StringAt(data, "summary");
  if (!summary.empty()) out += TextPart(summary);
  const Json empty = Json::object();
  auto usage = data.find("usage");
  const Json& u = usage != data.end() && usage->is_object() ? *usage : empty;
  bool succeeded = StringAt(data, "outcome") == "succeeded";
  out += Part('e', [&](JsonWriter& w) {
    w.BeginObject();
    w.Key("finishReason").String(succeeded ? "stop" : "error");
    w.Key("usage").BeginObject();
    w.Key("promptTokens").Int(IntAt(u, "inputTokens"));
    w.Key("completionTokens").Int(IntAt(u, "outputTokens"));
    w.EndObject();
    w.Key("isContinued").Bool(false);
    w.EndObject();
  });
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> V1StreamHeaders(const Job& job) {
  return {{"X-Vercel-AI-Data-Stream", "v1"},
          {"X-Session-Id", job.id},
          {"X-Branch-Name", job.ref},
          {"Cache-Control", "no-cache"}};
}

std::string V1StreamStart(const Job& job) {
  return Part('2', [&](JsonWriter& w) {
    w.BeginArray().BeginObject();
    w.Key("type").String("session");
    w.Key("sessionId").String(job.id);
    w.Key("branch").String(job.ref);
    w.Key("status").String(ToString(job.status));
    w.EndObject().EndArray();
  });
}

bool V1StreamEnds(const JobEvent& event) {
  return event.type == EventType::kJobCompleted || event.type == EventType::kJobFailed ||
         event.type == EventType::kJobArchived;
}

std::string V1StreamEvent(const JobEvent& event) {
  Json data = Json::parse(event.data, nullptr, /*allow_exceptions=*/false);
  if (!data.is_object()) data = Json::object();
  switch (event.type) {
    case EventType::kJobCreated:
      return {};
    case EventType::kMessageAdded:
    case EventType::kPullRequestOpened:
    case EventType::kPullRequestUpdated:
      return EventPart(event);
    case EventType::kTurnStarted:
      return Part('f', [&](JsonWriter& w) {
        w.BeginObject().Key("messageId").String(event.job_id).EndObject();
      });
    case EventType::kTurnStep:
      return StepParts(event, data);
    case EventType::kTurnEnded:
      return TurnEndedParts(data);
    case EventType::kJobCompleted:
      return EndFor(JobStatus::kCompleted, {});
    case EventType::kJobFailed: {
      auto job = data.find("job");
      return EndFor(JobStatus::kFailed,
                    job != data.end() && job->is_object() ? StringAt(*job, "error") : "");
    }
    case EventType::kJobArchived:
      return EndFor(JobStatus::kArchived, {});
  }
  return {};
}

std::string V1StreamEnd(const Job& job) { return EndFor(job.status, job.error.value_or("")); }

}  // namespace docwright
