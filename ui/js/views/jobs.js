// A project's jobs: status, first instruction, age, model, pull request;
// filtered by status, paged by the API's cursor, and kept current by polling
// the first page every few seconds while the page is visible.
import { ApiError, get, getPatiently, path } from '../api.js';
import { emptyState, errorBox, firstLine, heading, loading, statusBadge } from '../common.js';
import { h, replace } from '../h.js';
import { formatAge, timeElement } from '../../time.js';
import { loadProjects, repositoryName } from './projects.js';

const PAGE_SIZE = 20;
const POLL_MS = 4000;
const STATUSES = ['active', 'completed', 'failed', 'archived'];

// A job's first instruction never changes: read once per job, one read at a
// time (the API bounds the reads a key has in flight).
const instructions = new Map(); // job id -> prompt, or a promise of it
let instructionQueue = Promise.resolve();
function firstInstruction(projectId, jobId) {
  if (!instructions.has(jobId)) {
    const promise = (instructionQueue = instructionQueue.then(async () => {
      try {
        const t = await getPatiently(`${path('/v2/agent', projectId, 'job', jobId, 'messages')}?limit=1`);
        const prompt = t && t.messages && t.messages[0] ? t.messages[0].prompt : '';
        instructions.set(jobId, prompt);
        return prompt;
      } catch (e) {
        instructions.delete(jobId); // tried again on the next render
        return null;
      }
    }));
    instructions.set(jobId, promise);
  }
  return Promise.resolve(instructions.get(jobId));
}

export function jobHref(projectId, jobId) {
  return `#/projects/${encodeURIComponent(projectId)}/jobs/${encodeURIComponent(jobId)}`;
}

function jobRow(projectId, job, alive) {
  const known = instructions.get(job.id);
  const text = h('span', null, typeof known === 'string' ? firstLine(known) || '(no instruction)' : '…');
  if (typeof known !== 'string') {
    firstInstruction(projectId, job.id).then((prompt) => {
      if (alive() && prompt !== null) text.textContent = firstLine(prompt) || '(no instruction)';
    });
  }
  return h('tr', { 'data-test': 'job-row', 'data-job-id': job.id, 'data-status': job.status },
    h('td', { 'data-label': 'Status' }, statusBadge(job.status, 'job-status')),
    h('td', { 'data-label': 'Instruction' }, h('a', { href: jobHref(projectId, job.id) }, text),
      job.error ? h('div', { class: 'muted small' }, firstLine(job.error, 100)) : null),
    h('td', { 'data-label': 'Age', title: job.createdAt }, timeElement(job.createdAt, true)),
    h('td', { 'data-label': 'Model' }, job.model || '—'),
    h('td', { 'data-label': 'Pull request' }, job.prLink
      ? h('a', { href: job.prLink, 'data-test': 'job-pr-link', rel: 'noopener noreferrer', target: '_blank' }, 'Open')
      : '—'));
}

// What of a job the row shows; the row is rebuilt when this changes.
function rowKey(job) {
  return JSON.stringify([job.status, job.updatedAt, job.prLink, job.model, job.error]);
}

export async function renderJobs(main, [projectId], ctx) {
  let status = STATUSES.includes(ctx.query.get('status')) ? ctx.query.get('status') : '';
  const title = heading('Jobs');
  const filter = h('select', { id: 'status-filter', 'data-test': 'status-filter' },
    h('option', { value: '' }, 'All'), STATUSES.map((s) => h('option', { value: s }, s)));
  filter.value = status;
  const newJob = h('a', { class: 'button primary', href: `#/new/${encodeURIComponent(projectId)}` }, 'New job');
  const workflows = h('a', { class: 'button', href: `#/projects/${encodeURIComponent(projectId)}/workflows`, 'data-test': 'workflows-link' }, 'Workflows');
  const list = h('div', null, loading('the jobs'));
  const live = h('p', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
  main.append(title,
    h('div', { class: 'toolbar' }, h('label', { for: 'status-filter' }, 'Status'), filter, newJob, workflows, live),
    list);

  try {
    const project = (await loadProjects()).find((p) => p.id === projectId);
    if (!project) throw new ApiError(404, 'project not found', 'not_found');
    title.textContent = `Jobs of ${repositoryName(project.repository)}`;
    document.title = `${title.textContent} · docwright`;
    if (project.archivedAt) newJob.remove();
  } catch (e) {
    replace(list, errorBox(e));
    newJob.remove();
    workflows.remove();
    return;
  }

  let rows = new Map(); // job id -> {row, key}
  let nextCursor = null;
  const tbody = h('tbody');
  const more = h('button', { type: 'button', 'data-test': 'next-page' }, 'Older jobs');

  const query = (cursor) => {
    const q = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (status) q.set('status', status);
    if (cursor) q.set('cursor', cursor);
    return `${path('/v2/agent', projectId, 'jobs')}?${q}`;
  };

  function place(job, before) {
    const key = rowKey(job);
    const old = rows.get(job.id);
    if (old && old.key === key) return;
    const row = jobRow(projectId, job, ctx.alive);
    if (old) old.row.replaceWith(row);
    else tbody.insertBefore(row, before || null);
    rows.set(job.id, { row, key });
  }

  function showList() {
    if (rows.size === 0) {
      replace(list, emptyState(status ? `No ${status} jobs.` : 'No jobs yet.',
        h('p', null, status ? 'Choose another status, or ' : '', h('a', { href: newJob.getAttribute('href') }, 'start a job'),
          ' with an instruction for the agent, such as “Document the new --dry-run flag”.')));
      return;
    }
    more.hidden = !nextCursor;
    replace(list, h('div', { class: 'table-wrap' }, h('table', { class: 'list' },
      h('thead', null, h('tr', null, ['Status', 'Instruction', 'Age', 'Model', 'Pull request'].map((t) => h('th', { scope: 'col' }, t)))),
      tbody)), more);
  }

  async function loadFirstPage() {
    rows = new Map();
    tbody.replaceChildren();
    const page = await get(query(null));
    for (const job of page.jobs || []) place(job);
    nextCursor = page.nextCursor || null;
    showList();
  }

  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const page = await get(query(nextCursor));
      const first = (page.jobs || [])[0];
      for (const job of page.jobs || []) place(job);
      nextCursor = page.nextCursor || null;
      showList();
      // Keyboard users continue at the first job of the new page.
      if (first && rows.get(first.id)) rows.get(first.id).row.querySelector('a').focus();
    } catch (e) {
      list.append(errorBox(e));
    } finally {
      more.disabled = false;
    }
  });

  filter.addEventListener('change', async () => {
    status = filter.value;
    // The filter is part of the address (bookmarks, reload), without a new page.
    const hash = `#/projects/${encodeURIComponent(projectId)}${status ? `?status=${status}` : ''}`;
    window.history.replaceState(null, '', hash);
    replace(list, loading('the jobs'));
    try {
      await loadFirstPage();
    } catch (e) {
      replace(list, errorBox(e));
    }
  });

  try {
    await loadFirstPage();
  } catch (e) {
    replace(list, errorBox(e));
    return;
  }

  // Live: the first page again every few seconds while the tab is visible;
  // changed rows are redrawn, new jobs come in at the top.
  let busy = false;
  const timer = setInterval(async () => {
    if (busy || document.visibilityState !== 'visible' || !ctx.alive()) return;
    busy = true;
    try {
      const page = await get(query(null));
      if (!ctx.alive()) return;
      const firstRow = tbody.firstChild;
      for (const job of page.jobs || []) place(job, rows.has(job.id) ? null : firstRow);
      if (rows.size > 0 && !list.contains(tbody)) showList();
      for (const t of tbody.querySelectorAll('time[datetime]')) t.textContent = formatAge(t.getAttribute('datetime'));
      live.textContent = '';
    } catch (e) {
      live.textContent = `Live updates paused: ${e.message}`;
    } finally {
      busy = false;
    }
  }, POLL_MS);
  ctx.onLeave(() => clearInterval(timer));
}
