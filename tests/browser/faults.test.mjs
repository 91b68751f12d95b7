// The faults a player's test of the page found, each pinned in Chromium
// against the real server: seat labels after a rematch with the computer,
// where the focus lands, the board's lock between an action and the next
// state, the coordinates, the jump and movable marks, "New table" mid-game
// and the Nepali rendering.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, createTable, waitPlies, point, playByMouse, link, text, waitText, clean } from './harness.mjs';

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
 * What holds the focus: a point of the board, an element's id, or `body`.
 * @param {import('playwright-core').Page} page
 */
function focused(page) {
  return page.evaluate(() => {
    const el = /** @type {HTMLElement | null} */ (document.activeElement);
    if (!el || el === document.body) return 'body';
    if (el.dataset.square) return `point ${el.dataset.square}`;
    if (el instanceof HTMLInputElement && el.type === 'radio') return `radio ${el.name}=${el.value}`;
    return el.id ? `#${el.id}` : el.tagName.toLowerCase();
  });
}

/**
 * Resigns the game in progress.
 * @param {import('playwright-core').Page} page
 */
async function resign(page) {
  await page.locator('#resign').click();
  await page.locator('#resign-yes').click();
  await page.waitForFunction(() => /resigned/.test(document.getElementById('headline')?.textContent || ''));
}

test('after a rematch at a computer table the seat labels follow the swapped sides', async () => {
  const p = await newPage(browser);
  await createTable(p.page, server.url, { opponent: 'computer', side: 'goats', level: 400 });
  assert.match(await text(p.page, '#seat-goats .seat-name'), /\(you\)/);
  await waitText(p.page, '#seat-tigers .seat-state', /computer, level 400/);
  await resign(p.page);
  await p.page.locator('#rematch').click();
  await p.page.waitForFunction(() => /Game 2/.test(document.querySelector('.tally')?.textContent || ''));
  // The player now holds the tigers, the computer the goats.
  assert.match(await text(p.page, '#seat-tigers .seat-name'), /\(you\)/);
  await waitText(p.page, '#seat-tigers .seat-state', 'connected');
  assert.doesNotMatch(await text(p.page, '#seat-goats .seat-name'), /you/);
  await waitText(p.page, '#seat-goats .seat-state', /computer, level 400/);
  clean(p);
  await p.context.close();
});

test('the focus stays on the home form while arrow keys move through its radio groups', async () => {
  const p = await newPage(browser);
  await p.page.goto(`${server.url}/`);
  await p.page.locator('input[name="opponent"][value="friend"]').focus();
  await p.page.keyboard.press('ArrowDown');
  assert.equal(await focused(p.page), 'radio opponent=computer');
  assert.equal(await p.page.locator('input[name="opponent"][value="computer"]').isChecked(), true);
  // The level field appeared for the computer, and the focus did not move.
  assert.equal(await p.page.locator('#level').isVisible(), true);
  await p.page.keyboard.press('ArrowDown');
  assert.equal(await focused(p.page), 'radio opponent=bots');
  await p.page.keyboard.press('ArrowUp');
  await p.page.keyboard.press('ArrowUp');
  assert.equal(await focused(p.page), 'radio opponent=friend');
  await p.page.locator('input[name="side"][value="goats"]').focus();
  await p.page.keyboard.press('ArrowRight');
  assert.equal(await focused(p.page), 'radio side=tigers');
  clean(p);
  await p.context.close();
});

test('after "Create the table" and after "Rematch" the focus lands on a control of the table', async () => {
  // A friend table: the first thing to do is to send the opponent link.
  const friend = await newPage(browser);
  await friend.page.goto(`${server.url}/`);
  await friend.page.locator('form.create button[type="submit"]').focus();
  await friend.page.keyboard.press('Enter');
  await friend.page.waitForURL(/#seat=/);
  await friend.page.waitForFunction(() => document.activeElement?.id === 'share-opponent-link');
  clean(friend);
  await friend.context.close();

  // A computer table: the board.
  const p = await newPage(browser);
  await p.page.goto(`${server.url}/`);
  await p.page.locator('input[name="opponent"][value="computer"]').check();
  await p.page.locator('#level').fill('400');
  await p.page.locator('form.create button[type="submit"]').focus();
  await p.page.keyboard.press('Enter');
  await p.page.waitForURL(/#seat=/);
  await p.page.waitForFunction(() => Boolean(/** @type {HTMLElement} */ (document.activeElement).dataset.square));
  await resign(p.page);
  await p.page.locator('#rematch').focus();
  await p.page.keyboard.press('Enter');
  await p.page.waitForFunction(() => /Game 2/.test(document.querySelector('.tally')?.textContent || ''));
  assert.match(await focused(p.page), /^point /);
  clean(p);
  await p.context.close();
});

test('the board stays locked from the click until the next state says it is your turn', async () => {
  const p = await newPage(browser);
  /** @type {string[]} actions the page sent */
  const sent = [];
  /** @type {string[]} */
  const held = [];
  let hold = false;
  /** @type {any} */
  let presence = null;
  /** @type {() => void} */
  let acked = () => {};
  const ack = new Promise((resolve) => {
    acked = () => resolve(undefined);
  });
  /** @type {import('playwright-core').WebSocketRoute | null} */
  let route = null;
  // Between the page and the server: the event of the host's own action
  // is held back, so that its acknowledgement arrives first.
  await p.page.routeWebSocket(/\/ws$/, (ws) => {
    route = ws;
    const upstream = ws.connectToServer();
    ws.onMessage((m) => {
      const msg = JSON.parse(String(m));
      if (msg.type === 'action') sent.push(msg.action);
      upstream.send(m);
    });
    upstream.onMessage((m) => {
      const msg = JSON.parse(String(m));
      if (hold && msg.type === 'event') {
        held.push(String(m));
        return;
      }
      ws.send(m);
      if (msg.type === 'presence') presence = msg;
      if (msg.type === 'ack' && hold) {
        // A marker after the ack, in order on the same socket: once the
        // page shows it, it has read the ack.
        ws.send(JSON.stringify({ ...presence, spectators: 7, spectator_seats: 9 }));
        acked();
      }
    });
  });
  await createTable(p.page, server.url, { opponent: 'friend', side: 'goats' });
  // Nothing is played before the friend is seated.
  const guest = await newPage(browser);
  await guest.page.goto(await link(p.page, 'opponent'));
  await waitPlies(guest.page);
  await p.page.locator('.board-root.playable').waitFor();
  hold = true;
  await playByMouse(p.page, 'c3');
  await ack;
  await p.page.getByText('Spectators: 7 of 9').waitFor();
  // Acknowledged, but no new state yet: still locked.
  assert.equal(await p.page.locator('.board-root.playable').count(), 0);
  await point(p.page, 'd4').click({ force: true });
  assert.deepEqual(sent, ['c3']);
  hold = false;
  for (const m of held) /** @type {import('playwright-core').WebSocketRoute} */ (route).send(m);
  await waitPlies(p.page, 1);
  // The tigers are to move now: the goats' board stays locked.
  assert.equal(await p.page.locator('.board-root.playable').count(), 0);
  assert.deepEqual(sent, ['c3']);
  clean(p);
  await p.context.close();
  await guest.context.close();
});

test('the coordinates are drawn outside the playing area, clear of every piece', async () => {
  const p = await newPage(browser);
  await createTable(p.page, server.url, { opponent: 'friend', side: 'goats' });
  const overlaps = await p.page.evaluate(() => {
    const frame = /** @type {SVGGraphicsElement} */ (document.querySelector('#board .board-frame')).getBBox();
    const points = [...document.querySelectorAll('#board .point')].map((c) => ({ x: Number(c.getAttribute('cx')), y: Number(c.getAttribute('cy')) }));
    /** @type {string[]} */
    const out = [];
    for (const label of document.querySelectorAll('#board .coords text')) {
      const b = /** @type {SVGGraphicsElement} */ (label).getBBox();
      const inside = b.x < frame.x + frame.width && b.x + b.width > frame.x && b.y < frame.y + frame.height && b.y + b.height > frame.y;
      if (inside) out.push(`${label.textContent} inside the frame`);
      // A piece is drawn 80 units wide on its point.
      for (const pt of points) {
        if (b.x < pt.x + 40 && b.x + b.width > pt.x - 40 && b.y < pt.y + 40 && b.y + b.height > pt.y - 40) out.push(`${label.textContent} under the piece at ${pt.x},${pt.y}`);
      }
    }
    return { out, count: document.querySelectorAll('#board .coords text').length };
  });
  assert.equal(overlaps.count, 10);
  assert.deepEqual(overlaps.out, []);
  clean(p);
  await p.context.close();
});

test('jumps are marked apart from steps, with the goat they take, and movable tigers stand out like gold points', async () => {
  const p = await newPage(browser);
  await p.page.goto(`${server.url}/`);
  await p.page.evaluate(async () => {
    const { Board } = await import('/board.js');
    const root = document.createElement('div');
    root.id = 'marks';
    root.style.width = '400px';
    document.body.prepend(root);
    const board = new Board(root, () => {});
    board.update({ position: 'T..../...G./...../.G.../T...T t 0 0 40', legal: ['a1xc3', 'a1-a2', 'a1-b1', 'a5-a4', 'a5-b5', 'e1-d1', 'e1-e2', 'e1-d2'], lastAction: null, mode: 'play', hints: false }, false);
  });
  // Before a tiger is chosen: each movable tiger has a ring as strong as a gold point.
  const rings = await p.page.$$eval('#marks .movable-ring', (els) =>
    els.map((e) => {
      const s = getComputedStyle(e);
      return { stroke: s.stroke, width: parseFloat(s.strokeWidth), dash: s.strokeDasharray, opacity: Number(s.opacity) };
    }),
  );
  const gold = await p.page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--gold').trim());
  assert.equal(rings.length, 3);
  for (const r of rings) {
    assert.equal(r.stroke, 'rgb(224, 161, 0)', `gold is ${gold}`);
    assert.ok(r.width >= 6, `a ring ${r.width} units wide`);
    assert.equal(r.dash, 'none');
    assert.equal(r.opacity, 1);
  }
  await p.page.locator('#marks .point-button[data-square="a1"]').click();
  // The jump's landing and the goat it takes are marked; the steps are gold points.
  assert.equal(await p.page.locator('#marks .jump-point').count(), 1);
  assert.equal(await p.page.locator('#marks .jump-point').getAttribute('data-square'), 'c3');
  assert.equal(await p.page.locator('#marks .capture-mark').getAttribute('data-square'), 'b2');
  assert.deepEqual((await p.page.$$eval('#marks .gold-point', (els) => els.map((e) => e.getAttribute('data-square')))).sort(), ['a2', 'b1']);
  assert.equal(await p.page.locator('#marks .point-button[data-square="b2"]').getAttribute('aria-label'), 'b2, goat, would be eaten');
  clean(p);
  await p.context.close();
});

test('"New table" is set apart from the game buttons and asks first in the middle of a game', async () => {
  const p = await newPage(browser);
  await createTable(p.page, server.url, { opponent: 'computer', side: 'goats', level: 400 });
  assert.equal(await p.page.locator('.controls #new-table').count(), 0);
  assert.equal(await p.page.locator('#new-table').count(), 1);
  const url = p.page.url();
  await p.page.locator('#new-table').click();
  await p.page.getByText('Leave this game for a new table?').waitFor();
  assert.equal(await focused(p.page), '#new-table-no');
  await p.page.locator('#new-table-no').click();
  assert.equal(p.page.url(), url);
  assert.equal(await focused(p.page), '#new-table');
  await p.page.locator('#new-table').click();
  await p.page.locator('#new-table-yes').click();
  await p.page.locator('form.create').waitFor();
  assert.deepEqual(await p.page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('baghchal.seat.'))), []);
  clean(p);
  await p.context.close();
});

test('Nepali reads as Nepali: key names, digits in fields and counters, and the full stop', async () => {
  const p = await newPage(browser);
  await p.page.goto(`${server.url}/`);
  await p.page.locator('#lang').click();
  const how = await text(p.page, '.how');
  assert.doesNotMatch(how, /Enter वा Space/);
  assert.match(how, /इन्टर/);
  // Numbers in fields are Devanagari like the counters' ...
  assert.equal(await p.page.locator('#spectators').inputValue(), '१');
  await p.page.locator('details.options summary').click();
  assert.equal(await p.page.locator('#ply-limit').inputValue(), '४००');
  // ... and read back in either script.
  await p.page.locator('#spectators').fill('२');
  await p.page.locator('input[name="opponent"][value="computer"]').check();
  await p.page.locator('#level').fill('400');
  await p.page.locator('form.create button[type="submit"]').click();
  await p.page.waitForURL(/#seat=/);
  await p.page.waitForFunction(() => /२ मध्ये/.test(document.querySelector('.spectators')?.textContent || ''));
  await playByMouse(p.page, 'c3');
  // Announcements end their sentences with the danda, never with ".".
  // Read the announcement in the same moment it is seen: the live region
  // is rewritten for each announcement.
  const said = await p.page
    .waitForFunction(() => {
      const now = document.getElementById('live')?.textContent || '';
      return /तपाईंको पालो/.test(now) ? now : null;
    })
    .then((handle) => handle.jsonValue());
  assert.doesNotMatch(said, /\./);
  assert.match(said, /।$/);
  clean(p);
  await p.context.close();
});

test('a watch-bots table keeps a seat in its gallery for one more person', async () => {
  const p = await newPage(browser);
  await p.page.goto(`${server.url}/`);
  await p.page.locator('input[name="opponent"][value="bots"]').check();
  assert.ok(Number(await p.page.locator('#spectators').inputValue()) >= 2);
  await p.page.locator('form.create button[type="submit"]').click();
  await p.page.waitForURL(/#watch=/);
  const other = await newPage(browser);
  await other.page.goto(p.page.url());
  await waitPlies(other.page);
  assert.equal(await other.page.locator('.notice').count(), 0);
  for (const q of [p, other]) {
    clean(q);
    await q.context.close();
  }
});
