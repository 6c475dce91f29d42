// The organisation's API keys (admin keys only): name, prefix, role,
// projects, created, last used, revoked; making a key (its secret shown once)
// and revoking one.
import { ApiError, currentSession, get, path, post, setSession } from '../api.js';
import { emptyState, errorBox, heading, loading } from '../common.js';
import { h, replace } from '../h.js';
import { timeElement } from '../../time.js';
import { loadProjects, repositoryName } from './projects.js';
import { setSignInNotice } from './signin.js';

function keyRow(key, projectNames, onRevoke) {
  const session = currentSession();
  const mine = session && session.key && session.key.id === key.id;
  const projects = Array.isArray(key.projects)
    ? key.projects.map((id) => projectNames.get(id) || id).join(', ') || 'none'
    : 'all';
  return h('tr', { 'data-test': 'key-row', 'data-key-id': key.id, class: key.revokedAt ? 'revoked' : null },
    h('td', { 'data-label': 'Name' }, key.name, mine ? h('span', { class: 'tag' }, 'signed in') : null),
    h('td', { 'data-label': 'Prefix' }, h('code', null, key.prefix)),
    h('td', { 'data-label': 'Role' }, key.role),
    h('td', { 'data-label': 'Projects' }, projects),
    h('td', { 'data-label': 'Created' }, key.createdAt ? timeElement(key.createdAt) : '—'),
    h('td', { 'data-label': 'Last used' }, key.lastUsedAt ? timeElement(key.lastUsedAt) : 'never'),
    h('td', { 'data-label': 'Revoked' }, key.revokedAt
      ? [h('span', { class: 'state state-revoked' }, 'revoked'), ' ', timeElement(key.revokedAt)]
      : h('button', { type: 'button', class: 'danger small', 'data-test': 'key-revoke', 'aria-label': `Revoke ${key.name}`,
        on: { click: () => onRevoke(key, mine) } }, 'Revoke')));
}

function secretPanel(created) {
  const secret = h('input', { id: 'key-secret', type: 'text', readonly: true, value: created.key, 'data-test': 'key-secret', spellcheck: 'false', autocomplete: 'off' });
  const copied = h('span', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
  const copy = h('button', { type: 'button', 'data-test': 'key-copy' }, 'Copy');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      copied.textContent = 'Copied.';
    } catch (e) {
      // No clipboard (an insecure origin, a refused permission): select it.
      secret.focus();
      secret.select();
      copied.textContent = 'Select and copy the key yourself (Ctrl+C or ⌘C).';
    }
  });
  return h('div', { class: 'card secret', role: 'region', 'aria-labelledby': 'secret-title' },
    h('h2', { id: 'secret-title', tabindex: '-1' }, `Key “${created.name}” created`),
    h('p', { class: 'warning' }, 'Copy the key now: it will not be shown again. docwright keeps only its hash.'),
    h('label', { for: 'key-secret' }, 'Secret'),
    h('div', { class: 'copy-row' }, secret, copy), copied);
}

export async function renderKeys(main, params, ctx) {
  const body = h('div', null, loading('the keys'));
  main.append(heading('API keys'), body);
  let keys;
  let projects;
  try {
    [keys, projects] = await Promise.all([get('/v2/keys').then((d) => d.keys || []), loadProjects()]);
  } catch (e) {
    if (e instanceof ApiError && e.status === 403) {
      replace(body, h('div', { class: 'error', role: 'alert', 'data-test': 'error-message' },
        h('p', null, 'Only an admin key manages keys. You are signed in with a member key: ask an administrator, or sign in with an admin key.')));
    } else {
      replace(body, errorBox(e, null));
    }
    return;
  }
  const projectNames = new Map(projects.map((p) => [p.id, repositoryName(p.repository)]));
  const secretSlot = h('div');
  const listSlot = h('div');
  const errors = h('div', { 'aria-live': 'polite' });

  async function reload() {
    keys = (await get('/v2/keys')).keys || [];
    drawList();
  }

  async function revoke(key, mine) {
    const warning = mine
      ? `Revoke “${key.name}”? This is the key you are signed in with: you will be signed out at once, and every program using it is refused from now on.`
      : `Revoke “${key.name}”? Every program using it is refused from now on. This cannot be undone.`;
    if (!window.confirm(warning)) return;
    errors.replaceChildren();
    try {
      await post(path('/v2/keys', key.id, 'revoke'));
      if (mine) {
        setSession(null);
        setSignInNotice('You revoked the key you were signed in with. Sign in with another key.');
        ctx.navigate('#/signin');
        return;
      }
      await reload();
    } catch (e) {
      errors.append(errorBox(e, null));
    }
  }

  function drawList() {
    if (keys.length === 0) {
      replace(listSlot, emptyState('No keys.', h('p', null, 'Make one with the form above.')));
      return;
    }
    replace(listSlot, h('div', { class: 'table-wrap' }, h('table', { class: 'list' },
      h('thead', null, h('tr', null, ['Name', 'Prefix', 'Role', 'Projects', 'Created', 'Last used', 'Revoked'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', null, keys.map((k) => keyRow(k, projectNames, revoke))))));
  }

  const name = h('input', { id: 'key-name', type: 'text', maxlength: '100', required: true, autocomplete: 'off', 'data-test': 'key-name' });
  const role = h('select', { id: 'key-role', 'data-test': 'key-role' },
    h('option', { value: 'member' }, 'member: jobs only'), h('option', { value: 'admin' }, 'admin: jobs, projects and keys'));
  const projectBoxes = projects.map((p) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', value: p.id, 'data-test': 'key-project' }), ' ', repositoryName(p.repository)));
  const create = h('button', { type: 'submit', class: 'primary', 'data-test': 'key-create' }, 'Create key');
  const form = h('form', { class: 'card' },
    h('h2', null, 'New key'),
    h('label', { for: 'key-name' }, 'Name'), name,
    h('label', { for: 'key-role' }, 'Role'), role,
    h('fieldset', null, h('legend', null, 'Projects (none checked: all projects)'),
      projectBoxes.length ? projectBoxes : h('p', { class: 'muted small' }, 'No projects yet.')),
    create, errors);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errors.replaceChildren();
    if (!name.value.trim()) {
      errors.append(h('p', { class: 'error', role: 'alert', 'data-test': 'error-message' }, 'Give the key a name, such as the program or person that will use it.'));
      name.focus();
      return;
    }
    const chosen = projectBoxes.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
    create.disabled = true;
    try {
      const created = await post('/v2/keys', { name: name.value.trim(), role: role.value, projects: chosen.length ? chosen : null });
      name.value = '';
      replace(secretSlot, secretPanel(created));
      secretSlot.querySelector('h2').focus();
      await reload();
    } catch (e) {
      errors.append(errorBox(e, null));
    } finally {
      create.disabled = false;
    }
  });

  replace(body, secretSlot, form, h('h2', null, 'Keys of the organisation'), listSlot);
  drawList();
}
