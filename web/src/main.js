// The clashd demo page: a small CAD assembly in three.js whose parts are
// moved and turned with TransformControls; every change asks clashd
// (through the client of clients/js and its three.js helpers) for the
// selected part's distance to the rest of the assembly (POST /v1/query:
// near points, separating plane, penetration direction) and for every pair
// that clashes, touches or comes within the clearance (POST /v1/scene).
// Parts go as mesh solids (plate, bracket), primitives (bolt, pipe, knob)
// or convex hulls, posed by matrixWorld; meshes and hulls by ref (their
// geometry goes to the shape store once, the client uploads on
// unknown-shape), primitives inline.  With "motion" on, a third query
// sweeps the selected part from where its move began (`pose`) to where it
// is (`pose_end`): the time of impact and the contact point.  For each
// clash or touch of the selected part with a mesh on either side, a batch
// asks clashd for the pair's clash report (`want`: regions.js) and the page
// draws it (regions.js) instead of painting the whole part.  The clash
// list shows each pair's depth and overlap volume in the assembly's units
// and ranks the pairs by them.
//
// The user's own parts (files.js): an STL, OBJ, glTF/GLB or PLY file
// dropped on the page or chosen goes to clashd's POST /v1/shapes, which
// reads it; the part then goes by the refs it answered and is placed,
// dragged, listed and reported like the others.  A file clashd refuses is
// listed with clashd's status and detail.  The "in the page" toggle answers
// the selected part's query with the core in WebAssembly (the client's
// local mode) and the server alike, and shows both answers and their
// latency; scenes and reports always go to the server.
//
// The page reads `?clashd=URL` (default: its own origin) and `?token=`.
// window.clashdDemo is a hook for the browser test (web/test/).
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { TransformControls } from 'three/examples/jsm/controls/TransformControls.js';
import { Clashd, ClashdProblem, MESH_FORMATS } from '../../clients/js/clashd.js';
import { ClashdThree, geometryShape, poseOf, resultVectors } from '../../clients/js/three.js';
import { makeParts, CLEARANCE, FIRST_SELECTED, UNITS } from './assembly.js';
import { RegionView, REPORT_WANT } from './regions.js';
import { fileShape, formatOf, meshesOf, place, readForDisplay, storedMesh } from './files.js';
import { noWebGL } from './webgl.js';

const CLASS_COLOR = { clash: 0xe53935, touch: 0xffa000 };

const params = new URLSearchParams(location.search);
const clashd = new Clashd(params.get('clashd') ?? location.origin, { token: params.get('token') ?? undefined });
const three = new ClashdThree(clashd);

// ---- three.js scene ----
const view = document.getElementById('view');
let renderer;
try {
  renderer = new THREE.WebGLRenderer({ antialias: true });
} catch (e) {
  noWebGL(e.message);
  throw e;
}
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

const parts = makeParts().map((def) => {
  const material = new THREE.MeshStandardMaterial({ color: def.color, roughness: 0.6, metalness: 0.2 });
  const object = new THREE.Mesh(def.geometry, material);
  object.name = def.id;
  object.userData.partId = def.id;
  object.add(new THREE.LineSegments(new THREE.EdgesGeometry(def.geometry, 20), new THREE.LineBasicMaterial({ color: 0x111111 })));
  object.position.set(...def.position);
  if (def.rotation) object.rotation.set(...def.rotation);
  scene.add(object);
  // the mesh that goes to clashd: the triangles a report lists index it
  const mesh = def.form.as === 'mesh' ? geometryShape(def.geometry, def.form).mesh : undefined;
  return { ...def, object, material, mesh, reported: !!mesh, pickables: [object] };
});
const byId = new Map(parts.map((p) => [p.id, p]));

// The answer drawn in the scene: near points (a line with a dot at each
// end), the separating plane (a translucent quad, when apart) and the
// penetration direction (an arrow, when overlapping and the answer has one);
// with "motion" on, the time of impact's contact point (a yellow dot).
const overlay = { depthTest: false, transparent: true };
const nearGeometry = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(new Float32Array(6), 3));
const nearLine = new THREE.Line(nearGeometry, new THREE.LineBasicMaterial({ color: 0xffffff, ...overlay }));
const dots = [0, 1].map(() => new THREE.Mesh(new THREE.SphereGeometry(0.05, 12, 8), new THREE.MeshBasicMaterial({ color: 0xffffff, ...overlay })));
const planeQuad = new THREE.Mesh(new THREE.PlaneGeometry(1.6, 1.6),
  new THREE.MeshBasicMaterial({ color: 0x4fc3f7, transparent: true, opacity: 0.25, side: THREE.DoubleSide, depthWrite: false }));
const arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 1, 0), new THREE.Vector3(), 0.6, 0xff5252, 0.15, 0.08);
arrow.line.material.depthTest = arrow.cone.material.depthTest = false;
const contactDot = new THREE.Mesh(new THREE.SphereGeometry(0.07, 12, 8), new THREE.MeshBasicMaterial({ color: 0xffeb3b, ...overlay }));
for (const o of [nearLine, ...dots, planeQuad, arrow, contactDot]) { o.renderOrder = 10; o.visible = false; scene.add(o); }
const regions = new RegionView(scene);

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
let pending = false; // a change happened since the last request was sent
let warm = false; // the shapes are in the store (a scene answered)
let requests = 0;
let shown = null; // what the panel shows: the poses asked about and the answers
let motionOn = false; // the "motion" toggle: ask for the time of impact too
let moveStart = null; // the selected part's pose where its current move began
let sortBy = 'depth'; // the clash list's order: 'depth' (then volume) or 'volume' (then depth)
let localOn = false; // the "in the page" toggle: the query answered in the page too

// A file's part goes to clashd as the shapes clashd read of it.  The core
// in the page reads no files: it gets the mesh clashd stored when the page
// could rebuild it (files.js, storedMesh), else the mesh three.js drew.
const FILE_FORM = { as: 'mesh', weld: true };
const shapeOf = (p) => (p.file ? fileShape(p.object, p.file.shapes) : three.shape(p.object, p.form));
async function pageShapeOf(p) {
  if (!p.file || p.file.held) return shapeOf(p);
  const meshes = meshesOf(p.object);
  if (meshes.length === 1 && meshes[0].parent === p.object && meshes[0].matrix.equals(new THREE.Matrix4()))
    return { ...(await three.geometry(meshes[0].geometry, FILE_FORM)), pose: poseOf(p.object) };
  return three.shape(p.object, FILE_FORM);
}

/** A call's answer and the milliseconds it took, as the page sees them. */
async function timed(call) {
  const t0 = performance.now();
  const answer = await call();
  return { answer, ms: performance.now() - t0 };
}

/** The selected part against a compound of the others, with each part's shape from `shapes`. */
const queryOf = (sel, others, shapes) => ({ a: { ...shapes.get(sel.id), units: UNITS }, b: { parts: others.map((p) => shapes.get(p.id)) } });

async function ask(sel) {
  const list = [...parts]; // as they are now: a file may add one meanwhile
  const shapes = new Map(await Promise.all(list.map(async (p) => [p.id, await shapeOf(p)])));
  const poses = Object.fromEntries(list.map((p) => [p.id, shapes.get(p.id).pose]));
  const objects = list.map((p) => ({ id: p.id, shape: shapes.get(p.id) }));
  const others = list.filter((p) => p !== sel);
  const query = queryOf(sel, others, shapes);
  const sceneReq = { objects, clearance: CLEARANCE, units: UNITS };
  // with "in the page" on, the same question answered by the core in the
  // page first (alone, so that its time is its own), then by the server
  const pageQuery = localOn && queryOf(sel, others, new Map(await Promise.all(list.map(async (p) => [p.id, await pageShapeOf(p)]))));
  const page = pageQuery ? await timed(() => clashd.query(pageQuery, { local: true })) : undefined;
  // the motion: the selected part from where its move began to where it is
  const from = motionOn ? (moveStart ?? poses[sel.id]) : undefined;
  const q = pageQuery || query;
  const sweep = () => (from ? clashd.query({ a: { ...q.a, pose: from, pose_end: poses[sel.id] }, b: q.b }, { local: localOn }) : undefined);
  const server = () => timed(() => clashd.query(query, { local: false }));
  // one request names every part first, so that each is uploaded once
  const first = warm ? undefined : await clashd.scene(sceneReq);
  warm = true;
  const [sceneAnswer, sv, m] = await Promise.all([first ?? clashd.scene(sceneReq), server(), sweep()]);
  const reports = await reportsOf(sel, sceneAnswer, shapes);
  return { poses, scene: sceneAnswer, query: (page ?? sv).answer, page, server: sv, motion: m && { from, result: m }, reports, others };
}

/**
 * The clash reports of the selected part's clashes and touches with a mesh
 * on either side (one batch, each pair as the scene named it: a then b):
 * [{a, b, result}] with the parts' ids; a pair answered with a problem is
 * left out (its parts are painted as before).
 */
async function reportsOf(sel, sceneAnswer, shapes) {
  const pairs = sceneAnswer.clashes.filter((c) => c.class !== 'clearance' && (c.a === sel.id || c.b === sel.id) &&
    (byId.get(c.a).reported || byId.get(c.b).reported));
  if (pairs.length === 0) return [];
  const { results } = await clashd.batch(pairs.map((c) => ({
    a: { ...shapes.get(c.a), units: UNITS }, b: shapes.get(c.b), want: REPORT_WANT,
  })));
  return pairs.map((c, i) => ({ a: c.a, b: c.b, result: results[i] })).filter((r) => r.result.overlap);
}

/**
 * A server that lost a file's shapes (restarted, evicted, another replica)
 * answers unknown-shape naming them; the client uploads again only the
 * shapes it holds, so the page sends those files again.  Whether it did.
 */
async function uploadFilesAgain(e) {
  if (!(e instanceof ClashdProblem) || !e.missing) return false;
  const lost = parts.filter((p) => p.file && p.file.shapes.some((s) => e.missing.includes(s.id)));
  await Promise.all(lost.map((p) => clashd.upload(p.file.bytes, { format: p.file.format })));
  return lost.length > 0;
}

async function pump() {
  let again = true; // once per update: files sent again after unknown-shape
  while (pending) {
    pending = false;
    const sel = selected;
    const t0 = performance.now();
    try {
      const answer = await ask(sel);
      requests++;
      show({ selected: sel.id, ...answer, ms: performance.now() - t0 });
    } catch (e) {
      if (again && await uploadFilesAgain(e).catch(() => false)) {
        again = false;
        pending = true;
        continue;
      }
      const status = document.getElementById('status');
      status.className = 'error';
      const text = problemText(e);
      status.textContent = text;
      shown = { poses: Object.fromEntries(parts.map((p) => [p.id, poseOf(p.object)])), selected: sel.id, error: text };
    }
  }
}

function update() {
  pending = true;
  if (!inflight) inflight = pump().finally(() => { inflight = null; });
  return inflight;
}

/**
 * What the page says of a failed call: clashd's status and detail for a
 * problem; where it asked when fetch itself failed (no answer at all).
 */
function problemText(e) {
  if (e instanceof ClashdProblem && e.detail) return `clashd ${e.status}: ${e.detail}`;
  if (e instanceof TypeError && /fetch/i.test(e.message)) return `no answer from clashd at ${clashd.baseUrl} (${e.message})`;
  return String(e.message ?? e);
}

function fmt(x) { return x.toFixed(4); }
/** A length or volume for the list: three significant digits, plain where that reads well. */
function num(x) {
  const m = Math.abs(x);
  if (m === 0) return '0';
  if (m >= 1000) return x.toFixed(0);
  return m < 1e-4 ? x.toExponential(2) : x.toPrecision(3);
}
const withUnits = (x, units, power = '') => `${num(x)}${units ? ` ${units}${power}` : ''}`;

/** A clash's depth (exact, else its lower bound) and the volume the two share, when the answer has them. */
const depthOf = (c) => c.penetration && (c.penetration.depth ?? c.penetration.depth_lower_bound);
const volumeOf = (c) => c.overlap?.volume;
const CLASS_RANK = { clash: 0, touch: 1, clearance: 2 };
/**
 * The list's order: clashes, touches, clearances; within a class the
 * deepest first, then the largest volume (or volume first, then depth),
 * a pair without the number after those with it; clearances nearest first.
 */
function severity(order) {
  const keys = order === 'volume' ? [volumeOf, depthOf] : [depthOf, volumeOf];
  const desc = (x, y) => (y ?? -Infinity) - (x ?? -Infinity);
  return (x, y) => (CLASS_RANK[x.class] - CLASS_RANK[y.class]) || desc(keys[0](x), keys[0](y)) ||
    desc(keys[1](x), keys[1](y)) || (x.class === 'clearance' ? x.distance - y.distance : 0);
}
const INTERSECTION = { surfaces: 'surfaces meet', a_inside_b: 'inside the other', b_inside_a: 'the other inside it' };

function show(s) {
  shown = s;
  const q = s.query;
  const v = resultVectors(q, THREE);
  document.getElementById('selected').textContent = byId.get(s.selected).name;
  const d = document.getElementById('distance');
  d.textContent = fmt(q.distance);
  d.dataset.distance = String(q.distance);
  document.getElementById('distance-units').textContent = q.units ?? '';
  let note = '';
  if (q.intersecting) {
    const depth = q.penetration && (q.penetration.depth ?? q.penetration.depth_lower_bound);
    note = `(intersecting${depth !== undefined ? `, depth ${q.penetration.depth !== undefined ? '' : '≥ '}${fmt(depth)}` : ''}` +
      `${v.kind ? `: ${INTERSECTION[v.kind] ?? v.kind}` : ''})`;
  }
  document.getElementById('distance-note').textContent = note;
  // who answered, in how long: the server always, the page when asked
  for (const [which, t] of [['server', s.server], ['page', s.page]]) {
    const el = document.getElementById(`answer-${which}`);
    el.textContent = t ? `${which}: ${fmt(t.answer.distance)} in ${t.ms.toFixed(2)} ms` : '';
    el.dataset.distance = t ? String(t.answer.distance) : '';
    el.dataset.ms = t ? String(t.ms) : '';
  }
  const nearest = q.near_parts ? s.others[q.near_parts.b] : undefined;
  document.getElementById('nearest').textContent = nearest ? nearest.name : '–';
  document.getElementById('nearest').dataset.part = nearest ? nearest.id : '';

  // near points
  const { a, b } = v.near;
  nearGeometry.attributes.position.array.set([a.x, a.y, a.z, b.x, b.y, b.z]);
  nearGeometry.attributes.position.needsUpdate = true;
  dots[0].position.copy(a);
  dots[1].position.copy(b);
  nearLine.visible = dots[0].visible = dots[1].visible = true;
  // separating plane: through the middle of the near points, facing its normal
  planeQuad.visible = !q.intersecting && v.plane !== undefined;
  if (planeQuad.visible) {
    const n = v.plane.normal.normalize();
    const mid = a.clone().add(b).multiplyScalar(0.5);
    planeQuad.position.copy(mid).addScaledVector(n, v.plane.offset - n.dot(mid));
    planeQuad.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), n);
  }
  // penetration direction
  arrow.visible = q.intersecting && v.penetration !== undefined;
  if (arrow.visible) {
    arrow.position.copy(v.penetration.points?.a ?? a);
    arrow.setDirection(v.penetration.normal.normalize());
    arrow.setLength(Math.max(v.penetration.depth ?? 0, 0.5), 0.15, 0.08);
  }
  const panel = document.getElementById('answer');
  panel.dataset.plane = String(planeQuad.visible);
  panel.dataset.arrow = String(arrow.visible);
  panel.dataset.intersection = v.kind ?? '';

  // the motion: time of impact and contact point
  const m = s.motion?.result;
  const toiText = document.getElementById('toi');
  toiText.textContent = !m ? '–' : m.toi === null ? 'no contact during the move'
    : `${fmt(m.toi)} at (${m.contact.point.map((x) => x.toFixed(3)).join(', ')})`;
  toiText.dataset.toi = m ? String(m.toi) : '';
  const mc = m && resultVectors(m, THREE).contact;
  contactDot.visible = !!(m && m.toi !== null && mc);
  if (contactDot.visible) contactDot.position.copy(mc);

  // the clash reports: curves, tinted triangles, depth arrows
  const tinted = regions.draw((s.reports ?? []).map((r) => ({ a: byId.get(r.a), b: byId.get(r.b), result: r.result })));
  const reported = new Set((s.reports ?? []).map((r) => `${r.a}|${r.b}`));
  const panelRegions = document.getElementById('regions');
  const regionCount = (s.reports ?? []).reduce((n, r) => n + (r.result.overlap.regions?.length ?? 0), 0);
  panelRegions.textContent = regionCount === 0 ? '–' : `${regionCount} where ${byId.get(s.selected).name} meets mesh parts` +
    ((s.reports ?? []).some((r) => r.result.overlap.truncated) ? ' (truncated)' : '');

  const worst = new Map(); // part id -> clash | touch
  const ul = document.getElementById('clashes');
  ul.replaceChildren();
  const units = s.scene.units;
  for (const c of [...s.scene.clashes].sort(severity(sortBy))) {
    for (const id of [c.a, c.b]) {
      // a part whose triangles show this clash is not painted whole
      if (tinted.has(id) && reported.has(`${c.a}|${c.b}`)) continue;
      if (c.class === 'clash' || (c.class === 'touch' && worst.get(id) !== 'clash')) worst.set(id, c.class);
    }
    const li = document.createElement('li');
    li.className = c.class;
    li.dataset.a = c.a;
    li.dataset.b = c.b;
    li.dataset.class = c.class;
    const depth = depthOf(c), volume = volumeOf(c);
    if (depth !== undefined) li.dataset.depth = String(depth);
    if (volume !== undefined) li.dataset.volume = String(volume);
    li.textContent = `${c.a} × ${c.b}: ${c.class}` +
      (c.class === 'clearance' ? `, ${withUnits(c.distance, units)} apart` : '') +
      (c.class !== 'clearance' && depth !== undefined ? `, depth ${c.penetration.depth === undefined ? '≥ ' : ''}${withUnits(depth, units)}` : '') +
      (c.class !== 'clearance' && volume !== undefined ? `, volume ${withUnits(volume, units, '³')}` : '') +
      (c.intersection ? ` (${INTERSECTION[c.intersection] ?? c.intersection})` : '');
    li.addEventListener('click', () => select(byId.get(c.a)));
    ul.appendChild(li);
  }
  document.getElementById('clash-count').textContent = String(s.scene.counts.clash);
  for (const p of parts) {
    p.material.color.setHex(CLASS_COLOR[worst.get(p.id)] ?? p.color);
    p.material.emissive.setHex(p.id === s.selected ? 0x202020 : 0x000000);
  }
  const status = document.getElementById('status');
  status.className = '';
  status.textContent = `${requests} updates, the last in ${s.ms.toFixed(1)} ms ` +
    `(${s.motion ? 'two queries' : 'a query'}${s.page ? ' in the page and one by the server' : ''}, a scene of ${Object.keys(s.poses).length} parts` +
    `${s.reports?.length ? ` and ${s.reports.length === 1 ? 'a clash report' : `${s.reports.length} clash reports`}` : ''})`;
}

// ---- moving parts: TransformControls on the selected part ----
const orbit = new OrbitControls(camera, renderer.domElement);
orbit.target.set(0, 0.6, 0);
orbit.update();
const gizmo = new TransformControls(camera, renderer.domElement);
gizmo.setSize(0.8);
gizmo.addEventListener('dragging-changed', (e) => { orbit.enabled = !e.value; });
gizmo.addEventListener('objectChange', () => update());
// a drag of a handle starts a move: the motion sweeps from here
gizmo.addEventListener('mouseDown', () => { moveStart = poseOf(selected.object); });
scene.add(gizmo.getHelper());

function select(part) {
  if (!part) return;
  selected = part;
  moveStart = null;
  gizmo.attach(part.object);
  update();
}
function setMotion(on) {
  motionOn = on;
  document.getElementById('motion').checked = on;
  return update();
}
document.getElementById('motion').addEventListener('change', (e) => setMotion(e.target.checked));
function setSort(order) {
  sortBy = order;
  document.getElementById('sort').value = order;
  if (shown && !shown.error) show(shown);
}
document.getElementById('sort').addEventListener('change', (e) => setSort(e.target.value));
function setMode(mode) {
  gizmo.setMode(mode);
  for (const b of document.querySelectorAll('[data-mode]')) b.classList.toggle('on', b.dataset.mode === mode);
}
for (const b of document.querySelectorAll('[data-mode]')) b.addEventListener('click', () => setMode(b.dataset.mode));
window.addEventListener('keydown', (e) => {
  if (e.key === 't' || e.key === 'w') setMode('translate');
  if (e.key === 'r' || e.key === 'e') setMode('rotate');
});

// Registered after TransformControls' own listener: a press on one of its
// handles starts a drag there; a press on a part selects it.
const raycaster = new THREE.Raycaster();
const ndc = new THREE.Vector2();
renderer.domElement.addEventListener('pointerdown', (e) => {
  if (gizmo.dragging || gizmo.axis !== null) return;
  const r = renderer.domElement.getBoundingClientRect();
  ndc.set(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  const hit = raycaster.intersectObjects(parts.flatMap((p) => p.pickables), false)[0];
  if (hit) select(byId.get(hit.object.userData.partId));
});

// ---- the user's parts: files dropped on the page or chosen ----
const FILE_COLORS = [0xb0bec5, 0x90caf9, 0xa5d6a7, 0xffcc80, 0xce93d8];
let adding = Promise.resolve(); // files are added one after the other, in the order given

/** A part id for a file name: the name, made unique. */
function partIdFor(name) {
  let id = name;
  for (let k = 2; byId.has(id); k++) id = `${name} (${k})`;
  return id;
}

/**
 * Add the part of a mesh file (its name and bytes): clashd reads it, the
 * page draws it, selects it and asks about it.  The file's line in the list
 * says what clashd read, or what it refused (its status and detail).
 * Resolves to the part, or undefined.
 */
async function addFile(name, bytes) {
  const li = document.createElement('li');
  li.dataset.name = name;
  li.textContent = `${name}: sent to clashd…`;
  document.getElementById('files').appendChild(li);
  const fail = (text, e) => {
    li.className = 'problem';
    li.dataset.status = e?.status === undefined ? '' : String(e.status);
    li.dataset.detail = e?.detail ?? '';
    li.textContent = `${name}: ${text}`;
  };
  const format = formatOf(name);
  if (!format) return fail(`not a file clashd reads (${Object.keys(MESH_FORMATS).map((x) => '.' + x).join(', ')})`);
  let imported, object;
  try {
    imported = await clashd.upload(bytes, { format });
  } catch (e) {
    return fail(problemText(e), e);
  }
  try {
    object = await readForDisplay(format, bytes);
  } catch (e) {
    return fail(`clashd read it, but three.js cannot draw it: ${e.message ?? e}`);
  }
  const id = partIdFor(name);
  const color = FILE_COLORS[(parts.filter((p) => p.file).length) % FILE_COLORS.length];
  // flat shading: a file's normals may be missing or zero (many STL writers)
  const material = new THREE.MeshStandardMaterial({ color, roughness: 0.6, metalness: 0.2, side: THREE.DoubleSide, flatShading: true });
  const meshes = meshesOf(object);
  for (const m of meshes) {
    m.material = material;
    m.userData.partId = id;
  }
  object.name = id;
  object.userData.partId = id;
  // (without it, the page's core gets the drawn mesh and nothing is tinted)
  const held = await storedMesh(clashd, object, imported.shapes).catch(() => undefined);
  place(object);
  scene.add(object);
  const part = { id, name, color, form: { as: 'file', format }, object, material, mesh: held,
    reported: true, pickables: meshes, file: { format, bytes, shapes: imported.shapes, held: !!held } };
  parts.push(part);
  byId.set(id, part);
  const triangles = imported.shapes.reduce((n, x) => n + (x.triangles ?? 0), 0);
  li.className = 'ok';
  li.dataset.id = id;
  li.textContent = `${id}: ${triangles} triangles, ${imported.shapes.every((x) => x.solid) ? 'a solid' : 'a surface'}` +
    (imported.shapes.length > 1 ? ` in ${imported.shapes.length} shapes` : '') + ' (read by clashd)';
  li.addEventListener('click', () => select(part));
  select(part);
  await inflight;
  return part;
}

/** Add files (File objects) in order; resolves once the last is shown. */
function addFiles(files) {
  for (const f of files) adding = adding.then(async () => addFile(f.name, await f.arrayBuffer()));
  return adding;
}
// a drop anywhere on the page: the browser is not to open the file instead
window.addEventListener('dragover', (e) => { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; });
window.addEventListener('drop', (e) => {
  e.preventDefault();
  if (e.dataTransfer?.files.length) addFiles([...e.dataTransfer.files]);
});
document.getElementById('file').addEventListener('change', (e) => {
  addFiles([...e.target.files]);
  e.target.value = '';
});

function setLocal(on) {
  localOn = on;
  document.getElementById('local').checked = on;
  document.getElementById('files-local').hidden = !on;
  return update();
}
document.getElementById('local').addEventListener('change', (e) => setLocal(e.target.checked));

renderer.setAnimationLoop(() => renderer.render(scene, camera));

// ---- start: the first answer ----
const project = (v) => {
  v.project(camera);
  const r = renderer.domElement.getBoundingClientRect();
  return { x: r.left + ((v.x + 1) / 2) * r.width, y: r.top + ((1 - v.y) / 2) * r.height };
};
const hook = {
  ready: false,
  get parts() { return parts.map((p) => p.id); },
  /** Wait until the files given are added and the panel shows the answer for the current poses. */
  idle: async () => { await adding; await inflight; },
  /**
   * Place a part (position, and Euler angles if given) and select it; the
   * move begins where it was.  Resolves once shown.
   */
  moveTo(id, position, rotation) {
    const p = byId.get(id);
    if (selected !== p) { selected = p; gizmo.attach(p.object); }
    moveStart = poseOf(p.object);
    p.object.position.set(...position);
    if (rotation) p.object.rotation.set(...rotation);
    return update();
  },
  /** The "motion" toggle; resolves once shown. */
  setMotion,
  /** The "in the page" toggle; resolves once shown. */
  setLocal,
  select: (id) => { select(byId.get(id)); return inflight; },
  setMode,
  pose: (id) => poseOf(byId.get(id).object),
  /** The geometryShape options each part goes with. */
  forms: () => Object.fromEntries(parts.map((p) => [p.id, p.form])),
  shown: () => shown && { poses: shown.poses, selected: shown.selected, query: shown.query, scene: shown.scene, motion: shown.motion,
    reports: shown.reports, error: shown.error, page: shown.page, server: shown.server },
  /** A part's shape as it goes to clashd. */
  serverShape: (id) => shapeOf(byId.get(id)),
  /** A part's shape as it goes to the core in the page (the client then holds its geometry). */
  pageShape: (id) => pageShapeOf(byId.get(id)),
  /** What the clash reports drew: tinted triangles per part, curves, depth arrows. */
  regions: () => regions.drawn(),
  /** How many triangles each mesh part sent. */
  triangleCounts: () => Object.fromEntries(parts.filter((p) => p.mesh).map((p) => [p.id, p.mesh.indices.length / 3])),
  /** The clash list's order ('depth' or 'volume'); shows it again. */
  setSort,
  color: (id) => '#' + byId.get(id).material.color.getHexString(),
  /** A part's origin in client (CSS pixel) coordinates. */
  screenPoint: (id) => project(byId.get(id).object.getWorldPosition(new THREE.Vector3())),
  /** The middle of a TransformControls handle ('X', 'Y', 'Z' of the current mode), in client coordinates. */
  handlePoint(axis) {
    // Render first: the gizmo follows a moved part only when drawn, and a
    // handle found where it was last drawn is missed by the next press.
    renderer.render(scene, camera);
    const picker = gizmo.getHelper().children.find((c) => c.picker)?.picker[gizmo.mode];
    const h = picker?.children.find((c) => c.name === axis);
    if (!h) return null;
    h.geometry.computeBoundingBox();
    return project(h.localToWorld(h.geometry.boundingBox.getCenter(new THREE.Vector3())));
  },
};
window.clashdDemo = hook;

(async () => {
  gizmo.attach(selected.object);
  setMode('translate');
  await update();
  hook.ready = true;
})();
