// Kept-alive connections the server closes: a request written on one
// (node's fetch had not yet seen the close, its event loop busy) fails
// with "other side closed"; the client sends it again, once.  Against a
// live clashd with --header-timeout 100ms (an idle keep-alive connection
// is closed then, docs/operations.md), the event loop is blocked until
// the kernel shows the client's socket in CLOSE-WAIT (/proc/net/tcp): the
// server has really closed it and the client has not read the close.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Clashd } from '../clashd.js';
import { startClashd } from './server.js';

let server;
before(async () => { server = await startClashd(['--header-timeout', '100ms', '--threads', '1']); });
after(async () => { await server?.stop(); });

/**
 * Sockets of this host to the server that it closed and their owner did
 * not (CLOSE-WAIT, state 08 of /proc/net/tcp, the remote address
 * 127.0.0.1:port).
 */
function closeWait() {
  const remote = `0100007F:${server.port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
    .map((l) => l.trim().split(/\s+/)).filter((f) => f[2] === remote && f[3] === '08').length;
}

/** Blocks the event loop (as a busy backend would) until the server closed the idle connection. */
function blockUntilClosed() {
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const t0 = Date.now();
  while (closeWait() === 0) {
    if (Date.now() - t0 > 10000) throw new Error('clashd did not close the idle connection in 10 s');
    Atomics.wait(wait, 0, 0, 20);
  }
}

/** globalThis.fetch, recording each attempt's outcome. */
function attempts() {
  const log = [];
  const f = async (url, init) => {
    try {
      const r = await globalThis.fetch(url, init);
      log.push('ok');
      return r;
    } catch (e) {
      log.push(e.cause?.code ?? e.code ?? e.message);
      throw e;
    }
  };
  return { log, f };
}

const hull = { vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]] };
const STL = (() => {
  const dv = new DataView(new ArrayBuffer(84 + 50));
  dv.setUint32(80, 1, true);
  [0, 0, 0, 1, 0, 0, 0, 1, 0].forEach((x, j) => dv.setFloat32(96 + 4 * j, x, true));
  return new Uint8Array(dv.buffer);
})();

test('live: a request cut by the server\'s close of an idle connection is sent again, once', async () => {
  const { log, f } = attempts();
  const c = new Clashd(server.url, { fetch: f });
  const calls = [
    () => c.query({ a: hull, b: { vertices: [[3, 0, 0]] } }),
    () => c.upload(STL, { format: 'stl' }),
    () => c.scene({ objects: [{ id: 'a', shape: hull }, { id: 'b', shape: { ...hull, pose: { translation: [0.5, 0, 0] } } }] }),
    () => c.upload(hull),
    () => c.query({ a: hull, b: hull }),
    () => c.health('readyz'),
  ];
  for (const call of calls) {
    await c.query({ a: hull, b: hull }); // a connection, then idle
    blockUntilClosed();
    await call();
  }
  const cut = log.filter((x) => x !== 'ok');
  assert.ok(cut.length >= 2, `some requests were cut (attempts: ${log.join(' ')})`);
  for (const x of cut) assert.equal(x, 'UND_ERR_SOCKET');
  log.forEach((x, i) => { if (x !== 'ok') assert.equal(log[i + 1], 'ok', 'each cut request answered on its retry'); });
});

test('a request is retried once only, and only for a closed connection', async () => {
  const closed = () => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
  let n = 0;
  const twice = new Clashd('http://clashd.invalid', { fetch: async () => { n++; throw closed(); } });
  await assert.rejects(twice.query({ a: hull, b: hull }), (e) => e.cause?.code === 'UND_ERR_SOCKET');
  assert.equal(n, 2);
  n = 0;
  const refused = new Clashd('http://clashd.invalid', {
    fetch: async () => { n++; throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }); },
  });
  await assert.rejects(refused.query({ a: hull, b: hull }), TypeError);
  assert.equal(n, 1);
  n = 0;
  const ac = new AbortController();
  const aborted = new Clashd('http://clashd.invalid', { fetch: async () => { n++; ac.abort(); throw closed(); } });
  await assert.rejects(aborted.query({ a: hull, b: hull }, { signal: ac.signal }));
  assert.equal(n, 1, 'not sent again once aborted');
});
