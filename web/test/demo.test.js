// The demo page in a real browser: Debian's chromium (headless, driven by
// playwright-core) loads the built page from a node static server; clashd
// runs on another port with --cors-origin set to the page's origin.  The test
// drags parts with TransformControls, asks clashd itself the same questions
// with the shapes inline (built in node from the same assembly by the same
// three.js helpers), and compares, a move's time of impact too.
// Environment: CLASHD (the binary), WEB_DIST (the built page, default
// build/web), SCREENSHOT (default build/web-demo.png),
// CHROMIUM (default: where Debian's chromium package puts it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startClashd } from '../../clients/js/test/server.js';
import { serveStatic } from '../serve.mjs';
import * as THREE from 'three';
import { makeParts, CLEARANCE, HOLE } from '../src/assembly.js';
import { geometryShape } from '../../clients/js/three.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.WEB_DIST ?? path.resolve(here, '../../build/web');
const SCREENSHOT = process.env.SCREENSHOT ?? path.resolve(here, '../../build/web-demo.png');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

let web, server, browser, page;
const uploads = []; // POST /v1/shapes the server took (2xx), as the page sent them
const bodies = []; // every POST body to clashd
const apiCalls = []; // every request to clashd
const pageErrors = [];
const misses = []; // clashd's answers >= 400: the first scene's unknown-shape
let loaded = 0; // misses.length once the page was ready

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
    if (u.origin === server.url && r.request().method() === 'POST' && u.pathname === '/v1/shapes' && r.status() < 300)
      uploads.push(r.request().postData());
    if (u.origin === web.origin && r.status() !== 200) pageErrors.push(`${u.pathname}: ${r.status()}`);
  });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.origin !== server.url) return;
    apiCalls.push(`${r.method()} ${u.pathname}`);
    if (r.method() === 'POST') bodies.push(r.postData());
  });
  await page.goto(`${web.url}?clashd=${encodeURIComponent(server.url)}`);
  await page.waitForFunction(() => window.clashdDemo?.ready === true || !!window.clashdDemo?.shown()?.error, null, { timeout: 20000 });
  loaded = misses.length;
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await web?.close();
});

// The parts as node builds them: the same geometries, hence the same shapes.
const PARTS = makeParts();
const geometryOf = Object.fromEntries(PARTS.map((p) => [p.id, p.geometry]));

/**
 * The page's question, asked by the test with every shape inline, in the
 * forms the page used; with `from`, the motion of the selected part from
 * that pose to its pose in `poses` too.
 */
async function serverAnswer(poses, selected, forms, from) {
  const post = async (route, body) => {
    const r = await fetch(server.url + route, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(r.status, 200, `${route}: ${await r.clone().text()}`);
    return r.json();
  };
  const shape = (id) => ({ ...geometryShape(geometryOf[id], forms[id]), pose: poses[id] });
  const others = PARTS.filter((p) => p.id !== selected);
  const query = await post('/v1/query', { a: shape(selected), b: { parts: others.map((p) => shape(p.id)) } });
  const scene = await post('/v1/scene', { objects: PARTS.map((p) => ({ id: p.id, shape: shape(p.id) })), clearance: CLEARANCE });
  const motion = from && await post('/v1/query', {
    a: { ...shape(selected), pose: from, pose_end: poses[selected] }, b: { parts: others.map((p) => shape(p.id)) },
  });
  return { query, scene, motion };
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
      forms: window.clashdDemo.forms(),
      toi: document.getElementById('toi').textContent,
      status: document.getElementById('status').textContent,
      note: document.getElementById('distance-note').textContent,
      drawn: { ...document.getElementById('answer').dataset },
    };
  });
}

/** The panel agrees with clashd's own answer for the poses it shows. */
async function assertShownMatchesServer(shown) {
  assert.equal(shown.error, undefined);
  assert.deepEqual(shown.poses, shown.current, 'the panel shows the current poses');
  const truth = await serverAnswer(shown.poses, shown.selected, shown.forms);
  assert.ok(truth.query.distance >= 0, `clashd's distance ${truth.query.distance}`);
  // Stored shapes may pick another of equally extreme vertices (docs/shapes.md):
  // the same distance up to rounding, and the same shown digits.
  assert.ok(Math.abs(shown.value - truth.query.distance) <= 1e-9, `shown ${shown.value}, clashd ${truth.query.distance}`);
  assert.equal(shown.text, truth.query.distance.toFixed(4));
  assert.deepEqual(shown.list.map((c) => [c.a, c.b, c.class]), truth.scene.clashes.map((c) => [c.a, c.b, c.class]));
  // the separating plane when apart, the arrow when overlapping with a direction
  assert.equal(shown.drawn.plane, String(!truth.query.intersecting && !!truth.query.separating_plane));
  assert.equal(shown.drawn.arrow, String(truth.query.intersecting && !!truth.query.penetration?.normal));
  // a mesh answer's `intersection`, in the note too
  assert.equal(shown.drawn.intersection, truth.query.intersection ?? '');
  return truth;
}


const byRef = (forms) => Object.values(forms).filter((f) => f.as !== 'primitive').length;
let uploadsAtLoad = 0;

test('the page loads, uploads every part by ref once and shows the first answer', async () => {
  assert.deepEqual(pageErrors, []);
  const shown = await panel();
  assert.equal(shown.selected, 'bolt');
  const truth = await assertShownMatchesServer(shown);
  assert.ok(truth.query.distance > 0);
  assert.deepEqual(shown.list, [], 'nothing clashes at the start');
  assert.equal(uploads.length, byRef(shown.forms), apiCalls.join(', '));
  assert.equal(new Set(uploads).size, uploads.length, 'no shape twice');
  assert.ok(uploads.every((u) => !/"(cylinder|sphere|box|capsule|cone)"/.test(u)), 'primitives go inline');
  uploadsAtLoad = uploads.length;
  // The first request named every part by ref: one unknown-shape miss, the
  // uploads, the same request again.
  assert.deepEqual(misses, ['POST /v1/scene 422']);
  assert.equal(shown.motion, undefined, 'motion is off at the start');
  assert.equal(shown.toi, '–');
});

test('a drag of the move gizmo\'s x arrow moves the bolt along x, and the distance follows', async () => {
  const before0 = await panel();
  const h = await page.evaluate(() => window.clashdDemo.handlePoint('X'));
  assert.ok(h, 'the gizmo has an X handle');
  await page.mouse.move(h.x, h.y);
  await page.mouse.down();
  await page.mouse.move(h.x - 200, h.y + 40, { steps: 20 });
  await page.mouse.up();
  const shown = await panel();
  assert.equal(shown.selected, 'bolt');
  const [m0, m1] = [before0.poses.bolt.matrix, shown.poses.bolt.matrix];
  assert.notEqual(m1[12], m0[12], 'the bolt moved along x');
  assert.deepEqual([m1[13], m1[14]], [m0[13], m0[14]], 'and only along x');
  assert.deepEqual(m1.slice(0, 12), m0.slice(0, 12), 'not turned');
  await assertShownMatchesServer(shown);
});

test('a turned part goes as its matrixWorld', async () => {
  await page.keyboard.press('r');
  assert.equal(await page.evaluate(() => document.querySelector('[data-mode="rotate"]').classList.contains('on')), true);
  await page.evaluate(() => window.clashdDemo.moveTo('wedge', [1.2, 0.4, -1.4], [0.2, 0.8, -0.3]));
  const shown = await panel();
  const want = new THREE.Matrix4().compose(new THREE.Vector3(1.2, 0.4, -1.4),
    new THREE.Quaternion().setFromEuler(new THREE.Euler(0.2, 0.8, -0.3)), new THREE.Vector3(1, 1, 1));
  shown.poses.wedge.matrix.forEach((e, i) => assert.ok(Math.abs(e - want.elements[i]) < 1e-6, `${i}: ${e} vs ${want.elements[i]}`));
  await assertShownMatchesServer(shown);
  await page.keyboard.press('t');
  await page.evaluate(() => window.clashdDemo.moveTo('wedge', [1.2, 0.25, -1.6], [0, 0, 0]));
});

test('the bolt through the bracket clashes: both red and listed', async () => {
  // The upright of the bracket spans x -2.6..-2.3, y 0.25..2.25, z -1.6..-0.1:
  // the bolt, turned to lie along x, goes through it.
  await page.evaluate(() => window.clashdDemo.moveTo('bolt', [-2.45, 1.3, -0.8], [0, 0, Math.PI / 2]));
  const shown = await panel();
  const truth = await assertShownMatchesServer(shown);
  assert.equal(shown.value, 0);
  assert.match(shown.text, /^0\.0000$/);
  assert.match(shown.note, /^\(intersecting/);
  const pair = shown.list.find((c) => c.a === 'bracket' && c.b === 'bolt');
  assert.ok(pair, JSON.stringify(shown.list));
  assert.equal(pair.class, 'clash');
  assert.equal(truth.scene.counts.clash, 1);
  assert.equal(shown.colors.bolt, '#e53935');
  assert.equal(shown.colors.bracket, '#e53935');
  assert.notEqual(shown.colors.plate, '#e53935');
  await page.screenshot({ path: SCREENSHOT });
});

test('meshes and primitives: the bolt passes through the plate\'s hole', async () => {
  const forms0 = await page.evaluate(() => window.clashdDemo.forms());
  assert.deepEqual([forms0.plate.as, forms0.bracket.as], ['mesh', 'mesh']);
  assert.deepEqual([forms0.bolt.as, forms0.pipe.as, forms0.knob.as], ['primitive', 'primitive', 'primitive']);
  assert.equal(uploads.filter((u) => u.startsWith('{"mesh"')).length, 2, 'the two meshes went up by ref');
  assert.ok(bodies.some((b) => b.includes('"cylinder"')) && bodies.some((b) => b.includes('"sphere"')), 'primitives inline');
  // Through the hole (radius 0.3, a 32-gon): 0.15 from the bolt (radius 0.15).
  await page.evaluate(([x, z]) => window.clashdDemo.moveTo('bolt', [x, 0.5, z], [0, 0, 0]), [HOLE.x, HOLE.z]);
  const shown = await panel();
  const truth = await assertShownMatchesServer(shown);
  assert.equal(truth.query.intersecting, false);
  assert.ok(shown.value > 0.14 && shown.value < 0.151, `distance ${shown.value}`);
  assert.deepEqual(shown.query.solid, { a: true, b: true });
  assert.equal(shown.list.filter((c) => c.a === 'bolt' || c.b === 'bolt').length, 0, JSON.stringify(shown.list));
  assert.notEqual(shown.colors.plate, '#e53935');
  // The plate's convex hull has no hole: the same bolt would clash with it.
  const asHull = await serverAnswer(shown.poses, 'bolt', { ...shown.forms, plate: { as: 'hull' } });
  assert.equal(asHull.query.intersecting, true);
});

test('motion: the time of impact of a move, as clashd answers it', async () => {
  await page.click('#motion');
  assert.equal(await page.evaluate(() => document.getElementById('motion').checked), true);
  // The bolt (half height 0.8) over the plate, clear of the other parts, then
  // down into it: its bottom goes from y 1.2 to -0.3 and meets the plate's
  // top (y 0.2) two thirds of the way.
  await page.evaluate(() => window.clashdDemo.moveTo('bolt', [0, 2, 0.9], [0, 0, 0]));
  await page.evaluate(() => window.clashdDemo.moveTo('bolt', [0, 0.5, 0.9]));
  const shown = await panel();
  const from = shown.motion?.from;
  assert.ok(from, 'the page sent a motion');
  assert.deepEqual(from.matrix.slice(12, 15), [0, 2, 0.9], 'from where the move began');
  const truth = await assertShownMatchesServer(shown);
  const mine = shown.motion.result;
  const theirs = (await serverAnswer(shown.poses, 'bolt', shown.forms, from)).motion;
  assert.equal(typeof theirs.toi, 'number');
  assert.ok(Math.abs(theirs.toi - 2 / 3) < 1e-3, `toi ${theirs.toi}`);
  assert.ok(Math.abs(mine.toi - theirs.toi) <= 1e-9, `page ${mine.toi}, clashd ${theirs.toi}`);
  mine.contact.point.forEach((x, i) => assert.ok(Math.abs(x - theirs.contact.point[i]) <= 1e-9, `contact ${mine.contact.point} vs ${theirs.contact.point}`));
  assert.equal(shown.toi, `${theirs.toi.toFixed(4)} at (${theirs.contact.point.map((x) => x.toFixed(3)).join(', ')})`);
  assert.ok(truth.query.intersecting, 'the bolt ends in the plate');
  assert.equal(truth.query.intersection, 'surfaces');
  assert.match(shown.note, /surfaces meet/);
  // a move that touches nothing: no contact
  await page.evaluate(() => window.clashdDemo.moveTo('bolt', [0, 2.5, 0.9]));
  await page.evaluate(() => window.clashdDemo.moveTo('bolt', [0.5, 2.5, 0.9]));
  const clear = await panel();
  assert.equal(clear.motion.result.toi, null);
  assert.equal(clear.toi, 'no contact during the move');
  // a drag of the gizmo: the move begins where the handle was pressed
  const h = await page.evaluate(() => window.clashdDemo.handlePoint('X'));
  await page.mouse.move(h.x, h.y);
  await page.mouse.down();
  await page.mouse.move(h.x + 150, h.y, { steps: 10 });
  await page.mouse.up();
  const dragged = await panel();
  assert.deepEqual(dragged.motion.from, clear.poses.bolt, 'from the pose at the press');
  assert.notDeepEqual(dragged.poses.bolt, clear.poses.bolt, 'to where the drag ended');
  const ref = (await serverAnswer(dragged.poses, 'bolt', dragged.forms, dragged.motion.from)).motion;
  assert.equal(dragged.motion.result.toi, ref.toi);
  await page.evaluate(() => window.clashdDemo.setMotion(false));
  assert.equal((await panel()).motion, undefined);
});

test('many moves send poses only: each shape went up once', async () => {
  const t0 = performance.now();
  for (let i = 0; i < 30; i++) {
    const x = -2 + (i % 10) * 0.45;
    await page.evaluate(([id, pos]) => window.clashdDemo.moveTo(id, pos), [i % 2 ? 'knob' : 'nut', [x, i % 2 ? 1.6 : 0.4, 0.5 - (i % 3) * 0.4]]);
  }
  const ms = (performance.now() - t0) / 30;
  const shown = await panel();
  await assertShownMatchesServer(shown);
  assert.equal(uploads.length, uploadsAtLoad, `uploads: ${uploads.length}`);
  assert.equal(new Set(uploads).size, uploads.length, 'no shape twice');
  assert.equal(misses.length, loaded, `no miss after the page was ready: ${misses.slice(loaded).join(', ')}`);
  const posts = apiCalls.filter((c) => c.startsWith('POST /v1/query') || c.startsWith('POST /v1/scene'));
  console.log(`web-test: ${apiCalls.length} requests to clashd (${uploads.length} uploads, ${posts.length} queries and scenes); ` +
    `a move answered in ${ms.toFixed(1)} ms on average`);
  assert.deepEqual(pageErrors, []);
});

// Last: its answers are >= 400 on purpose (the tests above count misses).
test('CORS: a mistyped path or method answers a problem the page can read', async () => {
  const got = await page.evaluate(async (base) => {
    const ask = async (method, p, body) => {
      const r = await fetch(base + p, { method, headers: { 'Content-Type': 'application/json' }, body });
      return { status: r.status, type: r.headers.get('content-type'), problem: await r.json() };
    };
    return [await ask('POST', '/v1/qeury', '{}'), await ask('PUT', '/v1/query', '{}')];
  }, server.url);
  assert.equal(got[0].status, 404);
  assert.equal(got[0].type, 'application/problem+json');
  assert.match(got[0].problem.detail, /no resource at \/v1\/qeury/);
  assert.equal(got[1].status, 405);
  assert.match(got[1].problem.detail, /use POST/);
});
