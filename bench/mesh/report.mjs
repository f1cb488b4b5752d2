// report.mjs — the mesh benchmark's table (bench/mesh, `make bench-mesh`):
//
//   node report.mjs NATIVE.json BVH.json [OUT.md]
//
// merges build/bench-mesh's results (FCL, and clashd when it was built)
// with bvh.mjs's (three-mesh-bvh), prints one markdown table (build, then
// collide and distance per case, µs), the ratios to clashd when it ran,
// and the answers' check: every distance against every other peer's
// within 1e-9 relative (1e-12 absolute near 0), the verdicts against the
// distances, and on the small knot against the brute force over all
// triangle pairs.  The leaky knot's cases ("NAME-leaky") also get clashd's
// time over the closed knot's (the target: within 2x), and clashd's verdict
// and contact there against the closed knot's.  Disagreements go to the
// "check" column as WARN; the exit status stays 0 (a benchmark, not a
// test).  With OUT.md, writes the same text there.
import { readFileSync, writeFileSync } from 'node:fs';

const [nativePath, bvhPath, outPath] = process.argv.slice(2);
if (!nativePath || !bvhPath) {
	console.error('usage: node report.mjs NATIVE.json BVH.json [OUT.md]');
	process.exit(2);
}
const native = JSON.parse(readFileSync(nativePath, 'utf8'));
const bvh = JSON.parse(readFileSync(bvhPath, 'utf8'));
const PEERS = ['FCL', 'three-mesh-bvh', 'clashd'];
const SHORT = { FCL: 'FCL', 'three-mesh-bvh': 'bvh', clashd: 'clashd' };
const hasOurs = 'clashd' in native.build_us;

const build = { ...native.build_us, 'three-mesh-bvh': bvh.build_us };
const buildLeaky = { ...native.build_leaky_us, 'three-mesh-bvh': bvh.build_leaky_us };
const cases = native.cases.map((c, i) => {
	const other = bvh.cases[i];
	if (!other || other.name !== c.name || other.a !== c.a)
		throw new Error(`case ${i}: the two halves disagree on the case list`);
	return { ...c, methods: [...c.methods, ...other.methods] };
});
const get = (c, peer, query) => c.methods.find((m) => m.peer === peer && m.query === query);

const fmtUs = (us) => (us === undefined ? '—' : us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2));
const fmtRatio = (x) => (Number.isFinite(x) ? `${x >= 10 ? x.toFixed(0) : x.toFixed(1)}x` : '—');
const same = (x, y) => Math.abs(x - y) <= Math.max(1e-12, 1e-9 * Math.max(Math.abs(x), Math.abs(y)));
const fmtD = (d) => (d === 0 ? '0' : d.toPrecision(10));
const surfaceOnly = (peer) => peer !== 'clashd';

// The answers of one case: a line and the warnings.
function answers(c) {
	const warn = [];
	const parts = [];
	const dist = {};
	for (const p of PEERS) {
		const d = get(c, p, 'distance'), k = get(c, p, 'collide');
		if (!d || !k) continue;
		if (!d.ok || !k.ok) { warn.push(`${SHORT[p]} failed`); continue; }
		dist[p] = d.distance;
		const how = k.intersecting ? (k.contact === 'surfaces' || k.contact === 'unknown' ? 'hit' : `hit (${k.contact})`) : 'no';
		parts.push(`${SHORT[p]} ${how}, ${fmtD(d.distance)}`);
		if (k.intersecting !== d.intersecting) warn.push(`${SHORT[p]}: collide says ${k.intersecting}, distance ${d.distance}`);
	}
	// Surface-only peers against each other and against the brute force
	// (which is surface distance too); clashd against them where no solid
	// holds the other, and against "b inside a" where one does.
	const ps = Object.keys(dist);
	for (let i = 0; i < ps.length; i++)
		for (let j = i + 1; j < ps.length; j++) {
			const [x, y] = [ps[i], ps[j]];
			if (c.truth === 'b inside a' && surfaceOnly(x) !== surfaceOnly(y)) continue;
			if (!same(dist[x], dist[y])) warn.push(`${SHORT[x]} ${fmtD(dist[x])} vs ${SHORT[y]} ${fmtD(dist[y])}`);
		}
	if (c.brute_distance !== undefined)
		for (const p of ps) {
			if (c.truth === 'b inside a' && !surfaceOnly(p)) continue;
			if (!same(dist[p], c.brute_distance)) warn.push(`${SHORT[p]} ${fmtD(dist[p])} vs brute ${fmtD(c.brute_distance)}`);
		}
	if (c.truth === 'b inside a' && 'clashd' in dist) {
		const k = get(c, 'clashd', 'collide'), d = get(c, 'clashd', 'distance');
		if (!k.intersecting || !d.intersecting || k.contact !== 'b_in_a')
			warn.push(`clashd does not see b inside a (collide: ${k.intersecting} ${k.contact})`);
	}
	const twin = closedTwin(c);
	if (twin)
		for (const q of ['collide', 'distance']) {
			const l = get(c, 'clashd', q), k = get(twin, 'clashd', q);
			if (l && k && (l.intersecting !== k.intersecting || l.contact !== k.contact))
				warn.push(`clashd ${q}: leaky ${l.intersecting} ${l.contact}, closed ${k.intersecting} ${k.contact}`);
		}
	return { line: parts.join('; '), warn };
}

// The closed knot's case of a leaky one: the same name without "-leaky", on
// the knot of the same size (timed with timed).
const baseName = (name) => name.replace(/-leaky$/, '');
function closedTwin(c) {
	if (baseName(c.name) === c.name) return undefined;
	return cases.find((o) => o.name === baseName(c.name) && o.timed === c.timed);
}

const out = [];
const say = (s = '') => out.push(s);
const m0 = native.meshes;
const leaky = m0.find((m) => m.name === 'knot-leaky');
say(`Meshes: a = ${m0[0].from} (${m0[0].nt} triangles), b = a copy translated by (dx, 0.1, 0.05), ` +
	`or b = an ${m0[2].from} (${m0[2].nt} triangles) on the knot's centre curve ("inside"); ` +
	`"-leaky": the same with a = b = the knot without triangle t when t % ${leaky.drop_every} == ${leaky.drop_at} ` +
	`(${leaky.nt} triangles). ` +
	`three-mesh-bvh ${bvh.version}, three r${bvh.three}, node ${bvh.node}; FCL 0.7 (Debian); ` +
	`median of up to ${native.rounds} rounds (fewer for queries over 0.1 s), µs.`);
say();
const cols = ['FCL', 'three-mesh-bvh', 'clashd'];
say(`| case | query | ${cols.join(' µs | ')} µs | FCL / clashd | bvh / clashd | answers (verdict, distance) | check |`);
say('|---|---|---:|---:|---:|---:|---:|---|---|');
const ratio = (num, den) => (num === undefined || den === undefined ? NaN : num / den);
for (const [label, b] of [['tree build', build], ['tree build, leaky', buildLeaky]])
	say(`| ${label} | (a) | ${cols.map((p) => fmtUs(b[p])).join(' | ')} | ${fmtRatio(ratio(b.FCL, b.clashd))} | ${fmtRatio(ratio(b['three-mesh-bvh'], b.clashd))} | | |`);
let warnings = 0;
const dx = (c) => baseName(c.name) === 'inside' ? c.name : `${c.name} (dx ${{ apart: 3.2, cross: 2.75, deep: 0.5 }[baseName(c.name)]})`;
for (const c of cases.filter((c) => c.timed)) {
	const { line, warn } = answers(c);
	warnings += warn.length;
	for (const q of ['collide', 'distance']) {
		const us = Object.fromEntries(cols.map((p) => [p, get(c, p, q)?.us]));
		say(`| ${dx(c)} | ${q} | ${cols.map((p) => fmtUs(us[p])).join(' | ')} | ${fmtRatio(ratio(us.FCL, us.clashd))} | ` +
			`${fmtRatio(ratio(us['three-mesh-bvh'], us.clashd))} | ${q === 'collide' ? line : ''} | ` +
			`${q === 'collide' ? (warn.length ? `WARN: ${warn.join('; ')}` : 'ok') : ''} |`);
	}
}
say();
say(`clashd on the leaky knot against the closed one (the target: the leaky within 2x), µs:`);
say();
say('| case | query | closed | leaky | leaky / closed | within 2x |');
say('|---|---|---:|---:|---:|---|');
const within = (r) => (Number.isFinite(r) ? (r <= 2 ? 'yes' : '**no**') : '—');
{
	const r = ratio(buildLeaky.clashd, build.clashd);
	say(`| tree build | (a) | ${fmtUs(build.clashd)} | ${fmtUs(buildLeaky.clashd)} | ${fmtRatio(r)} | |`);
}
for (const c of cases.filter((c) => c.timed && closedTwin(c)))
	for (const q of ['collide', 'distance']) {
		const k = get(closedTwin(c), 'clashd', q)?.us, l = get(c, 'clashd', q)?.us, r = ratio(l, k);
		say(`| ${baseName(c.name)} | ${q} | ${fmtUs(k)} | ${fmtUs(l)} | ${Number.isFinite(r) ? `${r.toFixed(2)}x` : '—'} | ${within(r)} |`);
	}
say();
say('Clash reports: where two knots meet and how much they overlap (clashd: ' +
	'clash_overlap_get, regions and volume; FCL: collide with every contact, ' +
	'num_max_contacts unbounded and enable_contact), target within 3x of FCL; and how deep ' +
	'(clash_mesh_depth; FCL has no penetration depth for meshes), µs:');
say();
say('| case | FCL all contacts | clashd regions + volume | clashd / FCL | within 3x | FCL contacts | clashd regions | volume | clashd depth | depth |');
say('|---|---:|---:|---:|---|---:|---:|---:|---:|---:|');
for (const c of cases.filter((c) => c.timed && !closedTwin(c))) {
	const f = get(c, 'FCL', 'report'), o = get(c, 'clashd', 'report'), d = get(c, 'clashd', 'depth');
	if (!o) continue;
	const r = ratio(o.us, f?.us);
	say(`| ${dx(c)} | ${fmtUs(f?.us)} | ${fmtUs(o.us)} | ${Number.isFinite(r) ? `${r.toFixed(2)}x` : '—'} | ` +
		`${Number.isFinite(r) ? (r <= 3 ? 'yes' : '**no**') : '—'} | ${f?.contacts ?? '—'} | ${o.ok ? o.regions : 'failed'} | ` +
		`${o.volume === undefined ? '—' : o.volume.toPrecision(6)} | ${fmtUs(d?.us)} | ` +
		`${d?.depth === undefined ? (d && !d.ok ? 'failed' : '—') : d.depth.toPrecision(6)} |`);
}
say();
say(`Small knot, ${m0[1].from} (${m0[1].nt} triangles), against the brute force over all triangle pairs ` +
	'(FCL\'s PQP triangle distance; surface distance, so "inside" is a distance there), closed and leaky ' +
	`(${m0.find((m) => m.name === 'knot-small-leaky').nt} triangles):`);
say();
say('| case | brute force distance | truth | answers (verdict, distance) | check |');
say('|---|---:|---|---|---|');
for (const c of cases.filter((c) => !c.timed)) {
	const { line, warn } = answers(c);
	warnings += warn.length;
	say(`| ${dx(c)} | ${c.brute_distance === undefined ? '—' : fmtD(c.brute_distance)} | ${c.truth} | ${line} | ${warn.length ? `WARN: ${warn.join('; ')}` : 'ok'} |`);
}
say();
say('Mesh checks: ' + m0.map((m) => `${m.name}: ${m.nv} vertices, ${m.nt} triangles, closed by index ${m.closed ? 'yes' : 'no'}; ` +
	`welded ${m.nv_welded} vertices, closed ${m.closed_welded ? 'yes' : 'no'}, volume ${m.volume_welded.toPrecision(6)}` +
	(m.described?.clashd ? `; clashd reads it: ${m.described.clashd}` : '')).join('. ') + '.');
if (!hasOurs) say('clashd: not built (core/clash.h has no clash_mesh_build yet).');
say(warnings ? `${warnings} warning(s).` : 'All answers agree.');
const text = out.join('\n') + '\n';
process.stdout.write(text);
if (outPath) writeFileSync(outPath, text);
