// The user's own parts: a mesh file (STL, OBJ, glTF/GLB, PLY) dropped on the
// demo or chosen with its file input goes to clashd's POST /v1/shapes
// (Clashd.upload), which reads it (libassimp, in its import helper) and
// answers an ImportResult: one stored mesh shape per place the file puts a
// mesh, each with its id and its pose in the file.  The part then goes to
// clashd as those refs, posed by the part's matrixWorld.  The page draws the
// file as three.js's own loaders read it.  The core in the page (local
// mode) has no file importer: it holds the mesh clashd stored when the page
// can rebuild it from three.js's triangles (fileMesh, the same id), else
// main.js gives it the drawn mesh as a shape of its own.
import * as THREE from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MESH_FORMATS, fileMesh } from '../../clients/js/clashd.js';
import { poseOf } from '../../clients/js/three.js';

/** The format of a file name (a key of MESH_FORMATS: 'stl', ...), or undefined for another kind of file. */
export function formatOf(name) {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return ext && Object.hasOwn(MESH_FORMATS, ext) ? ext : undefined;
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

const IDENTITY = new THREE.Matrix4();
const atOrigin = (s) => new THREE.Matrix4().fromArray(s.pose.matrix).equals(IDENTITY);

/**
 * The mesh clashd stored of a file, `{positions, indices}`, when the page
 * can rebuild it: one shape at the file's origin, drawn as one mesh at the
 * part's origin whose triangles give the same id (fileMesh: clashd keeps a
 * file's triangles in order, joining equal vertices and dropping degenerate
 * triangles).  Then the client holds it under that id (a query in the page
 * finds it; a server that lost it gets it again) and a clash report's
 * triangle indices name its triangles.  Else undefined.
 */
export async function storedMesh(clashd, object, shapes) {
  const meshes = meshesOf(object);
  if (shapes.length !== 1 || !atOrigin(shapes[0]) || meshes.length !== 1) return undefined;
  const [m] = meshes;
  if (m.parent !== object || !m.matrix.equals(IDENTITY)) return undefined;
  const mesh = fileMesh(m.geometry.attributes.position.array, m.geometry.index?.array);
  if (await clashd.shapeId({ mesh }) !== shapes[0].id) return undefined;
  clashd.shapes.set(shapes[0].id, { mesh });
  return mesh;
}

/**
 * The part's Shape for clashd: the stored shapes by ref, placed by the
 * object's matrixWorld (one at the file's origin: that ref; else a
 * compound of them, each at its pose in the file).
 */
export function fileShape(object, shapes) {
  object.updateWorldMatrix(true, false);
  if (shapes.length === 1 && atOrigin(shapes[0])) return { ref: shapes[0].id, pose: poseOf(object) };
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
