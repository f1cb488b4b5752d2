// knot.test.js — the mesh benchmark's C torus knot (bench/mesh/meshes.c)
// against three.js's TorusKnotGeometry: the positions within 1e-12 (three.js
// stores float32, and so does the C generator: they come out equal), the
// same index, and the seam: not closed by index, closed once equal
// positions are welded.  The leaky knots (every 100th triangle removed)
// against the same removal from three.js's index: equal, and once welded
// their holes are exactly the removed triangles.
// `make bench-mesh-test` (BENCH_MESH: build/bench-mesh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { TorusKnotGeometry } from 'three';

const bin = process.env.BENCH_MESH;

function cKnot(args) {
	const out = execFileSync(bin, ['--dump-knot', ...args.map(String)], { maxBuffer: 1 << 28 });
	return JSON.parse(out);
}

// Closed and oriented: each directed edge once, its reverse once.
function closed(index, nv) {
	const edges = new Set();
	for (let t = 0; t < index.length; t += 3)
		for (let k = 0; k < 3; k++) {
			const a = index[t + k], b = index[t + (k + 1) % 3];
			const key = a * nv + b;
			if (a === b || edges.has(key)) return false;
			edges.add(key);
		}
	for (const key of edges) {
		const a = Math.floor(key / nv), b = key % nv;
		if (!edges.has(b * nv + a)) return false;
	}
	return true;
}

// Weld exactly equal positions.
function weld(position, index) {
	const first = new Map(), map = [];
	for (let i = 0; i < position.length / 3; i++) {
		const key = `${position[3 * i]},${position[3 * i + 1]},${position[3 * i + 2]}`;
		if (!first.has(key)) first.set(key, first.size);
		map.push(first.get(key));
	}
	return { nv: first.size, index: Array.from(index, (v) => map[v]) };
}

const sets = [
	[1, 0.3, 800, 64, 2, 3], // the benchmark's
	[1, 0.3, 64, 8, 2, 3],   // its brute-force check
	[10, 3, 100, 16, 2, 3],  // three.js's documentation example
	[1, 0.4, 64, 8, 3, 5],   // another knot
];

for (const s of sets) {
	test(`TorusKnotGeometry(${s.join(', ')})`, () => {
		const g = new TorusKnotGeometry(...s);
		const c = cKnot(s);
		const p = g.attributes.position.array, ix = g.index.array;
		assert.equal(c.position.length, p.length);
		let worst = 0, equal = 0;
		for (let i = 0; i < p.length; i++) {
			worst = Math.max(worst, Math.abs(p[i] - c.position[i]));
			if (p[i] === c.position[i]) equal++;
		}
		assert.ok(worst <= 1e-12, `largest difference ${worst}`);
		console.log(`knot ${s.join(', ')}: ${equal} of ${p.length} coordinates equal, largest difference ${worst}`);
		assert.deepEqual(c.index, Array.from(ix));
		const nv = p.length / 3;
		assert.equal(closed(ix, nv), false, 'the seam leaves it open by index');
		const w = weld(p, ix);
		assert.equal(w.nv, s[2] * s[3], 'one vertex per (tubular, radial) pair after welding');
		assert.equal(closed(w.index, w.nv), true, 'closed once welded');
	});
}

// The directed edges used by exactly one triangle whose reverse no
// triangle uses: the rims of holes.
function border(index) {
	const count = new Map();
	for (let t = 0; t < index.length; t += 3)
		for (let k = 0; k < 3; k++) {
			const key = `${index[t + k]},${index[t + (k + 1) % 3]}`;
			count.set(key, (count.get(key) || 0) + 1);
		}
	const rim = [];
	for (const [key, n] of count) {
		const [a, b] = key.split(',');
		if (n === 1 && !count.has(`${b},${a}`)) rim.push(key);
	}
	return rim.sort();
}

for (const s of [sets[0], sets[1]]) {
	const [every, at] = [100, 37]; // bench/mesh/main.c's DROP_EVERY, DROP_AT
	test(`leaky TorusKnotGeometry(${s.join(', ')}), t % ${every} == ${at} removed`, () => {
		const g = new TorusKnotGeometry(...s);
		const all = Array.from(g.index.array), kept = [], dropped = [];
		for (let t = 0; 3 * t < all.length; t++)
			(t % every === at ? dropped : kept).push(all[3 * t], all[3 * t + 1], all[3 * t + 2]);
		const c = cKnot([...s, every, at]);
		assert.deepEqual(c.index, kept);
		const p = g.attributes.position.array;
		assert.equal(c.position.length, p.length);
		// Welded, the border is the removed triangles' edges reversed: the
		// holes do not touch one another.
		const wk = weld(p, kept).index, wd = weld(p, dropped).index;
		const want = [];
		for (let t = 0; t < wd.length; t += 3)
			for (let k = 0; k < 3; k++) want.push(`${wd[t + (k + 1) % 3]},${wd[t + k]}`);
		assert.deepEqual(border(wk), want.sort());
		console.log(`leaky knot ${s.join(', ')}: ${kept.length / 3} triangles, ${dropped.length / 3} removed, ${want.length} border edges`);
	});
}
