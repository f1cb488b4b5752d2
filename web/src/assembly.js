// The demo's assembly: each part's geometry in its own frame (as clashd takes
// a Shape: convex `vertices` with an optional `radius`, or a compound of
// `parts`) and where it starts.  three.js axes: y is up.  No three.js here,
// so the browser test imports the same module to ask clashd itself.

/** The 8 corners of the box [x0, x1] x [y0, y1] x [z0, z1]. */
export function box(x0, y0, z0, x1, y1, z1) {
  const vertices = [];
  for (const z of [z0, z1]) for (const y of [y0, y1]) for (const x of [x0, x1]) vertices.push([x, y, z]);
  return { vertices };
}

function hexPrism(r, h) {
  const vertices = [];
  for (const y of [0, h]) {
    for (let i = 0; i < 6; i++) {
      const a = (i * Math.PI) / 3;
      vertices.push([r * Math.cos(a), y, r * Math.sin(a)]);
    }
  }
  return { vertices };
}

/** Pairs closer than this are listed as `clearance` (the scene's clearance). */
export const CLEARANCE = 0.03;

/** The part whose distance to the rest is shown first. */
export const FIRST_SELECTED = 'bolt';

export const PARTS = [
  { id: 'plate', name: 'base plate', color: 0x8d99a6,
    shape: box(-3, 0, -2, 3, 0.2, 2), position: [0, 0, 0] },
  { id: 'bracket', name: 'L-bracket (two boxes)', color: 0x3f7fbf,
    shape: { parts: [box(0, 0, 0, 2, 0.3, 1.5), box(0, 0, 0, 0.3, 2, 1.5)] }, position: [-2.6, 0.25, -1.6] },
  { id: 'bolt', name: 'bolt (capsule)', color: 0xc9a227,
    shape: { vertices: [[0, 0, 0], [0, 1.6, 0]], radius: 0.15 }, position: [0.4, 0.4, 0.9] },
  { id: 'wedge', name: 'wedge', color: 0x5a9e6f,
    shape: { vertices: [[0, 0, 0], [1.2, 0, 0], [0, 0, 1], [1.2, 0, 1], [0, 0.8, 0], [0, 0.8, 1]] }, position: [1.2, 0.25, -1.6] },
  { id: 'pyramid', name: 'pyramid', color: 0x9c6ade,
    shape: { vertices: [[-0.5, 0, -0.5], [0.5, 0, -0.5], [-0.5, 0, 0.5], [0.5, 0, 0.5], [0, 1, 0]] }, position: [2.2, 0.25, 1.1] },
  { id: 'nut', name: 'hex nut', color: 0x6b6b6b,
    shape: hexPrism(0.4, 0.3), position: [-1.2, 0.25, 1.2] },
  { id: 'knob', name: 'knob (sphere)', color: 0xd0673a,
    shape: { vertices: [[0, 0, 0]], radius: 0.35 }, position: [1.6, 1.6, 0] },
];
