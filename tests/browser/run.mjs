#!/usr/bin/env node
// The browser tests: the dashboard (/ui/) and the local pull request pages of a
// real `docwright serve`, in Debian's chromium driven by puppeteer-core. Run by
// ctest as `browser_tests` (tests/CMakeLists.txt); by hand, after `./dw build`
// and `npm ci` here:
//
//   node tests/browser/run.mjs --docwright build/docwright \
//     --fake-model build/tests/docwright_fake_model --screenshots build/ui-screenshots
//
// Options: --chromium PATH (default /usr/bin/chromium), --only REGEX (the
// scenarios whose names match; the ones they build on must match too), --keep
// (leave the services' temp dirs, and print them). Exits 0 when every scenario
// passed, 1 otherwise, 77 (ctest's skip) when DW_BROWSER_TESTS=0.
// docs/testing.md describes the scenarios and the data-test hooks they use.

import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const SKIP = 77;
// The issue's budget for the browser tests in CI is 8 minutes; past this the
// run stops with what it has.
const TOTAL_TIMEOUT_MS = 7 * 60 * 1000;

function parseArgs(argv) {
  const args = {
    chromium: '/usr/bin/chromium',
    sampleDocs: path.join(here, '..', 'data', 'sample-docs'),
    only: null,
    keep: false,
  };
  const names = {
    '--docwright': 'docwright',
    '--fake-model': 'fakeModel',
    '--screenshots': 'screenshots',
    '--chromium': 'chromium',
    '--only': 'only',
  };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--keep') args.keep = true;
    else if (a === '--help' || a === '-h') usage(0);
    else if (names[a] && i + 1 < argv.length) args[names[a]] = argv[++i];
    else usage(2, `unknown or incomplete argument ${a}`);
  }
  for (const need of ['docwright', 'fakeModel', 'screenshots']) {
    if (!args[need]) usage(2, `--${need.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is required`);
  }
  return args;
}

function usage(code, problem) {
  if (problem) console.error(`run.mjs: ${problem}`);
  console.error('usage: node run.mjs --docwright BIN --fake-model BIN --screenshots DIR [--chromium BIN] [--only REGEX] [--keep]');
  process.exit(code);
}

async function main() {
  if (process.env.DW_BROWSER_TESTS === '0') {
    console.log('browser tests skipped: DW_BROWSER_TESTS=0');
    return SKIP;
  }
  const args = parseArgs(process.argv.slice(2));
  for (const [what, file] of [
    ['docwright', args.docwright],
    ['the scripted model server', args.fakeModel],
    ['chromium (apt-get install chromium; ./dw test installs it)', args.chromium],
    ["puppeteer-core (npm ci in tests/browser; ./dw test runs it)", path.join(here, 'node_modules', 'puppeteer-core')],
  ]) {
    if (!existsSync(file)) {
      console.error(`browser tests: ${what} is missing: ${file} (DW_BROWSER_TESTS=0 skips these tests)`);
      return 1;
    }
  }
  // Imported only now, so that a missing node_modules is reported as above.
  const { Service } = await import('./lib/fixture.mjs');
  const { Browser } = await import('./lib/browser.mjs');
  const { MAIN_SCRIPT, XSS_SCRIPT_STEPS, WORKFLOW_SCRIPT } = await import('./lib/model_scripts.mjs');
  const service = await import('./scenarios/service.mjs');
  const session = await import('./scenarios/session.mjs');
  const jobs = await import('./scenarios/jobs.mjs');
  const pulls = await import('./scenarios/pulls.mjs');
  const xss = await import('./scenarios/xss.mjs');
  const workflows = await import('./scenarios/workflows.mjs');

  // In order: later scenarios build on the state of earlier ones (the signed-in
  // page, the job, its pull request).
  const all = [
    ...service.scenarios,
    ...session.scenarios,
    ...jobs.scenarios,
    ...pulls.scenarios,
    jobs.archiveScenario,
    ...xss.scenarios,
    // On a service of their own: they build only on each other.
    ...workflows.scenarios,
    session.signOutScenario,
  ];
  const only = args.only ? new RegExp(args.only, 'i') : null;
  const chosen = all.filter((s) => !only || only.test(s.name));

  await mkdir(args.screenshots, { recursive: true });
  const common = { docwright: args.docwright, fakeModel: args.fakeModel, sampleDocs: args.sampleDocs };
  const services = [];
  const browser = new Browser({ executablePath: args.chromium, screenshots: args.screenshots });
  const results = [];
  let setupError = null;
  const started = Date.now();
  try {
    // Listed before they start, so that one failing half-way is still stopped.
    const mainService = new Service({ ...common, name: 'main', script: MAIN_SCRIPT });
    services.push(mainService);
    await mainService.start();
    console.log(`browser tests: docwright at ${mainService.url}, repository ${mainService.bare}`);
    await browser.launch();
    console.log(`browser tests: ${(await browser.browser.version()) || 'chromium'} from ${args.chromium}`);
    const ctx = {
      main: mainService,
      browser,
      page: null,
      state: {},
      // A second service, with the hostile script, started when first needed.
      xssService: null,
      async startXssService() {
        if (!this.xssService) {
          this.xssService = new Service({ ...common, name: 'xss', script: XSS_SCRIPT_STEPS });
          services.push(this.xssService);
          await this.xssService.start();
        }
        return this.xssService;
      },
      // A third, for the workflows: its engine ticks and polls in a fraction
      // of a second, so that pushed workflow files are listed at once.
      workflowService: null,
      async startWorkflowService() {
        if (!this.workflowService) {
          this.workflowService = new Service({
            ...common,
            name: 'workflows',
            script: WORKFLOW_SCRIPT,
            serveArgs: workflows.WORKFLOW_SERVE_ARGS,
          });
          services.push(this.workflowService);
          await this.workflowService.start();
        }
        return this.workflowService;
      },
    };
    for (const scenario of chosen) {
      if (Date.now() - started > TOTAL_TIMEOUT_MS) {
        results.push({ name: scenario.name, ok: false, error: 'not run: the run is past its time budget' });
        continue;
      }
      results.push(await runScenario(scenario, ctx, browser));
    }
  } catch (e) {
    setupError = e;
  } finally {
    await browser.close();
    for (const s of services) {
      const problems = await s.stop({ keep: args.keep });
      if (args.keep) console.log(`browser tests: kept ${s.dir}`);
      for (const p of problems) results.push({ name: `${s.opts.name} service shut down cleanly`, ok: false, error: p });
    }
  }

  if (setupError) {
    console.error(`browser tests: the fixture failed: ${setupError.stack || setupError}`);
    for (const s of services) console.error(s.logs());
    return 1;
  }
  if (browser.offsite.length) {
    results.push({ name: 'no page asked for anything beyond 127.0.0.1', ok: false, error: [...new Set(browser.offsite)].join('\n') });
  }
  const failed = results.filter((r) => !r.ok);
  console.log(`\nbrowser tests: ${results.length - failed.length} passed, ${failed.length} failed ` +
    `(${((Date.now() - started) / 1000).toFixed(1)} s); screenshots in ${args.screenshots}`);
  for (const r of failed) console.log(`  FAILED ${r.name}\n    ${String(r.error).split('\n').join('\n    ')}`);
  if (failed.length) for (const s of services) console.log(s.logs());
  return failed.length ? 1 : 0;
}

async function runScenario(scenario, ctx, browser) {
  const t0 = Date.now();
  const errorsBefore = browser.pageErrors.length;
  let error = null;
  try {
    await scenario.run(ctx);
  } catch (e) {
    error = e;
  }
  const thrown = browser.pageErrors.slice(errorsBefore);
  if (!error && thrown.length) error = new Error(`a page threw:\n${thrown.join('\n')}`);
  const ms = Date.now() - t0;
  if (error) {
    console.log(`FAIL ${scenario.name} (${ms} ms)\n  ${String(error.stack || error).split('\n').slice(0, 8).join('\n  ')}`);
    if (ctx.page) {
      await browser.screenshot(ctx.page, `FAILED-${scenario.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`).catch(() => {});
    }
    return { name: scenario.name, ok: false, error: error.message };
  }
  console.log(`ok   ${scenario.name} (${ms} ms)`);
  return { name: scenario.name, ok: true };
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
