#include "core/event.h"

#include "core/job_json.h"
#include "core/json_writer.h"

namespace docwright {
namespace {

constexpr EventType kAll[] = {
    EventType::kJobCreated,         EventType::kMessageAdded, EventType::kTurnStarted,
    EventType::kTurnStep,           EventType::kTurnEnded,    EventType::kPullRequestOpened,
    EventType::kPullRequestUpdated, EventType::kJobCompleted, EventType::kJobFailed,
    EventType::kJobArchived,
};

template <typename Fn>
std::string Object(Fn&& fn) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  fn(w);
  w.EndObject();
  return out;
}

}  // namespace

std::string_view EventTypeName(EventType type) {
  switch (type) {
    case EventType::kJobCreated:
      return "job.created";
    case EventType::kMessageAdded:
      return "job.message_added";
    case EventType::kTurnStarted:
      return "turn.started";
    case EventType::kTurnStep:
      return "turn.step";
    case EventType::kTurnEnded:
      return "turn.ended";
    case EventType::kPullRequestOpened:
      return "pull_request.opened";
    case EventType::kPullRequestUpdated:
      return "pull_request.updated";
    case EventType::kJobCompleted:
      return "job.completed";
    case EventType::kJobFailed:
      return "job.failed";
    case EventType::kJobArchived:
      return "job.archived";
  }
  return "job.created";
}

std::optional<EventType> ParseEventType(std::string_view name) {
  for (EventType t : kAll) {
    if (EventTypeName(t) == name) return t;
  }
  return std::nullopt;
}

std::span<const EventType> AllEventTypes() { return kAll; }

std::string JobCreatedData(const Job& job, std::string_view prompt) {
  return Object([&](JsonWriter& w) {
    w.Key("job");
    WriteAgentJob(job, w);
    w.Key("prompt").String(prompt);
  });
}

std::string MessageAddedData(const Job& job, int seq, std::string_view prompt) {
  return Object([&](JsonWriter& w) {
    w.Key("job");
    WriteAgentJob(job, w);
    w.Key("seq").Int(seq);
    w.Key("prompt").String(prompt);
  });
}

std::string TurnStartedData(int seq, int attempt) {
  return Object([&](JsonWriter& w) {
    w.Key("seq").Int(seq);
    w.Key("attempt").Int(attempt);
  });
}

std::string TurnStepData(int seq, int attempt, int index, const TranscriptStep& step) {
  return Object([&](JsonWriter& w) {
    w.Key("seq").Int(seq);
    w.Key("attempt").Int(attempt);
    w.Key("index").Int(index);
    w.Key("step");
    WriteStep(step, w);
  });
}

std::string TurnEndedData(int seq, const TurnOutcome& outcome) {
  return Object([&](JsonWriter& w) {
    w.Key("seq").Int(seq);
    w.Key("outcome").String(outcome.succeeded ? "succeeded" : "failed");
    w.Key("summary").OptString(outcome.summary);
    w.Key("error").OptString(outcome.succeeded ? std::nullopt : outcome.error);
    w.Key("usage");
    WriteUsage(outcome.usage, w);
  });
}

std::string PullRequestData(int seq, std::string_view pr_link) {
  return Object([&](JsonWriter& w) {
    w.Key("seq").Int(seq);
    w.Key("prLink").String(pr_link);
  });
}

std::string JobData(const Job& job) {
  return Object([&](JsonWriter& w) {
    w.Key("job");
    WriteAgentJob(job, w);
  });
}

std::string EventId(const JobEvent& event) {
  return event.job_id + "." + std::to_string(event.sequence);
}

std::string EventJson(const JobEvent& event) {
  return Object([&](JsonWriter& w) {
    w.Key("id").String(EventId(event));
    w.Key("type").String(EventTypeName(event.type));
    w.Key("version").Int(kEventVersion);
    w.Key("timestamp").String(FormatRfc3339(event.created_at));
    w.Key("jobId").String(event.job_id);
    w.Key("projectId").String(event.project_id);
    w.Key("sequence").Int(event.sequence);
    w.Key("data").Raw(event.data);
  });
}

}  // namespace docwright
