#include "store/sqlite/rows.h"

namespace docwright::sqlite {

Job ReadJob(const Query& q, int c) {
  Job j;
  j.id = q.Text(c + 0);
  j.project_id = q.Text(c + 1);
  j.status = ParseJobStatus(q.Text(c + 2)).value_or(JobStatus::kFailed);
  j.repository = q.Text(c + 3);
  j.ref = q.Text(c + 4);
  j.model = q.OptText(c + 5);
  j.draft = q.Int(c + 6) != 0;
  j.pr_link = q.OptText(c + 7);
  j.summary = q.OptText(c + 8);
  j.error = q.OptText(c + 9);
  j.created_at = q.Int(c + 10);
  j.updated_at = q.Int(c + 11);
  j.archived_at = q.OptInt(c + 12);
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

Project ReadProject(const Query& q, int c) {
  Project p;
  p.id = q.Text(c + 0);
  p.org_id = q.Text(c + 1);
  p.repository = q.Text(c + 2);
  p.base_ref = q.Text(c + 3);
  p.forge = ParseForge(q.Text(c + 4)).value_or(ForgeKind::kLocal);
  p.forge_api_url = q.OptText(c + 5);
  p.forge_token = q.OptText(c + 6);
  p.model = q.OptText(c + 7);
  p.rate_limit_per_hour = q.Int(c + 8);
  p.created_at = q.Int(c + 9);
  p.ssh_key_path = q.OptText(c + 10);
  p.ssh_known_hosts_path = q.OptText(c + 11);
  p.models = SplitLines(q.Text(c + 12));
  p.write_paths = SplitLines(q.Text(c + 13));
  return p;
}

ApiKey ReadKey(const Query& q) {
  ApiKey k;
  k.id = q.Text(0);
  k.org_id = q.Text(1);
  k.name = q.Text(2);
  k.prefix = q.Text(3);
  k.secret_hash = q.Text(4);
  k.created_at = q.Int(5);
  k.revoked_at = q.OptInt(6);
  return k;
}

LocalPullRequest ReadPullRequest(const Query& q) {
  LocalPullRequest pr;
  pr.id = q.Text(0);
  pr.project_id = q.Text(1);
  pr.number = q.Int(2);
  pr.head = q.Text(3);
  pr.base = q.Text(4);
  pr.title = q.Text(5);
  pr.body = q.Text(6);
  pr.diff = q.Text(7);
  pr.draft = q.Int(8) != 0;
  pr.created_at = q.Int(9);
  pr.updated_at = q.Int(10);
  pr.archived_at = q.OptInt(11);
  return pr;
}

Message ReadMessage(const Query& q) {
  Message m;
  m.job_id = q.Text(0);
  m.seq = static_cast<int>(q.Int(1));
  m.prompt = q.Text(2);
  m.created_at = q.Int(3);
  m.state = ParseTurnState(q.Text(4)).value_or(TurnState::kFailed);
  m.attempts = static_cast<int>(q.Int(5));
  m.summary = q.OptText(6);
  m.error = q.OptText(7);
  m.finished_at = q.OptInt(8);
  m.input_tokens = q.Int(9);
  m.output_tokens = q.Int(10);
  return m;
}

}  // namespace docwright::sqlite
