// A client for clashd (proto/openapi.yaml): fetch and Web Crypto only, so the
// same module runs in browsers and in node >= 20.  docs/client.md describes it.

import { LocalCore } from './local.js';

export { LocalCore };

const PROBLEM_PREFIX = 'urn:clashd:problem:';
const UNKNOWN_SHAPE = PROBLEM_PREFIX + 'unknown-shape';

/** An RFC 9457 problem answered by clashd, as an Error. */
export class ClashdProblem extends Error {
  constructor(status, body, response) {
    const b = body && typeof body === 'object' ? body : {};
    const type = typeof b.type === 'string' ? b.type : 'about:blank';
    const detail = typeof b.detail === 'string' ? b.detail : undefined;
    super(`clashd ${status} ${type.startsWith(PROBLEM_PREFIX) ? type.slice(PROBLEM_PREFIX.length) : type}` +
      (detail ? `: ${detail}` : '') + (b.pointer !== undefined ? ` (at ${JSON.stringify(b.pointer)})` : ''));
    this.name = 'ClashdProblem';
    this.status = status;
    this.type = type;
    this.title = typeof b.title === 'string' ? b.title : undefined;
    this.detail = detail;
    this.pointer = typeof b.pointer === 'string' ? b.pointer : undefined;
    this.missing = Array.isArray(b.missing) ? b.missing : undefined;
    this.retryAfter = undefined;
    if (response) {
      const ra = response.headers.get('Retry-After');
      if (ra !== null && /^\d+$/.test(ra.trim())) this.retryAfter = Number(ra.trim());
    }
    this.body = body;
  }
}

/**
 * A three.js-style flat position array ([x0, y0, z0, x1, ...], e.g. a
 * BufferAttribute's `array`) as a Shape: `{vertices: [[x0, y0, z0], ...]}`.
 */
export function fromPositions(positions, dim = 3) {
  if (!Number.isInteger(dim) || dim < 1 || dim > 8) throw new RangeError('dim must be an integer from 1 to 8');
  const n = positions.length;
  if (n === 0 || n % dim !== 0) throw new RangeError(`positions has ${n} numbers, not a positive multiple of ${dim}`);
  const vertices = new Array(n / dim);
  for (let i = 0, k = 0; i < n; i += dim, k++) {
    const p = new Array(dim);
    for (let j = 0; j < dim; j++) p[j] = Number(positions[i + j]);
    vertices[k] = p;
  }
  return { vertices };
}

/**
 * The primitive members of a Shape, in the order of their kind byte in the
 * canonical encoding (1 sphere, 2 box, ... 6 ellipsoid).
 */
export const PRIMITIVES = Object.freeze(['sphere', 'box', 'capsule', 'cylinder', 'cone', 'ellipsoid']);

/** The primitive member a shape has (`"box"`, ...), or undefined. */
export function primitiveKind(s) {
  if (s === null || typeof s !== 'object') return undefined;
  return PRIMITIVES.find((k) => k in s);
}

/** Whether a shape is, or has among its parts, a primitive. */
export function hasPrimitive(s) {
  if (primitiveKind(s) !== undefined) return true;
  return Array.isArray(s?.parts) && s.parts.some(hasPrimitive);
}

/**
 * A primitive's sizes in the order of the wire (ShapeId): the sphere's
 * radius; the box's half_extents; radius then half_height; the
 * ellipsoid's radii.  Each must be a finite number > 0 (a TypeError naming
 * its path, as the server's 422 would).
 */
function primitiveSizes(s, kind, where) {
  const p = s[kind];
  const at = `${where}/${kind}`;
  if (p === null || typeof p !== 'object' || Array.isArray(p)) throw new TypeError(`${at}: not an object`);
  let named;
  if (kind === 'sphere') named = [['radius', p.radius]];
  else if (kind === 'box' || kind === 'ellipsoid') {
    const m = kind === 'box' ? 'half_extents' : 'radii';
    const v = p[m];
    if (v === null || typeof v !== 'object' || v.length !== 3) throw new TypeError(`${at}/${m}: not 3 numbers`);
    named = [0, 1, 2].map((i) => [`${m}/${i}`, v[i]]);
  } else named = [['radius', p.radius], ['half_height', p.half_height]];
  return named.map(([m, x]) => {
    const v = typeof x === 'number' ? x : NaN;
    if (!Number.isFinite(v) || !(v > 0)) throw new TypeError(`${at}/${m}: not a finite number > 0`);
    return v;
  });
}

function flatDim(s, where) {
  const dim = s.dim ?? 3;
  if (!Number.isInteger(dim) || dim < 1 || dim > 8) throw new TypeError(`${where}/dim: not an integer from 1 to 8`);
  const n = s.positions.length;
  if (n === 0 || n % dim !== 0) throw new TypeError(`${where}/positions: ${n} numbers, not a positive multiple of ${dim}`);
  return dim;
}

function shapeDim(s, where) {
  if (s === null || typeof s !== 'object') throw new TypeError(`${where}: not a shape`);
  if ('ref' in s) throw new TypeError(`${where}: a ref has no geometry here`);
  if (primitiveKind(s) !== undefined) return 3;
  if (Array.isArray(s.vertices) && s.vertices.length > 0) return s.vertices[0].length;
  if (s.positions !== undefined && typeof s.positions === 'object') return flatDim(s, where);
  if (s.mesh !== undefined) return 3;
  if (Array.isArray(s.parts) && s.parts.length > 0) return shapeDim(s.parts[0], `${where}/parts/0`);
  throw new TypeError(`${where}: a shape needs vertices, positions, mesh, parts or a primitive`);
}

function meshCounts(m, where) {
  if (m === null || typeof m !== 'object' || m.positions === undefined || typeof m.positions !== 'object')
    throw new TypeError(`${where}/mesh: a mesh needs positions`);
  const len = m.positions.length;
  if (len === 0 || len % 3 !== 0) throw new TypeError(`${where}/mesh/positions: ${len} numbers, not a positive multiple of 3`);
  const n = len / 3;
  if (m.indices === undefined) {
    if (n % 3 !== 0) throw new TypeError(`${where}/mesh/positions: ${n} vertices and no indices: not whole triangles`);
    return { n, t: n / 3 };
  }
  const k = m.indices?.length;
  if (typeof m.indices !== 'object' || !Number.isInteger(k) || k === 0 || k % 3 !== 0)
    throw new TypeError(`${where}/mesh/indices: not a positive multiple of 3 indices`);
  return { n, t: k / 3 };
}

function countBytes(s, where) {
  if (s === null || typeof s !== 'object') throw new TypeError(`${where}: not a shape`);
  if ('ref' in s) throw new TypeError(`${where}: a ref has no geometry here`);
  const kind = primitiveKind(s);
  if (kind !== undefined) return 1 + 1 + primitiveSizes(s, kind, where).length * 8 + 8;
  if (Array.isArray(s.vertices)) return 1 + 8 + s.vertices.length * s.vertices[0].length * 8 + 8;
  if (s.positions !== undefined) return 1 + 8 + s.positions.length * 8 + 8;
  if (s.mesh !== undefined) {
    const { n, t } = meshCounts(s.mesh, where);
    return 1 + (s.mesh.weld === undefined ? 0 : 8) + 8 + 3 * n * 8 + 8 + 3 * t * 4 + 8;
  }
  if (!Array.isArray(s.parts)) throw new TypeError(`${where}: a shape needs vertices, positions, mesh, parts or a primitive`);
  let b = 1 + 8 + 8;
  s.parts.forEach((p, i) => { b += countBytes(p, `${where}/parts/${i}`); });
  return b;
}

const MAGIC = 'clashd-shape-v1';

/** The units a shape may name, in the order of their byte in the canonical encoding (1 mm ... 4 in). */
export const UNITS = Object.freeze(['mm', 'cm', 'm', 'in']);

/**
 * The unit a shape names (itself or any part: one for all, as the server
 * requires), or undefined; a TypeError naming the path of an unknown unit
 * or of the first that differs, where the server would answer 422.
 */
function unitsOf(s, where, seen = { units: undefined, at: undefined }) {
  if (s === null || typeof s !== 'object') return seen.units;
  if (s.units !== undefined) {
    const at = `${where}/units`;
    if (!UNITS.includes(s.units)) throw new TypeError(`${at}: not one of ${UNITS.join(', ')}`);
    if (seen.units === undefined) Object.assign(seen, { units: s.units, at });
    else if (seen.units !== s.units) throw new TypeError(`${at}: ${s.units}, but ${seen.at || '/units'} is ${seen.units}`);
  }
  if (Array.isArray(s.parts)) s.parts.forEach((p, i) => unitsOf(p, `${where}/parts/${i}`, seen));
  return seen.units;
}

/**
 * The canonical encoding of a shape's geometry (ShapeId in
 * proto/openapi.yaml): "clashd-shape-v1", dim, 0x10 and the unit's byte
 * (1 mm, 2 cm, 3 m, 4 in) when the shape or a part names `units`,
 * node(shape), every integer
 * and double little-endian, -0 as +0, an absent radius as 0.  A node is
 * 0x01 and the points (`vertices`, or `positions` read `dim` at a time),
 * 0x02 and the parts, 0x03 and a mesh's vertices and indices (uint32),
 * 0x04, a primitive's kind (1 sphere, 2 box, 3 capsule, 4 cylinder,
 * 5 cone, 6 ellipsoid) and its sizes in the order of the wire, or 0x05
 * and a mesh's `weld` (when it has one) before the rest of a 0x03.
 */
export function canonicalBytes(shape) {
  const dim = shapeDim(shape, '');
  const units = unitsOf(shape, '');
  const buf = new ArrayBuffer(MAGIC.length + 1 + (units === undefined ? 0 : 2) + countBytes(shape, ''));
  const u8 = new Uint8Array(buf);
  const dv = new DataView(buf);
  let o = 0;
  for (let i = 0; i < MAGIC.length; i++) u8[o++] = MAGIC.charCodeAt(i);
  u8[o++] = dim;
  if (units !== undefined) {
    u8[o++] = 0x10;
    u8[o++] = UNITS.indexOf(units) + 1;
  }
  const f64 = (x, where) => {
    const v = Number(x);
    if (!Number.isFinite(v)) throw new TypeError(`${where}: not a finite number`);
    dv.setFloat64(o, v + 0, true); // + 0 turns -0 into +0
    o += 8;
  };
  const u64 = (n) => { dv.setBigUint64(o, BigInt(n), true); o += 8; };
  const node = (s, where) => {
    if (s === null || typeof s !== 'object') throw new TypeError(`${where}: not a shape`);
    if ('ref' in s) throw new TypeError(`${where}: a ref has no geometry here`);
    const kind = primitiveKind(s);
    if (kind !== undefined) {
      if (dim !== 3) throw new TypeError(`${where}/${kind}: a primitive is 3-D, the shape ${dim}-D`);
      u8[o++] = 4;
      u8[o++] = PRIMITIVES.indexOf(kind) + 1;
      for (const x of primitiveSizes(s, kind, where)) f64(x, where);
    } else if (Array.isArray(s.vertices)) {
      u8[o++] = 1;
      u64(s.vertices.length);
      s.vertices.forEach((p, i) => {
        if (!p || p.length !== dim) throw new TypeError(`${where}/vertices/${i}: not a point of dimension ${dim}`);
        for (let j = 0; j < dim; j++) f64(p[j], `${where}/vertices/${i}/${j}`);
      });
    } else if (s.positions !== undefined) {
      if (flatDim(s, where) !== dim) throw new TypeError(`${where}/dim: not the shape's dimension ${dim}`);
      u8[o++] = 1;
      u64(s.positions.length / dim);
      for (let i = 0; i < s.positions.length; i++) f64(s.positions[i], `${where}/positions/${i}`);
    } else if (s.mesh !== undefined) {
      if (dim !== 3) throw new TypeError(`${where}/mesh: a mesh is 3-D, the shape ${dim}-D`);
      const { n, t } = meshCounts(s.mesh, where);
      const { positions, indices, weld } = s.mesh;
      if (weld === undefined) {
        u8[o++] = 3;
      } else {
        if (typeof weld !== 'number' || !(weld >= 0)) throw new TypeError(`${where}/mesh/weld: not a number >= 0`);
        u8[o++] = 5;
        f64(weld, `${where}/mesh/weld`);
      }
      u64(n);
      for (let i = 0; i < 3 * n; i++) f64(positions[i], `${where}/mesh/positions/${i}`);
      u64(t);
      for (let i = 0; i < 3 * t; i++) {
        const k = indices === undefined ? i : Number(indices[i]);
        if (!Number.isInteger(k) || k < 0 || k >= n) throw new TypeError(`${where}/mesh/indices/${i}: not a vertex index from 0 to ${n - 1}`);
        dv.setUint32(o, k, true);
        o += 4;
      }
    } else if (Array.isArray(s.parts) && s.parts.length > 0) {
      u8[o++] = 2;
      u64(s.parts.length);
      s.parts.forEach((p, i) => node(p, `${where}/parts/${i}`));
    } else {
      throw new TypeError(`${where}: a shape needs vertices, positions, mesh, parts or a primitive`);
    }
    f64(s.radius ?? 0, `${where}/radius`);
  };
  node(shape, '');
  return u8;
}

function webCrypto() {
  const c = globalThis.crypto;
  if (!c || !c.subtle) throw new Error('Web Crypto (crypto.subtle) is not available: a browser needs a secure context (https or localhost)');
  return c.subtle;
}

/** The id clashd gives this geometry: "sha256:" and 64 hex digits. */
export async function shapeId(shape) {
  const digest = await webCrypto().digest('SHA-256', canonicalBytes(shape));
  let hex = '';
  for (const b of new Uint8Array(digest)) hex += b.toString(16).padStart(2, '0');
  return 'sha256:' + hex;
}

/** The geometry of a shape (what POST /v1/shapes takes) and its placement. */
function splitShape(shape) {
  const { pose, pose_end, ...geometry } = shape;
  const placement = {};
  if (pose !== undefined) placement.pose = pose;
  if (pose_end !== undefined) placement.pose_end = pose_end;
  return { geometry, placement };
}

/**
 * The mesh file formats `upload` sends, by name (as `clash import --format`
 * and a file's extension name them), each with the media type clashd reads
 * it by (POST /v1/shapes).
 */
export const MESH_FORMATS = Object.freeze({
  stl: 'model/stl',
  obj: 'model/obj',
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json',
  ply: 'application/x-ply',
});

/** Whether x is a file's bytes (a Blob or File, an ArrayBuffer, a typed array) rather than a shape. */
function isFileBody(x) {
  return (typeof Blob !== 'undefined' && x instanceof Blob) || x instanceof ArrayBuffer || ArrayBuffer.isView(x);
}

/**
 * The media type of a mesh file: `format` (a name of MESH_FORMATS or one
 * of its media types), else a File's extension, else a GLB's or PLY's
 * magic bytes; a TypeError when none says (STL and OBJ have no magic).
 */
async function meshMediaType(file, format) {
  const types = Object.values(MESH_FORMATS);
  if (format !== undefined) {
    const f = String(format).toLowerCase();
    if (Object.hasOwn(MESH_FORMATS, f)) return MESH_FORMATS[f];
    if (types.includes(f)) return f;
    throw new TypeError(`format ${JSON.stringify(format)}: not one of ${Object.keys(MESH_FORMATS).join(', ')}`);
  }
  const ext = typeof file.name === 'string' ? file.name.slice(file.name.lastIndexOf('.') + 1).toLowerCase() : '';
  if (Object.hasOwn(MESH_FORMATS, ext)) return MESH_FORMATS[ext];
  const head = typeof Blob !== 'undefined' && file instanceof Blob ? new Uint8Array(await file.slice(0, 4).arrayBuffer())
    : ArrayBuffer.isView(file) ? new Uint8Array(file.buffer, file.byteOffset, Math.min(4, file.byteLength))
      : new Uint8Array(file, 0, Math.min(4, file.byteLength));
  const magic = String.fromCharCode(...head);
  if (magic === 'glTF') return MESH_FORMATS.glb;
  if (magic === 'ply\n' || magic === 'ply\r') return MESH_FORMATS.ply;
  throw new TypeError(`say the file's format: upload(file, {format: '${Object.keys(MESH_FORMATS).join("' | '")}'})`);
}

/**
 * The mesh clashd's import stores for a file's triangles (ImportResult;
 * docs/shapes.md, Mesh files): `positions` flat (3 a vertex) and `indices`
 * 3 a triangle (absent: consecutive triples), as a loader reads the file.
 * Coordinates become single precision (as every mesh file holds them);
 * vertices of equal position (-0 as +0) are joined, in order of first use
 * by a triangle; triangles with two equal corners are dropped, but the
 * vertices they used first stay, as the import keeps them.  So
 * `shapeId({mesh: fileMesh(p, i)})` is the id clashd answers for a file of
 * one mesh whose triangles these are (with `?weld=x`: `{mesh:
 * {...fileMesh(p, i), weld: x}}`).
 */
export function fileMesh(positions, indices) {
  const n = Math.floor(positions.length / 3);
  const m = indices === undefined ? 3 * Math.floor(n / 3) : indices.length - (indices.length % 3);
  const joined = new Map(); // "x,y,z" of float32 values -> joined index
  const remap = new Int32Array(n).fill(-1);
  const out = [];
  const tris = [];
  const corner = (k) => {
    const v = indices === undefined ? k : Number(indices[k]);
    if (!Number.isInteger(v) || v < 0 || v >= n) throw new TypeError(`indices/${k}: not a vertex index from 0 to ${n - 1}`);
    if (remap[v] < 0) {
      const p = [0, 1, 2].map((j) => Math.fround(positions[3 * v + j]) + 0); // + 0: -0 as +0
      if (!p.every(Number.isFinite)) throw new TypeError(`positions/${3 * v}: a vertex that is not finite`);
      const key = p.join(',');
      let r = joined.get(key);
      if (r === undefined) {
        r = out.length / 3;
        joined.set(key, r);
        out.push(...p);
      }
      remap[v] = r;
    }
    return remap[v];
  };
  for (let k = 0; k < m; k += 3) {
    const a = corner(k), b = corner(k + 1), c = corner(k + 2);
    if (a !== b && b !== c && a !== c) tris.push(a, b, c);
  }
  return { positions: out, indices: tris };
}

/**
 * A request body's JSON text, each typed array in it (a Float32Array of
 * positions, ...) written as the array of its numbers, as the wire takes
 * it: JSON.stringify alone writes one as an object of indices.
 */
function wireJSON(body) {
  return JSON.stringify(body, (_key, v) => (ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v) : v));
}

/** A mesh file's bytes and media type, as a request body. */
class FileBody {
  constructor(type, bytes) { this.type = type; this.bytes = bytes; }
}

/** The routing header a load balancer may hash on (deploy/haproxy). */
export const ROUTE_HEADER = 'X-Clashd-Shape';

// Members that hold geometry or placement, never a ref: not walked.
const NO_REF = new Set(['vertices', 'positions', 'mesh', 'pose', 'pose_end', 'radius']);

/** The first `{"ref": id}` of a request body, in document order, or undefined. */
export function firstRef(body) {
  if (body === null || typeof body !== 'object') return undefined;
  if (Array.isArray(body)) {
    for (const x of body) {
      if (x === null || typeof x !== 'object') return undefined; // numbers: no refs
      const r = firstRef(x);
      if (r !== undefined) return r;
    }
    return undefined;
  }
  if (typeof body.ref === 'string') return body.ref;
  for (const [k, x] of Object.entries(body)) {
    if (NO_REF.has(k)) continue;
    const r = firstRef(x);
    if (r !== undefined) return r;
  }
  return undefined;
}

// The errors of a request written on a connection the server had closed
// (its idle or header timeout) before the client saw it: undici's "other
// side closed" (UND_ERR_SOCKET), a reset or a broken pipe, as node's fetch
// reports them (the TypeError's cause).  A browser reuses no connection it
// has not seen alive, and retries such a request itself.
const CLOSED_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);
function closedByServer(e) {
  return CLOSED_CODES.has(e?.code) || CLOSED_CODES.has(e?.cause?.code);
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(signal.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class Clashd {
  /**
   * @param {string} baseUrl e.g. "http://127.0.0.1:8080"
   * @param {object} [options] token (bearer), fetch, maxRetries (503/429,
   *   default 3), maxRetryWait (ms per wait, default 30000), routeBy
   *   ('first-ref': send the first ref of each request as X-Clashd-Shape,
   *   for a load balancer hashing on it; default 'none'), local (true, a
   *   LocalCore or LocalCore.load's options: queries and uploads answered
   *   in the page by local.js, scenes and the rest by the server; a call's
   *   options.local overrides it).  `new Clashd({local: true, baseUrl})`
   *   is the same as `new Clashd(baseUrl, {local: true})`.
   */
  constructor(baseUrl, options = {}) {
    if (baseUrl !== null && typeof baseUrl === 'object' && !(baseUrl instanceof URL)) {
      options = baseUrl;
      baseUrl = options.baseUrl ?? '';
    }
    if (typeof options === 'string') options = { token: options };
    this.baseUrl = String(baseUrl).replace(/\/+$/, '');
    this.token = options.token;
    this.fetch = options.fetch ?? ((...a) => globalThis.fetch(...a));
    this.maxRetries = options.maxRetries ?? 3;
    this.maxRetryWait = options.maxRetryWait ?? 30000;
    this.routeBy = options.routeBy ?? 'none';
    if (this.routeBy !== 'none' && this.routeBy !== 'first-ref')
      throw new RangeError(`routeBy must be 'none' or 'first-ref', not ${JSON.stringify(this.routeBy)}`);
    /** id -> geometry of every shape this client made a ref for or uploaded */
    this.shapes = new Map();
    this.local = options.local ?? false;
  }

  // The core in the page that `local: true` (or its load options) loads on
  // first use: a promise of a LocalCore.
  #core;

  // The LocalCore a call is to use (options.local, else the client's
  // `local`), or undefined: the call goes to the server.
  async #localFor(options) {
    const want = options.local ?? this.local;
    if (want instanceof LocalCore) return want;
    if (!want) return undefined;
    if (this.#core === undefined)
      this.#core = LocalCore.load(typeof want === 'object' ? want : {}).catch((e) => { this.#core = undefined; throw e; });
    return this.#core;
  }

  // Answer a body in the page: the parsed JSON of a 2xx, a ClashdProblem
  // thrown for a problem, exactly as the server's reply would be read.
  static #read(reply) {
    const body = JSON.parse(reply.body);
    if (reply.status < 300) return body;
    throw new ClashdProblem(reply.status, body);
  }

  // A Query answered in the page.  A ref the page's store lacks is put
  // there from this client's shapes, as the server's upload-on-miss does;
  // one it does not know at all sends the query to the server, which may
  // hold it.  Undefined: the server is to answer.
  #localQuery(core, query) {
    const text = wireJSON(query);
    let reply = core.answer('/v1/query', text);
    if (reply.status === 422) {
      const problem = JSON.parse(reply.body);
      if (problem.type === UNKNOWN_SHAPE && Array.isArray(problem.missing)) {
        if (!problem.missing.every((id) => this.shapes.has(id))) return undefined;
        for (const id of problem.missing)
          Clashd.#read(core.answer('/v1/shapes', wireJSON(this.shapes.get(id))));
        reply = core.answer('/v1/query', text);
      }
    }
    return Clashd.#read(reply);
  }

  /** The id of a shape's geometry, computed here (Web Crypto). */
  shapeId(shape) {
    return shapeId(splitShape(shape).geometry);
  }

  /**
   * `{ref: id}` (with the shape's pose and pose_end, if any) for a shape,
   * remembering its geometry so that a server lacking it gets it uploaded.
   */
  async ref(shape, placement = {}) {
    const { geometry, placement: own } = splitShape(shape);
    const id = await shapeId(geometry);
    this.shapes.set(id, geometry);
    return { ref: id, ...own, ...placement };
  }

  /**
   * POST /v1/shapes: store a shape's geometry; answers its ShapeSummary.
   * Given a mesh file instead (a Blob or File, an ArrayBuffer or a typed
   * array of its bytes: STL, OBJ, glTF, GLB or PLY), sends its bytes as
   * they are, with the media type of options.format (else of a File's
   * name, else of a GLB's or PLY's first bytes), options.weld and
   * options.units as the `weld` and `units` query parameters (a unit not
   * in UNITS: a TypeError, nothing sent), and answers the server's
   * ImportResult (with `units` when named): each
   * shape's name, id, pose and summary (`solid`, `read`).  A file always
   * goes to the server, whatever `local` says (the module in the page
   * holds no file reader).
   */
  async upload(shape, options = {}) {
    if (isFileBody(shape)) return this.#uploadFile(shape, options);
    const { geometry } = splitShape(shape);
    const core = await this.#localFor(options);
    if (core) {
      const summary = Clashd.#read(core.answer('/v1/shapes', wireJSON(geometry)));
      this.shapes.set(summary.id, geometry);
      return summary;
    }
    // Routed by its own id, as the requests whose main shape it is.
    if (options.route === undefined && this.routeBy === 'first-ref')
      options = { ...options, route: await shapeId(geometry) };
    const summary = await this.#request('POST', '/v1/shapes', geometry, options);
    this.shapes.set(summary.id, geometry);
    return summary;
  }

  async #uploadFile(file, options) {
    const type = await meshMediaType(file, options.format);
    let path = '/v1/shapes';
    const query = [];
    if (options.weld !== undefined) {
      const w = options.weld;
      if (typeof w !== 'number' || !Number.isFinite(w) || !(w >= 0)) throw new RangeError('weld must be a finite number >= 0');
      query.push('weld=' + encodeURIComponent(String(w)));
    }
    if (options.units !== undefined) {
      if (!UNITS.includes(options.units)) throw new TypeError(`units: not one of ${UNITS.join(', ')}`);
      query.push('units=' + options.units);
    }
    if (query.length) path += '?' + query.join('&');
    return this.#request('POST', path, new FileBody(type, file), options);
  }

  /** GET /v1/shapes/{id}: the summary, or a ClashdProblem (404). */
  getShape(id, options = {}) {
    return this.#request('GET', '/v1/shapes/' + encodeURIComponent(id), undefined, options);
  }

  /** HEAD /v1/shapes/{id}: whether the server holds it. */
  async hasShape(id, options = {}) {
    const r = await this.#send('HEAD', '/v1/shapes/' + encodeURIComponent(id), undefined, options.signal);
    if (r.status === 200) return true;
    if (r.status === 404) return false;
    throw new ClashdProblem(r.status, null, r);
  }

  /** DELETE /v1/shapes/{id}. */
  async deleteShape(id, options = {}) {
    await this.#request('DELETE', '/v1/shapes/' + encodeURIComponent(id), undefined, options);
  }

  /**
   * POST /v1/query; answered in the page when local (options.local, else
   * the client's): the same bytes, read the same way.
   */
  async query(query, options = {}) {
    const core = await this.#localFor(options);
    const local = core && this.#localQuery(core, query);
    return local ?? this.#request('POST', '/v1/query', query, options);
  }
  /** POST /v1/contains. */
  contains(query, options = {}) { return this.#request('POST', '/v1/contains', query, options); }
  /** POST /v1/scene. */
  scene(scene, options = {}) { return this.#request('POST', '/v1/scene', scene, options); }

  /**
   * POST /v1/batch: `queries` an array of Queries (or a BatchQuery).  Items
   * answered unknown-shape are sent again, once, after uploading what they
   * lack; other problem items stay in `results` as they are.
   */
  async batch(queries, options = {}) {
    const body = Array.isArray(queries) ? { queries } : queries;
    const answer = await this.#request('POST', '/v1/batch', body, options);
    const again = [];
    const missing = new Set();
    answer.results.forEach((r, i) => {
      if (r && r.type === UNKNOWN_SHAPE && Array.isArray(r.missing) && r.missing.every((id) => this.shapes.has(id))) {
        again.push(i);
        r.missing.forEach((id) => missing.add(id));
      }
    });
    if (again.length === 0) return answer;
    const route = this.#route(body, options);
    await this.#uploadIds([...missing], options.signal, route);
    const retry = await this.#request('POST', '/v1/batch', { queries: again.map((i) => body.queries[i]) },
      { ...options, route, uploadMissing: false });
    again.forEach((i, k) => {
      const r = retry.results[k];
      if (r && typeof r.pointer === 'string' && r.pointer.startsWith(`/queries/${k}`))
        r.pointer = `/queries/${i}` + r.pointer.slice(`/queries/${k}`.length);
      answer.results[i] = r;
    });
    return answer;
  }

  /** GET /livez, /readyz: the Health body (status code aside). */
  async health(which = 'readyz', options = {}) {
    const r = await this.#send('GET', '/' + which, undefined, options.signal);
    return { ok: r.ok, status: r.status, ...(await r.json()) };
  }

  /** GET /v1/openapi.json. */
  openapi(options = {}) { return this.#request('GET', '/v1/openapi.json', undefined, options); }

  // The uploads after a miss carry the request's route: they go where the
  // request sent again will (the server, whatever the client's `local`).
  async #uploadIds(ids, signal, route) {
    await Promise.all(ids.map((id) => this.upload(this.shapes.get(id), { signal, route, local: false })));
  }

  // The X-Clashd-Shape value of a request: options.route, else by routeBy.
  #route(body, options) {
    if (options.route !== undefined) return options.route || undefined;
    return this.routeBy === 'first-ref' ? firstRef(body) : undefined;
  }

  // body: undefined, a JSON value, or {type, bytes} (a file's, sent as
  // they are).
  #send(method, path, body, signal, route) {
    const headers = { Accept: 'application/json, application/problem+json' };
    if (this.token) headers.Authorization = 'Bearer ' + this.token;
    if (route) headers[ROUTE_HEADER] = route;
    let payload;
    if (body instanceof FileBody) {
      headers['Content-Type'] = body.type;
      payload = body.bytes;
    } else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = wireJSON(body);
    }
    const url = this.baseUrl + path;
    const init = { method, headers, signal, body: payload };
    // Every request of the API is idempotent (a query, an upload by id, a
    // scene): one the server's close of an idle connection cut is sent
    // again, once, on a connection opened anew.
    return this.fetch(url, init).catch((e) => {
      if (signal?.aborted || !closedByServer(e)) throw e;
      return this.fetch(url, init);
    });
  }

  async #request(method, path, body, options) {
    const signal = options.signal;
    let uploadMissing = options.uploadMissing ?? true;
    let retries = 0;
    const route = body === undefined || body instanceof FileBody ? options.route || undefined : this.#route(body, options);
    for (;;) {
      const r = await this.#send(method, path, body, signal, route);
      if (r.ok) {
        if (r.status === 204 || method === 'HEAD') return undefined;
        return r.json();
      }
      let problem;
      const text = await r.text();
      try { problem = JSON.parse(text); } catch { problem = { detail: text || r.statusText }; }
      const err = new ClashdProblem(r.status, problem, r);
      if ((r.status === 503 || r.status === 429) && err.retryAfter !== undefined && retries < this.maxRetries) {
        retries++;
        await sleep(Math.min(err.retryAfter * 1000, this.maxRetryWait), signal);
        continue;
      }
      if (err.type === UNKNOWN_SHAPE && uploadMissing && err.missing &&
          err.missing.every((id) => this.shapes.has(id))) {
        uploadMissing = false; // retry once
        await this.#uploadIds(err.missing, signal, route);
        continue;
      }
      throw err;
    }
  }
}

export default Clashd;
