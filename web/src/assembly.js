// The demo's assembly: each part's three.js geometry in its own frame, how
// it goes to clashd (options of geometryShape in clients/js/three.js: a
// mesh solid, a primitive, or a convex hull) and where it starts.
// three.js axes: y is up.  The browser test builds the same parts in node
// to ask clashd itself.
import * as THREE from 'three';
import { ConvexGeometry } from 'three/examples/jsm/geometries/ConvexGeometry.js';

/** Pairs closer than this are listed as `clearance` (the scene's clearance). */
export const CLEARANCE = 0.03;

/** The part whose distance to the rest is shown first. */
export const FIRST_SELECTED = 'bolt';

/** Where the plate's hole is (world x and z) and its radius. */
export const HOLE = { x: 1.0, z: 0.9, radius: 0.3 };

/** The unit of every coordinate: the scene and the query name it, answers echo it. */
export const UNITS = 'mm';

/** The bolt's shaft radius, its head's, and its half length (head included). */
export const BOLT = { radius: 0.15, head: 0.26, halfLength: 0.8 };

/**
 * Where the bolt starts: in the plate's hole, off its axis by 0.2, so that
 * its shaft (radius 0.15) cuts 0.05 into the hole's wall (radius 0.3) over
 * the plate's thickness: a graze, the clash the page first shows.
 */
export const BOLT_GRAZING = [HOLE.x + 0.2, 0.5, HOLE.z];

const v2 = (x, y) => new THREE.Vector2(x, y);

/** A profile in the x-y plane extruded along +z by `depth`. */
function extrude(points, holes, depth) {
  const shape = new THREE.Shape(points.map(([x, y]) => v2(x, y)));
  for (const h of holes) shape.holes.push(h);
  return new THREE.ExtrudeGeometry(shape, { depth, bevelEnabled: false, curveSegments: 32 });
}

/** A w x h rectangle centred on the origin, its corners rounded by r. */
function roundedRectangle(w, h, r) {
  const [x0, x1, y0, y1] = [-w / 2, w / 2, -h / 2, h / 2];
  const s = new THREE.Shape().moveTo(x0 + r, y0);
  s.lineTo(x1 - r, y0).absarc(x1 - r, y0 + r, r, -Math.PI / 2, 0, false);
  s.lineTo(x1, y1 - r).absarc(x1 - r, y1 - r, r, 0, Math.PI / 2, false);
  s.lineTo(x0 + r, y1).absarc(x0 + r, y1 - r, r, Math.PI / 2, Math.PI, false);
  s.lineTo(x0, y0 + r).absarc(x0 + r, y0 + r, r, Math.PI, 1.5 * Math.PI, false);
  return s;
}

/**
 * The base plate: 6 x 4 with rounded corners, 0.2 thick (y 0 to 0.2), with
 * a round hole.  Its faces are tessellated as a CAD export would be: a
 * bolt that grazes the hole meets few of its triangles.
 */
function plateWithHole() {
  // The profile in x and -z, extruded along y by turning it about x.
  const outline = roundedRectangle(6, 4, 0.4);
  outline.holes.push(new THREE.Path().absarc(HOLE.x, -HOLE.z, HOLE.radius, 0, 2 * Math.PI, true));
  return new THREE.ExtrudeGeometry(outline, { depth: 0.2, bevelEnabled: false, curveSegments: 32 })
    .rotateX(-Math.PI / 2);
}

/**
 * A bolt: a shaft with a round head, turned about y from its profile (a
 * LatheGeometry), centred on its origin, so one closed surface (welded at
 * the seam) rather than two bodies sharing a face.
 */
function bolt() {
  const { radius: r, head: h, halfLength: l } = BOLT;
  const headFrom = l - 0.2;
  return new THREE.LatheGeometry([v2(0, -l), v2(r, -l), v2(r, headFrom), v2(h, headFrom), v2(h, l), v2(0, l)], 32);
}

/** An L-bracket: a 2 x 2 L of 0.3 thick legs, 1.5 deep. */
function lBracket() {
  return extrude([[0, 0], [2, 0], [2, 0.3], [0.3, 0.3], [0.3, 2], [0, 2]], [], 1.5);
}

const points = (list) => list.map(([x, y, z]) => new THREE.Vector3(x, y, z));

const MESH = { as: 'mesh', weld: true };
const PRIMITIVE = { as: 'primitive' };
const HULL = { as: 'hull' };

/** The parts, with new geometries on each call. */
export function makeParts() {
  return [
    { id: 'plate', name: 'base plate with a hole (mesh)', color: 0x8d99a6,
      geometry: plateWithHole(), form: MESH, position: [0, 0, 0] },
    { id: 'bracket', name: 'L-bracket (mesh)', color: 0x3f7fbf,
      geometry: lBracket(), form: MESH, position: [-2.6, 0.25, -1.6] },
    { id: 'bolt', name: 'bolt (mesh)', color: 0xc9a227,
      geometry: bolt(), form: MESH, position: BOLT_GRAZING },
    { id: 'pipe', name: 'pipe (cylinder)', color: 0x4db6ac,
      geometry: new THREE.CylinderGeometry(0.2, 0.2, 3, 32), form: PRIMITIVE, position: [1.1, 0.45, -0.2], rotation: [0, 0, Math.PI / 2] },
    { id: 'wedge', name: 'wedge', color: 0x5a9e6f,
      geometry: new ConvexGeometry(points([[0, 0, 0], [1.2, 0, 0], [0, 0, 1], [1.2, 0, 1], [0, 0.8, 0], [0, 0.8, 1]])), form: HULL,
      position: [1.2, 0.25, -1.6] },
    { id: 'pyramid', name: 'pyramid', color: 0x9c6ade,
      geometry: new ConvexGeometry(points([[-0.5, 0, -0.5], [0.5, 0, -0.5], [-0.5, 0, 0.5], [0.5, 0, 0.5], [0, 1, 0]])), form: HULL,
      position: [2.2, 0.25, 1.1] },
    { id: 'nut', name: 'hex nut', color: 0x6b6b6b,
      geometry: new THREE.CylinderGeometry(0.4, 0.4, 0.3, 6), form: HULL, position: [-1.2, 0.4, 1.2] },
    { id: 'knob', name: 'knob (sphere)', color: 0xd0673a,
      geometry: new THREE.SphereGeometry(0.35, 32, 16), form: PRIMITIVE, position: [1.6, 1.6, 0] },
  ];
}
