// A two-board match in Chromium against the real server: the format chosen
// on the home form, both boards with their own turn, controls and move
// list, the match score and result on both seats and in the gallery, a new
// match, the keyboard on both boards, and the boards stacked on a phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, createTable, link, screenshot, waitText, clean, seriousViolations } from './harness.mjs';

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
 * Waits until board `n`'s move list holds `k` half moves.
 * @param {import('playwright-core').Page} page
 * @param {1 | 2} n
 * @param {number} k
 */
async function waitBoardPlies(page, n, k) {
  await page.waitForFunction(([b, want]) => document.querySelectorAll(`#board-${b} .moves .ply`).length === want, /** @type {[number, number]} */ ([n, k]));
}

/**
 * Waits for this page's turn on board `n`, then plays `action` there by clicking its points.
 * @param {import('playwright-core').Page} page
 * @param {1 | 2} n
 * @param {string} action
 */
async function playOn(page, n, action) {
  await page.locator(`#board-${n} .board-root.playable`).waitFor();
  for (const sq of action.split(/[-x]/)) await page.locator(`#board-${n} .point-button[data-square="${sq}"]`).click();
}

/**
 * Keeps every text the live region says, for `waitSaid`.
 * @param {import('playwright-core').Page} page
 */
async function keepSaid(page) {
  await page.evaluate(() => {
    const live = /** @type {HTMLElement} */ (document.getElementById('live'));
    /** @type {string[]} */
    const said = [];
    Object.assign(window, { said });
    new MutationObserver(() => {
      if (live.textContent) said.push(live.textContent);
    }).observe(live, { childList: true, characterData: true, subtree: true });
  });
}

/**
 * Waits until the live region has said something that matches `pattern`.
 * @param {import('playwright-core').Page} page
 * @param {RegExp} pattern
 */
async function waitSaid(page, pattern) {
  try {
    await page.waitForFunction(
      ([source, flags]) => /** @type {string[]} */ (/** @type {any} */ (window).said).some((m) => new RegExp(source, flags).test(m)),
      [pattern.source, pattern.flags],
      { timeout: 10000 },
    );
  } catch (e) {
    const said = await page.evaluate(() => /** @type {any} */ (window).said);
    throw new Error(`never said ${pattern}; said: ${JSON.stringify(said)}`, { cause: e });
  }
}

/**
 * Whether the pane of board `n` is framed as the viewer's turn.
 * @param {import('playwright-core').Page} page
 * @param {1 | 2} n
 */
async function myTurnOn(page, n) {
  return page.locator(`#board-${n}`).evaluate((el) => el.classList.contains('my-turn'));
}

test('a two-board match is chosen on the home form, played on both boards, scored, decided and begun again', async () => {
  const host = await newPage(browser);
  // The form says the side chosen is board 1's.
  await host.page.goto(`${server.url}/`);
  assert.equal(await host.page.locator('#side-two-boards').isHidden(), true);
  await host.page.locator('#format').selectOption('two_boards');
  await waitText(host.page, '#side-two-boards', /on board 2 you play the other side/);
  assert.equal(await host.page.locator('#side-two-boards').isVisible(), true);

  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats', spectators: 2, twoBoards: true });
  const guest = await newPage(browser);
  await guest.page.goto(await link(host.page, 'opponent'));
  await guest.page.locator('#board-2 .point-button').first().waitFor();
  const watcher = await newPage(browser);
  const watchLink = await link(host.page, 'spectator');
  await watcher.page.goto(watchLink);
  await watcher.page.locator('#board-2 .point-button').first().waitFor();

  // Each pane says which board it is and the viewer's side on it.
  await waitText(host.page, '#pane-title-1', 'Board 1 — you play the goats');
  await waitText(host.page, '#pane-title-2', 'Board 2 — you play the tigers');
  await keepSaid(host.page);
  await keepSaid(guest.page);
  await waitText(guest.page, '#pane-title-1', 'Board 1 — you play the tigers');
  await waitText(guest.page, '#pane-title-2', 'Board 2 — you play the goats');
  await waitText(watcher.page, '#pane-title-2', 'Board 2 — the host plays the tigers');
  await waitText(host.page, '#match', 'Match 1: you 0 – 0 opponent');
  await waitText(watcher.page, '#match', 'Match 1: host 0 – 0 guest');

  // The goats move first on both boards: the host's turn on board 1, the guest's on board 2.
  await waitText(host.page, '#headline-1', /^Your turn on board 1 \(Goats\)/);
  await waitText(guest.page, '#headline-2', /^Your turn on board 2 \(Goats\)/);
  assert.deepEqual([await myTurnOn(host.page, 1), await myTurnOn(host.page, 2)], [true, false]);
  assert.deepEqual([await myTurnOn(guest.page, 1), await myTurnOn(guest.page, 2)], [false, true]);

  // Both play at once, each on their board.
  await Promise.all([playOn(host.page, 1, 'c3'), playOn(guest.page, 2, 'c3')]);
  for (const p of [host.page, guest.page, watcher.page]) {
    await waitBoardPlies(p, 1, 1);
    await waitBoardPlies(p, 2, 1);
  }
  // Now the tigers: the guest's turn on board 1, the host's on board 2.
  await waitText(host.page, '#headline-2', /^Your turn on board 2 \(Tigers\)/);
  await waitText(guest.page, '#headline-1', /^Your turn on board 1 \(Tigers\)/);
  assert.deepEqual([await myTurnOn(host.page, 1), await myTurnOn(host.page, 2)], [false, true]);
  assert.match(await host.page.title(), /Your turn on board 2/);
  // The live region names the board.
  await waitSaid(host.page, /Board 2: Goats.*c3.*Your turn on board 2\./);

  // The host plays board 2 with the keyboard: c3 holds the focus, a1 is two left and two down.
  await host.page.locator('#board-2 .board-root.playable').waitFor();
  await host.page.locator('#board-2 .point-button[data-square="c3"]').focus();
  for (const key of ['ArrowLeft', 'ArrowLeft', 'ArrowDown', 'ArrowDown', 'Enter', 'ArrowUp', 'Enter']) await host.page.keyboard.press(key);
  await playOn(guest.page, 1, 'a1-a2');
  for (const p of [host.page, guest.page]) {
    await waitBoardPlies(p, 1, 2);
    await waitBoardPlies(p, 2, 2);
  }
  assert.equal(await host.page.locator('#board-2 .moves .ply').nth(1).getAttribute('data-action'), 'a1-a2');

  // The keyboard reaches both boards: Tab goes from board 1 on to board 2.
  await host.page.locator('#board-1 .point-button[tabindex="0"]').focus();
  let reached = false;
  for (let i = 0; i < 60 && !reached; i++) {
    await host.page.keyboard.press('Tab');
    reached = await host.page.evaluate(() => Boolean(document.activeElement?.closest('#board-2 .points')));
  }
  assert.ok(reached, 'Tab reaches board 2 from board 1');

  // The host resigns board 1 and plays on on board 2.
  await host.page.locator('#resign-1').click();
  await waitText(host.page, '#resign-question-1', 'Resign board 1?');
  await host.page.locator('#resign-yes-1').click();
  await waitText(guest.page, '#match', 'Match 1: you 1 – 0 opponent');
  await waitText(host.page, '#match', 'Match 1: you 0 – 1 opponent');
  await waitText(watcher.page, '#match', 'Match 1: host 0 – 1 guest');
  assert.equal(await host.page.locator('#resign-1').count(), 0);
  assert.equal(await host.page.locator('#resign-2').count(), 1);
  assert.equal(await host.page.locator('#rematch').count(), 0, 'no new match while board 2 is on');

  // Board 2 ends in an agreed draw.
  await guest.page.locator('#offer-draw-2').click();
  await host.page.locator('#accept-draw-2').click();
  await waitText(guest.page, '#match', 'You won match 1, 1½ to ½.');
  await waitText(host.page, '#match', 'You lost match 1, ½ to 1½.');
  await waitText(watcher.page, '#match', 'The guest won match 1, 1½ to ½.');

  // The spectator sees both boards and never a control.
  for (const n of [1, 2]) assert.equal(await watcher.page.locator(`#board-${n} .point-button`).count(), 25);
  assert.equal(await watcher.page.locator('#board-1 .controls button, #board-2 .controls button, #match-controls button').count(), 0);
  assert.deepEqual(await seriousViolations(watcher.page), []);
  assert.deepEqual(await seriousViolations(host.page), []);
  await host.page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(host.page, 'two-boards');

  // A new match: asked once, answered once, not once per board.
  await waitText(host.page, '#rematch', 'New match');
  await host.page.locator('#rematch').click();
  await waitText(host.page, '#match-controls', /New match asked/);
  await waitText(guest.page, '#rematch', 'Accept the new match');
  assert.equal(await guest.page.locator('#rematch').count(), 1);
  assert.equal(await guest.page.locator('#decline-rematch').count(), 1);
  await waitSaid(guest.page, /Your opponent asks for a new match/);
  await guest.page.locator('#rematch').click();
  await waitText(host.page, '#match', 'Match 2: you 0 – 0 opponent');
  await waitText(watcher.page, '#match', 'Match 2: host 0 – 0 guest');
  // The sides are kept.
  await waitText(host.page, '#pane-title-1', 'Board 1 — you play the goats');
  await waitText(host.page, '#headline-1', /^Your turn on board 1/);
  for (const n of /** @type {const} */ ([1, 2])) await waitBoardPlies(guest.page, n, 0);

  // On a phone the boards stack, and nothing scrolls sideways.
  const phone = await newPage(browser, { phone: true });
  await phone.page.goto(watchLink);
  await phone.page.locator('#board-2 .point-button').first().waitFor();
  await waitText(phone.page, '#match', 'Match 2: host 0 – 0 guest');
  const layout = await phone.page.evaluate(() => {
    const one = /** @type {HTMLElement} */ (document.getElementById('board-1')).getBoundingClientRect();
    const two = /** @type {HTMLElement} */ (document.getElementById('board-2')).getBoundingClientRect();
    return { stacked: two.top >= one.bottom, scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth };
  });
  assert.equal(layout.stacked, true);
  assert.equal(layout.scroll, 0);
  assert.deepEqual(await seriousViolations(phone.page), []);
  await screenshot(phone.page, 'two-boards-phone');

  for (const p of [host, guest, watcher, phone]) {
    clean(p);
    await p.context.close();
  }
});

test('against the computer both boards are played, and a resignation counts on its board only', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'computer', side: 'tigers', level: 400, twoBoards: true });
  await waitText(host.page, '#pane-title-1', 'Board 1 — you play the tigers');
  await waitText(host.page, '#pane-title-2', 'Board 2 — you play the goats');
  // The computer's goats move on board 1; on board 2 the host's goats move first.
  await waitBoardPlies(host.page, 1, 1);
  await waitText(host.page, '#headline-2', /^Your turn on board 2/);
  await host.page.locator('#resign-2').click();
  await host.page.locator('#resign-yes-2').click();
  await waitText(host.page, '#match', 'Match 1: you 0 – 1 opponent');
  await waitText(host.page, '#controls-2', /The match goes on on the other board/);
  assert.equal(await host.page.locator('#resign-1').count(), 1);
  clean(host);
  await host.context.close();
});
