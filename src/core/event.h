// A job's events: what happened to it, in order, in the one vocabulary of the
// event stream, the webhooks and the dashboard (docs/api.md, "Events"). The
// store writes each event in the transaction of the change it records, with
// the payload made here, so every reader sees one shape. Free functions
// without state, callable from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/job.h"
#include "core/time.h"
#include "core/turn.h"

namespace docwright {

// The version of the vocabulary: raised when a payload loses or changes a field
// (fields may be added within a version).
inline constexpr int kEventVersion = 1;

enum class EventType {
  kJobCreated,          // data: {"job", "prompt"}
  kMessageAdded,        // a follow-up; data: {"job", "seq", "prompt"}
  kTurnStarted,         // data: {"seq", "attempt"}
  kTurnStep,            // data: {"seq", "attempt", "index", "step"}
  kTurnEnded,           // data: {"seq", "outcome", "summary", "error", "usage"}
  kPullRequestOpened,   // data: {"seq", "prLink"}
  kPullRequestUpdated,  // data: {"seq", "prLink"}
  kJobCompleted,        // data: {"job"}
  kJobFailed,           // data: {"job"}
  kJobArchived,         // data: {"job"}
};

// "job.created", "job.message_added", "turn.started", "turn.step", "turn.ended",
// "pull_request.opened", "pull_request.updated", "job.completed", "job.failed",
// "job.archived".
std::string_view EventTypeName(EventType type);
std::optional<EventType> ParseEventType(std::string_view name);
std::span<const EventType> AllEventTypes();

// An event as recorded.
struct JobEvent {
  std::string job_id;
  std::string project_id;
  // The job's own count: 1, 2, ... without gaps, in the order the events were
  // committed (the stream's event id, and what Last-Event-ID resumes after).
  int64_t sequence = 0;
  EventType type = EventType::kJobCreated;
  UnixMillis created_at = 0;
  std::string data;  // a JSON object: the type's payload
};

// The payloads, as the store records them.
std::string JobCreatedData(const Job& job, std::string_view prompt);
std::string MessageAddedData(const Job& job, int seq, std::string_view prompt);
std::string TurnStartedData(int seq, int attempt);
std::string TurnStepData(int seq, int attempt, int index, const TranscriptStep& step);
std::string TurnEndedData(int seq, const TurnOutcome& outcome);
std::string PullRequestData(int seq, std::string_view pr_link);
std::string JobData(const Job& job);  // job.completed, job.failed, job.archived

// The event whole, as the stream sends it and a webhook carries it:
// {"id", "type", "version", "timestamp", "jobId", "projectId", "sequence", "data"}.
// `id` ("<jobId>.<sequence>") names the event uniquely and for good.
std::string EventJson(const JobEvent& event);
std::string EventId(const JobEvent& event);

}  // namespace docwright
