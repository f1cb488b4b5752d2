// The core in the page (clients/js/local.js), measured (bench/README.md,
// "The core in the page"; `make bench-wasm`): the module's size, raw and
// gzip -9; its start-up (fetch or read, compile, instantiate, start) in
// node and in Debian's chromium; and a drag answered locally: a gear of
// 648 triangles crossing three.js's TorusKnotGeometry(1, 0.3, 800, 64)
// (102 400 triangles, its seams welded: a solid), both stored once in the page's
// store and named by ref, each step one Clashd.query (JSON.stringify, the
// module's parse, decode, query and encode, JSON.parse), timed with
// performance.now() (in node, the process's CPU time too: on a loaded
// machine the wall clock's tail is other processes' turns).  Prints a
// Markdown table and the machine's load before and after.
//   node bench/wasm/drag.mjs [STEPS]     (default 1000)
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const STEPS = Number(process.argv[2] ?? 1000);
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const THREE = await import(path.join(root, 'clients/js/node_modules/three/build/three.module.js'));
const { chromium } = createRequire(path.join(root, 'web/package.json'))('playwright-core');

// A spur gear: 27 teeth of 6 profile points each (162 points, radius 0.25
// at the root to 0.3 at the tips), 0.1 thick; each cap a fan about its
// centre (162 triangles), the sides two triangles per profile edge: 648.
function gear() {
  const teeth = 27, per = 6, n = teeth * per, r0 = 0.25, r1 = 0.3, h = 0.1;
  const radius = [r0, r0, (r0 + r1) / 2, r1, r1, (r0 + r1) / 2];
  const positions = [0, 0, 0, 0, 0, h];
  for (const z of [0, h])
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * i) / n, r = radius[i % per];
      positions.push(r * Math.cos(a), r * Math.sin(a), z);
    }
  const indices = [];
  const lo = (i) => 2 + (i % n), hi = (i) => 2 + n + (i % n);
  for (let i = 0; i < n; i++) {
    indices.push(0, lo(i + 1), lo(i)); // bottom, facing -z
    indices.push(1, hi(i), hi(i + 1)); // top, facing +z
    indices.push(lo(i), lo(i + 1), hi(i + 1), lo(i), hi(i + 1), hi(i)); // side
  }
  return { mesh: { positions, indices } };
}

// Its seams are joined by the default weld (1e-6 of the box's diagonal).
function knot() {
  const g = new THREE.TorusKnotGeometry(1, 0.3, 800, 64);
  return { mesh: { positions: Array.from(g.attributes.position.array), indices: Array.from(g.index.array) } };
}

// The drag itself, run where the module is (node, or the page): the parts
// stored, then STEPS queries along the path; answers the times (ms) and
// how many steps were intersecting.
async function drag({ Clashd, LocalCore }, gearShape, knotShape, steps) {
  const core = await LocalCore.load();
  const c = new Clashd({ local: core });
  const a = await c.ref(gearShape), b = await c.ref(knotShape);
  const times = [], cpu = [];
  const usage = globalThis.process?.cpuUsage; // node: this process's CPU time, in us
  let hits = 0;
  for (let i = 0; i < steps; i++) {
    const x = -3.2 + (6.4 * i) / Math.max(1, steps - 1);
    const c0 = usage?.();
    const t0 = performance.now();
    const r = await c.query({ a: { ...a, pose: { translation: [x, 0.1, 0.05] } }, b });
    times.push(performance.now() - t0);
    if (c0) { const d = usage(c0); cpu.push((d.user + d.system) / 1000); }
    if (r.intersecting) hits++;
  }
  return { times, cpu, hits };
}

const stats = (times) => {
  const s = [...times].sort((x, y) => x - y);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p99: q(0.99), max: s.at(-1), first: times[0] };
};

const loadBefore = readFileSync('/proc/loadavg', 'utf8').trim();
const wasm = readFileSync(path.join(root, 'clients/js/gen/clashd-core.wasm'));
const rows = [];
rows.push(['module size', `${(wasm.length / 1024).toFixed(0)} KiB raw, ${(gzipSync(wasm, { level: 9 }).length / 1024).toFixed(0)} KiB gzip -9`]);

const gearShape = gear(), knotShape = knot();

// node
const mod = await import(path.join(root, 'clients/js/clashd.js'));
const starts = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  await mod.LocalCore.load();
  starts.push(performance.now() - t0);
}
rows.push(['start-up, node (read, compile, instantiate; median of 5)', `${stats(starts).median.toFixed(1)} ms`]);
const n = await drag(mod, gearShape, knotShape, STEPS);
const ns = stats(n.times.slice(1));
rows.push([`drag step, node (${STEPS} steps, ${n.hits} intersecting)`,
  `median ${(ns.median * 1000).toFixed(0)} us, p99 ${(ns.p99 * 1000).toFixed(0)} us, max ${ns.max.toFixed(2)} ms; first (preparing both) ${n.times[0].toFixed(1)} ms`]);
const nc = stats(n.cpu.slice(1));
rows.push(['drag step, node, CPU time of the process (scheduling left out)',
  `median ${(nc.median * 1000).toFixed(0)} us, p99 ${(nc.p99 * 1000).toFixed(0)} us, max ${nc.max.toFixed(2)} ms`]);

// chromium, the page cross-origin isolated: its performance.now() then
// ticks in 5 us, not 100 us.
const server = http.createServer((req, res) => {
  const file = path.join(root, path.normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)));
  const blank = req.url === '/';
  let body = blank ? '<!doctype html><title>bench-wasm</title>' : null;
  try { body ??= file.startsWith(root + path.sep) && readFileSync(file); } catch { body = null; }
  res.writeHead(body ? 200 : 404, {
    'Content-Type': blank ? 'text/html' : file.endsWith('.js') ? 'text/javascript' : 'application/octet-stream',
    'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp',
  });
  res.end(body || undefined);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const web = { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
const browser = await chromium.launch({
  executablePath: CHROMIUM, headless: true,
  args: ['--disable-dev-shm-usage', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
});
try {
  const page = await browser.newPage();
  await page.goto(web.url);
  const isolated = await page.evaluate(() => globalThis.crossOriginIsolated);
  const startup = await page.evaluate(async () => {
    const t0 = performance.now();
    const { LocalCore } = await import('/clients/js/clashd.js');
    await LocalCore.load();
    return performance.now() - t0;
  });
  rows.push(['start-up, chromium (import, fetch, compile, instantiate; first)', `${startup.toFixed(1)} ms`]);
  const cr = await page.evaluate(async ([src, g, k, s]) => {
    const m = await import('/clients/js/clashd.js');
    // eslint-disable-next-line no-new-func
    const run = new Function(`return (${src})`)();
    return run(m, g, k, s);
  }, [drag.toString(), gearShape, knotShape, STEPS]);
  const cs = stats(cr.times.slice(1));
  rows.push([`drag step, chromium (${STEPS} steps, ${cr.hits} intersecting; timer ${isolated ? '5' : '100'} us)`,
    `median ${(cs.median * 1000).toFixed(0)} us, p99 ${(cs.p99 * 1000).toFixed(0)} us, max ${cs.max.toFixed(2)} ms; first (preparing both) ${cr.times[0].toFixed(1)} ms`]);
} finally {
  await browser.close();
  await web.close();
}

console.log('| what | measured |\n|---|---|');
for (const [a, b] of rows) console.log(`| ${a} | ${b} |`);
console.log(`\n/proc/loadavg before: ${loadBefore}; after: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
