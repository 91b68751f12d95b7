// What the browser tests share: the real server on a free port with its own
// SQLite file, one headless Chromium, and small helpers that act the way a
// person does (clicks, taps, keys) and wait for what the page shows.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(here, '..', '..');
export const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Starts the server binary (`BAGHCHAL_BIN`, default the debug build) on a
 * free loopback port with a fresh SQLite database, and resolves once it
 * prints the address it listens on.
 * @param {{addr?: string, dir?: string}} [opts] a fixed address and data
 *   folder, to restart a server where it was
 */
export async function startServer(opts = {}) {
  const dir = opts.dir || mkdtempSync(join(tmpdir(), 'baghchal-page-'));
  const bin = process.env.BAGHCHAL_BIN || join(ROOT, 'target', 'debug', 'baghchal');
  const [cmd, ...pre] = bin.split(' ');
  const args = [
    ...pre,
    '--addr', opts.addr || '127.0.0.1:0',
    '--database-url', `sqlite://${join(dir, 'tables.db')}?mode=rwc`,
    '--static-dir', join(ROOT, 'static'),
    // The page's tests play without the tablebase: building it takes a minute.
    '--no-tablebase',
    // Every test browser is a new player from 127.0.0.1.
    '--new-player-burst', '100000',
    // And every page's API reads.
    '--read-burst', '100000',
    // And makes computer-against-computer tables as it needs.
    '--bots-table-burst', '1000',
  ];
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RUST_LOG: process.env.RUST_LOG || 'warn' } });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the server printed no address in 60 s\n${stderr}`)), 60000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace(/\/$/, ''));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}\n${stderr}`));
    });
  });
  return {
    url,
    dir,
    addr: new URL(url).host,
    /** Stops the server; `keep` leaves its database for a restart. */
    async stop(keep = false) {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One headless Chromium for a whole test file; each test opens contexts. */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

/**
 * A new browser context (its own storage: a different person) and page.
 * @param {import('playwright-core').Browser} browser
 * @param {{phone?: boolean, width?: number, height?: number, reducedMotion?: boolean, clipboard?: boolean}} [opts]
 *   `phone`: a touch screen, 375 × 812 unless `width` and `height` say otherwise
 */
export async function newPage(browser, opts = {}) {
  const context = await browser.newContext({
    permissions: opts.clipboard ? ['clipboard-read', 'clipboard-write'] : [],
    viewport: opts.phone ? { width: opts.width || 375, height: opts.height || 812 } : { width: opts.width || 1280, height: opts.height || 860 },
    deviceScaleFactor: 1,
    isMobile: Boolean(opts.phone),
    hasTouch: Boolean(opts.phone),
    reducedMotion: opts.reducedMotion === false ? 'no-preference' : 'reduce',
  });
  const page = await context.newPage();
  /** @type {string[]} */
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  return { context, page, problems };
}

/**
 * Creates a table from the home form.
 * @param {import('playwright-core').Page} page
 * @param {string} base
 * @param {{opponent?: 'friend' | 'computer' | 'bots', side?: 'goats' | 'tigers', level?: number, spectators?: number, goatsToWin?: number, series?: 2 | 4 | 6, twoBoards?: boolean}} o
 *   `series`: a series of that many games instead of one game at a time;
 *   `twoBoards`: two boards at once, `side` being board 1's
 */
export async function createTable(page, base, o = {}) {
  await page.goto(`${base}/`);
  const opponent = o.opponent || 'friend';
  await page.locator(`input[name="opponent"][value="${opponent}"]`).check();
  if (opponent !== 'bots') await page.locator(`input[name="side"][value="${o.side || 'goats'}"]`).check();
  if (o.level !== undefined) await page.locator('#level').fill(String(o.level));
  await page.locator('#spectators').fill(String(o.spectators ?? 0));
  if (o.series !== undefined) await page.locator('#format').selectOption(String(o.series));
  if (o.twoBoards) await page.locator('#format').selectOption('two_boards');
  if (o.goatsToWin !== undefined) {
    await page.locator('details.options summary').click();
    await page.locator('#goats-to-win').selectOption(String(o.goatsToWin));
  }
  await page.locator('form.create button[type="submit"]').click();
  await page.waitForURL(/\/t\/[^/]+#(seat|watch)=/);
  await page.locator('.board-root .point-button').first().waitFor();
  await waitPlies(page, undefined);
}

/**
 * Waits until the move list holds `n` half moves (or, with no `n`, until
 * the game state has arrived).
 * @param {import('playwright-core').Page} page
 * @param {number | undefined} n
 */
export async function waitPlies(page, n) {
  await page.waitForFunction(
    (want) => {
      const list = document.querySelector('.moves');
      if (!list) return false;
      return want === null || list.querySelectorAll('.ply').length === want;
    },
    n === undefined ? null : n,
  );
}

/**
 * The half moves in the move list.
 * @param {import('playwright-core').Page} page
 */
export async function plies(page) {
  return page.$$eval('.moves .ply', (els) => els.map((e) => /** @type {HTMLElement} */ (e).dataset.action || e.textContent || ''));
}

/**
 * The button of a point.
 * @param {import('playwright-core').Page} page
 * @param {string} sq
 */
export function point(page, sq) {
  return page.locator(`.point-button[data-square="${sq}"]`);
}

/**
 * Waits for this page's turn, then plays `action` by clicking its points.
 * @param {import('playwright-core').Page} page
 * @param {string} action
 */
export async function playByMouse(page, action) {
  await page.locator('.board-root.playable').waitFor();
  const points = action.split(/[-x]/);
  for (const sq of points) await point(page, sq).click();
}

/**
 * The squares whose accessible name ends with `suffix`.
 * @param {import('playwright-core').Page} page
 * @param {string} suffix
 */
export async function squaresNamed(page, suffix) {
  return page.$$eval(
    '.point-button',
    (els, s) => els.filter((e) => (e.getAttribute('aria-label') || '').endsWith(s)).map((e) => /** @type {HTMLElement} */ (e).dataset.square),
    suffix,
  );
}

/**
 * The link shown in the links panel.
 * @param {import('playwright-core').Page} page
 * @param {'opponent' | 'spectator'} kind
 */
export async function link(page, kind) {
  return page.locator(`#${kind}-link`).inputValue();
}

/**
 * Runs axe-core on the page and returns the serious and critical
 * violations, described.
 * @param {import('playwright-core').Page} page
 */
export async function seriousViolations(page) {
  // Evaluated, not added as an inline <script>: the page's content
  // security policy rightly blocks inline scripts.
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    // @ts-ignore: injected above
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Saves a screenshot of the page into docs/screenshots/.
 * @param {import('playwright-core').Page} page
 * @param {string} name
 */
export async function screenshot(page, name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Pictures of the page at rest, not of a piece mid-move or a hover.
  await page.mouse.move(0, 0);
  await page.waitForFunction(() => document.getAnimations().length === 0);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/**
 * Text of an element.
 * @param {import('playwright-core').Page} page
 * @param {string} selector
 */
export async function text(page, selector) {
  return (await page.locator(selector).textContent()) || '';
}

/**
 * Waits until the text of `selector` matches `pattern` (a regular
 * expression, or a string for the exact text) and returns it: a read that
 * does not race the message that fills the element in.
 * @param {import('playwright-core').Page} page
 * @param {string} selector
 * @param {RegExp | string} pattern
 */
export async function waitText(page, selector, pattern) {
  const want = typeof pattern === 'string' ? { exact: pattern } : { source: pattern.source, flags: pattern.flags };
  await page.waitForFunction(
    ([sel, w]) => {
      const t = document.querySelector(sel)?.textContent || '';
      return w.exact !== undefined ? t === w.exact : new RegExp(w.source || '', w.flags).test(t);
    },
    /** @type {[string, {exact?: string, source?: string, flags?: string}]} */ ([selector, want]),
  );
  return text(page, selector);
}

/** A short game to a finish when the tigers need only three goats: each goat is placed where a tiger takes it. */
export const THREE_GOAT_WIN = ['b2', 'a1xc3', 'b3', 'c3xa3', 'd4', 'e5xc3'];

/**
 * Asserts that a page logged no error and threw nothing.
 * @param {{problems: string[]}} p
 * @param {RegExp} [expected] errors this test causes on purpose
 */
export function clean(p, expected) {
  assert.deepEqual(
    p.problems.filter((m) => !(expected && expected.test(m))),
    [],
  );
}
