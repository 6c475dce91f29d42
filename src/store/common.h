// Internal to the Store implementations (SQLite and PostgreSQL): what both SQL
// stores share, so each holds only its own SQL and plumbing. The row readers take
// any row type with the accessors of sqlite::Query and postgres::Rows (columns
// by name: Text, Int, OptText, OptInt), in whatever order a SELECT gives them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "core/local_pull_request.h"
#include "core/status.h"
#include "core/time.h"
#include "core/turn.h"
#include "store/store.h"

namespace docwright::store_common {

// The rate limit's sliding window: the project's messages of the last hour.
inline constexpr int64_t kRateWindowMillis = 3600 * 1000;

// The verdict once `count` messages of `p` fall in the window ending `now`;
// `nth_created_at` is the creation time of the message whose leaving the window
// frees a slot (the (count - limit + 1)-th oldest of the window), if there is one.
Status RateVerdict(const Project& p, int64_t count, std::optional<UnixMillis> nth_created_at,
                   UnixMillis now);

// The claim's held projects (Store::ClaimTurn) as the JSON array of ids its
// statement takes.
std::string HeldProjectsJson(const std::vector<std::string>& held_projects);

// The error a turn is failed with when its lease expired `attempts` times.
std::string InterruptedError(int64_t attempts);

// The job's status and error after a turn of it ended with `outcome`, `more`
// saying whether later turns are queued (see StatusAfterTurn).
struct JobAfterTurn {
  std::string status;
  std::optional<std::string> error;
};
JobAfterTurn AfterTurn(const Job& job, const TurnOutcome& outcome, bool more);

// A transcript step's kind as stored ("assistant", "tool", "context").
std::string_view StepKindName(TranscriptStep::Kind kind);
TranscriptStep::Kind ParseStepKind(std::string_view name);

// A project's lists are stored one entry a line (entries never hold a newline).
std::string JoinLines(const std::vector<std::string>& items);
std::vector<std::string> SplitLines(std::string_view text);

// The refusals of an archived project, and of deleting a project at work.
inline Status ProjectArchived() {
  return Status::Conflict(
      "this project is archived: it takes no new jobs or messages (its jobs stay readable)");
}
// The refusals of `job stop`.
inline Status NothingToStop(JobStatus status) {
  return Status::Conflict(status == JobStatus::kArchived
                              ? "the job is archived: nothing of it runs"
                              : "the job has no turn running or waiting to run");
}
inline Status ProjectHasActiveJobs(int64_t n) {
  return Status::Conflict("the project has " + std::to_string(n) +
                          " active job(s): archive them, or wait for them to end, first");
}

// --- Row readers ---

template <typename Row>
Job ReadJob(const Row& q) {
  Job j;
  j.id = q.Text("id");
  j.project_id = q.Text("project_id");
  j.status = ParseJobStatus(q.Text("status")).value_or(JobStatus::kFailed);
  j.repository = q.Text("repository");
  j.ref = q.Text("ref");
  j.model = q.OptText("model");
  j.requested_model = q.OptText("requested_model");
  j.draft = q.Int("draft") != 0;
  j.pr_link = q.OptText("pr_link");
  j.summary = q.OptText("summary");
  j.error = q.OptText("error");
  j.created_at = q.Int("created_at");
  j.updated_at = q.Int("updated_at");
  j.archived_at = q.OptInt("archived_at");
  return j;
}

template <typename Row>
Project ReadProject(const Row& q) {
  Project p;
  p.id = q.Text("id");
  p.org_id = q.Text("org_id");
  p.repository = q.Text("repository");
  p.base_ref = q.Text("base_ref");
  p.forge = ParseForge(q.Text("forge")).value_or(ForgeKind::kLocal);
  p.forge_api_url = q.OptText("forge_api_url");
  p.forge_token = q.OptText("forge_token");
  p.model = q.OptText("model");
  p.rate_limit_per_hour = q.Int("rate_limit_per_hour");
  p.created_at = q.Int("created_at");
  p.ssh_key_path = q.OptText("ssh_key_path");
  p.ssh_known_hosts_path = q.OptText("ssh_known_hosts_path");
  p.models = SplitLines(q.Text("models"));
  p.archived_at = q.OptInt("archived_at");
  p.write_paths = SplitLines(q.Text("write_paths"));
  p.max_active = q.OptInt("max_active");
  return p;
}

template <typename Row>
Org ReadOrg(const Row& q) {
  return Org{.id = q.Text("id"),
             .name = q.Text("name"),
             .max_active = q.OptInt("max_active"),
             .created_at = q.Int("created_at")};
}

template <typename Row>
ApiKey ReadKey(const Row& q) {
  ApiKey k;
  k.id = q.Text("id");
  k.org_id = q.Text("org_id");
  k.name = q.Text("name");
  k.prefix = q.Text("prefix");
  k.secret_hash = q.Text("secret_hash");
  k.created_at = q.Int("created_at");
  k.revoked_at = q.OptInt("revoked_at");
  return k;
}

template <typename Row>
LocalPullRequest ReadPullRequest(const Row& q) {
  LocalPullRequest pr;
  pr.id = q.Text("id");
  pr.project_id = q.Text("project_id");
  pr.number = q.Int("number");
  pr.head = q.Text("head");
  pr.base = q.Text("base");
  pr.title = q.Text("title");
  pr.body = q.Text("body");
  pr.diff = q.Text("diff");
  pr.draft = q.Int("draft") != 0;
  pr.created_at = q.Int("created_at");
  pr.updated_at = q.Int("updated_at");
  pr.archived_at = q.OptInt("archived_at");
  return pr;
}

template <typename Row>
Message ReadMessage(const Row& q) {
  Message m;
  m.job_id = q.Text("job_id");
  m.seq = static_cast<int>(q.Int("seq"));
  m.prompt = q.Text("prompt");
  m.created_at = q.Int("created_at");
  m.state = ParseTurnState(q.Text("state")).value_or(TurnState::kFailed);
  m.attempts = static_cast<int>(q.Int("attempts"));
  m.summary = q.OptText("summary");
  m.error = q.OptText("error");
  m.finished_at = q.OptInt("finished_at");
  m.input_tokens = q.Int("input_tokens");
  m.output_tokens = q.Int("output_tokens");
  return m;
}

template <typename Row>
TranscriptStep ReadStep(const Row& q) {
  TranscriptStep step;
  step.kind = ParseStepKind(q.Text("kind"));
  step.text = q.Text("text");
  step.tool = q.Text("tool");
  step.arguments = q.Text("arguments");
  step.result = q.Text("result");
  step.is_error = q.Int("is_error") != 0;
  return step;
}

}  // namespace docwright::store_common
