// The page on a phone, in Chromium against the real server: every view fits
// a screen of 320 to 430 px in English and Nepali, the moment's main action
// is on screen at 375 × 667, touch targets are at least 44 × 44 px, banners
// do not move the board, and Nepali has its own web font.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, createTable, waitPlies, playByMouse, link, seriousViolations, screenshot, text, clean, THREE_GOAT_WIN } from './harness.mjs';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
/** @type {import('playwright-core').Browser} */
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** The widths of the phones the page is checked on. */
const WIDTHS = [320, 375, 430];

/**
 * How far the page reaches past the right edge of the screen, and the
 * elements that do (the innermost few), to say what to fix.
 * @param {import('playwright-core').Page} page
 */
function overflow(page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const over = document.documentElement.scrollWidth - width;
    /** @type {string[]} */
    const who = [];
    if (over > 0) {
      for (const el of document.querySelectorAll('main *, header *')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.right <= width + 0.5) continue;
        if ([...el.children].some((c) => c.getBoundingClientRect().right > width + 0.5)) continue;
        // What a scrolling box holds does not widen the page.
        let clipped = false;
        for (let a = el.parentElement; a && !clipped; a = a.parentElement) clipped = getComputedStyle(a).overflowX !== 'visible';
        if (clipped) continue;
        who.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')} ${Math.round(r.right)}`);
      }
    }
    return { over, who: who.slice(0, 6) };
  });
}

/**
 * Switches the page to `l` with its language button.
 * @param {import('playwright-core').Page} page
 * @param {'en' | 'ne'} l
 */
async function language(page, l) {
  if ((await page.evaluate(() => document.documentElement.lang)) !== l) await page.locator('#lang').click();
  await page.waitForFunction((want) => document.documentElement.lang === want, l);
}

/**
 * A friend table with both seats taken: the host on a phone, the guest on a desktop.
 * @param {{goatsToWin?: number, spectators?: number, width?: number, height?: number, clipboard?: boolean}} [o]
 */
async function friends(o = {}) {
  const host = await newPage(browser, { phone: true, width: o.width, height: o.height, clipboard: o.clipboard });
  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats', goatsToWin: o.goatsToWin, spectators: o.spectators });
  const guest = await newPage(browser);
  await guest.page.goto(await link(host.page, 'opponent'));
  await waitPlies(guest.page);
  return { host, guest };
}

/**
 * Plays `actions` in turn, the goats on `goats`, the tigers on `tigers`.
 * @param {import('playwright-core').Page} goats
 * @param {import('playwright-core').Page} tigers
 * @param {string[]} actions
 */
async function playOut(goats, tigers, actions) {
  for (const [ply, action] of actions.entries()) {
    await playByMouse(ply % 2 === 0 ? goats : tigers, action);
    await waitPlies(goats, ply + 1);
    await waitPlies(tigers, ply + 1);
  }
}

/**
 * Every view of the page, each opened on a phone and ready to be measured:
 * `open` returns the page showing it.
 * @type {[string, () => Promise<{page: import('playwright-core').Page, done: () => Promise<void>}>][]}
 */
const VIEWS = [
  [
    'home',
    async () => {
      const p = await newPage(browser, { phone: true });
      await p.page.goto(`${server.url}/`);
      await p.page.locator('details.options summary').click();
      return { page: p.page, done: () => p.context.close() };
    },
  ],
  [
    'learn',
    async () => {
      const p = await newPage(browser, { phone: true });
      await p.page.goto(`${server.url}/learn`);
      await p.page.locator('.learn .board-root svg').first().waitFor();
      return { page: p.page, done: () => p.context.close() };
    },
  ],
  [
    'analysis',
    async () => {
      const p = await newPage(browser, { phone: true });
      await p.page.goto(`${server.url}/analysis`);
      await p.page.locator('.board-root .point-button').first().waitFor();
      return { page: p.page, done: () => p.context.close() };
    },
  ],
  [
    'a table waiting for the friend',
    async () => {
      const p = await newPage(browser, { phone: true });
      await createTable(p.page, server.url, { opponent: 'friend', spectators: 2 });
      return { page: p.page, done: () => p.context.close() };
    },
  ],
  [
    'a game against the computer',
    async () => {
      const p = await newPage(browser, { phone: true });
      await createTable(p.page, server.url, { opponent: 'computer', level: 400 });
      await playByMouse(p.page, 'c3');
      await waitPlies(p.page, 2);
      return { page: p.page, done: () => p.context.close() };
    },
  ],
  [
    'a finished game, its spectator and its page with the review',
    async () => {
      const { host, guest } = await friends({ goatsToWin: 3, spectators: 1 });
      await playOut(host.page, guest.page, THREE_GOAT_WIN);
      await guest.context.close();
      return { page: host.page, done: () => host.context.close() };
    },
  ],
  [
    'a spectator',
    async () => {
      const host = await newPage(browser);
      await createTable(host.page, server.url, { opponent: 'bots', spectators: 3 });
      const watchLink = host.page.url();
      const p = await newPage(browser, { phone: true });
      await p.page.goto(watchLink);
      await p.page.locator('.board-root .point-button').first().waitFor();
      return {
        page: p.page,
        done: async () => {
          await p.context.close();
          await host.context.close();
        },
      };
    },
  ],
  [
    'the game page and its review',
    async () => {
      const { host, guest } = await friends({ goatsToWin: 3 });
      await playOut(host.page, guest.page, THREE_GOAT_WIN);
      await guest.context.close();
      await host.page.locator('#review-game').click();
      await host.page.locator('#eval-graph').waitFor();
      return { page: host.page, done: () => host.context.close() };
    },
  ],
  [
    'two boards',
    async () => {
      const p = await newPage(browser, { phone: true });
      await createTable(p.page, server.url, { opponent: 'computer', level: 400, twoBoards: true });
      return { page: p.page, done: () => p.context.close() };
    },
  ],
  [
    'a series',
    async () => {
      const p = await newPage(browser, { phone: true });
      await createTable(p.page, server.url, { opponent: 'computer', level: 400, series: 2 });
      return { page: p.page, done: () => p.context.close() };
    },
  ],
];

test('no view scrolls sideways on a phone of 320, 375 or 430 px, in English or Nepali', async () => {
  /** @type {string[]} */
  const wide = [];
  for (const [name, open] of VIEWS) {
    const { page, done } = await open();
    for (const l of /** @type {const} */ (['en', 'ne'])) {
      await language(page, l);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 812 });
        const { over, who } = await overflow(page);
        if (over > 0) wide.push(`${name} (${l}, ${width} px): ${over} px too wide: ${who.join(', ')}`);
      }
    }
    await done();
  }
  assert.deepEqual(wide, []);
});
