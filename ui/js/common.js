// Pieces every page uses: headings, badges, and the empty and error states,
// each saying what to do next.
import { ApiError } from './api.js';
import { h } from './h.js';

// The page's main heading: focused after each navigation (tabindex -1 lets a
// script focus it without putting it in the tab order).
export function heading(text, ...extra) {
  return h('h1', { tabindex: '-1' }, text, ...extra);
}

export function statusBadge(status, test) {
  return h('span', { class: `state state-${status}`, 'data-test': test || null }, status);
}

export function loading(what) {
  return h('p', { class: 'muted', role: 'status' }, `Loading ${what}…`);
}

export function emptyState(title, ...body) {
  return h('div', { class: 'empty', 'data-test': 'empty-state' }, h('p', { class: 'empty-title' }, title), ...body);
}

// What to tell a person about `error`, with what they can do about it.
export function errorMessage(error) {
  if (!(error instanceof ApiError)) return `Something went wrong in the dashboard: ${error && error.message}`;
  switch (error.status) {
    case 0:
      return error.message;
    case 401:
      return 'Your session has ended or your key was revoked. Sign in again.';
    case 403:
      return error.code === 'csrf'
        ? 'The request was refused as a possible cross-site request. Reload the page and try again.'
        : `Your key may not do this (${error.message}). Ask an administrator for a key with the right role.`;
    case 404:
      return `Not found: ${error.message}. It may have been removed, or your key may not see it.`;
    case 409:
      return `Not possible right now: ${error.message}`;
    case 429:
      return `Too many requests: ${error.message}${error.retryAfter ? ` Try again in ${error.retryAfter} s.` : ''}`;
    default:
      if (error.status >= 500) return `The service had a problem (${error.status}): ${error.message}. Try again shortly.`;
      return error.message;
  }
}

// An error box (announced to screen readers), with a way on: sign-in for a
// 401, back to the projects for a 404.
export function errorBox(error, back = { href: '#/projects', text: 'Back to the projects' }) {
  const status = error instanceof ApiError ? error.status : -1;
  return h(
    'div',
    { class: 'error', role: 'alert', 'data-test': 'error-message' },
    h('p', null, errorMessage(error)),
    status === 401 ? h('p', null, h('a', { href: '#/signin' }, 'Sign in')) : null,
    status === 404 && back ? h('p', null, h('a', { href: back.href }, back.text)) : null,
  );
}

// A page that does not exist (an address the dashboard does not know).
export function notFoundPage(main) {
  main.append(
    heading('Page not found'),
    h('p', null, 'The dashboard has no page at this address.'),
    h('p', null, h('a', { href: '#/projects' }, 'Go to the projects')),
  );
}

// The shortest text of `s` for a one-line summary.
export function firstLine(s, max = 140) {
  const line = String(s || '').trim().split('\n')[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
