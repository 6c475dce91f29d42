// The service itself and the dashboard's static files, before anyone signs in.

import assert from 'node:assert/strict';

// The header every /ui/ file and the local pull request page carry
// (docs: the issue 24 contract, "Dashboard").
export const UI_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const scenarios = [
  {
    name: 'the service answers /healthz and /openapi.json, in the browser too',
    async run({ main, browser }) {
      const health = await main.api('GET', '/healthz', { key: null });
      assert.equal(health.status, 200, health.text);
      const openapi = await main.api('GET', '/openapi.json', { key: null });
      assert.equal(openapi.status, 200);
      assert.match(String(openapi.json?.openapi), /^3\./, 'an OpenAPI 3 document');
      const page = await browser.page();
      const res = await page.goto(`${main.url}/healthz`);
      assert.equal(res.status(), 200);
      await page.close();
    },
  },
  {
    name: 'the dashboard is served at /ui/ with its security headers and an ETag',
    async run({ main }) {
      for (const route of ['/ui/', '/ui']) {
        const r = await main.api('GET', route, { key: null });
        assert.equal(r.status, 200, `${route}: ${r.status}`);
        assert.match(r.headers.get('content-type') || '', /^text\/html/);
        assert.equal(r.headers.get('content-security-policy'), UI_CSP);
        assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(r.headers.get('referrer-policy'), 'no-referrer');
        assert.doesNotMatch(r.text, /<script(?![^>]*\bsrc=)[^>]*>/i, 'no inline <script> in index.html');
        assert.doesNotMatch(r.text, /\bon[a-z]+\s*=/i, 'no inline event handler in index.html');
        const etag = r.headers.get('etag');
        assert.ok(etag, 'an ETag');
        const again = await main.api('GET', route, { key: null, headers: { 'if-none-match': etag } });
        assert.equal(again.status, 304, 'the same ETag answers 304');
      }
    },
  },
];
