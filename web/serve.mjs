// A static file server for the built page (node http, no dependency), used
// by the browser test and by hand:
//   node serve.mjs [DIR] [PORT]   (default ../build/web, 8081; port 0 = any)
// then start clashd with --cors-origin set to the origin it prints and open
//   http://127.0.0.1:PORT/?clashd=http://127.0.0.1:8080
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.map': 'application/json', '.png': 'image/png', '.json': 'application/json',
};

/** Serves DIR on host:port; answers {url, origin, close()}. */
export async function serveStatic(dir, { host = '127.0.0.1', port = 0 } = {}) {
  const root = path.resolve(dir);
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    let rel = decodeURIComponent(url.pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(root, '.' + rel);
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !file.startsWith(root + path.sep)) {
      res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 404 : 405).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
    }
  });
  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(port, host, resolve); });
  const origin = `http://${host}:${server.address().port}`;
  return { url: origin + '/', origin, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const s = await serveStatic(process.argv[2] ?? path.join(here, '../build/web'), { port: Number(process.argv[3] ?? 8081) });
  console.log(`serving ${s.url} (start clashd with --cors-origin ${s.origin}, open ${s.url}?clashd=http://127.0.0.1:8080)`);
}
