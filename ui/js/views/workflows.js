// A project's workflows (docs/api.md, "Workflows"): each one's source, trigger,
// context, publishing, next and last run, and its error or name clash with what
// to do about it; an Enabled switch (PATCH, admin keys only: the API's refusal
// is shown), "Run now", and its runs on demand. Kept current by reading the
// list again every few seconds while the page is visible; a card is updated in
// place, so focus, an open prompt, a run's outcome and an open runs list stay.
import { ApiError, get, patch, path, post } from '../api.js';
import { emptyState, errorBox, firstLine, heading, loading, statusBadge } from '../common.js';
import { h, replace } from '../h.js';
import { formatAge, timeElement } from '../../time.js';
import { describeRunTrigger, describeTrigger } from '../triggers.js';
import { jobHref } from './jobs.js';
import { loadProjects, repositoryName } from './projects.js';

const POLL_MS = 5000;
const RUNS_SHOWN = 20;
// The API's naming rule: a name that breaks it (a workflow file's bad stem,
// listed with its error) cannot be asked for by name.
const NAME_RULE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

// The Workflows page of a project; with `name`, that workflow opened.
export function workflowsHref(projectId, name) {
  const base = `#/projects/${encodeURIComponent(projectId)}/workflows`;
  return name ? `${base}?workflow=${encodeURIComponent(name)}` : base;
}

function workflowPath(projectId, name, ...rest) {
  return path('/v2/agent', projectId, 'workflows', name, ...rest);
}

function sourceText(w) {
  return w.source === 'file' ? ['defined in the file ', h('code', null, w.file || '')] : 'defined through the API';
}

function problem(projectId, w) {
  if (w.error) {
    return h('div', { class: 'error', 'data-test': 'workflow-problem' },
      h('p', null, w.file ? ['The file ', h('code', null, w.file), ' has an error: '] : 'This workflow has an error: ',
        h('span', { class: 'pre' }, w.error)),
      h('p', null, 'It does not run until the file is fixed: change it on the base branch, and the workflow is read again when the branch moves.'));
  }
  if (w.clash) {
    return h('div', { class: 'error', 'data-test': 'workflow-problem' },
      h('p', null, 'Two workflows are named ', h('code', null, w.name),
        ': one defined through the API, one by a file in .docwright/workflows/ or .mintlify/workflows/. Neither runs until one is renamed or removed.'),
      h('p', null, 'Rename or remove the file, or delete the API-defined one (',
        h('code', null, `docwright workflow delete --project ${projectId} --name ${w.name}`),
        '). Until then the switch, “Run now” and the runs list act only on the API-defined one.'));
  }
  return null;
}

function nextRun(w) {
  if (w.nextRunAt) return [timeElement(w.nextRunAt), ` (${formatAge(w.nextRunAt)})`];
  if (w.error || w.clash) return 'none: it does not run until the problem above is fixed';
  if (!w.enabled) return 'none: the workflow is disabled (it still runs by hand)';
  const kind = w.trigger && w.trigger.kind;
  if (kind === 'schedule') return 'none: the schedule never fires';
  if (kind === 'manual') return 'when someone runs it';
  return 'at the next change it watches';
}

function runJob(projectId, run) {
  if (!run.jobId) return '—';
  return [h('a', { href: jobHref(projectId, run.jobId), 'data-test': 'workflow-job-link' }, 'the job'),
    run.jobStatus ? [' ', statusBadge(run.jobStatus)] : null];
}

function lastRun(projectId, run) {
  if (!run) return 'none yet';
  return [statusBadge(run.state), ' ', describeRunTrigger(run.trigger), ' · ', timeElement(run.createdAt),
    run.jobId ? [' · ', runJob(projectId, run)] : null,
    run.error ? h('div', { class: 'error small' }, run.error) : null];
}

function fact(label, value, test) {
  return [h('dt', null, label), h('dd', { 'data-test': test || null }, value)];
}

function runRows(projectId, runs) {
  if (runs.length === 0) return h('p', { class: 'muted' }, 'No runs yet.');
  return h('div', { class: 'table-wrap' }, h('table', { class: 'list' },
    h('thead', null, h('tr', null, ['Run', 'State', 'What started it', 'Job', 'When'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, runs.map((r) => h('tr', { 'data-test': 'workflow-run-row', 'data-run-id': r.id },
      h('td', { 'data-label': 'Run' }, `#${r.id}`),
      h('td', { 'data-label': 'State' }, statusBadge(r.state), r.error ? h('div', { class: 'muted small' }, r.error) : null),
      h('td', { 'data-label': 'What started it' }, describeRunTrigger(r.trigger)),
      h('td', { 'data-label': 'Job' }, runJob(projectId, r)),
      h('td', { 'data-label': 'When' }, timeElement(r.createdAt)))))));
}

let cardCount = 0;

// One workflow's card; update(w) redraws what the API says of it.
function workflowCard(projectId, initial, ctx) {
  let w = initial;
  let drawn = null; // the JSON last drawn
  let busy = false; // a switch or run request in flight
  const n = ++cardCount;
  const title = h('h2', { id: `workflow-${n}-title`, tabindex: '-1', 'data-test': 'workflow-title' });
  const about = h('p', { class: 'muted small' });
  const problemSlot = h('div');
  const facts = h('dl', { class: 'facts' });
  const prompt = h('details', { class: 'prompt' });
  const toggle = h('input', { type: 'checkbox', id: `workflow-${n}-enabled`, role: 'switch', 'data-test': 'workflow-toggle' });
  const runButton = h('button', { type: 'button', class: 'primary', 'data-test': 'workflow-run' }, 'Run now');
  const runsButton = h('button', { type: 'button', 'aria-expanded': 'false', 'aria-controls': `workflow-${n}-runs`, 'data-test': 'workflow-runs-toggle' }, 'Show runs');
  const result = h('div', { 'aria-live': 'polite', 'data-test': 'workflow-run-result' });
  const runs = h('div', { id: `workflow-${n}-runs`, class: 'runs', hidden: true, 'data-test': 'workflow-runs' });
  const card = h('article', { class: 'card workflow', 'aria-labelledby': title.id, 'data-test': 'workflow-row' },
    title, about, problemSlot, facts, prompt,
    h('div', { class: 'workflow-actions' },
      h('label', { class: 'check', for: toggle.id }, toggle, ' Enabled'), runButton, runsButton),
    result, runs);

  // The file-defined one of a clash: the API's routes by name reach the other.
  const reachable = () => NAME_RULE.test(w.name) && !(w.clash && w.source === 'file');

  function update(next) {
    w = next;
    card.setAttribute('data-workflow-name', w.name);
    card.setAttribute('data-source', w.source);
    const json = JSON.stringify(w);
    if (json !== drawn) {
      drawn = json;
      title.textContent = w.title || w.name;
      replace(about, h('code', null, w.name), ' · ', sourceText(w));
      replace(problemSlot, problem(projectId, w));
      const context = Array.isArray(w.context) && w.context.length ? w.context.join(', ') : 'all of the project’s context repositories';
      // A file that does not parse has no definition to show: only what
      // its runs came to.
      replace(facts, w.error ? null : [
        fact('Trigger', describeTrigger(w.trigger), 'workflow-trigger'),
        fact('Context', context, 'workflow-context'),
        fact('Publishes', w.publish ? String(w.publish).replace('_', ' ') : 'as the project does', 'workflow-publish'),
        fact('Model', w.model || 'the project’s', null),
        fact('Runs a day', `at most ${w.runsPerDay}`, null),
        fact('Next run', nextRun(w), 'workflow-next-run')],
      fact('Last run', lastRun(projectId, w.lastRun), 'workflow-last-run'));
      prompt.hidden = !w.prompt;
      replace(prompt, h('summary', null, 'Prompt: ', h('span', { class: 'muted' }, firstLine(w.prompt, 100))),
        h('p', { class: 'pre', 'data-test': 'workflow-prompt' }, w.prompt));
    } else {
      for (const t of facts.querySelectorAll('[data-test="workflow-next-run"] time[datetime]')) {
        t.nextSibling.textContent = ` (${formatAge(t.getAttribute('datetime'))})`;
      }
    }
    if (!busy) toggle.checked = !!w.enabled;
    toggle.disabled = busy || !!w.error || !reachable();
    runButton.disabled = busy || !!w.error || !reachable();
    runsButton.hidden = !reachable();
  }

  async function loadRuns() {
    try {
      const data = await get(`${workflowPath(projectId, w.name, 'runs')}?limit=${RUNS_SHOWN}`);
      if (ctx.alive()) replace(runs, h('h3', null, 'Runs, newest first'), runRows(projectId, (data && data.runs) || []));
    } catch (e) {
      if (ctx.alive()) replace(runs, errorBox(e, null));
    }
  }

  async function reread() {
    const fresh = await get(workflowPath(projectId, w.name));
    if (ctx.alive()) update(fresh);
    if (!runs.hidden) await loadRuns();
  }

  runsButton.addEventListener('click', async () => {
    const open = runs.hidden;
    runs.hidden = !open;
    runsButton.setAttribute('aria-expanded', String(open));
    runsButton.textContent = open ? 'Hide runs' : 'Show runs';
    if (open) {
      replace(runs, loading('the runs'));
      await loadRuns();
    }
  });

  toggle.addEventListener('change', async () => {
    const want = toggle.checked;
    busy = true;
    toggle.disabled = true;
    result.replaceChildren();
    try {
      const updated = await patch(workflowPath(projectId, w.name), { enabled: want });
      busy = false;
      update(updated);
      replace(result, h('p', { class: 'muted small' }, updated.enabled
        ? 'Enabled: it fires by itself again.'
        : 'Disabled: it no longer fires by itself; it still runs by hand.'));
    } catch (e) {
      busy = false;
      toggle.checked = !want;
      replace(result, errorBox(e, null));
      update(w);
    }
  });

  runButton.addEventListener('click', async () => {
    busy = true;
    runButton.disabled = true;
    replace(result, h('p', { class: 'muted small' }, 'Starting a run…'));
    let answer;
    try {
      answer = await post(workflowPath(projectId, w.name, 'run'));
    } catch (e) {
      busy = false;
      replace(result, errorBox(e, null));
      update(w);
      return;
    }
    // 202 {"run"}: queued behind the run under way; 201: the job.
    if (answer && answer.run) {
      replace(result, h('p', { class: 'notice' },
        'Queued: a run of this workflow is under way; this one starts when it ends.'));
    } else if (answer && answer.id) {
      replace(result, h('p', { class: 'notice' }, 'Started: ',
        h('a', { href: jobHref(projectId, answer.id), 'data-test': 'workflow-run-job-link' }, 'open the new job'), '.'));
    }
    busy = false;
    try {
      await reread();
    } catch (e) {
      update(w); // the list's next read catches up
    }
  });

  update(w);
  return {
    card,
    update,
    reread,
    open: async () => {
      if (runs.hidden && !runsButton.hidden) runsButton.click();
      card.scrollIntoView({ block: 'start' });
      title.focus();
    },
    runsOpen: () => !runs.hidden,
    loadRuns,
  };
}

function emptyPage(projectId) {
  return emptyState('No workflows yet.',
    h('p', null, 'A workflow is a saved instruction that starts jobs by itself: on a schedule, on a push to the docs repository, on a merge into a context repository, or by hand.'),
    h('p', null, 'Add one as a file in the docs repository, ', h('code', null, '.docwright/workflows/NAME.md'),
      ' on the base branch (the settings as front matter, the instruction below them):'),
    h('pre', null, h('code', null, '---\nname: Weekly changelog\non:\n  cron: "0 9 * * 1"\n  timezone: Europe/Berlin\n---\nSummarise the week\'s merged changes in changelog.mdx.')),
    h('p', null, 'or through the API (', h('code', null, `POST /v2/agent/${projectId}/workflows`), ') or the command line:'),
    h('pre', null, h('code', null, `docwright workflow create --project ${projectId} --name changelog \\\n  --prompt "Summarise the week's merged changes" --cron "0 9 * * 1" --time-zone Europe/Berlin`)));
}

export async function renderWorkflows(main, [projectId], ctx) {
  const title = heading('Workflows');
  const list = h('div', null, loading('the workflows'));
  const live = h('p', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
  main.append(h('p', { class: 'crumbs' }, h('a', { href: `#/projects/${encodeURIComponent(projectId)}` }, '← Jobs of the project')),
    title, live, list);

  let project;
  try {
    project = (await loadProjects()).find((p) => p.id === projectId);
    if (!project) throw new ApiError(404, 'project not found', 'not_found');
    title.textContent = `Workflows of ${repositoryName(project.repository)}`;
    document.title = `${title.textContent} · docwright`;
  } catch (e) {
    replace(list, errorBox(e));
    return;
  }

  const cards = new Map(); // workflow id -> card
  const listPath = path('/v2/agent', projectId, 'workflows');

  function show(workflows) {
    const ids = new Set(workflows.map((w) => w.id));
    for (const [id, c] of cards) {
      if (!ids.has(id)) {
        c.card.remove();
        cards.delete(id);
      }
    }
    if (workflows.length === 0) {
      replace(list, emptyPage(projectId));
      return;
    }
    for (const w of workflows) {
      if (cards.has(w.id)) cards.get(w.id).update(w);
      else cards.set(w.id, workflowCard(projectId, w, ctx));
    }
    // In the API's order; nodes are moved only when it changed (a moved node
    // loses focus).
    const wanted = workflows.map((w) => cards.get(w.id).card);
    const now = [...list.children];
    if (wanted.length !== now.length || wanted.some((c, i) => c !== now[i])) replace(list, wanted);
  }

  try {
    const data = await get(listPath);
    show((data && data.workflows) || []);
  } catch (e) {
    replace(list, errorBox(e));
    return;
  }

  const wanted = ctx.query.get('workflow');
  if (wanted) {
    const matches = [...cards.values()].filter((c) => c.card.getAttribute('data-workflow-name') === wanted);
    const chosen = matches.find((c) => c.card.getAttribute('data-source') === 'api') || matches[0];
    if (chosen) await chosen.open();
  }

  let polling = false;
  const timer = setInterval(async () => {
    if (polling || document.visibilityState !== 'visible' || !ctx.alive()) return;
    polling = true;
    try {
      const data = await get(listPath);
      if (!ctx.alive()) return;
      show((data && data.workflows) || []);
      for (const c of cards.values()) if (c.runsOpen()) await c.loadRuns();
      live.textContent = '';
    } catch (e) {
      live.textContent = `Live updates paused: ${e.message}`;
    } finally {
      polling = false;
    }
  }, POLL_MS);
  ctx.onLeave(() => clearInterval(timer));
}
