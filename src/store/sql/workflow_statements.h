// Internal to the SQL store: the statements of workflows, their runs, context
// repositories and watched heads, as sql/statements.h writes its own (same
// placeholders, same clock, same lock order: project, then workflow, then job).
#pragma once

#include "store/sql/driver.h"

namespace docwright::sql {

#define SQL(name, text) \
  inline constexpr Statement name { text, text }
#define SQL_EACH(name, sqlite, postgres) \
  inline constexpr Statement name { sqlite, postgres }

// --- Context repositories ---
SQL(kSelectContextRepositories,
    "SELECT project_id, name, repository, branch, created_at FROM context_repositories "
    "WHERE project_id = ?1 ORDER BY name");
SQL(kContextRepositoryExists,
    "SELECT COUNT(*) FROM context_repositories WHERE project_id = ?1 AND name = ?2");
SQL(kCountContextRepositories, "SELECT COUNT(*) FROM context_repositories WHERE project_id = ?1");
SQL(kInsertContextRepository,
    "INSERT INTO context_repositories (project_id, name, repository, branch, created_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5)");
SQL(kDeleteContextRepository,
    "DELETE FROM context_repositories WHERE project_id = ?1 AND name = ?2");

// --- Workflows ---
#define DW_WORKFLOW_COLUMNS                                                                      \
  "SELECT w.id, w.project_id, w.name, w.source, w.title, w.prompt, w.trigger_kind, w.cron, "     \
  "w.time_zone, w.trigger_repository, w.trigger_branch, w.context, w.publish, w.model, "         \
  "w.runs_per_day, w.enabled, w.file_path, w.file_commit, w.error, w.created_at, w.updated_at, " \
  "w.schedule_from FROM workflows w "
SQL(kSelectWorkflow, DW_WORKFLOW_COLUMNS "WHERE w.id = ?1");
// The workflow's lock: every run of it is decided under it (after the
// project's), so two nodes never both start one for one event.
SQL_EACH(kLockWorkflow, DW_WORKFLOW_COLUMNS "WHERE w.id = ?1",
         DW_WORKFLOW_COLUMNS "WHERE w.id = ?1 FOR UPDATE");
// API before file among two of one name ('api' < 'file').
SQL(kSelectWorkflows, DW_WORKFLOW_COLUMNS "WHERE w.project_id = ?1 ORDER BY w.name, w.source");
SQL(kSelectWorkflowsOfSource,
    DW_WORKFLOW_COLUMNS "WHERE w.project_id = ?1 AND w.source = ?2 ORDER BY w.name");
SQL(kSelectWorkflowByName,
    DW_WORKFLOW_COLUMNS "WHERE w.project_id = ?1 AND w.source = ?2 AND w.name = ?3");
SQL(kSelectWorkflowsByTrigger, DW_WORKFLOW_COLUMNS
    "JOIN projects p ON p.id = w.project_id WHERE w.trigger_kind = ?1 AND w.enabled = 1 AND "
    "p.archived_at IS NULL ORDER BY w.project_id, w.name, w.source LIMIT ?2");
#undef DW_WORKFLOW_COLUMNS
SQL(kCountWorkflows, "SELECT COUNT(*) FROM workflows WHERE project_id = ?1");
SQL(kInsertWorkflow,
    "INSERT INTO workflows (id, project_id, name, source, title, prompt, trigger_kind, cron, "
    "time_zone, trigger_repository, trigger_branch, context, publish, model, runs_per_day, "
    "enabled, file_path, file_commit, error, created_at, updated_at, schedule_from) VALUES (?1, "
    "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
    "?22)");
SQL(kUpdateWorkflow,
    "UPDATE workflows SET name = ?2, title = ?3, prompt = ?4, trigger_kind = ?5, cron = ?6, "
    "time_zone = ?7, trigger_repository = ?8, trigger_branch = ?9, context = ?10, publish = ?11, "
    "model = ?12, runs_per_day = ?13, enabled = ?14, file_path = ?15, file_commit = ?16, "
    "error = ?17, updated_at = ?18, schedule_from = ?19 WHERE id = ?1");
SQL(kSetScheduleFrom, "UPDATE workflows SET schedule_from = ?2 WHERE id = ?1");
SQL(kDeleteWorkflow, "DELETE FROM workflows WHERE id = ?1");

// --- Workflow runs ---
#define DW_RUN_COLUMNS                                                                    \
  "SELECT r.id, r.workflow_id, r.dedup_key, r.trigger, r.state, r.job_id, r.error, "      \
  "r.created_at, j.status AS job_status FROM workflow_runs r LEFT JOIN jobs j ON j.id = " \
  "r.job_id "
SQL(kSelectRun, DW_RUN_COLUMNS "WHERE r.id = ?1");
SQL(kSelectRunByKey, DW_RUN_COLUMNS "WHERE r.workflow_id = ?1 AND r.dedup_key = ?2");
SQL(kSelectQueuedRun,
    DW_RUN_COLUMNS "WHERE r.workflow_id = ?1 AND r.state = 'queued' ORDER BY r.id LIMIT 1");
SQL(kSelectRuns, DW_RUN_COLUMNS "WHERE r.workflow_id = ?1 ORDER BY r.id DESC LIMIT ?2");
// Queued runs of unarchived projects whose workflow has no run under way.
SQL(kSelectStartableRuns, DW_RUN_COLUMNS
    "JOIN projects p ON p.id = r.project_id WHERE r.state = 'queued' AND p.archived_at IS NULL "
    "AND NOT EXISTS (SELECT 1 FROM workflow_runs s JOIN jobs sj ON sj.id = s.job_id WHERE "
    "s.workflow_id = r.workflow_id AND s.state = 'started' AND sj.status = 'active') "
    "ORDER BY r.id LIMIT ?1");
#undef DW_RUN_COLUMNS
// A run of the workflow under way: started, its job active.
SQL(kCountRunsUnderWay,
    "SELECT COUNT(*) FROM workflow_runs r JOIN jobs j ON j.id = r.job_id "
    "WHERE r.workflow_id = ?1 AND r.state = 'started' AND j.status = 'active'");
// The runs the daily limit counts: started since ?2 (midnight UTC), their jobs
// not failed.
SQL(kCountRunsSince,
    "SELECT COUNT(*) FROM workflow_runs r JOIN jobs j ON j.id = r.job_id "
    "WHERE r.workflow_id = ?1 AND r.state = 'started' AND r.started_at >= ?2 AND "
    "j.status <> 'failed'");
SQL(kInsertRun,
    "INSERT INTO workflow_runs (workflow_id, project_id, dedup_key, trigger, state, job_id, "
    "error, created_at, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING id");
SQL(kUpdateRun,
    "UPDATE workflow_runs SET trigger = ?2, state = ?3, job_id = ?4, error = ?5, started_at = ?6 "
    "WHERE id = ?1");
SQL(kCoalesceRun, "UPDATE workflow_runs SET state = 'coalesced' WHERE id = ?1");
SQL(kDeleteQueuedRuns, "DELETE FROM workflow_runs WHERE workflow_id = ?1 AND state = 'queued'");

// --- Watched heads ---
SQL(kSelectWatchedHead, "SELECT head FROM watched_heads WHERE project_id = ?1 AND watch = ?2");
SQL(kUpsertWatchedHead,
    "INSERT INTO watched_heads (project_id, watch, head, updated_at) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT (project_id, watch) DO UPDATE SET head = excluded.head, "
    "updated_at = excluded.updated_at");
SQL(kProjectExists, "SELECT COUNT(*) FROM projects WHERE id = ?1");

#undef SQL_EACH
#undef SQL

}  // namespace docwright::sql
