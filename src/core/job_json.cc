#include "core/job_json.h"

#include "core/time.h"
#include "core/workflow.h"

namespace docwright {

void WriteOptTime(const std::optional<UnixMillis>& t, JsonWriter& w) {
  if (t) {
    w.String(FormatRfc3339(*t));
  } else {
    w.Null();
  }
}

void WriteUsage(const TokenUsage& usage, JsonWriter& w) {
  w.BeginObject();
  w.Key("inputTokens").Int(usage.input_tokens);
  w.Key("outputTokens").Int(usage.output_tokens);
  w.Key("cachedInputTokens").Int(usage.cached_input_tokens);
  w.Key("cacheWriteTokens").Int(usage.cache_write_tokens);
  w.EndObject();
}

std::string CostJsonNumber(int64_t micros) {
  // Exact decimal digits rather than a double's shortest form: sums of micros
  // read back as the same number in every client.
  const bool negative = micros < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(micros) : static_cast<uint64_t>(micros);
  std::string out = negative ? "-" : "";
  out += std::to_string(magnitude / 1000000);
  std::string fraction = std::to_string(magnitude % 1000000);
  fraction.insert(0, 6 - fraction.size(), '0');
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if (!fraction.empty()) out += "." + fraction;
  return out;
}

void WriteJobUsage(const Job& j, std::string_view currency, JsonWriter& w) {
  const UsageTotals& u = j.usage;
  const bool priced = !currency.empty() && u.turns > u.unpriced_turns;
  w.BeginObject();
  w.Key("model").OptString(j.model);
  w.Key("inputTokens").Int(u.tokens.input_tokens);
  w.Key("cachedInputTokens").Int(u.tokens.cached_input_tokens);
  w.Key("cacheWriteTokens").Int(u.tokens.cache_write_tokens);
  w.Key("outputTokens").Int(u.tokens.output_tokens);
  w.Key("estimatedCost");
  if (priced) {
    w.Raw(CostJsonNumber(u.cost_micros));
  } else {
    w.Null();
  }
  w.Key("currency");
  if (currency.empty()) {
    w.Null();
  } else {
    w.String(currency);
  }
  w.Key("unpricedTurns").Int(u.unpriced_turns);
  w.EndObject();
}

void WriteAgentJob(const Job& j, JsonWriter& w, std::string_view currency) {
  // The spec: prLink is null while the job is active, even on a follow-up turn
  // of a job that already has a pull request.
  bool active = j.status == JobStatus::kActive;
  w.BeginObject();
  w.Key("id").String(j.id);
  w.Key("status").String(ToString(j.status));
  w.Key("source").BeginObject();
  w.Key("repository").String(j.repository);
  w.Key("ref").String(j.ref);
  w.EndObject();
  w.Key("model").OptString(j.model);
  w.Key("prLink").OptString(active ? std::nullopt : j.pr_link);
  w.Key("createdAt").String(FormatRfc3339(j.created_at));
  w.Key("archivedAt");
  WriteOptTime(j.archived_at, w);
  w.Key("updatedAt").String(FormatRfc3339(j.updated_at));
  w.Key("error").OptString(j.error);
  w.Key("summary").OptString(j.summary);
  // What started the job, rewritten from its parsed fields: the stored text is
  // never passed on unchecked (a row that does not parse is shown as none).
  w.Key("trigger");
  std::optional<RunTrigger> trigger;
  if (j.trigger) {
    auto parsed = ParseRunTrigger(*j.trigger);
    if (parsed.ok()) trigger = std::move(*parsed);
  }
  if (trigger) {
    w.Raw(RunTriggerJson(*trigger));
  } else {
    w.Null();
  }
  w.Key("workflowId").OptString(j.workflow_id);
  // What a turn published straight onto the base branch (push, or a merged
  // pull request), the pull request's state on the forge, and the job's mode.
  w.Key("commit");
  if (j.commit_sha) {
    w.BeginObject();
    w.Key("sha").String(*j.commit_sha);
    w.Key("url").OptString(j.commit_url && !j.commit_url->empty() ? j.commit_url : std::nullopt);
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("prState").OptString(j.pr_state);
  w.Key("publish").String(ToString(j.publish));
  w.Key("usage");
  WriteJobUsage(j, currency, w);
  w.EndObject();
}

void WriteStep(const TranscriptStep& step, JsonWriter& w) {
  w.BeginObject();
  switch (step.kind) {
    case TranscriptStep::Kind::kAssistant:
      w.Key("type").String("assistant").Key("text").String(step.text);
      break;
    case TranscriptStep::Kind::kContext:
      w.Key("type").String("context").Key("text").String(step.text);
      break;
    case TranscriptStep::Kind::kPublish:
      w.Key("type").String("publish").Key("action").String(step.tool);
      w.Key("text").String(step.text);
      break;
    case TranscriptStep::Kind::kTool:
      w.Key("type").String("tool");
      w.Key("tool").String(step.tool);
      w.Key("arguments").String(step.arguments);
      w.Key("result").String(step.result);
      w.Key("isError").Bool(step.is_error);
      break;
  }
  w.EndObject();
}

}  // namespace docwright
