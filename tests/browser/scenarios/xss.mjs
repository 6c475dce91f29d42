// Hostile text is shown as text, and the CSP stops inline script even if some
// did get in.

import assert from 'node:assert/strict';
import { HOOKS, sel } from '../lib/hooks.mjs';
import { open, signIn, waitForText, injected } from '../lib/browser.mjs';
import { XSS_IMG, XSS_SCRIPT, XSS_FILE, XSS_PROMPT, XSS_SUMMARY } from '../lib/model_scripts.mjs';
import { escapeRe } from './session.mjs';
import { jobUrl } from './jobs.mjs';

async function assertClean(page, where) {
  const found = await injected(page);
  assert.deepEqual(found, [], `${where}: hostile text became markup`);
}

async function bodyText(page) {
  return page.evaluate(() => document.body.innerText);
}

// Tries inline script two ways on the page now open; resolves to what ran and
// which violations were reported.
async function tryInlineScript(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        const violations = [];
        document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
        const s = document.createElement('script');
        s.textContent = 'window.__inline = "script element"';
        document.body.appendChild(s);
        const d = document.createElement('div');
        d.innerHTML = '<img src="data:," onerror="window.__inline = \'handler\'">';
        document.body.appendChild(d);
        setTimeout(() => resolve({ ran: window.__inline ?? null, violations }), 500);
      }),
  );
}

export const scenarios = [
  {
    name: 'the CSP blocks inline script on the dashboard and on the pull request page',
    async run({ main, browser, state }) {
      const page = await browser.page();
      const urls = [`${main.url}/ui/#/signin`];
      if (state.prLink) urls.push(state.prLink);
      for (const url of urls) {
        await page.goto(url, { waitUntil: 'load' });
        const { ran, violations } = await tryInlineScript(page);
        assert.equal(ran, null, `${url}: inline script ran (${ran})`);
        assert.ok(
          violations.some((v) => v.startsWith('script-src')),
          `${url}: a securitypolicyviolation for script-src (got ${JSON.stringify(violations)})`,
        );
      }
      await page.close();
      assert.ok(state.prLink, 'the pull request page was tried too (needs the job of "start a job")');
    },
  },
  {
    name: 'hostile text in a prompt, a file name, a page and a model summary is shown as text',
    async run(ctx) {
      const xss = await ctx.startXssService();
      const created = await xss.api('POST', `/v2/agent/${xss.projectId}/job`, { body: { prompt: XSS_PROMPT } });
      assert.equal(created.status, 201, created.text);
      const jobId = created.json.id;
      const job = await xss.waitForJob(xss.projectId, jobId, (j) => j.status !== 'active');
      assert.equal(job.status, 'completed', `the hostile job completed: ${JSON.stringify(job)}`);
      const review = await xss.api('GET', `/v2/agent/${xss.projectId}/job/${jobId}/review`);
      assert.equal(review.status, 200, review.text);
      assert.ok(
        review.json.files.some((f) => f.path === XSS_FILE),
        `the model wrote ${XSS_FILE}: files ${JSON.stringify(review.json.files.map((f) => f.path))}`,
      );

      const context = await ctx.browser.context();
      const page = await ctx.browser.page(context);
      await signIn(page, xss.url, xss.adminKey);
      await assertClean(page, 'after sign-in');

      await open(page, `${xss.url}/ui/#/projects/${xss.projectId}`, HOOKS.jobRow);
      await waitForText(page, HOOKS.jobRow, new RegExp(escapeRe(XSS_IMG)));
      await assertClean(page, 'the jobs list');
      await ctx.browser.screenshot(page, 'xss-jobs');

      await open(page, jobUrl(xss, jobId, xss.projectId), HOOKS.jobStatus);
      await waitForText(page, HOOKS.jobStatus, /\bcompleted\b/i);
      await waitForText(page, HOOKS.jobMessage, new RegExp(escapeRe(XSS_PROMPT)));
      await waitForText(page, HOOKS.jobStep, new RegExp(escapeRe(XSS_IMG)));
      const diff = await waitForText(page, HOOKS.jobDiff, new RegExp(escapeRe(XSS_FILE)));
      assert.ok(diff.includes(XSS_SCRIPT), "the page's content is in the diff as text");
      await page.waitForSelector(sel(HOOKS.jobPreview));
      const text = await bodyText(page);
      for (const t of [XSS_PROMPT, XSS_SUMMARY, XSS_FILE]) assert.ok(text.includes(t), `the job page shows ${t} as text`);
      await assertClean(page, 'the job page');
      await ctx.browser.screenshot(page, 'xss-job');

      if (job.prLink) {
        const res = await page.goto(job.prLink, { waitUntil: 'load' });
        assert.equal(res.status(), 200);
        await page.waitForSelector(sel(HOOKS.prDescription));
        const pr = await bodyText(page);
        assert.ok(pr.includes(XSS_FILE), 'the pull request page shows the file name as text');
        assert.ok(pr.includes(XSS_PROMPT), 'and the instruction');
        assert.ok(pr.includes(XSS_SUMMARY), "and the model's summary");
        await assertClean(page, 'the pull request page');
        await ctx.browser.screenshot(page, 'xss-pull-request');
      } else {
        assert.fail('the hostile job has no pull request');
      }
      await context.close();
    },
  },
];
