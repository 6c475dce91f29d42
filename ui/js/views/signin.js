// Sign-in: an API key exchanged for a session cookie (HttpOnly: the page never
// sees it). The key is kept nowhere: not in storage, not in memory once sent.
import { ApiError, currentSession, post } from '../api.js';
import { errorBox, heading } from '../common.js';
import { append, h } from '../h.js';

let notice = null; // shown once, on the next sign-in page (signed out, session ended)

export function setSignInNotice(text) {
  notice = text;
}

export function renderSignIn(main, params, ctx) {
  const session = currentSession();
  const input = h('input', {
    id: 'signin-key',
    name: 'key',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'signin-help',
    'data-test': 'signin-key',
  });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-test': 'signin-submit' }, 'Sign in');
  const errors = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card narrow', novalidate: true },
    h('label', { for: 'signin-key' }, 'API key'),
    input,
    h('p', { id: 'signin-help', class: 'hint' }, 'A key starts with dw_. An administrator makes one on the API keys page or with ',
      h('code', null, 'docwright key create --org ORG'), '.'),
    submit,
    errors,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    errors.replaceChildren();
    if (!key) {
      errors.append(h('p', { class: 'error', role: 'alert', 'data-test': 'error-message' }, 'Enter an API key.'));
      input.focus();
      return;
    }
    submit.disabled = true;
    try {
      const info = await post('/v2/session', { key });
      input.value = '';
      ctx.signedIn(info);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        errors.append(h('p', { class: 'error', role: 'alert', 'data-test': 'error-message' },
          'That key was refused: it is wrong or was revoked. Check it and try again.'));
      } else {
        errors.append(errorBox(e, null));
      }
      input.select();
      input.focus();
    } finally {
      submit.disabled = false;
    }
  });
  // h.js's append, which leaves out the absent (null) parts; the DOM's own
  // would write them as the text "null".
  append(main, [
    heading('Sign in'),
    notice ? h('p', { class: 'notice', role: 'status' }, notice) : null,
    session ? h('p', null, `You are signed in to ${session.org ? session.org.name : 'your organisation'}. `,
      h('a', { href: '#/projects' }, 'Go to the projects'), ', or sign in with another key.') : null,
    form,
  ]);
  notice = null;
}
