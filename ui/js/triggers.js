// Workflow triggers in words: a workflow's definition ("on the schedule 0 9 * * 1
// in Europe/Berlin") and what started one of its runs ("merge into sdk main
// (abc1234..def5678)"), for the Workflows page and the job page. Plain text
// only: callers put it into the page as text.

export function shortSha(sha) {
  return typeof sha === 'string' && sha ? sha.slice(0, 7) : '';
}

// A workflow's `trigger` (docs/api.md, "Workflows"), exact rather than
// clever: the cron expression and its zone as given.
export function describeTrigger(trigger) {
  const t = trigger || {};
  switch (t.kind) {
    case 'schedule':
      return `on the schedule “${t.cron}” (cron) in ${t.timeZone || 'UTC'}`;
    case 'push':
      return `on a push to ${t.branch ? `the branch ${t.branch}` : 'the base branch'} of the docs repository`;
    case 'merge':
      return `on a merge into ${t.branch ? `the branch ${t.branch}` : 'the watched branch'} of the context repository ${t.repository}`;
    case 'manual':
      return 'by hand only';
    default:
      return String(t.kind || 'unknown');
  }
}

// "2026-12-01 09:00" of an RFC 3339 time with its own offset: the wall clock
// of the schedule's zone, exactly as the API wrote it.
function wallClock(rfc3339) {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(String(rfc3339 || ''));
  return m ? `${m[1]} ${m[2]}` : String(rfc3339 || '');
}

function range(from, to) {
  if (!to) return '';
  return from ? ` (${shortSha(from)}..${shortSha(to)})` : ` (up to ${shortSha(to)})`;
}

// What started a run (a run's or a job's `trigger`, the RunTrigger object),
// after "Started by workflow NAME: ".
export function describeRunTrigger(trigger) {
  const t = trigger || {};
  switch (t.kind) {
    case 'schedule':
      return `schedule, due ${wallClock(t.scheduledFor)}${t.timeZone ? ` ${t.timeZone}` : ''}`;
    case 'push':
      return `push to ${t.repository === 'docs' || !t.repository ? 'the docs repository' : t.repository}${t.branch ? ` ${t.branch}` : ''}${range(t.from, t.to)}`;
    case 'merge':
      return `merge into ${t.repository}${t.branch ? ` ${t.branch}` : ''}${range(t.from, t.to)}`;
    case 'manual':
      return 'by hand';
    case 'comment':
      return 'a comment on the pull request';
    default:
      return String(t.kind || 'unknown');
  }
}
