// The demo page in a real browser: Debian's chromium (headless, driven by
// playwright-core) loads the built page from a node static server; clashd
// runs on another port with --cors-origin set to the page's origin.  The test
// drags parts, asks clashd itself the same questions with the shapes
// inline, and compares.  Environment: CLASHD (the binary), WEB_DIST (the
// built page, default build/web), SCREENSHOT (default build/web-demo.png),
// CHROMIUM (default: where Debian's chromium package puts it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startClashd } from '../../clients/js/test/server.js';
import { serveStatic } from '../serve.mjs';
import { PARTS, CLEARANCE } from '../src/assembly.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.WEB_DIST ?? path.resolve(here, '../../build/web');
const SCREENSHOT = process.env.SCREENSHOT ?? path.resolve(here, '../../build/web-demo.png');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

let web, server, browser, page;
const uploads = []; // POST /v1/shapes as the page sent them
const apiCalls = []; // every request to clashd
const pageErrors = [];
const misses = []; // clashd's answers >= 400: only the first scene's unknown-shape

before(async () => {
  web = await serveStatic(DIST);
  server = await startClashd(['--cors-origin', web.origin]);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // WebGL without a GPU: SwiftShader, which Debian's chromium ships.
    // As root, chromium refuses to start with its sandbox.
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-dev-shm-usage',
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // (chromium logs every 4xx as a console error: those are counted below)
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text()); });
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (u.origin === server.url && r.status() >= 400) misses.push(`${r.request().method()} ${u.pathname} ${r.status()}`);
    if (u.origin === web.origin && r.status() !== 200) pageErrors.push(`${u.pathname}: ${r.status()}`);
  });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.origin !== server.url) return;
    apiCalls.push(`${r.method()} ${u.pathname}`);
    if (r.method() === 'POST' && u.pathname === '/v1/shapes') uploads.push(r.postData());
  });
  await page.goto(`${web.url}?clashd=${encodeURIComponent(server.url)}`);
  await page.waitForFunction(() => window.clashdDemo?.ready === true || !!window.clashdDemo?.shown()?.error, null, { timeout: 15000 });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await web?.close();
});

const geometry = Object.fromEntries(PARTS.map((p) => [p.id, p.shape]));

/** The page's question, asked by the test with every shape inline. */
async function serverAnswer(poses, selected) {
  const post = async (route, body) => {
    const r = await fetch(server.url + route, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(r.status, 200, `${route}: ${await r.clone().text()}`);
    return r.json();
  };
  const others = PARTS.filter((p) => p.id !== selected);
  const query = await post('/v1/query', {
    a: { ...geometry[selected], pose: poses[selected] },
    b: { parts: others.map((p) => ({ ...geometry[p.id], pose: poses[p.id] })) },
  });
  const scene = await post('/v1/scene', {
    objects: PARTS.map((p) => ({ id: p.id, shape: { ...geometry[p.id], pose: poses[p.id] } })),
    clearance: CLEARANCE,
  });
  return { query, scene };
}

/** What the panel shows, and the poses it was computed for. */
async function panel() {
  await page.evaluate(() => window.clashdDemo.idle());
  return page.evaluate(() => {
    const s = window.clashdDemo.shown();
    const d = document.getElementById('distance');
    return {
      ...s,
      current: Object.fromEntries(window.clashdDemo.parts.map((id) => [id, window.clashdDemo.pose(id)])),
      text: d.textContent,
      value: Number(d.dataset.distance),
      list: [...document.querySelectorAll('#clashes li')].map((li) => ({ a: li.dataset.a, b: li.dataset.b, class: li.dataset.class, text: li.textContent })),
      colors: Object.fromEntries(window.clashdDemo.parts.map((id) => [id, window.clashdDemo.color(id)])),
    };
  });
}

/** The panel agrees with clashd's own answer for the poses it shows. */
async function assertShownMatchesServer(shown) {
  assert.equal(shown.error, undefined);
  assert.deepEqual(shown.poses, shown.current, 'the panel shows the current poses');
  const truth = await serverAnswer(shown.poses, shown.selected);
  // Stored shapes may pick another of equally extreme vertices (docs/shapes.md):
  // the same distance up to rounding, and the same shown digits.
  assert.ok(Math.abs(shown.value - truth.query.distance) <= 1e-9, `shown ${shown.value}, clashd ${truth.query.distance}`);
  assert.equal(shown.text, truth.query.distance.toFixed(4));
  assert.deepEqual(shown.list.map((c) => [c.a, c.b, c.class]), truth.scene.clashes.map((c) => [c.a, c.b, c.class]));
  return truth;
}

test('the page loads, uploads every part once and shows the first answer', async () => {
  assert.deepEqual(pageErrors, []);
  const shown = await panel();
  assert.equal(shown.selected, 'bolt');
  const truth = await assertShownMatchesServer(shown);
  assert.ok(truth.query.distance > 0);
  assert.deepEqual(shown.list, [], 'nothing clashes at the start');
  assert.equal(uploads.length, PARTS.length, apiCalls.join(', '));
  // The first request named every part by ref: one unknown-shape miss, the
  // uploads, the same request again.
  assert.deepEqual(misses, ['POST /v1/scene 422']);
});

test('a drag with the mouse moves the bolt, and the distance follows', async () => {
  const before0 = await panel();
  const p = await page.evaluate(() => window.clashdDemo.screenPoint('bolt'));
  // The bolt's origin is its lower end's centre: press a little above, on it.
  await page.mouse.move(p.x, p.y - 15);
  await page.mouse.down();
  await page.mouse.move(p.x - 220, p.y - 15, { steps: 20 });
  await page.mouse.up();
  const shown = await panel();
  assert.equal(shown.selected, 'bolt');
  assert.notDeepEqual(shown.poses.bolt.translation, before0.poses.bolt.translation, 'the bolt moved');
  assert.equal(shown.poses.bolt.translation[1], before0.poses.bolt.translation[1], 'on the horizontal plane');
  await assertShownMatchesServer(shown);
});

test('the bolt through the bracket clashes: both red and listed', async () => {
  // The upright of the bracket spans x -2.6..-2.3, z -1.6..-0.1.
  await page.evaluate(() => window.clashdDemo.moveTo('bolt', [-2.45, 0.9, -0.8]));
  const shown = await panel();
  const truth = await assertShownMatchesServer(shown);
  assert.equal(shown.value, 0);
  assert.match(shown.text, /^0\.0000$/);
  const pair = shown.list.find((c) => c.a === 'bracket' && c.b === 'bolt');
  assert.ok(pair, JSON.stringify(shown.list));
  assert.equal(pair.class, 'clash');
  assert.equal(truth.scene.counts.clash, 1);
  assert.equal(shown.colors.bolt, '#e53935');
  assert.equal(shown.colors.bracket, '#e53935');
  assert.notEqual(shown.colors.plate, '#e53935');
  await page.screenshot({ path: SCREENSHOT });
});

test('many drags send poses only: each shape went up once', async () => {
  const t0 = performance.now();
  for (let i = 0; i < 30; i++) {
    const x = -2 + (i % 10) * 0.45;
    await page.evaluate(([id, pos]) => window.clashdDemo.moveTo(id, pos), [i % 2 ? 'knob' : 'nut', [x, i % 2 ? 1.6 : 0.25, 0.5 - (i % 3) * 0.4]]);
  }
  const ms = (performance.now() - t0) / 30;
  const shown = await panel();
  await assertShownMatchesServer(shown);
  assert.equal(uploads.length, PARTS.length, `uploads: ${uploads.length}`);
  assert.equal(new Set(uploads).size, PARTS.length, 'no shape twice');
  assert.deepEqual(misses, ['POST /v1/scene 422'], 'no miss after the first');
  const posts = apiCalls.filter((c) => c.startsWith('POST /v1/query') || c.startsWith('POST /v1/scene'));
  console.log(`web-test: ${apiCalls.length} requests to clashd (${uploads.length} uploads, ${posts.length} queries and scenes); ` +
    `a move answered in ${ms.toFixed(1)} ms on average`);
  assert.deepEqual(pageErrors, []);
});
