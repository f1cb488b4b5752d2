// Builds the demo page: src/start.js (src/main.js) with three.js and the client bundled
// by esbuild into one module, beside index.html, demo.css and the client's
// WebAssembly module (gen/clashd-core.wasm, `make wasm`).
// Usage: node build.mjs [OUTDIR]   (default ../build/web)
import * as esbuild from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, '../build/web'));
await mkdir(out, { recursive: true });
await esbuild.build({
  entryPoints: [path.join(here, 'src/start.js')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  outfile: path.join(out, 'demo.js'),
  logLevel: 'warning',
});
for (const f of ['index.html', 'demo.css']) await copyFile(path.join(here, 'src', f), path.join(out, f));
// The core in the page (clients/js/local.js), where the bundle's
// new URL('./gen/clashd-core.wasm', import.meta.url) finds it.
await mkdir(path.join(out, 'gen'), { recursive: true });
await copyFile(path.join(here, '../clients/js/gen/clashd-core.wasm'), path.join(out, 'gen/clashd-core.wasm'));
console.log(`web: built ${out}`);
