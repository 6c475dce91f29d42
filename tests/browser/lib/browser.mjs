// Debian's chromium, headless, driven by puppeteer-core over the DevTools
// protocol. It reaches nothing but 127.0.0.1: the flags stop its own calls
// home (as root it needs --no-sandbox), and every page records any request for
// another host, which a scenario then fails on (the dashboard uses no CDN).

import puppeteer from 'puppeteer-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sel, HOOKS } from './hooks.mjs';

export const DESKTOP = { width: 1280, height: 800 };
// Not isMobile or hasTouch: puppeteer reloads the page to change those, which
// would lose what a screenshot is of (an error shown, a secret shown once).
// The pages' layout depends on the width only.
export const PHONE = { width: 390, height: 844, deviceScaleFactor: 1 };

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  // Any host but the loopback address fails to resolve.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

export class Browser {
  constructor({ executablePath, screenshots }) {
    this.executablePath = executablePath;
    this.screenshots = screenshots;
    this.offsite = []; // requests for anything but 127.0.0.1 (and data:/blob:)
    this.pageErrors = []; // uncaught exceptions in any page
    this.dialogs = []; // {type, message} of every dialog a page opened, each accepted
  }

  async launch() {
    this.profile = await mkdtemp(path.join(tmpdir(), 'docwright-chromium.'));
    this.browser = await puppeteer.launch({
      executablePath: this.executablePath,
      headless: true,
      pipe: true,
      userDataDir: this.profile,
      args: FLAGS,
      defaultViewport: DESKTOP,
      protocolTimeout: 60000,
    });
    return this;
  }

  // A fresh browser context: its own cookies, as another person's browser.
  async context() {
    return this.browser.createBrowserContext();
  }

  // A new page in `context` (the default one if none), watched for offsite
  // requests and uncaught errors.
  async page(context) {
    const page = context ? await context.newPage() : await this.browser.newPage();
    await page.setViewport(DESKTOP);
    page.setDefaultTimeout(15000);
    page.on('request', (req) => {
      const url = req.url();
      if (!/^(http:\/\/127\.0\.0\.1[:/]|data:|blob:|about:)/.test(url)) this.offsite.push(url);
    });
    page.on('pageerror', (err) => this.pageErrors.push(`${page.url()}: ${err.message}`));
    // confirm() before a revoke or an archive: recorded, then accepted.
    page.on('dialog', (dialog) => {
      this.dialogs.push({ type: dialog.type(), message: dialog.message() });
      dialog.accept();
    });
    return page;
  }

  // The whole page as it is now, at desktop and at phone width, as NAME-desktop.png
  // and NAME-phone.png; the page is left at desktop width.
  async screenshot(page, name) {
    for (const [label, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      await page.setViewport(viewport);
      await new Promise((r) => setTimeout(r, 150)); // layout after the resize
      await page.screenshot({ path: path.join(this.screenshots, `${name}-${label}.png`), fullPage: true });
    }
    await page.setViewport(DESKTOP);
  }

  async close() {
    if (this.browser) await this.browser.close().catch(() => {});
    if (this.profile) await rm(this.profile, { recursive: true, force: true });
  }
}

// --- Page helpers ---------------------------------------------------------------

// Waits until the hook's elements (all of them, their texts joined by
// newlines; an input's or a textarea's text is its value) exist and match
// `re`; returns that text.
export async function waitForText(page, hook, re, timeout = 15000) {
  return waitForTextAt(page, sel(hook), re, timeout);
}

// waitForText for any CSS selector (a hook inside one row, say).
export async function waitForTextAt(page, selector, re, timeout = 15000) {
  try {
    await page.waitForFunction(
      (s, source, flags) => {
        const all = [...document.querySelectorAll(s)];
        const read = (e) => (e.tagName === 'INPUT' || e.tagName === 'TEXTAREA' ? e.value : e.textContent);
        return all.length > 0 && new RegExp(source, flags).test(all.map(read).join('\n'));
      },
      { timeout, polling: 100 },
      selector,
      re.source,
      re.flags,
    );
  } catch (e) {
    const now = await textAt(page, selector);
    throw new Error(`${selector} never matched ${re} in ${timeout} ms (now: ${JSON.stringify(now)}; at ${page.url()})`);
  }
  return textAt(page, selector);
}

// The hook's text (all its matches, joined by newlines; an input's or a
// textarea's text is its value), or null if absent.
export async function textOf(page, hook) {
  return textAt(page, sel(hook));
}

// textOf for any CSS selector.
export async function textAt(page, selector) {
  return page.evaluate((s) => {
    const all = [...document.querySelectorAll(s)];
    const read = (e) => (e.tagName === 'INPUT' || e.tagName === 'TEXTAREA' ? e.value : e.textContent);
    return all.length ? all.map(read).join('\n') : null;
  }, selector);
}

export async function count(page, hook) {
  return page.evaluate((s) => document.querySelectorAll(s).length, sel(hook));
}

// Opens `url` (a full URL, hash routes included) and waits for the hook.
export async function open(page, url, hook) {
  const res = await page.goto(url, { waitUntil: 'domcontentloaded' });
  if (hook) await page.waitForSelector(sel(hook), { visible: true });
  return res;
}

// Signs in through #/signin with `key`; returns the session cookie.
export async function signIn(page, baseUrl, key) {
  await open(page, `${baseUrl}/ui/#/signin`, HOOKS.signinKey);
  await page.type(sel(HOOKS.signinKey), key);
  await page.click(sel(HOOKS.signinSubmit));
  await page.waitForFunction(() => !location.hash.startsWith('#/signin'), { timeout: 15000 }).catch(async () => {
    const error = await textOf(page, HOOKS.errorMessage);
    throw new Error(`sign-in did not leave #/signin (error shown: ${JSON.stringify(error)})`);
  });
  return sessionCookie(page);
}

// Runs `action`, which must make the page ask window.confirm() (accepted by
// every page of Browser.page()); returns the question asked.
export async function confirmed(browser, action) {
  const before = browser.dialogs.length;
  await action();
  const asked = browser.dialogs.slice(before).find((d) => d.type === 'confirm');
  if (!asked) throw new Error('the page did not ask for a confirmation');
  return asked.message;
}

export async function sessionCookie(page) {
  const cookies = await page.cookies();
  return cookies.find((c) => c.name === 'dw_session') || null;
}

// The hostile-text checks of a page: nothing a payload would have made exists,
// and nothing it would have run ran.
export async function injected(page) {
  return page.evaluate(() => {
    const found = [];
    if (window.__xss !== undefined) found.push(`window.__xss = ${window.__xss}`);
    if (document.querySelector('img[src="x"]')) found.push('an <img src=x> element');
    for (const s of document.querySelectorAll('script')) {
      if ((s.textContent || '').includes('__xss')) found.push('a <script> element holding __xss');
    }
    for (const el of document.querySelectorAll('[onerror],[onload],[onclick]')) found.push(`an element with a handler: ${el.outerHTML.slice(0, 80)}`);
    for (const a of document.querySelectorAll('a[href],iframe[src]')) {
      const v = a.getAttribute('href') || a.getAttribute('src') || '';
      if (/^\s*javascript:/i.test(v)) found.push(`a javascript: URL: ${a.outerHTML.slice(0, 80)}`);
    }
    if (document.querySelector('iframe')) found.push('an <iframe>');
    return found;
  });
}
