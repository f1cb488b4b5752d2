// The core in the page (local.js, gen/clashd-core.wasm) in node: its reply
// to each Query body, status, media type and bytes, against the reply of
// build/clashd to the same body (local_cases.js: the GJK88 set, random
// pairs with primitives and meshes, motions, damaged lines), byte for
// byte, angles and turning motions too (core/trig.c); then the
// client's local mode: refs answered against the page's own store, an
// upload's summary, and what goes to the server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Clashd, ClashdProblem, LocalCore } from '../clashd.js';
import { startClashd, recordingFetch } from './server.js';
import { loadCases, serverReplies, tally, differences } from './local_cases.js';

let server;
let core;
before(async () => {
  [server, core] = await Promise.all([startClashd(['--threads', '2']), LocalCore.load()]);
});
after(async () => { await server?.stop(); });

test('local replies are the server\'s bytes: GJK88, random pairs, primitives, meshes, motions', async (t) => {
  const cases = loadCases();
  const remote = await serverReplies(server.url, cases);
  const local = cases.map((c) => core.answerBytes('/v1/query', c.body));
  const k = tally(cases, remote);
  // The sample holds every kind it is meant to.
  assert.ok(k.gjk88 >= 2000 && k.random >= 2000 && k.motion >= 500, JSON.stringify(k));
  assert.ok(k.mesh >= 100 && k.primitive >= 100 && k.problem >= 10, JSON.stringify(k));
  const diff = differences(cases, remote, local);
  assert.equal(diff.length, 0, `${diff.length} of ${cases.length} replies differ; first:\n${diff.slice(0, 3).join('\n')}`);
  assert.ok(k.angles >= 100, JSON.stringify(k));
  t.diagnostic(`${cases.length} bodies (${JSON.stringify(k)}): every reply the server's bytes`);
});

// A 2x2x2 cube as a closed mesh (12 triangles), and a sphere.
const cubeMesh = {
  mesh: {
    positions: [0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 2, 2, 2, 0, 2, 2],
    indices: [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7],
  },
};

test('local mode: a ref answered in the page, as the server answers it', async () => {
  const f = recordingFetch();
  const c = new Clashd({ baseUrl: server.url, local: true, fetch: f });
  const q = { a: await c.ref(cubeMesh), b: { sphere: { radius: 0.5 }, pose: { translation: [3, 1, 1] } }, want: ['distance', 'depth'] };
  const local = await c.query(q);
  assert.equal(f.calls.length, 0, 'nothing sent to the server');
  const sent = f.calls.length;
  // The server, asked by the same client (which uploads on the miss).
  const remote = await c.query(q, { local: false });
  assert.deepEqual(local, remote);
  // And byte for byte, the body being a ref both sides hold now.
  const r = await fetch(server.url + '/v1/query', { method: 'POST', body: JSON.stringify(q), headers: { 'Content-Type': 'application/json' } });
  assert.equal(core.answer('/v1/shapes', JSON.stringify(cubeMesh)).status, 201);
  assert.equal(core.answer('/v1/query', JSON.stringify(q)).body, await r.text());
  // The summary of an upload is the server's: the same id.
  const summary = await c.upload(cubeMesh);
  assert.equal(summary.id, q.a.ref);
  assert.deepEqual(f.calls.slice(sent).map((x) => x.path), ['/v1/query', '/v1/shapes', '/v1/query'],
    'only the calls told local: false reach the server');
});

test('local mode: problems thrown as the server\'s; scenes and unknown refs go to the server', async () => {
  const f = recordingFetch();
  const c = new Clashd(server.url, { local: true, fetch: f });
  const bad = { a: { vertices: [[0, 0, 0]] }, b: { vertices: [[1, 1]] } };
  const local = await c.query(bad).catch((e) => e);
  const remote = await c.query(bad, { local: false }).catch((e) => e);
  assert.ok(local instanceof ClashdProblem && remote instanceof ClashdProblem);
  assert.deepEqual([local.status, local.type, local.pointer, local.detail], [remote.status, remote.type, remote.pointer, remote.detail]);
  assert.deepEqual(f.calls.map((x) => x.path), ['/v1/query']); // the one asked of the server
  // A ref this client never made: the server may hold it (here it does not).
  const unknown = 'sha256:' + 'ab'.repeat(32);
  const miss = await c.query({ a: { ref: unknown }, b: { vertices: [[0, 0, 0]] } }).catch((e) => e);
  assert.equal(miss.status, 422);
  assert.deepEqual(miss.missing, [unknown]);
  assert.equal(f.calls.at(-1).path, '/v1/query');
  await c.scene({ objects: [{ id: 'a', shape: cubeMesh }, { id: 'b', shape: { sphere: { radius: 1 } } }] });
  assert.equal(f.calls.at(-1).path, '/v1/scene');
});
