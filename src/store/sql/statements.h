// Internal to the SQL store: every statement it runs, once, in the SQL both
// databases take; in each dialect where they differ (the held projects' JSON,
// the claim's row locks), and PostgreSQL's alone for what only it needs (row
// locks, announcements, commit settings). Placeholders are ?1 .. ?N in both.
// Each statement is one object (an inline variable): drivers prepare it once
// per connection, keyed by its address.
//
// Clock: docwright_now_ms() is the database's clock in milliseconds since the
// epoch (PostgreSQL: a function of the schema; SQLite: a function each
// connection registers), so leases are on one clock for every node.
#pragma once

#include "store/sql/driver.h"

namespace docwright::sql {

#define SQL(name, text) \
  inline constexpr Statement name { text, text }
#define SQL_EACH(name, sqlite, postgres) \
  inline constexpr Statement name { sqlite, postgres }
#define SQL_POSTGRES(name, text) \
  inline constexpr Statement name { nullptr, text }
#define SQL_SQLITE(name, text) \
  inline constexpr Statement name { text, nullptr }

// --- Locks, commit settings, announcements ---
// PostgreSQL: a transaction takes its row locks first, always in this order
// (project, job, turn), so two transactions never wait on each other in a
// circle. SQLite has one writer, which stands in for them: there they are plain
// reads, or nothing.
// Also reads whether the project is archived, under the lock.
SQL_EACH(kLockProject, "SELECT archived_at FROM projects WHERE id = ?1",
         "SELECT archived_at FROM projects WHERE id = ?1 FOR NO KEY UPDATE");
SQL_POSTGRES(kLockJob, "SELECT id FROM jobs WHERE id = ?1 FOR NO KEY UPDATE");
SQL_EACH(kLockTurn,
         "SELECT id, job_id, seq, state, attempts, lease_owner, stop_requested FROM turns "
         "WHERE id = ?1",
         "SELECT id, job_id, seq, state, attempts, lease_owner, stop_requested FROM turns "
         "WHERE id = ?1 FOR UPDATE");
// Claims take turns one at a time, across every node: the counts of turns in
// flight that fairness and the caps read must not change under the claim. A
// claim takes it first, then no row lock it would wait for (SKIP LOCKED); a
// write that claims the turn it queued (TurnTaker, store/wakeups.h) takes it last, after
// its project's and job's rows: no circle either way, but every node's claims
// wait for such a write's commit, which is why `serve` leaves that to SQLite.
SQL_POSTGRES(kLockClaims, "SELECT pg_advisory_xact_lock(7237952079556063848)");
// Around a write's claim of the turn it queued: a claim that fails is undone
// alone, and the write goes on.
SQL(kSavepointClaim, "SAVEPOINT queued_claim");
SQL(kUndoClaim, "ROLLBACK TO SAVEPOINT queued_claim");
SQL(kKeepClaim, "RELEASE SAVEPOINT queued_claim");
// A claim that fails a turn on the way fails its job: that is flushed as any
// write is (a SQLite claim's commit mode is chosen before it starts).
SQL_POSTGRES(kDurableCommit, "SET LOCAL synchronous_commit TO on");
// Wakes the other nodes' listeners (postgres/listener.h) when the transaction
// commits. "t": a turn may have become runnable; "j:ID": the job changed;
// "a:ID": the job was archived; "e:ID": the job changed and has new events;
// "k": API keys changed; "w": webhook deliveries became due (an event some
// endpoint takes, an endpoint enabled).
SQL_POSTGRES(kNotify, "SELECT pg_notify('docwright', ?1)");
SQL(kNow, "SELECT docwright_now_ms()");

// --- Organisations and keys ---
#define DW_ORG_COLUMNS \
  "SELECT id, name, created_at, max_active, token_budget, cost_budget_micros FROM orgs "
SQL(kInsertOrg, "INSERT INTO orgs (id, name, created_at, max_active) VALUES (?1, ?2, ?3, ?4)");
SQL(kSelectOrg, DW_ORG_COLUMNS "WHERE id = ?1");
SQL(kSelectOrgs, DW_ORG_COLUMNS "ORDER BY id");
#undef DW_ORG_COLUMNS
SQL(kUpdateOrg,
    "UPDATE orgs SET name = ?2, max_active = ?3, token_budget = ?4, cost_budget_micros = ?5 "
    "WHERE id = ?1");
#define DW_KEY_COLUMNS                                                                       \
  "SELECT id, org_id, name, prefix, secret_hash, role, projects, created_at, last_used_at, " \
  "revoked_at FROM api_keys "
SQL(kInsertKey,
    "INSERT INTO api_keys (id, org_id, name, prefix, secret_hash, role, projects, created_at, "
    "revoked_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULL)");
SQL(kSelectKeys, DW_KEY_COLUMNS "WHERE org_id = ?1 ORDER BY id");
SQL(kRevokeKey, "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?2) WHERE id = ?1");
SQL(kSelectKeyByHash, DW_KEY_COLUMNS "WHERE secret_hash = ?1 AND revoked_at IS NULL");
SQL(kSelectActiveKey, DW_KEY_COLUMNS "WHERE id = ?1 AND org_id = ?2 AND revoked_at IS NULL");
// A key's use, kept only if it is later than the one recorded.
SQL(kRecordKeyUse,
    "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1 AND (last_used_at IS NULL OR "
    "last_used_at < ?2)");
#undef DW_KEY_COLUMNS

// --- Sign-in sessions ---
SQL(kInsertSession,
    "INSERT INTO sessions (token_hash, key_id, org_id, csrf_token, created_at, expires_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
// The session with its key, the key's columns under their own names.
SQL(kSelectSession,
    "SELECT s.token_hash, s.csrf_token, s.created_at AS session_created_at, s.expires_at, k.id, "
    "k.org_id, k.name, k.prefix, k.secret_hash, k.role, k.projects, k.created_at, "
    "k.last_used_at, k.revoked_at FROM sessions s JOIN api_keys k ON k.id = s.key_id "
    "WHERE s.token_hash = ?1 AND s.expires_at > ?2 AND k.revoked_at IS NULL");
SQL(kDeleteSession, "DELETE FROM sessions WHERE token_hash = ?1");
SQL(kDeleteKeySessions, "DELETE FROM sessions WHERE key_id = ?1");
// Expired sessions, a few at a time (a sign-in removes them on its way).
SQL(kPurgeExpiredSessions,
    "DELETE FROM sessions WHERE token_hash IN (SELECT token_hash FROM sessions WHERE "
    "expires_at <= ?1 LIMIT 100)");

// --- Projects ---
#define DW_PROJECT_FIELDS                                                                   \
  "p.id, p.org_id, p.repository, p.base_ref, p.forge, p.forge_api_url, p.forge_token, "     \
  "p.model, p.rate_limit_per_hour, p.created_at, p.ssh_key_path, p.ssh_known_hosts_path, "  \
  "p.models, p.write_paths, p.max_active, p.archived_at, p.hook_secret, p.mention_handle, " \
  "p.publish, p.token_budget, p.cost_budget_micros, p.site_root"
#define DW_PROJECT_COLUMNS "SELECT " DW_PROJECT_FIELDS " FROM projects p "
SQL(kSelectProject, DW_PROJECT_COLUMNS "WHERE p.id = ?1 AND p.org_id = ?2");
SQL(kSelectProjectById, DW_PROJECT_COLUMNS "WHERE p.id = ?1");
SQL(kSelectProjects, DW_PROJECT_COLUMNS "WHERE p.org_id = ?1 ORDER BY p.id");
// A claimed turn's project with its organisation's budget (org_token_budget,
// org_cost_budget_micros): the turn checks both as it starts, and reads
// neither again.
SQL(kSelectClaimedProject,
    "SELECT " DW_PROJECT_FIELDS
    ", o.token_budget AS org_token_budget, o.cost_budget_micros AS org_cost_budget_micros "
    "FROM projects p LEFT JOIN orgs o ON o.id = p.org_id WHERE p.id = ?1");
#undef DW_PROJECT_COLUMNS
#undef DW_PROJECT_FIELDS
SQL(kInsertProject,
    "INSERT INTO projects (id, org_id, repository, base_ref, forge, forge_api_url, forge_token, "
    "model, rate_limit_per_hour, created_at, ssh_key_path, ssh_known_hosts_path, models, "
    "write_paths, max_active, hook_secret, mention_handle, publish, token_budget, "
    "cost_budget_micros, site_root) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
    "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)");
SQL(kUpdateProject,
    "UPDATE projects SET repository = ?2, base_ref = ?3, forge = ?4, forge_api_url = ?5, "
    "forge_token = ?6, model = ?7, rate_limit_per_hour = ?8, ssh_key_path = ?9, "
    "ssh_known_hosts_path = ?10, models = ?11, write_paths = ?12, max_active = ?13, "
    "hook_secret = ?14, mention_handle = ?15, publish = ?16, token_budget = ?17, "
    "cost_budget_micros = ?18, site_root = ?19 WHERE id = ?1");
// Secrets at rest (secrets.cc): every stored forge token, and one replaced only
// if it is still the value read (so a sweep never undoes a concurrent update).
SQL(kSelectProjectSecrets,
    "SELECT id, forge_token FROM projects WHERE forge_token IS NOT NULL ORDER BY id");
SQL(kSwapProjectForgeToken,
    "UPDATE projects SET forge_token = ?3 WHERE id = ?1 AND forge_token = ?2");
// The same for the hooks' secrets.
SQL(kSelectProjectHookSecrets,
    "SELECT id, hook_secret FROM projects WHERE hook_secret IS NOT NULL ORDER BY id");
SQL(kSwapProjectHookSecret,
    "UPDATE projects SET hook_secret = ?3 WHERE id = ?1 AND hook_secret = ?2");
// Archives a project of the organisation ?2, once (the first time is kept).
SQL(kArchiveProject,
    "UPDATE projects SET archived_at = COALESCE(archived_at, ?3) WHERE id = ?1 AND org_id = ?2");
// Every project's jobs of the organisation, counted by status in one read.
SQL(kCountJobsByStatus,
    "SELECT j.project_id, j.status, COUNT(*) AS n FROM jobs j JOIN projects p ON "
    "p.id = j.project_id WHERE p.org_id = ?1 GROUP BY j.project_id, j.status ORDER BY "
    "j.project_id");
SQL(kCountActiveJobs, "SELECT COUNT(*) FROM jobs WHERE project_id = ?1 AND status = 'active'");
// A project's deletion, children first: its jobs' steps, turns, messages and
// reviews, its jobs, pull requests and idempotency keys, its workflows and
// their runs, context repositories, watched heads and forge events, then the
// project.
SQL(kDeleteProjectSteps,
    "DELETE FROM steps WHERE job_id IN (SELECT id FROM jobs WHERE project_id = ?1)");
SQL(kDeleteProjectTurns,
    "DELETE FROM turns WHERE job_id IN (SELECT id FROM jobs WHERE project_id = ?1)");
SQL(kDeleteProjectEvents, "DELETE FROM events WHERE project_id = ?1");
SQL(kDeleteProjectMessages, "DELETE FROM messages WHERE project_id = ?1");
SQL(kDeleteProjectReviews, "DELETE FROM reviews WHERE project_id = ?1");
SQL(kDeleteProjectJobs, "DELETE FROM jobs WHERE project_id = ?1");
SQL(kDeleteProjectIdempotencyKeys, "DELETE FROM idempotency_keys WHERE project_id = ?1");
SQL(kDeleteProjectPullRequests, "DELETE FROM pull_requests WHERE project_id = ?1");
SQL(kDeleteProjectWebhookDeliveries, "DELETE FROM webhook_deliveries WHERE project_id = ?1");
SQL(kDeleteProjectWebhooks, "DELETE FROM webhook_endpoints WHERE project_id = ?1");
SQL(kDeleteProjectWorkflowRuns, "DELETE FROM workflow_runs WHERE project_id = ?1");
SQL(kDeleteProjectWorkflows, "DELETE FROM workflows WHERE project_id = ?1");
SQL(kDeleteProjectContextRepositories, "DELETE FROM context_repositories WHERE project_id = ?1");
SQL(kDeleteProjectWatchedHeads, "DELETE FROM watched_heads WHERE project_id = ?1");
SQL(kDeleteProjectForgeEvents, "DELETE FROM forge_events WHERE project_id = ?1");
SQL(kDeleteProjectCommentReplies, "DELETE FROM comment_replies WHERE project_id = ?1");
SQL(kDeleteProject, "DELETE FROM projects WHERE id = ?1");

// --- Jobs and messages ---
#define DW_JOB_COLUMNS                                                                       \
  "SELECT j.id, j.project_id, j.status, j.repository, j.ref, j.model, j.requested_model, "   \
  "j.draft, j.pr_link, j.summary, j.error, j.created_at, j.updated_at, j.archived_at, "      \
  "j.trigger, j.workflow_id, j.context, j.publish, j.commit_sha, j.commit_url, j.pr_state, " \
  "j.input_tokens, j.output_tokens, j.cached_input_tokens, j.cache_write_tokens, "           \
  "j.cost_micros, j.usage_turns, j.unpriced_turns FROM jobs j "
SQL(kSelectJob, DW_JOB_COLUMNS
    "JOIN projects p ON p.id = j.project_id "
    "WHERE j.id = ?1 AND j.project_id = ?2 AND p.org_id = ?3");
SQL(kSelectJobById, DW_JOB_COLUMNS "WHERE j.id = ?1");
// A job by its id alone, in any project of the organisation.
SQL(kSelectJobInOrg,
    DW_JOB_COLUMNS "JOIN projects p ON p.id = j.project_id WHERE j.id = ?1 AND p.org_id = ?2");
SQL(kListJobs, DW_JOB_COLUMNS
    "WHERE j.project_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR j.status = CAST(?2 AS TEXT)) "
    "AND (CAST(?3 AS TEXT) IS NULL OR j.id < CAST(?3 AS TEXT)) ORDER BY j.id DESC LIMIT ?4 "
    "OFFSET ?5");
// Whether a job of the project works on the branch and keeps others off it:
// an active one (two jobs would push over each other), or an archived one (its
// pull request is closed for good).
SQL(kSelectBranchHolder,
    "SELECT id, status FROM jobs WHERE project_id = ?1 AND ref = ?2 AND status IN ('active', "
    "'archived') LIMIT 1");
// Publishing (sql/publish.cc): the project's newest job on a branch; the jobs
// whose pull request may still be open, those asked about longest ago first.
SQL(kSelectJobByBranch, DW_JOB_COLUMNS
    "WHERE j.project_id = ?1 AND j.ref = ?2 ORDER BY j.created_at DESC, j.id DESC "
    "LIMIT 1");
SQL(kSelectJobByPullRequestLink, DW_JOB_COLUMNS
    "WHERE j.project_id = ?1 AND j.pr_link = ?2 ORDER BY j.created_at DESC, j.id DESC "
    "LIMIT 1");
SQL(kListJobsWithOpenPullRequests, DW_JOB_COLUMNS
    "WHERE j.pr_link IS NOT NULL AND (j.pr_state IS NULL OR j.pr_state = 'open') AND "
    "j.status <> 'archived' ORDER BY j.pr_checked_at IS NOT NULL, j.pr_checked_at, j.id LIMIT ?1");
#undef DW_JOB_COLUMNS
// A pull request's state as learned (?2), when asked (?3): the job changes
// (updatedAt) only when the state does; else only when it was asked is noted.
SQL(kSelectPullRequestState, "SELECT pr_state FROM jobs WHERE id = ?1");
SQL(kSetPullRequestState,
    "UPDATE jobs SET pr_state = ?2, pr_checked_at = ?3, updated_at = ?3 WHERE id = ?1");
SQL(kNotePullRequestChecked, "UPDATE jobs SET pr_checked_at = ?2 WHERE id = ?1");
// Another job of the project on the branch, keeping others off it (as
// kSelectBranchHolder).
SQL(kSelectOtherBranchHolder,
    "SELECT id, status FROM jobs WHERE project_id = ?1 AND ref = ?2 AND id <> ?3 AND status IN "
    "('active', 'archived') LIMIT 1");
// The job moves to a new branch: its pull request's state is not known there.
SQL(kSetJobBranch,
    "UPDATE jobs SET ref = ?2, pr_state = NULL, pr_checked_at = NULL, updated_at = ?3 "
    "WHERE id = ?1");
SQL(kCountRecentMessages,
    "SELECT COUNT(*) FROM messages WHERE project_id = ?1 AND created_at > ?2");
SQL(kNthRecentMessage,
    "SELECT created_at FROM messages WHERE project_id = ?1 AND created_at > ?2 "
    "ORDER BY created_at LIMIT 1 OFFSET ?3");
SQL(kInsertJob,
    "INSERT INTO jobs (id, project_id, status, repository, ref, model, draft, pr_link, summary, "
    "error, created_at, updated_at, archived_at, next_seq, requested_model, trigger, workflow_id, "
    "context, publish) VALUES (?1, ?2, 'active', ?3, ?4, ?5, ?6, NULL, NULL, NULL, ?7, ?7, NULL, "
    "2, "
    "?8, ?9, ?10, ?11, ?12)");
SQL(kInsertMessage,
    "INSERT INTO messages (job_id, seq, project_id, prompt, created_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5)");
// ?3: the job's project, kept on the turn for the claim (turns_open_project).
SQL(kInsertTurn,
    "INSERT INTO turns (job_id, seq, state, project_id) VALUES (?1, ?2, 'queued', ?3)");
SQL(kSelectJobSeq, "SELECT next_seq FROM jobs WHERE id = ?1");
SQL(kCountQueuedTurns, "SELECT COUNT(*) FROM turns WHERE job_id = ?1 AND state = 'queued'");
SQL(kJobFollowUp,
    "UPDATE jobs SET status = 'active', error = NULL, updated_at = ?2, next_seq = next_seq + 1, "
    "requested_model = COALESCE(?3, requested_model), model = COALESCE(?3, model) WHERE id = ?1");
// The model a turn resolved as it started, when it differs from the one shown.
SQL(kSetJobModel, "UPDATE jobs SET model = ?2 WHERE id = ?1 AND (model IS NULL OR model <> ?2)");
SQL(kJobArchive,
    "UPDATE jobs SET status = 'archived', archived_at = ?2, updated_at = ?2 WHERE id = ?1");
SQL(kCancelOpenTurns,
    "UPDATE turns SET state = 'cancelled', finished_at = ?2, error = 'the job was archived' "
    "WHERE job_id = ?1 AND state IN ('queued', 'running')");
// The job's first unfinished turn, asked to stop after its current step.
SQL(kRequestStop,
    "UPDATE turns SET stop_requested = 1 WHERE job_id = ?1 AND seq = (SELECT MIN(seq) FROM "
    "turns WHERE job_id = ?1 AND state IN ('queued', 'running'))");
#define DW_MESSAGE_COLUMNS                                                                    \
  "SELECT m.job_id, m.seq, m.prompt, m.created_at, t.state, t.attempts, t.summary, t.error, " \
  "t.finished_at, t.input_tokens, t.output_tokens, t.cached_input_tokens, "                   \
  "t.cache_write_tokens, t.model, t.cost_micros FROM messages m JOIN turns t ON "             \
  "t.job_id = m.job_id AND t.seq = m.seq "
SQL(kSelectMessagesUpTo, DW_MESSAGE_COLUMNS
    "WHERE m.job_id = ?1 AND m.seq <= ?2 AND (m.seq = 1 OR m.seq >= ?2 - ?3) ORDER BY m.seq");
SQL(kSelectMessagesPage,
    DW_MESSAGE_COLUMNS "WHERE m.job_id = ?1 AND m.seq > ?2 ORDER BY m.seq LIMIT ?3");
#undef DW_MESSAGE_COLUMNS
// The heads of a job's first message and of its latest ?3 (Store::ListMessageHeads).
SQL(kSelectMessageHeads,
    "SELECT m.seq, SUBSTR(m.prompt, 1, CAST(?4 AS INTEGER)), t.state FROM messages m JOIN turns "
    "t ON t.job_id = m.job_id AND t.seq = m.seq WHERE m.job_id = ?1 AND m.project_id = ?2 AND "
    "(m.seq = 1 OR m.seq > (SELECT next_seq FROM jobs WHERE id = ?1) - 1 - ?3) ORDER BY m.seq");
// The first message of ?2 .. ?3 whose steps are left out of a page of ?4 bytes
// (Store::ListSteps), or NULL. SQLite's LENGTH of a text counts characters up
// to a NUL: a blob's, bytes.
#define DW_FIRST_STEPS_LEFT_OUT(open, close)                                                  \
  "WITH sized AS (SELECT seq, SUM(" open "text" close " + " open "arguments" close " + " open \
  "result" close                                                                              \
  ") AS n FROM steps WHERE job_id = ?1 AND seq >= ?2 AND seq <= ?3 "                          \
  "GROUP BY seq) "                                                                            \
  "SELECT MIN(seq) FROM (SELECT seq, SUM(n) OVER (ORDER BY seq) - n AS before FROM sized) w " \
  "WHERE before >= ?4"
SQL_EACH(kFirstStepsLeftOut, DW_FIRST_STEPS_LEFT_OUT("LENGTH(CAST(", " AS BLOB))"),
         DW_FIRST_STEPS_LEFT_OUT("octet_length(", ")"));
#undef DW_FIRST_STEPS_LEFT_OUT
SQL(kSelectSteps,
    "SELECT seq, kind, text, tool, arguments, result, is_error FROM steps WHERE job_id = ?1 "
    "AND seq >= ?2 AND seq <= ?3 ORDER BY seq, n");
SQL(kJobUsage,
    "SELECT COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS "
    "output_tokens, COALESCE(SUM(cached_input_tokens), 0) AS cached_input_tokens, "
    "COALESCE(SUM(cache_write_tokens), 0) AS cache_write_tokens FROM turns WHERE job_id = ?1");

// --- Idempotency keys of creates and follow-ups ---
// ?3: the oldest creation time still kept.
SQL(kSelectIdempotencyKey,
    "SELECT route, body_sha256, status, body FROM idempotency_keys "
    "WHERE project_id = ?1 AND idempotency_key = ?2 AND created_at >= ?3");
SQL(kInsertIdempotencyKey,
    "INSERT INTO idempotency_keys (project_id, idempotency_key, route, body_sha256, status, "
    "body, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
// The project's keys older than ?2: the key ?3 (so it can be used again) and at
// most ?4 others, so one write never pays for a whole backlog.
SQL(kDeleteExpiredIdempotencyKeys,
    "DELETE FROM idempotency_keys WHERE project_id = ?1 AND created_at < ?2 AND "
    "(idempotency_key = ?3 OR idempotency_key IN (SELECT idempotency_key FROM idempotency_keys "
    "WHERE project_id = ?1 AND created_at < ?2 ORDER BY created_at LIMIT ?4))");

// --- Turns: the work queue ---
// The next turn to run, fairly between tenants: among the runnable turns (queued,
// or running on an expired lease; each job's in order; none of an organisation
// or project at its cap of turns in flight), the one whose organisation has the
// fewest turns running now, then whose project has, then the oldest. So one
// organisation's backlog delays another's first job by at most the turns
// already running, one per worker. ?1: a JSON array of the caller's held
// projects (Store::ClaimTurn), each counted as a turn running.
//
// All of a project's turns share its counts and caps, so only each project's
// oldest runnable turn can win, and a backlog need not be read whole (it was,
// at O(queued) per claim): open_projects finds the projects with open turns,
// one index seek each (turns_open_project); candidates, each one's oldest
// runnable turn, reading past only its turns running and the follow-ups queued
// behind open turns. The claim weighs those few, one a project, checking each
// again as before, so a turn is never taken out of its job's order.
// The counts are taken only for the candidates' organisations (project_busy:
// each of their projects, its turns running plus the held entries naming it;
// org_busy: their sums), one index seek a project (turns_running_project), not
// by joining every running turn to its job and project (O(turns running) per
// claim). An organisation's count includes its projects with no candidate.
// PostgreSQL: a candidate another transaction holds is skipped, and with it its
// project for this claim (the project's next turn is not tried until the next).
#define DW_OPEN "state IN ('queued', 'running')"
#define DW_FIND_RUNNABLE(held)                                                               \
  "WITH RECURSIVE open_projects(project_id) AS ("                                            \
  "SELECT MIN(project_id) FROM turns WHERE " DW_OPEN                                         \
  " UNION ALL "                                                                              \
  "SELECT (SELECT MIN(n.project_id) FROM turns n WHERE n." DW_OPEN                           \
  " AND n.project_id > o.project_id) FROM open_projects o WHERE o.project_id IS NOT NULL), " \
  "candidates AS MATERIALIZED (SELECT o.project_id, (SELECT f.id FROM turns f WHERE "        \
  "f.project_id = o.project_id AND f." DW_OPEN                                               \
  " AND (f.state = 'queued' OR f.lease_expires_at <= docwright_now_ms()) "                   \
  "AND NOT EXISTS (SELECT 1 FROM turns e WHERE e.job_id = f.job_id AND e.seq < f.seq "       \
  "AND e." DW_OPEN                                                                           \
  ") ORDER BY f.id LIMIT 1) AS id FROM open_projects o "                                     \
  "WHERE o.project_id IS NOT NULL), "                                                        \
  "held_projects AS MATERIALIZED (SELECT h.value AS project_id FROM " held                   \
  "), "                                                                                      \
  "project_busy AS MATERIALIZED (SELECT q.id AS project_id, q.org_id, "                      \
  "(SELECT COUNT(*) FROM turns r WHERE r.project_id = q.id AND r.state = 'running' "         \
  "AND r.lease_expires_at > docwright_now_ms()) + "                                          \
  "(SELECT COUNT(*) FROM held_projects hp WHERE hp.project_id = q.id) AS n FROM projects q " \
  "WHERE q.org_id IN (SELECT p.org_id FROM candidates c JOIN projects p "                    \
  "ON p.id = c.project_id WHERE c.id IS NOT NULL)), "                                        \
  "org_busy AS MATERIALIZED (SELECT org_id, SUM(n) AS n FROM project_busy "                  \
  "GROUP BY org_id) "                                                                        \
  "SELECT t.id, t.job_id, t.seq, t.state, t.attempts, t.stop_requested FROM candidates c "   \
  "JOIN turns t ON t.id = c.id JOIN jobs j ON j.id = t.job_id "                              \
  "JOIN projects p ON p.id = j.project_id JOIN orgs o ON o.id = p.org_id "                   \
  "LEFT JOIN org_busy ob ON ob.org_id = p.org_id "                                           \
  "LEFT JOIN project_busy pb ON pb.project_id = j.project_id "                               \
  "WHERE t." DW_OPEN                                                                         \
  " "                                                                                        \
  "AND (t.state = 'queued' OR t.lease_expires_at <= docwright_now_ms()) "                    \
  "AND NOT EXISTS (SELECT 1 FROM turns e WHERE e.job_id = t.job_id AND e.seq < t.seq "       \
  "AND e." DW_OPEN                                                                           \
  ") "                                                                                       \
  "AND (o.max_active IS NULL OR COALESCE(ob.n, 0) < o.max_active) "                          \
  "AND (p.max_active IS NULL OR COALESCE(pb.n, 0) < p.max_active) "                          \
  "ORDER BY COALESCE(ob.n, 0), COALESCE(pb.n, 0), t.id LIMIT 1"
#define DW_HELD_SQLITE "json_each(?1) h"
#define DW_HELD_POSTGRES "jsonb_array_elements_text(CAST(CAST(?1 AS TEXT) AS jsonb)) AS h(value)"
SQL_EACH(kFindRunnable, DW_FIND_RUNNABLE(DW_HELD_SQLITE), DW_FIND_RUNNABLE(DW_HELD_POSTGRES));
// The claim's form. PostgreSQL: it locks the turn it returns and the turn's job
// together, and passes over a turn when another transaction holds either (a
// follow-up being added, an archive, a turn being recorded): it never waits, so
// it never waits in a circle with them, and what it reads of the job cannot
// change under it.
SQL_EACH(kClaimRunnable, DW_FIND_RUNNABLE(DW_HELD_SQLITE),
         DW_FIND_RUNNABLE(DW_HELD_POSTGRES) " FOR NO KEY UPDATE OF t, j SKIP LOCKED");
// Turn ?2 of job ?1 (just queued, by the caller's transaction), as the claim's
// form gives a turn, if it is runnable now: queued, its job's earlier turns
// ended, its organisation and project under their caps (turns running with a
// live lease, plus the held entries ?3 naming the project, or a project of the
// organisation). One index seek for each count (turns_running_project); the
// organisation's over its projects.
#define DW_QUEUED_RUNNABLE(held)                                                              \
  "SELECT t.id, t.job_id, t.seq, t.state, t.attempts, t.stop_requested FROM turns t "         \
  "JOIN jobs j ON j.id = t.job_id JOIN projects p ON p.id = j.project_id "                    \
  "JOIN orgs o ON o.id = p.org_id WHERE t.job_id = ?1 AND t.seq = ?2 AND t.state = 'queued' " \
  "AND NOT EXISTS (SELECT 1 FROM turns e WHERE e.job_id = t.job_id AND e.seq < t.seq AND "    \
  "e." DW_OPEN                                                                                \
  ") AND (p.max_active IS NULL OR (SELECT COUNT(*) FROM turns r WHERE r.project_id = p.id "   \
  "AND r.state = 'running' AND r.lease_expires_at > docwright_now_ms()) + (SELECT COUNT(*) "  \
  "FROM " held                                                                                \
  " WHERE h.value = p.id) < p.max_active) "                                                   \
  "AND (o.max_active IS NULL OR (SELECT COUNT(*) FROM projects q JOIN turns r ON "            \
  "r.project_id = q.id WHERE q.org_id = o.id AND r.state = 'running' AND "                    \
  "r.lease_expires_at > docwright_now_ms()) + (SELECT COUNT(*) FROM " held                    \
  " JOIN projects q ON q.id = h.value WHERE q.org_id = o.id) < o.max_active)"
SQL_EACH(
    kQueuedTurnRunnable, DW_QUEUED_RUNNABLE("json_each(?3) h"),
    DW_QUEUED_RUNNABLE("jsonb_array_elements_text(CAST(CAST(?3 AS TEXT) AS jsonb)) AS h(value)"));
#undef DW_QUEUED_RUNNABLE
#undef DW_HELD_POSTGRES
#undef DW_HELD_SQLITE
#undef DW_FIND_RUNNABLE
#undef DW_OPEN
SQL(kSelectTurn,
    "SELECT id, job_id, seq, state, attempts, lease_owner, stop_requested FROM turns "
    "WHERE id = ?1");
// ?3: the lease in milliseconds; ?4: now, the turn's start if it is its first.
SQL(kClaimTurn,
    "UPDATE turns SET state = 'running', attempts = attempts + 1, lease_owner = ?2, "
    "lease_expires_at = docwright_now_ms() + ?3, started_at = COALESCE(started_at, ?4) "
    "WHERE id = ?1");
SQL(kFailTurn,
    "UPDATE turns SET state = 'failed', error = ?2, finished_at = ?3, lease_owner = NULL "
    "WHERE id = ?1");
SQL(kMoreTurnsAfter,
    "SELECT COUNT(*) FROM turns WHERE job_id = ?1 AND seq > ?2 AND state IN ('queued', "
    "'running')");
SQL(kJobAfterTurn,
    "UPDATE jobs SET status = ?2, pr_link = COALESCE(?3, pr_link), "
    "summary = COALESCE(?4, summary), error = ?5, updated_at = ?6, "
    "commit_sha = COALESCE(?7, commit_sha), commit_url = COALESCE(?8, commit_url), "
    "pr_state = COALESCE(?9, pr_state) WHERE id = ?1");
SQL(kRenewLease,
    "UPDATE turns SET lease_expires_at = docwright_now_ms() + ?3 "
    "WHERE id = ?1 AND lease_owner = ?2 AND state = 'running' RETURNING stop_requested");
// Store::RenewLeases: ?1 a JSON array of [turn id, worker id] pairs, ?2 the
// lease in milliseconds. The answer is one row per pair, by its place `ord`
// (from 1): `renewed` (1 or 0), and the turn's stop_requested, state (NULL: no
// such turn) and lease_owner. PostgreSQL gives it in the one statement that
// renews (one round trip), the update's rows joined to the turns as of the
// statement's start: a write to a turn that commits meanwhile may stop its
// renewal while the turn still shows as running and its worker's (it is read
// again). SQLite renews, then reads the turns after the update in the same
// transaction (kSelectRenewedLeases).
SQL_EACH(kRenewLeases,
         "UPDATE turns SET lease_expires_at = docwright_now_ms() + ?2 FROM (SELECT "
         "json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS worker FROM "
         "json_each(?1)) AS req WHERE turns.id = req.id AND turns.lease_owner = req.worker AND "
         "turns.state = 'running'",
         "WITH req AS MATERIALIZED (SELECT CAST(e.value->>0 AS BIGINT) AS id, e.value->>1 AS "
         "worker, e.ord FROM jsonb_array_elements(CAST(CAST(?1 AS TEXT) AS jsonb)) WITH "
         "ORDINALITY AS e(value, ord)), "
         "renewed AS (UPDATE turns t SET lease_expires_at = docwright_now_ms() + ?2 FROM req "
         "WHERE t.id = req.id AND t.lease_owner = req.worker AND t.state = 'running' "
         "RETURNING t.id, t.lease_owner, t.stop_requested) "
         "SELECT req.ord, CASE WHEN n.id IS NULL THEN 0 ELSE 1 END AS renewed, "
         "n.stop_requested, t.state, t.lease_owner FROM req LEFT JOIN renewed n "
         "ON n.id = req.id AND n.lease_owner = req.worker LEFT JOIN turns t ON t.id = req.id "
         "ORDER BY req.ord");
SQL_SQLITE(kSelectRenewedLeases,
           "SELECT r.key + 1 AS ord, CASE WHEN t.state = 'running' AND t.lease_owner = "
           "json_extract(r.value, '$[1]') THEN 1 ELSE 0 END AS renewed, t.stop_requested, "
           "t.state, t.lease_owner FROM json_each(?1) AS r LEFT JOIN turns t "
           "ON t.id = json_extract(r.value, '$[0]') ORDER BY r.key");
// The turn's usage is added (SqlStore::AddTurnUsage) in the same transaction;
// ?5 the model it ended with, if it names one.
SQL(kFinishTurn,
    "UPDATE turns SET state = ?2, summary = ?3, error = ?4, finished_at = ?5, "
    "model = COALESCE(NULLIF(CAST(?6 AS TEXT), ''), model) WHERE id = ?1");
// Whether the turn counts as one that used the model (usage.cc's DW_COUNTED),
// and as one without a price.
SQL(kSelectTurnCounted,
    "SELECT CASE WHEN model <> '' OR input_tokens + output_tokens > 0 THEN 1 ELSE 0 END AS "
    "counted, CASE WHEN cost_micros IS NULL THEN 1 ELSE 0 END AS unpriced FROM turns "
    "WHERE id = ?1");
// Tokens ?2..?5 and cost ?6 added to the turn's, the cost NULL only while no
// attempt had one; ?7 its model if it has none yet.
SQL(kAddTurnUsage,
    "UPDATE turns SET input_tokens = input_tokens + ?2, output_tokens = output_tokens + ?3, "
    "cached_input_tokens = cached_input_tokens + ?4, cache_write_tokens = cache_write_tokens + "
    "?5, cost_micros = CASE WHEN cost_micros IS NULL AND CAST(?6 AS BIGINT) IS NULL THEN NULL "
    "ELSE COALESCE(cost_micros, 0) + COALESCE(CAST(?6 AS BIGINT), 0) END, "
    "model = CASE WHEN model = '' THEN CAST(?7 AS TEXT) ELSE model END WHERE id = ?1");
// A turn's usage added to its job's totals (Job::usage): ?7 and ?8 what that
// changed of the job's turns that used the model and of those without a price
// (-1, 0 or 1: a turn charged more than once counts once).
SQL(kAddJobUsage,
    "UPDATE jobs SET input_tokens = input_tokens + ?2, output_tokens = output_tokens + ?3, "
    "cached_input_tokens = cached_input_tokens + ?4, cache_write_tokens = cache_write_tokens + "
    "?5, cost_micros = cost_micros + ?6, usage_turns = usage_turns + ?7, "
    "unpriced_turns = unpriced_turns + ?8 WHERE id = ?1");
SQL(kDeleteSteps, "DELETE FROM steps WHERE job_id = ?1 AND seq = ?2");
SQL(kInsertStep,
    "INSERT INTO steps (job_id, seq, n, kind, text, tool, arguments, result, is_error) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
// A step recorded as it happens (Store::RecordStep); FinishTurn replaces the
// turn's steps with the outcome's.
SQL(kUpsertStep,
    "INSERT INTO steps (job_id, seq, n, kind, text, tool, arguments, result, is_error) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (job_id, seq, n) DO UPDATE SET "
    "kind = excluded.kind, text = excluded.text, tool = excluded.tool, "
    "arguments = excluded.arguments, result = excluded.result, is_error = excluded.is_error");
SQL(kTouchJob, "UPDATE jobs SET updated_at = ?2 WHERE id = ?1");
SQL(kReleaseTurn,
    "UPDATE turns SET state = 'queued', "
    "attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END, lease_owner = NULL, "
    "lease_expires_at = NULL WHERE id = ?1 AND lease_owner = ?2 AND state = 'running'");

// --- Pull requests of the local forge ---
#define DW_PULL_REQUEST_COLUMNS                                                                   \
  "SELECT id, project_id, number, head, base, title, body, diff, draft, created_at, updated_at, " \
  "archived_at, merged_at, merge_commit FROM pull_requests "
// The branch's open one: a merged pull request is not reopened.
SQL(kSelectPullRequestByHead,
    DW_PULL_REQUEST_COLUMNS "WHERE project_id = ?1 AND head = ?2 AND merged_at IS NULL");
SQL(kSelectPullRequest, DW_PULL_REQUEST_COLUMNS "WHERE id = ?1");
SQL(kSelectPullRequestByNumber, DW_PULL_REQUEST_COLUMNS "WHERE project_id = ?1 AND number = ?2");
// The branch's newest, merged or not.
SQL(kSelectLastPullRequestByHead,
    DW_PULL_REQUEST_COLUMNS "WHERE project_id = ?1 AND head = ?2 ORDER BY number DESC LIMIT 1");
#undef DW_PULL_REQUEST_COLUMNS
SQL(kJobOfBranchArchived,
    "SELECT 1 FROM jobs WHERE project_id = ?1 AND ref = ?2 AND status = 'archived'");
SQL(kNextPullRequestNumber,
    "SELECT COALESCE(MAX(number), 0) + 1 FROM pull_requests WHERE project_id = ?1");
SQL(kInsertPullRequest,
    "INSERT INTO pull_requests (id, project_id, number, head, base, title, body, diff, draft, "
    "created_at, updated_at, archived_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, "
    "?11)");
SQL(kUpdatePullRequest,
    "UPDATE pull_requests SET base = ?2, title = ?3, body = ?4, diff = ?5, draft = ?6, "
    "updated_at = ?7 WHERE id = ?1 AND archived_at IS NULL");
SQL(kMarkPullRequestMerged,
    "UPDATE pull_requests SET merged_at = ?2, merge_commit = ?3, updated_at = ?2 "
    "WHERE id = ?1 AND merged_at IS NULL AND archived_at IS NULL");
// An archived job's pull request keeps its title, and no longer its description
// (which quotes the prompt) or diff: its page is public to whoever has the link.
SQL(kArchivePullRequest,
    "UPDATE pull_requests SET archived_at = ?3, body = '', diff = '', updated_at = ?3 "
    "WHERE project_id = ?1 AND head = ?2 AND archived_at IS NULL");

// --- Reviews of jobs' branches ---
#define DW_REVIEW_COLUMNS                                                                    \
  "SELECT r.job_id, r.project_id, r.branch, r.base, r.base_commit, r.head_commit, r.files, " \
  "r.diff, r.diff_truncated, r.problems, r.notes, r.pull_request_body_html, r.updated_at "   \
  "FROM reviews r "
SQL(kSelectReview, DW_REVIEW_COLUMNS
    "JOIN jobs j ON j.id = r.job_id JOIN projects p ON p.id = j.project_id "
    "WHERE r.job_id = ?1 AND j.project_id = ?2 AND p.org_id = ?3");
// A branch may have been worked on by several jobs over time (a finished job's
// branch can be taken up again): the latest review is the branch's.
SQL(kSelectReviewByBranch, DW_REVIEW_COLUMNS
    "WHERE r.project_id = ?1 AND r.branch = ?2 ORDER BY r.updated_at DESC, "
    "r.job_id DESC LIMIT 1");
#undef DW_REVIEW_COLUMNS
SQL(kUpsertReview,
    "INSERT INTO reviews (job_id, project_id, branch, base, base_commit, head_commit, files, "
    "diff, diff_truncated, problems, notes, pull_request_body_html, updated_at) VALUES (?1, ?2, "
    "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) ON CONFLICT (job_id) DO UPDATE SET "
    "project_id = excluded.project_id, branch = excluded.branch, base = excluded.base, "
    "base_commit = excluded.base_commit, head_commit = excluded.head_commit, "
    "files = excluded.files, diff = excluded.diff, diff_truncated = excluded.diff_truncated, "
    "problems = excluded.problems, notes = excluded.notes, "
    "pull_request_body_html = excluded.pull_request_body_html, updated_at = excluded.updated_at");

// --- Events ---
// The job's next event number; the caller holds the job's lock.
SQL(kNextEvent, "UPDATE jobs SET last_event = last_event + 1 WHERE id = ?1 RETURNING last_event");
SQL(kInsertEvent,
    "INSERT INTO events (job_id, sequence, project_id, type, data, created_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
SQL(kSelectEvents,
    "SELECT job_id, sequence, project_id, type, data, created_at FROM events "
    "WHERE job_id = ?1 AND sequence > ?2 ORDER BY sequence LIMIT ?3");
SQL(kSelectLastEvent, "SELECT last_event FROM jobs WHERE id = ?1");

// --- Webhooks: endpoints, and the outbox of their deliveries ---
#define DW_WEBHOOK_COLUMNS                                                                    \
  "SELECT id, project_id, url, events, secret, previous_secret, previous_secret_expires_at, " \
  "enabled, disabled_reason, disabled_at, created_at FROM webhook_endpoints "
SQL(kSelectWebhook, DW_WEBHOOK_COLUMNS "WHERE id = ?1");
SQL(kSelectWebhooks, DW_WEBHOOK_COLUMNS "WHERE project_id = ?1 ORDER BY created_at, id");
#undef DW_WEBHOOK_COLUMNS
SQL(kCountWebhooks, "SELECT COUNT(*) FROM webhook_endpoints WHERE project_id = ?1");
SQL(kInsertWebhook,
    "INSERT INTO webhook_endpoints (id, project_id, url, events, secret, enabled, created_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)");
SQL(kDeleteWebhookDeliveries, "DELETE FROM webhook_deliveries WHERE endpoint_id = ?1");
SQL(kDeleteWebhook, "DELETE FROM webhook_endpoints WHERE id = ?1");
SQL(kEnableWebhook,
    "UPDATE webhook_endpoints SET enabled = 1, disabled_reason = NULL, disabled_at = NULL "
    "WHERE id = ?1");
// An endpoint enabled again: its pending deliveries are due now, afresh.
SQL(kRestartWebhookDeliveries,
    "UPDATE webhook_deliveries SET next_attempt_at = ?2, first_failed_at = NULL "
    "WHERE endpoint_id = ?1 AND state = 'pending'");
SQL(kDisableWebhook,
    "UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?2, disabled_at = ?3 "
    "WHERE id = ?1 AND enabled = 1");
// A rotation: replaced only if the secret is still the one read.
SQL(kRotateWebhookSecret,
    "UPDATE webhook_endpoints SET secret = ?3, previous_secret = ?4, "
    "previous_secret_expires_at = ?5 WHERE id = ?1 AND secret = ?2");
// Secrets at rest (secrets.cc), as kSelectProjectSecrets and its swap.
SQL(kSelectWebhookSecrets, "SELECT id, secret, previous_secret FROM webhook_endpoints ORDER BY id");
SQL(kSwapWebhookSecret, "UPDATE webhook_endpoints SET secret = ?3 WHERE id = ?1 AND secret = ?2");
SQL(kSwapWebhookPreviousSecret,
    "UPDATE webhook_endpoints SET previous_secret = ?3 WHERE id = ?1 AND previous_secret = ?2");
// The outbox: the event ?1.?2 of project ?3, of type ?4, written at ?5, put in
// for each enabled endpoint of the project taking its type. An index on the
// endpoints' project makes it one probe when the project has none.
#define DW_ENQUEUE_DELIVERIES(find)                                                             \
  "INSERT INTO webhook_deliveries (endpoint_id, project_id, job_id, sequence, event_type, "     \
  "state, attempts, next_attempt_at, created_at) SELECT e.id, e.project_id, CAST(?1 AS TEXT), " \
  "CAST(?2 AS BIGINT), CAST(?4 AS TEXT), 'pending', 0, CAST(?5 AS BIGINT), CAST(?5 AS BIGINT) " \
  "FROM webhook_endpoints e WHERE e.project_id = ?3 AND e.enabled = 1 AND " find " > 0"
SQL_EACH(kEnqueueDeliveries,
         DW_ENQUEUE_DELIVERIES("instr(e.events, ',' || CAST(?4 AS TEXT) || ',')"),
         DW_ENQUEUE_DELIVERIES("strpos(e.events, ',' || CAST(?4 AS TEXT) || ',')"));
#undef DW_ENQUEUE_DELIVERIES
// Claims take deliveries one at a time across every node, so that two never
// take two deliveries of one endpoint (one request in flight an endpoint).
SQL_POSTGRES(kLockDeliveryClaims, "SELECT pg_advisory_xact_lock(7237952079556063849)");
// The next delivery due (Store::ClaimWebhookDelivery). PostgreSQL also passes
// over a delivery whose row another transaction holds (one being recorded).
#define DW_FIND_DUE_DELIVERY                                                                  \
  "SELECT d.id, d.endpoint_id, d.job_id, d.sequence, d.attempts, d.first_failed_at, e.url, "  \
  "e.secret, e.previous_secret, e.previous_secret_expires_at, v.project_id, v.type, v.data, " \
  "v.created_at FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id "  \
  "JOIN events v ON v.job_id = d.job_id AND v.sequence = d.sequence "                         \
  "WHERE d.state = 'pending' AND e.enabled = 1 AND d.next_attempt_at <= docwright_now_ms() "  \
  "AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= docwright_now_ms()) "             \
  "AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id "   \
  "AND p.job_id = d.job_id AND p.sequence < d.sequence AND p.state = 'pending') "             \
  "ORDER BY d.next_attempt_at, d.id LIMIT 1"
SQL_EACH(kFindDueDelivery, DW_FIND_DUE_DELIVERY,
         DW_FIND_DUE_DELIVERY " FOR UPDATE OF d SKIP LOCKED");
#undef DW_FIND_DUE_DELIVERY
// Whether any delivery may be due: a read before the claim's write, so an idle
// worker woken by every event writes nothing.
SQL(kAnyDueDelivery,
    "SELECT 1 FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= "
    "docwright_now_ms() AND (lease_expires_at IS NULL OR lease_expires_at <= docwright_now_ms()) "
    "LIMIT 1");
SQL(kLeaseDelivery,
    "UPDATE webhook_deliveries SET lease_owner = ?2, lease_expires_at = docwright_now_ms() + ?3 "
    "WHERE id = ?1");
// ?3: the receiver's status; ?4: now.
SQL(kDeliveryDelivered,
    "UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, "
    "last_status = ?3, last_error = NULL, last_attempt_at = ?4, delivered_at = ?4, "
    "next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL "
    "WHERE id = ?1 AND lease_owner = ?2 AND state = 'pending'");
// ?3: the receiver's status or NULL; ?4: the error; ?5: now; ?6: the wait before
// the next attempt. Returns the first failure's time.
SQL(kDeliveryFailed,
    "UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?3, last_error = ?4, "
    "last_attempt_at = ?5, first_failed_at = COALESCE(first_failed_at, ?5), "
    "next_attempt_at = CAST(?5 AS BIGINT) + CAST(?6 AS BIGINT), lease_owner = NULL, "
    "lease_expires_at = NULL WHERE id = ?1 AND lease_owner = ?2 AND state = 'pending' "
    "RETURNING endpoint_id, first_failed_at");
SQL(kSelectDeliveries,
    "SELECT id, endpoint_id, job_id, sequence, event_type, state, attempts, last_status, "
    "last_error, created_at, last_attempt_at, next_attempt_at, first_failed_at, delivered_at "
    "FROM webhook_deliveries WHERE endpoint_id = ?1 ORDER BY id DESC LIMIT ?2");

SQL(kPing, "SELECT 1");

#undef SQL_SQLITE
#undef SQL_POSTGRES
#undef SQL_EACH
#undef SQL

}  // namespace docwright::sql
