// A minimal strict TypeScript user of the client: tsc --strict --noEmit
// must accept it without casts (make js-test runs it).
import { Clashd, ClashdProblem, fromPositions, type Query, type Result, type Shape } from '../clashd.js';

export async function drag(url: string, positions: Float32Array, signal: AbortSignal): Promise<number | undefined> {
  const clashd = new Clashd(url, { token: 'secret' });
  const part: Shape = fromPositions(positions);
  const box: Shape = { vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], pose: { translation: [2, 0, 0] } };
  const query: Query = { a: await clashd.ref(part), b: box };
  const withOptions: Query = { a: box, b: { vertices: [[0, 0, 0]], radius: 0.5 }, method: 'gjk', max_iterations: 64 };
  try {
    const r: Result = await clashd.query(query, { signal });
    await clashd.batch([query, withOptions]);
    const s = await clashd.scene({ objects: [{ id: 'part', shape: part }, { id: 'box', shape: box }] });
    const c = await clashd.contains({ inner: box, outer: part });
    const stored = await clashd.upload({ vertices: [[1, 2, 3]] });
    console.log(s.clashes.length, c.contained, stored.id === (await clashd.shapeId({ vertices: [[1, 2, 3]] })));
    return r.distance;
  } catch (e) {
    if (e instanceof ClashdProblem) console.log(e.status, e.type, e.detail, e.pointer, e.missing);
    throw e;
  }
}

export async function dropFile(url: string, file: File): Promise<string[]> {
  const clashd = new Clashd(url);
  const reply = await clashd.upload(file, { weld: 1e-6 });
  const bytes = await clashd.upload(new Uint8Array(await file.arrayBuffer()), { format: 'stl' });
  return [...reply.shapes, ...bytes.shapes].map((s) => `${s.name} ${s.id} ${s.solid} ${s.read?.leak}`);
}
