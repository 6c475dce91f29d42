// Rows read into records, and the rules every write of the SQL store applies.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/api_key.h"
#include "store/sql/internal.h"

namespace docwright::sql {

MonthlyBudget ReadBudget(const Rows& r) {
  return MonthlyBudget{.tokens = r.OptInt("token_budget"),
                       .cost_micros = r.OptInt("cost_budget_micros")};
}

Job ReadJob(const Rows& r) {
  Job j;
  j.id = r.Text("id");
  j.project_id = r.Text("project_id");
  j.status = ParseJobStatus(r.Text("status")).value_or(JobStatus::kFailed);
  j.repository = r.Text("repository");
  j.ref = r.Text("ref");
  j.model = r.OptText("model");
  j.requested_model = r.OptText("requested_model");
  j.draft = r.Int("draft") != 0;
  j.pr_link = r.OptText("pr_link");
  j.summary = r.OptText("summary");
  j.error = r.OptText("error");
  j.created_at = r.Int("created_at");
  j.updated_at = r.Int("updated_at");
  j.archived_at = r.OptInt("archived_at");
  j.trigger = r.OptText("trigger");
  j.workflow_id = r.OptText("workflow_id");
  if (auto context = r.OptText("context")) j.context = SplitLines(*context);
  // A mode this version does not know publishes as every job does: a pull request.
  j.publish = ParsePublishMode(r.Text("publish")).value_or(PublishMode::kPullRequest);
  j.commit_sha = r.OptText("commit_sha");
  j.commit_url = r.OptText("commit_url");
  j.pr_state = r.OptText("pr_state");
  j.usage.tokens = TokenUsage{.input_tokens = r.Int("input_tokens"),
                              .output_tokens = r.Int("output_tokens"),
                              .cached_input_tokens = r.Int("cached_input_tokens"),
                              .cache_write_tokens = r.Int("cache_write_tokens")};
  j.usage.cost_micros = r.Int("cost_micros");
  j.usage.turns = r.Int("usage_turns");
  j.usage.unpriced_turns = r.Int("unpriced_turns");
  return j;
}

Project ReadProject(const Rows& r) {
  Project p;
  p.id = r.Text("id");
  p.org_id = r.Text("org_id");
  p.repository = r.Text("repository");
  p.base_ref = r.Text("base_ref");
  p.forge = ParseForge(r.Text("forge")).value_or(ForgeKind::kLocal);
  p.forge_api_url = r.OptText("forge_api_url");
  p.forge_token = r.OptText("forge_token");
  p.model = r.OptText("model");
  p.rate_limit_per_hour = r.Int("rate_limit_per_hour");
  p.created_at = r.Int("created_at");
  p.ssh_key_path = r.OptText("ssh_key_path");
  p.ssh_known_hosts_path = r.OptText("ssh_known_hosts_path");
  p.models = SplitLines(r.Text("models"));
  p.archived_at = r.OptInt("archived_at");
  p.write_paths = SplitLines(r.Text("write_paths"));
  p.max_active = r.OptInt("max_active");
  p.hook_secret = r.OptText("hook_secret");
  p.mention_handle = r.Text("mention_handle");
  if (p.mention_handle.empty()) p.mention_handle = "docwright";
  p.publish = ParsePublishMode(r.Text("publish")).value_or(PublishMode::kPullRequest);
  p.budget = ReadBudget(r);
  p.site_root = r.Text("site_root");
  return p;
}

Org ReadOrg(const Rows& r) {
  return Org{.id = r.Text("id"),
             .name = r.Text("name"),
             .max_active = r.OptInt("max_active"),
             .created_at = r.Int("created_at"),
             .budget = ReadBudget(r)};
}

ApiKey ReadKey(const Rows& r) {
  ApiKey k;
  k.id = r.Text("id");
  k.org_id = r.Text("org_id");
  k.name = r.Text("name");
  k.prefix = r.Text("prefix");
  k.secret_hash = r.Text("secret_hash");
  // A role this version does not know grants the least.
  k.role = ParseKeyRole(r.Text("role")).value_or(KeyRole::kMember);
  if (auto projects = r.OptText("projects")) k.projects = SplitLines(*projects);
  k.created_at = r.Int("created_at");
  k.last_used_at = r.OptInt("last_used_at");
  k.revoked_at = r.OptInt("revoked_at");
  return k;
}

LocalPullRequest ReadPullRequest(const Rows& r) {
  LocalPullRequest pr;
  pr.id = r.Text("id");
  pr.project_id = r.Text("project_id");
  pr.number = r.Int("number");
  pr.head = r.Text("head");
  pr.base = r.Text("base");
  pr.title = r.Text("title");
  pr.body = r.Text("body");
  pr.diff = r.Text("diff");
  pr.draft = r.Int("draft") != 0;
  pr.created_at = r.Int("created_at");
  pr.updated_at = r.Int("updated_at");
  pr.archived_at = r.OptInt("archived_at");
  pr.merged_at = r.OptInt("merged_at");
  pr.merge_commit = r.OptText("merge_commit").value_or("");
  return pr;
}

Message ReadMessage(const Rows& r) {
  Message m;
  m.job_id = r.Text("job_id");
  m.seq = static_cast<int>(r.Int("seq"));
  m.prompt = r.Text("prompt");
  m.created_at = r.Int("created_at");
  m.state = ParseTurnState(r.Text("state")).value_or(TurnState::kFailed);
  m.attempts = static_cast<int>(r.Int("attempts"));
  m.summary = r.OptText("summary");
  m.error = r.OptText("error");
  m.finished_at = r.OptInt("finished_at");
  m.input_tokens = r.Int("input_tokens");
  m.output_tokens = r.Int("output_tokens");
  m.cached_input_tokens = r.Int("cached_input_tokens");
  m.cache_write_tokens = r.Int("cache_write_tokens");
  m.usage_model = r.Text("model");
  m.cost_micros = r.OptInt("cost_micros");
  return m;
}

TranscriptStep ReadStep(const Rows& r) {
  TranscriptStep step;
  std::string kind = r.Text("kind");
  step.kind = kind == "tool"      ? TranscriptStep::Kind::kTool
              : kind == "context" ? TranscriptStep::Kind::kContext
              : kind == "publish" ? TranscriptStep::Kind::kPublish
                                  : TranscriptStep::Kind::kAssistant;
  step.text = r.Text("text");
  step.tool = r.Text("tool");
  step.arguments = r.Text("arguments");
  step.result = r.Text("result");
  step.is_error = r.Int("is_error") != 0;
  return step;
}

std::string_view StepKindName(TranscriptStep::Kind kind) {
  switch (kind) {
    case TranscriptStep::Kind::kTool:
      return "tool";
    case TranscriptStep::Kind::kContext:
      return "context";
    case TranscriptStep::Kind::kPublish:
      return "publish";
    case TranscriptStep::Kind::kAssistant:
      break;
  }
  return "assistant";
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

std::string HeldProjectsJson(const std::vector<std::string>& held_projects) {
  return nlohmann::json(held_projects).dump();
}

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

Status ProjectArchived() {
  return Status::Conflict(
      "this project is archived: it takes no new jobs or messages (its jobs stay readable)");
}

Status NothingToStop(JobStatus status) {
  return Status::Conflict(status == JobStatus::kArchived
                              ? "the job is archived: nothing of it runs"
                              : "the job has no turn running or waiting to run");
}

Status ProjectHasActiveJobs(int64_t n) {
  return Status::Conflict("the project has " + std::to_string(n) +
                          " active job(s): archive them, or wait for them to end, first");
}

Status TooManyMessages() {
  return Status::Conflict("this job has reached its limit of " +
                          std::to_string(kMaxMessagesPerJob) +
                          " messages; start a new job to go on");
}

Status TooManyFollowUps(int64_t queued) {
  return Status::RateLimited(std::to_string(queued) +
                                 " follow-ups are already waiting for this job; send more once "
                                 "they have run",
                             30);
}

}  // namespace docwright::sql
