// Debian's chromium for the browser tests (the chromium package of
// install-deps.sh's test profile; CHROMIUM overrides where it is), headless,
// driven by playwright-core, which downloads no browser.  With `webgl`,
// WebGL without a GPU: SwiftShader, which Debian's chromium ships.  As root,
// chromium refuses to start with its sandbox.
import { chromium } from 'playwright-core';
import { startClashd } from '../../clients/js/test/server.js';
import { serveStatic } from '../serve.mjs';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** A headless chromium; `args` added to its command line. */
export function launchChromium({ webgl = false, args = [] } = {}) {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...(webgl ? ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'] : []), '--disable-dev-shm-usage',
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), ...args],
  });
}

/**
 * The built demo page (`dist`) on a node static server, clashd on another
 * port allowing that origin, and chromium (with WebGL) on the page; page
 * errors and console errors go to `errors` (but chromium's "Failed to
 * load resource" line, which it logs for every 4xx); `watch(page, server,
 * web)` adds listeners before the page loads; `args` go to clashd.  Resolves once the page
 * shows its first answer or an error: {web, server, browser, page, close}.
 */
export async function openDemo(dist, { errors = [], watch, args = [] } = {}) {
  const web = await serveStatic(dist);
  const server = await startClashd(['--cors-origin', web.origin, ...args]);
  const browser = await launchChromium({ webgl: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()); });
  watch?.(page, server, web);
  await page.goto(`${web.url}?clashd=${encodeURIComponent(server.url)}`);
  await page.waitForFunction(() => window.clashdDemo?.ready === true || !!window.clashdDemo?.shown()?.error, null, { timeout: 20000 });
  return {
    web, server, browser, page,
    async close() {
      await browser.close();
      await server.stop();
      await web.close();
    },
  };
}
