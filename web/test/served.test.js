// The demo page as clashd itself serves it (--web): no other
// server, no CORS.  clashd reads build/web at start-up; the browser opens
// clashd's / (a 308 to /web/), the page talks to its own origin, and its
// first answer is the one clashd gives the same question.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './browser.js';
import { startClashd } from '../../clients/js/test/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.WEB_DIST ?? path.resolve(here, '../../build/web');

let server, browser, page;
const errors = [];
const origins = new Set();

before(async () => {
  server = await startClashd(['--web', DIST]);
  browser = await launchChromium({ webgl: true });
  page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => origins.add(new URL(r.url()).origin));
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('clashd serves the page at /web/ and the page asks clashd', async () => {
  const response = await page.goto(`${server.url}/`);
  assert.equal(new URL(page.url()).pathname, '/web/');
  assert.equal(response.status(), 200);
  await page.waitForFunction(() => window.clashdDemo?.ready === true || !!window.clashdDemo?.shown()?.error, null, { timeout: 20000 });
  const shown = await page.evaluate(() => window.clashdDemo.shown());
  assert.equal(shown.error, undefined, `the page shows an error: ${shown.error}`);
  assert.ok(Number.isFinite(shown.query.distance) && shown.query.distance >= 0, 'a distance is shown');
  // The core in the page: its wasm is /web/gen/clashd-core.wasm, from
  // clashd too, and it answers as clashd does.
  await page.evaluate(() => window.clashdDemo.setLocal(true));
  await page.evaluate(() => window.clashdDemo.idle());
  const local = await page.evaluate(() => window.clashdDemo.shown());
  assert.equal(local.error, undefined, `in the page: ${local.error}`);
  assert.equal(local.page.answer.distance, local.server.answer.distance);
  assert.deepEqual([...origins], [server.url], 'every request went to clashd itself');
  assert.deepEqual(errors, []);
});
