// The package as a user gets it: `npm pack` of clients/js, installed from
// the tarball (offline: it has no dependencies) into a new project in a
// temporary directory, then
//   - used from node as an ES module: a query to a live clashd, the same in
//     local mode (the module's WebAssembly from the installed package), an
//     id and the three.js helpers, all equal to this checkout's answers;
//   - bundled by esbuild (the module's file copied beside the bundle, as
//     the demo's build does) and run from outside the project: the same;
//   - type-checked by tsc --strict, with skipLibCheck and without:
//     test/usage.ts and test/usage-three.ts compile, and every mistake of
//     test/must-fail.ts is reported (each under an expect-error directive:
//     one that compiles is TS2578), so the types are the real ones, not
//     `any` (a missing types/openapi.d.ts under skipLibCheck would be).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { Clashd, fileMesh, shapeId } from '../clashd.js';
import { weld } from '../three.js';
import { startClashd } from './server.js';

const run = promisify(execFile);
const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let server, tmp, app;

before(async () => {
  server = await startClashd(['--threads', '1']);
  tmp = await mkdtemp(path.join(tmpdir(), 'clashd-package-'));
  const { stdout } = await run('npm', ['pack', '--pack-destination', tmp, '--json', '--silent'], { cwd: pkg });
  const [packed] = JSON.parse(stdout);
  assert.deepEqual(packed.files.map((f) => f.path).sort(), ['clashd.d.ts', 'clashd.js', 'gen/clashd-core.wasm',
    'local.js', 'package.json', 'three.d.ts', 'three.js', 'types/openapi.d.ts']);
  app = path.join(tmp, 'app');
  await mkdir(path.join(app, 'src'), { recursive: true });
  await writeFile(path.join(app, 'package.json'), JSON.stringify({
    name: 'app', private: true, type: 'module', dependencies: { '@clashd/client': `file:../${packed.filename}` },
  }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app });
});
after(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const MAIN = `
import { Clashd, fileMesh, shapeId } from '@clashd/client';
import { weld } from '@clashd/client/three';
const hull = { vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]] };
const query = { a: hull, b: { sphere: { radius: 0.5 }, pose: { translation: [2, 0.5, 0] } } };
const c = new Clashd(process.argv[2]);
const tri = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]);
console.log(JSON.stringify({
  server: await c.query(query),
  local: await c.query(query, { local: true }),
  id: await shapeId({ mesh: fileMesh(tri) }),
  weld: weld(tri, undefined, 0),
}));
`;

async function expected() {
  const hull = { vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]] };
  const query = { a: hull, b: { sphere: { radius: 0.5 }, pose: { translation: [2, 0.5, 0] } } };
  const r = await new Clashd(server.url).query(query);
  const tri = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]);
  return { server: r, local: r, id: await shapeId({ mesh: fileMesh(tri) }), weld: weld(tri, undefined, 0) };
}

test('live: the installed package from node (ESM), local mode included', async () => {
  await writeFile(path.join(app, 'main.mjs'), MAIN);
  const { stdout } = await run(process.execPath, ['main.mjs', server.url], { cwd: app });
  assert.deepEqual(JSON.parse(stdout), await expected());
});

test('live: the installed package bundled by esbuild, run from outside the project', async () => {
  const dist = path.join(tmp, 'dist');
  await writeFile(path.join(app, 'main.mjs'), MAIN);
  await esbuild.build({
    entryPoints: [path.join(app, 'main.mjs')], absWorkingDir: app, bundle: true, platform: 'node',
    format: 'esm', target: 'node20', outfile: path.join(dist, 'main.js'), logLevel: 'error',
  });
  await cp(path.join(app, 'node_modules/@clashd/client/gen/clashd-core.wasm'), path.join(dist, 'gen/clashd-core.wasm'));
  await writeFile(path.join(dist, 'package.json'), '{"type": "module"}');
  const bundle = await readFile(path.join(dist, 'main.js'), 'utf8');
  assert.doesNotMatch(bundle, /from\s*["']@clashd\/client/, 'the client is in the bundle');
  const { stdout } = await run(process.execPath, ['main.js', server.url], { cwd: dist });
  assert.deepEqual(JSON.parse(stdout), await expected());
});

test('tsc --strict on the installed package, with and without skipLibCheck', async () => {
  for (const f of ['usage.ts', 'usage-three.ts', 'must-fail.ts']) {
    const text = await readFile(path.join(pkg, 'test', f), 'utf8');
    await writeFile(path.join(app, 'src', f), text.replaceAll("'../clashd.js'", "'@clashd/client'")
      .replaceAll("'../three.js'", "'@clashd/client/three'"));
  }
  const tsc = path.join(pkg, 'node_modules/typescript/bin/tsc');
  const check = async (skipLibCheck) => {
    const config = `tsconfig-${skipLibCheck}.json`;
    await writeFile(path.join(app, config), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
        // TypeScript's own lib files unchecked either way (skipDefaultLibCheck):
        // skipLibCheck is about the package's declarations.
        lib: ['es2022', 'dom'], types: [], skipLibCheck, skipDefaultLibCheck: true,
      },
      include: ['src/*.ts'],
    }));
    const r = await run(process.execPath, [tsc, '-p', config], { cwd: app }).catch((e) => e);
    assert.equal(r.stdout, '', `skipLibCheck ${skipLibCheck}: ${r.stdout}`);
  };
  await Promise.all([check(false), check(true)]);
  // And the directives are checked: one over a line that compiles fails.
  await writeFile(path.join(app, 'src', 'must-fail.ts'), '// @ts-expect-error nothing wrong below\nexport const x: number = 1;\n');
  const r = await run(process.execPath, [tsc, '-p', 'tsconfig-true.json'], { cwd: app }).catch((e) => e);
  assert.match(r.stdout, /TS2578/);
});
