// Types of three.js (the '@clashd/client/three' module): the wire forms
// come from clashd.d.ts (generated from proto/openapi.yaml, and the narrow
// forms built on them there); the three.js objects are typed by the
// members the module reads, so no @types/three is needed.
import type { Clashd, Pose, Result, ShapeId, MeshGeometry, MeshShape, Primitive, PrimitiveShape } from './clashd.js';
export type { MeshGeometry, MeshShape, Primitive, PrimitiveShape };

/** The convex hull of flat 3-D points. */
export interface HullShape { positions: number[]; dim?: number; radius?: number; pose?: Pose; pose_end?: Pose }

/** What geometryShape answers: a geometry part without pose. */
export type GeometryPart = HullShape | { mesh: MeshGeometry } | Primitive;
/** What the ClashdThree methods answer for a geometry: a ref, or a primitive inline. */
export type GeometryRef = { ref: ShapeId } | Primitive;

/** A shape objectShape or ClashdThree.shape answers. */
export type ThreeShape =
  | (GeometryPart & { pose?: Pose })
  | (GeometryRef & { pose?: Pose })
  | { parts: ThreeShape[]; pose: Pose };

// ---- the three.js objects, as far as they are read ----
export interface AttributeLike {
  count: number;
  itemSize: number;
  version: number;
  array: ArrayLike<number>;
  normalized?: boolean;
  isInterleavedBufferAttribute?: boolean;
  getX(i: number): number;
  getY(i: number): number;
  getZ(i: number): number;
}
export interface GeometryLike {
  type?: string;
  isBufferGeometry?: boolean;
  parameters?: Record<string, unknown>;
  index: { count: number; version: number; array: ArrayLike<number> } | null;
  attributes: { position?: AttributeLike } & Record<string, unknown>;
}
export interface Matrix4Like {
  elements: ArrayLike<number>;
  clone(): Matrix4Like;
  invert(): Matrix4Like;
  premultiply(m: Matrix4Like): Matrix4Like;
}
export interface Object3DLike {
  name?: string;
  type?: string;
  isMesh?: boolean;
  geometry?: GeometryLike;
  matrixWorld: Matrix4Like;
  traverse(f: (o: Object3DLike) => void): void;
  updateWorldMatrix(parents: boolean, children: boolean): void;
}

export interface ShapeOptions {
  /** 'auto' (default): the primitive when it is one, else `fallback`. */
  as?: 'auto' | 'hull' | 'mesh' | 'primitive';
  /** The form of a geometry that is no primitive, for `as: 'auto'` (default 'hull'). */
  fallback?: 'hull' | 'mesh';
  /** Mesh form: merge vertices first (true: within 1e-6 of the box diagonal; a number: that tolerance). */
  weld?: boolean | number;
  /** Bring matrixWorld up to date first (default true). */
  updateMatrixWorld?: boolean;
}

export function weld(positions: ArrayLike<number>, indices?: ArrayLike<number>, tolerance?: number): { positions: number[]; indices: number[] };
export function primitiveOf(geometry: GeometryLike): Primitive | undefined;
export function geometryShape(geometry: GeometryLike, options?: ShapeOptions): GeometryPart;
export function poseOf(object: Object3DLike): { matrix: number[] };
export function objectShape(object: Object3DLike | GeometryLike, options?: ShapeOptions): ThreeShape;

export class ClashdThree {
  constructor(clashd: Clashd, defaults?: ShapeOptions);
  readonly clashd: Clashd;
  geometry(geometry: GeometryLike, options?: ShapeOptions): Promise<GeometryRef>;
  shape(object: Object3DLike | GeometryLike, options?: ShapeOptions): Promise<ThreeShape>;
}

export interface ResultVectors<V> {
  near?: { a: V; b: V };
  normal?: V;
  plane?: { normal: V; offset: number };
  /** pair: the compound answer's `deepest_pair` (its parts in `near_parts`). */
  penetration?: { normal: V; depth?: number; points?: { a: V; b: V }; pair: boolean };
  contact?: V;
  /** A mesh answer's `intersection`. */
  kind?: Result['intersection'];
}
export function resultVectors<V extends { clone(): V }>(
  result: Result,
  three: { Vector3: new (x: number, y: number, z: number) => V },
): ResultVectors<V>;
