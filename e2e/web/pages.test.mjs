// Browser tests of peppolgate's web pages (issue 19): Debian's Chromium, driven headless by
// Playwright (playwright-core), against a running `peppolgate -network demo` with a Directory
// mirror of the demo network loaded (-mirror; the test network has none). Each flow runs
// once per variant (JavaScript on or off, desktop or phone; the variants concurrently), in a
// session: a fresh browser context with its cache off, reaching the pages as a person does
// (typing in the boxes, pressing Enter, clicking). Every page reached is inspected where it
// lands (session.land): a full-page screenshot, its status, axe-core (zero violations), no
// wider than a phone, at most 60 KB transferred, and nothing the browser complained about:
// a console error or warning (a CSP violation is one), an uncaught exception, a failed
// request, or a request to anywhere but peppolgate itself. The demo network is simulated
// and seeded (dates relative to today), so the values asserted are the demo's data; where a
// page shows many (the statistics, a search with pages), it is compared with the JSON API's
// answer from the same server instead.
//
// Adding a page: reach it in a flow (or write a flow()) and call s.land('<name>') there,
// then assert what the page must show.
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

// Demo data (netsim seed 1, dates relative to today), as the pages show it. Vandelanotte
// has two Directory matches (its 0208 and 9925 ids); Älvdal receives four document types
// cleanly; the two "failing" participants have their SMP on a host that answers nothing
// usable; the unknown id is well formed but nobody's.
const DEMO = {
  id: '0208:0677424046',
  name: 'Vandelanotte Installaties NV',
  country: 'Belgium (BE)',
  searchQuery: 'Vandelanotte',
  endpoint: 'https://ap2.factuurdiensten.example.be/as4',
  clean: { id: '0007:5852552339', name: 'Älvdal Konsult AB (publ)', country: 'Sweden (SE)' },
  failing: ['0208:1085544222', '0007:5583718357'],
  unknown: '0208:0000000097',
  question: 'Can Vandelanotte receive invoices?',
  // A name with more than 25 matches in several countries, so more than one page of
  // results and a country to filter by (the Directory mirror the server runs with finds
  // 119, five pages; the live demo Directory 32, two). The tests take the matches
  // from the JSON API of the same server and compare the pages with them.
  manyQuery: 'Logistics',
};

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

// Timeouts only catch a hang: the machines the tests run on are shared (two cores with a
// Go test suite beside them), where a flow of five pages has taken a minute per variant.
// A flow (each variant) may take FLOW_TIMEOUT_MS, one Playwright action or wait
// ACTION_TIMEOUT_MS (Playwright's own default is 30 s).
const FLOW_TIMEOUT_MS = 300_000;
const ACTION_TIMEOUT_MS = 120_000;

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
// of 400 and above to anything but a page itself (a page's own status is asserted where
// it lands), and requests to other origins (the pages load nothing from third parties).
// It also keeps the last page's answer and the sizes of what was transferred.
function watch(page) {
  const w = { problems: [], sizes: [], document: null };
  page.on('console', (m) => {
    if (m.type() !== 'error' && m.type() !== 'warning') return;
    // Chromium logs a page's own error status (a 404 or 502 page) as a failed load; the
    // status is asserted where the page lands.
    if (/^Failed to load resource: the server responded with a status of \d+/.test(m.text()) && m.location().url === w.document?.url()) return;
    w.problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => w.problems.push(`uncaught exception: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('data:') && new URL(r.url()).origin !== ORIGIN) w.problems.push(`request to another origin: ${r.url()}`);
  });
  page.on('requestfailed', (r) => w.problems.push(`request failed: ${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) {
      w.document = r;
    } else if (r.status() >= 400) {
      w.problems.push(`${r.status()} for ${r.url()}`);
    }
  });
  page.on('requestfinished', (r) => w.sizes.push(r.sizes()));
  return w;
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
  copy.setDefaultTimeout(ACTION_TIMEOUT_MS);
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

// A session is one browser context of a variant (JavaScript on or off, desktop or phone)
// with one page, its browser cache off so that every page's weight is that of a first
// visit. Its pages are reached the way a person reaches them (goto for the first, then
// typing and clicking), and each page reached is inspected with land().
async function session(variant) {
  const options = { ...VIEWPORTS[variant.viewport], locale: 'en-GB' };
  const context = await browser.newContext({ ...options, javaScriptEnabled: variant.js });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const w = watch(page);
  return {
    page,
    // goto opens BASE+path.
    async goto(path) {
      await page.goto(BASE + path, { waitUntil: 'load' });
    },
    // submit types text into the field labelled label and presses Enter, as a person
    // does (the form works with JavaScript off), and waits until the URL matches url.
    async submit(label, text, url) {
      const box = page.getByLabel(label, { exact: true });
      await box.fill(text);
      await Promise.all([page.waitForURL(url, { waitUntil: 'load' }), box.press('Enter')]);
    },
    // land inspects the page the session is on: it saves a full-page screenshot as
    // <name>-<viewport>[-nojs].png, asserts the page's status and type, that axe-core
    // finds no violations, that the page is no wider than a phone's screen, that it
    // weighs at most MAX_PAGE_BYTES (since the previous land) and that the browser
    // reported none of watch()'s problems. The screenshot comes first, so a failing page
    // leaves one too. It returns the bytes transferred.
    async land(name, { status = 200 } = {}) {
      const where = `${name} (${page.url().slice(BASE.length)}, ${label(variant)})`;
      await page.screenshot({ path: join(ARTIFACTS, `${name}-${variant.viewport}${variant.js ? '' : '-nojs'}.png`), fullPage: true });
      assert.ok(w.document, `${where}: no page answer seen`);
      assert.equal(w.document.status(), status, `${where}: status`);
      assert.match(w.document.headers()['content-type'] ?? '', /^text\/html/, `${where}: Content-Type`);
      const sizes = await Promise.all(w.sizes.splice(0));
      const bytes = sizes.reduce((n, s) => n + s.responseHeadersSize + s.responseBodySize, 0);
      assert.ok(bytes <= MAX_PAGE_BYTES, `${where} weighs ${bytes} bytes, more than ${MAX_PAGE_BYTES}`);
      const violations = variant.js ? await axeViolations(page) : await axeViolationsNoJS(page, options);
      assert.deepEqual(violations, [], `axe-core on ${where}`);
      if (variant.viewport === 'phone') {
        // Nothing wider than the phone: no sideways scrolling of the whole page. (innerWidth
        // would not do: a mobile browser zooms out to fit a wider page, and innerWidth grows.)
        const { scrollWidth, clientWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth,
        }));
        assert.ok(scrollWidth <= clientWidth, `${where} is ${scrollWidth} CSS pixels wide on a ${clientWidth} pixel wide phone`);
      }
      // Never blank: a heading and words under it.
      const main = (await page.locator('main').innerText()).trim();
      assert.ok(main.length > 40, `${where}: the page says almost nothing: ${JSON.stringify(main)}`);
      assert.doesNotMatch(main, /goroutine|panic|runtime error|stack trace/i, `${where}: a stack trace`);
      assert.deepEqual(w.problems.splice(0), [], `what the browser reported on ${where}`);
      // A land after a change within the page (the statistics' tables opened) loaded
      // nothing: it is no page to weigh.
      if (bytes > 0) weights.set(`${name}-${variant.viewport}${variant.js ? '' : '-nojs'}`, bytes);
      return bytes;
    },
    // passThrough forgets the bytes transferred since the previous land, for a page the
    // flow only passes through that another flow lands on, so that the next page's weight
    // is its own; what the browser reported stays, for the next land.
    passThrough() {
      w.sizes.splice(0);
    },
    async close() {
      await context.close();
    },
  };
}

// The bytes each page weighed, by screenshot name, reported after the tests.
const weights = new Map();

after(() => {
  const list = [...weights].sort((a, b) => b[1] - a[1]);
  if (list.length) console.log(`# page weights (bytes transferred, cache off): heaviest ${list[0][0]} ${list[0][1]}, lightest ${list.at(-1)[0]} ${list.at(-1)[1]}`);
});

// flow runs fn once per variant, concurrently, each in its own session.
function flow(title, fn) {
  describe(title, { concurrency: true, timeout: FLOW_TIMEOUT_MS }, () => {
    for (const variant of VARIANTS) {
      test(label(variant), { timeout: FLOW_TIMEOUT_MS }, async () => {
        const s = await session(variant);
        try {
          await fn(s, variant);
        } finally {
          await s.close();
        }
      });
    }
  });
}

// The labels of the boxes, as the pages write them.
const HOME_BOX = 'Company name, VAT or company number, participant id, or a question';
const TOP_BOX = 'Company name, number, participant id or question';
const ASK_BOX = 'Your question, in English, French, Dutch, German, Norwegian, Swedish, Spanish, Italian, Danish, Finnish or Polish';

// text is an element's text with its white space folded.
const text = async (locator) => (await locator.innerText()).replace(/\s+/g, ' ').trim();

// api returns the JSON answer of GET BASE+path, which must be a 200: the numbers and
// matches a page is compared with.
async function api(path) {
  const r = await fetch(BASE + path, { headers: { Accept: 'application/json' } });
  assert.equal(r.status, 200, `GET ${path}`);
  return r.json();
}

// grouped writes n as the pages do, its digits in groups of three, after text() has
// folded the narrow no-break space between them into a space: 2687 → "2 687".
const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

flow('search → participant → services', async (s) => {
  const { page } = s;
  await s.goto('/');
  assert.equal(await page.title(), 'Peppol participant lookup · peppolgate');
  await page.getByRole('heading', { level: 1, name: 'Can I send them an invoice over Peppol?' }).waitFor();
  // The network select is as wide as its names, not as the box, and sits in line with
  // the box and the button (issue 26).
  const form = await page.locator('main form.box').evaluate((f) => {
    const r = (sel) => f.querySelector(sel).getBoundingClientRect();
    return { box: r('#q'), select: r('#network'), button: r('button') };
  });
  assert.ok(form.select.width <= 160, `the network select is ${form.select.width} px wide`);
  if (form.select.top < form.box.bottom) {
    // On one line with the box: its bottom is the box's.
    assert.ok(Math.abs(form.select.bottom - form.box.bottom) <= 2, `the select's bottom ${form.select.bottom}, the box's ${form.box.bottom}`);
  }
  await s.land('home');

  // A name in the home box goes to the search (through /go, a 303).
  await s.submit(HOME_BOX, DEMO.searchQuery, `${BASE}/search?q=${DEMO.searchQuery}`);
  assert.equal(await page.title(), 'Search · peppolgate');
  await page.getByRole('heading', { level: 1, name: `Search: “${DEMO.searchQuery}”` }).waitFor();
  await page.getByRole('heading', { level: 2, name: '2 matches' }).waitFor();
  const hits = page.locator('ol.results > li');
  assert.deepEqual(
    await hits.evaluateAll((lis) => lis.map((li) => li.textContent.replace(/\s+/g, ' ').trim())),
    [`${DEMO.name} ${DEMO.id} · ${DEMO.country}`, `${DEMO.name} 9925:be0677424046 · ${DEMO.country}`],
  );
  assert.equal(await page.getByRole('link', { name: `/api/v1/search?q=${DEMO.searchQuery}` }).getAttribute('href'), `/api/v1/search?q=${DEMO.searchQuery}`);
  // The header's box shows its placeholder whole: written into the box, it needs no
  // scrolling (issue 26).
  const cut = await page.locator('#top-q').evaluate((box) => {
    const value = box.value;
    box.value = box.placeholder;
    const over = box.scrollWidth > box.clientWidth ? `${box.scrollWidth} > ${box.clientWidth}` : '';
    box.value = value;
    return over;
  });
  assert.equal(cut, '', "the header box's placeholder is cut");
  await s.land('search');

  // The participant, clicked in the results.
  await Promise.all([
    page.waitForURL(`${BASE}/participant/${DEMO.id}`, { waitUntil: 'load' }),
    hits.filter({ hasText: DEMO.id }).getByRole('link', { name: DEMO.name }).click(),
  ]);
  assert.equal(await page.title(), `${DEMO.name} · peppolgate`);
  await page.getByRole('heading', { level: 1, name: DEMO.name }).waitFor();
  assert.equal(await text(page.locator('main > p.id')), `${DEMO.id} · ${DEMO.country}`);
  // The verdict comes first, then the card, the SMP and the services.
  assert.deepEqual(await page.locator('main h2').allInnerTexts(), [
    'Can receive invoices and credit notes', 'Peppol Directory card', 'SMP', 'What it can receive',
  ]);
  assert.match(await page.locator('section.verdict').getAttribute('class'), /\bok\b/);
  const table = page.getByRole('table', { name: 'Document types its SMP lists, with the access point that receives each' });
  assert.deepEqual(await table.locator('thead th').allInnerTexts(), ['Document', 'Process', 'Endpoint', 'Transport', 'Certificate']);
  const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent.replace(/\s+/g, ' ').trim())));
  assert.equal(rows.length, 2);
  for (const [i, [doc, kind]] of [['Peppol BIS Billing UBL Invoice V3', 'Invoice'], ['Peppol BIS Billing UBL Credit Note V3', 'Credit Note']].entries()) {
    const [d, process, endpoint, transport, certificate] = rows[i];
    assert.equal(d, `${doc} (${kind})`);
    assert.equal(process, 'Peppol BIS Billing 3.0');
    assert.equal(endpoint, DEMO.endpoint);
    assert.equal(transport, 'Peppol AS4 profile 2.0');
    assert.match(certificate, /^valid, \d+ days left \(PEPPOL ACCESS POINT TEST CA - G3\)$/);
  }
  // The same answer for programs.
  assert.equal(await page.getByRole('link', { name: 'services' }).getAttribute('href'), `/api/v1/participant/${DEMO.id}/services`);
  await s.land('participant');
});

flow('a participant id in the box → a participant that receives cleanly', async (s) => {
  const { page } = s;
  await s.goto('/');
  await s.submit(HOME_BOX, DEMO.clean.id, `${BASE}/participant/${DEMO.clean.id}`);
  await page.getByRole('heading', { level: 1, name: DEMO.clean.name }).waitFor();
  assert.equal(await text(page.locator('main > p.id')), `${DEMO.clean.id} · ${DEMO.clean.country}`);
  assert.equal(
    await text(page.locator('section.verdict')),
    'Can receive invoices and credit notes It also receives: Despatch Advice, Invoice Response.',
  );
  // Nothing to warn about.
  assert.equal(await page.getByRole('heading', { name: 'What to know' }).count(), 0);
  const certs = await page.locator('table tbody tr td:last-child').allInnerTexts();
  assert.equal(certs.length, 4);
  for (const c of certs) assert.match(c, /^valid, \d+ days left/);
  await s.land('participant-clean');
  // And from there, the header's box: a name goes to the search.
  await s.submit(TOP_BOX, DEMO.searchQuery, `${BASE}/search?q=${DEMO.searchQuery}`);
  await page.getByRole('heading', { level: 2, name: '2 matches' }).waitFor();
});

flow('a question, streamed on the ask page', async (s, variant) => {
  const { page } = s;
  await s.goto('/');
  // A question in the home box goes to the ask page, answered on the server.
  await s.submit(HOME_BOX, DEMO.question, `${BASE}/ask?q=${encodeURIComponent(DEMO.question).replace(/%20/g, '+')}`);
  const answer = page.locator('#answer');
  await answer.getByRole('heading', { level: 2, name: 'Answer' }).waitFor();
  const rendered = await text(answer.locator('p').first());
  assert.match(rendered, /^2 Peppol Directory matches for “Vandelanotte”\. Yes: 0208:0677424046 and 9925:be0677424046 \(“Vandelanotte Installaties NV”, BE\) can receive invoices over Peppol/);
  const cards = async () => answer.locator('ul.cards > li').evaluateAll((lis) => lis.map((li) => li.innerText.replace(/\s+/g, ' ').trim()));
  const wantCards = [`${DEMO.name} ${DEMO.id} · ${DEMO.country} On Peppol`, `${DEMO.name} 9925:be0677424046 · ${DEMO.country} On Peppol`];
  assert.deepEqual(await cards(), wantCards);
  await s.land('ask');

  // Asked again on the ask page: with JavaScript the answer streams from POST /ask
  // (server-sent events) into the page, which stays; without, the form asks the server
  // for a page again.
  if (!variant.js) {
    await s.submit(ASK_BOX, DEMO.question, /\/ask\?q=/);
    assert.equal(await text(answer.locator('p').first()), rendered);
    assert.deepEqual(await cards(), wantCards);
    return;
  }
  // Every node the stream adds to the answer, in order, with its text when added (a text
  // node set through textContent is replaced, never changed, so the list is exact).
  await page.evaluate(() => {
    window.__added = [];
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) window.__added.push(`${n.nodeName}: ${n.textContent}`);
    }).observe(document.getElementById('answer'), { childList: true, subtree: true });
  });
  const box = page.getByLabel(ASK_BOX, { exact: true });
  await box.fill(DEMO.question);
  const [stream] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${BASE}/ask` && r.request().method() === 'POST'),
    box.press('Enter'),
  ]);
  assert.equal(stream.status(), 200);
  assert.match(stream.headers()['content-type'] ?? '', /^text\/event-stream/);
  await stream.finished();
  await answer.getByText(/^2 Peppol Directory matches/).waitFor();
  assert.equal(await text(answer.locator('p').first()), rendered, 'the streamed answer is the server-rendered one');
  assert.deepEqual(await cards(), wantCards, 'the streamed cards are the server-rendered ones');
  // It was built up: "Asking…", then the start event's "Looking it up…", then a card per
  // result event, then the complete event's answer.
  const added = await page.evaluate(() => window.__added);
  const at = (re) => added.findIndex((a) => re.test(a));
  const steps = [/^P: Asking…$/, /^#text: Looking it up…$/, /^LI: Vandelanotte Installaties NV 0208:0677424046/, /^LI: Vandelanotte Installaties NV 9925:be0677424046/, /^#text: 2 Peppol Directory matches/];
  const order = steps.map(at);
  assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), `the answer was not built in order from the stream: ${JSON.stringify(added)}`);
  assert.equal(page.url(), `${BASE}/ask?q=${encodeURIComponent(DEMO.question)}`, 'the address names the question');
  await s.land('ask-streamed');
});

flow('a question answered in part: what could not be checked is said, streamed or not', async (s, variant) => {
  const { page } = s;
  // One of the two is on the demo's failing SMP host.
  const question = 'Can these receive invoices: 0208:1085544222, 0208:0677424046?';
  const partial = 'Part of the answer could not be checked right now; please try again in a minute.';
  await s.goto(`/ask?q=${encodeURIComponent(question)}`);
  const answer = page.locator('#answer');
  await answer.getByText(/^1 of 2 can receive invoices over Peppol\./).waitFor();
  assert.equal(await answer.getByText(partial, { exact: true }).count(), 1, 'the server-rendered answer says what could not be checked');
  await s.land('ask-partial');
  if (!variant.js) return;
  const box = page.getByLabel(ASK_BOX, { exact: true });
  await box.fill(question);
  const [stream] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${BASE}/ask` && r.request().method() === 'POST'),
    box.press('Enter'),
  ]);
  await stream.finished();
  await answer.getByText(/^1 of 2 can receive invoices over Peppol\./).waitFor();
  assert.equal(await answer.getByText(partial, { exact: true }).count(), 1, 'the streamed answer says what could not be checked');
  await s.land('ask-partial-streamed');
});

flow('a failing upstream: a clear page with retry advice', async (s) => {
  const { page } = s;
  await s.goto('/');
  // Through the box as a person would, then the other one directly.
  await s.submit(HOME_BOX, DEMO.failing[0], `${BASE}/participant/${DEMO.failing[0]}`);
  for (const [i, id] of DEMO.failing.entries()) {
    if (i > 0) await s.goto(`/participant/${id}`);
    assert.equal(await page.title(), 'Could not be checked right now · peppolgate');
    await page.getByRole('heading', { level: 1, name: 'Could not be checked right now' }).waitFor();
    const main = await text(page.locator('main'));
    assert.match(main, new RegExp(`could not be queried for ${id}`));
    assert.match(main, /What to do: The Peppol network did not answer in time or failed\. This is usually temporary: reload the page in a minute\./);
    assert.match(main, /Error code lookup_failed, HTTP status 502/);
    assert.equal(await page.getByRole('link', { name: 'Back to the start page' }).getAttribute('href'), '/');
    await s.land(i === 0 ? 'upstream-failure' : 'upstream-failure-2', { status: 502 });
  }
});

flow('a participant nobody knows: Not on Peppol', async (s) => {
  const { page } = s;
  await s.goto(`/participant/${DEMO.unknown}`);
  await page.getByRole('heading', { level: 1, name: `Participant ${DEMO.unknown}` }).waitFor();
  assert.match(await text(page.locator('section.verdict')), /^Not on Peppol The Peppol network does not know 0208:0000000097/);
  await s.land('not-on-peppol', { status: 404 });
});

flow('a mistyped address: a page with a link to the one meant; the ask page speaks the answer\'s language', async (s) => {
  const { page } = s;
  await s.goto(`/participants/${DEMO.id}`);
  await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
  assert.match(await text(page.locator('main')), /There is no page at ["“]\/participants\/0208:0677424046["”]\./);
  const meant = page.getByRole('link', { name: `the page of ${DEMO.id}` });
  assert.equal(await meant.getAttribute('href'), `/participant/${DEMO.id}`);
  await s.land('not-found', { status: 404 });
  await Promise.all([page.waitForURL(`${BASE}/participant/${DEMO.id}`, { waitUntil: 'load' }), meant.click()]);
  s.passThrough();

  // A question in French is answered in French on a page that says so.
  await s.goto(`/ask?q=${encodeURIComponent(`qui est ${DEMO.id} ?`)}`);
  await page.locator('#answer').getByRole('heading', { level: 2, name: 'Answer' }).waitFor();
  assert.equal(await page.locator('html').getAttribute('lang'), 'fr');
  assert.equal(await page.locator('header.site').getAttribute('lang'), 'en');
  await s.land('ask-fr');
});

// The search page shows this many matches a page: one page of the API's answer.
const PER_PAGE = 25;

// searchRows returns the rows of the search page's results as the tests compare them:
// the name, the id, the country code the row ends with ("· Australia (AU)"), and
// whether it is marked an approximate match.
const searchRows = (page) =>
  page.locator('ol.results > li').evaluateAll((lis) =>
    lis.map((li) => {
      const t = li.textContent.replace(/\s+/g, ' ').trim();
      return {
        name: li.querySelector('a').textContent,
        id: li.querySelector('.id').textContent,
        country: / · [^·]* \(([A-Z]{2})\)(?: approximate match)?$/.exec(t)?.[1] ?? null,
        approximate: li.querySelector('.tag')?.textContent === 'approximate match',
      };
    }),
  );

// checkSearchPage asserts that the search page shows the API's answer for page number
// (totalCount, results) of q and country: the summary with the total, the rows of that
// page in the API's order, numbered from where the page starts, the pager ("Previous
// page", the numbers with the page current, "Next page") with links that keep q and
// country, the hint when the Directory has more than it serves (1000), and the refine
// form holding q and country. A row is an approximate
// match when its name lacks the one-word q (web/search.go's rule).
async function checkSearchPage(page, { q, country = '', answer, number }) {
  const { totalCount, results } = answer;
  const where = `search page ${number} of "${q}"${country ? ` in ${country}` : ''}`;
  const summary = results.length === 0 ? 'No matches' : totalCount === 1 ? '1 match' : `${totalCount} matches`;
  await page.getByRole('heading', { level: 2, name: summary, exact: true }).waitFor();
  const want = results.map((h) => ({
    name: h.name || '(no name on its card)',
    id: h.participantId,
    country: h.countryCode ?? null,
    approximate: !(h.name ?? '').toLowerCase().includes(q.toLowerCase()),
  }));
  assert.deepEqual(await searchRows(page), want, `${where}: the rows`);
  assert.equal(await page.locator('ol.results').getAttribute('start'), String((number - 1) * PER_PAGE + 1), `${where}: the first row's number`);
  const pages = Math.min(40, Math.ceil(totalCount / PER_PAGE));
  assert.ok(pages <= 9, `${where}: ${pages} pages, more than the pager numbers one by one`);
  const pager = page.getByRole('navigation', { name: 'Result pages' });
  if (pages > 1) {
    const items = await pager.locator('li').evaluateAll((lis) =>
      lis.map((li) => ({ text: li.textContent.trim(), current: li.querySelector('[aria-current="page"]') !== null, href: li.querySelector('a')?.getAttribute('href') ?? null })),
    );
    // [label, page the link goes to, current]
    const expected = [
      ...(number > 1 ? [['Previous page', number - 1, false]] : []),
      ...Array.from({ length: pages }, (_, i) => [`Page ${i + 1}`, i + 1, i + 1 === number]),
      ...(number < pages ? [['Next page', number + 1, false]] : []),
    ];
    assert.deepEqual(items.map((i) => i.text), expected.map((e) => e[0]), `${where}: the pager`);
    assert.deepEqual(items.map((i) => i.current), expected.map((e) => e[2]), `${where}: the current page`);
    for (const [i, item] of items.entries()) {
      if (item.current) continue;
      const u = new URL(item.href, BASE);
      const to = expected[i][1];
      assert.deepEqual([u.pathname, u.searchParams.get('q'), u.searchParams.get('country') ?? '', u.searchParams.get('page')], ['/search', q, country, to === 1 ? null : String(to)], `${where}: the link "${item.text}"`);
    }
  } else {
    assert.equal(await pager.count(), 0, `${where}: a pager for one page`);
  }
  const hint = page.locator('main p.hint');
  if (totalCount > 1000) {
    assert.match(await text(hint), new RegExp(`^The Directory knows ${totalCount} matches and serves the first 1000\\. `), `${where}: the hint`);
  } else {
    assert.equal(await hint.count(), 0, `${where}: a hint with all matches shown`);
  }
  // Where the matches come from: the mirror says so and as of when.
  const source = page.locator('main p.source');
  if (answer.source === 'mirror') {
    assert.equal(await text(source), `From peppolgate's copy of the Peppol Directory, as the Directory exported it on ${answer.dataAsOf.slice(0, 10)}: companies that joined since are not in it yet.`, `${where}: the source`);
  } else {
    assert.equal(await source.count(), 0, `${where}: a source note for the live Directory`);
  }
  assert.equal(await page.getByLabel('Company name or number', { exact: true }).inputValue(), q, `${where}: the search box`);
  assert.equal(await page.getByLabel('Country', { exact: true }).inputValue(), country, `${where}: the country filter`);
  const u = new URL(page.url());
  assert.deepEqual([u.searchParams.get('q'), u.searchParams.get('country') ?? '', u.searchParams.get('page') ?? '1'], [q, country, String(number)], `${where}: the address`);
}

flow('search: paging through many matches, then a country filter', async (s) => {
  const { page } = s;
  const q = DEMO.manyQuery;
  const all = await api(`/api/v1/search?q=${q}`);
  assert.ok(all.totalCount > PER_PAGE, `"${q}" has ${all.totalCount} matches on the demo: too few for a second page`);
  await s.goto('/');
  await s.submit(HOME_BOX, q, `${BASE}/search?q=${q}`);
  await checkSearchPage(page, { q, answer: all, number: 1 });
  const first = (await searchRows(page)).map((r) => r.id);
  await s.land('search-many');

  // Page 2, through the pager's "Next page" (a plain link): the API's page 2, the same total.
  const pager = page.getByRole('navigation', { name: 'Result pages' });
  await Promise.all([
    page.waitForURL((u) => u.searchParams.get('page') === '2', { waitUntil: 'load' }),
    pager.getByRole('link', { name: 'Next page', exact: true }).click(),
  ]);
  const all2 = await api(`/api/v1/search?q=${q}&page=2`);
  assert.equal(all2.totalCount, all.totalCount, 'page 2 of the API: another total');
  await checkSearchPage(page, { q, answer: all2, number: 2 });
  const second = (await searchRows(page)).map((r) => r.id);
  assert.deepEqual(second.filter((id) => first.includes(id)), [], 'page 2 repeats matches of page 1');
  await s.land('search-page-2');

  // A country, picked in the refine form and submitted (the form is a plain GET, with
  // JavaScript or without): the country most frequent among the matches, so more than
  // one. Every row is from it, and the address carries it; from page 2 the form starts
  // again at page 1.
  const counts = new Map();
  for (const h of all.results) if (h.countryCode) counts.set(h.countryCode, (counts.get(h.countryCode) ?? 0) + 1);
  const country = [...counts].sort((a, b) => b[1] - a[1])[0][0];
  const inCountry = await api(`/api/v1/search?q=${q}&country=${country}`);
  assert.ok(inCountry.results.length > 1, `"${q}" in ${country}: ${inCountry.results.length} matches`);
  await page.getByLabel('Country', { exact: true }).selectOption(country);
  await Promise.all([
    page.waitForURL((u) => u.searchParams.get('country') === country, { waitUntil: 'load' }),
    page.getByRole('form', { name: 'Refine the search' }).getByRole('button', { name: 'Search', exact: true }).click(),
  ]);
  await checkSearchPage(page, { q, country, answer: inCountry, number: 1 });
  const rows = await searchRows(page);
  assert.deepEqual(rows.filter((r) => r.country !== country), [], `rows not from ${country}`);
  await s.land('search-country');

  // And its page 2, when it has one: the pager keeps the country.
  if (inCountry.totalCount > PER_PAGE) {
    await Promise.all([
      page.waitForURL((u) => u.searchParams.get('page') === '2', { waitUntil: 'load' }),
      pager.getByRole('link', { name: 'Page 2', exact: true }).click(),
    ]);
    await checkSearchPage(page, { q, country, answer: await api(`/api/v1/search?q=${q}&country=${country}&page=2`), number: 2 });
    assert.deepEqual((await searchRows(page)).filter((r) => r.country !== country), [], `rows not from ${country} on page 2`);
    await s.land('search-country-page-2');
  }
});

// chartOf returns what an SVG chart draws: its bars' count and widths and heights, the
// texts it writes (labels at the start of a row or on the axis, by text-anchor="end",
// and the others), and the titles of its bars, white space folded.
const chartOf = (svg) =>
  svg.evaluate((el) => {
    const fold = (t) => t.replace(/\s+/g, ' ').trim();
    const texts = [...el.querySelectorAll(':scope > text')];
    return {
      tag: el.tagName,
      bars: [...el.querySelectorAll('rect')].map((r) => ({ width: Number(r.getAttribute('width')), height: Number(r.getAttribute('height')), title: fold(r.querySelector('title')?.textContent ?? '') })),
      endTexts: texts.filter((t) => t.getAttribute('text-anchor') === 'end').map((t) => fold(t.textContent)),
      // Texts drawn past the chart's left or right edge (cut off on the screen).
      clipped: texts.filter((t) => { const b = t.getBBox(); return b.x < 0 || b.x + b.width > el.viewBox.baseVal.width; }).map((t) => fold(t.textContent)),
      otherTexts: texts.filter((t) => t.getAttribute('text-anchor') !== 'end').map((t) => fold(t.textContent)),
      // The smallest text as shown, in CSS pixels: its font size scaled as the chart is.
      smallestText: Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)),
    };
  });

// countryLabel is how the statistics page names a country, "Belgium (BE)", as a
// pattern: the name is peppolgate's own (the bare code for a country it has no name for).
const countryLabel = (code) => new RegExp(`^(?:[A-Z][A-Za-z .'-]+ \\(${code}\\)|${code})$`);

// labelsMatch reports whether every label is its wanted one: equal to a string, or
// matching a pattern.
const labelsMatch = (labels, want) => labels.length === want.length && labels.every((l, i) => (want[i] instanceof RegExp ? want[i].test(l) : l === want[i]));

// tableOf returns a statistics table's rows as [label, count], white space folded.
const tableOf = (table) =>
  table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.replace(/\s+/g, ' ').trim())));

flow('network statistics: the header link, the charts and the tables; a network without', async (s) => {
  const { page } = s;
  const st = await api('/api/v1/stats');
  assert.equal(st.network, 'demo');
  // The header links to the statistics page when the network has a mirror.
  await s.goto('/');
  s.passThrough();
  await Promise.all([
    page.waitForURL(`${BASE}/stats`, { waitUntil: 'load' }),
    page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Network statistics', exact: true }).click(),
  ]);
  assert.equal(await page.title(), 'Network statistics · peppolgate');
  await page.getByRole('heading', { level: 1, name: 'Network statistics' }).waitFor();
  const lastYear = st.registrations.slice(-12).reduce((n, m) => n + m.count, 0);
  assert.equal(
    await text(page.locator('main > p').first()),
    `${grouped(st.participants)} participants have a business card in the Peppol Directory of the demo network, as of its export of ${st.dataAsOf.slice(0, 10)}. ` +
      `${grouped(lastYear)} registered in the last 12 months. Participants without a business card are not counted.`,
  );
  assert.deepEqual(await page.locator('main h2').allInnerTexts(), ['By country', 'By kind of document', 'Registrations over time']);
  // Three charts, each an image named by its title; no other images.
  assert.equal(await page.locator('main').getByRole('img').count(), 3);

  // By country and by kind: a bar per row, labelled, with its count after it, longer
  // for more; the same numbers in the table under the chart.
  const countries = [
    ...st.countries.map((c) => [countryLabel(c.country), c.count]),
    ...(st.otherCountries > 0 ? [['Other countries', st.otherCountries]] : []),
    ...(st.withoutCountry > 0 ? [['No country', st.withoutCountry]] : []),
  ];
  const kinds = [...st.documentKinds.map((k) => [k.kind, k.count]), ...(st.withoutDocumentTypes > 0 ? [['None listed', st.withoutDocumentTypes]] : [])];
  assert.ok(countries.length > 1 && kinds.length > 1, 'the demo has participants in several countries and kinds');
  for (const [section, title, want] of [
    ['By country', 'Participants by country, most first', countries],
    ['By kind of document', 'Participants accepting each kind of document, most first', kinds],
  ]) {
    const region = page.getByRole('region', { name: section });
    const chart = await chartOf(region.getByRole('img', { name: title, exact: true }));
    assert.equal(chart.tag.toLowerCase(), 'svg', `${section}: the chart`);
    assert.ok(chart.smallestText >= 11, `${section}: text of ${chart.smallestText} px`);
    assert.ok(labelsMatch(chart.endTexts, want.map(([label]) => label)), `${section}: the chart's labels ${JSON.stringify(chart.endTexts)}`);
    assert.deepEqual(chart.clipped, [], `${section}: texts cut off at the chart's edges`);
    assert.deepEqual(chart.otherTexts, want.map(([, n]) => grouped(n)), `${section}: the chart's counts`);
    assert.equal(chart.bars.length, want.length, `${section}: the bars`);
    for (let i = 1; i < want.length; i++) {
      if (want[i - 1][1] > want[i][1]) assert.ok(chart.bars[i - 1].width >= chart.bars[i].width, `${section}: bar ${i} is longer than the one above it for fewer`);
    }
    const table = await tableOf(region.locator('table'));
    assert.ok(labelsMatch(table.map(([label]) => label), want.map(([label]) => label)), `${section}: the table's labels ${JSON.stringify(table)}`);
    assert.deepEqual(table.map(([, n]) => n), want.map(([, n]) => grouped(n)), `${section}: the table's counts`);
  }

  // Registrations over time: a column per month with a registration, titled with the
  // month and its count; every other January's year below the axis (a year's label, at
  // a size readable on a phone, is as wide as its columns), but for one that would run
  // off the right edge; the largest count and 0 on the left. The table lists the months
  // newest first, from the first registration.
  const months = st.registrations;
  const region = page.getByRole('region', { name: 'Registrations over time' });
  const chart = await chartOf(region.getByRole('img', { name: `Participants registered each month, ${months[0].month} to ${months.at(-1).month}`, exact: true }));
  assert.equal(chart.tag.toLowerCase(), 'svg');
  assert.ok(chart.smallestText >= 11, `registrations: text of ${chart.smallestText} px`);
  assert.deepEqual(chart.clipped, [], 'registrations: texts cut off at the chart\'s edges');
  assert.deepEqual(chart.bars.map((b) => b.title), months.filter((m) => m.count > 0).map((m) => `${m.month}: ${grouped(m.count)}`));
  const januaries = months.filter((m) => m.month.endsWith('-01')).map((m) => m.month.slice(0, 4));
  const everyOther = januaries.filter((_, i) => i % 2 === 0);
  const lastCut = months.at(-1).month.endsWith('-01') && everyOther.at(-1) === januaries.at(-1);
  assert.deepEqual(chart.otherTexts, lastCut ? everyOther.slice(0, -1) : everyOther);
  assert.deepEqual(chart.endTexts, [grouped(Math.max(...months.map((m) => m.count))), '0']);
  assert.match(await text(region.locator('p.hint')), new RegExp(`: ${grouped(st.withoutRegistrationDate)} cards give none, ${grouped(st.registeredEarlier)} registered earlier than the chart shows\\.$`));
  const firstRegistration = months.findIndex((m) => m.count > 0);
  assert.deepEqual(await tableOf(region.locator('table')), months.slice(firstRegistration).reverse().map((m) => [m.month, grouped(m.count)]));
  assert.equal(await page.getByRole('link', { name: '/api/v1/stats', exact: true }).getAttribute('href'), '/api/v1/stats');
  await s.land('stats');

  // The tables are folded away under the charts; each opens (a <details>, with
  // JavaScript or without) and is then inspected as a page of its own.
  for (const summary of ['The numbers by country', 'The numbers by kind of document', 'The numbers by month']) {
    const details = page.locator('details').filter({ has: page.getByText(summary, { exact: true }) });
    assert.equal(await details.locator('table').isVisible(), false, `${summary}: shown before it is opened`);
    await details.locator('summary').click();
    await details.getByRole('table').waitFor({ state: 'visible' });
  }
  await s.land('stats-tables');

  // A network without a mirror (the demo's test network): a page that says so, not a
  // blank one.
  await s.goto('/stats?network=test');
  assert.equal(await page.title(), 'Network statistics are not available here · peppolgate');
  await page.getByRole('heading', { level: 1, name: 'Network statistics are not available here' }).waitFor();
  const main = await text(page.locator('main'));
  assert.match(main, /What to do: They are counted from peppolgate's copy of the Peppol Directory \(a mirror\), which this server or this network does not have or has not loaded yet\. Search and lookups still work\./);
  assert.match(main, /Error code statistics_unavailable, HTTP status 503/);
  assert.equal(await page.getByRole('link', { name: 'Back to the start page' }).getAttribute('href'), '/');
  await s.land('stats-unavailable', { status: 503 });
});
