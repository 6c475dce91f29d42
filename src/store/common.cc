#include "store/common.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace docwright::store_common {

Status RateVerdict(const Project& p, int64_t count, std::optional<UnixMillis> nth_created_at,
                   UnixMillis now) {
  if (count < p.rate_limit_per_hour) return Status();
  // The slot frees when the oldest message that keeps the count at the limit
  // leaves the window.
  UnixMillis frees_at =
      nth_created_at ? *nth_created_at + kRateWindowMillis : now + kRateWindowMillis;
  int64_t retry_after = std::max<int64_t>(1, (frees_at - now + 999) / 1000);
  return Status::RateLimited("rate limit reached: " + std::to_string(p.rate_limit_per_hour) +
                                 " jobs and messages per hour for this project",
                             retry_after);
}

std::string InterruptedError(int64_t attempts) {
  return "the turn was interrupted " + std::to_string(attempts) +
         " times (worker crashed or lost its lease); giving up";
}

JobAfterTurn AfterTurn(const Job& job, const TurnOutcome& outcome, bool more) {
  JobStatus next = StatusAfterTurn(job.status, outcome.succeeded, more);
  JobAfterTurn after{.status = std::string(ToString(next))};
  if (next == JobStatus::kFailed) after.error = outcome.error.value_or("the turn failed");
  if (next == JobStatus::kArchived) after.error = job.error;
  return after;
}

std::string_view StepKindName(TranscriptStep::Kind kind) {
  switch (kind) {
    case TranscriptStep::Kind::kTool:
      return "tool";
    case TranscriptStep::Kind::kContext:
      return "context";
    case TranscriptStep::Kind::kAssistant:
      break;
  }
  return "assistant";
}

TranscriptStep::Kind ParseStepKind(std::string_view name) {
  if (name == "tool") return TranscriptStep::Kind::kTool;
  if (name == "context") return TranscriptStep::Kind::kContext;
  return TranscriptStep::Kind::kAssistant;
}

std::string HeldProjectsJson(const std::vector<std::string>& held_projects) {
  return nlohmann::json(held_projects).dump();
}

std::string JoinLines(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out.push_back('\n');
    out += item;
  }
  return out;
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    out.emplace_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

}  // namespace docwright::store_common
