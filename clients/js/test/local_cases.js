// The Query bodies the local module is compared on (local.test.js, and in
// chromium web/test/local.test.js): a deterministic sample of the inputs
// tests/answers.c writes (`answers gen DIR`): the GJK88 set through every
// method and want, random pairs in 1-D to 8-D (radii, poses, compounds,
// primitives, meshes, flat positions, warm starts, damaged lines) and
// motions (pose_end).  ANSWERS_IN names a directory it wrote (make
// js-test and web-test pass the one under build/); otherwise ANSWERS (the
// program, default build/answers) writes one into a temporary directory.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// file -> every how manyth line is taken (a stride prime to the files'
// cycles of methods and wants, so that each is sampled).
export const SETS = Object.freeze({ 'q_gjk88.jsonl': 17, 'q_random.jsonl': 7, 'q_motion.jsonl': 3 });

/** [{label: "q_gjk88.jsonl:17", body}], `scale` times as sparse as SETS. */
export function loadCases(scale = 1) {
  let dir = process.env.ANSWERS_IN;
  let tmp;
  if (!dir) {
    tmp = dir = mkdtempSync(path.join(os.tmpdir(), 'clashd-answers-'));
    execFileSync(process.env.ANSWERS ?? path.resolve(here, '../../../build/answers'), ['gen', dir]);
  }
  try {
    const cases = [];
    for (const [file, every] of Object.entries(SETS)) {
      const lines = readFileSync(path.join(dir, file), 'utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      for (let i = every * scale - 1; i < lines.length; i += every * scale)
        cases.push({ label: `${file}:${i + 1}`, body: lines[i] });
    }
    return cases;
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

/** Each body's reply from the server: {status, type, bytes}, `width` at a time. */
export async function serverReplies(url, cases, width = 4) {
  const out = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      const r = await fetch(url + '/v1/query', {
        method: 'POST', body: cases[i].body, headers: { 'Content-Type': 'application/json' },
      });
      out[i] = { status: r.status, type: r.headers.get('Content-Type'), bytes: new Uint8Array(await r.arrayBuffer()) };
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

/** What the sample holds of each kind, for the tests to insist on. */
export function tally(cases, replies) {
  const has = (re) => cases.filter((c) => re.test(c.body)).length;
  return {
    angles: cases.filter((c) => usesAngles(c.body)).length,
    gjk88: cases.filter((c) => c.label.startsWith('q_gjk88')).length,
    random: cases.filter((c) => c.label.startsWith('q_random')).length,
    motion: has(/"pose_end"/),
    mesh: has(/"mesh"/),
    primitive: has(/"(sphere|box|capsule|cylinder|cone|ellipsoid)"/),
    problem: replies.filter((r) => r.status >= 400).length,
  };
}

/**
 * Whether a body's answer goes through an angle: a 2-D pose's "angle"
 * (clash_shape_set_angle), or a motion whose pose_end turns the shape
 * (core/motion.c).  The core's own sin, cos and atan2 (core/trig.c) make
 * those the same bits in the page as on the server, whose C libraries
 * round differently; the tally counts them so the sample is seen to hold
 * them.
 */
export function usesAngles(body) {
  return /"angle"/.test(body) || (/"pose_end"/.test(body) && /"rotation"|"matrix"/.test(body));
}

/**
 * The cases whose local reply differs from the server's in status, media
 * type or bytes, described: every reply must be the server's bytes.
 */
export function differences(cases, server, local) {
  const text = (b) => Buffer.from(b).toString('utf8');
  const diff = [];
  cases.forEach((c, i) => {
    const s = server[i], l = local[i];
    if (s.status === l.status && s.type === l.contentType && Buffer.compare(Buffer.from(s.bytes), Buffer.from(l.bytes)) === 0)
      return;
    diff.push(`${c.label}: server ${s.status} ${text(s.bytes).slice(0, 300)}\n  local  ${l.status} ${text(l.bytes).slice(0, 300)}`);
  });
  return diff;
}
