// Typed arrays where the wire takes lists of numbers (clashd.d.ts's
// Numbers): the body sent is the JSON of the same request written with
// plain arrays, answered the same by a live clashd and by the local
// module; and the default method's answers that clashd.d.ts types with
// `distance: number` (DefaultResult) have it, on every kind of shape.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Clashd } from '../clashd.js';
import { startClashd, recordingFetch } from './server.js';

let server;
before(async () => { server = await startClashd(['--threads', '1']); });
after(async () => { await server?.stop(); });

/** x with every typed array in it made a plain array (what the wire holds). */
function plain(x) {
  if (ArrayBuffer.isView(x)) return Array.from(x);
  if (Array.isArray(x)) return x.map(plain);
  if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)]));
  return x;
}

const cube = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1]);
const cubeTriangles = new Uint32Array([0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
  2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5]);
const typedQuery = () => ({
  a: { mesh: { positions: cube, indices: cubeTriangles }, pose: { translation: new Float64Array([0.1, 0.2, 0.3]) } },
  b: {
    parts: [
      { box: { half_extents: new Float32Array([0.25, 0.5, 0.125]) }, pose: { translation: new Float32Array([2.5, 0, 0]) } },
      { vertices: [new Float64Array([3, 3, 3]), new Int16Array([4, 3, 3]), [3, 4, 3]] },
      { positions: new Float32Array([0.1, 5, 0, 1.1, 5, 0, 0.1, 6, 0]), dim: 3, radius: 0.05 },
    ],
  },
});

test('live: typed arrays are sent as the numbers plain arrays hold, and answered alike', async () => {
  const f = recordingFetch();
  const c = new Clashd(server.url, { fetch: f });
  const typed = typedQuery();
  const fromTyped = await c.query(typed);
  const fromPlain = await c.query(plain(typed));
  assert.equal(f.calls[0].init.body, JSON.stringify(plain(typed)));
  assert.deepEqual(fromTyped, fromPlain);
  assert.ok(fromTyped.distance > 1, JSON.stringify(fromTyped));
  // A scene, a containment and a batch carry them too.
  const scene = { objects: [{ id: 'a', shape: typed.a }, { id: 'b', shape: typed.b }], clearance: 5 };
  assert.deepEqual(await c.scene(scene), await c.scene(plain(scene)));
  const inner = { vertices: [new Float32Array([0.5, 0.5, 0.5])] };
  const outer = { box: { half_extents: new Float32Array([1, 1, 1]) }, pose: { matrix: new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.25, 0, 0, 1]) } };
  const contained = await c.contains({ inner, outer });
  assert.deepEqual(contained, await c.contains(plain({ inner, outer })));
  assert.equal(contained.contained, true);
  assert.deepEqual(await c.batch([typed, typed]), await c.batch([plain(typed), plain(typed)]));
});

test('live: a typed-array shape uploaded (by ref, on its miss) has the id the client computes', async () => {
  const f = recordingFetch();
  const c = new Clashd(server.url, { fetch: f });
  const typed = typedQuery();
  const ref = await c.ref(typed.a);
  const r = await c.query({ a: ref, b: typed.b });
  assert.deepEqual(f.calls.map((x) => `${x.method} ${x.path} ${x.status}`),
    ['POST /v1/query 422', 'POST /v1/shapes 201', 'POST /v1/query 200']);
  assert.deepEqual(r, await c.query(plain({ a: typed.a, b: typed.b })));
  assert.equal((await c.getShape(ref.ref)).id, ref.ref);
  assert.equal((await c.upload(plain(typed.a))).id, ref.ref);
});

test('local: typed arrays answered in the page as the server answers them', async () => {
  const c = new Clashd(server.url, { local: true });
  const typed = typedQuery();
  assert.deepEqual(await c.query(typed), await c.query(plain(typed), { local: false }));
});

test('live: the default method answers distance and near_points on every kind of shape', async () => {
  const c = new Clashd(server.url);
  const hull = { vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]] };
  const mesh = { mesh: { positions: Array.from(cube), indices: Array.from(cubeTriangles) } };
  const far = { translation: [3, 0, 0] };
  const pairs = [
    [hull, { ...hull, pose: far }],
    [hull, { ...hull, pose: { translation: [0.2, 0.2, 0.2] } }],
    [mesh, { sphere: { radius: 0.5 }, pose: far }],
    [mesh, { sphere: { radius: 0.25 }, pose: { translation: [0.5, 0.5, 0.5] } }],
    [{ parts: [hull, mesh] }, { capsule: { radius: 0.2, half_height: 1 }, pose: far }],
    [{ vertices: [[0, 0], [1, 0], [0, 1]] }, { vertices: [[3, 3]], radius: 0.5 }],
    [{ ...hull, pose_end: { translation: [5, 0, 0] } }, { box: { half_extents: [0.5, 0.5, 0.5] }, pose: { translation: [4, 0, 0] } }],
    [{ ...hull, pose_end: { translation: [0, 5, 0] } }, { box: { half_extents: [0.5, 0.5, 0.5] }, pose: { translation: [4, 0, 0] } }],
  ];
  for (const [a, b] of pairs) {
    for (const extra of [{}, { method: 'gjk' }]) {
      const r = await c.query({ a, b, ...extra });
      assert.equal(typeof r.distance, 'number', JSON.stringify({ a, b, r }));
      assert.equal(r.near_points.a.length, r.near_points.b.length);
    }
  }
});
