// The clashd demo page: a small CAD assembly in three.js whose parts are
// dragged on a horizontal plane; every move asks clashd (through the
// client of clients/js) for the dragged part's distance to the rest of the
// assembly (POST /v1/query, near points drawn as a line) and for every
// pair that clashes, touches or comes within the clearance (POST
// /v1/scene).  Parts are named by ref: their geometry goes to the shape
// store once (the client uploads on unknown-shape) and moves send poses.
//
// The page reads `?clashd=URL` (default: its own origin) and `?token=`.
// window.clashdDemo is a hook for the browser test (web/test/).
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { ConvexGeometry } from 'three/examples/jsm/geometries/ConvexGeometry.js';
import { Clashd } from '../../clients/js/clashd.js';
import { PARTS, CLEARANCE, FIRST_SELECTED } from './assembly.js';

const CLASS_COLOR = { clash: 0xe53935, touch: 0xffa000 };

const params = new URLSearchParams(location.search);
const clashd = new Clashd(params.get('clashd') ?? location.origin, { token: params.get('token') ?? undefined });

// ---- three.js scene ----
const view = document.getElementById('view');
const renderer = new THREE.WebGLRenderer({ antialias: true });
renderer.setPixelRatio(window.devicePixelRatio);
view.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x1d2025);
const camera = new THREE.PerspectiveCamera(45, 1, 0.1, 200);
camera.position.set(5.5, 6, 8.5);
scene.add(new THREE.HemisphereLight(0xffffff, 0x404850, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(4, 10, 6);
scene.add(sun);
const grid = new THREE.GridHelper(12, 24, 0x55606c, 0x353b44);
grid.position.y = -0.001;
scene.add(grid);

/** Meshes for a clashd Shape (a convex hull, rounded by `radius`, or parts). */
function meshesOf(shape, material) {
  if (Array.isArray(shape.parts)) return shape.parts.flatMap((p) => meshesOf(p, material));
  const v = shape.vertices.map((p) => new THREE.Vector3(...p));
  const r = shape.radius ?? 0;
  if (v.length === 1) {
    const m = new THREE.Mesh(new THREE.SphereGeometry(r, 32, 16), material);
    m.position.copy(v[0]);
    return [m];
  }
  if (v.length === 2) { // a segment with a radius: a capsule
    const axis = new THREE.Vector3().subVectors(v[1], v[0]);
    const m = new THREE.Mesh(new THREE.CapsuleGeometry(r, axis.length(), 8, 24), material);
    m.position.addVectors(v[0], v[1]).multiplyScalar(0.5);
    m.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), axis.normalize());
    return [m];
  }
  // (a rounded polytope of 3 or more points is drawn without its rounding)
  const g = new ConvexGeometry(v);
  const m = new THREE.Mesh(g, material);
  const edges = new THREE.LineSegments(new THREE.EdgesGeometry(g, 20), new THREE.LineBasicMaterial({ color: 0x111111 }));
  m.add(edges);
  return [m];
}

const parts = PARTS.map((def) => {
  const material = new THREE.MeshStandardMaterial({ color: def.color, roughness: 0.6, metalness: 0.2 });
  const object = new THREE.Group();
  object.name = def.id;
  for (const m of meshesOf(def.shape, material)) { m.userData.partId = def.id; object.add(m); }
  object.position.set(...def.position);
  scene.add(object);
  return { ...def, object, material, ref: null };
});
const byId = new Map(parts.map((p) => [p.id, p]));

// The near points of the last answer: a line with a dot at each end.
const nearGeometry = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(new Float32Array(6), 3));
const nearLine = new THREE.Line(nearGeometry, new THREE.LineBasicMaterial({ color: 0xffffff, depthTest: false }));
nearLine.renderOrder = 10;
const dots = [0, 1].map(() => {
  const d = new THREE.Mesh(new THREE.SphereGeometry(0.05, 12, 8), new THREE.MeshBasicMaterial({ color: 0xffffff, depthTest: false }));
  d.renderOrder = 11;
  scene.add(d);
  return d;
});
nearLine.visible = dots[0].visible = dots[1].visible = false;
scene.add(nearLine);

function resize() {
  const w = view.clientWidth, h = view.clientHeight;
  renderer.setSize(w, h);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

// ---- asking clashd ----
let selected = byId.get(FIRST_SELECTED);
let inflight = null; // the promise of the running update loop
let pending = false; // a move happened since the last request was sent
let warm = false; // the shapes are in the store (first scene answered)
let requests = 0;
let shown = null; // what the panel shows: the poses asked about and the answers

function poseOf(part) {
  const p = part.object.position, q = part.object.quaternion;
  return { translation: [p.x, p.y, p.z], rotation: [q.x, q.y, q.z, q.w] };
}

async function ask(poses, sel) {
  const objects = parts.map((p) => ({ id: p.id, shape: { ...p.ref, pose: poses[p.id] } }));
  const others = parts.filter((p) => p !== sel);
  const query = {
    a: { ...sel.ref, pose: poses[sel.id] },
    b: { parts: others.map((p) => ({ ...p.ref, pose: poses[p.id] })) },
  };
  const sceneReq = { objects, clearance: CLEARANCE };
  if (!warm) { // one request names every part first, so each is uploaded once
    const s = await clashd.scene(sceneReq);
    warm = true;
    return { scene: s, query: await clashd.query(query), others };
  }
  const [s, q] = await Promise.all([clashd.scene(sceneReq), clashd.query(query)]);
  return { scene: s, query: q, others };
}

async function pump() {
  while (pending) {
    pending = false;
    const poses = Object.fromEntries(parts.map((p) => [p.id, poseOf(p)]));
    const sel = selected;
    const t0 = performance.now();
    try {
      const answer = await ask(poses, sel);
      requests++;
      show({ poses, selected: sel.id, ...answer, ms: performance.now() - t0 });
    } catch (e) {
      const status = document.getElementById('status');
      status.className = 'error';
      status.textContent = String(e.message ?? e);
      shown = { poses, selected: sel.id, error: String(e.message ?? e) };
    }
  }
}

function update() {
  pending = true;
  if (!inflight) inflight = pump().finally(() => { inflight = null; });
  return inflight;
}

function fmt(x) { return x.toFixed(4); }

function show(s) {
  shown = s;
  const q = s.query;
  document.getElementById('selected').textContent = byId.get(s.selected).name;
  const d = document.getElementById('distance');
  d.textContent = fmt(q.distance);
  d.dataset.distance = String(q.distance);
  const depth = q.penetration && (q.penetration.depth ?? q.penetration.depth_lower_bound);
  document.getElementById('distance-note').textContent =
    q.intersecting ? `(intersecting${depth !== undefined ? `, depth ${q.penetration.depth !== undefined ? '' : '≥ '}${fmt(depth)}` : ''})` : '';
  const nearest = q.near_parts ? s.others[q.near_parts.b] : undefined;
  document.getElementById('nearest').textContent = nearest ? nearest.name : '–';
  document.getElementById('nearest').dataset.part = nearest ? nearest.id : '';

  const [a, b] = [q.near_points.a, q.near_points.b];
  nearGeometry.attributes.position.array.set([...a, ...b]);
  nearGeometry.attributes.position.needsUpdate = true;
  dots[0].position.set(...a);
  dots[1].position.set(...b);
  nearLine.visible = dots[0].visible = dots[1].visible = true;

  const worst = new Map(); // part id -> clash | touch
  const ul = document.getElementById('clashes');
  ul.replaceChildren();
  for (const c of s.scene.clashes) {
    for (const id of [c.a, c.b]) {
      if (c.class === 'clash' || (c.class === 'touch' && worst.get(id) !== 'clash')) worst.set(id, c.class);
    }
    const li = document.createElement('li');
    li.className = c.class;
    li.dataset.a = c.a;
    li.dataset.b = c.b;
    li.dataset.class = c.class;
    const depth = c.penetration && (c.penetration.depth ?? c.penetration.depth_lower_bound);
    li.textContent = `${c.a} × ${c.b}: ${c.class}` +
      (c.class === 'clearance' ? `, ${fmt(c.distance)} apart` : depth !== undefined ? `, depth ${fmt(depth)}` : '');
    ul.appendChild(li);
  }
  document.getElementById('clash-count').textContent = String(s.scene.counts.clash);
  for (const p of parts) {
    p.material.color.setHex(CLASS_COLOR[worst.get(p.id)] ?? p.color);
    p.material.emissive.setHex(p.id === s.selected ? 0x202020 : 0x000000);
  }
  const status = document.getElementById('status');
  status.className = '';
  status.textContent = `${requests} updates, the last in ${s.ms.toFixed(1)} ms (a query and a scene of ${parts.length} parts)`;
}

// ---- dragging: pick a part, move it on the horizontal plane through the hit point ----
const raycaster = new THREE.Raycaster();
const ndc = new THREE.Vector2();
const dragPlane = new THREE.Plane();
const hitPoint = new THREE.Vector3();
const grab = new THREE.Vector3(); // part position minus the hit point
let dragging = null;

function rayFrom(e) {
  const r = renderer.domElement.getBoundingClientRect();
  ndc.set(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
}

// Registered before OrbitControls' own listener, so a press on a part turns
// the orbiting off before the controls see it.
renderer.domElement.addEventListener('pointerdown', (e) => {
  rayFrom(e);
  const hit = raycaster.intersectObjects(parts.map((p) => p.object), true).find((h) => h.object.userData.partId);
  if (!hit) return;
  const part = byId.get(hit.object.userData.partId);
  controls.enabled = false;
  dragging = part;
  selected = part;
  dragPlane.setFromNormalAndCoplanarPoint(new THREE.Vector3(0, 1, 0), hit.point);
  grab.subVectors(part.object.position, hit.point);
  renderer.domElement.setPointerCapture(e.pointerId);
  update();
});
renderer.domElement.addEventListener('pointermove', (e) => {
  if (!dragging) return;
  rayFrom(e);
  if (!raycaster.ray.intersectPlane(dragPlane, hitPoint)) return;
  dragging.object.position.set(hitPoint.x + grab.x, dragging.object.position.y, hitPoint.z + grab.z);
  update();
});
const endDrag = () => { dragging = null; controls.enabled = true; };
renderer.domElement.addEventListener('pointerup', endDrag);
renderer.domElement.addEventListener('pointercancel', endDrag);

const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, 0.6, 0);
controls.update();

renderer.setAnimationLoop(() => renderer.render(scene, camera));

// ---- start: refs (ids computed here), then the first answer ----
const hook = {
  ready: false,
  parts: parts.map((p) => p.id),
  /** Wait until the panel shows the answer for the current poses. */
  idle: () => inflight ?? Promise.resolve(),
  /** Place a part (and select it), as a drag would; resolves once shown. */
  moveTo(id, position) {
    selected = byId.get(id);
    selected.object.position.set(...position);
    return update();
  },
  pose: (id) => poseOf(byId.get(id)),
  shown: () => shown && { poses: shown.poses, selected: shown.selected, query: shown.query, scene: shown.scene, error: shown.error },
  color: (id) => '#' + byId.get(id).material.color.getHexString(),
  /** A part's origin in client (CSS pixel) coordinates. */
  screenPoint(id) {
    const v = byId.get(id).object.getWorldPosition(new THREE.Vector3()).project(camera);
    const r = renderer.domElement.getBoundingClientRect();
    return { x: r.left + ((v.x + 1) / 2) * r.width, y: r.top + ((1 - v.y) / 2) * r.height };
  },
};
window.clashdDemo = hook;

(async () => {
  for (const p of parts) p.ref = await clashd.ref(p.shape);
  await update();
  hook.ready = true;
})();
