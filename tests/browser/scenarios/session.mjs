// Signing in and out, and the API keys page.

import assert from 'node:assert/strict';
import { HOOKS, sel } from '../lib/hooks.mjs';
import { open, signIn, sessionCookie, textOf, waitForText, confirmed } from '../lib/browser.mjs';

const WRONG_KEY = 'dw_thisisnotakeyofthisservice0000000000';

export const scenarios = [
  {
    name: 'a wrong key is refused',
    async run({ main, browser }) {
      const api = await main.api('POST', '/v2/session', { key: null, body: { key: WRONG_KEY } });
      assert.equal(api.status, 401, `POST /v2/session with a wrong key: ${api.status} ${api.text}`);
      assert.equal(api.headers.get('set-cookie'), null, 'no cookie for a wrong key');

      const context = await browser.context();
      const page = await browser.page(context);
      await open(page, `${main.url}/ui/#/signin`, HOOKS.signinKey);
      await browser.screenshot(page, 'signin');
      await page.type(sel(HOOKS.signinKey), WRONG_KEY);
      await page.click(sel(HOOKS.signinSubmit));
      await page.waitForSelector(sel(HOOKS.errorMessage), { visible: true });
      assert.match(await textOf(page, HOOKS.errorMessage), /refused/i, 'the refusal says so');
      assert.ok((await page.evaluate(() => location.hash)).startsWith('#/signin'), 'still on #/signin');
      assert.equal(await sessionCookie(page), null, 'no session cookie');
      const text = await page.evaluate(() => document.body.innerText);
      assert.doesNotMatch(text, /null|undefined/, 'no absent value shown as text');
      await browser.screenshot(page, 'signin-refused');
      await context.close();
    },
  },
  {
    name: 'sign in with the key: an HttpOnly, SameSite=Strict session cookie, then the projects',
    async run(ctx) {
      const { main, browser } = ctx;
      const page = await browser.page();
      const cookie = await signIn(page, main.url, main.adminKey);
      assert.ok(cookie, 'a dw_session cookie');
      assert.equal(cookie.httpOnly, true, 'HttpOnly');
      assert.equal(cookie.sameSite, 'Strict', 'SameSite=Strict');
      assert.equal(cookie.path, '/');
      assert.equal(cookie.secure, false, 'not Secure over plain http without an https --public-url');
      const info = await main.api('GET', '/v2/session', { key: null, headers: { cookie: `dw_session=${cookie.value}` } });
      assert.equal(info.status, 200, info.text);
      assert.equal(info.json.org.id, main.orgId);
      assert.equal(typeof info.json.csrfToken, 'string');
      await open(page, `${main.url}/ui/#/projects`, HOOKS.projectRow);
      await waitForText(page, HOOKS.projectRow, new RegExp(escapeRe(main.bare)));
      await browser.screenshot(page, 'projects');
      ctx.page = page; // signed in as the organisation's admin, for the scenarios after
    },
  },
  {
    name: 'create an API key (its secret shown once) and revoke it: the API refuses it at once',
    async run({ main, browser, page }) {
      assert.ok(page, 'needs the signed-in page of "sign in with the key"');
      const name = `browser key ${Date.now()}`;
      await open(page, `${main.url}/ui/#/keys`, HOOKS.keyName);
      await page.type(sel(HOOKS.keyName), name);
      await page.click(sel(HOOKS.keyCreate));
      const shown = await waitForText(page, HOOKS.keySecret, /dw_[A-Za-z0-9_-]+/);
      const secret = shown.match(/dw_[A-Za-z0-9_-]+/)[0];
      const works = await main.api('GET', '/v2/projects', { key: secret });
      assert.equal(works.status, 200, `the new key works: ${works.status} ${works.text}`);
      await browser.screenshot(page, 'keys-created');

      // Shown once: the list, read again, holds the key but never its secret.
      await page.reload({ waitUntil: 'domcontentloaded' });
      await waitForText(page, HOOKS.keyRow, new RegExp(escapeRe(name)));
      const html = await page.content();
      assert.ok(!html.includes(secret), 'the secret is not shown again');
      assert.equal(await page.$(sel(HOOKS.keySecret)), null, 'no secret box after a reload');

      let clicked = false;
      const question = await confirmed(browser, async () => {
        clicked = await page.evaluate(
          (rowSel, revokeSel, n) => {
            const row = [...document.querySelectorAll(rowSel)].find((r) => r.textContent.includes(n));
            const button = row && row.querySelector(revokeSel);
            if (!button) return false;
            button.click();
            return true;
          },
          sel(HOOKS.keyRow),
          sel(HOOKS.keyRevoke),
          name,
        );
        assert.ok(clicked, `a ${sel(HOOKS.keyRevoke)} in the key's row`);
      });
      assert.match(question, new RegExp(escapeRe(name)), 'the confirmation names the key');
      await page.waitForFunction(
        (rowSel, n) => {
          const row = [...document.querySelectorAll(rowSel)].find((r) => r.textContent.includes(n));
          return row && /revoked/i.test(row.textContent);
        },
        { timeout: 15000 },
        sel(HOOKS.keyRow),
        name,
      );
      const refused = await main.api('GET', '/v2/projects', { key: secret });
      assert.equal(refused.status, 401, `the revoked key is refused at once: ${refused.status}`);
      await browser.screenshot(page, 'keys');
    },
  },
];

// Signing out, last of all (its own browser context: the admin's page stays signed in).
export const signOutScenario = {
  name: 'sign out ends the session on the server',
  async run({ main, browser }) {
    const context = await browser.context();
    const page = await browser.page(context);
    const cookie = await signIn(page, main.url, main.adminKey);
    assert.ok(cookie, 'signed in');
    await page.waitForSelector(sel(HOOKS.signOut), { visible: true });
    await page.click(sel(HOOKS.signOut));
    await page.waitForFunction(() => location.hash.startsWith('#/signin'), { timeout: 15000 });
    assert.equal(await sessionCookie(page), null, 'the cookie is gone');
    const after = await main.api('GET', '/v2/session', { key: null, headers: { cookie: `dw_session=${cookie.value}` } });
    assert.equal(after.status, 401, 'the old cookie no longer names a session');
    await context.close();
  },
};

export function escapeRe(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
