// Types of clashd.js.  The request and answer types are generated from
// proto/openapi.yaml by openapi-typescript into gen/openapi.d.ts
// (npm run gen; make js-test does it).
import type { components } from './gen/openapi.js';

type Schemas = components['schemas'];
export type Shape = Schemas['Shape'];
export type StoredShape = Schemas['StoredShape'];
export type ShapeId = Schemas['ShapeId'];
export type ShapeSummary = Schemas['ShapeSummary'];
export type ImportResult = Schemas['ImportResult'];
export type ImportedShape = Schemas['ImportedShape'];
export type Pose = Schemas['Pose'];
export type MeshGeometry = Schemas['MeshGeometry'];
export type Sphere = Schemas['Sphere'];
export type Box = Schemas['Box'];
export type Ellipsoid = Schemas['Ellipsoid'];
export type AxialPrimitive = Schemas['AxialPrimitive'];
export type Query = Schemas['Query'];
export type Result = Schemas['Result'];
export type Contact = Schemas['Contact'];
export type BatchQuery = Schemas['BatchQuery'];
export type BatchResult = Schemas['BatchResult'];
export type Scene = Schemas['Scene'];
export type SceneResult = Schemas['SceneResult'];
export type Clash = Schemas['Clash'];
export type ContainsQuery = Schemas['ContainsQuery'];
export type ContainsResult = Schemas['ContainsResult'];
export type Problem = Schemas['Problem'];
export type Health = Schemas['Health'];

// Narrow forms of a Shape, for code that builds one kind: the contract's
// Shape has every member optional (its oneOf says which go together), so
// each of these is a Shape.

/** What places a shape (or a ref): its added radius, pose and pose_end; and the unit it is drawn in. */
export interface Placement { radius?: number; pose?: Pose; pose_end?: Pose; units?: Schemas['Units'] }
/** A shape named by its id, with its own placement. */
export interface ShapeRef extends Placement { ref: ShapeId }
/** A triangle mesh shape: a solid when it encloses something (closed, or its holes leak little). */
export interface MeshShape extends Placement { mesh: MeshGeometry }
/** A primitive, axis along local y (three.js convention). */
export type Primitive =
  | { sphere: Sphere }
  | { box: Box }
  | { capsule: AxialPrimitive }
  | { cylinder: AxialPrimitive }
  | { cone: AxialPrimitive }
  | { ellipsoid: Ellipsoid };
/** A primitive shape, inline or (its id: node 0x04) by ref. */
export type PrimitiveShape = Primitive & Placement;

/** The primitive members, in the order of their kind byte (1 sphere ... 6 ellipsoid). */
export const PRIMITIVES: readonly ['sphere', 'box', 'capsule', 'cylinder', 'cone', 'ellipsoid'];
/** The units a shape may name, in the order of their byte in its id (1 mm ... 4 in). */
export const UNITS: readonly ['mm', 'cm', 'm', 'in'];
export type Units = Schemas['Units'];
/** The primitive member a shape has, or undefined. */
export function primitiveKind(shape: unknown): (typeof PRIMITIVES)[number] | undefined;
/** Whether a shape is, or has among its parts, a primitive. */
export function hasPrimitive(shape: unknown): boolean;

export interface CallOptions {
  signal?: AbortSignal;
  /** The X-Clashd-Shape value to send (a shape id; "" for none), instead of routeBy's. */
  route?: string;
  /**
   * query and upload: answered in the page (true or a LocalCore) or by the
   * server (false), instead of the client's `local`.
   */
  local?: boolean | LocalCore;
}

/** The mesh file formats upload() sends, each with its media type. */
export const MESH_FORMATS: Readonly<{
  stl: 'model/stl'; obj: 'model/obj'; glb: 'model/gltf-binary'; gltf: 'model/gltf+json'; ply: 'application/x-ply';
}>;
export type MeshFormat = keyof typeof MESH_FORMATS;
/** A mesh file's bytes: a Blob or File, an ArrayBuffer, or a typed array (a view: its bytes only). */
export type MeshFile = Blob | ArrayBuffer | ArrayBufferView;

export interface UploadFileOptions {
  signal?: AbortSignal;
  /**
   * The file's format, by name or media type; default: a File's extension,
   * else a GLB's or PLY's first bytes (STL and OBJ must be named).
   */
  format?: MeshFormat | (typeof MESH_FORMATS)[MeshFormat];
  /** Sent as `?weld=x`: each stored mesh gets `"weld": x` (and its id with it). */
  weld?: number;
  /** The X-Clashd-Shape value to send, if any. */
  route?: string;
}

/**
 * The mesh clashd's import stores for a file's triangles: coordinates as
 * float32, vertices of equal position joined in order of first use,
 * triangles with two equal corners dropped (their vertices kept, as the
 * import keeps them).  `shapeId({mesh: fileMesh(p, i)})` is the id clashd
 * answers for a one-mesh file of these triangles.
 */
export function fileMesh(positions: ArrayLike<number>, indices?: ArrayLike<number>):
  { positions: number[]; indices: number[] };

export interface LocalCoreOptions {
  /** Where the module is (default gen/clashd-core.wasm beside local.js), its bytes, or the module. */
  wasm?: string | URL | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module;
  /** Bytes of shapes the page's store keeps (default 256 MiB). */
  budget?: number;
}

/** clashd's core and proto/ in WebAssembly (local.js): /v1/query and /v1/shapes answered in the page. */
export class LocalCore {
  static load(options?: LocalCoreOptions): Promise<LocalCore>;
  answerBytes(route: '/v1/query' | '/v1/shapes', body: string | Uint8Array):
    { status: number; contentType: 'application/json' | 'application/problem+json'; bytes: Uint8Array };
  answer(route: '/v1/query' | '/v1/shapes', body: string | Uint8Array):
    { status: number; contentType: 'application/json' | 'application/problem+json'; body: string };
}

/** The routing header a load balancer may hash on (deploy/haproxy): "X-Clashd-Shape". */
export const ROUTE_HEADER: 'X-Clashd-Shape';

/** The first `{"ref": id}` of a request body, in document order. */
export function firstRef(body: unknown): string | undefined;

export interface ClashdOptions {
  /** Bearer token (clashd --auth-token-file). */
  token?: string;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** Retries of a 503 or 429 answer, each after its Retry-After (default 3). */
  maxRetries?: number;
  /** Longest wait for one Retry-After, in ms (default 30000). */
  maxRetryWait?: number;
  /**
   * 'first-ref': send each request's first ref (an upload: its own id) as
   * X-Clashd-Shape, for a load balancer hashing on it (deploy/haproxy), so
   * that requests naming a shape, and the uploads after a miss, reach the
   * replica holding it.  Default 'none'.
   */
  routeBy?: 'none' | 'first-ref';
  /**
   * Answer queries and uploads in the page (local.js; scenes, batches,
   * contains and files go to the server): true (loaded on first use),
   * a LocalCore, or LocalCore.load's options.  Default false.
   */
  local?: boolean | LocalCore | LocalCoreOptions;
  /** The server's address, when the options come first: new Clashd({local: true, baseUrl}). */
  baseUrl?: string | URL;
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
/**
 * The canonical encoding whose SHA-256 is a shape's id, its `units` (or a
 * part's) included (a TypeError for a ref, a size not finite > 0, or units
 * unknown or not all the same).
 */
export function canonicalBytes(shape: StoredShape | Shape): Uint8Array;
/** A shape's id, computed locally (Web Crypto SHA-256). */
export function shapeId(shape: StoredShape | Shape): Promise<ShapeId>;

export class Clashd {
  constructor(baseUrl: string | URL, options?: ClashdOptions | string);
  constructor(options: ClashdOptions);
  readonly baseUrl: string;
  readonly routeBy: 'none' | 'first-ref';
  /** id -> geometry of the shapes this client made refs for or uploaded. */
  readonly shapes: Map<ShapeId, StoredShape | Shape>;
  /** The id of a shape's geometry (its pose and pose_end ignored). */
  shapeId(shape: StoredShape | Shape): Promise<ShapeId>;
  ref(shape: StoredShape | Shape, placement?: Placement): Promise<ShapeRef>;
  upload(shape: StoredShape | Shape, options?: CallOptions): Promise<ShapeSummary>;
  /** A mesh file to POST /v1/shapes (always to the server, even in local mode): the server's ImportResult. */
  upload(file: MeshFile, options?: UploadFileOptions): Promise<ImportResult>;
  getShape(id: ShapeId, options?: CallOptions): Promise<ShapeSummary>;
  hasShape(id: ShapeId, options?: CallOptions): Promise<boolean>;
  deleteShape(id: ShapeId, options?: CallOptions): Promise<void>;
  query(query: Query, options?: CallOptions): Promise<Result>;
  batch(queries: Query[] | BatchQuery, options?: CallOptions): Promise<BatchResult>;
  scene(scene: Scene, options?: CallOptions): Promise<SceneResult>;
  contains(query: ContainsQuery, options?: CallOptions): Promise<ContainsResult>;
  health(which?: 'livez' | 'readyz', options?: CallOptions): Promise<Health & { ok: boolean }>;
  openapi(options?: CallOptions): Promise<Record<string, unknown>>;
}
export default Clashd;
