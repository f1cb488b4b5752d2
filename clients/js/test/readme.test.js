// README.md's "From the browser" example runs as written (the package name
// pointed at this directory, the address at a live clashd).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdtemp } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startClashd } from './server.js';

const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
const server = await startClashd(['--threads', '1']);
after(() => server.stop());

test('README: From the browser', async () => {
  const section = readme.slice(readme.indexOf('## From the browser'));
  const m = section.match(/```js\n([\s\S]*?)```/);
  assert.ok(m, 'no ```js block under "## From the browser"');
  const lines = m[1].split('\n').length - 1;
  assert.ok(lines <= 14, `${lines} lines: keep it about a dozen`);
  const code = m[1]
    .replace("'@clashd/client'", JSON.stringify(new URL('../clashd.js', import.meta.url).href))
    .replace('http://127.0.0.1:8080', server.url);
  const dir = await mkdtemp(path.join(tmpdir(), 'clashd-readme-'));
  await writeFile(path.join(dir, 'example.mjs'), code);
  const out = await new Promise((resolve, reject) =>
    execFile(process.execPath, [path.join(dir, 'example.mjs')], { timeout: 10000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  const got = out.trim().split('\n');
  assert.equal(got.length, 4, out);
  assert.match(got[0], /^3 false 1\.9\d*$/);
  assert.match(got[1], /^2 false 0\.9\d*$/);
  assert.match(got[2], /^1 true 0$/);
  assert.match(got[3], /^422 \/b\/radius /);
});
