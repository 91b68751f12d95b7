// What the page costs to load: the requests and the bytes on the wire of
// the home page and of a table, on a first visit and on a repeat visit in
// the same browser, against the server's built-in page (compressed and
// cached as it is served in production, not the --static-dir copy).
//
//     node load-weight.mjs [path/to/baghchal]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from './harness.mjs';

const bin = process.argv[2] || join(ROOT, 'target', 'debug', 'baghchal');
const dir = mkdtempSync(join(tmpdir(), 'baghchal-weight-'));
const server = spawn(bin, ['--addr', '127.0.0.1:0', '--database-url', `sqlite://${join(dir, 'w.db')}?mode=rwc`, '--no-tablebase'], {
  stdio: ['ignore', 'pipe', 'ignore'],
  env: { ...process.env, RUST_LOG: 'warn' },
});
const url = await new Promise((resolve) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = out.match(/listening on (http:\/\/\S+)/);
    if (m) resolve(m[1].replace(/\/$/, ''));
  });
});
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] });

/**
 * Loads `path` in `page` and counts what went over the network until the page is idle.
 * @param {import('playwright-core').Page} page
 * @param {string} path
 * @param {string} path
 * @param {string} [ready] a selector the view shows once drawn
 */
async function load(page, path, ready) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  /** @type {Map<string, {url: string, cached: boolean}>} */
  const requests = new Map();
  let bytes = 0;
  cdp.on('Network.responseReceived', (e) => requests.set(e.requestId, { url: e.response.url, cached: Boolean(e.response.fromDiskCache || e.response.fromMemoryCache) }));
  cdp.on('Network.requestServedFromCache', (e) => {
    const r = requests.get(e.requestId);
    if (r) r.cached = true;
  });
  cdp.on('Network.loadingFinished', (e) => {
    bytes += e.encodedDataLength;
  });
  await page.goto(`${url}${path}`, { waitUntil: 'networkidle' });
  if (ready) await page.locator(ready).first().waitFor();
  await page.waitForLoadState('networkidle');
  await cdp.detach();
  const all = [...requests.values()].filter((r) => !r.url.startsWith('ws'));
  const network = all.filter((r) => !r.cached);
  return { requests: all.length, network: network.length, bytes };
}

const context = await browser.newContext();
const page = await context.newPage();
const home1 = await load(page, '/', '#create');
// A repeat visit: away, then back by its address (not a reload, which revalidates more).
await page.goto('about:blank');
const home2 = await load(page, '/', '#create');
// A table against the computer, created by the page's own API.
const res = await page.evaluate(async () => (await fetch('/api/tables', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ opponent: 'computer', side: 'goats', level: 400, spectators: 0 }) })).json());
const tablePath = `/t/${res.table}#seat=${res.secret}`;
const fresh = await browser.newContext();
const tablePage = await fresh.newPage();
const table1 = await load(tablePage, tablePath, '.board-root .point-button');
await tablePage.goto('about:blank');
const table2 = await load(tablePage, tablePath, '.board-root .point-button');
/** @param {string} name @param {{requests: number, network: number, bytes: number}} r */
const line = (name, r) => console.log(`${name.padEnd(22)} ${String(r.requests).padStart(3)} requests, ${String(r.network).padStart(3)} over the network, ${(r.bytes / 1024).toFixed(1).padStart(6)} KB`);
line('home, first visit', home1);
line('home, repeat visit', home2);
line('table, first visit', table1);
line('table, repeat visit', table2);
await browser.close();
server.kill('SIGTERM');
rmSync(dir, { recursive: true, force: true });
