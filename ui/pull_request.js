// The merge button of a local pull request's page (/pulls/{id}), loaded only
// when the visitor's session may merge it. Posts the merge with the session's
// CSRF token (from GET /v2/session), then reloads the page, which then says
// Merged. Errors are shown as text, never as HTML.
const form = document.querySelector('form[data-test="merge-form"]');

async function csrfToken() {
  const response = await fetch('/v2/session', {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  if (response.status === 401) {
    throw new Error('Your session has ended: sign in to the dashboard again.');
  }
  if (!response.ok) throw new Error(`Cannot read your session (HTTP ${response.status}).`);
  const session = await response.json();
  return typeof session.csrfToken === 'string' ? session.csrfToken : '';
}

async function errorOf(response) {
  try {
    const body = await response.json();
    if (body && typeof body.error === 'string') return body.error;
  } catch {
    // Not JSON: the status says enough.
  }
  return `The merge failed (HTTP ${response.status}).`;
}

if (form) {
  const button = form.querySelector('[data-test="merge-button"]');
  const status = form.querySelector('[data-test="merge-status"]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    status.textContent = 'Merging…';
    try {
      const method = form.elements.method ? form.elements.method.value : 'merge';
      const id = encodeURIComponent(form.dataset.pullRequest || '');
      const response = await fetch(`/pulls/${id}/merge`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-Docwright-CSRF': await csrfToken() },
        // The branch's commit the page shows, when it knows it: a branch that
        // moved since is not merged unread.
        body: JSON.stringify(
          form.dataset.headCommit ? { method, headCommit: form.dataset.headCommit } : { method },
        ),
      });
      if (!response.ok) throw new Error(await errorOf(response));
      status.textContent = 'Merged.';
      window.location.reload();
    } catch (error) {
      status.textContent = error instanceof Error ? error.message : String(error);
      button.disabled = false;
    }
  });
}
