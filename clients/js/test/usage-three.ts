// A strict TypeScript user of the three.js helpers and of the mesh and
// primitive forms, typed by the contract's generated types: tsc --strict
// --noEmit must accept it without casts (make js-test runs it).  three's objects are typed structurally here, as
// a user without @types/three would have them.
import { Clashd, type Query, type Result, type PrimitiveShape, type Shape } from '../clashd.js';
import { ClashdThree, geometryShape, objectShape, resultVectors, type GeometryLike, type Object3DLike } from '../three.js';

class Vec { constructor(public x: number, public y: number, public z: number) {} clone(): Vec { return new Vec(this.x, this.y, this.z); } }

export async function frame(url: string, part: Object3DLike, plate: Object3DLike, g: GeometryLike): Promise<number> {
  const clashd = new Clashd(url);
  const three = new ClashdThree(clashd, { fallback: 'mesh', weld: true });
  const hull = geometryShape(g, { as: 'hull' });
  const pin: PrimitiveShape = { cylinder: { radius: 0.1, half_height: 1 }, pose: { translation: [0, 1, 0] } };
  const q: Query = { a: await three.shape(part), b: { parts: [await three.shape(plate), pin, { mesh: { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0] } }] } };
  const r: Result = await clashd.query(q);
  const v = resultVectors(r, { Vector3: Vec });
  const inline = objectShape(part, { as: 'mesh', weld: 1e-6 });
  await clashd.scene({ objects: [{ id: 'part', shape: inline }, { id: 'hull', shape: hull }, { id: 'pin', shape: pin }] });
  await clashd.batch([q, q]);
  const id = await clashd.ref({ mesh: { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 2] } });
  const pinRef: Shape = await clashd.ref(pin); // a primitive by ref, with its pose
  const kind: 'surfaces' | 'a_inside_b' | 'b_inside_a' | undefined = r.intersection;
  console.log(r.solid?.a, r.contact?.point, r.toi, v.near?.a.x, v.kind ?? kind, id.ref, pinRef.ref);
  return r.distance ?? 0;
}
