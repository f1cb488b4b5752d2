// Types of clashd.js.  The request and answer types are generated from
// proto/openapi.yaml by openapi-typescript into gen/openapi.d.ts
// (npm run gen; make js-test does it).
import type { components } from './gen/openapi.js';

type Schemas = components['schemas'];
export type Shape = Schemas['Shape'];
export type StoredShape = Schemas['StoredShape'];
export type ShapeId = Schemas['ShapeId'];
export type ShapeSummary = Schemas['ShapeSummary'];
export type Pose = Schemas['Pose'];
export type Query = Schemas['Query'];
export type Result = Schemas['Result'];
export type BatchQuery = Schemas['BatchQuery'];
export type BatchResult = Schemas['BatchResult'];
export type Scene = Schemas['Scene'];
export type SceneResult = Schemas['SceneResult'];
export type ContainsQuery = Schemas['ContainsQuery'];
export type ContainsResult = Schemas['ContainsResult'];
export type Problem = Schemas['Problem'];
export type Health = Schemas['Health'];

/** A shape named by its id, with its own placement. */
export interface ShapeRef {
  ref: ShapeId;
  pose?: Pose;
  pose_end?: Pose;
  radius?: number;
}

// ---- wire forms the generated contract lacks yet (written by hand) ----

/** A triangle mesh: `positions` flat (3 a vertex), `indices` 3 a triangle. */
export interface MeshGeometry {
  positions: number[];
  /** Absent: each three consecutive vertices are a triangle. */
  indices?: number[];
}
/** A triangle mesh shape: a solid when closed and consistently oriented. */
export interface MeshShape { mesh: MeshGeometry; radius?: number; pose?: Pose; pose_end?: Pose }

/** A primitive, axis along local y (three.js convention). */
export type Primitive =
  | { sphere: { radius: number } }
  | { box: { half_extents: [number, number, number] } }
  | { capsule: { radius: number; half_height: number } }
  | { cylinder: { radius: number; half_height: number } }
  | { cone: { radius: number; half_height: number } }
  | { ellipsoid: { radii: [number, number, number] } };
/** A primitive shape: always sent inline (it has no shape id yet). */
export type PrimitiveShape = Primitive & { radius?: number; pose?: Pose; pose_end?: Pose };

/** A compound of shapes in any form. */
export interface CompoundShape { parts: AnyShape[]; radius?: number; pose?: Pose; pose_end?: Pose }
/** A Shape in any wire form: the contract's, a ref, a mesh, a primitive, a compound of them. */
export type AnyShape = Shape | ShapeRef | MeshShape | PrimitiveShape | CompoundShape;
/** A shape with an id: anything but a primitive (or a compound holding one). */
export type IdShape = Shape | MeshShape | { parts: IdShape[]; radius?: number; pose?: Pose; pose_end?: Pose };

export type AnyQuery = Omit<Query, 'a' | 'b'> & { a: AnyShape; b: AnyShape };
export type AnyScene = Omit<Scene, 'objects'> & {
  objects: (Omit<Scene['objects'][number], 'shape'> & { shape: AnyShape })[];
};
export type AnyContainsQuery = Omit<ContainsQuery, 'inner' | 'outer'> & { inner: AnyShape; outer: AnyShape };
/** A Result with what a mesh answer adds. */
export type MeshResult = Omit<Result, 'contact'> & {
  /** Whether each side is a solid (closed, consistently oriented) or a surface. */
  solid?: { a: boolean; b: boolean };
  /** A mesh answer's kind of contact; a motion's Contact otherwise. */
  contact?: Result['contact'] | 'surfaces' | 'a_inside_b' | 'b_inside_a';
};

/** The primitive members (`sphere`, `box`, ...). */
export const PRIMITIVES: readonly ['sphere', 'box', 'capsule', 'cylinder', 'cone', 'ellipsoid'];
/** The primitive member a shape has, or undefined. */
export function primitiveKind(shape: unknown): (typeof PRIMITIVES)[number] | undefined;
/** Whether a shape is, or has among its parts, a primitive. */
export function hasPrimitive(shape: unknown): boolean;

export interface CallOptions {
  signal?: AbortSignal;
}

export interface ClashdOptions {
  /** Bearer token (clashd --auth-token-file). */
  token?: string;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** Retries of a 503 or 429 answer, each after its Retry-After (default 3). */
  maxRetries?: number;
  /** Longest wait for one Retry-After, in ms (default 30000). */
  maxRetryWait?: number;
}

export class ClashdProblem extends Error {
  readonly name: 'ClashdProblem';
  readonly status: number;
  /** urn:clashd:problem:..., or about:blank for an answer without a problem body. */
  readonly type: Problem['type'] | 'about:blank';
  readonly title?: string;
  readonly detail?: string;
  /** RFC 6901 pointer of the offending value in the request body. */
  readonly pointer?: string;
  /** unknown-shape: the ids the server lacks. */
  readonly missing?: ShapeId[];
  /** Seconds, from a Retry-After header. */
  readonly retryAfter?: number;
  readonly body: unknown;
}

/** A flat position array ([x0, y0, z0, x1, ...]) as `{vertices}`. */
export function fromPositions(positions: ArrayLike<number>, dim?: number): { vertices: number[][] };
/** The canonical encoding whose SHA-256 is a shape's id. */
export function canonicalBytes(shape: StoredShape | IdShape): Uint8Array;
/** A shape's id, computed locally (Web Crypto SHA-256). */
export function shapeId(shape: StoredShape | IdShape): Promise<ShapeId>;

export class Clashd {
  constructor(baseUrl: string | URL, options?: ClashdOptions | string);
  readonly baseUrl: string;
  /** id -> geometry of the shapes this client made refs for or uploaded. */
  readonly shapes: Map<ShapeId, StoredShape | IdShape>;
  shapeId(shape: IdShape): Promise<ShapeId>;
  ref(shape: IdShape, placement?: { pose?: Pose; pose_end?: Pose; radius?: number }): Promise<ShapeRef>;
  upload(shape: IdShape, options?: CallOptions): Promise<ShapeSummary & { triangles?: number; solid?: boolean }>;
  getShape(id: ShapeId, options?: CallOptions): Promise<ShapeSummary>;
  hasShape(id: ShapeId, options?: CallOptions): Promise<boolean>;
  deleteShape(id: ShapeId, options?: CallOptions): Promise<void>;
  query(query: Query, options?: CallOptions): Promise<Result>;
  query(query: AnyQuery, options?: CallOptions): Promise<MeshResult>;
  batch(queries: Query[] | BatchQuery, options?: CallOptions): Promise<BatchResult>;
  batch(queries: AnyQuery[] | { queries: AnyQuery[] }, options?: CallOptions): Promise<{ results: (MeshResult | Problem)[] }>;
  scene(scene: Scene | AnyScene, options?: CallOptions): Promise<SceneResult>;
  contains(query: ContainsQuery | AnyContainsQuery, options?: CallOptions): Promise<ContainsResult>;
  health(which?: 'livez' | 'readyz', options?: CallOptions): Promise<Health & { ok: boolean }>;
  openapi(options?: CallOptions): Promise<Record<string, unknown>>;
}
export default Clashd;
