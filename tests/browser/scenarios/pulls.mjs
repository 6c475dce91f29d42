// The local forge's pull request page: reachable by its link alone, its merge
// action only for a signed-in key of its organisation; and what another
// organisation's session can see.

import assert from 'node:assert/strict';
import { HOOKS, sel } from '../lib/hooks.mjs';
import { open, signIn, count, textOf, waitForText } from '../lib/browser.mjs';
import { git } from '../lib/fixture.mjs';
import { FIRST_PROMPT } from '../lib/model_scripts.mjs';
import { UI_CSP } from './service.mjs';
import { jobUrl } from './jobs.mjs';

function pullId(prLink) {
  return new URL(prLink).pathname.split('/').pop();
}

export const scenarios = [
  {
    name: 'the pull request page opens by its link without a session, and shows no merge action',
    async run({ main, browser, state }) {
      assert.ok(state.prLink, 'needs the pull request of the job');
      const context = await browser.context();
      const page = await browser.page(context);
      const res = await page.goto(state.prLink, { waitUntil: 'domcontentloaded' });
      assert.equal(res.status(), 200);
      assert.equal(res.headers()['content-security-policy'], UI_CSP, "the dashboard's CSP");
      await page.waitForSelector(sel(HOOKS.prDescription), { visible: true });
      await page.waitForNetworkIdle({ idleTime: 300, timeout: 3000 }).catch(() => {});
      assert.equal(await count(page, HOOKS.mergeButton), 0, 'no merge button without a session');
      await browser.screenshot(page, 'pull-request-anonymous');
      const merge = await main.api('POST', `/pulls/${pullId(state.prLink)}/merge`, { key: null, body: {} });
      assert.ok([401, 403].includes(merge.status), `a merge without a key is refused: ${merge.status}`);
      await context.close();
    },
  },
  {
    name: "another organisation's session cannot load this job by its URL, nor merge its pull request",
    async run({ main, browser, state }) {
      assert.ok(state.jobId && state.prLink, 'needs the job of "start a job"');
      const other = await main.createOrg('Other team');
      state.otherOrg = other;
      for (const route of [`/v2/agent/${main.projectId}/job/${state.jobId}`, `/v2/agent/job/${state.jobId}`]) {
        const r = await main.api('GET', route, { key: other.key });
        assert.equal(r.status, 404, `${route} with another organisation's key: ${r.status}`);
      }
      const review = await main.api('GET', `/v2/agent/${main.projectId}/job/${state.jobId}/review`, { key: other.key });
      assert.equal(review.status, 404, `its review: ${review.status}`);

      const context = await browser.context();
      const page = await browser.page(context);
      await signIn(page, main.url, other.key);
      await open(page, jobUrl(main, state.jobId), HOOKS.errorMessage);
      const body = await page.evaluate(() => document.body.innerText);
      assert.ok(!body.includes(FIRST_PROMPT), "nothing of the job's content is shown");
      assert.equal(await count(page, HOOKS.jobStatus), 0, 'no job status');
      assert.match(await textOf(page, HOOKS.errorMessage), /not found/i, 'the page says it is not found');
      assert.equal(await count(page, HOOKS.followupInput) + await count(page, HOOKS.archiveButton), 0, 'nor any action on it');
      await browser.screenshot(page, 'job-not-found');

      await page.goto(state.prLink, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector(sel(HOOKS.prDescription), { visible: true });
      assert.equal(await count(page, HOOKS.mergeButton), 0, "no merge button for another organisation's session");
      const before = await main.mainCommit();
      const merge = await main.api('POST', `/pulls/${pullId(state.prLink)}/merge`, { key: other.key, body: {} });
      assert.ok([403, 404].includes(merge.status), `another organisation's key cannot merge: ${merge.status}`);
      assert.equal(await main.mainCommit(), before, 'main did not move');
      await context.close();
    },
  },
  {
    name: 'merge the local pull request from its page: the base branch moves',
    async run({ main, browser, page, state }) {
      assert.ok(page && state.prLink && state.headCommit, 'needs the signed-in page and the reviewed pull request');
      const before = await main.mainCommit();
      await page.goto(state.prLink, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector(sel(HOOKS.mergeButton), { visible: true });
      await page.click(sel(HOOKS.mergeButton));
      await waitForText(page, HOOKS.prState, /merged/i, 30000);
      const after = await main.mainCommit();
      assert.notEqual(after, before, 'main moved');
      await git(['--git-dir', main.bare, 'merge-base', '--is-ancestor', state.headCommit, after]).catch(() => {
        throw new Error(`the branch head ${state.headCommit} is not in main (${after})`);
      });
      const merged = await git(['--git-dir', main.bare, 'show', `${after}:guides/troubleshooting.mdx`]);
      assert.match(merged, /The deploy fails/, "the job's page is on main");
      await browser.screenshot(page, 'pull-request-merged');

      await page.reload({ waitUntil: 'domcontentloaded' });
      await waitForText(page, HOOKS.prState, /merged/i);
      assert.equal(await count(page, HOOKS.mergeButton), 0, 'a merged pull request offers no merge');
      const again = await main.api('POST', `/pulls/${pullId(state.prLink)}/merge`, { body: {} });
      assert.equal(again.status, 409, `merging twice: ${again.status}`);
    },
  },
];
