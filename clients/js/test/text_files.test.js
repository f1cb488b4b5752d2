// One text mesh file, two ways into clashd: imported by the server (POST
// /v1/shapes) and read in JavaScript by three.js's loader for its format
// (STLLoader, OBJLoader, PLYLoader), then sent as the client's JSON mesh.
// Both must name the same shape id.  The files' 27 000 coordinates are
// random decimals of 6 to 9 significant digits, the kind libassimp's own
// number reading rounds a float step away from parseFloat-then-
// Float32Array for about one in fifteen, so that a server reading them as
// assimp does gives the file another id.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { Clashd } from '../clashd.js';
import { geometryShape } from '../three.js';
import { random } from './random.js';
import { startClashd } from './server.js';

let server;
before(async () => { server = await startClashd(['--threads', '1', '--store-delete', '1']); });
after(async () => { await server?.stop(); });

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

/** 3 x `triangles` random vertices, each three decimals as text. */
function randomTriangles(triangles, seed) {
  const rnd = random(seed);
  return Array.from({ length: 3 * triangles }, () => [decimal(rnd), decimal(rnd), decimal(rnd)]);
}

const files = {
  stl: {
    type: 'model/stl',
    text: (v) => ['solid random', ...Array.from({ length: v.length / 3 }, (_, t) => [
      '  facet normal 0 0 1', '    outer loop',
      ...v.slice(3 * t, 3 * t + 3).map((p) => `      vertex ${p.join(' ')}`),
      '    endloop', '  endfacet']).flat(), 'endsolid random', ''].join('\n'),
    geometry: (text) => new STLLoader().parse(text),
  },
  obj: {
    type: 'model/obj',
    text: (v) => [...v.map((p) => `v ${p.join(' ')}`),
      ...Array.from({ length: v.length / 3 }, (_, t) => `f ${3 * t + 1} ${3 * t + 2} ${3 * t + 3}`), ''].join('\n'),
    geometry: (text) => new OBJLoader().parse(text).children[0].geometry,
  },
  ply: {
    type: 'application/x-ply',
    text: (v) => ['ply', 'format ascii 1.0', `element vertex ${v.length}`, 'property float x',
      'property float y', 'property float z', `element face ${v.length / 3}`,
      'property list uchar int vertex_indices', 'end_header', ...v.map((p) => p.join(' ')),
      ...Array.from({ length: v.length / 3 }, (_, t) => `3 ${3 * t} ${3 * t + 1} ${3 * t + 2}`), ''].join('\n'),
    geometry: (text) => new PLYLoader().parse(text),
  },
};

for (const [format, file] of Object.entries(files)) {
  test(`live: a ${format} file and three.js's reading of it get one id`, async () => {
    const text = file.text(randomTriangles(3000, 25));
    const c = new Clashd(server.url);

    const res = await fetch(`${server.url}/v1/shapes`, {
      method: 'POST', headers: { 'Content-Type': file.type }, body: text,
    });
    assert.equal(res.status, 201, await res.clone().text());
    const imported = (await res.json()).shapes;
    assert.equal(imported.length, 1);

    const geometry = file.geometry(text);
    assert.equal(geometry.index ? geometry.index.count : geometry.attributes.position.count, 9000);
    // Exact joins only (weld 0), as the import joins a file's vertices.
    const shape = geometryShape(geometry, { as: 'mesh', weld: 0 });
    const local = await c.shapeId(shape);
    assert.equal(imported[0].id, local, 'the id the client computes for the loader\'s geometry');
    const uploaded = await c.upload(shape);
    assert.equal(uploaded.id, imported[0].id, 'the id of the client\'s JSON upload');
    assert.equal(uploaded.vertices, imported[0].vertices);
    await c.deleteShape(imported[0].id);
  });
}
