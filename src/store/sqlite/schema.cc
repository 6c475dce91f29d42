#include "store/sqlite/schema.h"

#include <iterator>
#include <string>

namespace docwright::sqlite {
namespace {

// Migration i brings the schema from user_version i to i + 1. Never edit a shipped
// migration: append a new one.
constexpr const char* kMigrations[] = {
    R"sql(
CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  secret_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX api_keys_org ON api_keys(org_id, id);
CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  repository TEXT NOT NULL,
  base_ref TEXT NOT NULL,
  forge TEXT NOT NULL,
  forge_api_url TEXT,
  forge_token TEXT,
  model TEXT,
  rate_limit_per_hour INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX projects_org ON projects(org_id, id);
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  status TEXT NOT NULL,
  repository TEXT NOT NULL,
  ref TEXT NOT NULL,
  model TEXT,
  draft INTEGER NOT NULL,
  pr_link TEXT,
  summary TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  archived_at INTEGER,
  next_seq INTEGER NOT NULL
);
CREATE INDEX jobs_project ON jobs(project_id, id);
CREATE INDEX jobs_project_status ON jobs(project_id, status, id);
CREATE TABLE messages (
  job_id TEXT NOT NULL REFERENCES jobs(id),
  seq INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  prompt TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (job_id, seq)
) WITHOUT ROWID;
CREATE INDEX messages_project_time ON messages(project_id, created_at);
CREATE TABLE turns (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  summary TEXT,
  error TEXT,
  started_at INTEGER,
  finished_at INTEGER,
  UNIQUE (job_id, seq),
  FOREIGN KEY (job_id, seq) REFERENCES messages(job_id, seq)
);
CREATE INDEX turns_open ON turns(id) WHERE state IN ('queued', 'running');
)sql",
    R"sql(
CREATE TABLE pull_requests (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  number INTEGER NOT NULL,
  head TEXT NOT NULL,
  base TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  diff TEXT NOT NULL,
  draft INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, head),
  UNIQUE (project_id, number)
);
)sql",
    R"sql(
ALTER TABLE projects ADD COLUMN ssh_key_path TEXT;
ALTER TABLE projects ADD COLUMN ssh_known_hosts_path TEXT;
)sql",
    R"sql(
CREATE TABLE steps (
  job_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  n INTEGER NOT NULL,
  kind TEXT NOT NULL,
  text TEXT NOT NULL,
  tool TEXT NOT NULL,
  arguments TEXT NOT NULL,
  result TEXT NOT NULL,
  is_error INTEGER NOT NULL,
  PRIMARY KEY (job_id, seq, n)
) WITHOUT ROWID;
ALTER TABLE turns ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
)sql",
    R"sql(
ALTER TABLE projects ADD COLUMN models TEXT NOT NULL DEFAULT '';
ALTER TABLE projects ADD COLUMN write_paths TEXT NOT NULL DEFAULT '';
ALTER TABLE pull_requests ADD COLUMN archived_at INTEGER;
UPDATE pull_requests SET archived_at = updated_at, body = '', diff = ''
  WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.project_id = pull_requests.project_id
                AND j.ref = pull_requests.head AND j.status = 'archived');
)sql",
    R"sql(
ALTER TABLE orgs ADD COLUMN max_active INTEGER;
ALTER TABLE projects ADD COLUMN max_active INTEGER;
CREATE INDEX turns_running ON turns(lease_expires_at) WHERE state = 'running';
)sql", R"sql(
-- The model a job asked for itself (create or follow-up); its shown model is
-- resolved again as each turn starts. A job made before keeps the model it was
-- given (which one chose it is not known); one made without any is resolved anew.
ALTER TABLE jobs ADD COLUMN requested_model TEXT;
UPDATE jobs SET requested_model = model WHERE model IS NOT NULL;
-- An archived project takes no new job or follow-up; its history stays.
ALTER TABLE projects ADD COLUMN archived_at INTEGER;
)sql",
    R"sql(
-- The job's owner asked its turn to stop after its current step (job stop).
ALTER TABLE turns ADD COLUMN stop_requested INTEGER NOT NULL DEFAULT 0;
)sql",
    R"sql(
-- Each job's events (core/event.h), numbered by the job: last_event is the
-- number of its latest, taken under the job's lock as each is written.
ALTER TABLE jobs ADD COLUMN last_event INTEGER NOT NULL DEFAULT 0;
CREATE TABLE events (
  job_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (job_id, sequence)
) WITHOUT ROWID;
CREATE INDEX events_project ON events(project_id);
)sql",
    R"sql(
-- Idempotency keys of creates and follow-ups: the response the request with the
-- key got, replayed to its retries for 24 hours. Written in the transaction
-- that writes the job, so a key is used once.
CREATE TABLE idempotency_keys (
  project_id TEXT NOT NULL REFERENCES projects(id),
  idempotency_key TEXT NOT NULL,
  route TEXT NOT NULL,
  body_sha256 TEXT NOT NULL,
  status INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, idempotency_key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_age ON idempotency_keys(project_id, created_at);
)sql",
    R"sql(
-- Webhooks: a project's endpoints (secrets sealed, core/secret_box.h), and the
-- outbox of their deliveries, written in the transaction of each event. events
-- is the types taken, ",type,type,".
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at INTEGER,
  enabled INTEGER NOT NULL,
  disabled_reason TEXT,
  disabled_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX webhook_endpoints_project ON webhook_endpoints(project_id);
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  endpoint_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  job_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at INTEGER,
  first_failed_at INTEGER,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  last_status INTEGER,
  last_error TEXT,
  last_attempt_at INTEGER,
  created_at INTEGER NOT NULL,
  delivered_at INTEGER
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_order ON webhook_deliveries(endpoint_id, job_id, sequence)
  WHERE state = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries(endpoint_id, id);
CREATE INDEX webhook_deliveries_project ON webhook_deliveries(project_id);
)sql",
    R"sql(
-- What a reviewer reads about a job's branch (core/review.h), replaced after
-- every turn that pushed; files, problems and notes are JSON arrays. Goes with
-- its job.
CREATE TABLE reviews (
  job_id TEXT PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  branch TEXT NOT NULL,
  base TEXT NOT NULL,
  base_commit TEXT NOT NULL,
  head_commit TEXT NOT NULL,
  files TEXT NOT NULL,
  diff TEXT NOT NULL,
  diff_truncated INTEGER NOT NULL,
  problems TEXT NOT NULL,
  notes TEXT NOT NULL,
  pull_request_body_html TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX reviews_branch ON reviews(project_id, branch);
)sql",
    R"sql(
-- Key roles: what a key may do (admin, member) and the projects it is limited
-- to (one id a line; NULL: all). Keys from before roles stay admins of the
-- whole organisation. last_used_at is recorded in the background, to the minute.
ALTER TABLE api_keys ADD COLUMN role TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE api_keys ADD COLUMN projects TEXT;
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
-- Browsers' sign-ins: the hash of the cookie's token only, so any node checks
-- them; ended with their key's revocation.
CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES api_keys(id),
  org_id TEXT NOT NULL REFERENCES orgs(id),
  csrf_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_key ON sessions(key_id);
CREATE INDEX sessions_expiry ON sessions(expires_at);
)sql",
    R"sql(
-- Local pull requests can be merged. A merged one stays as it was, and work
-- pushed to its branch later opens the next one: one open pull request per
-- branch, not one in all (SQLite drops a table's constraint by rebuilding it).
CREATE TABLE pull_requests_merged (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  number INTEGER NOT NULL,
  head TEXT NOT NULL,
  base TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  diff TEXT NOT NULL,
  draft INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  archived_at INTEGER,
  merged_at INTEGER,
  merge_commit TEXT,
  UNIQUE (project_id, number)
);
INSERT INTO pull_requests_merged (id, project_id, number, head, base, title, body, diff, draft,
                                  created_at, updated_at, archived_at)
  SELECT id, project_id, number, head, base, title, body, diff, draft, created_at, updated_at,
         archived_at FROM pull_requests;
DROP TABLE pull_requests;
ALTER TABLE pull_requests_merged RENAME TO pull_requests;
CREATE UNIQUE INDEX pull_requests_open_head ON pull_requests(project_id, head)
  WHERE merged_at IS NULL;
CREATE INDEX pull_requests_head ON pull_requests(project_id, head, number);
)sql",
    R"sql(
-- Workflows (core/workflow.h): a project's context repositories, its workflows
-- (defined through the API or in files of its docs repository), their runs
-- (one a trigger event: the dedup key), and the heads of the branches the
-- workflows' engine watches. A job a workflow started says so: its trigger (the
-- run's JSON), its workflow and the context repositories it reads (one name a
-- line; NULL: all of the project's).
ALTER TABLE jobs ADD COLUMN trigger TEXT;
ALTER TABLE jobs ADD COLUMN workflow_id TEXT;
ALTER TABLE jobs ADD COLUMN context TEXT;
CREATE TABLE context_repositories (
  project_id TEXT NOT NULL REFERENCES projects(id),
  name TEXT NOT NULL,
  repository TEXT NOT NULL,
  branch TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, name)
);
CREATE TABLE workflows (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id),
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  title TEXT NOT NULL,
  prompt TEXT NOT NULL,
  trigger_kind TEXT NOT NULL,
  cron TEXT NOT NULL,
  time_zone TEXT NOT NULL,
  trigger_repository TEXT NOT NULL,
  trigger_branch TEXT NOT NULL,
  context TEXT NOT NULL,
  publish TEXT,
  model TEXT,
  runs_per_day INTEGER NOT NULL,
  enabled INTEGER NOT NULL,
  file_path TEXT NOT NULL,
  file_commit TEXT NOT NULL,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  schedule_from INTEGER NOT NULL,
  UNIQUE (project_id, source, name)
);
CREATE INDEX workflows_trigger ON workflows(trigger_kind, enabled);
-- A run's workflow may be gone (its started runs outlive it, as its jobs do).
CREATE TABLE workflow_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id TEXT NOT NULL,
  project_id TEXT NOT NULL REFERENCES projects(id),
  dedup_key TEXT NOT NULL,
  trigger TEXT NOT NULL,
  state TEXT NOT NULL,
  job_id TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  UNIQUE (workflow_id, dedup_key)
);
CREATE INDEX workflow_runs_log ON workflow_runs(workflow_id, id);
CREATE INDEX workflow_runs_queued ON workflow_runs(id) WHERE state = 'queued';
CREATE INDEX workflow_runs_project ON workflow_runs(project_id);
CREATE TABLE watched_heads (
  project_id TEXT NOT NULL REFERENCES projects(id),
  watch TEXT NOT NULL,
  head TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, watch)
);
)sql",
    R"sql(
-- Forges' webhooks (core/forge_event.h): a project's hook secret (sealed, as
-- its forge token), the handle its pull requests' comments mention, and the
-- verified deliveries, one per (project, forge, delivery id), each kept a week;
-- `data` is the event's fields as JSON, `outcome` what handling it did.
ALTER TABLE projects ADD COLUMN hook_secret TEXT;
ALTER TABLE projects ADD COLUMN mention_handle TEXT NOT NULL DEFAULT 'docwright';
CREATE TABLE forge_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id TEXT NOT NULL REFERENCES projects(id),
  forge TEXT NOT NULL,
  delivery_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  handled_at INTEGER,
  outcome TEXT,
  UNIQUE (project_id, forge, delivery_id)
);
CREATE INDEX forge_events_pending ON forge_events(id) WHERE handled_at IS NULL;
CREATE INDEX forge_events_received ON forge_events(received_at);
)sql",
    R"sql(
-- Publish modes (core/job.h): how a project's jobs publish their changes
-- unless a workflow says otherwise, and how each job does; the commit a job
-- published straight onto the base branch, with its page; what became of the
-- job's pull request on the forge ("open", "merged", "closed"; NULL: not
-- known), and when the engine last asked the forge (its polls take the jobs
-- asked longest ago first).
ALTER TABLE projects ADD COLUMN publish TEXT NOT NULL DEFAULT 'pull_request';
ALTER TABLE jobs ADD COLUMN publish TEXT NOT NULL DEFAULT 'pull_request';
ALTER TABLE jobs ADD COLUMN commit_sha TEXT;
ALTER TABLE jobs ADD COLUMN commit_url TEXT;
ALTER TABLE jobs ADD COLUMN pr_state TEXT;
ALTER TABLE jobs ADD COLUMN pr_checked_at INTEGER;
CREATE INDEX jobs_open_pull_requests ON jobs(pr_checked_at, id)
  WHERE pr_link IS NOT NULL AND (pr_state IS NULL OR pr_state = 'open') AND status <> 'archived';
CREATE INDEX jobs_project_ref ON jobs(project_id, ref);
CREATE INDEX pull_requests_number ON pull_requests(project_id, number);
)sql",
    R"sql(
-- Replies owed to pull request comments that became follow-ups of a job: one a
-- message, posted once its turn has finished (posted_at set when done with).
CREATE TABLE comment_replies (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  project_id TEXT NOT NULL REFERENCES projects(id),
  message_seq INTEGER NOT NULL,
  pr_number INTEGER NOT NULL,
  in_reply_to TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  posted_at INTEGER,
  created_at INTEGER NOT NULL,
  UNIQUE (job_id, message_seq),
  FOREIGN KEY (job_id, message_seq) REFERENCES messages(job_id, seq)
);
CREATE INDEX comment_replies_due ON comment_replies(next_attempt_at) WHERE posted_at IS NULL;
)sql", R"sql(
-- Usage and budgets (core/usage.h): each turn's tokens by kind, the model it
-- used and its estimated cost (NULL: no price known); each job's totals, added
-- to as its turns end, begun from its turns' tokens so far; the monthly budgets
-- of projects and organisations (NULL: none). Reads of what turns used select
-- them by when they ended.
ALTER TABLE turns ADD COLUMN cached_input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN model TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN cost_micros INTEGER;
CREATE INDEX turns_finished ON turns(finished_at);
ALTER TABLE jobs ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN cached_input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN cost_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN usage_turns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN unpriced_turns INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET
  input_tokens = (SELECT COALESCE(SUM(t.input_tokens), 0) FROM turns t WHERE t.job_id = jobs.id),
  output_tokens = (SELECT COALESCE(SUM(t.output_tokens), 0) FROM turns t WHERE t.job_id = jobs.id),
  usage_turns = (SELECT COUNT(*) FROM turns t WHERE t.job_id = jobs.id AND
                 t.input_tokens + t.output_tokens > 0),
  unpriced_turns = (SELECT COUNT(*) FROM turns t WHERE t.job_id = jobs.id AND
                    t.input_tokens + t.output_tokens > 0)
  WHERE EXISTS (SELECT 1 FROM turns t WHERE t.job_id = jobs.id AND
                t.input_tokens + t.output_tokens > 0);
ALTER TABLE projects ADD COLUMN token_budget INTEGER;
ALTER TABLE projects ADD COLUMN cost_budget_micros INTEGER;
ALTER TABLE orgs ADD COLUMN token_budget INTEGER;
ALTER TABLE orgs ADD COLUMN cost_budget_micros INTEGER;
)sql",
    R"sql(
-- The folder of a project's docs site (--site-root); '' finds it by its
-- configuration file.
ALTER TABLE projects ADD COLUMN site_root TEXT NOT NULL DEFAULT '';
)sql",
    R"sql(
-- Each turn's project (its job's, which never changes), so the claim finds the
-- oldest open turns of each project without reading every open turn.
ALTER TABLE turns ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
UPDATE turns SET project_id = COALESCE((SELECT j.project_id FROM jobs j WHERE j.id = turns.job_id), '');
CREATE INDEX turns_open_project ON turns(project_id, id) WHERE state IN ('queued', 'running');
)sql",
    R"sql(
-- The claim counts the turns running in each project of its candidates'
-- organisations, one seek a project, without reading every running turn.
CREATE INDEX turns_running_project ON turns(project_id, lease_expires_at) WHERE state = 'running';
)sql",
    R"sql(
-- A turn written without its project (by a node of the version before, while
-- the nodes are upgraded one at a time) takes its job's: the claim's caps and
-- counts go by it.
CREATE TRIGGER turns_project AFTER INSERT ON turns WHEN NEW.project_id = ''
BEGIN
  UPDATE turns SET project_id = COALESCE((SELECT j.project_id FROM jobs j WHERE j.id = NEW.job_id), '')
  WHERE id = NEW.id;
END;
)sql",
};

}  // namespace

Status Migrate(Connection& c) {
  Status s = c.ExecScript("BEGIN IMMEDIATE");
  if (!s.ok()) return s;
  int64_t version = 0;
  {
    Query q(c.db(), c.Prepare("PRAGMA user_version"), {});
    if (q.Next()) version = q.Int(0);
  }
  constexpr int64_t kLatest = std::size(kMigrations);
  // On each failure below the first error is the one to report: the store is
  // not opened, and its connection is closed, whether the rollback works or not.
  if (version > kLatest) {
    (void)c.ExecScript("ROLLBACK");
    return Status::Internal("the database was written by a newer docwright (schema " +
                            std::to_string(version) + ")");
  }
  for (int64_t v = version; v < kLatest; ++v) {
    s = c.ExecScript(kMigrations[v]);
    if (!s.ok()) {
      (void)c.ExecScript("ROLLBACK");
      return s;
    }
  }
  s = c.ExecScript(("PRAGMA user_version = " + std::to_string(kLatest)).c_str());
  if (!s.ok()) {
    (void)c.ExecScript("ROLLBACK");
    return s;
  }
  return c.ExecScript("COMMIT");
}

}  // namespace docwright::sqlite
