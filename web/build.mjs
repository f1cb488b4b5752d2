// Builds the demo page: src/main.js with three.js and the client bundled
// by esbuild into one module, beside index.html and demo.css.
// Usage: node build.mjs [OUTDIR]   (default ../build/web)
import * as esbuild from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, '../build/web'));
await mkdir(out, { recursive: true });
await esbuild.build({
  entryPoints: [path.join(here, 'src/main.js')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  outfile: path.join(out, 'demo.js'),
  logLevel: 'warning',
});
for (const f of ['index.html', 'demo.css']) await copyFile(path.join(here, 'src', f), path.join(out, f));
console.log(`web: built ${out}`);
