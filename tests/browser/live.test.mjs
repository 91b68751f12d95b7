// Live play in Chromium against the real server: the sounds, the clocks,
// the absent opponent and the first moves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launchBrowser, newPage, createTable, waitPlies, playByMouse, link, seriousViolations, screenshot, text, clean, THREE_GOAT_WIN } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * A golden fixture of the protocol, or (`page`) one of the page's own in
 * the live-play contract's shape.
 * @param {string} name
 * @param {boolean} [page]
 */
function fixture(name, page = false) {
  return JSON.parse(readFileSync(join(here, ...(page ? ['fixtures'] : ['..', 'fixtures', 'protocol']), `${name}.json`), 'utf8'));
}

/** @param {number} ms */
const iso = (ms) => new Date(ms).toISOString();

/**
 * A table page whose websocket talks to a recording instead of the server:
 * after the page's hello, `script` sends it recorded messages (in the
 * contract's shape) and sees every message the page sends.
 * @param {(send: (msg: object) => void, sent: any[]) => void} script
 */
async function recordedTable(script) {
  const p = await newPage(browser);
  /** @type {any[]} */
  const sent = [];
  /** @type {{type: string, resolve: (msg: any) => void}[]} */
  const waiting = [];
  await p.page.routeWebSocket(/\/ws$/, (ws) => {
    const send = (/** @type {object} */ msg) => ws.send(JSON.stringify(msg));
    ws.onMessage((m) => {
      const msg = JSON.parse(String(m));
      sent.push(msg);
      for (const w of waiting.filter((x) => x.type === msg.type)) w.resolve(msg);
      if (msg.type === 'hello') script(send, sent);
      if (msg.type === 'ping') send({ type: 'pong' });
    });
  });
  const table = fixture('server.welcome.host').table.id;
  await p.page.goto(`${server.url}/t/${table}#seat=Zq3v9K2mXbT7yLp0Wn5cR8dF1hJ4sA6e`);
  /**
   * The first message of that type the page sends (or has sent).
   * @param {string} type
   * @returns {Promise<any>}
   */
  const sentOf = (type) => {
    const already = sent.find((m) => m.type === type);
    return already ? Promise.resolve(already) : new Promise((resolve) => waiting.push({ type, resolve }));
  };
  return { ...p, sent, sentOf };
}


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

test('both clocks show, the running one counts down from turn_started_at on the server clock, and low time is marked', async () => {
  /** @type {(msg: object) => void} */
  let push = () => {};
  const p = await recordedTable((send) => {
    push = send;
    // The server's clock is an hour ahead of the browser's.
    const serverNow = Date.now() + 3600000;
    const snap = fixture('server.snapshot.clock', true);
    snap.state.clock = { goats_ms: 300000, tigers_ms: 25000, running: 'tigers', turn_started_at: iso(serverNow - 2000), now: iso(serverNow) };
    send(fixture('server.welcome.clock', true));
    send(snap);
    send(fixture('server.presence'));
  });
  const { page } = p;
  await page.locator('#clock-tigers .clock-time').waitFor();
  assert.equal(await text(page, '#clock-goats .clock-time'), '5:00');
  assert.match(await text(page, '#clock-goats .clock-side'), /Goats \(you\)/);
  const first = await text(page, '#clock-tigers .clock-time');
  assert.match(first, /^0:2[123]$/, `the tigers' clock reads ${first}`);
  assert.equal(await page.locator('#clock-tigers.running').count(), 1);
  assert.equal(await page.locator('#clock-goats.running').count(), 0);
  // It counts down between events, second by second, and turns low under 20 s.
  await page.waitForFunction((was) => document.querySelector('#clock-tigers .clock-time')?.textContent !== was, first);
  await page.locator('#clock-tigers.low').waitFor();
  assert.equal(await page.locator('#clock-goats.low').count(), 0);
  assert.match(await text(page, '#clock-tigers'), /running, low on time/);
  assert.deepEqual(await seriousViolations(page), []);
  // The opponent leaves: the banner, over the clocks, until it may be claimed.
  const presence = fixture('server.presence');
  presence.tigers = { player: 'guest', computer: false, connected: false };
  presence.absent = { side: 'tigers', since: iso(Date.now() + 3600000 - 1000), claimable_at: iso(Date.now() + 3600000 + 14000), now: iso(Date.now() + 3600000) };
  push(presence);
  await page.locator('#absent').waitFor();
  await screenshot(page, 'live');
  clean(p);
  await p.context.close();
});

test('the absent opponent banner counts down to claimable_at, then offers the win, a draw or waiting on', async () => {
  const p = await recordedTable((send) => {
    // The server's clock is five seconds behind the browser's.
    const serverNow = Date.now() - 5000;
    send(fixture('server.welcome.host'));
    send(fixture('server.snapshot'));
    const presence = fixture('server.presence');
    presence.tigers = { player: 'guest', computer: false, connected: false };
    presence.absent = { side: 'tigers', since: iso(serverNow - 1000), claimable_at: iso(serverNow + 2500), now: iso(serverNow) };
    send(presence);
  });
  const { page, sentOf } = p;
  await page.locator('#absent').waitFor();
  const first = await text(page, '#absent-text');
  assert.match(first, /Your opponent \(Tigers\) has left the table\. You may claim the game in 0:0[23]\./);
  assert.equal(await page.locator('#claim-victory').count(), 0);
  await page.locator('#claim-victory').waitFor();
  assert.match(await text(page, '#absent-text'), /claim the win, call it a draw, or keep waiting/);
  assert.deepEqual(await seriousViolations(page), []);
  await page.locator('#keep-waiting').click();
  assert.equal(await page.locator('#keep-waiting').count(), 0);
  assert.match(await text(page, '#absent-text'), /waiting for your opponent to come back/);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'claim-victory');
  await page.locator('#claim-victory').click();
  const claim = await sentOf('claim_victory');
  assert.equal(typeof claim.id, 'string');
  clean(p);
  await p.context.close();
});

test('a returning opponent clears the banner, and a claim ends the game with its reason', async () => {
  /** @type {(msg: object) => void} */
  let push = () => {};
  const serverNow = Date.now();
  const p = await recordedTable((send) => {
    push = send;
    send(fixture('server.welcome.host'));
    send(fixture('server.snapshot'));
    const presence = fixture('server.presence');
    presence.absent = { side: 'tigers', since: iso(serverNow - 20000), claimable_at: iso(serverNow - 5000), now: iso(serverNow) };
    send(presence);
  });
  const { page, sentOf } = p;
  await page.locator('#claim-draw').waitFor();
  push({ ...fixture('server.presence'), absent: null });
  await page.locator('#absent').waitFor({ state: 'hidden' });
  await page.waitForFunction(() => /Your opponent is back/.test(document.getElementById('live')?.textContent || ''));
  const presence = fixture('server.presence');
  presence.absent = { side: 'tigers', since: iso(serverNow + 1000), claimable_at: iso(serverNow - 1), now: iso(serverNow) };
  push(presence);
  await page.locator('#claim-draw').click();
  const claim = await sentOf('claim_draw');
  push({ type: 'ack', id: claim.id });
  const ended = fixture('server.event.claimed.draw', true);
  ended.version = 5;
  push(ended);
  await page.waitForFunction(() => /Draw, a player left and the other called it a draw/.test(document.getElementById('headline')?.textContent || ''));
  await page.locator('#absent').waitFor({ state: 'hidden' });
  clean(p);
  await p.context.close();
});

test('at a clocked two-board table the absent opponent banner counts down on its board while a clock runs', async () => {
  const p = await recordedTable((send) => {
    const serverNow = Date.now();
    const welcome = fixture('server.welcome.two_boards');
    send({ ...welcome, table: { ...welcome.table, clock: { initial: 300, increment: 3 } } });
    // Board 1: the guest holds the tigers, to move, and their clock runs.
    const clock = { goats_ms: 300000, tigers_ms: 298500, running: 'tigers', turn_started_at: iso(serverNow - 2000), now: iso(serverNow) };
    const snap = fixture('server.snapshot.two_boards');
    send({ ...snap, state: { ...snap.state, clock }, boards: snap.boards.map((/** @type {any} */ b) => ({ ...b, state: { ...b.state, clock: b.state.board === 1 ? clock : null } })) });
    send({
      ...fixture('server.presence'),
      goats: { player: 'host', computer: false, connected: false },
      tigers: { player: 'guest', computer: false, connected: true },
      absent: { side: 'goats', board: 1, since: iso(serverNow - 1000), claimable_at: iso(serverNow + 30000), now: iso(serverNow) },
    });
  });
  const { page } = p;
  await page.locator('#clock-tigers-1.running').waitFor();
  await page.locator('#absent-1').waitFor();
  const first = await text(page, '#absent-text-1');
  assert.match(first, /Your opponent \(Goats\) has left the table\. You may claim the game in 0:[23]\d\./);
  await page.waitForFunction((was) => document.getElementById('absent-text-1')?.textContent !== was, first);
  assert.equal(await page.locator('#absent-2').isHidden(), true, 'the absence names board 1 only');
  clean(p);
  await p.context.close();
});

test('a game is aborted before both sides moved, and a rematch offer can be declined', async () => {
  /** @type {(msg: object) => void} */
  let push = () => {};
  const p = await recordedTable((send) => {
    push = send;
    send(fixture('server.welcome.host'));
    send(fixture('server.snapshot.clock', true));
    send(fixture('server.presence'));
  });
  const { page, sentOf } = p;
  await page.locator('#abort').waitFor();
  assert.equal(await text(page, '#abort'), 'Abort the game');
  await page.locator('#abort').click();
  const abort = await sentOf('abort');
  // A refusal is said in words of its own.
  push({ ...fixture('server.error.not_abortable', true), id: abort.id });
  await page.waitForFunction(() => /can no longer be aborted/.test(document.getElementById('live')?.textContent || ''));
  const aborted = fixture('server.event.aborted', true);
  push(aborted);
  await page.waitForFunction(() => /Aborted: no result, not counted/.test(document.getElementById('headline')?.textContent || ''));
  assert.equal(await page.locator('#abort').count(), 0);
  // The opponent asks for a rematch; the host declines.
  const offered = fixture('server.event.aborted', true);
  offered.version = 3;
  offered.event = { kind: 'rematch_offered', side: 'tigers' };
  offered.state.rematch_offer = 'tigers';
  push(offered);
  await page.locator('#decline-rematch').click();
  await sentOf('decline_rematch');
  const declined = fixture('server.event.rematch_declined', true);
  declined.version = 4;
  declined.event = { kind: 'rematch_declined', side: 'goats' };
  declined.state.result = { winner: null, reason: 'aborted' };
  push(declined);
  await page.locator('#decline-rematch').waitFor({ state: 'detached' });
  await page.waitForFunction(() => /Goats declined the rematch/.test(document.getElementById('live')?.textContent || ''));
  clean(p);
  await p.context.close();
});

test('the home form offers the time controls and sends the one chosen', async () => {
  const p = await newPage(browser);
  /** @type {any[]} */
  const bodies = [];
  await p.page.route('**/api/tables', async (route) => {
    bodies.push(route.request().postDataJSON());
    await route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ error: 'invalid_options', message: 'recorded' }) });
  });
  await p.page.goto(`${server.url}/`);
  const options = await p.page.$$eval('#clock option', (els) => els.map((e) => e.textContent));
  assert.deepEqual(options, ['No clock', '3 min + 2 s per action', '5 min + 3 s per action', '10 min + 5 s per action', '15 min + 10 s per action', '1 day per action', '2 days per action', '3 days per action']);
  await p.page.locator('form.create button[type="submit"]').click();
  await p.page.getByText('recorded').waitFor();
  await p.page.locator('#clock').selectOption('5+3');
  await p.page.locator('form.create button[type="submit"]').click();
  await p.page.locator('#clock').selectOption('2d');
  await p.page.locator('input[name="opponent"][value="computer"]').check();
  assert.equal(await p.page.locator('#clock').inputValue(), '2d', 'the choice survives a redraw');
  await p.page.locator('form.create button[type="submit"]').click();
  await p.page.waitForFunction(() => document.querySelector('form.create button[type="submit"]')?.getAttribute('aria-disabled') === 'false');
  assert.equal(bodies.length, 3);
  assert.equal('clock' in bodies[0], false, 'no clock is left out');
  assert.deepEqual(bodies[1].clock, { initial: 300, increment: 3 });
  assert.deepEqual(bodies[2].clock, { days_per_action: 2 });
  await p.page.locator('#lang').click();
  assert.equal(await p.page.locator('#clock option:checked').textContent(), 'हरेक चालमा २ दिन');
  await p.context.close();
});

test('with the real server: a clocked game counts down, and an opponent who leaves can be claimed against', async (t) => {
  const host = await newPage(browser);
  await host.page.goto(`${server.url}/`);
  await host.page.locator('#clock').selectOption('3+2');
  await host.page.locator('#spectators').fill('0');
  await host.page.locator('form.create button[type="submit"]').click();
  const outcome = await Promise.race([
    host.page.waitForURL(/#seat=/).then(() => 'table', () => 'none'),
    host.page.locator('.create .error').waitFor().then(() => 'refused', () => 'none'),
  ]);
  if (outcome !== 'table') {
    t.skip('this server takes no clock yet');
    await host.context.close();
    return;
  }
  await host.page.locator('#clock-goats .clock-time').waitFor();
  assert.equal(await text(host.page, '#clock-tigers .clock-time'), '3:00');
  const guest = await newPage(browser);
  await guest.page.goto(await link(host.page, 'opponent'));
  await waitPlies(guest.page);
  // No clock runs until each side has made its first action (the time in
  // which the game may be aborted); then the goats' time runs, on both pages.
  await playByMouse(host.page, 'c3');
  await waitPlies(guest.page, 1);
  assert.equal(await guest.page.locator('.clock.running').count(), 0);
  assert.equal(await text(guest.page, '#abort'), 'Abort the game');
  await playByMouse(guest.page, 'a1-b2');
  await waitPlies(host.page, 2);
  await host.page.locator('#clock-goats.running').waitFor();
  assert.equal(await host.page.locator('#clock-tigers.running').count(), 0);
  assert.equal(await host.page.locator('#abort').count(), 0);
  const shown = await text(host.page, '#clock-goats .clock-time');
  await host.page.waitForFunction((was) => document.querySelector('#clock-goats .clock-time')?.textContent !== was, shown);
  await guest.page.locator('#clock-goats.running').waitFor();

  // The guest leaves: the host sees it at once, with the countdown, then may claim.
  await guest.context.close();
  await host.page.locator('#absent').waitFor();
  assert.match(await text(host.page, '#absent-text'), /Your opponent \(Tigers\) has left the table/);
  await host.page.locator('#claim-victory').waitFor({ timeout: 90000 });
  await host.page.locator('#claim-victory').click();
  await host.page.waitForFunction(() => /You won: Goats win, Tigers left the game/.test(document.getElementById('headline')?.textContent || ''));
  await host.page.locator('#absent').waitFor({ state: 'hidden' });
  clean(host);
  await host.context.close();
});
