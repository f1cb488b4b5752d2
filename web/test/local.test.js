// The core in the page (clients/js/local.js, gen/clashd-core.wasm) in a real
// browser: Debian's chromium (headless, playwright-core) loads local.js as
// an ES module from a node static server of clients/js and answers a
// quarter of the sample of clients/js/test/local_cases.js (the GJK88 set,
// random pairs with primitives and meshes, motions, damaged lines); each
// reply is compared with build/clashd's to the same body, byte for byte
// (angles and turning motions too: core/trig.c).  Its start-up time is
// printed, not asserted.  Environment: CLASHD, CHROMIUM, ANSWERS_IN (or ANSWERS).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './browser.js';
import { startClashd } from '../../clients/js/test/server.js';
import { loadCases, serverReplies, tally, differences } from '../../clients/js/test/local_cases.js';
import { serveStatic } from '../serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

let web, server, browser, page;
const pageErrors = [];

before(async () => {
  [web, server] = await Promise.all([serveStatic(path.resolve(here, '../../clients/js')), startClashd(['--threads', '2'])]);
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(web.url + 'package.json'); // any page of that origin
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await web?.close();
});

test('chromium: local replies are the server\'s bytes', async (t) => {
  const startup = await page.evaluate(async () => {
    const t0 = performance.now();
    const { LocalCore } = await import('/local.js');
    window.core = await LocalCore.load();
    return performance.now() - t0;
  });
  const cases = loadCases(4);
  const remote = await serverReplies(server.url, cases);
  const local = [];
  for (let i = 0; i < cases.length; i += 250) {
    const answers = await page.evaluate((bodies) => bodies.map((b) => window.core.answer('/v1/query', b)),
      cases.slice(i, i + 250).map((c) => c.body));
    for (const a of answers) local.push({ status: a.status, contentType: a.contentType, bytes: Buffer.from(a.body, 'utf8') });
  }
  const k = tally(cases, remote);
  assert.ok(k.gjk88 >= 500 && k.random >= 500 && k.motion >= 100 && k.mesh >= 20 && k.primitive >= 20 && k.problem >= 5 &&
    k.angles >= 25,
    JSON.stringify(k));
  const diff = differences(cases, remote, local);
  assert.equal(diff.length, 0, `${diff.length} of ${cases.length} replies differ; first:\n${diff.slice(0, 3).join('\n')}`);
  assert.deepEqual(pageErrors, []);
  t.diagnostic(`chromium: module loaded and started in ${startup.toFixed(1)} ms; ${cases.length} bodies ` +
    `(${JSON.stringify(k)}): every reply the server's bytes`);
});
