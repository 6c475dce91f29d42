#include "store/sqlite/rows.h"

namespace docwright::sqlite {

Job ReadJob(const Query& q) {
  Job j;
  j.id = q.Text("id");
  j.project_id = q.Text("project_id");
  j.status = ParseJobStatus(q.Text("status")).value_or(JobStatus::kFailed);
  j.repository = q.Text("repository");
  j.ref = q.Text("ref");
  j.model = q.OptText("model");
  j.draft = q.Int("draft") != 0;
  j.pr_link = q.OptText("pr_link");
  j.summary = q.OptText("summary");
  j.error = q.OptText("error");
  j.created_at = q.Int("created_at");
  j.updated_at = q.Int("updated_at");
  j.archived_at = q.OptInt("archived_at");
  return j;
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

Project ReadProject(const Query& q) {
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
  p.write_paths = SplitLines(q.Text("write_paths"));
  p.max_active = q.OptInt("max_active");
  return p;
}

ApiKey ReadKey(const Query& q) {
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

LocalPullRequest ReadPullRequest(const Query& q) {
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

Message ReadMessage(const Query& q) {
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

}  // namespace docwright::sqlite
