// three.js helpers for the clashd client ('@clashd/client/three'): a Shape
// from a BufferGeometry or an Object3D (its convex hull, a mesh solid, or
// a primitive where the geometry is one), posed by `matrixWorld`, and
// answers mapped back to Vector3s.  This module imports nothing from
// 'three' (a peer dependency): it reads the objects it is given, and
// builds vectors with the Vector3 class it is passed, so a bundle holds one
// copy of three.js.  docs/client.md describes it.
import { Clashd, primitiveKind } from './clashd.js';

const TAU = 2 * Math.PI;
const ANGLE_EPS = 1e-9;

function positionAttribute(geometry) {
  const a = geometry?.attributes?.position;
  if (!a || typeof a.count !== 'number') throw new TypeError('a BufferGeometry with a position attribute is needed');
  return a;
}

/** The positions of a geometry as a plain array of numbers, 3 a vertex. */
function flatPositions(geometry) {
  const a = positionAttribute(geometry);
  const out = new Array(3 * a.count);
  if (!a.isInterleavedBufferAttribute && !a.normalized && a.itemSize === 3 && a.array) {
    for (let i = 0; i < out.length; i++) out[i] = a.array[i];
  } else {
    for (let i = 0; i < a.count; i++) {
      out[3 * i] = a.getX(i);
      out[3 * i + 1] = a.getY(i);
      out[3 * i + 2] = a.getZ(i);
    }
  }
  return out;
}

function flatIndices(geometry) {
  const idx = geometry.index;
  return idx ? Array.from(idx.array, Number).slice(0, idx.count) : undefined;
}

function bounds(positions) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let j = 0; j < 3; j++) {
      const v = positions[i + j];
      if (v < lo[j]) lo[j] = v;
      if (v > hi[j]) hi[j] = v;
    }
  }
  return { lo, hi };
}

/**
 * Merges the vertices of a triangle mesh that lie within `tolerance` of
 * each other (three.js geometries repeat a vertex at every UV seam and
 * hard edge, so they are not closed by their indices), then drops the
 * triangles that became degenerate.  `positions` flat (3 a vertex),
 * `indices` three a triangle (absent: consecutive triples).  Answers
 * `{positions, indices}`: the vertices of the kept triangles, in order of
 * first use.
 * `tolerance` 0 merges only equal positions.
 */
export function weld(positions, indices, tolerance = 0) {
  const n = positions.length / 3;
  const tol = Math.max(0, Number(tolerance) || 0);
  const cell = tol > 0 ? tol : 1;
  const grid = new Map(); // cell key -> [representative vertex]
  const out = [];
  const remap = new Int32Array(n).fill(-1);
  const key = (x, y, z) => `${x},${y},${z}`;
  const find = (x, y, z) => {
    if (tol === 0) {
      const hit = grid.get(key(x + 0, y + 0, z + 0));
      return hit === undefined ? -1 : hit[0];
    }
    const cx = Math.floor(x / cell), cy = Math.floor(y / cell), cz = Math.floor(z / cell);
    for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) for (let dz = -1; dz <= 1; dz++) {
      const list = grid.get(key(cx + dx, cy + dy, cz + dz));
      if (!list) continue;
      for (const r of list) {
        if (Math.abs(out[3 * r] - x) <= tol && Math.abs(out[3 * r + 1] - y) <= tol && Math.abs(out[3 * r + 2] - z) <= tol) return r;
      }
    }
    return -1;
  };
  const vertex = (i) => {
    if (remap[i] >= 0) return remap[i];
    const x = positions[3 * i], y = positions[3 * i + 1], z = positions[3 * i + 2];
    let r = find(x, y, z);
    if (r < 0) {
      r = out.length / 3;
      out.push(x, y, z);
      const k = tol === 0 ? key(x + 0, y + 0, z + 0) : key(Math.floor(x / cell), Math.floor(y / cell), Math.floor(z / cell));
      const list = grid.get(k);
      if (list) list.push(r); else grid.set(k, [r]);
    }
    remap[i] = r;
    return r;
  };
  const m = indices ? indices.length : n;
  const tris = [];
  for (let t = 0; t + 2 < m; t += 3) {
    const a = vertex(indices ? indices[t] : t), b = vertex(indices ? indices[t + 1] : t + 1), c = vertex(indices ? indices[t + 2] : t + 2);
    if (a !== b && b !== c && a !== c) tris.push(a, b, c);
  }
  // keep only the vertices of the triangles kept, in order of first use
  const renumber = new Int32Array(out.length / 3).fill(-1);
  const kept = [];
  for (let k = 0; k < tris.length; k++) {
    const r = tris[k];
    if (renumber[r] < 0) {
      renumber[r] = kept.length / 3;
      kept.push(out[3 * r], out[3 * r + 1], out[3 * r + 2]);
    }
    tris[k] = renumber[r];
  }
  return { positions: kept, indices: tris };
}

/** The weld tolerance `weld: true` stands for: 1e-6 of the bounding box's diagonal. */
function defaultTolerance(positions) {
  const { lo, hi } = bounds(positions);
  return 1e-6 * Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

/**
 * The primitive a three.js geometry is (from its `type` and `parameters`:
 * BoxGeometry, SphereGeometry, CylinderGeometry, ConeGeometry,
 * CapsuleGeometry; axis along local y), or undefined when it is none of
 * them, is a part of one (an open or partial sweep, a cylinder with two
 * radii) or was moved since it was made (its vertices do not fit the
 * parameters, e.g. after `geometry.translate`).
 */
export function primitiveOf(geometry) {
  const p = geometry?.parameters;
  if (!p) return undefined;
  let shape, ext; // ext: the bounding box half extents the vertices must have
  const full = (len) => len === undefined || len >= TAU - ANGLE_EPS;
  switch (geometry.type) {
    case 'BoxGeometry':
      shape = { box: { half_extents: [p.width / 2, p.height / 2, p.depth / 2] } };
      ext = [p.width / 2, p.height / 2, p.depth / 2];
      break;
    case 'SphereGeometry':
      if (!full(p.phiLength) || (p.thetaStart ?? 0) > ANGLE_EPS || (p.thetaLength ?? Math.PI) < Math.PI - ANGLE_EPS) return undefined;
      shape = { sphere: { radius: p.radius } };
      ext = [p.radius, p.radius, p.radius];
      break;
    case 'CylinderGeometry':
    case 'ConeGeometry': {
      if (p.openEnded || !full(p.thetaLength)) return undefined;
      const top = geometry.type === 'ConeGeometry' ? 0 : p.radiusTop;
      const bottom = geometry.type === 'ConeGeometry' ? p.radius : p.radiusBottom;
      const h = p.height / 2;
      if (top === bottom) shape = { cylinder: { radius: top, half_height: h } };
      else if (top === 0) shape = { cone: { radius: bottom, half_height: h } };
      else return undefined;
      ext = [Math.max(top, bottom), h, Math.max(top, bottom)];
      break;
    }
    case 'CapsuleGeometry': {
      const len = p.height ?? p.length; // `length` before three r172
      shape = { capsule: { radius: p.radius, half_height: len / 2 } };
      ext = [p.radius, len / 2 + p.radius, p.radius];
      break;
    }
    default:
      return undefined;
  }
  // The vertices lie within the primitive's box and reach its y extent
  // (x and z are reached only at some segment counts).
  const { lo, hi } = bounds(flatPositions(geometry));
  const eps = 1e-5 * Math.max(...ext, 1e-30);
  for (let j = 0; j < 3; j++) if (hi[j] > ext[j] + eps || lo[j] < -ext[j] - eps) return undefined;
  if (Math.abs(hi[1] - ext[1]) > eps || Math.abs(lo[1] + ext[1]) > eps) return undefined;
  return shape;
}

// geometry -> Map(options key -> {stamp, shape, id}): the geometry part of
// the shape (and its id, once computed) for each way of asking.
const cache = new WeakMap();

function stampOf(geometry) {
  const a = positionAttribute(geometry), i = geometry.index;
  return [a, a.version, a.count, i ?? null, i ? i.version : -1, i ? i.count : -1];
}
function sameStamp(x, y) { return x.length === y.length && x.every((v, k) => v === y[k]); }

function normalize(options = {}) {
  const as = options.as ?? 'auto';
  if (!['auto', 'hull', 'mesh', 'primitive'].includes(as)) throw new RangeError(`as: ${as} is not auto, hull, mesh or primitive`);
  const fallback = options.fallback ?? 'hull';
  if (!['hull', 'mesh'].includes(fallback)) throw new RangeError(`fallback: ${fallback} is not hull or mesh`);
  const weld = options.weld ?? false;
  return { as, fallback, weld, key: `${as}|${fallback}|${weld}` };
}

function build(geometry, o) {
  if (o.as === 'auto' || o.as === 'primitive') {
    const prim = primitiveOf(geometry);
    if (prim) return prim;
    if (o.as === 'primitive') throw new TypeError(`${geometry.type ?? 'this geometry'} is not a whole box, sphere, cylinder, cone or capsule`);
  }
  const positions = flatPositions(geometry);
  const form = o.as === 'auto' ? o.fallback : o.as;
  if (form === 'hull') return { positions };
  const indices = flatIndices(geometry);
  if (o.weld !== false) {
    const w = weld(positions, indices, o.weld === true ? defaultTolerance(positions) : o.weld);
    return { mesh: { positions: w.positions, indices: w.indices } };
  }
  if (indices === undefined && positions.length % 9 !== 0) throw new TypeError('a geometry without an index needs whole triangles');
  return { mesh: indices ? { positions, indices } : { positions } };
}

function entryOf(geometry, options) {
  const o = normalize(options);
  let byKey = cache.get(geometry);
  if (!byKey) cache.set(geometry, (byKey = new Map()));
  const stamp = stampOf(geometry);
  let e = byKey.get(o.key);
  if (!e || !sameStamp(e.stamp, stamp)) {
    e = { stamp, shape: build(geometry, o), id: undefined };
    byKey.set(o.key, e);
  }
  return e;
}

/**
 * The geometry part of a Shape for a BufferGeometry, in its own frame:
 * - `as: 'hull'`: its convex hull, `{positions: [...]}`;
 * - `as: 'mesh'`: a triangle mesh `{mesh: {positions, indices}}`; with
 *   `weld: true` (or a tolerance in the geometry's units) the vertices
 *   closer than 1e-6 of the bounding box's diagonal (or the tolerance) are
 *   merged first, so a three.js solid is closed;
 * - `as: 'primitive'`: `{box}`, `{sphere}`, `{cylinder}`, `{cone}` or
 *   `{capsule}` (a TypeError when the geometry is none of them);
 * - `as: 'auto'` (the default): the primitive when it is one, else the
 *   `fallback` form (`'hull'`, the default, or `'mesh'`).
 * The answer is cached per geometry and options, and the same object comes
 * back until the position attribute or the index changes (their
 * `version`, e.g. after `needsUpdate = true`, or another attribute): do
 * not modify it.
 */
export function geometryShape(geometry, options) {
  return entryOf(geometry, options).shape;
}

/** `{matrix: [16 numbers]}`: an Object3D's `matrixWorld` as a Pose. */
export function poseOf(object) {
  return { matrix: Array.from(object.matrixWorld.elements) };
}

function meshesUnder(object) {
  const out = [];
  object.traverse((o) => { if (o.isMesh && o.geometry) out.push(o); });
  return out;
}

function partsOf(object, leaf) {
  if (object.isMesh && object.geometry) return { leaf: leaf(object.geometry), pose: poseOf(object) };
  const meshes = meshesUnder(object);
  if (meshes.length === 0) throw new TypeError(`${object.name || object.type || 'the object'} holds no Mesh`);
  const inverse = object.matrixWorld.clone().invert();
  return {
    parts: meshes.map((m) => ({ geometry: m.geometry, pose: { matrix: Array.from(m.matrixWorld.clone().premultiply(inverse).elements) } })),
    pose: poseOf(object),
  };
}

/**
 * A whole Shape for an Object3D: a Mesh's geometry (geometryShape, same
 * options) posed by its `matrixWorld`; a Group (or any other Object3D) a
 * compound of the Meshes under it, each posed relative to it, the
 * compound posed by its `matrixWorld`.  The world matrices are brought up
 * to date first (`updateMatrixWorld: false` to skip that).  Only the pose
 * is new on each call: the geometry part is geometryShape's cached object.
 */
export function objectShape(object, options = {}) {
  if (object.isBufferGeometry) return geometryShape(object, options);
  if (options.updateMatrixWorld !== false) object.updateWorldMatrix(true, true);
  const p = partsOf(object, (g) => g);
  if (p.leaf) return { ...geometryShape(p.leaf, options), pose: p.pose };
  return { parts: p.parts.map((q) => ({ ...geometryShape(q.geometry, options), pose: q.pose })), pose: p.pose };
}

/**
 * Shapes of three.js objects named by ref for one Clashd client: the
 * geometry part's id is computed once per geometry (and version), and
 * registered with the client so that a server lacking it gets it uploaded
 * (once); each call then costs a pose.  Primitives go inline: they have
 * ids, but a few numbers are shorter than a ref (`{"ref": "sha256:..."}`
 * is 81 bytes of JSON, `{"sphere":{"radius":0.25}}` 26, a box or a
 * cylinder under 50) and need no upload or miss.
 */
export class ClashdThree {
  /**
   * @param {Clashd} clashd the client
   * @param {object} [defaults] options of geometryShape for every call
   */
  constructor(clashd, defaults = {}) {
    if (!(clashd instanceof Clashd) && typeof clashd?.ref !== 'function') throw new TypeError('a Clashd client is needed');
    this.clashd = clashd;
    this.defaults = defaults;
  }

  /** The geometry part for a BufferGeometry: `{ref}` or an inline primitive. */
  async geometry(geometry, options = {}) {
    const e = entryOf(geometry, { ...this.defaults, ...options });
    if (primitiveKind(e.shape) !== undefined) return e.shape;
    if (e.id === undefined) e.id = this.clashd.shapeId(e.shape);
    const id = await e.id;
    this.clashd.shapes.set(id, e.shape);
    return { ref: id };
  }

  /** objectShape, with every geometry named by ref (primitives inline). */
  async shape(object, options = {}) {
    const o = { ...this.defaults, ...options };
    if (object.isBufferGeometry) return this.geometry(object, o);
    if (o.updateMatrixWorld !== false) object.updateWorldMatrix(true, true);
    const p = partsOf(object, (g) => g);
    if (p.leaf) return { ...(await this.geometry(p.leaf, o)), pose: p.pose };
    const parts = await Promise.all(p.parts.map(async (q) => ({ ...(await this.geometry(q.geometry, o)), pose: q.pose })));
    return { parts, pose: p.pose };
  }
}

/**
 * A Result's points and directions as Vector3s (`three` is the three
 * module, or anything with a `Vector3` class): `near` {a, b} (near_points),
 * `normal` (unit, from a towards b: the separating plane's normal when
 * apart, the penetration's when overlapping and the answer has one, the
 * time of impact's contact normal), `plane` {normal, offset} when apart,
 * `penetration` {normal, depth, points {a, b}, pair} when the answer has
 * one (for compound shapes their `deepest_pair`'s, then `pair` is true),
 * `contact` the point of contact (the time of impact's, or for an
 * intersecting answer a common point: near_points.a), and `kind` the
 * mesh answer's `intersection` (`surfaces`, `a_inside_b`, `b_inside_a`).
 * Members the answer lacks are undefined.
 */
export function resultVectors(result, three) {
  const V = three?.Vector3;
  if (typeof V !== 'function') throw new TypeError('pass the three module (or {Vector3})');
  const v = (a) => (Array.isArray(a) ? new V(a[0] ?? 0, a[1] ?? 0, a[2] ?? 0) : undefined);
  const out = { near: undefined, normal: undefined, plane: undefined, penetration: undefined, contact: undefined, kind: undefined };
  if (result.near_points) out.near = { a: v(result.near_points.a), b: v(result.near_points.b) };
  if (result.separating_plane) out.plane = { normal: v(result.separating_plane.normal), offset: result.separating_plane.offset };
  // a compound's answer: the deepest intersecting pair of parts
  const pen = result.penetration && !Array.isArray(result.penetration.normal) &&
    result.penetration.deepest_pair ? result.penetration.deepest_pair : result.penetration;
  if (pen && Array.isArray(pen.normal)) {
    out.penetration = {
      normal: v(pen.normal), depth: pen.depth ?? pen.depth_lower_bound,
      points: pen.points ? { a: v(pen.points.a), b: v(pen.points.b) } : undefined,
      pair: pen !== result.penetration,
    };
  }
  if (typeof result.intersection === 'string') out.kind = result.intersection;
  const c = result.contact; // a motion's contact, at time toi
  if (c && typeof c === 'object') out.contact = v(c.point);
  else if (result.intersecting && out.near) out.contact = out.near.a.clone();
  out.normal = out.plane?.normal.clone() ?? out.penetration?.normal.clone() ??
    (c && typeof c === 'object' ? v(c.normal) : undefined);
  return out;
}
