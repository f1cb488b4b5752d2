// proto/openapi.yaml as generators read it: no control characters (one
// generator turned a written escape of NUL into a NUL byte), and no
// `default` keyword (openapi-typescript makes such members required, so a
// strict client would have to send them; defaults are said in words).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

const yaml = await readFile(new URL('../../../proto/openapi.yaml', import.meta.url), 'utf8');

test('openapi.yaml: no control characters and no backslash-u escapes', () => {
  const lines = yaml.split('\n');
  lines.forEach((line, i) => {
    assert.doesNotMatch(line, /[\u0000-\u0008\u000b-\u001f\u007f]/, `line ${i + 1}`);
    assert.doesNotMatch(line, /\\u[0-9a-fA-F]{4}/, `line ${i + 1}`);
  });
});

test('openapi.yaml: no default keyword (members with defaults stay optional)', () => {
  assert.deepEqual(yaml.split('\n').map((l, i) => [i + 1, l]).filter(([, l]) => /^\s*default:/.test(l)), []);
});
