// Programs the client's types must refuse: each line under an "expect
// error" directive is a mistake tsc --strict has to report, so a directive
// whose line compiles is itself an error (TS2578) and make js-test fails.
// test/package.test.js compiles this file against the packed package, with
// skipLibCheck and without (where types that fell back to `any` would let
// every line pass).  The rest of the file must compile.
import { Clashd, fromPositions, type Pose, type Query, type Shape } from '../clashd.js';
import { geometryShape, type GeometryLike } from '../three.js';

const hull: Shape = { vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]] };

export async function mistakes(c: Clashd, q: Query, g: GeometryLike): Promise<unknown[]> {
  const out: unknown[] = [];
  // @ts-expect-error a shape needs one form: {} has none
  const q1: Query = { a: {}, b: {} }; out.push(q1);
  // @ts-expect-error two forms in one shape: sphere and box
  const s2: Shape = { sphere: { radius: 1 }, box: { half_extents: [1, 1, 1] } }; out.push(s2);
  // @ts-expect-error two forms in one shape: vertices and mesh
  const s3: Shape = { vertices: [[0, 0, 0]], mesh: { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0] } }; out.push(s3);
  // @ts-expect-error a ref with geometry beside it
  const s4: Shape = { ref: 'sha256:00', sphere: { radius: 1 } }; out.push(s4);
  // @ts-expect-error dim goes with positions only
  const s5: Shape = { vertices: [[0, 0, 0]], dim: 3 }; out.push(s5);
  // @ts-expect-error coordinates are numbers
  const s6: Shape = { positions: ['0', '1', '2'] }; out.push(s6);
  // @ts-expect-error a mesh needs its positions
  const s7: Shape = { mesh: { indices: [0, 1, 2] } }; out.push(s7);
  // @ts-expect-error a misspelt form
  const s8: Shape = { vertice: [[0, 0, 0]] }; out.push(s8);
  // @ts-expect-error units the contract does not name
  const s9: Shape = { vertices: [[0, 0, 0]], units: 'ft' }; out.push(s9);
  // @ts-expect-error a typed array of bigints is not a list of numbers
  const s10: Shape = { positions: new BigInt64Array(3) }; out.push(s10);
  // @ts-expect-error a Query typed as any Query may have no distance (simplex, ipm, want)
  const d11: number = (await c.query(q)).distance; out.push(d11);
  // @ts-expect-error simplex answers distance_lower_bound, not distance
  const d12: number = (await c.query({ a: hull, b: hull, method: 'simplex' })).distance; out.push(d12);
  // @ts-expect-error want without distance leaves it out
  const d13: number = (await c.query({ a: hull, b: hull, want: ['intersecting'] })).distance; out.push(d13);
  // @ts-expect-error no such method
  out.push(c.query({ a: hull, b: hull, method: 'newton' }));
  // @ts-expect-error no such mesh file format
  out.push(c.upload(new Blob([]), { format: 'step' }));
  // @ts-expect-error a scene object's shape needs a form
  out.push(c.scene({ objects: [{ id: 'x', shape: {} }] }));
  // @ts-expect-error two primitives in one shape
  out.push(c.contains({ inner: hull, outer: { sphere: { radius: 1 }, cone: { radius: 1, half_height: 1 } } }));
  // @ts-expect-error a batch's queries are Queries
  out.push(c.batch([{ a: {}, b: hull }]));
  // @ts-expect-error a pose's numbers are numbers
  const p19: Pose = { translation: ['1', 0, 0] }; out.push(p19);
  // @ts-expect-error a ref is a ShapeId string
  out.push(c.query({ a: { ref: 1 }, b: hull }));
  // @ts-expect-error routeBy is 'none' or 'first-ref'
  out.push(new Clashd('http://127.0.0.1:8080', { routeBy: 'last-ref' }));
  // @ts-expect-error positions are numbers, not text
  out.push(fromPositions('0 0 0'));
  // @ts-expect-error an upload is geometry: a ref is no geometry
  out.push(c.upload({ ref: 'sha256:00' }));
  // @ts-expect-error geometryShape's forms are auto, hull, mesh and primitive
  out.push(geometryShape(g, { as: 'blob' }));
  return out;
}
