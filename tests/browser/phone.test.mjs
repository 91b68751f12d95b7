// The page on a phone, in Chromium against the real server: every view fits
// a screen of 320 to 430 px in English and Nepali, the moment's main action
// is on screen at 375 × 667, touch targets are at least 44 × 44 px, banners
// do not move the board, Nepali has its own web font, and the faults a
// player's run found stay fixed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

const here = dirname(fileURLToPath(import.meta.url));

/**
 * A golden fixture of the protocol.
 * @param {string} name
 */
function fixture(name) {
  return JSON.parse(readFileSync(join(here, '..', 'fixtures', 'protocol', `${name}.json`), 'utf8'));
}

/** @param {number} ms */
const iso = (ms) => new Date(ms).toISOString();

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
    'puzzles',
    async () => {
      const p = await newPage(browser, { phone: true });
      await p.page.goto(`${server.url}/puzzles`);
      await p.page.locator('.board-root.playable').waitFor();
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
    'learn from your mistakes',
    async () => {
      const { host, guest } = await friends({ goatsToWin: 3 });
      await playOut(host.page, guest.page, THREE_GOAT_WIN);
      await guest.context.close();
      await host.page.locator('#review-game').click();
      await host.page.locator('.mistakes-link[data-side="goats"]').click();
      await host.page.locator('.board-root.playable').waitFor();
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

/**
 * The counters whose words or figures overflow their box.
 * @param {import('playwright-core').Page} page
 */
function crampedCounters(page) {
  return page.evaluate(async () => {
    const { STRINGS } = await import('/i18n.js');
    const words = STRINGS[/** @type {'en' | 'ne'} */ (document.documentElement.lang)];
    /** @type {string[]} */
    const out = [];
    /** @param {HTMLElement} e */
    const check = (e) => {
      if (e.scrollWidth > e.clientWidth + 1) out.push(`"${e.textContent}" ${e.scrollWidth} px in ${e.clientWidth} px`);
    };
    for (const e of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.counter dt, .counter dd'))) check(e);
    // The phase counter, in either phase.
    for (const e of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.counter.phase dd'))) {
      const was = e.textContent;
      for (const phase of [words.phasePlacement, words.phaseMovement]) {
        e.textContent = phase;
        check(e);
      }
      e.textContent = was;
    }
    return out;
  });
}

test('no view scrolls sideways on a phone of 320, 375 or 430 px, in English or Nepali, and every counter fits its box', async (t) => {
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
        for (const c of await crampedCounters(page)) wide.push(`${name} (${l}, ${width} px): a counter overflows: ${c}`);
        if (name === 'a game against the computer' && l === 'ne' && width === 375) await screenshot(page, 'phone-table-ne');
      }
    }
    await done();
  }
  t.diagnostic(`${VIEWS.length} views × 2 languages × ${WIDTHS.length} widths measured`);
  assert.equal(wide.length, 0, wide.join('\n'));
});

/**
 * Where an element is on the screen.
 * @param {import('playwright-core').Page} page
 * @param {string} selector
 */
function box(page, selector) {
  return page.locator(selector).first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height, screen: window.innerHeight };
  });
}

/**
 * Whether an element is wholly on the screen, without scrolling.
 * @param {import('playwright-core').Page} page
 * @param {string} selector
 */
async function onScreen(page, selector) {
  const b = await box(page, selector);
  return b.height > 0 && b.top >= 0 && b.bottom <= b.screen;
}

test('a new table on a 375 × 667 phone keeps the board in view with a Share button beside it, and nothing to play until the friend comes', async () => {
  const p = await newPage(browser, { phone: true, height: 667 });
  // The phone's share sheet, recorded.
  await p.context.addInitScript(() => {
    /** @type {ShareData[]} */
    const shared = [];
    Object.assign(window, { shared });
    Object.defineProperty(navigator, 'share', { value: async (/** @type {ShareData} */ d) => void shared.push(d), configurable: true });
  });
  await p.page.goto(`${server.url}/`);
  await p.page.locator('#create').click();
  await p.page.waitForURL(/#seat=/);
  await p.page.locator('.board-root .point-button').first().waitFor();
  await p.page.waitForFunction(() => document.activeElement?.id === 'share-opponent-link');
  assert.equal(await p.page.evaluate(() => window.scrollY), 0);
  assert.ok(await onScreen(p.page, '#board .board-root'), 'the board is on screen');
  assert.ok(await onScreen(p.page, '#share-opponent-link'), 'Share is on screen');
  // Nothing to play, resign or offer before the friend is seated; the host may cancel.
  assert.equal(await p.page.locator('#resign, #offer-draw').count(), 0);
  assert.equal(await p.page.locator('.board-root.playable').count(), 0);
  assert.equal(await text(p.page, '#abort'), 'Cancel the table');
  assert.match(await text(p.page, '#headline'), /Waiting for your opponent/);
  await p.page.locator('#share-opponent-link').click();
  const opponentLink = await link(p.page, 'opponent');
  assert.deepEqual(await p.page.evaluate(() => /** @type {any} */ (window).shared), [{ url: opponentLink, title: 'Bagh-Chal' }]);
  assert.deepEqual(await seriousViolations(p.page), []);
  await screenshot(p.page, 'phone-new-table');

  // The friend comes: the board is the host's to play, the Share button goes.
  const guest = await newPage(browser);
  await guest.page.goto(opponentLink);
  await p.page.locator('.board-root.playable').waitFor();
  assert.equal(await p.page.locator('#share-opponent-link').count(), 0);
  assert.equal(await p.page.locator('#resign').count(), 1);
  assert.ok(await onScreen(p.page, '#board .board-root'), 'the board is still on screen');
  clean(p);
  clean(guest);
  await guest.context.close();
  await p.context.close();
});

test('without the Web Share API, Share copies the link', async () => {
  const p = await newPage(browser, { phone: true, clipboard: true });
  await p.context.addInitScript(() => {
    // @ts-ignore: a browser without it
    delete Navigator.prototype.share;
  });
  await createTable(p.page, server.url, { opponent: 'friend', spectators: 1 });
  await p.page.locator('#share-spectator-link').click();
  await p.page.locator('.links').getByText('Copied').waitFor();
  assert.equal(await p.page.evaluate(() => navigator.clipboard.readText()), await link(p.page, 'spectator'));
  await p.page.locator('#share-opponent-link').click();
  assert.equal(await p.page.evaluate(() => navigator.clipboard.readText()), await link(p.page, 'opponent'));
  clean(p);
  await p.context.close();
});

test('Nepali has a web font of its own, and evaluations in Devanagari digits', async () => {
  const p = await newPage(browser, { phone: true });
  await p.page.goto(`${server.url}/analysis`);
  await language(p.page, 'ne');
  await p.page.locator('.value-list .value').first().waitFor();
  // The page's Devanagari face is in use (from an installed copy of the
  // font, or else downloaded), and the file it downloads is a font.
  const faces = await p.page.evaluate(async () => {
    await document.fonts.ready;
    return [...document.fonts].filter((f) => f.family.replace(/"/g, '') === 'Baghchal Devanagari').map((f) => f.status);
  });
  assert.deepEqual(faces, ['loaded']);
  const downloaded = await p.page.evaluate(async () => {
    const res = await fetch('/fonts/noto-sans-devanagari.woff2');
    const face = new FontFace('Downloaded Devanagari', await res.arrayBuffer());
    await face.load();
    document.fonts.add(face);
    return { type: res.headers.get('content-type'), status: face.status, fits: document.fonts.check('16px "Downloaded Devanagari"', 'बाघचाल १२३') };
  });
  assert.deepEqual(downloaded, { type: 'font/woff2', status: 'loaded', fits: true });
  // Every value reads in Devanagari digits; the notation stays Latin.
  const values = await p.page.$$eval('.value-list .value', (els) => els.map((e) => e.textContent || ''));
  assert.ok(values.length > 0);
  assert.deepEqual(values.filter((v) => /[0-9]/.test(v)), []);
  assert.deepEqual(await seriousViolations(p.page), []);
  clean(p);
  await p.context.close();
});

/**
 * The touch targets smaller than 44 × 44 px: buttons, button-like links,
 * fields, selects, sliders, the labels of radio buttons and checkboxes,
 * disclosure summaries and links standing alone (a link inside a sentence
 * is excepted, as WCAG 2.5.8 does).
 * @param {import('playwright-core').Page} page
 */
function smallTargets(page) {
  return page.evaluate(() => {
    const targets = document.querySelectorAll(
      'button, a, select, textarea, input:not([type="radio"]):not([type="checkbox"]):not([type="hidden"]), label:has(> input[type="radio"]), label:has(> input[type="checkbox"]), summary',
    );
    /** @type {string[]} */
    const small = [];
    let all = 0;
    for (const el of targets) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || el.closest('.visually-hidden, .skip, [hidden]')) continue;
      // A link in running text: its sentence says more than the link.
      if (el instanceof HTMLAnchorElement && !el.classList.contains('button') && (el.parentElement?.textContent || '').trim() !== (el.textContent || '').trim()) continue;
      all += 1;
      if (r.width < 44 - 0.5 || r.height < 44 - 0.5) {
        const name = el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent || '').trim().slice(0, 20)}"`;
        small.push(`${name} ${Math.round(r.width)}×${Math.round(r.height)}`);
      }
    }
    return { all, small };
  });
}

test('every touch target of every view is at least 44 × 44 px on a phone, and every view passes an accessibility scan, in English and Nepali', async (t) => {
  /** @type {string[]} */
  const small = [];
  /** @type {string[]} */
  const violations = [];
  let all = 0;
  for (const [name, open] of VIEWS) {
    const { page, done } = await open();
    for (const l of /** @type {const} */ (['en', 'ne'])) {
      await language(page, l);
      const found = await smallTargets(page);
      all += found.all;
      for (const s of found.small) small.push(`${name} (${l}): ${s}`);
      for (const v of await seriousViolations(page)) violations.push(`${name} (${l}): ${v.id} ${v.nodes.join(', ')}`);
    }
    await done();
  }
  t.diagnostic(`${all} touch targets measured, ${small.length} smaller than 44 × 44 px`);
  assert.ok(all > 100, `${all} targets measured`);
  assert.equal(small.length, 0, `${small.length} of ${all} targets are too small:\n${small.join('\n')}`);
  assert.deepEqual(violations, []);
});

test('the move list steps with icons drawn in SVG, not font glyphs', async () => {
  const p = await newPage(browser, { phone: true });
  await createTable(p.page, server.url, { opponent: 'computer', level: 400 });
  for (const id of ['ply-first', 'ply-prev', 'ply-next', 'ply-last']) {
    const icon = await p.page.locator(`#${id}`).evaluate((b) => ({ svg: b.querySelectorAll('svg').length, text: (b.textContent || '').trim() }));
    assert.deepEqual(icon, { svg: 1, text: '' }, id);
  }
  clean(p);
  await p.context.close();
});

test('an absent opponent and the claims appear without moving the board: layout shift under 0.1 on a 375 × 667 phone', async (t) => {
  const p = await newPage(browser, { phone: true, height: 667 });
  /** @type {(msg: object) => void} */
  let push = () => {};
  // The server, played from its fixtures: the host's table, the guest present.
  await p.page.routeWebSocket(/\/ws$/, (ws) => {
    push = (msg) => ws.send(JSON.stringify(msg));
    ws.onMessage((m) => {
      const msg = JSON.parse(String(m));
      if (msg.type === 'hello') {
        push(fixture('server.welcome.host'));
        push(fixture('server.snapshot'));
        push(fixture('server.presence'));
      }
      if (msg.type === 'ping') push({ type: 'pong' });
    });
  });
  await p.page.addInitScript(() => {
    /** @type {number[]} */
    const shifts = [];
    Object.assign(window, { shifts });
    new PerformanceObserver((list) => {
      for (const e of /** @type {any[]} */ (list.getEntries())) if (!e.hadRecentInput) shifts.push(e.value);
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await p.page.goto(`${server.url}/t/${fixture('server.welcome.host').table.id}#seat=Zq3v9K2mXbT7yLp0Wn5cR8dF1hJ4sA6e`);
  await p.page.locator('#seat-tigers.on').waitFor();
  await p.page.waitForTimeout(300);
  const before = await box(p.page, '#board .board-root');
  const shifted = () => p.page.evaluate(() => /** @type {number[]} */ (/** @type {any} */ (window).shifts).reduce((a, b) => a + b, 0));
  const atRest = await shifted();
  // The guest leaves: the banner, its countdown, then the claims.
  const now = Date.now();
  const presence = fixture('server.presence');
  presence.tigers = { player: 'guest', computer: false, connected: false };
  presence.absent = { side: 'tigers', since: iso(now - 1000), claimable_at: iso(now + 1500), now: iso(now) };
  push(presence);
  await p.page.locator('#absent').waitFor();
  await p.page.locator('#claim-victory').waitFor();
  await p.page.waitForTimeout(300);
  const after = await box(p.page, '#board .board-root');
  assert.equal(after.top, before.top, 'the board did not move');
  const cls = (await shifted()) - atRest;
  t.diagnostic(`cumulative layout shift ${cls.toFixed(4)}; the board moved ${after.top - before.top} px`);
  assert.ok(cls <= 0.1, `cumulative layout shift ${cls}`);
  assert.ok(await onScreen(p.page, '#claim-victory'), 'the claim is on screen');
  assert.deepEqual(await seriousViolations(p.page), []);
  await screenshot(p.page, 'phone-absent');
  clean(p);
  await p.context.close();
});

test('a computer table made with the form as it comes has no spectator seat, no links and no invitation wording', async () => {
  const p = await newPage(browser, { phone: true });
  await p.page.goto(`${server.url}/`);
  await p.page.locator('input[name="opponent"][value="computer"]').check();
  await p.page.locator('#level').fill('400');
  assert.equal(await p.page.locator('#spectators').inputValue(), '0');
  await p.page.locator('#create').click();
  await p.page.locator('.board-root.playable').waitFor();
  await p.page.locator('#seat-tigers .seat-state').getByText(/computer/).waitFor();
  assert.equal(await text(p.page, '.spectators'), 'No spectator seats');
  assert.equal(await p.page.locator('.links').count(), 0);
  assert.doesNotMatch(await text(p.page, 'main'), /invit/i);
  clean(p);
  await p.context.close();

  // With a seat for a spectator asked for: the link, said to be for watching only.
  const q = await newPage(browser, { phone: true });
  await createTable(q.page, server.url, { opponent: 'computer', level: 400, spectators: 1 });
  await link(q.page, 'spectator');
  assert.doesNotMatch(await text(q.page, 'main'), /invit/i);
  assert.match(await text(q.page, '.links'), /can watch this table/);
  clean(q);
  await q.context.close();
});

test('a spectator sees no empty card', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'bots', spectators: 3 });
  const p = await newPage(browser, { phone: true });
  await p.page.goto(host.page.url());
  await p.page.locator('.board-root .point-button').first().waitFor();
  await p.page.locator('#hints').waitFor();
  const empty = await p.page.$$eval('.card', (els) => els.filter((e) => e.getBoundingClientRect().height > 0 && !(e.textContent || '').trim()).length);
  assert.equal(empty, 0);
  clean(p);
  await p.context.close();
  await host.context.close();
});

test('the home page lists each game once, with the way back to a table held, and names the level ranges', async () => {
  const p = await newPage(browser, { phone: true });
  await createTable(p.page, server.url, { opponent: 'computer', level: 400 });
  const table = decodeURIComponent(new URL(p.page.url()).pathname.split('/')[2]);
  await p.page.goto(`${server.url}/`);
  const mentions = await p.page.$$eval(`main a[href^="/t/${table}"]`, (els) => els.map((e) => e.closest('li')));
  assert.equal(mentions.length, 2, 'the game and the table');
  assert.equal(await p.page.locator('main li').count(), 1, 'in one entry of one list');
  assert.equal(await p.page.locator('#my-games li .resume-link').getAttribute('href'), `/t/${table}`);
  await p.page.locator('input[name="opponent"][value="computer"]').check();
  /** @type {[string, RegExp][]} */
  const ranges = [
    ['400', /^400 · beginner$/],
    ['1200', /^1200 · club$/],
    ['1800', /^1800 · strong$/],
    ['2400', /^2400 · near perfect$/],
  ];
  for (const [level, words] of ranges) {
    await p.page.locator('#level').fill(level);
    assert.match(await text(p.page, '#level-out'), words);
    assert.match((await p.page.locator('#level').getAttribute('aria-valuetext')) || '', words);
  }
  await language(p.page, 'ne');
  assert.equal(await text(p.page, '#level-out'), '२४०० · लगभग पूर्ण');
  await p.page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(p.page, 'phone-home-ne');
  assert.deepEqual(await seriousViolations(p.page), []);
  clean(p);
  await p.context.close();
});

test('on a 375 × 667 phone the result, the score and the next game of a series are on screen when a game ends', async () => {
  const p = await newPage(browser, { phone: true, height: 667 });
  await createTable(p.page, server.url, { opponent: 'computer', level: 400, series: 2 });
  await p.page.locator('#resign').click();
  await p.page.locator('#resign-yes').click();
  await p.page.waitForFunction(() => /resigned/.test(document.getElementById('headline')?.textContent || ''));
  await p.page.locator('#rematch').waitFor();
  await p.page.evaluate(() => window.scrollTo(0, 0));
  assert.ok(await onScreen(p.page, '#headline'), 'the result is on screen');
  assert.ok(await onScreen(p.page, '#rematch'), 'the next game is on screen');
  assert.ok(await onScreen(p.page, '#series'), 'the score of the series is on screen');
  assert.match(await text(p.page, '#rematch'), /Next game/);
  await screenshot(p.page, 'phone-series-next');
  clean(p);
  await p.context.close();
});

test('two boards on a phone: the board where it becomes your turn is brought into view and said, the match score stays on screen', async () => {
  const host = await newPage(browser, { phone: true });
  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats', twoBoards: true });
  const guest = await newPage(browser);
  await guest.page.goto(await link(host.page, 'opponent'));
  await guest.page.locator('#board-2 .point-button').first().waitFor();
  await host.page.evaluate(() => {
    const live = /** @type {HTMLElement} */ (document.getElementById('live'));
    /** @type {string[]} */
    const said = [];
    Object.assign(window, { said });
    new MutationObserver(() => {
      if (live.textContent) said.push(live.textContent);
    }).observe(live, { childList: true, characterData: true, subtree: true });
  });
  /**
   * Plays on board `n` of a page by clicking its points.
   * @param {import('playwright-core').Page} page
   * @param {1 | 2} n
   * @param {string} action
   */
  const playOn = async (page, n, action) => {
    await page.locator(`#board-${n} .board-root.playable`).waitFor();
    for (const sq of action.split(/[-x]/)) await page.locator(`#board-${n} .point-button[data-square="${sq}"]`).click();
  };
  /**
   * Waits until it is the host's turn on board `n` only, then checks that board and the score are on screen.
   * @param {1 | 2} n
   */
  const turnInView = async (n) => {
    await host.page.locator(`#board-${n}.my-turn`).waitFor();
    await host.page.waitForFunction((b) => {
      const r = /** @type {HTMLElement} */ (document.querySelector(`#board-${b} .board-root`)).getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    }, n);
    assert.ok(await onScreen(host.page, '#match'), 'the match score is on screen');
  };
  // The host's goats on board 1 move first.
  await turnInView(1);
  await playOn(host.page, 1, 'c3');
  // The guest's goats on board 2: then the host's tigers there.
  await playOn(guest.page, 2, 'c3');
  await turnInView(2);
  await host.page.waitForFunction(() => /** @type {string[]} */ (/** @type {any} */ (window).said).some((m) => /Your turn on board 2/.test(m)));
  await playOn(host.page, 2, 'a1-b1');
  // The guest's tigers on board 1: the host's turn comes back there.
  await playOn(guest.page, 1, 'a1-b1');
  await turnInView(1);
  await screenshot(host.page, 'phone-two-boards');
  for (const p of [host, guest]) {
    clean(p);
    await p.context.close();
  }
});

test('the game page shows the whole move list where there is room, not a short box scrolled to its end', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'bots', level: 400, spectators: 2 });
  await host.page.waitForFunction(() => document.querySelectorAll('.moves .ply').length >= 14, null, { timeout: 60000 });
  const table = decodeURIComponent(new URL(host.page.url()).pathname.split('/')[2]);
  // Weak bots can end a game in fewer plies, and the next one begins: the
  // game shown is the first of at least 14 plies, by its public record.
  const game = await host.page.evaluate(async (t) => {
    for (let n = 1; ; n++) {
      const res = await fetch(`/api/tables/${encodeURIComponent(t)}/games/${n}`);
      if (!res.ok) return null;
      if ((await res.json()).moves.length >= 14) return n;
    }
  }, table);
  assert.ok(game, 'a game of at least 14 plies');
  const p = await newPage(browser, { phone: true });
  await p.page.goto(`${server.url}/t/${table}/games/${game}`);
  await p.page.locator('.moves .ply').nth(13).waitFor();
  const list = await p.page.locator('.moves').evaluate((el) => ({ scroll: el.scrollHeight - el.clientHeight, top: el.scrollTop }));
  assert.deepEqual(list, { scroll: 0, top: 0 });
  clean(p);
  await p.context.close();
  await host.context.close();
});

test('the home page loads only the modules it draws; a table loads its own when opened', async () => {
  const p = await newPage(browser, { phone: true });
  await p.page.goto(`${server.url}/`);
  await p.page.locator('#create').waitFor();
  /** The page's modules fetched so far, by file name. */
  const modules = () => p.page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop() || '').filter((n) => n.endsWith('.js')));
  const home = await modules();
  for (const other of ['table.js', 'game.js', 'analysis.js', 'learn.js', 'pane.js', 'socket.js']) assert.ok(!home.includes(other), `${other} loaded on the home page: ${home.join(' ')}`);
  await p.page.locator('#create').click();
  await p.page.locator('.board-root .point-button').first().waitFor();
  assert.ok((await modules()).includes('table.js'));
  clean(p);
  await p.context.close();
});

test('a new two-board table on a phone offers Share and nothing to play or resign on either board until the friend comes', async () => {
  const p = await newPage(browser, { phone: true, height: 667 });
  await createTable(p.page, server.url, { opponent: 'friend', side: 'goats', twoBoards: true });
  await p.page.waitForFunction(() => document.activeElement?.id === 'share-opponent-link');
  assert.ok(await onScreen(p.page, '#share-opponent-link'), 'Share is on screen');
  assert.deepEqual(await p.page.$$eval('[id^="resign-"], [id^="offer-draw-"], .board-root.playable', (els) => els.map((e) => e.id || e.className)), []);
  assert.match(await text(p.page, '#headline-1'), /Waiting for your opponent/);
  const guest = await newPage(browser);
  await guest.page.goto(await link(p.page, 'opponent'));
  await p.page.locator('#board-1 .board-root.playable').waitFor();
  assert.equal(await p.page.locator('#share-opponent-link').count(), 0);
  assert.equal(await p.page.locator('#resign-1').count(), 1);
  clean(p);
  clean(guest);
  await guest.context.close();
  await p.context.close();
});

test('at a two-board table on a phone the absent opponent’s banner and claims move neither board', async (t) => {
  const p = await newPage(browser, { phone: true, height: 667 });
  /** @type {(msg: object) => void} */
  let push = () => {};
  // The server, played from its fixtures: the guest's two-board table, the host present.
  const presence = { ...fixture('server.presence'), goats: { player: 'host', computer: false, connected: true }, tigers: { player: 'guest', computer: false, connected: true } };
  await p.page.routeWebSocket(/\/ws$/, (ws) => {
    push = (msg) => ws.send(JSON.stringify(msg));
    ws.onMessage((m) => {
      const msg = JSON.parse(String(m));
      if (msg.type === 'hello') {
        push(fixture('server.welcome.two_boards'));
        push(fixture('server.snapshot.two_boards'));
        push(presence);
      }
      if (msg.type === 'ping') push({ type: 'pong' });
    });
  });
  await p.page.addInitScript(() => {
    /** @type {number[]} */
    const shifts = [];
    Object.assign(window, { shifts });
    new PerformanceObserver((list) => {
      for (const e of /** @type {any[]} */ (list.getEntries())) if (!e.hadRecentInput) shifts.push(e.value);
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await p.page.goto(`${server.url}/t/${fixture('server.welcome.two_boards').table.id}#seat=Zq3v9K2mXbT7yLp0Wn5cR8dF1hJ4sA6e`);
  await p.page.locator('#board-2 .point-button').first().waitFor();
  await p.page.waitForTimeout(300);
  const tops = () => p.page.$$eval('.pane .board-root', (els) => els.map((e) => e.getBoundingClientRect().top + window.scrollY));
  const shifted = () => p.page.evaluate(() => /** @type {number[]} */ (/** @type {any} */ (window).shifts).reduce((a, b) => a + b, 0));
  const before = await tops();
  const atRest = await shifted();
  const now = Date.now();
  push({ ...presence, goats: { ...presence.goats, connected: false }, absent: { side: 'goats', board: 1, since: iso(now - 1000), claimable_at: iso(now + 1500), now: iso(now) } });
  await p.page.locator('#absent-1').waitFor();
  await p.page.locator('#claim-victory-1').waitFor();
  await p.page.waitForTimeout(300);
  assert.deepEqual(await tops(), before);
  const cls = (await shifted()) - atRest;
  t.diagnostic(`cumulative layout shift ${cls.toFixed(4)}`);
  assert.ok(cls <= 0.1, `cumulative layout shift ${cls}`);
  assert.ok(await onScreen(p.page, '#claim-victory-1'), 'the claim is on screen');
  assert.deepEqual(await seriousViolations(p.page), []);
  clean(p);
  await p.context.close();
});

test('a finished game’s page hands its permalink to the phone’s share sheet', async () => {
  const { host, guest } = await friends({ goatsToWin: 3 });
  await host.context.addInitScript(() => {
    /** @type {ShareData[]} */
    const shared = [];
    Object.assign(window, { shared });
    Object.defineProperty(navigator, 'share', { value: async (/** @type {ShareData} */ d) => void shared.push(d), configurable: true });
  });
  await playOut(host.page, guest.page, THREE_GOAT_WIN);
  const game = `${new URL(host.page.url()).pathname}/games/1`;
  await host.page.goto(`${server.url}${game}`);
  await host.page.locator('#share-game-link').click();
  assert.deepEqual(await host.page.evaluate(() => /** @type {any} */ (window).shared), [{ title: 'Bagh-Chal', url: `${server.url}${game}` }]);
  for (const p of [host, guest]) {
    clean(p);
    await p.context.close();
  }
});
