// One ASCII STL file, two ways into clashd: imported by the server (POST
// /v1/shapes, model/stl) and read in JavaScript by three.js's STLLoader,
// then sent as the client's JSON mesh.  Both must name the same shape id.
// The file's 27 000 coordinates are random decimals of 6 to 9 significant
// digits, the kind libassimp's own number reading rounds a float step
// away from parseFloat-then-Float32Array for about one in ten, so that a
// server reading them as assimp does gives the file another id.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { Clashd } from '../clashd.js';
import { geometryShape } from '../three.js';
import { startClashd } from './server.js';

let server;
before(async () => { server = await startClashd(['--threads', '1']); });
after(async () => { await server?.stop(); });

/** A deterministic generator of numbers in [0, 1) (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random decimal of 6 to 9 significant digits, from 1e-3 to 1e3 in size. */
function decimal(rnd) {
  const digits = 6 + Math.floor(rnd() * 4);
  const exp = Math.floor(rnd() * 7) - 3;
  const mantissa = String(Math.floor(10 ** (digits - 1) * (1 + 9 * rnd())));
  const sign = rnd() < 0.5 ? '-' : '';
  const point = exp + 1; // digits before the decimal point
  if (rnd() < 0.2) return `${sign}${mantissa[0]}.${mantissa.slice(1)}e${exp >= 0 ? '+' : ''}${exp}`;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${mantissa}`;
  if (point >= digits) return `${sign}${mantissa}${'0'.repeat(point - digits)}`;
  return `${sign}${mantissa.slice(0, point)}.${mantissa.slice(point)}`;
}

function asciiStl(triangles, seed) {
  const rnd = random(seed);
  const lines = ['solid random'];
  for (let t = 0; t < triangles; t++) {
    lines.push('  facet normal 0 0 1', '    outer loop');
    for (let v = 0; v < 3; v++) lines.push(`      vertex ${decimal(rnd)} ${decimal(rnd)} ${decimal(rnd)}`);
    lines.push('    endloop', '  endfacet');
  }
  lines.push('endsolid random', '');
  return lines.join('\n');
}

test('live: an ASCII STL file and three.js STLLoader\'s reading of it get one id', async () => {
  const text = asciiStl(3000, 25);
  const c = new Clashd(server.url);

  const res = await fetch(`${server.url}/v1/shapes`, {
    method: 'POST', headers: { 'Content-Type': 'model/stl' }, body: text,
  });
  assert.equal(res.status, 201, await res.clone().text());
  const imported = (await res.json()).shapes;
  assert.equal(imported.length, 1);

  const geometry = new STLLoader().parse(text);
  assert.equal(geometry.attributes.position.count, 9000);
  // Exact joins only (weld 0), as the import joins a file's vertices.
  const shape = geometryShape(geometry, { as: 'mesh', weld: 0 });
  const local = await c.shapeId(shape);
  assert.equal(imported[0].id, local, 'the id the client computes for STLLoader\'s geometry');
  const uploaded = await c.upload(shape);
  assert.equal(uploaded.id, imported[0].id, 'the id of the client\'s JSON upload');
  assert.equal(uploaded.vertices, imported[0].vertices);
});
