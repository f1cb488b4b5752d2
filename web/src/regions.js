// A mesh pair's clash report drawn in the scene (docs/contract.md, "Clash
// reports"): for each pair the page asked about (a Result with
// `overlap.regions`, and `penetration` once asked for), the intersection
// curves as lines drawn over everything (they lie on both parts), only the
// triangles that take part tinted on each mesh (a second mesh under the
// part, built from the listed input triangles of the geometry that went to
// clashd, drawn just in front of the part's own faces), and the depth as
// an arrow from the deepest point of b along the direction that parts them.
import * as THREE from 'three';

/**
 * What the page asks of each clashing pair with a mesh (`want`): where
 * (regions, with their volumes) and how deep (the arrow, the list's depth).
 */
export const REPORT_WANT = ['regions', 'depth'];

const CURVE_COLOR = 0x00e5ff;
const TRIANGLE_COLOR = 0xff1744;
const ARROW_COLOR = 0xff5252;

const curveMaterial = new THREE.LineBasicMaterial({ color: CURVE_COLOR, depthTest: false, transparent: true });
// In front of the part's own faces at the same place (no z-fighting), still
// hidden by what is in front of the part.
// Translucent: a CAD face is often one or two large triangles, and the
// curve and the part's own shading should still show through them.
const triangleMaterial = new THREE.MeshBasicMaterial({
  color: TRIANGLE_COLOR, side: THREE.DoubleSide, transparent: true, opacity: 0.6, depthWrite: false,
  polygonOffset: true, polygonOffsetFactor: -1, polygonOffsetUnits: -4,
});

/** The listed triangles of a mesh (`{positions, indices}` as sent), in its own frame. */
function trianglesGeometry(mesh, triangles) {
  const { positions, indices } = mesh;
  const out = new Float32Array(9 * triangles.length);
  triangles.forEach((t, k) => {
    for (let j = 0; j < 3; j++) {
      const v = indices ? indices[3 * t + j] : 3 * t + j;
      out.set([positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]], 9 * k + 3 * j);
    }
  });
  return new THREE.BufferGeometry().setAttribute('position', new THREE.BufferAttribute(out, 3));
}

function curveLine({ closed, points }) {
  const g = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(points.flat(), 3));
  const line = closed ? new THREE.LineLoop(g, curveMaterial) : new THREE.Line(g, curveMaterial);
  line.renderOrder = 11;
  return line;
}

function depthArrow(p) {
  const dir = new THREE.Vector3(...p.normal).normalize();
  const len = p.depth;
  const arrow = new THREE.ArrowHelper(dir, new THREE.Vector3(...p.points.b), len, ARROW_COLOR, 0.3 * len, 0.2 * len);
  arrow.line.material.depthTest = arrow.cone.material.depthTest = false;
  arrow.renderOrder = 11;
  return arrow;
}

/** The drawings of the reports the page last showed. */
export class RegionView {
  constructor(scene) {
    this.group = new THREE.Group(); // curves and arrows, in world coordinates
    scene.add(this.group);
    this.tints = []; // the triangle meshes under the parts
    this.highlighted = new Map(); // part id -> sorted triangle indices tinted
  }

  clear() {
    for (const o of [...this.group.children]) {
      this.group.remove(o);
      if (o instanceof THREE.ArrowHelper) o.dispose(); else o.geometry.dispose();
    }
    for (const t of this.tints) { t.removeFromParent(); t.geometry.dispose(); }
    this.tints = [];
    this.highlighted = new Map();
  }

  /**
   * Draws `reports`: [{a, b, result}], a and b the pair's parts ({id,
   * object, mesh: the mesh that went to clashd, or undefined}), result its
   * Result.  Answers the ids of the parts whose triangles are tinted.
   */
  draw(reports) {
    this.clear();
    const tinted = new Map(); // part -> Set of triangle indices
    for (const { a, b, result } of reports) {
      for (const region of result.overlap?.regions ?? []) {
        for (const c of region.curve) if (c.points.length > 1) this.group.add(curveLine(c));
        for (const [part, list] of [[a, region.triangles.a], [b, region.triangles.b]]) {
          if (!part.mesh || list.length === 0) continue;
          if (!tinted.has(part)) tinted.set(part, new Set());
          for (const t of list) tinted.get(part).add(t);
        }
      }
      const p = result.penetration;
      if (p?.depth > 0 && p.normal && p.points) this.group.add(depthArrow(p));
    }
    for (const [part, set] of tinted) {
      const list = [...set].sort((x, y) => x - y);
      const tint = new THREE.Mesh(trianglesGeometry(part.mesh, list), triangleMaterial);
      tint.renderOrder = 1;
      tint.raycast = () => {}; // picking goes to the part itself
      part.object.add(tint);
      this.tints.push(tint);
      this.highlighted.set(part.id, list);
    }
    return new Set(this.highlighted.keys());
  }

  /** What is drawn, for the browser test: tinted triangles, curves (world points), arrows. */
  drawn() {
    const lines = this.group.children.filter((o) => o.isLine);
    const arrows = this.group.children.filter((o) => o instanceof THREE.ArrowHelper);
    return {
      highlighted: Object.fromEntries(this.highlighted),
      curves: lines.map((l) => ({ closed: !!l.isLineLoop, points: Array.from({ length: l.geometry.attributes.position.count },
        (_, i) => [0, 1, 2].map((j) => l.geometry.attributes.position.array[3 * i + j])) })),
      arrows: arrows.map((a) => ({ origin: a.position.toArray(), direction: new THREE.Vector3(0, 1, 0).applyQuaternion(a.quaternion).toArray(),
        length: a.line.scale.y + a.cone.scale.y })),
    };
  }
}
