// The dashboard: routing by the address's hash, the session, and the frame
// around each page (navigation, focus). Pages are in views/.
import { ApiError, currentSession, get, onUnauthorized, post, setSession } from './api.js';
import { notFoundPage } from './common.js';
import { replace } from './h.js';
import { renderJob } from './views/job.js';
import { renderJobs } from './views/jobs.js';
import { renderKeys } from './views/keys.js';
import { renderNewJob } from './views/newjob.js';
import { renderProjects } from './views/projects.js';
import { renderSignIn, setSignInNotice } from './views/signin.js';
import { renderWorkflows } from './views/workflows.js';

// #/projects, #/projects/{id}, #/projects/{pid}/jobs/{jid},
// #/projects/{pid}/workflows, #/new/{pid}, #/keys, #/signin. A page's own
// options follow "?" (#/projects/{id}?status=failed).
const ROUTES = [
  { pattern: /^\/signin$/, render: renderSignIn, open: true },
  { pattern: /^\/projects$/, render: renderProjects },
  { pattern: /^\/projects\/([^/]+)$/, render: renderJobs },
  { pattern: /^\/projects\/([^/]+)\/jobs\/([^/]+)$/, render: renderJob },
  { pattern: /^\/projects\/([^/]+)\/workflows$/, render: renderWorkflows },
  { pattern: /^\/new\/([^/]+)$/, render: renderNewJob },
  { pattern: /^\/keys$/, render: renderKeys },
];

const main = document.getElementById('main');
let current = null; // {cleanup: [fn]} of the page shown
let wanted = null; // where a visitor was going before they had to sign in

function parseHash() {
  const hash = window.location.hash.slice(1) || '/projects';
  const q = hash.indexOf('?');
  const route = q < 0 ? hash : hash.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : hash.slice(q + 1));
  return { route, query, hash: `#${hash}` };
}

export function navigate(hash) {
  if (window.location.hash === hash) {
    show();
  } else {
    window.location.hash = hash;
  }
}

function updateNav() {
  const session = currentSession();
  const nav = document.getElementById('nav');
  nav.hidden = !session;
  if (!session) return;
  const key = session.key || {};
  document.getElementById('who').textContent = `${session.org ? session.org.name : ''} · ${key.name || key.prefix || 'key'} (${key.role || 'admin'})`;
  nav.querySelector('[data-test="nav-keys"]').hidden = key.role === 'member';
  for (const link of nav.querySelectorAll('a')) {
    const here = window.location.hash.startsWith(link.getAttribute('href'));
    if (here) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function show(moveFocus = true) {
  const { route, query, hash } = parseHash();
  if (!route.startsWith('/')) return; // #main and other in-page anchors
  if (current) for (const fn of current.cleanup) fn();
  const page = { cleanup: [], alive: true };
  page.cleanup.push(() => {
    page.alive = false;
  });
  current = page;
  replace(main);
  const match = ROUTES.map((r) => ({ r, m: route.match(r.pattern) })).find((x) => x.m);
  if (match && !match.r.open && !currentSession()) {
    wanted = hash;
    navigate('#/signin');
    return;
  }
  updateNav();
  const ctx = {
    query,
    // Called when the page is left: stop its timers and streams.
    onLeave: (fn) => page.cleanup.push(fn),
    alive: () => page.alive,
    navigate,
    signedIn: (info) => {
      setSession(info);
      const next = wanted && wanted !== '#/signin' ? wanted : '#/projects';
      wanted = null;
      navigate(next);
    },
  };
  let rendering;
  if (!match) {
    notFoundPage(main);
  } else {
    const params = match.m.slice(1).map((s) => {
      try {
        return decodeURIComponent(s);
      } catch (e) {
        return s;
      }
    });
    rendering = match.r.render(main, params, ctx);
  }
  // The heading is there as soon as the page starts: focus goes to it, so a
  // keyboard or screen reader user starts at the new page, not the old link.
  const h1 = main.querySelector('h1');
  if (moveFocus && h1) h1.focus();
  if (h1) document.title = `${h1.textContent} · docwright`;
  await rendering;
}

async function start() {
  document.getElementById('skip-link').addEventListener('click', (event) => {
    event.preventDefault();
    (main.querySelector('h1') || main).focus();
  });
  document.getElementById('signout').addEventListener('click', async () => {
    try {
      await post('/v2/session/end');
    } catch (e) {
      // the session is gone either way
    }
    setSession(null);
    setSignInNotice('You are signed out.');
    navigate('#/signin');
  });
  onUnauthorized(() => {
    if (!currentSession()) return;
    setSession(null);
    setSignInNotice('Your session has ended or your key was revoked. Sign in again.');
    wanted = window.location.hash;
    navigate('#/signin');
  });
  try {
    setSession(await get('/v2/session'));
  } catch (e) {
    setSession(null);
    if (!(e instanceof ApiError) || e.status !== 401) {
      setSignInNotice(`Could not check your session: ${e.message}`);
    }
  }
  window.addEventListener('hashchange', () => show());
  await show(false);
}

start();
