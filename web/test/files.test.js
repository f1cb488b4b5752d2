// The user's own parts in the demo page (web/src/files.js), in Debian's
// chromium (headless, playwright-core), the page on a node static server and
// clashd on another port as in demo.test.js.  A binary STL of a box made
// here is dropped on the page (a real drop event carrying the file): clashd
// reads it (the ids the page uses are the ones clashd gives the test for the
// same bytes), the page lists its clash with the base plate, with the
// overlap volume and depth this box and the plate's slab give by plain
// arithmetic, tints exactly the box's triangles that cross the plate's
// faces and draws the two loops where they cross; dragged up with the
// gizmo, the clash goes.  "in the page" answers with the core in
// WebAssembly and the server alike: both shown, equal.  A glTF placing one
// mesh at two nodes goes as a compound of clashd's two shapes at their
// poses, its clash with the knob listed; when clashd loses the shape the
// page sends the file again.  Files clashd
// refuses are listed with the status and detail clashd gives the test for
// the same bytes, and the page goes on.  A page whose clashd does not
// answer says where it asked; chromium without WebGL gets the page's plain
// message instead of "connecting…".
// It saves build/web-demo-files.png (the box dropped).
// Environment: CLASHD, WEB_DIST, CHROMIUM, SCREENSHOT, as demo.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openDemo } from './browser.js';
import { makeParts } from '../src/assembly.js';
import { geometryShape } from '../../clients/js/three.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.WEB_DIST ?? path.resolve(here, '../../build/web');
const SCREENSHOT = (process.env.SCREENSHOT ?? path.resolve(here, '../../build/web-demo.png')).replace(/\.png$/, '-files.png');

let demo, web, server, page;
const pageErrors = [];
let queries = 0; // POST /v1/query requests to clashd
const fileUploads = []; // the media types of the files the page sent to POST /v1/shapes

before(async () => {
  demo = await openDemo(DIST, {
    errors: pageErrors,
    args: ['--store-delete', '1'], // (the test drops a file's shape, as a restarted server would have)
    watch: (p, s) => p.on('request', (r) => {
      if (r.method() !== 'POST') return;
      if (r.url() === `${s.url}/v1/query`) queries++;
      const type = r.headers()['content-type'];
      if (r.url().startsWith(`${s.url}/v1/shapes`) && type !== 'application/json') fileUploads.push(type);
    }),
  });
  ({ web, server, page } = demo);
});

after(async () => { await demo?.close(); });

// The box: x -0.3..0.3, y -0.1..0.3, z 0.3..0.9, inside the base plate's
// outline (6 x 4 about the origin, its hole at x 1, z 0.9, radius 0.3) and
// through its thickness (y 0..0.2), clear of every other part.
const BOX = { min: [-0.3, -0.1, 0.3], max: [0.3, 0.3, 0.9] };
const f32 = (x) => Math.fround(x);
// the plate's faces, as its mesh went to clashd (float32 positions)
const plate = makeParts().find((p) => p.id === 'plate');
const plateYs = geometryShape(plate.geometry, plate.form).mesh.positions.filter((_, i) => i % 3 === 1);
const PLATE_Y = [Math.min(...plateYs), Math.max(...plateYs)];

/** A binary STL of an axis-aligned box: 12 outward triangles; and those triangles' corners. */
function boxStl({ min, max }) {
  const [x0, y0, z0] = min, [x1, y1, z1] = max;
  const v = [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]];
  const faces = [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]];
  const b = Buffer.alloc(84 + 50 * faces.length);
  b.write('clashd web test box', 0);
  b.writeUInt32LE(faces.length, 80);
  faces.forEach((t, i) => t.forEach((k, j) => v[k].forEach((c, m) => b.writeFloatLE(c, 84 + 50 * i + 12 + 12 * j + 4 * m))));
  return { bytes: b, triangles: faces.map((t) => t.map((k) => v[k].map(f32))) };
}

/** POST /v1/shapes with a file's bytes, by the test itself: {status, body}. */
async function importHere(bytes, type) {
  const r = await fetch(server.url + '/v1/shapes', { method: 'POST', headers: { 'Content-Type': type }, body: bytes });
  return { status: r.status, body: await r.json() };
}

/** Drop files on the page's view as a user's drag would: a drop event whose DataTransfer holds them. */
async function drop(files) {
  const dt = await page.evaluateHandle((list) => {
    const d = new DataTransfer();
    for (const { name, b64 } of list) d.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
    return d;
  }, files.map(({ name, bytes }) => ({ name, b64: Buffer.from(bytes).toString('base64') })));
  await page.dispatchEvent('#view canvas', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('#view canvas', 'drop', { dataTransfer: dt });
  await page.evaluate(() => window.clashdDemo.idle());
}

/** The files list and the panel. */
async function panel() {
  await page.evaluate(() => window.clashdDemo.idle());
  return page.evaluate(() => ({
    shown: window.clashdDemo.shown(),
    files: [...document.querySelectorAll('#files li')].map((li) => ({ ...li.dataset, className: li.className, text: li.textContent })),
    list: [...document.querySelectorAll('#clashes li')].map((li) => ({ ...li.dataset, text: li.textContent })),
    regions: window.clashdDemo.regions(),
    status: document.getElementById('status').textContent,
    statusClass: document.getElementById('status').className,
    answers: Object.fromEntries(['server', 'page'].map((w) => [w, { ...document.getElementById(`answer-${w}`).dataset,
      text: document.getElementById(`answer-${w}`).textContent }])),
  }));
}

const box = boxStl(BOX);
let boxId; // what clashd calls the box's mesh

test('a dropped STL: read by clashd, its clash with the plate listed, reported and dragged away', async (t) => {
  const mine = await importHere(box.bytes, 'model/stl');
  assert.equal(mine.status === 201 || mine.status === 200, true, JSON.stringify(mine));
  assert.equal(mine.body.shapes.length, 1);
  assert.deepEqual([mine.body.shapes[0].triangles, mine.body.shapes[0].vertices, mine.body.shapes[0].solid], [12, 8, true]);
  boxId = mine.body.shapes[0].id;

  await drop([{ name: 'box.stl', bytes: box.bytes }]);
  const p = await panel();
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(p.files.map((f) => [f.name, f.className, f.text]), [['box.stl', 'ok', 'box.stl: 12 triangles, a solid (read by clashd)']]);
  assert.equal(p.shown.error, undefined);
  assert.equal(p.shown.selected, 'box.stl', 'the new part is selected');
  const shape = await page.evaluate(() => window.clashdDemo.serverShape('box.stl'));
  assert.equal(shape.ref, boxId, 'the page names the box by the id clashd gave');
  assert.deepEqual(shape.pose.matrix, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 'where its file puts it');

  // the one clash of the box: the plate, as much as the box's slab of it
  const mineList = p.list.filter((c) => c.a === 'box.stl' || c.b === 'box.stl');
  assert.deepEqual(mineList.map((c) => [c.a, c.b, c.class]), [['plate', 'box.stl', 'clash']], JSON.stringify(p.list));
  const [dx, dz] = [0, 2].map((i) => f32(BOX.max[i]) - f32(BOX.min[i]));
  const volume = dx * dz * (PLATE_Y[1] - PLATE_Y[0]);
  assert.ok(Math.abs(Number(mineList[0].volume) - volume) <= 1e-9 * volume, `listed ${mineList[0].volume}, box x slab ${volume}`);
  assert.match(mineList[0].text, /^plate × box\.stl: clash(, depth \S+ mm)?, volume 0\.0720 mm³/);
  t.diagnostic(`listed: ${mineList[0].text}`);
  // out through the plate's top or bottom face: 0.3 either way (sideways is farther)
  if (mineList[0].depth !== undefined) assert.ok(Math.abs(Number(mineList[0].depth) - 0.3) <= 1e-6, `depth ${mineList[0].depth}`);
  assert.equal(p.shown.scene.counts.clash, p.list.filter((c) => c.class === 'clash').length);

  // the report: only the box's triangles that cross the plate's faces
  // (its four walls; not its top or bottom) tinted, two loops at y 0 and 0.2
  const crossing = box.triangles.map((t, i) => [t, i]).filter(([t]) => {
    const ys = t.map((v) => v[1]);
    return PLATE_Y.some((y) => Math.min(...ys) < y && Math.max(...ys) > y);
  }).map(([, i]) => i);
  assert.deepEqual(crossing, [0, 1, 2, 3, 6, 7, 10, 11]);
  assert.deepEqual(p.regions.highlighted['box.stl'], crossing);
  const loops = p.regions.curves.filter((c) => c.closed);
  assert.equal(loops.length, 2, JSON.stringify(p.regions.curves.map((c) => c.points.length)));
  for (const c of loops) {
    const y = c.points[0][1];
    assert.ok(PLATE_Y.some((py) => Math.abs(y - py) < 1e-6), `a loop at y ${y}`);
    for (const [x, yy, z] of c.points) {
      assert.ok(Math.abs(yy - y) < 1e-6);
      const onWall = [Math.abs(x - BOX.min[0]), Math.abs(x - BOX.max[0]), Math.abs(z - BOX.min[2]), Math.abs(z - BOX.max[2])];
      assert.ok(Math.min(...onWall) < 1e-6, `(${x}, ${z}) on the box's walls`);
    }
  }

  await page.screenshot({ path: SCREENSHOT });
  // dragged up by the gizmo's y arrow: clear of the plate
  const h = await page.evaluate(() => window.clashdDemo.handlePoint('Y'));
  assert.ok(h, 'the gizmo has a Y handle');
  await page.mouse.move(h.x, h.y);
  await page.mouse.down();
  await page.mouse.move(h.x, h.y - 250, { steps: 10 });
  await page.mouse.up();
  const up = await panel();
  const m = up.shown.poses['box.stl'].matrix;
  assert.ok(m[13] > 0.3, `the box went up: ${m[13]}`);
  assert.deepEqual([m[12], m[14]], [0, 0], 'only up');
  assert.equal(up.list.some((c) => c.a === 'box.stl' || c.b === 'box.stl'), false, JSON.stringify(up.list));
  // the distance shown is clashd's for the box where it is, asked here
  const others = await page.evaluate(async () => {
    const ids = window.clashdDemo.parts.filter((id) => id !== 'box.stl');
    return Promise.all(ids.map((id) => window.clashdDemo.serverShape(id)));
  });
  // (the page uploaded the other parts' meshes by ref; this server has them)
  const r = await fetch(server.url + '/v1/query', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ a: { ref: boxId, pose: { matrix: m }, units: 'mm' }, b: { parts: others } }) });
  const truth = await r.json();
  assert.equal(r.status, 200, JSON.stringify(truth));
  assert.equal(up.shown.query.distance, truth.distance);
  // the plate's top (y 0.2) lies under the box's bottom (y -0.1 + dy)
  assert.ok(truth.distance > 0 && truth.distance <= m[13] - 0.3 + 1e-6, `distance ${truth.distance} at height ${m[13]}`);
  await page.evaluate(() => window.clashdDemo.moveTo('box.stl', [0, 0, 0]));
});

test('"in the page": the core in WebAssembly answers as the server does, both times shown', async (t) => {
  await page.click('#local');
  await page.evaluate(() => window.clashdDemo.idle());
  const sent = queries;
  await page.evaluate(() => window.clashdDemo.moveTo('box.stl', [0.2, 0, -0.1]));
  const p = await panel();
  assert.equal(queries - sent, 1, 'one query to the server: the page answered the other itself');
  assert.deepEqual(pageErrors, []);
  assert.equal(p.shown.error, undefined);
  assert.ok(p.shown.page && p.shown.server, 'both answered');
  assert.match(p.answers.page.text, /^page: \d+\.\d{4} in \d+\.\d\d ms$/);
  assert.match(p.answers.server.text, /^server: \d+\.\d{4} in \d+\.\d\d ms$/);
  // the same question, the same core: the same answer
  assert.deepEqual(p.shown.page.answer, p.shown.server.answer);
  assert.deepEqual(p.shown.query, p.shown.page.answer, 'the panel shows the page\'s answer');
  assert.equal(await page.evaluate(() => document.getElementById('files-local').hidden), false, 'says the files went to clashd');
  // the page holds the mesh clashd stored, by clashd's id
  const shapes = await page.evaluate(async () => ({
    page: await window.clashdDemo.pageShape('box.stl'), server: await window.clashdDemo.serverShape('box.stl'),
  }));
  assert.equal(shapes.page.ref, boxId);
  assert.deepEqual(shapes.page, shapes.server);
  // an OBJ of quads, chosen with the file input, away from the rest: the
  // page's own mesh of it (clashd's triangulation may differ) answers as
  // clashd's does
  const obj = ['v -2 1.5 1.4', 'v -1.6 1.5 1.4', 'v -1.6 1.9 1.4', 'v -2 1.9 1.4', 'v -2 1.5 1.8', 'v -1.6 1.5 1.8',
    'v -1.6 1.9 1.8', 'v -2 1.9 1.8', 'f 1 4 3 2', 'f 5 6 7 8', 'f 1 2 6 5', 'f 2 3 7 6', 'f 3 4 8 7', 'f 4 1 5 8', ''].join('\n');
  const objTheirs = await importHere(Buffer.from(obj), 'model/obj');
  await page.setInputFiles('#file', { name: 'cube.obj', mimeType: 'model/obj', buffer: Buffer.from(obj) });
  const withObj = await panel();
  assert.deepEqual(withObj.files.at(-1).text, `cube.obj: ${objTheirs.body.shapes[0].triangles} triangles, a solid (read by clashd)`);
  assert.equal(withObj.shown.selected, 'cube.obj');
  const [pg, sv] = [withObj.shown.page.answer, withObj.shown.server.answer];
  assert.equal(pg.intersecting, false);
  assert.ok(Math.abs(pg.distance - sv.distance) <= 1e-9, `page ${pg.distance}, server ${sv.distance}`);
  const cube = await page.evaluate(async () => ({
    page: await window.clashdDemo.pageShape('cube.obj'), server: await window.clashdDemo.serverShape('cube.obj'),
  }));
  t.diagnostic(`cube.obj in the page: ${cube.page.ref === cube.server.ref ? 'the mesh clashd stored' : 'the mesh three.js read'}; ` +
    `${withObj.answers.page.text}, ${withObj.answers.server.text}`);
  await page.click('#local');
  const off = await panel();
  assert.equal(off.shown.page, undefined);
  assert.equal(off.answers.page.text, '');
  await page.evaluate(() => window.clashdDemo.moveTo('box.stl', [0, 0, 0]));
});

/**
 * A glTF (JSON, its buffer a data: URI) placing one mesh, a box of half
 * size `h` about its origin, at two nodes' translations.
 */
function boxPairGltf(h, [t0, t1]) {
  const positions = new Float32Array([-h, -h, -h, h, -h, -h, h, h, -h, -h, h, -h, -h, -h, h, h, -h, h, h, h, h, -h, h, h]);
  const indices = new Uint16Array([0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7]);
  const data = Buffer.concat([Buffer.from(positions.buffer), Buffer.from(indices.buffer)]);
  return Buffer.from(JSON.stringify({
    asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0, 1] }],
    nodes: [{ name: 'near the knob', mesh: 0, translation: t0 }, { name: 'clear', mesh: 0, translation: t1 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1 }] }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 8, type: 'VEC3', min: [-h, -h, -h], max: [h, h, h] },
      { bufferView: 1, componentType: 5123, count: 36, type: 'SCALAR' }],
    bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: 96 }, { buffer: 0, byteOffset: 96, byteLength: 72 }],
    buffers: [{ byteLength: data.length, uri: `data:application/octet-stream;base64,${data.toString('base64')}` }],
  }));
}

test('a glTF of two nodes: a compound of clashd\'s shapes, sent again when clashd lost them', async () => {
  // One node's box (half size 0.2) 0.45 above the knob's centre (a sphere
  // of radius 0.35 at 1.6, 1.6, 0): 0.1 into it; the other's clear of all.
  const gltf = boxPairGltf(0.2, [[1.6, 1.6, 0.45], [2.4, 1.5, -1.5]]);
  const theirs = await importHere(gltf, 'model/gltf+json');
  assert.equal(theirs.body.shapes.length, 2, JSON.stringify(theirs.body));
  const [s0, s1] = theirs.body.shapes;
  assert.equal(s0.id, s1.id, 'one mesh, two places');
  await drop([{ name: 'pair.gltf', bytes: gltf }]);
  const p = await panel();
  assert.deepEqual(pageErrors, []);
  assert.equal(p.files.at(-1).text, 'pair.gltf: 24 triangles, a solid in 2 shapes (read by clashd)');
  // (not the page's shape: the client would hold that mesh, and upload it on a miss)
  const sent = await page.evaluate(() => window.clashdDemo.serverShape('pair.gltf'));
  assert.deepEqual(sent.parts, theirs.body.shapes.map((s) => ({ ref: s.id, pose: s.pose })), 'a compound of clashd\'s shapes at their poses');
  const mineList = p.list.filter((c) => c.a === 'pair.gltf' || c.b === 'pair.gltf');
  assert.deepEqual(mineList.map((c) => [c.a, c.b, c.class]), [['knob', 'pair.gltf', 'clash']], p.status + JSON.stringify(p.list));
  assert.deepEqual(fileUploads.filter((t) => t === 'model/gltf+json').length, 1);

  // clashd loses it (as a restart would): the page sends the file again
  const del = await fetch(`${server.url}/v1/shapes/${encodeURIComponent(s0.id)}`, { method: 'DELETE' });
  assert.equal(del.status, 204);
  await page.evaluate(() => window.clashdDemo.moveTo('pair.gltf', [0, 0.01, 0]));
  const again = await panel();
  assert.equal(again.shown.error, undefined, again.status);
  assert.deepEqual(fileUploads.filter((t) => t === 'model/gltf+json').length, 2);
  assert.deepEqual(again.list.filter((c) => c.a === 'pair.gltf' || c.b === 'pair.gltf').map((c) => [c.a, c.b, c.class]),
    [['knob', 'pair.gltf', 'clash']]);

  // in the page, a compound of the meshes three.js read: the server's
  // answer, but for the nodes' translations, doubles in three.js and
  // single precision in clashd's import (1.6 against 1.6000000238...)
  await page.click('#local');
  await page.evaluate(() => window.clashdDemo.moveTo('pair.gltf', [0, 1, 0]));
  const local = await panel();
  assert.equal(local.shown.error, undefined, local.status);
  const [pg, sv] = [local.shown.page.answer, local.shown.server.answer];
  assert.ok(sv.distance > 0.1 && Math.abs(pg.distance - sv.distance) <= 1e-7, `page ${pg.distance}, server ${sv.distance}`);
  const own = await page.evaluate(() => window.clashdDemo.pageShape('pair.gltf'));
  assert.equal(own.parts.length, 2);
  await page.click('#local');
  await page.evaluate(() => window.clashdDemo.moveTo('pair.gltf', [0, 0, 0]));
});

test('files clashd refuses: listed with its status and detail, and the page goes on', async () => {
  const junk = Buffer.from('this is not a mesh, whatever its name says\n'.repeat(8));
  const empty = Buffer.from('v 0 0 0\nv 1 0 0\n'); // points, no face
  const theirs = [await importHere(junk, 'model/stl'), await importHere(empty, 'model/obj')];
  for (const t of theirs) assert.equal(t.status, 422, JSON.stringify(t));
  const partsBefore = await page.evaluate(() => window.clashdDemo.parts);
  await drop([{ name: 'junk.stl', bytes: junk }]);
  // the file input too
  await page.setInputFiles('#file', { name: 'points.obj', mimeType: 'model/obj', buffer: empty });
  await drop([{ name: 'notes.txt', bytes: Buffer.from('hello') }]);
  const p = await panel();
  const refused = p.files.filter((f) => f.className === 'problem');
  assert.deepEqual(refused.map((f) => f.name), ['junk.stl', 'points.obj', 'notes.txt']);
  theirs.forEach((t, i) => {
    assert.equal(refused[i].status, String(t.status));
    assert.equal(refused[i].detail, t.body.detail);
    assert.equal(refused[i].text, `${refused[i].name}: clashd ${t.status}: ${t.body.detail}`);
  });
  assert.match(refused[2].text, /^notes\.txt: not a file clashd reads \(\.stl, \.obj, \.glb, \.gltf, \.ply\)$/);
  // nothing added, nothing broken
  assert.deepEqual(await page.evaluate(() => window.clashdDemo.parts), partsBefore);
  await page.evaluate(() => window.clashdDemo.moveTo('box.stl', [0, 0.05, 0]));
  const after0 = await panel();
  assert.equal(after0.shown.error, undefined);
  assert.equal(after0.statusClass, '');
  assert.deepEqual(pageErrors, []);
});

test('no clashd at the address: the page says so', async () => {
  const p = await demo.browser.newPage();
  try {
    const nowhere = 'http://127.0.0.1:1'; // nothing listens on port 1
    await p.goto(`${web.url}?clashd=${encodeURIComponent(nowhere)}`);
    await p.waitForFunction(() => !!window.clashdDemo?.shown()?.error, null, { timeout: 20000 });
    const status = await p.evaluate(() => document.getElementById('status').textContent);
    assert.match(status, /^no answer from clashd at http:\/\/127\.0\.0\.1:1 \(Failed to fetch\)$/);
  } finally {
    await p.close();
  }
});

test('without WebGL: a plain message, not "connecting…"', async () => {
  // Debian's chromium, headless without its software WebGL (SwiftShader)
  // flag, has no WebGL here; --disable-3d-apis makes sure of it.
  const bare = await launchChromium({ args: ['--disable-3d-apis'] });
  try {
    const p = await bare.newPage();
    const errors = [];
    p.on('pageerror', (e) => errors.push(String(e)));
    await p.goto(`${web.url}?clashd=${encodeURIComponent(server.url)}`);
    await p.waitForFunction(() => window.clashdDemo !== undefined, null, { timeout: 20000 });
    const got = await p.evaluate(() => ({
      webgl: window.clashdDemo.webgl,
      status: document.getElementById('status').textContent,
      view: document.getElementById('view').textContent,
      gl: !!document.createElement('canvas').getContext('webgl'),
    }));
    assert.equal(got.gl, false, 'this chromium has no WebGL');
    assert.equal(got.webgl, false);
    assert.match(got.status, /^This page draws the parts with WebGL, which this browser does not give it/);
    assert.equal(got.view, got.status, 'in the view too');
    assert.deepEqual(errors, []);
  } finally {
    await bare.close();
  }
});
