// Live play in Chromium against the real server: the sounds, the clocks,
// the absent opponent and the first moves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, createTable, waitPlies, playByMouse, link } from './harness.mjs';

/** A short game to a finish when the tigers need only three goats. */
const THREE_GOAT_WIN = ['b2', 'a1xc3', 'b3', 'c3xa3', 'd4', 'e5xc3'];

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

/**
 * Asserts that a page logged no error and threw nothing.
 * @param {{problems: string[]}} p
 */
function clean(p) {
  assert.deepEqual(p.problems, []);
}

/**
 * A page whose audio is listened to: every audio context made, and every
 * frequency an oscillator is set to, are recorded in `window.audioLog`.
 * @param {{phone?: boolean}} [o]
 */
async function listenedPage(o = {}) {
  const p = await newPage(browser, o);
  await p.context.addInitScript(() => {
    const log = { contexts: 0, /** @type {number[]} */ frequencies: [] };
    Object.assign(window, { audioLog: log });
    const Base = window.AudioContext;
    window.AudioContext = class extends Base {
      /** @param {AudioContextOptions} [opts] */
      constructor(opts) {
        super(opts);
        log.contexts += 1;
      }
      createOscillator() {
        const osc = super.createOscillator();
        const set = osc.frequency.setValueAtTime.bind(osc.frequency);
        osc.frequency.setValueAtTime = (v, t) => {
          log.frequencies.push(v);
          return set(v, t);
        };
        return osc;
      }
    };
  });
  return p;
}

/**
 * The sounds a page has played so far, by kind, told apart by their first
 * note's frequency.
 * @param {import('playwright-core').Page} page
 */
async function soundsPlayed(page) {
  return page.evaluate(async () => {
    const { RECIPES } = await import('/sound.js');
    const log = /** @type {any} */ (window).audioLog;
    /** @type {string[]} */
    const out = [];
    const fs = [...log.frequencies];
    while (fs.length) {
      const kind = Object.entries(RECIPES).find(([, notes]) => notes.every((/** @type {any} */ n, /** @type {number} */ i) => fs[i] === n.f));
      if (!kind) throw new Error(`an unknown sound: ${fs.join(' ')}`);
      out.push(kind[0]);
      fs.splice(0, kind[1].length);
    }
    return out;
  });
}

test('each kind of moment has its own short sound: a placement or step, a capture, your turn and the end', async () => {
  const firsts = await (async () => {
    const p = await newPage(browser);
    await p.page.goto(`${server.url}/`);
    const recipes = await p.page.evaluate(async () => (await import('/sound.js')).RECIPES);
    await p.context.close();
    return recipes;
  })();
  const kinds = Object.keys(firsts);
  assert.deepEqual(kinds.sort(), ['capture', 'end', 'move', 'turn']);
  const signatures = new Set(Object.values(firsts).map((notes) => notes.map((/** @type {any} */ n) => n.f).join(' ')));
  assert.equal(signatures.size, 4, 'the four sounds differ');
  for (const notes of Object.values(firsts)) {
    const length = Math.max(...notes.map((/** @type {any} */ n) => n.at + n.dur));
    assert.ok(length <= 1, `a sound of ${length} s is short`);
  }

  const host = await listenedPage();
  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats', goatsToWin: 3 });
  const guest = await listenedPage();
  await guest.page.goto(await link(host.page, 'opponent'));
  await waitPlies(guest.page);
  await guest.page.locator('#main').click({ position: { x: 2, y: 2 } });
  for (const [i, action] of THREE_GOAT_WIN.entries()) {
    await playByMouse(i % 2 === 0 ? host.page : guest.page, action);
    await waitPlies(host.page, i + 1);
    await waitPlies(guest.page, i + 1);
  }
  await host.page.waitForFunction(() => /** @type {any} */ (window).audioLog.frequencies.length >= 16);
  // The host (goats) hears each action, a capture apart, its turn after each
  // tiger's action, and the end.
  assert.deepEqual(await soundsPlayed(host.page), ['move', 'capture', 'turn', 'move', 'capture', 'turn', 'move', 'capture', 'end']);
  assert.deepEqual((await soundsPlayed(guest.page)).slice(0, 3), ['move', 'turn', 'capture']);
  for (const p of [host, guest]) {
    clean(p);
    await p.context.close();
  }
});

test('nothing sounds before the first interaction, and the sound switch is kept', async () => {
  const maker = await newPage(browser);
  await createTable(maker.page, server.url, { opponent: 'bots', level: 400, spectators: 4 });
  const watchLink = maker.page.url();
  await maker.context.close();

  const p = await listenedPage();
  await p.page.goto(watchLink);
  await p.page.waitForFunction(() => document.querySelectorAll('.moves .ply').length >= 3);
  // Moves came, but the person has not touched the page: no audio at all.
  assert.deepEqual(await p.page.evaluate(() => /** @type {any} */ (window).audioLog), { contexts: 0, frequencies: [] });
  await p.page.locator('.tally').click();
  const seen = await p.page.locator('.moves .ply').count();
  await p.page.waitForFunction((n) => document.querySelectorAll('.moves .ply').length > n, seen);
  await p.page.waitForFunction(() => /** @type {any} */ (window).audioLog.frequencies.length > 0);
  assert.equal(await p.page.evaluate(() => /** @type {any} */ (window).audioLog.contexts), 1);

  // Off: silence, and still off after a reload.
  await p.page.locator('#sound').uncheck();
  const heard = await p.page.evaluate(() => /** @type {any} */ (window).audioLog.frequencies.length);
  const at = await p.page.locator('.moves .ply').count();
  await p.page.waitForFunction((n) => document.querySelectorAll('.moves .ply').length > n + 1, at);
  assert.equal(await p.page.evaluate(() => /** @type {any} */ (window).audioLog.frequencies.length), heard);
  await p.page.reload();
  await p.page.locator('#sound').waitFor();
  assert.equal(await p.page.locator('#sound').isChecked(), false);
  clean(p);
  await p.context.close();
});
