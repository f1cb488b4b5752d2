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

const v2 = (x, y) => new THREE.Vector2(x, y);

/** A profile in the x-y plane extruded along +z by `depth`. */
function extrude(points, holes, depth) {
  const shape = new THREE.Shape(points.map(([x, y]) => v2(x, y)));
  for (const h of holes) shape.holes.push(h);
  return new THREE.ExtrudeGeometry(shape, { depth, bevelEnabled: false, curveSegments: 32 });
}

/** The base plate: 6 x 4, 0.2 thick (y 0 to 0.2), with a round hole. */
function plateWithHole() {
  // The profile in x and -z, extruded along y by turning it about x.
  const hole = new THREE.Path().absarc(HOLE.x, -HOLE.z, HOLE.radius, 0, 2 * Math.PI, true);
  return extrude([[-3, -2], [3, -2], [3, 2], [-3, 2]], [hole], 0.2).rotateX(-Math.PI / 2);
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
    { id: 'bolt', name: 'bolt (cylinder)', color: 0xc9a227,
      geometry: new THREE.CylinderGeometry(0.15, 0.15, 1.6, 32), form: PRIMITIVE, position: [0.4, 1.25, 0.9] },
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
