// modules.cjs — the dependency graph of core/, proto/, server/ and cli/
// has no cycle: a .c and its .h are one module, a header without a .c a
// module of its own, and module A depends on B when a file of A includes
// B's header or A's object calls a function (or reads data) B's defines.  And jansson stays in proto/: no file of server/ or cli/
// includes <jansson.h>, directly or through a header (proto's public
// headers are those that do not bring it), or names a json_* function or
// type (server/gen/ is a build-time tool, not a module).  And hiredis
// stays in server/store_redis.c (the shape store's Redis tier): no other
// file of the four directories includes <hiredis/...>, so the tier's
// connection handling has one place.  And clients/js/wasm reaches the
// core through proto/ only (below).  And proto/ is layered (protoLayers,
// below): JSON text, then shapes, then endpoints, each module using only
// its own layer and those before it.  Prints the modules and their
// dependencies' count; on a cycle, a jansson or a hiredis use, an upward
// dependency in proto/, what and where, and exits 1.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
// proto/ keeps its contract at the top (proto.h: the types every layer
// speaks and the calls of the programs, no code of its own) and its code in
// these sub-folders, bottom first: the JSON text (scanner, writer, pointers,
// the buffer, problems); shapes (each shape form's decoder, the request
// limits on them, ids, the store, mesh files); the endpoints (the Query,
// batch, scene, contains and shape routes, the replies).  A module may
// depend on its own layer and those before it (and on the top, which
// depends on no layer); a sub-folder not named here is refused.
const protoLayers = ['json', 'shapes', 'endpoints'];
const dirs = ['core', 'proto', ...protoLayers.map((l) => `proto/${l}`), 'server', 'cli'];
const dirOf = (m) => m.slice(0, m.lastIndexOf('/'));
const modules = new Map(); // "proto/endpoints/query" -> [files]
for (const d of dirs)
	for (const f of fs.readdirSync(path.join(root, d)))
		if (/\.[ch]$/.test(f)) {
			const m = `${d}/${f.slice(0, -2)}`;
			if (!modules.has(m)) modules.set(m, []);
			modules.get(m).push(path.join(root, d, f));
		}

// A quoted include resolves in the including file's directory first, then
// in the others (the -I order of the Makefile).
const resolve = (dir, inc) => [dir, ...dirs].map((d) => `${d}/${inc}`).find((c) => modules.has(c));
const deps = new Map();
for (const [m, files] of modules) {
	const dir = dirOf(m);
	const out = new Set();
	for (const file of files)
		for (const [, inc] of fs.readFileSync(file, 'utf8').matchAll(/#include "([^"]+)\.h"/g)) {
			const target = resolve(dir, inc);
			if (target && target !== m) out.add(target);
		}
	deps.set(m, out);
}

// The headers that bring <jansson.h> with them, directly or through
// another header (to a fixed point).
const headerOf = (m) => path.join(root, `${m}.h`);
const headerIncludes = new Map();
for (const m of modules.keys())
	if (fs.existsSync(headerOf(m)))
		headerIncludes.set(m, fs.readFileSync(headerOf(m), 'utf8'));
const bringsJansson = new Set();
for (let grew = true; grew;) {
	grew = false;
	for (const [m, text] of headerIncludes) {
		if (bringsJansson.has(m)) continue;
		const incs = [...text.matchAll(/#include "([^"]+)\.h"/g)]
			.map(([, i]) => resolve(dirOf(m), i));
		if (/#include <jansson\.h>/.test(text) || incs.some((t) => bringsJansson.has(t))) {
			bringsJansson.add(m);
			grew = true;
		}
	}
}
const janssonFree = ['server', 'cli'];
const janssonUses = [];
for (const d of janssonFree)
	for (const f of fs.readdirSync(path.join(root, d)).filter((n) => /\.[ch]$/.test(n))) {
		const text = fs.readFileSync(path.join(root, d, f), 'utf8');
		const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
		const why = [];
		if (/#include <jansson\.h>/.test(code)) why.push('includes <jansson.h>');
		for (const [, inc] of code.matchAll(/#include "([^"]+)\.h"/g)) {
			const t = resolve(d, inc);
			if (bringsJansson.has(t)) why.push(`includes ${t}.h, which brings <jansson.h>`);
		}
		const names = new Set([...code.matchAll(/\bjson_(?:t\b|\w+(?=\s*\())/g)]
			.map(([n]) => n));
		if (names.size) why.push(`uses ${[...names].join(', ')}`);
		for (const w of why) janssonUses.push(`${d}/${f} ${w}`);
	}

const hiredisHome = 'server/store_redis.c';
const hiredisUses = [];
for (const d of dirs)
	for (const f of fs.readdirSync(path.join(root, d)).filter((n) => /\.[ch]$/.test(n))) {
		const code = fs.readFileSync(path.join(root, d, f), 'utf8')
			.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
		if (`${d}/${f}` !== hiredisHome && /#include <hiredis\//.test(code))
			hiredisUses.push(`${d}/${f} includes <hiredis/...>`);
	}

// clients/js/wasm (the exports of the WebAssembly build, local.c, and its
// libc stand-ins) sits on proto/ as server/ and cli/ do: it includes
// proto's headers and its own only, never core's (the page answers
// through proto's calls, clashd's path) nor jansson.
const wasmDir = 'clients/js/wasm';
const wasmUses = [];
for (const sub of ['', 'include'])
	for (const f of fs.readdirSync(path.join(root, wasmDir, sub)).filter((n) => /\.[ch]$/.test(n))) {
		const name = path.join(wasmDir, sub, f);
		const code = fs.readFileSync(path.join(root, name), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
		if (/#include <jansson\.h>/.test(code) || /\bjson_\w+\s*\(/.test(code)) wasmUses.push(`${name} uses jansson`);
		for (const [, inc] of code.matchAll(/#include "([^"]+)"/g))
			if (!dirs.some((d) => d.startsWith('proto') && modules.has(`${d}/${inc.replace(/\.h$/, '')}`)) &&
			    !fs.existsSync(path.join(root, wasmDir, 'include', inc)))
				wasmUses.push(`${name} includes "${inc}", not a header of proto/ or ${wasmDir}/include`);
	}

// Calls as well as includes: module A also depends on B when A's object
// uses a symbol B's object defines (nm over the objects `make all` built,
// under CLASH_BUILD or build/), so a cycle through calls alone (a header
// without its own .c, a function declared by hand) fails too.  A callback
// passed down is no dependency: only link-time references count.
const { execFileSync } = require('child_process');
const objDir = path.join(process.env.CLASH_BUILD || path.join(root, 'build'), 'obj');
const defines = new Map(), uses = new Map();
for (const m of modules.keys()) {
	const obj = path.join(objDir, `${m}.o`);
	if (!fs.existsSync(obj)) continue;
	const u = new Set();
	for (const line of execFileSync('nm', [obj], { encoding: 'utf8' }).split('\n')) {
		const f = line.trim().split(/\s+/);
		if (f.length === 3 && /^[TDBRC]$/.test(f[1])) defines.set(f[2], m);
		else if (f.length === 2 && f[0] === 'U') u.add(f[1]);
	}
	uses.set(m, u);
}
if (uses.size === 0) {
	console.log(`modules: no objects under ${objDir}: run make all first`);
	process.exit(1);
}
let callEdges = 0;
for (const [m, u] of uses)
	for (const sym of u) {
		const t = defines.get(sym);
		if (t && t !== m && !deps.get(m).has(t)) { deps.get(m).add(t); callEdges++; }
	}

// proto's layers, includes and calls alike: the top is -1, below every
// layer, so that it may use none.
const layerOf = (m) => (m.startsWith('proto/') ? protoLayers.indexOf(m.split('/')[1]) : null);
const layerBreaks = [];
for (const f of fs.readdirSync(path.join(root, 'proto'), { withFileTypes: true }))
	if (f.isDirectory() && !protoLayers.includes(f.name))
		layerBreaks.push(`proto/${f.name}/ is no layer of proto (tests/modules.cjs, protoLayers)`);
for (const [m, out] of deps)
	for (const t of out)
		if (layerOf(m) !== null && layerOf(t) !== null && layerOf(t) > layerOf(m))
			layerBreaks.push(`${m} uses ${t}, a layer above it`);

// Tarjan's strongly connected components: any of more than one module is
// a cycle.
let index = 0;
const idx = new Map(), low = new Map(), stack = [], on = new Set(), cycles = [];
function visit(v) {
	idx.set(v, index); low.set(v, index); index++;
	stack.push(v); on.add(v);
	for (const w of deps.get(v)) {
		if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
		else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
	}
	if (low.get(v) === idx.get(v)) {
		const comp = [];
		let w;
		do { w = stack.pop(); on.delete(w); comp.push(w); } while (w !== v);
		if (comp.length > 1) cycles.push(comp.sort());
	}
}
for (const v of deps.keys()) if (!idx.has(v)) visit(v);

let edges = 0;
for (const s of deps.values()) edges += s.size;
console.log(`modules: ${modules.size} modules, ${edges} dependencies (${callEdges} by calls alone, ` +
	`${uses.size} objects read), ${cycles.length} cycles`);
for (const c of cycles) console.log(`modules: cycle of ${c.length}: ${c.join(' ')}`);
console.log(`modules: jansson in ${janssonFree.join(', ')}: ${janssonUses.length} uses`);
for (const u of janssonUses) console.log(`modules: jansson outside proto/: ${u}`);
console.log(`modules: hiredis outside ${hiredisHome}: ${hiredisUses.length} uses`);
for (const u of hiredisUses) console.log(`modules: hiredis outside ${hiredisHome}: ${u}`);
console.log(`modules: ${wasmDir} below proto/: ${wasmUses.length} departures`);
for (const u of wasmUses) console.log(`modules: ${u}`);
console.log(`modules: proto's layers ${protoLayers.join(' < ')}: ${layerBreaks.length} upward uses`);
for (const u of layerBreaks) console.log(`modules: ${u}`);
process.exit(cycles.length || janssonUses.length || hiredisUses.length || wasmUses.length ||
	layerBreaks.length ? 1 : 0);
