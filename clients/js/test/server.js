// Starts build/clashd (CLASHD overrides) on a free port for a test and stops
// it afterwards: the port comes from its first log line, "msg":"listening".
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
export const CLASHD = process.env.CLASHD ?? path.resolve(here, '../../../build/clashd');

export async function startClashd(args = []) {
  // A short drain: fetch keeps idle connections open, and a SIGTERM with
  // one open took about 2 s to exit.
  const proc = spawn(CLASHD, ['--listen', '127.0.0.1:0', '--drain-timeout', '200ms', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const lines = createInterface({ input: proc.stdout });
  const log = [];
  const listen = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`clashd did not say "listening" in 10 s: ${stderr}`)), 10000);
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`clashd exited ${code}: ${stderr}`)); });
    lines.on('line', (line) => {
      let j;
      try { j = JSON.parse(line); } catch { return; }
      log.push(j);
      if (j.msg === 'listening') { clearTimeout(timer); resolve(j.listen); }
    });
  });
  const [host, port] = [listen.slice(0, listen.lastIndexOf(':')), Number(listen.slice(listen.lastIndexOf(':') + 1))];
  return {
    url: `http://${listen}`, host, port, log, proc,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** A fetch that records each request's method and path and each response. */
export function recordingFetch(inner = globalThis.fetch) {
  const calls = [];
  const f = async (url, init = {}) => {
    const call = { method: init.method ?? 'GET', path: new URL(url).pathname, url: String(url), init };
    calls.push(call);
    call.response = await inner(url, init);
    call.status = call.response.status;
    return call.response;
  };
  f.calls = calls;
  return f;
}
