// The user's own parts: a mesh file (STL, OBJ, glTF/GLB, PLY) dropped on the
// demo or chosen with its file input goes to clashd's POST /v1/shapes, which
// reads it (libassimp, in its import helper) and answers an ImportResult:
// one stored mesh shape per place the file puts a mesh, each with its id
// and its pose in the file.  The part then goes to clashd as those refs,
// posed by the part's matrixWorld.  The page draws the same file as
// three.js's own loaders read it; the local mode (WebAssembly, which has
// no file importer) holds that drawing as a mesh of its own.
import * as THREE from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { ClashdProblem } from '../../clients/js/clashd.js';
import { poseOf } from '../../clients/js/three.js';

/** The formats clashd imports, by file extension: the upload's `format` and its media type. */
export const FORMATS = Object.freeze({
  stl: 'model/stl',
  obj: 'model/obj',
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json',
  ply: 'application/x-ply',
});

/** The format of a file name ('stl', ...), or undefined for another kind of file. */
export function formatOf(name) {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return ext && Object.hasOwn(FORMATS, ext) ? ext : undefined;
}

/**
 * The file as three.js reads it, as one Object3D (its meshes under it, in
 * the file's frame).  Throws when three.js cannot read it.
 */
export async function readForDisplay(format, bytes) {
  if (format === 'stl') return group(new STLLoader().parse(bytes));
  if (format === 'ply') return group(new PLYLoader().parse(bytes));
  if (format === 'obj') return new OBJLoader().parse(new TextDecoder().decode(bytes));
  return (await new GLTFLoader().parseAsync(bytes, '')).scene;
}

function group(geometry) {
  const g = new THREE.Group();
  g.add(new THREE.Mesh(geometry));
  return g;
}

/** The meshes under an object (what three.js drew of the file). */
export function meshesOf(object) {
  const out = [];
  object.traverse((o) => { if (o.isMesh && o.geometry?.attributes.position) out.push(o); });
  return out;
}

const triangleCount = (g) => (g.index ? g.index.count : g.attributes.position.count) / 3;

/**
 * The mesh whose triangles a clash report's indices name, `{positions,
 * indices}`, when the page can tell: one shape stored at the file's origin,
 * drawn as one mesh at its object's origin with as many triangles (clashd
 * keeps a file's triangles in order, dropping only degenerate ones);
 * undefined otherwise (the report's curves are drawn, no triangle tinted).
 */
export function reportMesh(object, shapes) {
  const meshes = meshesOf(object);
  if (shapes.length !== 1 || meshes.length !== 1) return undefined;
  const [m] = meshes;
  const identity = new THREE.Matrix4();
  if (!m.matrix.equals(identity) || !new THREE.Matrix4().fromArray(shapes[0].pose.matrix).equals(identity)) return undefined;
  if (triangleCount(m.geometry) !== shapes[0].triangles) return undefined;
  return { positions: m.geometry.attributes.position.array, indices: m.geometry.index?.array };
}

/**
 * The part's Shape for clashd: the stored shapes by ref, placed by the
 * object's matrixWorld (one shape: its pose in the file composed with it;
 * several: a compound of them, each at its pose in the file).
 */
export function fileShape(object, shapes) {
  object.updateWorldMatrix(true, false);
  if (shapes.length === 1) {
    const m = object.matrixWorld.clone().multiply(new THREE.Matrix4().fromArray(shapes[0].pose.matrix));
    return { ref: shapes[0].id, pose: { matrix: Array.from(m.elements) } };
  }
  return { parts: shapes.map((s) => ({ ref: s.id, pose: s.pose })), pose: poseOf(object) };
}

/** How far the demo's scene reaches: a file drawn farther than this is moved to the middle. */
const REACH = 10;

/**
 * Where a new part goes: where its file puts it when that lies within the
 * scene (a part of the same assembly, in the same units), else its bounding
 * box's bottom centred on the origin.  Parts are never scaled: clashd's
 * poses are rigid, and the file's units are the answers' units.
 */
export function place(object) {
  object.updateWorldMatrix(true, true);
  const box = new THREE.Box3().setFromObject(object);
  if (box.isEmpty()) return;
  const far = [box.min, box.max].some((v) => Math.max(Math.abs(v.x), Math.abs(v.y), Math.abs(v.z)) > REACH);
  if (!far) return;
  const c = box.getCenter(new THREE.Vector3());
  object.position.sub(new THREE.Vector3(c.x, box.min.y, c.z));
}

/**
 * POST /v1/shapes with the file's bytes as its media type: the
 * ImportResult, or a ClashdProblem with the server's status and detail.
 */
export async function uploadFile(clashd, bytes, format) {
  const headers = { 'Content-Type': FORMATS[format], Accept: 'application/json, application/problem+json' };
  if (clashd.token) headers.Authorization = 'Bearer ' + clashd.token;
  const r = await clashd.fetch(clashd.baseUrl + '/v1/shapes', { method: 'POST', headers, body: bytes });
  const text = await r.text();
  let body;
  try { body = JSON.parse(text); } catch { body = { detail: text || r.statusText }; }
  if (!r.ok) throw new ClashdProblem(r.status, body, r);
  return body;
}
