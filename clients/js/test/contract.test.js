// proto/openapi.yaml as generators read it: no control characters (one
// generator turned a written escape of NUL into a NUL byte), and no
// `default` keyword (openapi-typescript makes such members required, so a
// strict client would have to send them; defaults are said in words).
// And the types generated from it, in git, are what it generates now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const yaml = await readFile(new URL('../../../proto/openapi.yaml', import.meta.url), 'utf8');

test('openapi.yaml: no control characters and no backslash-u escapes', () => {
  const lines = yaml.split('\n');
  lines.forEach((line, i) => {
    // eslint-disable-next-line no-control-regex -- control characters are what it looks for
    assert.doesNotMatch(line, /[\u0000-\u0008\u000b-\u001f\u007f]/, `line ${i + 1}`);
    assert.doesNotMatch(line, /\\u[0-9a-fA-F]{4}/, `line ${i + 1}`);
  });
});

test('openapi.yaml: no default keyword (members with defaults stay optional)', () => {
  assert.deepEqual(yaml.split('\n').map((l, i) => [i + 1, l]).filter(([, l]) => /^\s*default:/.test(l)), []);
});

test('types/openapi.d.ts is what openapi-typescript makes of the contract (npm run gen)', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'clashd-gen-'));
  try {
    const out = path.join(dir, 'openapi.d.ts');
    const bin = fileURLToPath(new URL('../node_modules/openapi-typescript/bin/cli.js', import.meta.url));
    const yamlPath = fileURLToPath(new URL('../../../proto/openapi.yaml', import.meta.url));
    await promisify(execFile)(process.execPath, [bin, yamlPath, '-o', out]);
    const made = await readFile(out, 'utf8');
    const checkedIn = await readFile(new URL('../types/openapi.d.ts', import.meta.url), 'utf8');
    assert.ok(made === checkedIn, 'clients/js/types/openapi.d.ts differs from the contract: run `npm run gen` in clients/js');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
