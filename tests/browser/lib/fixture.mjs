// The service under test: a scripted model server (tests/fakes/fake_model_main.cc),
// a bare git repository holding the sample docs site (tests/data/sample-docs) on
// `main`, and `docwright serve` on 127.0.0.1 with a port the system picks, its
// organisation, admin key and local-forge project made with the CLI, as a new
// user would. Everything lives in one temp dir, removed by stop().

import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, mkdir, cp, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const run = promisify(execFile);

// How long a child process has to say where it listens.
const START_TIMEOUT_MS = 20000;

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function git(args, opts = {}) {
  const { stdout } = await run('git', args, {
    ...opts,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Browser tests',
      GIT_AUTHOR_EMAIL: 'browser-tests@example.com',
      GIT_COMMITTER_NAME: 'Browser tests',
      GIT_COMMITTER_EMAIL: 'browser-tests@example.com',
    },
  });
  return stdout.trim();
}

// A child process whose output goes to files in the fixture's dir (shown when
// a test fails), stopped with SIGTERM, then SIGKILL.
class Child {
  constructor(name, bin, args, { env, dir }) {
    this.name = name;
    this.outPath = path.join(dir, `${name}.out`);
    this.errPath = path.join(dir, `${name}.err`);
    this.out = '';
    this.err = '';
    this.exited = null;
    this.proc = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc.stdout.on('data', (d) => {
      this.out += d;
    });
    this.proc.stderr.on('data', (d) => {
      this.err += d;
    });
    this.done = new Promise((resolve) => {
      this.proc.on('exit', (code, signal) => {
        this.exited = { code, signal };
        resolve(this.exited);
      });
      this.proc.on('error', (e) => {
        this.err += `\n${e.message}`;
        this.exited = { code: -1, signal: null };
        resolve(this.exited);
      });
    });
  }

  // Waits for a line of stdout+stderr matching `re`; returns the match.
  async waitFor(re, what) {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const m = (this.out + this.err).match(re);
      if (m) return m;
      if (this.exited) throw new Error(`${this.name} exited (${JSON.stringify(this.exited)}) before ${what}:\n${this.tail()}`);
      if (Date.now() > deadline) throw new Error(`${this.name}: no ${what} after ${START_TIMEOUT_MS} ms:\n${this.tail()}`);
      await sleep(50);
    }
  }

  tail(bytes = 4000) {
    const text = `--- ${this.name} stdout\n${this.out}\n--- ${this.name} stderr\n${this.err}`;
    return text.length > bytes ? `...${text.slice(-bytes)}` : text;
  }

  async stop() {
    if (!this.exited) {
      this.proc.kill('SIGTERM');
      const timer = setTimeout(() => this.exited || this.proc.kill('SIGKILL'), 5000);
      await this.done;
      clearTimeout(timer);
    }
    await writeFile(this.outPath, this.out).catch(() => {});
    await writeFile(this.errPath, this.err).catch(() => {});
    return this.exited;
  }
}

export class Service {
  // opts: docwright, fakeModel (binary paths), sampleDocs (dir), script (the
  // model's script, an array of steps), name (for the temp dir), serveArgs
  // (more arguments for `serve`, optional).
  constructor(opts) {
    this.opts = opts;
    this.children = [];
  }

  async start() {
    const o = this.opts;
    this.dir = await mkdtemp(path.join(tmpdir(), `docwright-browser-${o.name}.`));
    this.dataDir = path.join(this.dir, 'data');
    this.bare = path.join(this.dir, 'docs.git');
    await this.makeRepository();

    const scriptPath = path.join(this.dir, 'model-script.json');
    await writeFile(scriptPath, JSON.stringify(o.script, null, 2));
    const modelKey = 'sk-browser-tests';
    const model = this.spawn('model', o.fakeModel, ['--wire', 'openai', '--key', modelKey, '--script', scriptPath]);
    const [, modelUrl] = await model.waitFor(/fake model listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/, 'its URL');

    // The CLI's default role for a new key has been `admin`, and `--role` is
    // newer than some builds these tests run against: asked for only when known.
    this.keyRoleArgs = (await this.cli(['key', 'create', '--help'])).includes('--role') ? ['--role', 'admin'] : [];

    // A price table for the scripted model, so job pages show a cost (only
    // where the build takes one).
    const pricesArgs = [];
    if ((await this.cli(['serve', '--help'])).includes('--prices')) {
      const prices = path.join(this.dir, 'prices.json');
      await writeFile(prices, JSON.stringify({ currency: 'USD', models: { 'scripted-browser-model': { input: 3, cachedInput: 0.3, output: 15 } } }));
      pricesArgs.push('--prices', prices);
    }
    const portFile = path.join(this.dir, 'port');
    const serve = this.spawn(
      'serve',
      o.docwright,
      [
        'serve',
        '--data-dir', this.dataDir,
        '--listen', '127.0.0.1:0',
        '--port-file', portFile,
        '--workers', '4',
        '--access-log', path.join(this.dir, 'access.log'),
        ...pricesArgs,
        ...(o.serveArgs || []),
      ],
      {
        DOCWRIGHT_LLM_PROVIDER: 'openai',
        DOCWRIGHT_LLM_BASE_URL: modelUrl,
        DOCWRIGHT_LLM_API_KEY: modelKey,
        DOCWRIGHT_MODEL: 'scripted-browser-model',
      },
    );
    const port = await this.waitForPort(portFile, serve);
    this.url = `http://127.0.0.1:${port}`;

    const org = await this.createOrg(`${o.name} docs team`);
    this.orgId = org.orgId;
    this.adminKey = org.key;
    this.projectId = org.projectId;
    return this;
  }

  // An organisation with an admin key and a local-forge project on this
  // service's repository.
  async createOrg(name) {
    const orgId = lastLine(await this.cli(['org', 'create', '--data-dir', this.dataDir, '--name', name]));
    const key = lastLine(
      await this.cli(['key', 'create', '--data-dir', this.dataDir, '--org', orgId, '--name', `${name} admin`, ...this.keyRoleArgs]),
    );
    if (!/^dw_\S+$/.test(key)) throw new Error(`key create printed no key: ${key}`);
    const projectId = lastLine(
      await this.cli(['project', 'create', '--data-dir', this.dataDir, '--org', orgId, '--repository', this.bare, '--forge', 'local']),
    );
    return { orgId, key, projectId };
  }

  async makeRepository() {
    const seed = path.join(this.dir, 'seed');
    await git(['-c', 'init.defaultBranch=main', 'init', '-q', '--bare', this.bare]);
    await git(['-c', 'init.defaultBranch=main', 'init', '-q', seed]);
    await cp(this.opts.sampleDocs, seed, { recursive: true });
    await git(['-C', seed, 'add', '-A']);
    await git(['-C', seed, 'commit', '-qm', 'Sample docs']);
    await git(['-C', seed, 'push', '-q', this.bare, 'HEAD:main']);
    await rm(seed, { recursive: true, force: true });
  }

  spawn(name, bin, args, extraEnv = {}) {
    const child = new Child(name, bin, args, { env: { ...process.env, ...extraEnv }, dir: this.dir });
    this.children.push(child);
    return child;
  }

  async waitForPort(file, child) {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const text = await readFile(file, 'utf8').catch(() => '');
      const port = Number.parseInt(text.trim(), 10);
      if (port > 0) return port;
      if (child.exited) throw new Error(`serve exited before listening:\n${child.tail()}`);
      if (Date.now() > deadline) throw new Error(`serve wrote no port file in ${START_TIMEOUT_MS} ms:\n${child.tail()}`);
      await sleep(50);
    }
  }

  async cli(args) {
    try {
      const { stdout } = await run(this.opts.docwright, args, { env: process.env });
      return stdout;
    } catch (e) {
      throw new Error(`docwright ${args.join(' ')} failed: ${e.stderr || e.message}`);
    }
  }

  // fetch against the service; `key` as a Bearer key unless headers say otherwise.
  async api(method, route, { key = this.adminKey, body, headers = {} } = {}) {
    const h = { ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(this.url + route, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: the caller reads `text`
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  // Polls the job until `until(job)` holds; returns the job.
  async waitForJob(projectId, jobId, until, { key = this.adminKey, timeoutMs = 90000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    let last = null;
    for (;;) {
      const r = await this.api('GET', `/v2/agent/${projectId}/job/${jobId}`, { key });
      if (r.status === 200) {
        last = r.json;
        if (until(last)) return last;
      }
      if (Date.now() > deadline) {
        throw new Error(`job ${jobId} did not reach the awaited state in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
      }
      await sleep(200);
    }
  }

  async mainCommit() {
    return git(['--git-dir', this.bare, 'rev-parse', 'main']);
  }

  // Commits `files` ({path in the repository: content}) onto `main` of the
  // bare repository, as a person pushing would; returns the new head.
  async commitFiles(files, message) {
    const work = await mkdtemp(path.join(this.dir, 'commit.'));
    try {
      await git(['clone', '-q', '--branch', 'main', this.bare, work]);
      for (const [name, content] of Object.entries(files)) {
        const file = path.join(work, name);
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, content);
      }
      await git(['-C', work, 'add', '-A']);
      await git(['-C', work, 'commit', '-qm', message]);
      await git(['-C', work, 'push', '-q', 'origin', 'HEAD:main']);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    return this.mainCommit();
  }

  // What the children wrote, for a failure report.
  logs() {
    return this.children.map((c) => c.tail()).join('\n');
  }

  // Stops the children; `keep` leaves the temp dir for a look. Returns the
  // problems seen on the way out (the fake model's protocol violations).
  async stop({ keep = false } = {}) {
    const problems = [];
    for (const c of [...this.children].reverse()) {
      const exit = await c.stop();
      if (c.name === 'model' && exit && exit.code !== 0 && exit.signal === null) {
        problems.push(`the scripted model recorded protocol violations:\n${c.err}`);
      }
    }
    if (this.dir && !keep) await rm(this.dir, { recursive: true, force: true });
    return problems;
  }
}

function lastLine(text) {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1].trim();
}

export { sleep };
