// Browser tests of peppolgate's web pages (issue 19): Debian's Chromium, driven headless by
// Playwright (playwright-core), against a running `peppolgate -network demo`. Every page is
// opened through visit(), which gives it a fresh browser context (JavaScript on or off,
// desktop or phone), saves a full-page screenshot, runs axe-core on it (zero violations),
// and fails on anything the browser complained about: a console error or warning (a CSP
// violation is one), an uncaught exception, a failed request, or a request to anywhere but
// peppolgate itself. The demo network is simulated and seeded, so the values asserted
// below are the demo's data, not guesses.
//
// Adding a page: write a test that calls visit() once per variant (VARIANTS), with a check
// callback for what the page must show; the placeholders at the end name the flows of
// issue 19 still to write.
//
// Environment (set by run.sh):
//   WEB_URL        the server, e.g. http://127.0.0.1:PORT (no trailing slash)
//   WEB_ARTIFACTS  the folder for the screenshots (run.sh empties it)
//   CHROMIUM       the browser, /usr/bin/chromium
// Run: node --test e2e/web/pages.test.mjs (Node 22; run.sh does all of it).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import axe from 'axe-core';

function requireEnv(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set; run the tests through e2e/web/run.sh`);
  return v;
}

const BASE = requireEnv('WEB_URL');
const ARTIFACTS = requireEnv('WEB_ARTIFACTS');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ORIGIN = new URL(BASE).origin;

// Demo data (netsim seed 1), as in e2e/mcp/client.test.mjs.
const DEMO = {
  id: '0208:0677424046',
  name: 'Vandelanotte Installaties NV',
  searchQuery: 'Vandelanotte',
};

// The budget for one page: the bytes transferred for the document and everything
// it loads (headers and bodies as sent, so compressed when the server compresses).
const MAX_PAGE_BYTES = 60 * 1024;

// Browser contexts by viewport name. The phone is an iPhone 12-15 sized screen, with touch
// and the mobile meta-viewport handling; its screenshots are at twice the CSS pixels.
const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
};

// Every page is tested in each of these.
const VARIANTS = [
  { viewport: 'desktop', js: true },
  { viewport: 'desktop', js: false },
  { viewport: 'phone', js: true },
  { viewport: 'phone', js: false },
];

const label = ({ viewport, js }) => `${viewport}, JavaScript ${js ? 'on' : 'off'}`;

// Flags the issue asks for. Playwright adds its own (among them a fresh temporary
// --user-data-dir per launch, --no-first-run and --disable-sync again); headless is
// Chromium's own (new) headless mode, since Debian ships no headless shell.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-gpu',
  '--no-first-run',
];

const TEST_TIMEOUT_MS = 30_000;

let browser;

before(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
});

after(async () => {
  await browser?.close();
});

// watch records what a page did that a good page does not: console errors and warnings
// (Chromium reports CSP violations there), uncaught exceptions, failed requests, answers
// of 400 and above to anything but the document itself, and requests to other origins (the
// pages load nothing from third parties, and nothing over plain HTTP from elsewhere). It
// also adds up the bytes transferred.
function watch(page, documentURL) {
  const problems = [];
  const sizes = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`uncaught exception: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('data:') && new URL(r.url()).origin !== ORIGIN) problems.push(`request to another origin: ${r.url()}`);
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400 && r.url() !== documentURL) problems.push(`${r.status()} for ${r.url()}`);
  });
  page.on('requestfinished', (r) => sizes.push(r.sizes()));
  return {
    problems,
    // bytes is the sum of the response headers and bodies transferred so far.
    async bytes() {
      const all = await Promise.all(sizes);
      return all.reduce((n, s) => n + s.responseHeadersSize + s.responseBodySize, 0);
    },
  };
}

// axeViolations runs axe-core on the page as it is (all rules but the experimental ones:
// WCAG 2.x A and AA and best practices) and returns one line per violation: rule, impact,
// what it asks, the elements. axe is evaluated over the DevTools protocol, which the page's
// CSP does not govern.
async function axeViolations(page) {
  await page.evaluate(axe.source);
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} [${v.nodes.map((n) => n.target.join(' ')).join(', ')}] ${v.helpUrl}`,
  );
}

// axeViolationsNoJS is axeViolations for a page opened with JavaScript off. Chromium runs
// no timers then, not even for the DevTools protocol's scripts, and axe-core needs them;
// so the page's DOM as it is (with its <noscript> contents as elements, as they render) is
// served at the same URL to a context of the same viewport with JavaScript on, under a CSP
// that runs none of the page's scripts, and axe runs there. The page's other resources
// (style sheets, images) load from the server as before.
async function axeViolationsNoJS(page, contextOptions) {
  const html = await page.evaluate(() => {
    const root = document.documentElement.cloneNode(true);
    for (const n of root.querySelectorAll('noscript')) n.replaceWith(...n.childNodes);
    return `<!DOCTYPE html>\n${root.outerHTML}`;
  });
  const url = page.url();
  const copy = await browser.newContext({ ...contextOptions, javaScriptEnabled: true });
  try {
    const p = await copy.newPage();
    await p.route(url, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html; charset=utf-8',
        headers: { 'Content-Security-Policy': "script-src 'none'" },
        body: html,
      }),
    );
    await p.goto(url, { waitUntil: 'load' });
    return await axeViolations(p);
  } finally {
    await copy.close();
  }
}

// visit opens BASE+path in a fresh context of the variant, expects the document's status,
// saves a full-page screenshot as <name>-<viewport>[-nojs].png, asserts axe finds nothing,
// then runs check(page, response) and finally asserts the page caused none of watch()'s
// problems. The screenshot comes first, so a failing page leaves one too. It returns the
// bytes transferred for the page and what check did.
async function visit({ name, path, viewport = 'desktop', js = true, status = 200 }, check = async () => {}) {
  const options = { ...VIEWPORTS[viewport], locale: 'en-GB' };
  const context = await browser.newContext({ ...options, javaScriptEnabled: js });
  try {
    const page = await context.newPage();
    const url = BASE + path;
    const w = watch(page, url);
    const response = await page.goto(url, { waitUntil: 'load' });
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${viewport}${js ? '' : '-nojs'}.png`), fullPage: true });
    assert.equal(response.status(), status, `GET ${path}`);
    assert.match(response.headers()['content-type'] ?? '', /^text\/html/, `GET ${path}: Content-Type`);
    const bytes = await w.bytes();
    const violations = js ? await axeViolations(page) : await axeViolationsNoJS(page, options);
    assert.deepEqual(violations, [], `axe-core on ${path} (${label({ viewport, js })})`);
    if (viewport === 'phone') {
      // Nothing wider than the phone: no sideways scrolling of the whole page. (innerWidth
      // would not do: a mobile browser zooms out to fit a wider page, and innerWidth grows.)
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      assert.ok(scrollWidth <= clientWidth, `${path} is ${scrollWidth} CSS pixels wide on a ${clientWidth} pixel wide phone`);
    }
    await check(page, response);
    assert.deepEqual(w.problems, [], `what the browser reported on ${path}`);
    return { bytes };
  } finally {
    await context.close();
  }
}

// The variants of a page run at the same time, each in its own context of the one browser.
describe('index (GET / for browsers)', { concurrency: true, timeout: TEST_TIMEOUT_MS * 2 }, () => {
  for (const variant of VARIANTS) {
    test(label(variant), { timeout: TEST_TIMEOUT_MS }, async (t) => {
      const { bytes } = await visit({ name: 'index', path: '/', ...variant }, async (page) => {
        assert.equal(await page.title(), 'peppolgate');
        await page.getByRole('heading', { level: 1, name: 'peppolgate' }).waitFor();
        // The example lookup is a link to this server, and following it answers.
        const link = page.getByRole('link', { name: 'Look up a participant' });
        const href = await link.getAttribute('href');
        assert.equal(href, `${BASE}/api/v1/participant/${DEMO.id}`);
        const [answer] = await Promise.all([page.waitForEvent('response', (r) => r.url() === href), link.click()]);
        assert.equal(answer.status(), 200, `following ${href}`);
      });
      t.diagnostic(`the index weighs ${bytes} bytes transferred`);
      assert.ok(bytes <= MAX_PAGE_BYTES, `the index weighs ${bytes} bytes, more than ${MAX_PAGE_BYTES}`);
    });
  }
});

// Placeholders for the flows of issue 19 that need the pages being built on branch
// web-pages. Each names what it must cover; replace `skip` with the test.
describe('issue 19 flows (pages not built yet)', () => {
  // Home box → search results for DEMO.searchQuery (name, id, country; the total) →
  // the participant page of DEMO.id (the verdict "Can receive invoices and credit notes",
  // the Directory card, the SMP, the services table) → its services; every page through
  // visit() in every VARIANTS entry, so axe, screenshots and the problems are covered.
  test('search → participant → services', { skip: 'needs the pages of issue 19 (branch web-pages)' });

  // POST from the home box (or /ask?q=…) with "Can Vandelanotte receive invoices?": with
  // JavaScript on, the answer arrives streamed (SSE) and the result cards appear as they
  // come; with JavaScript off, the same answer arrives as one page.
  test('a question streamed on /ask', { skip: 'needs the pages of issue 19 (branch web-pages)' });

  // An upstream failure is a clear page with retry advice, not a blank page or a stack
  // trace. The binary has no fault switch; scripts/load-mix's `-serve` mode runs the same
  // stack on the demo network and takes `fault smp <host> <status>` and `fault directory
  // <status> <retry-after>` on stdin (see scripts/load-mix/serve.go), or the test can use a
  // participant of the demo whose SMP cannot be reached, if there is one.
  test('a failing upstream page', { skip: 'needs the pages of issue 19 (branch web-pages)' });

  // Every page of the flows above, with JavaScript on (it loads the most), weighs at most
  // MAX_PAGE_BYTES: visit() returns the bytes transferred (the index test asserts it too).
  test('page weight ≤ 60 KB on every page', { skip: 'needs the pages of issue 19 (branch web-pages)' });
});
