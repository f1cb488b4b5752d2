// The demo page in a real browser: Debian's chromium (headless, driven by
// playwright-core) loads the built page from a node static server; clashd
// runs on another port with --cors-origin set to the page's origin.  The test
// drags parts with TransformControls, asks clashd itself the same questions
// with the shapes inline (built in node from the same assembly by the same
// three.js helpers), and compares, a move's time of impact too; a bolt
// grazing the plate's hole checks the clash report drawn (curves on both
// surfaces, a few tinted triangles, the overlap volume against polygon
// clipping done here) and the clash list's units and order.
// Environment: CLASHD (the binary), WEB_DIST (the built page, default
// build/web), SCREENSHOT (default build/web-demo.png),
// CHROMIUM (default: where Debian's chromium package puts it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDemo } from './browser.js';
import * as THREE from 'three';
import { makeParts, CLEARANCE, HOLE, UNITS, BOLT, BOLT_GRAZING } from '../src/assembly.js';
import { geometryShape } from '../../clients/js/three.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.WEB_DIST ?? path.resolve(here, '../../build/web');
const SCREENSHOT = process.env.SCREENSHOT ?? path.resolve(here, '../../build/web-demo.png');

let demo, server, page;
const uploads = []; // POST /v1/shapes the server took (2xx), as the page sent them
const bodies = []; // every POST body to clashd
const apiCalls = []; // every request to clashd
const pageErrors = [];
const misses = []; // clashd's answers >= 400: the first scene's unknown-shape
let loaded = 0; // misses.length once the page was ready

// (chromium logs every 4xx as a console error: those are counted as misses)
const watch = (page, server, web) => {
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
};

before(async () => {
  demo = await openDemo(DIST, { errors: pageErrors, watch });
  ({ server, page } = demo);
  loaded = misses.length;
});

after(async () => { await demo?.close(); });

// The parts as node builds them: the same geometries, hence the same shapes.
const PARTS = makeParts();
const geometryOf = Object.fromEntries(PARTS.map((p) => [p.id, p.geometry]));
const colorOf = Object.fromEntries(PARTS.map((p) => [p.id, '#' + new THREE.Color(p.color).getHexString()]));

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
  const query = await post('/v1/query', { a: { ...shape(selected), units: UNITS }, b: { parts: others.map((p) => shape(p.id)) } });
  const scene = await post('/v1/scene', { objects: PARTS.map((p) => ({ id: p.id, shape: shape(p.id) })), clearance: CLEARANCE, units: UNITS });
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
      list: [...document.querySelectorAll('#clashes li')].map((li) => ({
        a: li.dataset.a, b: li.dataset.b, class: li.dataset.class, text: li.textContent,
        depth: li.dataset.depth === undefined ? undefined : Number(li.dataset.depth),
        volume: li.dataset.volume === undefined ? undefined : Number(li.dataset.volume),
      })),
      units: document.getElementById('distance-units').textContent,
      regions: window.clashdDemo.regions(),
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
  // the same pairs, each with clashd's depth and volume, ranked (below)
  const key = (c) => `${c.a}|${c.b}`;
  const byPair = new Map(truth.scene.clashes.map((c) => [key(c), c]));
  assert.deepEqual(shown.list.map(key).sort(), [...byPair.keys()].sort());
  for (const c of shown.list) {
    const t = byPair.get(key(c));
    assert.equal(c.class, t.class, key(c));
    assert.equal(c.volume, t.overlap?.volume, `${key(c)}: volume`);
    assert.equal(c.depth, t.penetration?.depth ?? t.penetration?.depth_lower_bound, `${key(c)}: depth`);
  }
  assertRanked(shown.list, 'depth');
  assert.equal(shown.units, truth.query.units);
  // the separating plane when apart, the arrow when overlapping with a direction
  assert.equal(shown.drawn.plane, String(!truth.query.intersecting && !!truth.query.separating_plane));
  assert.equal(shown.drawn.arrow, String(truth.query.intersecting && !!truth.query.penetration?.normal));
  // a mesh answer's `intersection`, in the note too
  assert.equal(shown.drawn.intersection, truth.query.intersection ?? '');
  return truth;
}

/**
 * The clash list's order: clashes, then touches, then clearances; within
 * a class by `order` ('depth': deepest first, then the largest volume;
 * 'volume' the other way round), a missing number after every present one;
 * clearances nearest first.
 */
function assertRanked(list, order) {
  const RANK = { clash: 0, touch: 1, clearance: 2 };
  const keys = order === 'volume' ? ['volume', 'depth'] : ['depth', 'volume'];
  const val = (c, k) => c[k] ?? -Infinity;
  for (let i = 1; i < list.length; i++) {
    const [x, y] = [list[i - 1], list[i]];
    const at = `${order}: ${x.text} before ${y.text}`;
    assert.ok(RANK[x.class] <= RANK[y.class], at);
    if (RANK[x.class] < RANK[y.class]) continue;
    assert.ok(val(x, keys[0]) >= val(y, keys[0]), at);
    if (val(x, keys[0]) > val(y, keys[0])) continue;
    assert.ok(val(x, keys[1]) >= val(y, keys[1]), at);
  }
}

const byRef = (forms) => Object.values(forms).filter((f) => f.as !== 'primitive').length;
let uploadsAtLoad = 0;

test('the page loads, uploads every part by ref once and shows the first answer', async () => {
  assert.deepEqual(pageErrors, []);
  const shown = await panel();
  assert.equal(shown.selected, 'bolt');
  const truth = await assertShownMatchesServer(shown);
  assert.equal(truth.query.intersecting, true, 'the bolt starts in the plate\'s hole, grazing it');
  assert.deepEqual(shown.list.map((c) => [c.a, c.b, c.class]), [['plate', 'bolt', 'clash']],
    'the bolt grazing the plate\'s hole is the one clash at the start');
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

// ---- plane geometry for the graze, independent of clashd ----
const meshOf = (id) => geometryShape(geometryOf[id], PARTS.find((p) => p.id === id).form).mesh;
const vertexOf = (m, v) => [m.positions[3 * v], m.positions[3 * v + 1], m.positions[3 * v + 2]];
const triangleOf = (m, t) => [0, 1, 2].map((j) => vertexOf(m, m.indices[3 * t + j]));
const radial = ([x, , z], [cx, cz]) => Math.hypot(x - cx, z - cz);

/** Distance in the x-z plane from point c to the triangle's shadow. */
function shadowDistance(tri, c) {
  const p = tri.map(([x, , z]) => [x - c[0], z - c[1]]);
  const cross = (u, v) => u[0] * v[1] - u[1] * v[0];
  const sides = p.map((u, i) => cross([p[(i + 1) % 3][0] - u[0], p[(i + 1) % 3][1] - u[1]], [-u[0], -u[1]]));
  if (sides.every((x) => x >= 0) || sides.every((x) => x <= 0)) return 0; // inside
  return Math.min(...p.map((u, i) => {
    const v = p[(i + 1) % 3], d = [v[0] - u[0], v[1] - u[1]];
    const dd = d[0] * d[0] + d[1] * d[1]; // 0: a wall's shadow repeats a point
    const t = dd === 0 ? 0 : Math.max(0, Math.min(1, -(u[0] * d[0] + u[1] * d[1]) / dd));
    return Math.hypot(u[0] + t * d[0], u[1] + t * d[1]);
  }));
}

/** The mesh's vertices at height y and radius r (within 1e-6) about the y axis through c: x-z points by angle. */
function ring(m, c, r, y) {
  const seen = new Map();
  for (let v = 0; v < m.positions.length / 3; v++) {
    const p = vertexOf(m, v);
    if (Math.abs(radial(p, c) - r) < 1e-6 && Math.abs(p[1] - y) < 1e-6) seen.set(`${p[0]},${p[2]}`, [p[0], p[2]]);
  }
  return [...seen.values()].sort((u, w) => Math.atan2(u[1] - c[1], u[0] - c[0]) - Math.atan2(w[1] - c[1], w[0] - c[0]));
}
const area = (poly) => Math.abs(poly.reduce((s, u, i) => { const v = poly[(i + 1) % poly.length]; return s + u[0] * v[1] - v[0] * u[1]; }, 0)) / 2;
/** The convex polygon `poly` clipped to the convex polygon `by` (both counter-clockwise): Sutherland-Hodgman. */
function clip(poly, by) {
  let out = poly;
  by.forEach((u, i) => {
    const v = by[(i + 1) % by.length];
    const side = (p) => (v[0] - u[0]) * (p[1] - u[1]) - (v[1] - u[1]) * (p[0] - u[0]);
    const next = [];
    out.forEach((p, k) => {
      const q = out[(k + 1) % out.length], sp = side(p), sq = side(q);
      if (sp >= 0) next.push(p);
      if ((sp >= 0) !== (sq >= 0)) { const t = sp / (sp - sq); next.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]); }
    });
    out = next;
  });
  return out;
}

test('a bolt grazing the plate\'s hole: its curve, a few triangles tinted, the volume in mm³', async () => {
  await page.evaluate((pos) => window.clashdDemo.moveTo('bolt', pos, [0, 0, 0]), BOLT_GRAZING);
  const shown = await panel();
  const truth = await assertShownMatchesServer(shown);
  const clash = truth.scene.clashes.find((c) => c.a === 'plate' && c.b === 'bolt');
  assert.equal(clash?.class, 'clash', JSON.stringify(truth.scene.clashes));
  // the page asked for the pair's report, the pair as the scene named it
  assert.deepEqual(shown.reports.map((r) => [r.a, r.b]), [['plate', 'bolt']]);
  const report = shown.reports[0].result;
  assert.equal(report.overlap.truncated, false);
  assert.equal(report.units, 'mm');

  // only the triangles that take part are tinted: a few of each part's
  const counts = await page.evaluate(() => window.clashdDemo.triangleCounts());
  const lit = shown.regions.highlighted;
  assert.ok(lit.plate?.length >= 1 && lit.plate.length < 0.1 * counts.plate, `plate: ${lit.plate?.length} of ${counts.plate} tinted`);
  assert.ok(lit.bolt?.length >= 1 && lit.bolt.length < 0.25 * counts.bolt, `bolt: ${lit.bolt?.length} of ${counts.bolt} tinted`);
  const listed = (side) => [...new Set(report.overlap.regions.flatMap((g) => g.triangles[side]))].sort((x, y) => x - y);
  assert.deepEqual([lit.plate, lit.bolt], [listed('a'), listed('b')], 'the triangles the report lists');
  // ... and each can take part: a plate triangle's shadow reaches the shaft
  // (the only part of the bolt within the plate's thickness); a bolt
  // triangle reaches the plate's thickness and beyond the hole's radius
  const axis = [BOLT_GRAZING[0], BOLT_GRAZING[2]], hole = [HOLE.x, HOLE.z];
  const at = (p) => [p[0] + BOLT_GRAZING[0], p[1] + BOLT_GRAZING[1], p[2] + BOLT_GRAZING[2]];
  for (const t of lit.plate) assert.ok(shadowDistance(triangleOf(meshOf('plate'), t), axis) <= BOLT.radius + 1e-9, `plate triangle ${t}`);
  for (const t of lit.bolt) {
    const tri = triangleOf(meshOf('bolt'), t).map(at);
    assert.ok(Math.min(...tri.map((p) => p[1])) <= 0.2 + 1e-6 && Math.max(...tri.map((p) => p[1])) >= -1e-6, `bolt triangle ${t}: y`);
    assert.ok(Math.max(...tri.map((p) => radial(p, hole))) >= HOLE.radius * Math.cos(Math.PI / 32), `bolt triangle ${t}: in the wall`);
  }
  // the curves, drawn: closed loops on both surfaces (the shaft's side, and
  // the plate's top, bottom or hole wall)
  const { curves } = shown.regions;
  assert.ok(curves.length >= 1 && curves.every((c) => c.closed && c.points.length >= 3), JSON.stringify(curves.map((c) => c.points.length)));
  const near = (x, lo, hi) => x >= lo - 1e-6 && x <= hi + 1e-6;
  for (const p of curves.flatMap((c) => c.points)) {
    assert.ok(near(radial(p, axis), BOLT.radius * Math.cos(Math.PI / 32), BOLT.radius), `${p}: on the shaft`);
    assert.ok(near(p[1], 0, 0.2) && (near(p[1], 0, 0) || near(p[1], 0.2, 0.2) ||
      near(radial(p, hole), HOLE.radius * Math.cos(Math.PI / 32), HOLE.radius)), `${p}: on the plate`);
  }
  // neither part painted whole
  assert.equal(shown.colors.plate, colorOf.plate);
  assert.equal(shown.colors.bolt, colorOf.bolt);

  // the overlap volume: the shaft's polygon outside the hole's, times the
  // plate's thickness (both prisms over it), by polygon clipping here
  const plateY = meshOf('plate').positions.filter((_, i) => i % 3 === 1);
  const thickness = Math.max(...plateY) - Math.min(...plateY);
  const shaft = ring(meshOf('bolt'), [0, 0], BOLT.radius, -BOLT.halfLength).map(([x, z]) => [x + axis[0], z + axis[1]]);
  const wall = ring(meshOf('plate'), hole, HOLE.radius, 0);
  assert.deepEqual([shaft.length, wall.length], [32, 64]);
  const lens = (area(shaft) - area(clip(shaft, wall))) * thickness;
  assert.ok(Math.abs(clash.overlap.volume - lens) <= 1e-9 * lens, `clashd ${clash.overlap.volume}, clipping ${lens}`);
  assert.ok(Math.abs(report.overlap.volume - lens) <= 1e-9 * lens, `report ${report.overlap.volume}, clipping ${lens}`);
  // the list shows it with the units (and the depth once clashd answers it)
  const item = shown.list.find((c) => c.a === 'plate' && c.b === 'bolt');
  const m = /^plate × bolt: clash(?:, depth (\S+) mm)?, volume (\S+) mm³ \(surfaces meet\)$/.exec(item.text);
  assert.ok(m, item.text);
  assert.ok(Math.abs(Number(m[2]) - lens) <= 5e-3 * lens, item.text);
  assert.equal(m[1] !== undefined, clash.penetration?.depth !== undefined, item.text);
  if (m[1] !== undefined) assert.ok(Math.abs(Number(m[1]) - clash.penetration.depth) <= 5e-3 * clash.penetration.depth, item.text);
  assert.equal(shown.units, 'mm');
  // the depth arrow: from b's deepest point along the normal, as long as
  // the depth, once the report has a depth (REPORT_WANT in web/src/regions.js)
  const pen = report.penetration;
  if (pen?.depth > 0) {
    assert.equal(shown.regions.arrows.length, 1);
    const [arrow] = shown.regions.arrows;
    arrow.origin.forEach((x, i) => assert.ok(Math.abs(x - pen.points.b[i]) < 1e-6));
    arrow.direction.forEach((x, i) => assert.ok(Math.abs(x - pen.normal[i]) < 1e-6));
    assert.ok(Math.abs(arrow.length - pen.depth) < 1e-6 * Math.max(1, pen.depth));
  } else {
    assert.deepEqual(shown.regions.arrows, []);
  }
  await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-graze.png') });
});

test('the clash list ranks by depth, then volume, or the other way', async () => {
  // the knob into the pipe (depth, no volume: two primitives), the nut into
  // the plate (a hull against a mesh: depth later, volume now) and the
  // bolt grazing the plate
  await page.evaluate(() => window.clashdDemo.moveTo('knob', [1.6, 0.7, -0.2]));
  await page.evaluate(() => window.clashdDemo.moveTo('nut', [-1.2, 0.2, 1.2]));
  await page.evaluate((pos) => window.clashdDemo.moveTo('bolt', pos, [0, 0, 0]), BOLT_GRAZING);
  const shown = await panel();
  await assertShownMatchesServer(shown);
  assert.ok(shown.list.filter((c) => c.class === 'clash').length >= 3, JSON.stringify(shown.list.map((c) => c.text)));
  assert.ok(shown.list.some((c) => c.depth !== undefined) && shown.list.some((c) => c.volume !== undefined));
  for (const c of shown.list.filter((x) => x.volume !== undefined)) assert.match(c.text, /, volume \S+ mm³/);
  for (const c of shown.list.filter((x) => x.depth !== undefined)) assert.match(c.text, /, depth (≥ )?\S+ mm/);
  await page.selectOption('#sort', 'volume');
  const byVolume = await panel();
  assertRanked(byVolume.list, 'volume');
  assert.deepEqual(byVolume.list.map((c) => c.text).sort(), shown.list.map((c) => c.text).sort());
  await page.selectOption('#sort', 'depth');
  assertRanked((await panel()).list, 'depth');
  // back to the start, the bolt selected
  await page.evaluate(() => window.clashdDemo.moveTo('knob', [1.6, 1.6, 0]));
  await page.evaluate(() => window.clashdDemo.moveTo('nut', [-1.2, 0.4, 1.2]));
  await page.evaluate((pos) => window.clashdDemo.moveTo('bolt', pos), BOLT_GRAZING);
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

test('the bolt through the bracket clashes: listed, and only where they cross tinted', async () => {
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
  // two meshes: their crossing drawn, not either part painted whole
  assert.equal(shown.colors.bolt, colorOf.bolt);
  assert.equal(shown.colors.bracket, colorOf.bracket);
  assert.notEqual(shown.colors.plate, '#e53935');
  assert.ok(shown.regions.highlighted.bolt?.length > 0 && shown.regions.highlighted.bracket?.length > 0,
    JSON.stringify(Object.keys(shown.regions.highlighted)));
  // through the upright: one loop where the bolt goes in, one where it comes out
  assert.equal(shown.regions.curves.filter((c) => c.closed).length, 2, JSON.stringify(shown.regions.curves.map((c) => c.points.length)));
  await page.screenshot({ path: SCREENSHOT });
});

test('meshes and primitives: the bolt passes through the plate\'s hole', async () => {
  const forms0 = await page.evaluate(() => window.clashdDemo.forms());
  assert.deepEqual([forms0.plate.as, forms0.bracket.as, forms0.bolt.as], ['mesh', 'mesh', 'mesh']);
  assert.deepEqual([forms0.pipe.as, forms0.knob.as], ['primitive', 'primitive']);
  assert.equal(uploads.filter((u) => u.startsWith('{"mesh"')).length, 3, 'the three meshes went up by ref');
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
  assert.deepEqual(shown.regions, { highlighted: {}, curves: [], arrows: [] }, 'no clash of the bolt: nothing drawn');
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
