// The client against a live clashd: every endpoint, the problem types,
// upload-on-miss, shape ids (primitives' and mixed compounds' too),
// Retry-After, abort and CORS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createHash } from 'node:crypto';
import { Clashd, ClashdProblem, fromPositions, shapeId, canonicalBytes, firstRef, ROUTE_HEADER, UNITS } from '../clashd.js';
import { startClashd, recordingFetch } from './server.js';

const ORIGIN = 'http://example.test';
const cube = (s = 1, [x, y, z] = [0, 0, 0]) => ({
  vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]]
    .map(([a, b, c]) => [x + s * a, y + s * b, z + s * c]),
});

let main; // defaults, plus CORS for example.test
let small; // --max-body 1024, --max-queue 1: 413 and 503
let authed; // --auth-token-file

before(async () => {
  const fs = await import('node:fs/promises');
  const os = await import('node:os');
  const dir = await fs.mkdtemp((await import('node:path')).join(os.tmpdir(), 'clashd-js-'));
  await fs.writeFile(dir + '/token', 'sesame\n');
  [main, small, authed] = await Promise.all([
    // Deleting shapes is off by default (a shared store): these tests delete.
    startClashd(['--cors-origin', ORIGIN, '--threads', '1', '--store-delete', '1']),
    startClashd(['--max-body', '1024', '--max-queue', '1', '--max-queue-per-client', '0', '--threads', '1']),
    startClashd(['--auth-token-file', dir + '/token', '--threads', '1']),
  ]);
});
after(async () => {
  await Promise.all([main, small, authed].filter(Boolean).map((s) => s.stop()));
});

test('query: two cubes 2 apart', async () => {
  const c = new Clashd(main.url);
  const r = await c.query({ a: cube(), b: { ...cube(), pose: { translation: [3, 0, 0] } } });
  assert.equal(r.intersecting, false);
  assert.equal(r.distance, 2);
  assert.deepEqual(r.near_points, { a: [1, 0, 0], b: [3, 0, 0] });
  assert.equal(r.method, 'gjk');
});

test('batch: a Result and a Problem item', async () => {
  const c = new Clashd(main.url);
  const r = await c.batch([
    { a: { vertices: [[0, 0], [1, 0], [0, 1]] }, b: { vertices: [[3, 0], [4, 0], [3, 1]] } },
    { a: { vertices: [[0, 0]] }, b: { vertices: [[1, 1, 1]] } },
  ]);
  assert.equal(r.results.length, 2);
  assert.equal(r.results[0].distance, 2);
  assert.equal(r.results[1].type, 'urn:clashd:problem:invalid-query');
  assert.equal(r.results[1].pointer, '/queries/1/b/vertices/0');
});

test('scene: a clash and a clearance', async () => {
  const c = new Clashd(main.url);
  const r = await c.scene({
    objects: [
      { id: 'floor', shape: cube(4, [0, 0, -1]) },
      { id: 'crate', shape: cube(1, [0.5, 0.5, 2.5]) },
      { id: 'lamp', shape: cube(1, [10, 10, 3.2]) },
    ],
    clearance: 0.5,
  });
  assert.equal(r.truncated, false);
  assert.deepEqual(r.clashes.map((k) => [k.a, k.b, k.class]), [['floor', 'crate', 'clash']]);
  assert.deepEqual(r.counts, { clash: 1, touch: 0, clearance: 0, duplicate: 0 });
});

test('contains: a small box in the unit cube, one corner out', async () => {
  const c = new Clashd(main.url);
  const inside = await c.contains({ inner: cube(0.5, [0.25, 0.25, 0.25]), outer: cube() });
  assert.equal(inside.contained, true);
  const out = await c.contains({ inner: cube(0.5, [0.25, 0.25, 0.6]), outer: cube() });
  assert.equal(out.contained, false);
  assert.equal(typeof out.outside_vertex, 'number');
});

test('shapes: upload, get, head, delete', async () => {
  const c = new Clashd(main.url);
  const s = { vertices: [[0, 0, 0], [2, 0, 0], [0, 2, 0], [0, 0, 2]], radius: 0.125 };
  const first = await c.upload(s);
  assert.equal(first.id, await shapeId(s));
  assert.equal(first.dim, 3);
  assert.equal(first.vertices, 4);
  const again = await c.upload(s);
  assert.equal(again.id, first.id);
  assert.deepEqual(await c.getShape(first.id), first);
  assert.equal(await c.hasShape(first.id), true);
  await c.deleteShape(first.id);
  assert.equal(await c.hasShape(first.id), false);
  await assert.rejects(c.getShape(first.id), (e) => e instanceof ClashdProblem && e.status === 404 &&
    e.type === 'urn:clashd:problem:not-found');
  await assert.rejects(c.deleteShape(first.id), (e) => e.status === 404);
});

test('health, readiness and the contract', async () => {
  const c = new Clashd(main.url);
  assert.deepEqual(await c.health('livez'), { ok: true, status: 'ok' });
  const ready = await c.health('readyz');
  assert.equal(ready.ok, true);
  const doc = await c.openapi();
  assert.equal(doc.openapi, '3.1.0');
  assert.ok(doc.paths['/v1/shapes']);
});

test('shapeId equals the server id: compounds, radius, 1 vs 1.0, -0, Float32Array', async () => {
  const c = new Clashd(main.url);
  const f32 = new Float32Array([0.1, 0.2, 0.3, 1.5, -2.25, 1e-7, 3, 4, 5]);
  const shapes = [
    { vertices: [[1, 2, 3]] },
    { vertices: [[0, 0], [1, 0], [0, 1]], radius: 0.5 },
    { vertices: [[-0, 0, 0], [1, 1, 1]] },
    { vertices: [[1e-300, 1.7976931348623157e308]] },
    { parts: [cube(), { vertices: [[5, 5, 5]], radius: 1 }] },
    { parts: [{ parts: [cube(2), cube(1, [3, 0, 0])], radius: 0.25 }, cube(0.5)], radius: 0.1 },
    fromPositions(f32),
    fromPositions([0, 0, 1, 0, 0, 1, 1, 1], 2),
  ];
  for (const s of shapes) {
    const local = await shapeId(s);
    assert.match(local, /^sha256:[0-9a-f]{64}$/);
    const summary = await c.upload(s);
    assert.equal(local, summary.id, JSON.stringify(s));
  }
  // The same numbers written otherwise: 1 and 1.0 and 1e0 are one double,
  // -0 is 0, an absent radius is 0.
  const body = '{"vertices": [[1.0, 2e0, -0.0]], "radius": 0.0}';
  const r = await fetch(main.url + '/v1/shapes', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  assert.equal((await r.json()).id, await shapeId({ vertices: [[1, 2, 0]] }));
  // An independent digest of the same bytes (node's own SHA-256).
  const bytes = canonicalBytes(shapes[4]);
  assert.equal(await shapeId(shapes[4]), 'sha256:' + createHash('sha256').update(bytes).digest('hex'));
  // A pose is not geometry: the client's id ignores it.
  assert.equal(await c.shapeId({ ...cube(), pose: { translation: [1, 2, 3] } }), await shapeId(cube()));
});

test('units are part of an id: [0x10, unit] after dim, equal to the server\'s; mixed units rejected', async () => {
  const c = new Clashd(main.url);
  const tet = { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], indices: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3] };
  const plain = [cube(), { mesh: { ...tet, weld: 0 } }, { parts: [cube(), { sphere: { radius: 1 } }] }];
  const ids = new Set();
  for (const [k, units] of UNITS.entries()) {
    for (const s of plain) {
      // the unit on the shape, or on a part only: the same bytes
      const named = [{ ...s, units }, ...(s.parts ? [{ ...s, parts: [s.parts[0], { ...s.parts[1], units }] }] : [])];
      for (const n of named) {
        const head = Buffer.from(canonicalBytes(s).subarray(0, 16));
        const want = Buffer.concat([head, Buffer.from([0x10, k + 1]), Buffer.from(canonicalBytes(s).subarray(16))]);
        assert.deepEqual(Buffer.from(canonicalBytes(n)), want, JSON.stringify(n));
        const summary = await c.upload(n);
        assert.equal(summary.id, await shapeId(n), JSON.stringify(n));
        assert.equal(summary.units, units);
        ids.add(summary.id);
      }
    }
  }
  assert.equal(ids.size, UNITS.length * plain.length, 'one id per shape and unit');
  for (const s of plain) assert.ok(!ids.has(await shapeId(s)), 'none is the id without units');
  // by ref (uploaded on the miss), the answer echoes the stored unit
  const fresh = new Clashd(main.url);
  const a = await fresh.ref({ ...cube(1, [0, 0, 0.25]), units: 'in' });
  const r = await fresh.query({ a, b: { ...cube(), pose: { translation: [3, 0, 0] } } });
  assert.equal(r.units, 'in');
  assert.equal(r.distance, 2);
  // two units in one shape: where the server says 422
  const mixed = { parts: [{ ...cube(), units: 'mm' }, { ...cube(2), units: 'in' }] };
  assert.throws(() => canonicalBytes(mixed), /^TypeError: \/parts\/1\/units: in, but \/parts\/0\/units is mm$/);
  const p = await c.upload(mixed).catch((e) => e);
  assert.ok(p instanceof ClashdProblem && p.status === 422, String(p));
  assert.equal(p.pointer, '/parts/1/units');
  assert.throws(() => canonicalBytes({ ...cube(), units: 'ft' }), /^TypeError: \/units: not one of mm, cm, m, in$/);
});

test('primitive ids: node 0x04, each kind equal to the server\'s', async () => {
  const c = new Clashd(main.url);
  const prims = [
    { sphere: { radius: 0.7 } },
    { box: { half_extents: [1, 1.5, 2] } },
    { capsule: { radius: 0.3, half_height: 0.6 } },
    { cylinder: { radius: 0.5, half_height: 1 } },
    { cone: { radius: 0.5, half_height: 1.5 }, radius: 0.05 },
    { ellipsoid: { radii: [0.1, 0.2, 0.3] } },
  ];
  const ids = new Set();
  for (const [k, s] of prims.entries()) {
    // the bytes as the contract writes them (ShapeId), built here independently
    const kind = Object.keys(s)[0];
    const p = s[kind];
    const sizes = p.half_extents ?? p.radii ?? [p.radius, ...(p.half_height !== undefined ? [p.half_height] : [])];
    const want = Buffer.alloc(15 + 1 + 1 + 1 + 8 * sizes.length + 8);
    let o = want.write('clashd-shape-v1', 0, 'latin1');
    o = want.writeUInt8(3, o); // dim
    o = want.writeUInt8(4, o); // node(primitive)
    o = want.writeUInt8(k + 1, o); // 1 sphere ... 6 ellipsoid
    for (const x of sizes) o = want.writeDoubleLE(x, o);
    want.writeDoubleLE(s.radius ?? 0, o);
    assert.deepEqual(Buffer.from(canonicalBytes(s)), want, kind);
    const local = await shapeId(s);
    assert.equal(local, 'sha256:' + createHash('sha256').update(want).digest('hex'));
    const summary = await c.upload(s);
    assert.equal(summary.id, local, JSON.stringify(s));
    ids.add(local);
  }
  assert.equal(ids.size, prims.length);
  // The same sizes under another kind: another id (the kind byte).
  assert.notEqual(await shapeId({ cone: prims[3].cylinder }), await shapeId(prims[3]));
  // The numbers written otherwise (7e-1, -0.0): the same id.
  const body = '{"sphere": {"radius": 7e-1}, "radius": -0.0}';
  const r = await fetch(main.url + '/v1/shapes', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  assert.equal((await r.json()).id, await shapeId(prims[0]));
  // A compound mixing a mesh, a primitive and vertices, nested, with radii.
  const mixed = {
    parts: [
      { mesh: { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], indices: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3] } },
      { box: { half_extents: [0.5, 0.25, 0.125] }, radius: 0.01 },
      { parts: [{ vertices: [[2, 0, 0], [3, 0, 0], [2, 1, 0]] }, { cylinder: { radius: 0.2, half_height: 0.4 } }], radius: 0.1 },
    ],
  };
  assert.equal((await c.upload(mixed)).id, await shapeId(mixed));
  // A mesh's weld, when sent, is part of its id (0, -0 as 0, and another
  // number: three ids, none the id without it).
  const tet = mixed.parts[0].mesh;
  const welded = [0, -0, 1e-4].map((weld) => ({ parts: [{ mesh: { ...tet, weld } }, mixed.parts[1]] }));
  for (const s of welded) assert.equal((await c.upload(s)).id, await shapeId(s));
  assert.equal(await shapeId(welded[0]), await shapeId(welded[1]));
  assert.notEqual(await shapeId(welded[0]), await shapeId(welded[2]));
  assert.notEqual(await shapeId(welded[0]), await shapeId({ parts: [{ mesh: tet }, mixed.parts[1]] }));
  assert.throws(() => canonicalBytes({ mesh: { ...tet, weld: -1 } }), /\/mesh\/weld/);
  // A compound whose first part is a primitive is 3-D.
  const first = { parts: [{ sphere: { radius: 1 } }, { vertices: [[5, 0, 0]] }] };
  assert.equal((await c.upload(first)).id, await shapeId(first));
});

test('primitive ids: sizes must be finite numbers > 0 (TypeError at the path)', async () => {
  const bad = [
    [{ sphere: { radius: 0 } }, '/sphere/radius'],
    [{ sphere: {} }, '/sphere/radius'],
    [{ box: { half_extents: [1, -1, 1] } }, '/box/half_extents/1'],
    [{ box: { half_extents: [1, 1] } }, '/box/half_extents'],
    [{ capsule: { radius: 1, half_height: Infinity } }, '/capsule/half_height'],
    [{ cone: { radius: NaN, half_height: 1 } }, '/cone/radius'],
    [{ ellipsoid: { radii: [1, 1, '1'] } }, '/ellipsoid/radii/2'],
    [{ parts: [{ vertices: [[0, 0, 0]] }, { cylinder: { radius: 1, half_height: -0 } }] }, '/parts/1/cylinder/half_height'],
    [{ parts: [{ vertices: [[0, 0]] }, { sphere: { radius: 1 } }] }, '/parts/1/sphere'],
  ];
  for (const [s, at] of bad) {
    assert.throws(() => canonicalBytes(s), (e) => e instanceof TypeError && e.message.startsWith(at + ':'), `${JSON.stringify(s)}: ${at}`);
  }
  await assert.rejects(new Clashd(main.url).ref({ box: { half_extents: [1, 0, 1] } }), TypeError);
});

test('a primitive by ref: uploaded on the first miss, answered as inline', async () => {
  const rec = recordingFetch();
  const c = new Clashd(main.url, { fetch: rec });
  const ball = { ellipsoid: { radii: [0.5, 0.75, 1.25] }, radius: 0.125 };
  const other = { vertices: [[3, 0.1, 0.2]] };
  const inline = await c.query({ a: { ...ball, pose: { translation: [0, 0.5, 0] } }, b: other });
  const ref = await c.ref(ball, { pose: { translation: [0, 0.5, 0] } });
  assert.deepEqual(Object.keys(ref), ['ref', 'pose']);
  const byRef = await c.query({ a: ref, b: other });
  assert.equal(byRef.distance, inline.distance);
  assert.deepEqual(byRef.near_points, inline.near_points);
  assert.deepEqual(rec.calls.map((x) => `${x.method} ${x.path} ${x.status}`),
    ['POST /v1/query 200', 'POST /v1/query 422', 'POST /v1/shapes 201', 'POST /v1/query 200']);
  assert.equal(rec.calls[2].init.body, JSON.stringify(ball), 'the geometry went up, without pose');
});

test('fromPositions: flat arrays to points', () => {
  assert.deepEqual(fromPositions(new Float32Array([1, 2, 3, 4, 5, 6])), { vertices: [[1, 2, 3], [4, 5, 6]] });
  assert.deepEqual(fromPositions([1, 2, 3, 4], 2), { vertices: [[1, 2], [3, 4]] });
  assert.throws(() => fromPositions([1, 2, 3, 4]), RangeError);
  assert.throws(() => fromPositions([], 3), RangeError);
  assert.throws(() => fromPositions([1], 9), RangeError);
});

test('upload on miss: one upload, one retry (query and batch)', async () => {
  const f = recordingFetch();
  const c = new Clashd(main.url, { fetch: f });
  const part = { vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.3, 0.3, 0.3]] };
  const a = await c.ref(part, { pose: { translation: [0, 0, 0] } });
  await c.upload(part);
  await c.deleteShape(a.ref);
  f.calls.length = 0;
  const r = await c.query({ a, b: { vertices: [[3, 0, 0]] } });
  assert.equal(r.distance, 2);
  assert.deepEqual(f.calls.map((k) => `${k.method} ${k.path} ${k.status}`),
    ['POST /v1/query 422', 'POST /v1/shapes 201', 'POST /v1/query 200']);
  // The same for a batch: only the item that missed is sent again.
  await c.deleteShape(a.ref);
  f.calls.length = 0;
  const b = await c.batch([
    { a: cube(), b: { vertices: [[3, 0, 0]] } },
    { a, b: { vertices: [[0, 0, 4]] } },
  ]);
  assert.equal(b.results[0].distance, 2);
  assert.equal(b.results[1].distance, 3);
  assert.deepEqual(f.calls.map((k) => `${k.method} ${k.path} ${k.status}`),
    ['POST /v1/batch 200', 'POST /v1/shapes 201', 'POST /v1/batch 200']);
  assert.equal(JSON.parse(f.calls[2].init.body).queries.length, 1);
});

test('routeBy first-ref: X-Clashd-Shape on requests by ref and their uploads', async () => {
  const f = recordingFetch();
  const c = new Clashd(main.url, { fetch: f, routeBy: 'first-ref' });
  const route = (k) => k.init.headers[ROUTE_HEADER];
  const part = { vertices: [[0, 0, 0], [2, 0, 0], [0, 2, 0], [0, 0, 2], [0.4, 0.4, 0.4]] };
  const other = { vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 3]] };
  const a = await c.ref(part);
  const b = await c.ref(other, { pose: { translation: [5, 0, 0] } });
  // A miss: the query, the upload of both, the query again: all routed by a.
  const r = await c.query({ a, b });
  assert.equal(r.intersecting, false);
  assert.deepEqual(f.calls.map((k) => `${k.method} ${k.path} ${k.status} ${route(k)}`).sort(),
    [`POST /v1/query 200 ${a.ref}`, `POST /v1/query 422 ${a.ref}`,
      `POST /v1/shapes 201 ${a.ref}`, `POST /v1/shapes 201 ${a.ref}`].sort());
  f.calls.length = 0;
  // The first ref in document order: b's here (a inline); in a batch, the
  // first query's; an explicit route wins; no ref, no header.
  await c.query({ a: cube(), b });
  await c.batch([{ a: cube(), b: cube() }, { a: b, b: a }]);
  await c.query({ a, b }, { route: b.ref });
  await c.query({ a: cube(), b: cube() });
  await c.query({ a, b }, { route: '' });
  assert.deepEqual(f.calls.map(route), [b.ref, b.ref, b.ref, undefined, undefined]);
  // A direct upload is routed by its own id.
  f.calls.length = 0;
  await c.upload(other);
  assert.equal(route(f.calls[0]), b.ref);
  // Without routeBy nothing is sent; clashd answers the same either way.
  const g = recordingFetch();
  const plain = new Clashd(main.url, { fetch: g });
  await plain.ref(part);
  assert.deepEqual(await plain.query({ a, b }), r);
  assert.ok(g.calls.every((k) => route(k) === undefined));
  assert.throws(() => new Clashd(main.url, { routeBy: 'main' }), RangeError);
  assert.equal(firstRef({ a: { vertices: [[0, 0]], pose: { translation: [0, 0] } }, b: { parts: [{ ref: 'x' }] } }), 'x');
  assert.equal(firstRef({ objects: [{ shape: { vertices: [[1]] } }] }), undefined);
});

test('unknown-shape for a ref the client has no geometry of', async () => {
  const c = new Clashd(main.url);
  const id = 'sha256:' + '0'.repeat(64);
  await assert.rejects(c.query({ a: { ref: id }, b: cube() }), (e) => {
    assert.ok(e instanceof ClashdProblem);
    assert.equal(e.status, 422);
    assert.equal(e.type, 'urn:clashd:problem:unknown-shape');
    assert.equal(e.pointer, '/a/ref');
    assert.deepEqual(e.missing, [id]);
    return true;
  });
});

test('problems: 400, 401, 413, 415, 422 as ClashdProblem', async () => {
  const c = new Clashd(main.url);
  // 400: nesting deeper than --max-depth (64)
  let deep = [0];
  for (let i = 0; i < 70; i++) deep = [deep];
  await assert.rejects(c.query({ a: { vertices: deep }, b: cube() }), (e) =>
    e instanceof ClashdProblem && e.status === 400 && e.type === 'urn:clashd:problem:malformed-json' &&
    typeof e.pointer === 'string');
  // 422 with its pointer
  await assert.rejects(c.query({ a: cube(), b: { ...cube(), radius: -1 } }), (e) =>
    e.status === 422 && e.type === 'urn:clashd:problem:invalid-query' && e.pointer === '/b/radius' &&
    /radius/.test(e.detail) && e.title === 'Invalid query');
  // 413: a body over --max-body
  await assert.rejects(new Clashd(small.url).upload({ vertices: Array.from({ length: 200 }, (_, i) => [i, i, i]) }),
    (e) => e.status === 413 && e.type === 'urn:clashd:problem:payload-too-large');
  // 415: a fetch that declares another media type
  const textPlain = (url, init) => fetch(url, { ...init, headers: { ...init.headers, 'Content-Type': 'text/plain' } });
  await assert.rejects(new Clashd(main.url, { fetch: textPlain }).query({ a: cube(), b: cube() }), (e) =>
    e.status === 415 && e.type === 'urn:clashd:problem:unsupported-media-type');
  // 401 without the token, 200 with it
  await assert.rejects(new Clashd(authed.url).query({ a: cube(), b: cube() }), (e) =>
    e.status === 401 && e.type === 'urn:clashd:problem:unauthorized');
  await assert.rejects(new Clashd(authed.url, { token: 'wrong' }).query({ a: cube(), b: cube() }), (e) => e.status === 401);
  const ok = await new Clashd(authed.url, { token: 'sesame' }).query({ a: cube(), b: cube() });
  assert.equal(ok.intersecting, true);
});

// Holds one of the server's query slots: a POST whose body has not all come.
async function holdSlot(server) {
  const sock = net.connect(server.port, server.host);
  await new Promise((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
  const body = JSON.stringify({ a: { vertices: [[0, 0]] }, b: { vertices: [[1, 0]] } });
  sock.write(`POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n` + body.slice(0, 5));
  let answer = '';
  sock.on('data', (d) => { answer += d; });
  const done = new Promise((resolve) => sock.once('close', () => resolve(answer)));
  // Wait until the server has admitted it: /readyz says overloaded.
  for (let i = 0; i < 200; i++) {
    const r = await fetch(server.url + '/readyz');
    await r.body?.cancel();
    if (r.status === 503) break;
    await new Promise((res) => setTimeout(res, 10));
  }
  return { release() { sock.write(body.slice(5)); return done; } };
}

test('503 with Retry-After: waits, then succeeds', async () => {
  const held = await holdSlot(small);
  const f = recordingFetch();
  const c = new Clashd(small.url, { fetch: f });
  const t0 = performance.now();
  setTimeout(() => held.release(), 200);
  const r = await c.query({ a: { vertices: [[0, 0]] }, b: { vertices: [[3, 0]] } });
  const ms = performance.now() - t0;
  assert.equal(r.distance, 3);
  assert.deepEqual(f.calls.map((k) => k.status), [503, 200]);
  assert.equal(f.calls[0].response.headers.get('retry-after'), '1');
  assert.ok(ms >= 950, `retried after ${ms} ms, before the Retry-After second`);
});

test('503 retries are bounded', async () => {
  const held = await holdSlot(small);
  const f = recordingFetch();
  const c = new Clashd(small.url, { fetch: f, maxRetries: 1, maxRetryWait: 50 });
  await assert.rejects(c.query({ a: { vertices: [[0, 0]] }, b: { vertices: [[3, 0]] } }), (e) =>
    e.status === 503 && e.type === 'urn:clashd:problem:unavailable' && e.retryAfter === 1);
  assert.deepEqual(f.calls.map((k) => k.status), [503, 503]);
  const answer = await held.release();
  assert.match(answer, /^HTTP\/1\.1 200/);
});

test('abort: before the call, and during a Retry-After wait', async () => {
  const c = new Clashd(main.url);
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(c.query({ a: cube(), b: cube() }, { signal: ac.signal }), { name: 'AbortError' });

  const held = await holdSlot(small);
  const ac2 = new AbortController();
  const t0 = performance.now();
  setTimeout(() => ac2.abort(), 100);
  await assert.rejects(new Clashd(small.url).query({ a: { vertices: [[0, 0]] }, b: { vertices: [[3, 0]] } },
    { signal: ac2.signal }), { name: 'AbortError' });
  assert.ok(performance.now() - t0 < 900, 'the abort did not wait for Retry-After');
  await held.release();
});

test('abort: a request in flight', async () => {
  // A server that takes the request and never answers: the fetch is in
  // flight until the signal stops it.
  const http = await import('node:http');
  let seen;
  const got = new Promise((resolve) => { seen = resolve; });
  const silent = http.createServer((req) => { seen(req.url); });
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const ac = new AbortController();
    const c = new Clashd(`http://127.0.0.1:${silent.address().port}`);
    const pending = c.scene({ objects: [] }, { signal: ac.signal });
    assert.equal(await got, '/v1/scene');
    ac.abort();
    await assert.rejects(pending, { name: 'AbortError' });
  } finally {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  }
});

test('CORS: preflight and request from an allowed origin', async () => {
  const pre = await fetch(main.url + '/v1/query', {
    method: 'OPTIONS',
    headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type, authorization, x-clashd-shape' },
  });
  await pre.body?.cancel();
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), ORIGIN);
  assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
  assert.match((pre.headers.get('access-control-allow-headers') ?? '').toLowerCase(), /content-type/);
  assert.match((pre.headers.get('access-control-allow-headers') ?? '').toLowerCase(), /x-clashd-shape/);

  const f = recordingFetch((url, init) => fetch(url, { ...init, headers: { ...init.headers, Origin: ORIGIN } }));
  const c = new Clashd(main.url, { fetch: f });
  await c.query({ a: cube(), b: cube() });
  assert.equal(f.calls[0].response.headers.get('access-control-allow-origin'), ORIGIN);
  // A problem is readable from that origin too.
  await assert.rejects(c.query({ a: cube() }), (e) => e.status === 422);
  assert.equal(f.calls[1].response.headers.get('access-control-allow-origin'), ORIGIN);

  // Another origin gets no Access-Control-Allow-Origin.
  const other = await fetch(main.url + '/v1/query', {
    method: 'POST', headers: { Origin: 'http://evil.test', 'Content-Type': 'application/json' },
    body: JSON.stringify({ a: cube(), b: cube() }),
  });
  await other.body?.cancel();
  assert.equal(other.headers.get('access-control-allow-origin'), null);
});

test('problems: 429 (per client) and 504 (deadline) as ClashdProblem', async () => {
  const [perClient, hurried] = await Promise.all([
    startClashd(['--max-queue', '4', '--max-queue-per-client', '1', '--threads', '1']),
    startClashd(['--request-timeout', '5ms', '--threads', '1']),
  ]);
  try {
    // 429: this address already has its one query admitted (a body not
    // all sent); the client gives up after its retries.
    const sock = net.connect(perClient.port, perClient.host);
    await new Promise((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
    sock.write('POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      'Content-Length: 100\r\nConnection: close\r\n\r\n{');
    const c = new Clashd(perClient.url, { maxRetries: 0 });
    let got = null;
    for (let i = 0; i < 100 && !got; i++) {
      got = await c.query({ a: cube(), b: cube() }).then(() => null, (e) => e);
      if (!got) await new Promise((res) => setTimeout(res, 10));
    }
    sock.destroy();
    assert.ok(got instanceof ClashdProblem, `no 429 came: ${got}`);
    assert.equal(got.status, 429);
    assert.equal(got.type, 'urn:clashd:problem:too-many-requests');
    assert.ok(got.retryAfter >= 1);
    // 504: two clouds of 100 000 points cannot be read and answered in 5 ms.
    const cloud = (seed) => {
      const v = new Array(300000);
      let x = seed;
      for (let i = 0; i < v.length; i++) { x = (x * 1103515245 + 12345) % 2147483648; v[i] = x / 2147483648; }
      return { positions: v };
    };
    await assert.rejects(new Clashd(hurried.url).query({ a: cloud(1), b: cloud(2) }), (e) =>
      e instanceof ClashdProblem && e.status === 504 && e.type === 'urn:clashd:problem:timeout' &&
      /request-timeout|deadline|time/.test(e.detail));
  } finally {
    await Promise.all([perClient.stop(), hurried.stop()]);
  }
});
