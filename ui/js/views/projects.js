// The organisation's projects the key sees: repository, forge, jobs by status.
import { get } from '../api.js';
import { emptyState, errorBox, heading, loading } from '../common.js';
import { h, replace } from '../h.js';
import { timeElement } from '../../time.js';

const STATUSES = ['active', 'completed', 'failed', 'archived'];

// The projects, fetched once per page that needs their names.
export async function loadProjects() {
  const data = await get('/v2/projects');
  return Array.isArray(data && data.projects) ? data.projects : [];
}

export function repositoryName(repository) {
  const s = String(repository || '');
  const trimmed = s.replace(/\/+$/, '').replace(/\.git$/, '');
  const slash = trimmed.lastIndexOf('/');
  return slash >= 0 && slash < trimmed.length - 1 ? trimmed.slice(slash + 1) : s;
}

export async function renderProjects(main) {
  const body = h('div', null, loading('the projects'));
  main.append(heading('Projects'), body);
  let projects;
  try {
    projects = await loadProjects();
  } catch (e) {
    replace(body, errorBox(e, null));
    return;
  }
  if (projects.length === 0) {
    replace(body, emptyState('No projects yet.',
      h('p', null, 'A project is a documentation repository the agent works on. An administrator creates one on the server:'),
      h('pre', null, h('code', null, 'docwright project create --org ORG --repository URL')),
      h('p', null, 'Then reload this page. A key limited to some projects sees only those.')));
    return;
  }
  const rows = projects.map((p) => {
    const jobs = p.jobs || {};
    return h('tr', { 'data-test': 'project-row', 'data-project-id': p.id },
      h('td', { 'data-label': 'Repository' },
        h('a', { href: `#/projects/${encodeURIComponent(p.id)}` }, repositoryName(p.repository)),
        h('div', { class: 'muted small' }, p.repository)),
      h('td', { 'data-label': 'Forge' }, p.forge || '—', p.ref ? h('div', { class: 'muted small' }, `base ${p.ref}`) : null),
      h('td', { 'data-label': 'Jobs' },
        h('span', { class: 'counts' }, STATUSES.map((s) =>
          h('a', { class: `count state-${s}`, href: `#/projects/${encodeURIComponent(p.id)}?status=${s}`,
            'aria-label': `${jobs[s] || 0} ${s}` }, `${jobs[s] || 0} ${s}`)))),
      h('td', { 'data-label': 'Created' }, p.createdAt ? timeElement(p.createdAt) : '—',
        p.archivedAt ? h('div', { class: 'muted small' }, 'archived') : null),
      h('td', { 'data-label': '' }, p.archivedAt ? null : h('a', { class: 'button', href: `#/new/${encodeURIComponent(p.id)}` }, 'New job')));
  });
  replace(body, h('div', { class: 'table-wrap' }, h('table', { class: 'list' },
    h('thead', null, h('tr', null, ['Repository', 'Forge', 'Jobs', 'Created', ''].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, rows))));
}
