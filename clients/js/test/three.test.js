// The three.js helpers ('@clashd/client/three'): the shapes made for each
// kind of geometry, welding, poses from matrixWorld, caching, and answers
// as Vector3s; then against a live clashd.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as THREE from 'three';
import { Clashd, canonicalBytes, shapeId } from '../clashd.js';
import { ClashdThree, geometryShape, objectShape, poseOf, primitiveOf, resultVectors, weld } from '../three.js';
import { startClashd, recordingFetch } from './server.js';

/**
 * Whether a triangle mesh is closed and consistently oriented: every edge
 * is used by exactly two triangles, once in each direction.  Answers the
 * first offending edge, or null.
 */
function openEdge({ positions, indices }) {
  const n = positions.length / 3;
  const tri = indices ?? Array.from({ length: n }, (_, i) => i);
  const directed = new Map();
  for (let t = 0; t < tri.length; t += 3) {
    for (let k = 0; k < 3; k++) {
      const u = tri[t + k], v = tri[t + ((k + 1) % 3)];
      const key = u * n + v;
      directed.set(key, (directed.get(key) ?? 0) + 1);
    }
  }
  for (const [key, count] of directed) {
    const u = Math.floor(key / n), v = key % n;
    if (count !== 1 || directed.get(v * n + u) !== 1) return { u, v, count, back: directed.get(v * n + u) ?? 0 };
  }
  return null;
}

/** The signed volume of a closed mesh (> 0 when its triangles face out). */
function volume({ positions, indices }) {
  let v = 0;
  const p = (i) => [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]];
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [p(indices[t]), p(indices[t + 1]), p(indices[t + 2])];
    v += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6;
  }
  return v;
}

/** A square plate with a round hole: an extrusion, non-indexed, seams everywhere. */
function plateWithHole() {
  const s = new THREE.Shape([new THREE.Vector2(-1, -1), new THREE.Vector2(1, -1), new THREE.Vector2(1, 1), new THREE.Vector2(-1, 1)]);
  s.holes.push(new THREE.Path().absarc(0, 0, 0.4, 0, Math.PI * 2, true));
  return new THREE.ExtrudeGeometry(s, { depth: 0.2, bevelEnabled: false, curveSegments: 16 });
}

test('primitives: each three.js geometry that is one, from its parameters', () => {
  assert.deepEqual(geometryShape(new THREE.BoxGeometry(2, 3, 4)), { box: { half_extents: [1, 1.5, 2] } });
  assert.deepEqual(geometryShape(new THREE.BoxGeometry(1, 1, 1, 3, 2, 5)), { box: { half_extents: [0.5, 0.5, 0.5] } });
  assert.deepEqual(geometryShape(new THREE.SphereGeometry(0.7, 32, 16)), { sphere: { radius: 0.7 } });
  assert.deepEqual(geometryShape(new THREE.SphereGeometry(2, 5, 3)), { sphere: { radius: 2 } });
  assert.deepEqual(geometryShape(new THREE.CylinderGeometry(0.5, 0.5, 2, 24)), { cylinder: { radius: 0.5, half_height: 1 } });
  assert.deepEqual(geometryShape(new THREE.CylinderGeometry(0, 0.5, 2, 24)), { cone: { radius: 0.5, half_height: 1 } });
  assert.deepEqual(geometryShape(new THREE.ConeGeometry(0.5, 3, 16)), { cone: { radius: 0.5, half_height: 1.5 } });
  assert.deepEqual(geometryShape(new THREE.CapsuleGeometry(0.3, 1.2, 4, 8)), { capsule: { radius: 0.3, half_height: 0.6 } });
  // three.js's cone has its apex at +y, as clashd's
  const cone = new THREE.ConeGeometry(0.5, 3, 16).attributes.position;
  for (let i = 0; i < cone.count; i++) if (cone.getY(i) === 1.5) assert.ok(Math.hypot(cone.getX(i), cone.getZ(i)) < 1e-12);
  // the axis is local y: a cylinder's vertices span y = -h..h
  const cyl = new THREE.CylinderGeometry(0.5, 0.5, 2, 24);
  cyl.computeBoundingBox();
  assert.deepEqual([cyl.boundingBox.min.y, cyl.boundingBox.max.y], [-1, 1]);
});

test('not primitives: partial sweeps, two radii, moved geometries, other kinds', () => {
  const hull = (g) => {
    const s = geometryShape(g);
    assert.deepEqual(Object.keys(s), ['positions'], g.type);
    assert.deepEqual(s.positions, Array.from(g.attributes.position.array));
    return s;
  };
  hull(new THREE.CylinderGeometry(0.3, 0.5, 2));
  hull(new THREE.CylinderGeometry(0.5, 0.5, 2, 8, 1, true)); // open-ended
  hull(new THREE.CylinderGeometry(0.5, 0.5, 2, 8, 1, false, 0, Math.PI));
  hull(new THREE.SphereGeometry(1, 8, 6, 0, Math.PI * 2, 0, Math.PI / 2)); // a hemisphere
  hull(new THREE.BoxGeometry(1, 1, 1).translate(0, 0.5, 0));
  hull(new THREE.BoxGeometry(1, 2, 1).rotateZ(Math.PI / 2));
  hull(new THREE.SphereGeometry(1).scale(1, 2, 1));
  hull(new THREE.TorusKnotGeometry(1, 0.3, 16, 4));
  assert.equal(primitiveOf(new THREE.TorusKnotGeometry()), undefined);
  assert.throws(() => geometryShape(new THREE.TorusKnotGeometry(), { as: 'primitive' }), TypeError);
  // a primitive asked for as a hull or a mesh
  assert.deepEqual(Object.keys(geometryShape(new THREE.BoxGeometry(), { as: 'hull' })), ['positions']);
  assert.deepEqual(Object.keys(geometryShape(new THREE.BoxGeometry(), { as: 'mesh' })), ['mesh']);
  assert.deepEqual(Object.keys(geometryShape(new THREE.TorusKnotGeometry(1, 0.3, 16, 4), { fallback: 'mesh' })), ['mesh']);
  // JSON takes it as it is (plain arrays, not typed arrays)
  const s = geometryShape(new THREE.TetrahedronGeometry(1));
  assert.deepEqual(JSON.parse(JSON.stringify(s)), s);
});

test('mesh: indices as the geometry has them; a non-indexed geometry as triples', () => {
  const g = new THREE.BoxGeometry(1, 1, 1);
  const { mesh } = geometryShape(g, { as: 'mesh' });
  assert.deepEqual(mesh.positions, Array.from(g.attributes.position.array));
  assert.deepEqual(mesh.indices, Array.from(g.index.array));
  assert.ok(openEdge(mesh), 'a three.js box is not closed by its indices (24 vertices)');
  const flat = new THREE.BoxGeometry(1, 1, 1).toNonIndexed();
  const m2 = geometryShape(flat, { as: 'mesh' }).mesh;
  assert.equal(m2.indices, undefined);
  assert.equal(m2.positions.length, 36 * 3);
});

test('weld closes three.js solids: every edge twice, once each way', () => {
  const solids = {
    box: [new THREE.BoxGeometry(2, 3, 4, 2, 3, 1)],
    sphere: [new THREE.SphereGeometry(1, 24, 12)],
    torusKnot: [new THREE.TorusKnotGeometry(1, 0.3, 96, 12)],
    cylinder: [new THREE.CylinderGeometry(0.5, 0.5, 2, 16, 2)],
    cone: [new THREE.ConeGeometry(0.5, 2, 16)],
    capsule: [new THREE.CapsuleGeometry(0.3, 1, 4, 12)],
    icosahedron: [new THREE.IcosahedronGeometry(1, 2)], // non-indexed
    extrudedPlate: [plateWithHole()],
  };
  for (const [name, [g]] of Object.entries(solids)) {
    const { mesh } = geometryShape(g, { as: 'mesh', weld: true });
    assert.equal(openEdge(mesh), null, `${name} closed after weld`);
    assert.ok(volume(mesh) > 0, `${name} faces out`);
    assert.ok(mesh.positions.length < g.attributes.position.array.length, `${name}: fewer vertices`);
  }
  const box = geometryShape(solids.box[0], { as: 'mesh', weld: true }).mesh;
  assert.ok(Math.abs(volume(box) - 24) < 1e-9, `box volume ${volume(box)}`);
  const sphere = geometryShape(solids.sphere[0], { as: 'mesh', weld: true }).mesh;
  assert.equal(sphere.positions.length / 3, 24 * 11 + 2, 'a UV sphere: 11 rings of 24 and 2 poles');
  // exact-position weld (tolerance 0) misses the sphere's seam: sin(2 pi) is not 0
  const g = solids.sphere[0];
  assert.ok(openEdge(weld(Array.from(g.attributes.position.array), Array.from(g.index.array), 0)));
});

test('weld: tolerance, degenerate triangles dropped, order of first use', () => {
  const w = weld([0, 0, 0, 1, 0, 0, 0, 1, 0, 1e-9, 0, 0, 1, 0, 0, 5, 5, 5], [0, 1, 2, 3, 4, 2, 0, 3, 5], 1e-6);
  assert.deepEqual(w.positions, [0, 0, 0, 1, 0, 0, 0, 1, 0]);
  assert.deepEqual(w.indices, [0, 1, 2, 0, 1, 2]);
  assert.deepEqual(weld([0, 0, 0, 1, 0, 0, 0, 1, 0]), { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 2] });
});

test('mesh ids: the canonical encoding 0x03 of the contract', async () => {
  const mesh = { mesh: { positions: [0, 0, 0, 1, 0, 0, 0, -0, 1], indices: [0, 2, 1] }, radius: 0.5 };
  const want = Buffer.alloc(15 + 1 + 1 + 8 + 72 + 8 + 12 + 8);
  let o = want.write('clashd-shape-v1', 0, 'latin1');
  o = want.writeUInt8(3, o);
  o = want.writeUInt8(3, o);
  o = want.writeBigUInt64LE(3n, o);
  for (const x of [0, 0, 0, 1, 0, 0, 0, 0, 1]) o = want.writeDoubleLE(x, o);
  o = want.writeBigUInt64LE(1n, o);
  for (const i of [0, 2, 1]) o = want.writeUInt32LE(i, o);
  o = want.writeDoubleLE(0.5, o);
  assert.equal(o, want.length);
  assert.deepEqual(Buffer.from(canonicalBytes(mesh)), want);
  assert.equal(await shapeId(mesh), 'sha256:' + createHash('sha256').update(want).digest('hex'));
  // without indices: 0, 1, 2, ...
  const tri = { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0] };
  assert.equal(await shapeId({ mesh: tri }), await shapeId({ mesh: { ...tri, indices: [0, 1, 2] } }));
  // a mesh inside a compound; flat positions are the same bytes as vertices
  assert.ok((await shapeId({ parts: [{ mesh: tri }, { vertices: [[0, 0, 0]] }] })).startsWith('sha256:'));
  assert.equal(await shapeId({ positions: [0, 0, 0, 1, 2, 3] }), await shapeId({ vertices: [[0, 0, 0], [1, 2, 3]] }));
  assert.equal(await shapeId({ positions: [0, 0, 1, 2], dim: 2 }), await shapeId({ vertices: [[0, 0], [1, 2]] }));
  assert.throws(() => canonicalBytes({ mesh: { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 3] } }), /indices\/2/);
  assert.throws(() => canonicalBytes({ mesh: { positions: [0, 0, 0, 1, 0, 0] } }), /whole triangles/);
  // every primitive three.js makes has an id (node 0x04) too
  for (const g of [new THREE.BoxGeometry(1, 2, 3), new THREE.SphereGeometry(1), new THREE.CapsuleGeometry(0.5, 1), new THREE.ConeGeometry(1, 2)])
    assert.match(await shapeId(geometryShape(g)), /^sha256:/);
});

test('pose: matrixWorld, column-major, the object\'s own transform', () => {
  const parent = new THREE.Group();
  parent.position.set(1, 2, 3);
  parent.rotation.set(0.3, -0.2, 0.5);
  parent.scale.set(2, 2, 2);
  const mesh = new THREE.Mesh(new THREE.TorusKnotGeometry(1, 0.3, 16, 4));
  mesh.position.set(-0.5, 0.25, 4);
  mesh.quaternion.setFromAxisAngle(new THREE.Vector3(1, 1, 0).normalize(), 1.1);
  parent.add(mesh);
  const s = objectShape(mesh); // brings matrixWorld up to date
  assert.deepEqual(s.pose, { matrix: Array.from(mesh.matrixWorld.elements) });
  assert.deepEqual(poseOf(mesh), s.pose);
  const m = s.pose.matrix;
  const local = new THREE.Vector3();
  for (let i = 0; i < s.positions.length; i += 3 * 7) {
    const [x, y, z] = s.positions.slice(i, i + 3);
    const byMatrix = [0, 1, 2].map((r) => m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r]);
    const byThree = mesh.localToWorld(local.set(x, y, z));
    for (let r = 0; r < 3; r++) assert.ok(Math.abs(byMatrix[r] - byThree.getComponent(r)) < 1e-12);
  }
  // a group: a compound of its meshes, each posed relative to it
  const group = new THREE.Group();
  group.position.set(5, 0, 0);
  group.rotation.y = 0.7;
  const a = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1));
  const b = new THREE.Mesh(new THREE.SphereGeometry(0.5));
  b.position.set(0, 2, 0);
  group.add(a, b, new THREE.LineSegments(new THREE.EdgesGeometry(a.geometry)));
  const c = objectShape(group);
  assert.equal(c.parts.length, 2);
  assert.deepEqual(c.parts[1].sphere, { radius: 0.5 });
  const rel = new THREE.Matrix4().fromArray(c.parts[1].pose.matrix);
  const world = new THREE.Matrix4().fromArray(c.pose.matrix).multiply(rel);
  world.elements.forEach((e, i) => assert.ok(Math.abs(e - b.matrixWorld.elements[i]) < 1e-12));
});

test('caching: the geometry part is made once per geometry version', async () => {
  const g = new THREE.TorusKnotGeometry(1, 0.3, 64, 8);
  const obj = new THREE.Mesh(g);
  const s1 = objectShape(obj, { as: 'mesh', weld: true });
  obj.position.x += 1;
  obj.rotation.z += 0.3;
  const s2 = objectShape(obj, { as: 'mesh', weld: true });
  assert.equal(s2.mesh, s1.mesh, 'the same geometry object');
  assert.notDeepEqual(s2.pose, s1.pose);
  assert.equal(geometryShape(g, { as: 'mesh', weld: true }), geometryShape(g, { as: 'mesh', weld: true }));
  assert.notEqual(geometryShape(g, { as: 'hull' }), geometryShape(g, { as: 'mesh', weld: true }), 'per options');
  g.translate(0, 1, 0); // sets needsUpdate: a new version
  const s3 = objectShape(obj, { as: 'mesh', weld: true });
  assert.notEqual(s3.mesh, s1.mesh);
  assert.ok(Math.abs(s3.mesh.positions[1] - (s1.mesh.positions[1] + 1)) < 1e-6);

  // ids: computed once per geometry, whatever the pose
  const c = new Clashd('http://127.0.0.1:9');
  let hashed = 0;
  const inner = c.shapeId.bind(c);
  c.shapeId = (s) => { hashed++; return inner(s); };
  const three = new ClashdThree(c, { as: 'mesh', weld: true });
  const r1 = await three.shape(obj);
  obj.position.set(3, 2, 1);
  const r2 = await three.shape(obj);
  assert.equal(r1.ref, r2.ref);
  assert.equal(hashed, 1);
  assert.deepEqual(r2.pose, { matrix: Array.from(obj.matrixWorld.elements) });
  assert.equal(c.shapes.get(r1.ref), geometryShape(g, { as: 'mesh', weld: true }));
  assert.equal(r1.ref, await shapeId(geometryShape(g, { as: 'mesh', weld: true })));
  // a geometry alone: its part, without pose
  assert.equal(objectShape(g, { as: 'mesh', weld: true }), geometryShape(g, { as: 'mesh', weld: true }));
  assert.deepEqual(await three.shape(g), { ref: r1.ref });
  // primitives inline, with their pose
  const ball = new THREE.Mesh(new THREE.SphereGeometry(0.25));
  ball.position.set(1, 1, 1);
  assert.deepEqual(await three.shape(ball, { as: 'auto' }), { sphere: { radius: 0.25 }, pose: { matrix: Array.from(ball.matrixWorld.elements) } });
});

test('resultVectors: points and directions as Vector3s', () => {
  const apart = resultVectors({
    intersecting: false, distance: 2, near_points: { a: [1, 0, 0], b: [3, 0, 0] },
    separating_plane: { normal: [1, 0, 0], offset: 2 }, method: 'gjk', iterations: 1, converged: true,
  }, THREE);
  assert.ok(apart.near.a instanceof THREE.Vector3);
  assert.deepEqual(apart.near.b.toArray(), [3, 0, 0]);
  assert.deepEqual(apart.normal.toArray(), [1, 0, 0]);
  assert.equal(apart.plane.offset, 2);
  assert.equal(apart.contact, undefined);
  const deep = resultVectors({
    intersecting: true, distance: 0, near_points: { a: [0.5, 0, 0], b: [0.5, 0, 0] },
    penetration: { depth: 0.5, normal: [0, 1, 0], points: { a: [0, 1, 0], b: [0, 0.5, 0] } },
    method: 'gjk', iterations: 3, converged: true,
  }, { Vector3: THREE.Vector3 });
  assert.deepEqual(deep.normal.toArray(), [0, 1, 0]);
  assert.equal(deep.penetration.depth, 0.5);
  assert.deepEqual(deep.penetration.points.b.toArray(), [0, 0.5, 0]);
  assert.deepEqual(deep.contact.toArray(), [0.5, 0, 0]);
  const mesh = resultVectors({
    intersecting: true, distance: 0, near_points: { a: [0, 0, 0], b: [0, 0, 0] }, solid: { a: true, b: true },
    intersection: 'a_inside_b', method: 'gjk', iterations: 3, converged: true,
  }, THREE);
  assert.equal(mesh.kind, 'a_inside_b');
  assert.equal(mesh.normal, undefined);
  assert.deepEqual(mesh.contact.toArray(), [0, 0, 0], 'an intersecting answer\'s common point');
  const toi = resultVectors({
    intersecting: false, distance: 1, near_points: { a: [0, 0, 0], b: [1, 0, 0] }, toi: 0.5,
    contact: { point: [0.5, 0, 0], normal: [1, 0, 0] }, method: 'gjk', iterations: 3, converged: true,
  }, THREE);
  assert.deepEqual(toi.contact.toArray(), [0.5, 0, 0]);
  assert.deepEqual(toi.normal.toArray(), [1, 0, 0]);
  assert.equal(toi.kind, undefined);
});

// ---- against clashd ----
let server;
before(async () => { server = await startClashd(['--threads', '1']); });
after(async () => { await server?.stop(); });

test('live: a hull posed by matrixWorld answers as the same points moved by hand', async () => {
  const c = new Clashd(server.url);
  const knot = new THREE.Mesh(new THREE.TorusKnotGeometry(1, 0.3, 48, 6));
  knot.position.set(0.5, 0.2, -0.3);
  knot.rotation.set(0.4, 1.2, -0.3);
  knot.scale.set(1, 1.5, 0.8);
  const probe = new THREE.Mesh(new THREE.OctahedronGeometry(0.5));
  probe.position.set(4, 1, 0.5);
  const r1 = await c.query({ a: objectShape(knot), b: objectShape(probe) });
  const moved = (o) => {
    const p = o.geometry.attributes.position, v = new THREE.Vector3();
    return { vertices: Array.from({ length: p.count }, (_, i) => o.localToWorld(v.fromBufferAttribute(p, i)).toArray()) };
  };
  const r2 = await c.query({ a: moved(knot), b: moved(probe) });
  assert.equal(r1.intersecting, false);
  assert.ok(Math.abs(r1.distance - r2.distance) < 1e-9, `${r1.distance} vs ${r2.distance}`);
  const v = resultVectors(r1, THREE);
  assert.ok(Math.abs(v.near.a.distanceTo(v.near.b) - r1.distance) < 1e-9);
});

test('live: a compound clash shows its deepest pair of parts', async () => {
  const c = new Clashd(server.url);
  // two slabs side by side; b a cube overlapping the first by 0.25 and
  // the second by 0.5 (x from 1.5 to 2.5): the deepest pair is (1, 0)
  const box = (x0, x1) => ({ vertices: [[x0, 0, 0], [x1, 0, 0], [x0, 1, 0], [x1, 1, 0],
    [x0, 0, 1], [x1, 0, 1], [x0, 1, 1], [x1, 1, 1]] });
  const r = await c.query({ a: { parts: [box(0, 1.75), box(2, 3)] }, b: box(1.5, 2.5) });
  assert.equal(r.intersecting, true);
  assert.equal(r.penetration.normal, undefined, 'a compound has only its bound at the top');
  const v = resultVectors(r, THREE);
  assert.equal(v.penetration.pair, true);
  assert.deepEqual([r.near_parts.a, r.near_parts.b], [1, 0]);
  assert.ok(Math.abs(v.penetration.depth - 0.5) < 1e-12, `depth ${v.penetration.depth}`);
  assert.ok(Math.abs(Math.abs(v.penetration.normal.x) - 1) < 1e-12);
  assert.deepEqual(v.normal.toArray(), v.penetration.normal.toArray());
  const one = resultVectors(await c.query({ a: box(2, 3), b: box(1.5, 2.5) }), THREE);
  assert.equal(one.penetration.pair, false);
  assert.equal(one.penetration.depth, v.penetration.depth, 'the pair alone, the same depth');
});

test('live: many moves by ref upload each geometry once', async () => {
  const rec = recordingFetch();
  const c = new Clashd(server.url, { fetch: rec });
  const three = new ClashdThree(c, { as: 'hull' });
  const a = new THREE.Mesh(new THREE.DodecahedronGeometry(0.5));
  const b = new THREE.Mesh(new THREE.TorusKnotGeometry(1, 0.3, 48, 6));
  for (let i = 0; i < 10; i++) {
    a.position.set(2.5 + i * 0.1, 0, 0);
    a.rotation.y = i * 0.2;
    const r = await c.query({ a: await three.shape(a), b: await three.shape(b) });
    assert.equal(typeof r.distance, 'number');
  }
  assert.equal(rec.calls.filter((x) => x.path === '/v1/shapes').length, 2);
  assert.equal(rec.calls.filter((x) => x.path === '/v1/query').length, 11, 'one miss, then poses only');
});

test('live: mesh and primitive forms', async () => {
  const c = new Clashd(server.url);
  const three = new ClashdThree(c, { fallback: 'mesh', weld: true });
  const knot = new THREE.Mesh(new THREE.TorusKnotGeometry(1, 0.3, 64, 8));
  const summary = await c.upload(geometryShape(knot.geometry, { fallback: 'mesh', weld: true }));
  assert.equal(summary.id, (await three.geometry(knot.geometry)).ref, 'the server\'s id is the local one');
  assert.equal(summary.solid, true);
  const ball = new THREE.Mesh(new THREE.SphereGeometry(0.1));
  ball.position.set(5, 0, 0);
  const r = await c.query({ a: await three.shape(ball), b: await three.shape(knot) });
  assert.equal(r.intersecting, false);
  assert.deepEqual(r.solid, { a: true, b: true });
  const cyl = new THREE.Mesh(new THREE.CylinderGeometry(0.5, 0.5, 2));
  const box = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1));
  box.position.set(3, 0, 0);
  const p = await c.query({ a: await three.shape(cyl), b: await three.shape(box) });
  assert.ok(Math.abs(p.distance - 2) < 1e-9, `cylinder to box ${p.distance}`);
  // a ball wholly inside a welded box mesh: the Result's `intersection`
  const shell = new THREE.Mesh(new THREE.BoxGeometry(2, 2, 2));
  const inner = new THREE.Mesh(new THREE.SphereGeometry(0.25));
  inner.position.set(0.3, -0.2, 0.1);
  const q = await c.query({ a: await three.shape(shell, { as: 'mesh' }), b: await three.shape(inner) });
  assert.equal(q.intersecting, true);
  assert.deepEqual(q.solid, { a: true, b: true });
  assert.equal(q.intersection, 'b_inside_a');
  assert.equal(q.contact, undefined, 'contact is a motion\'s');
  assert.equal(q.penetration, undefined);
  assert.equal(resultVectors(q, THREE).kind, 'b_inside_a');
});
