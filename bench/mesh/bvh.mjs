// bvh.mjs — the mesh benchmark's three-mesh-bvh peer, under node
// (bench/mesh, `make bench-mesh`, bench/README.md "Meshes").
//
//   node bvh.mjs DIR [ROUNDS]
//
// reads DIR/cases.json and the meshes build/bench-mesh wrote (NAME.pos,
// float64; NAME.idx, uint32), builds each torus knot the way a three.js user
// does, with three's own TorusKnotGeometry (a leaky knot: without triangle t
// when t % drop_every == drop_at), and fails unless its positions
// and index equal the C generator's exactly (the icosphere has no three.js
// twin with that layout: it is read from the files).  Then, as three-mesh-bvh
// documents: new MeshBVH(geometry) with the defaults (CENTER split, 10
// triangles a leaf), geometry.boundsTree set on both geometries, and for b
// translated by t (a Matrix4): bvh.intersectsGeometry(b, m) and
// bvh.closestPointToGeometry(b, m, t1, t2).  Timing as main.c's: one query
// for the answer, one to calibrate a batch of about 1 ms, ROUNDS rounds
// (default 21; fewer, at least 3, for a method whose rounds would pass 3 s)
// of one batch each, the two queries alternating first; median per query.
// Build (the big knot, closed and leaky): the median of 5 after one
// untimed.  Writes the JSON result to stdout.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BufferAttribute, BufferGeometry, Matrix4, TorusKnotGeometry, REVISION } from 'three';
import { MeshBVH } from 'three-mesh-bvh';

const dir = process.argv[2];
const rounds = Number(process.argv[3] || 21);
if (!dir || !(rounds >= 1)) {
	console.error('usage: node bvh.mjs DIR [ROUNDS]');
	process.exit(2);
}
const spec = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
const bvhVersion = JSON.parse(readFileSync(new URL('./node_modules/three-mesh-bvh/package.json', import.meta.url))).version;

function typed(buf, Type) {
	return new Type(buf.buffer, buf.byteOffset, buf.byteLength / Type.BYTES_PER_ELEMENT);
}

function readMesh(name) {
	const pos = typed(readFileSync(join(dir, `${name}.pos`)), Float64Array);
	const idx = typed(readFileSync(join(dir, `${name}.idx`)), Uint32Array);
	return { pos, idx };
}

// The knots: three's TorusKnotGeometry, checked against the C generator.
function geometryOf(m) {
	const file = readMesh(m.name);
	const knot = /^TorusKnotGeometry\(([^)]*)\)$/.exec(m.from);
	let g;
	if (knot) {
		g = new TorusKnotGeometry(...knot[1].split(',').map(Number));
		if (m.drop_every) {
			const all = g.index.array, kept = [];
			for (let t = 0; 3 * t < all.length; t++)
				if (t % m.drop_every !== m.drop_at) kept.push(all[3 * t], all[3 * t + 1], all[3 * t + 2]);
			g.setIndex(kept);
		}
		const p = g.attributes.position.array, ix = g.index.array;
		if (p.length !== file.pos.length || ix.length !== file.idx.length)
			throw new Error(`${m.name}: sizes differ from the C generator's`);
		for (let i = 0; i < p.length; i++)
			if (p[i] !== file.pos[i]) throw new Error(`${m.name}: position ${i} differs: ${p[i]} vs ${file.pos[i]}`);
		for (let i = 0; i < ix.length; i++)
			if (ix[i] !== file.idx[i]) throw new Error(`${m.name}: index ${i} differs`);
	} else {
		g = new BufferGeometry();
		g.setAttribute('position', new BufferAttribute(Float32Array.from(file.pos), 3));
		g.setIndex(new BufferAttribute(Uint32Array.from(file.idx), 1));
	}
	return g;
}

const now = () => Number(process.hrtime.bigint()) / 1e3; // µs
const median = (v) => {
	const s = [...v].sort((x, y) => x - y), n = s.length;
	return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

const geoms = {};
for (const m of spec.meshes) geoms[m.name] = geometryOf(m);

// Build: after one untimed, a big knot's tree 5 times on fresh geometries (MeshBVH reorders
// the index it is given), then one tree per geometry for the queries.
function timedBuild(mesh) {
	const times = [];
	new MeshBVH(geometryOf(mesh)); // warm up (JIT)
	for (let r = 0; r < 5; r++) {
		const g = geometryOf(mesh);
		const t0 = now();
		new MeshBVH(g);
		times.push(now() - t0);
	}
	return median(times);
}
const meshNamed = (name) => spec.meshes.find((m) => m.name === name);
const buildUs = timedBuild(meshNamed('knot')), buildLeakyUs = timedBuild(meshNamed('knot-leaky'));
for (const g of Object.values(geoms)) g.boundsTree = new MeshBVH(g);

const result = { peer: 'three-mesh-bvh', version: bvhVersion, three: REVISION, node: process.version,
	rounds, build_us: buildUs, build_leaky_us: buildLeakyUs, cases: [] };

for (const c of spec.cases) {
	const a = geoms[c.a], b = geoms[c.b];
	const m = new Matrix4().makeTranslation(c.t[0], c.t[1], c.t[2]);
	const t1 = {}, t2 = {};
	const methods = [
		{ query: 'collide', run: () => a.boundsTree.intersectsGeometry(b, m) },
		{ query: 'distance', run: () => a.boundsTree.closestPointToGeometry(b, m, t1, t2) },
	];
	for (const me of methods) {
		const ans = me.run();
		const t0 = now();
		me.run();
		const one = now() - t0;
		me.batch = one > 1000 ? 1 : Math.floor(1000 / Math.max(one, 0.05)) + 1;
		// At most about 3 s a method: fewer rounds (at least 3) for slow ones.
		me.rounds = Math.min(rounds, Math.max(3, Math.floor(3e6 / (one * me.batch))));
		if (me.query === 'collide') {
			me.intersecting = ans;
		} else {
			me.distance = ans ? ans.distance : null;
			me.intersecting = me.distance === 0;
			me.near_a = ans ? [t1.point.x, t1.point.y, t1.point.z] : null;
		}
		me.times = [];
	}
	if (c.timed) {
		for (let r = 0; r < rounds; r++)
			for (let k = 0; k < methods.length; k++) {
				const me = methods[(r + k) % methods.length];
				if (r >= me.rounds) continue;
				const t0 = now();
				for (let j = 0; j < me.batch; j++) me.run();
				me.times.push((now() - t0) / me.batch);
			}
	}
	result.cases.push({ name: c.name, a: c.a, b: c.b, methods: methods.map((me) => ({
		peer: 'three-mesh-bvh', query: me.query, ok: true, intersecting: me.intersecting,
		distance: me.query === 'distance' ? me.distance : 0,
		contact: me.intersecting ? 'surfaces' : 'none', batch: me.batch,
		...(c.timed ? { us: median(me.times), rounds: me.rounds } : {}),
	})) });
	console.error(`bvh.mjs: ${c.a}/${c.name} done`);
}
process.stdout.write(JSON.stringify(result) + '\n');
