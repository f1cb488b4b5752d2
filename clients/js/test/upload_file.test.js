// Mesh files uploaded by the client (upload(file, {format, weld, units})) to a live
// clashd: the ids the server answers against the ids the client computes
// for three.js's STLLoader reading of the same bytes (fileMesh, then
// shapeId), the body kinds (Blob, File, ArrayBuffer, a Uint8Array view),
// the format named, inferred or missing, problems, and local mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { Clashd, ClashdProblem, fileMesh, shapeId } from '../clashd.js';
import { weld } from '../three.js';
import { random } from './random.js';
import { startClashd, recordingFetch } from './server.js';

let server;
before(async () => { server = await startClashd(['--threads', '1', '--store-delete', '1']); });
after(async () => { await server?.stop(); });

/** A binary STL of triangles given as 9 numbers each (written as float32). */
function binarySTL(triangles) {
  const buf = new ArrayBuffer(84 + 50 * triangles.length);
  const dv = new DataView(buf);
  dv.setUint32(80, triangles.length, true);
  triangles.forEach((t, i) => {
    const o = 84 + 50 * i;
    dv.setFloat32(o + 8, 1, true); // normal (0, 0, 1): ignored by both readers
    t.forEach((x, j) => dv.setFloat32(o + 12 + 4 * j, x, true));
  });
  return new Uint8Array(buf);
}

/**
 * `count` triangles over a pool of shared random vertices, so that the
 * join matters: coordinates of every size, some -0 beside +0 of another
 * corner, and (with `degenerate`) triangles with two equal corners, some
 * of whose third corner is used by no other triangle.
 */
function randomTriangles(count, seed, degenerate = false) {
  const rnd = random(seed);
  const pool = Array.from({ length: Math.ceil(count / 2) }, () =>
    [0, 1, 2].map(() => (rnd() < 0.05 ? 0 : (rnd() - 0.5) * 10 ** Math.floor(rnd() * 7 - 3))));
  const signed = (p) => p.map((x) => (x === 0 && rnd() < 0.5 ? -0 : x));
  const pick = () => signed(pool[Math.floor(rnd() * pool.length)]);
  return Array.from({ length: count }, (_, i) => {
    if (degenerate && i % 17 === 5) {
      const p = pick();
      const lone = [rnd() + 100, rnd() - 200, i]; // in no other triangle
      return [...p, ...p, ...lone];
    }
    let a, b, c;
    do { [a, b, c] = [pick(), pick(), pick()]; } while (a.join() === b.join() || b.join() === c.join() || a.join() === c.join());
    return [...a, ...b, ...c];
  });
}

/** three.js's reading of an STL's bytes: its flat float32 positions. */
function loaderPositions(bytes) {
  const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new STLLoader().parse(copy).attributes.position.array;
}

test('live: a binary STL uploaded gets the id the client computes from its own reading', async () => {
  const c = new Clashd(server.url);
  const bytes = binarySTL(randomTriangles(2000, 27));
  const reply = await c.upload(new Blob([bytes]), { format: 'stl' });
  assert.equal(reply.shapes.length, 1);
  const [s] = reply.shapes;
  const positions = loaderPositions(bytes);
  assert.ok(positions instanceof Float32Array);
  const mesh = fileMesh(positions);
  assert.equal(s.id, await shapeId({ mesh }));
  assert.equal(s.vertices, mesh.positions.length / 3);
  assert.equal(s.triangles, 2000);
  assert.ok(mesh.positions.length / 3 < 2000, 'shared vertices were joined');
  // The three.js helpers' exact weld joins the same vertices: same id.
  assert.equal(s.id, await shapeId({ mesh: weld(positions, undefined, 0) }));
  // The file again: stored already (200), same id.
  const again = await c.upload(bytes.buffer, { format: 'stl' });
  assert.equal(again.shapes[0].id, s.id);
  await c.deleteShape(s.id);
});

test('live: triangles with two equal corners: the import keeps their vertices, as fileMesh does', async () => {
  const c = new Clashd(server.url);
  const bytes = binarySTL(randomTriangles(600, 31, true));
  const [s] = (await c.upload(bytes, { format: 'stl' })).shapes;
  const positions = loaderPositions(bytes);
  const mesh = fileMesh(positions);
  assert.equal(s.id, await shapeId({ mesh }));
  assert.equal(s.triangles, mesh.indices.length / 3);
  assert.ok(s.triangles < 600, 'the degenerate triangles were dropped');
  assert.equal(s.vertices, mesh.positions.length / 3);
  // weld() keeps only the vertices of kept triangles: another id here.
  const welded = weld(positions, undefined, 0);
  assert.ok(welded.positions.length < mesh.positions.length);
  assert.notEqual(s.id, await shapeId({ mesh: welded }));
  await c.deleteShape(s.id);
});

test('live: ?weld=x is in the id as the mesh\'s "weld"', async () => {
  const c = new Clashd(server.url);
  const bytes = binarySTL(randomTriangles(300, 33));
  const mesh = fileMesh(loaderPositions(bytes));
  for (const w of [0, 1e-7, 0.25]) {
    const [s] = (await c.upload(bytes, { format: 'stl', weld: w })).shapes;
    assert.equal(s.id, await shapeId({ mesh: { ...mesh, weld: w } }), `weld ${w}`);
    assert.notEqual(s.id, await shapeId({ mesh }));
  }
  await assert.rejects(c.upload(bytes, { format: 'stl', weld: -1 }), RangeError);
});

test('live: ?units=u is in the id as the shape\'s "units", echoed', async () => {
  const f = recordingFetch();
  const c = new Clashd(server.url, { fetch: f });
  const bytes = binarySTL(randomTriangles(200, 37));
  const mesh = fileMesh(loaderPositions(bytes));
  const plain = await shapeId({ mesh });
  for (const units of ['mm', 'cm', 'm', 'in']) {
    const reply = await c.upload(bytes, { format: 'stl', units });
    assert.equal(reply.units, units);
    const [s] = reply.shapes;
    assert.equal(s.units, units);
    assert.equal(s.id, await shapeId({ mesh, units }), `units ${units}`);
    assert.notEqual(s.id, plain);
    // The JSON upload of the same mesh with those units finds it.
    assert.equal((await c.upload({ mesh, units })).id, s.id);
    await c.deleteShape(s.id);
  }
  const [both] = (await c.upload(bytes, { format: 'stl', weld: 0.25, units: 'mm' })).shapes;
  assert.equal(both.id, await shapeId({ mesh: { ...mesh, weld: 0.25 }, units: 'mm' }));
  assert.match(f.calls.at(-1).url, /\?weld=0\.25&units=mm$/);
  const sent = f.calls.length;
  await assert.rejects(c.upload(bytes, { format: 'stl', units: 'ft' }), TypeError);
  await assert.rejects(c.upload(bytes, { format: 'stl', units: 'MM' }), TypeError);
  assert.equal(f.calls.length, sent, 'nothing sent for a bad unit');
});

test('live: body kinds and the format named, inferred or missing', async () => {
  const f = recordingFetch();
  const c = new Clashd(server.url, { fetch: f });
  const bytes = binarySTL(randomTriangles(40, 35));
  const id = await shapeId({ mesh: fileMesh(loaderPositions(bytes)) });
  // A view into a larger buffer: only its bytes go.
  const padded = new Uint8Array(bytes.length + 16);
  padded.set(bytes, 8);
  const bodies = [
    [new Blob([bytes]), { format: 'STL' }],
    [new File([bytes], 'part.stl'), {}],
    [new File([bytes], 'part.bin'), { format: 'model/stl' }],
    [bytes.buffer, { format: 'stl' }],
    [padded.subarray(8, 8 + bytes.length), { format: 'stl' }],
  ];
  for (const [body, options] of bodies) assert.equal((await c.upload(body, options)).shapes[0].id, id);
  for (const call of f.calls) assert.equal(call.init.headers['Content-Type'], 'model/stl');
  assert.equal(f.calls.length, bodies.length);
  await assert.rejects(c.upload(bytes, {}), /say the file's format/);
  await assert.rejects(c.upload(new File([bytes], 'part.step'), {}), TypeError);
  await assert.rejects(c.upload(bytes, { format: 'step' }), /not one of stl, obj, glb, gltf, ply/);
  assert.equal(f.calls.length, bodies.length, 'nothing sent for a format the client cannot name');
  // A PLY's magic names its format.
  const ply = new TextEncoder().encode(['ply', 'format ascii 1.0', 'element vertex 3', 'property float x',
    'property float y', 'property float z', 'element face 1', 'property list uchar int vertex_indices',
    'end_header', '0 0 0', '1 0 0', '0 1 0', '3 0 1 2', ''].join('\n'));
  const [p] = (await c.upload(ply)).shapes;
  assert.equal(f.calls.at(-1).init.headers['Content-Type'], 'application/x-ply');
  assert.equal(p.id, await shapeId({ mesh: { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 2] } }));
});

test('live: a file the server refuses is thrown as its problem', async () => {
  const c = new Clashd(server.url);
  const bad = new TextEncoder().encode('ply\nformat ascii 1.0\nelement vertex 99999\nend_header\n');
  const err = await c.upload(bad, { format: 'ply' }).catch((e) => e);
  assert.ok(err instanceof ClashdProblem, String(err));
  assert.equal(err.status, 422);
  assert.equal(err.type, 'urn:clashd:problem:invalid-query');
  assert.equal(err.pointer, '');
  assert.match(err.detail, /element/);
  const empty = await c.upload(new Uint8Array(0), { format: 'obj' }).catch((e) => e);
  assert.ok(empty instanceof ClashdProblem);
  assert.equal(empty.status, 422);
});

test('live: in local mode a file still goes to the server', async () => {
  const f = recordingFetch();
  const c = new Clashd(server.url, { fetch: f, local: true });
  const bytes = binarySTL(randomTriangles(20, 37));
  const [s] = (await c.upload(bytes, { format: 'stl' })).shapes;
  assert.deepEqual(f.calls.map((x) => `${x.method} ${x.path}`), ['POST /v1/shapes']);
  assert.equal(s.id, await shapeId({ mesh: fileMesh(loaderPositions(bytes)) }));
});
