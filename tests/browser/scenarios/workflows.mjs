// A project's workflows on the dashboard (#/projects/{id}/workflows) and the
// job page of a workflow's run, on a service of their own (run.mjs:
// startWorkflowService; lib/model_scripts.mjs: WORKFLOW_SCRIPT) whose engine
// ticks every 200 ms and polls the docs repository every 500 ms, so that
// workflow files pushed to `main` are listed within a second.

import assert from 'node:assert/strict';
import { HOOKS, sel, workflowSel } from '../lib/hooks.mjs';
import { open, signIn, waitForText, waitForTextAt, textAt, count, injected } from '../lib/browser.mjs';
import { sleep } from '../lib/fixture.mjs';
import { XSS_IMG, XSS_SCRIPT, XSS_PROMPT } from '../lib/model_scripts.mjs';

// The serve flags of the workflows' service.
export const WORKFLOW_SERVE_ARGS = ['--workflow-tick', '200', '--workflow-poll-interval', '500'];

const SCHEDULED = {
  name: 'weekly-notes',
  title: 'Weekly notes',
  prompt: 'Summarise the week in changelog.mdx.',
  trigger: { kind: 'schedule', cron: '0 9 * * 1', timeZone: 'Europe/Berlin' },
};
const MANUAL = {
  name: 'changelog',
  title: 'Changelog by hand',
  prompt: 'Fix the quickstart heading.',
  trigger: { kind: 'manual' },
};
const CLASHING = { name: 'release-notes', title: 'Release notes', prompt: 'Write the release notes.' };
const HOSTILE_TITLE = `${XSS_IMG} ${XSS_SCRIPT}`;
const HOSTILE_STEM_FILE = `.docwright/workflows/${XSS_IMG}.md`;

function needs(state) {
  assert.ok(state.wf, 'needs the workflows service and its signed-in page (the first workflows scenario)');
  return state.wf;
}

function workflowsUrl(svc) {
  return `${svc.url}/ui/#/projects/${svc.projectId}/workflows`;
}

function workflowsRoute(svc, name) {
  return `/v2/agent/${svc.projectId}/workflows${name ? `/${encodeURIComponent(name)}` : ''}`;
}

async function listWorkflows(svc) {
  const r = await svc.api('GET', workflowsRoute(svc));
  assert.equal(r.status, 200, r.text);
  return r.json.workflows;
}

async function listRuns(svc, name) {
  const r = await svc.api('GET', `${workflowsRoute(svc, name)}/runs`);
  assert.equal(r.status, 200, r.text);
  return r.json.runs;
}

async function create(svc, body) {
  const r = await svc.api('POST', workflowsRoute(svc), { body });
  assert.equal(r.status, 201, `create ${body.name}: ${r.status} ${r.text}`);
  return r.json;
}

// Polls `probe` until it returns something truthy; returns that.
async function eventually(what, probe, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(200);
  }
}

// Clicks the element once it is enabled (a click on a disabled button does
// nothing, silently).
async function clickEnabled(page, selector) {
  await page.waitForSelector(`${selector}:not([disabled])`, { visible: true });
  await page.click(selector);
}

// Clicks a link inside the page (one event, even while the page redraws).
async function follow(page, selector) {
  await page.waitForSelector(selector, { visible: true });
  await page.$eval(selector, (a) => a.click());
}

// Opens the Workflows page afresh (a reload when it is the page shown: the
// same address again would not draw it anew).
async function openWorkflows(page, svc) {
  if (page.url() === workflowsUrl(svc)) {
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.waitForSelector(sel(HOOKS.workflowRow), { visible: true });
  } else {
    await open(page, workflowsUrl(svc), HOOKS.workflowRow);
  }
}

async function isChecked(page, selector) {
  return page.$eval(selector, (input) => input.checked);
}

export const scenarios = [
  {
    name: 'workflows: the empty Workflows page, reached from the jobs page, says how to add one',
    async run(ctx) {
      const svc = await ctx.startWorkflowService();
      const context = await ctx.browser.context();
      const page = await ctx.browser.page(context);
      ctx.state.wf = { svc, context, page };
      await signIn(page, svc.url, svc.adminKey);
      await open(page, `${svc.url}/ui/#/projects/${svc.projectId}`, HOOKS.workflowsLink);
      await page.click(sel(HOOKS.workflowsLink));
      await page.waitForFunction((p) => location.hash === `#/projects/${p}/workflows`, { timeout: 15000 }, svc.projectId);
      const empty = await waitForText(page, HOOKS.emptyState, /No workflows yet/);
      assert.match(empty, /\.docwright\/workflows\//, 'the empty state names the folder of workflow files');
      assert.ok(empty.includes(`POST /v2/agent/${svc.projectId}/workflows`), 'and the API');
      assert.match(empty, /docwright workflow create/, 'and the command line');
      assert.equal(await count(page, HOOKS.workflowRow), 0, 'no workflows');
      await ctx.browser.screenshot(page, 'workflows-empty');
    },
  },
  {
    name: 'workflows: one created through the API appears, without a reload, with its trigger and next run',
    async run({ browser, state }) {
      const { svc, page } = needs(state);
      await page.evaluate(() => {
        window.__notReloaded = true;
      });
      const scheduled = await create(svc, SCHEDULED);
      await create(svc, MANUAL);
      assert.ok(scheduled.nextRunAt, `an enabled schedule has a next run: ${JSON.stringify(scheduled)}`);
      const berlin = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin', weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
      }).format(new Date(scheduled.nextRunAt));
      assert.equal(berlin, 'Mon 09:00', `nextRunAt ${scheduled.nextRunAt} is a Monday 09:00 in Berlin`);

      // The page reads the list again every few seconds.
      const row = (hook) => workflowSel(SCHEDULED.name, 'api', hook);
      await waitForTextAt(page, row(HOOKS.workflowTitle), /^Weekly notes$/, 15000);
      const trigger = await textAt(page, row(HOOKS.workflowTrigger));
      assert.ok(trigger.includes('0 9 * * 1') && trigger.includes('Europe/Berlin'), `the cron and its zone as given: ${trigger}`);
      const [datetime, shown] = await page.$eval(`${row(HOOKS.workflowNextRun)} time`, (t) => [t.getAttribute('datetime'), t.textContent]);
      assert.equal(datetime, scheduled.nextRunAt, 'the next run is the API\'s nextRunAt');
      assert.ok(shown && shown !== datetime, `shown in the reader's time, not as RFC 3339: ${shown}`);
      assert.match(await textAt(page, row(HOOKS.workflowLastRun)), /none yet/);
      assert.equal(await isChecked(page, row(HOOKS.workflowToggle)), true, 'enabled');

      const manual = (hook) => workflowSel(MANUAL.name, 'api', hook);
      await waitForTextAt(page, manual(HOOKS.workflowTrigger), /by hand only/);
      assert.match(await textAt(page, manual(HOOKS.workflowNextRun)), /when someone runs it/);
      assert.equal(await textAt(page, manual(HOOKS.workflowPrompt)), MANUAL.prompt, 'the prompt, whole');
      assert.equal(await page.evaluate(() => window.__notReloaded), true, 'the page was not reloaded');
      await browser.screenshot(page, 'workflows');
    },
  },
  {
    name: 'workflows: "Run now" starts a job whose page says what started it; a second one meanwhile is queued',
    async run({ browser, state }) {
      const { svc, page } = needs(state);
      const row = (hook) => workflowSel(MANUAL.name, 'api', hook);
      await clickEnabled(page, row(HOOKS.workflowRun));
      await page.waitForSelector(row(HOOKS.workflowRunJobLink), { visible: true });
      const href = await page.$eval(row(HOOKS.workflowRunJobLink), (a) => a.getAttribute('href'));
      const m = href.match(/^#\/projects\/([^/]+)\/jobs\/([^/?#]+)$/);
      assert.ok(m && m[1] === svc.projectId, `a link to the job: ${href}`);
      const jobId = decodeURIComponent(m[2]);
      const runs = await listRuns(svc, MANUAL.name);
      assert.equal(runs.length, 1, JSON.stringify(runs));
      assert.equal(runs[0].state, 'started');
      assert.equal(runs[0].jobId, jobId, 'the link is the run\'s job');
      const job = await svc.api('GET', `/v2/agent/${svc.projectId}/job/${jobId}`);
      assert.equal(job.status, 200, job.text);
      assert.deepEqual(job.json.trigger, { kind: 'manual', workflow: MANUAL.name });
      assert.ok(job.json.workflowId, 'the job names its workflow');

      await follow(page, row(HOOKS.workflowRunJobLink));
      await waitForText(page, HOOKS.jobTrigger, /Started by workflow changelog: by hand/);
      const back = await page.$eval(sel(HOOKS.jobTriggerWorkflow), (a) => a.getAttribute('href'));
      assert.equal(back, `#/projects/${svc.projectId}/workflows?workflow=${MANUAL.name}`, 'it links to the workflow');
      await svc.waitForJob(svc.projectId, jobId, (j) => j.status !== 'active');
      await waitForText(page, HOOKS.jobStatus, /\b(completed|failed)\b/, 30000);
      await browser.screenshot(page, 'workflow-job');

      // Back on the Workflows page, the workflow's runs are open.
      await follow(page, sel(HOOKS.jobTriggerWorkflow));
      await waitForTextAt(page, row(HOOKS.workflowRunRow), /started[\s\S]*by hand/);
      assert.equal(await page.$eval(row(HOOKS.workflowRuns), (el) => el.hidden), false, 'its runs are shown');
      await waitForTextAt(page, row(HOOKS.workflowLastRun), /started[\s\S]*by hand/);

      // Run now twice: the second arrives while the first's job is active
      // (the script's first step waits 2.5 s) and waits for it.
      await clickEnabled(page, row(HOOKS.workflowRun));
      await page.waitForSelector(row(HOOKS.workflowRunJobLink), { visible: true });
      await clickEnabled(page, row(HOOKS.workflowRun));
      await waitForTextAt(page, row(HOOKS.workflowRunResult), /Queued/);
      const three = await listRuns(svc, MANUAL.name);
      assert.equal(three.length, 3, JSON.stringify(three));
      // Queued, unless the job before it has ended already and the engine started it.
      assert.ok(['queued', 'started'].includes(three[0].state), JSON.stringify(three));
      // The engine starts the queued run when the job before it ends.
      await eventually('every run started and its job ended', async () => {
        const all = await listRuns(svc, MANUAL.name);
        return all.length === 3 && all.every((r) => r.state === 'started' && r.jobStatus && r.jobStatus !== 'active');
      }, 120000);
      // The open runs list follows (read again every few seconds): three runs, no job active.
      await page.waitForFunction(
        (s) => {
          const rows = [...document.querySelectorAll(s)];
          return rows.length === 3 && rows.every((r) => !/\bactive\b/.test(r.textContent));
        },
        { timeout: 20000 },
        row(HOOKS.workflowRunRow),
      );
      await browser.screenshot(page, 'workflows-runs');
    },
  },
  {
    name: 'workflows: the switch disables one (the API says so), and a member key is refused with the API\'s reason',
    async run({ browser, state }) {
      const { svc, page } = needs(state);
      await openWorkflows(page, svc);
      const row = (hook) => workflowSel(SCHEDULED.name, 'api', hook);
      assert.equal(await isChecked(page, row(HOOKS.workflowToggle)), true, 'enabled at first');
      await clickEnabled(page, row(HOOKS.workflowToggle));
      await waitForTextAt(page, row(HOOKS.workflowRunResult), /Disabled/);
      await waitForTextAt(page, row(HOOKS.workflowNextRun), /disabled/);
      const got = await svc.api('GET', workflowsRoute(svc, SCHEDULED.name));
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.enabled, false, 'the API says disabled');
      assert.equal(got.json.nextRunAt, null, 'and no next run');
      await page.reload({ waitUntil: 'domcontentloaded' });
      await page.waitForSelector(row(HOOKS.workflowToggle), { visible: true });
      assert.equal(await isChecked(page, row(HOOKS.workflowToggle)), false, 'still off after a reload');
      await browser.screenshot(page, 'workflows-disabled');

      // Changing a workflow is an admin's: a member key's switch is refused.
      const out = await svc.cli(['key', 'create', '--data-dir', svc.dataDir, '--org', svc.orgId, '--name', 'workflows member', '--role', 'member']);
      const memberKey = out.trim().split('\n').pop().trim();
      assert.match(memberKey, /^dw_\S+$/, `a member key: ${out}`);
      const context = await browser.context();
      const member = await browser.page(context);
      await signIn(member, svc.url, memberKey);
      await open(member, workflowsUrl(svc), HOOKS.workflowRow);
      const manual = (hook) => workflowSel(MANUAL.name, 'api', hook);
      await clickEnabled(member, manual(HOOKS.workflowToggle));
      const refused = await waitForTextAt(member, manual(HOOKS.workflowRunResult), /only an admin key/);
      assert.match(refused, /may not do this/, `the refusal in words: ${refused}`);
      await member.waitForFunction((s) => document.querySelector(s).checked === true, { timeout: 5000 }, manual(HOOKS.workflowToggle));
      const still = await svc.api('GET', workflowsRoute(svc, MANUAL.name));
      assert.equal(still.json.enabled, true, 'the member changed nothing');
      await browser.screenshot(member, 'workflows-member-refused');
      await context.close();
    },
  },
  {
    name: 'workflows: a workflow file with an error and a name both a file and the API define say what is wrong and what to do',
    async run({ browser, state }) {
      const { svc, page } = needs(state);
      await create(svc, CLASHING);
      await svc.commitFiles(
        {
          '.docwright/workflows/broken.md': '---\nname: Broken schedule\non:\n  cron: "61 9 * * 1"\n---\nSummarise the week.\n',
          '.docwright/workflows/release-notes.md': '---\nname: Release notes (file)\non:\n  manual: true\n---\nWrite the release notes from the file.\n',
        },
        'Add workflow files',
      );
      const listed = await eventually('the engine lists the files', async () => {
        const all = await listWorkflows(svc);
        const files = all.filter((w) => w.source === 'file').map((w) => w.name);
        return files.includes('broken') && files.includes(CLASHING.name) ? all : null;
      });
      const broken = listed.find((w) => w.name === 'broken');
      assert.ok(broken.error && /cron/i.test(broken.error), `the file's error names the cron: ${JSON.stringify(broken)}`);
      assert.equal(broken.file, '.docwright/workflows/broken.md');
      const clashing = listed.filter((w) => w.name === CLASHING.name);
      assert.deepEqual(clashing.map((w) => w.clash), [true, true], JSON.stringify(clashing));

      await openWorkflows(page, svc);
      const problem = await waitForTextAt(page, workflowSel('broken', 'file', HOOKS.workflowProblem), /has an error/);
      assert.ok(problem.includes(broken.error), `the API's error, whole: ${problem}`);
      assert.ok(problem.includes('.docwright/workflows/broken.md'), 'the file named');
      assert.match(problem, /fixed/, 'and what to do');
      assert.equal(await page.$eval(workflowSel('broken', 'file', HOOKS.workflowRun), (b) => b.disabled), true, 'it cannot be run');
      for (const source of ['api', 'file']) {
        await waitForTextAt(page, workflowSel(CLASHING.name, source, HOOKS.workflowProblem), /Two workflows are named release-notes[\s\S]*Neither runs[\s\S]*Rename or remove/);
      }
      assert.equal(await page.$eval(workflowSel(CLASHING.name, 'file', HOOKS.workflowRun), (b) => b.disabled), true,
        "the file's card does not run the API-defined one");

      // Run now on the API-defined one: the API refuses (409) and says why.
      const row = (hook) => workflowSel(CLASHING.name, 'api', hook);
      await clickEnabled(page, row(HOOKS.workflowRun));
      const refused = await waitForTextAt(page, row(HOOKS.workflowRunResult), /defined both through the API and in \.docwright\/workflows\/release-notes\.md/);
      assert.match(refused, /Not possible right now/);
      const runs = await listRuns(svc, CLASHING.name);
      assert.equal(runs[0].state, 'refused', JSON.stringify(runs));
      await browser.screenshot(page, 'workflows-problems');
    },
  },
  {
    name: 'workflows: hostile titles, prompts, file names and errors are shown as text',
    async run({ browser, state }) {
      const { svc, page, context } = needs(state);
      await create(svc, { name: 'hostile', title: HOSTILE_TITLE, prompt: XSS_PROMPT, trigger: { kind: 'manual' } });
      await svc.commitFiles(
        {
          [HOSTILE_STEM_FILE]: `---\non:\n  manual: true\n---\n${XSS_PROMPT}\n`,
          '.docwright/workflows/hostile-title.md': `---\nname: "${XSS_IMG}"\non:\n  manual: true\n---\n${XSS_PROMPT}\n`,
          '.docwright/workflows/hostile-error.md': `---\non:\n  cron: "${XSS_SCRIPT}"\n---\n${XSS_PROMPT}\n`,
        },
        'Add hostile workflow files',
      );
      const listed = await eventually('the engine lists the hostile files', async () => {
        const all = await listWorkflows(svc);
        const files = all.filter((w) => w.source === 'file').map((w) => w.file);
        const want = [HOSTILE_STEM_FILE, '.docwright/workflows/hostile-title.md', '.docwright/workflows/hostile-error.md'];
        return want.every((f) => files.includes(f)) ? all : null;
      });
      const stem = listed.find((w) => w.file === HOSTILE_STEM_FILE);
      assert.ok(stem.error, `a file whose name is no workflow name is listed with an error: ${JSON.stringify(stem)}`);
      const titled = listed.find((w) => w.name === 'hostile-title');
      assert.equal(titled.title, XSS_IMG, JSON.stringify(titled));
      const errored = listed.find((w) => w.name === 'hostile-error');
      assert.ok(errored.error, JSON.stringify(errored));

      await openWorkflows(page, svc);
      await waitForTextAt(page, workflowSel('hostile', 'api', HOOKS.workflowTitle), /./);
      assert.equal(await textAt(page, workflowSel('hostile', 'api', HOOKS.workflowTitle)), HOSTILE_TITLE, 'the title as text');
      assert.equal(await textAt(page, workflowSel('hostile', 'api', HOOKS.workflowPrompt)), XSS_PROMPT, 'the prompt as text');
      assert.equal(await textAt(page, workflowSel('hostile-title', 'file', HOOKS.workflowTitle)), XSS_IMG);
      const errorText = await textAt(page, workflowSel('hostile-error', 'file', HOOKS.workflowProblem));
      assert.ok(errorText.includes(errored.error), `the error as text: ${errorText}`);
      const stemRow = await page.evaluate((rowSel, file) => {
        const row = [...document.querySelectorAll(rowSel)].find((r) => r.textContent.includes(file));
        return row ? { name: row.getAttribute('data-workflow-name'), text: row.textContent } : null;
      }, sel(HOOKS.workflowRow), HOSTILE_STEM_FILE);
      assert.ok(stemRow, `a row names the file ${HOSTILE_STEM_FILE}`);
      assert.equal(stemRow.name, stem.name, 'its name as the API gives it');
      assert.ok(stemRow.text.includes(stem.error), 'with its error');
      // The prompts folded away are text too, once unfolded.
      await page.$$eval('details.prompt', (all) => all.forEach((d) => { d.open = true; }));
      assert.deepEqual(await injected(page), [], 'the Workflows page: hostile text became markup');
      await browser.screenshot(page, 'xss-workflows');

      // Its run's job: the page says what started it, and the prompt is text.
      const row = (hook) => workflowSel('hostile', 'api', hook);
      await clickEnabled(page, row(HOOKS.workflowRun));
      await follow(page, row(HOOKS.workflowRunJobLink));
      await waitForText(page, HOOKS.jobTrigger, /Started by workflow hostile: by hand/);
      await waitForText(page, HOOKS.jobMessage, new RegExp(XSS_PROMPT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.deepEqual(await injected(page), [], 'the job page: hostile text became markup');
      const jobId = decodeURIComponent((await page.evaluate(() => location.hash)).split('/').pop());
      await svc.waitForJob(svc.projectId, jobId, (j) => j.status !== 'active');
      await context.close();
    },
  },
];
