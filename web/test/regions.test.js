// The drawing of clash reports (web/src/regions.js) in node, on answers
// clashd gives: the tinted triangles are those a report lists, at the
// vertices of the mesh that was sent; the curves are its polylines; the
// depth arrow starts at penetration.points.b, points along its normal and
// is as long as its depth.  Mesh pairs answer no depth yet (the browser
// test draws their arrow once they do): the arrow is checked here on a
// convex pair's penetration, which has the same members.
// Environment: CLASHD (the binary).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { startClashd } from '../../clients/js/test/server.js';
import { geometryShape } from '../../clients/js/three.js';
import { RegionView } from '../src/regions.js';

let server;
before(async () => { server = await startClashd([]); });
after(async () => { await server?.stop(); });

async function query(body) {
  const r = await fetch(server.url + '/v1/query', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(r.status, 200, await r.clone().text());
  return r.json();
}
const at = (x, y, z) => ({ matrix: new THREE.Matrix4().makeTranslation(x, y, z).toArray() });
const close = (x, y, tol, what) => x.forEach((v, i) => assert.ok(Math.abs(v - y[i]) <= tol, `${what}: ${x} vs ${y}`));

test('two meshes: the listed triangles of each tinted, the curves drawn, nothing on a part without a mesh', async () => {
  const mesh = geometryShape(new THREE.BoxGeometry(1, 1, 1), { as: 'mesh', weld: true }).mesh;
  const small = geometryShape(new THREE.BoxGeometry(0.4, 0.4, 0.4), { as: 'mesh', weld: true }).mesh;
  // a small cube over one corner of the other
  const result = await query({ a: { mesh }, b: { mesh: small, pose: at(0.5, 0.5, 0.5) }, want: ['regions'] });
  const [region] = result.overlap.regions;
  assert.equal(result.overlap.regions.length, 1);
  for (const side of ['a', 'b']) assert.ok(region.triangles[side].length > 0 && region.triangles[side].length < 12, JSON.stringify(region.triangles));
  const sorted = (list) => [...list].sort((x, y) => x - y);

  const scene = new THREE.Scene();
  const view = new RegionView(scene);
  const cube = { id: 'cube', object: new THREE.Object3D(), mesh };
  const corner = { id: 'corner', object: new THREE.Object3D(), mesh: small };
  assert.deepEqual([...view.draw([{ a: cube, b: corner, result }])].sort(), ['corner', 'cube']);
  const drawn = view.drawn();
  assert.deepEqual(drawn.highlighted, { cube: sorted(region.triangles.a), corner: sorted(region.triangles.b) });
  // the tint under each part: each listed triangle at the sent mesh's
  // vertices, in the part's own frame
  for (const part of [cube, corner]) {
    assert.equal(part.object.children.length, 1);
    const pos = part.object.children[0].geometry.attributes.position.array;
    drawn.highlighted[part.id].forEach((t, k) => {
      for (let j = 0; j < 3; j++) {
        const v = part.mesh.indices[3 * t + j];
        close([0, 1, 2].map((i) => pos[9 * k + 3 * j + i]), [0, 1, 2].map((i) => part.mesh.positions[3 * v + i]), 0, `${part.id} ${t}`);
      }
    });
  }
  // a part drawn without a mesh (a primitive, a hull) gets no tint
  const ball = { id: 'ball', object: new THREE.Object3D(), mesh: undefined };
  assert.deepEqual([...view.draw([{ a: ball, b: corner, result }])], ['corner']);
  assert.equal(ball.object.children.length, 0);
  view.draw([{ a: cube, b: corner, result }]);
  // the curves as the report gives them (float32 on the GPU side)
  assert.equal(drawn.curves.length, region.curve.length);
  drawn.curves.forEach((c, i) => {
    assert.equal(c.closed, region.curve[i].closed);
    assert.equal(c.points.length, region.curve[i].points.length);
    c.points.forEach((p, k) => close(p, region.curve[i].points[k], 1e-6, `curve ${i} point ${k}`));
  });
  assert.deepEqual(drawn.arrows, []);
  // drawing again replaces; clearing leaves nothing
  view.draw([{ a: cube, b: corner, result }]);
  assert.equal(cube.object.children.length, 1);
  view.clear();
  assert.deepEqual(view.drawn(), { highlighted: {}, curves: [], arrows: [] });
  assert.equal(cube.object.children.length + corner.object.children.length, 0);
});

test('the depth arrow: from points.b along the normal, as long as the depth', async () => {
  // two boxes overlapping by 0.3 along x (a convex pair: its answer has the
  // penetration members a mesh pair's will have)
  const result = await query({ a: { box: { half_extents: [0.5, 0.5, 0.5] } }, b: { box: { half_extents: [0.5, 0.5, 0.5] }, pose: at(0.7, 0.1, 0) } });
  const p = result.penetration;
  assert.ok(p.depth > 0 && p.normal && p.points, JSON.stringify(p));
  const view = new RegionView(new THREE.Scene());
  const part = (id) => ({ id, object: new THREE.Object3D(), mesh: undefined });
  view.draw([{ a: part('a'), b: part('b'), result }]);
  const { arrows } = view.drawn();
  assert.equal(arrows.length, 1);
  close(arrows[0].origin, p.points.b, 1e-12, 'origin');
  close(arrows[0].direction, p.normal, 1e-9, 'direction');
  assert.ok(Math.abs(arrows[0].length - p.depth) <= 1e-9, `${arrows[0].length} vs ${p.depth}`);
  close([p.depth], [0.3], 1e-9, 'depth');
});
