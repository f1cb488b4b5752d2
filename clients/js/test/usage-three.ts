// A strict TypeScript user of the three.js helpers and of the mesh and
// primitive forms: tsc --strict --noEmit must accept it without casts
// (make js-test runs it).  three's objects are typed structurally here, as
// a user without @types/three would have them.
import { Clashd, type AnyQuery, type MeshResult, type PrimitiveShape } from '../clashd.js';
import { ClashdThree, geometryShape, objectShape, resultVectors, type GeometryLike, type Object3DLike } from '../three.js';

class Vec { constructor(public x: number, public y: number, public z: number) {} clone(): Vec { return new Vec(this.x, this.y, this.z); } }

export async function frame(url: string, part: Object3DLike, plate: Object3DLike, g: GeometryLike): Promise<number> {
  const clashd = new Clashd(url);
  const three = new ClashdThree(clashd, { fallback: 'mesh', weld: true });
  const hull = geometryShape(g, { as: 'hull' });
  const pin: PrimitiveShape = { cylinder: { radius: 0.1, half_height: 1 }, pose: { translation: [0, 1, 0] } };
  const q: AnyQuery = { a: await three.shape(part), b: { parts: [await three.shape(plate), pin, { mesh: { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0] } }] } };
  const r: MeshResult = await clashd.query(q);
  const v = resultVectors(r, { Vector3: Vec });
  const inline = objectShape(part, { as: 'mesh', weld: 1e-6 });
  await clashd.scene({ objects: [{ id: 'part', shape: inline }, { id: 'hull', shape: hull }, { id: 'pin', shape: pin }] });
  await clashd.batch([q, q]);
  const id = await clashd.ref({ mesh: { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 2] } });
  console.log(r.solid?.a, r.contact, v.near?.a.x, v.kind, id.ref);
  return r.distance ?? 0;
}
