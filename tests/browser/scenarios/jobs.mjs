// A job from the dashboard, start to archive, with the scripted model
// (lib/model_scripts.mjs: MAIN_SCRIPT).

import assert from 'node:assert/strict';
import { HOOKS, sel } from '../lib/hooks.mjs';
import { open, waitForText, count, textOf, confirmed } from '../lib/browser.mjs';
import { FIRST_PROMPT, FOLLOW_UP_PROMPT, NEW_PAGE, BROKEN_LINK, FIRST_STEP_TEXT } from '../lib/model_scripts.mjs';

const BROKEN = /troubleshooting[\s\S]*limits/i; // the problem: NEW_PAGE's link to BROKEN_LINK

export function jobUrl(main, jobId, projectId = main.projectId) {
  return `${main.url}/ui/#/projects/${projectId}/jobs/${jobId}`;
}

// Set on the job page's window: still there later means the page was never
// reloaded (a reload or a full navigation makes a new window).
async function markWindow(page) {
  await page.evaluate(() => {
    window.__notReloaded = true;
  });
}
async function assertNotReloaded(page) {
  assert.equal(await page.evaluate(() => window.__notReloaded), true, 'the page was not reloaded');
}

function needs(value, what) {
  assert.ok(value, `needs ${what}`);
  return value;
}

export const scenarios = [
  {
    name: 'start a job with the scripted model from the new-job form',
    async run({ main, browser, page, state }) {
      needs(page, 'the signed-in page of "sign in with the key"');
      await open(page, `${main.url}/ui/#/projects/${main.projectId}`, HOOKS.emptyState);
      assert.match(await textOf(page, HOOKS.emptyState), /No jobs yet[\s\S]*start a job/, 'the empty state says what to do');
      assert.equal(await count(page, HOOKS.jobRow), 0, 'no jobs');
      await browser.screenshot(page, 'project-empty');
      await open(page, `${main.url}/ui/#/new/${main.projectId}`, HOOKS.newJobPrompt);
      await browser.screenshot(page, 'new-job');
      await page.type(sel(HOOKS.newJobPrompt), FIRST_PROMPT);
      await page.click(sel(HOOKS.newJobSubmit));
      const route = new RegExp(`^#/projects/${main.projectId}/jobs/([^/?#]+)$`);
      await page.waitForFunction((source) => new RegExp(source).test(location.hash), { timeout: 15000 }, route.source);
      state.jobId = (await page.evaluate(() => location.hash)).match(route)[1];
      const job = await main.api('GET', `/v2/agent/${main.projectId}/job/${state.jobId}`);
      assert.equal(job.status, 200, `the job exists: ${job.text}`);
    },
  },
  {
    name: 'the job goes from active to completed on its page without a reload',
    async run({ main, page, state }) {
      needs(state.jobId, 'the job of "start a job"');
      await markWindow(page);
      // The script's first step waits 2.5 s: the page shows the turn running.
      await waitForText(page, HOOKS.jobStatus, /\bactive\b/i, 10000);
      await waitForText(page, HOOKS.jobStatus, /\bcompleted\b/i, 90000);
      await assertNotReloaded(page);
      const job = await main.waitForJob(main.projectId, state.jobId, (j) => j.status !== 'active', { timeoutMs: 5000 });
      assert.equal(job.status, 'completed', `the API agrees: ${JSON.stringify(job)}`);
      state.prLink = needs(job.prLink, 'a prLink on the completed job');
      await page.waitForSelector(sel(HOOKS.jobPrLink), { visible: true });
      const href = await page.$eval(sel(HOOKS.jobPrLink), (a) => a.href);
      assert.equal(href, state.prLink, 'the page links to the pull request');
      // What the job used and its cost, from the server's price table.
      const usage = await waitForText(page, HOOKS.jobUsage, /estimated cost \d+\.\d+ USD/);
      assert.match(usage, /\d[\d,]* input tokens/, usage);
      assert.match(usage, new RegExp(`estimated cost ${job.usage.estimatedCost.toFixed(job.usage.estimatedCost < 1 ? 4 : 2)} USD`), usage);
    },
  },
  {
    name: "the job page shows the instruction, the agent's steps, the page preview, the diff and the problems",
    async run({ browser, page, state }) {
      needs(state.jobId, 'the job of "start a job"');
      await waitForText(page, HOOKS.jobMessage, new RegExp(FIRST_PROMPT));
      assert.equal(await count(page, HOOKS.jobMessage), 1, 'one instruction');
      const steps = await waitForText(page, HOOKS.jobStep, new RegExp(FIRST_STEP_TEXT.replace('.', '\\.')));
      assert.match(steps, /write_file/, 'the tool calls are steps');
      assert.match(steps, new RegExp(NEW_PAGE), "a step names the file it wrote");
      await waitForText(page, HOOKS.jobPreview, /The deploy fails/);
      const rendered = await page.evaluate((s) => {
        const root = [...document.querySelectorAll(s)].find((p) => p.textContent.includes('The deploy fails'));
        const h2 = [...root.querySelectorAll('h2')].find((h) => h.textContent.includes('The deploy fails'));
        const strong = [...root.querySelectorAll('strong')].find((b) => b.textContent === 'retry');
        return { h2: !!h2, strong: !!strong, raw: root.textContent.includes('## The deploy fails') };
      }, sel(HOOKS.jobPreview));
      assert.deepEqual(rendered, { h2: true, strong: true, raw: false }, 'the preview is rendered Markdown, not its source');
      const diff = await waitForText(page, HOOKS.jobDiff, new RegExp(NEW_PAGE));
      assert.match(diff, /\+## The deploy fails/, 'the diff shows the added lines');
      assert.match(diff, /docs\.json/, 'and the navigation change');
      assert.doesNotMatch(diff, /quickstart\.mdx/, "the first turn's failed edit changed nothing");
      await waitForText(page, HOOKS.jobProblems, BROKEN);
      await browser.screenshot(page, 'job');
    },
  },
  {
    name: 'a follow-up runs on the same job and the page follows it without a reload',
    async run({ main, browser, page, state }) {
      needs(state.jobId, 'the job of "start a job"');
      await markWindow(page);
      await page.type(sel(HOOKS.followupInput), FOLLOW_UP_PROMPT);
      await page.click(sel(HOOKS.followupSubmit));
      await page.waitForFunction((s) => document.querySelectorAll(s).length === 2, { timeout: 15000 }, sel(HOOKS.jobMessage));
      const messages = await textOf(page, HOOKS.jobMessage);
      assert.ok(messages.indexOf(FIRST_PROMPT) < messages.indexOf(FOLLOW_UP_PROMPT), 'the instructions in order');
      await main.waitForJob(main.projectId, state.jobId, (j) => j.status !== 'active');
      await waitForText(page, HOOKS.jobStatus, /\bcompleted\b/i, 30000);
      const diff = await waitForText(page, HOOKS.jobDiff, /quickstart\.mdx/, 30000);
      assert.match(diff, /\+## Install the CLI/, "the follow-up's edit");
      assert.match(diff, new RegExp(NEW_PAGE), "the first turn's page is still in the branch's diff");
      await waitForText(page, HOOKS.jobProblems, BROKEN);
      await assertNotReloaded(page);
      await browser.screenshot(page, 'job-follow-up');
    },
  },
  {
    name: "after the follow-up the review and the pull request still name the first turn's file and its problem",
    async run({ main, browser, page, state }) {
      needs(state.prLink, 'the pull request of the job');
      const review = await main.api('GET', `/v2/agent/${main.projectId}/job/${state.jobId}/review`);
      assert.equal(review.status, 200, review.text);
      const r = review.json;
      const paths = r.files.map((f) => f.path);
      assert.ok(paths.includes(NEW_PAGE), `files: ${paths}`);
      assert.ok(paths.includes('quickstart.mdx'), `files: ${paths}`);
      assert.ok(r.problems.some((p) => BROKEN.test(p)), `problems: ${JSON.stringify(r.problems)}`);
      assert.ok(r.headCommit, 'the branch was pushed');
      state.headCommit = r.headCommit;
      for (const text of [NEW_PAGE, 'quickstart.mdx', BROKEN_LINK, FIRST_PROMPT, FOLLOW_UP_PROMPT]) {
        assert.ok(r.pullRequestBodyHtml.includes(text), `the description names ${text}`);
      }

      const res = await page.goto(state.prLink, { waitUntil: 'domcontentloaded' });
      assert.equal(res.status(), 200);
      const description = await waitForText(page, HOOKS.prDescription, new RegExp(NEW_PAGE));
      for (const text of ['quickstart.mdx', BROKEN_LINK, FIRST_PROMPT, FOLLOW_UP_PROMPT]) {
        assert.ok(description.includes(text), `the page's description names ${text}`);
      }
      assert.doesNotMatch(description, /^\s*#{1,6} /m, 'Markdown headings are rendered, not shown raw');
      // Times are <time datetime> elements, shown in the reader's zone (by
      // /ui/time.js), not as the raw RFC 3339 text.
      await page.waitForFunction(() => {
        const times = [...document.querySelectorAll('time[datetime]')];
        return times.length > 0 && times.every((t) => t.textContent !== t.getAttribute('datetime'));
      });
      await browser.screenshot(page, 'pull-request');
    },
  },
];

// Archiving comes after the merge (scenarios/pulls.mjs), so that the pull
// request is still open to merge.
export const archiveScenario = {
  name: 'archive the job from its page',
  async run({ main, browser, page, state }) {
    needs(state.jobId, 'the job of "start a job"');
    await open(page, jobUrl(main, state.jobId), HOOKS.archiveButton);
    await waitForText(page, HOOKS.jobStatus, /\bcompleted\b/i);
    const question = await confirmed(browser, () => page.click(sel(HOOKS.archiveButton)));
    assert.match(question, /archive/i, 'the confirmation says what it does');
    await waitForText(page, HOOKS.jobStatus, /\barchived\b/i, 15000);
    const job = await main.waitForJob(main.projectId, state.jobId, (j) => j.archivedAt !== null, { timeoutMs: 5000 });
    assert.equal(job.status, 'archived');
    await browser.screenshot(page, 'job-archived');
  },
};
