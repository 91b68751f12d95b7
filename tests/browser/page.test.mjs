// The page in real headless Chromium against the real server: people create
// tables, invite, play by mouse, touch and keyboard, watch, refresh, resign
// and agree draws. Each context is a different person with its own storage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer,
  launchBrowser,
  newPage,
  createTable,
  waitPlies,
  plies,
  point,
  playByMouse,
  squaresNamed,
  link,
  seriousViolations,
  screenshot,
  text,
  waitText,
  clean,
  THREE_GOAT_WIN,
} from './harness.mjs';


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


test('the home page offers every table option and passes an accessibility scan', async () => {
  const home = await newPage(browser);
  const { page } = home;
  await page.goto(`${server.url}/`);
  assert.equal(await page.locator('input[name="opponent"]').count(), 3);
  await page.locator('input[name="opponent"][value="computer"]').check();
  const level = page.locator('#level');
  assert.deepEqual(
    [await level.getAttribute('min'), await level.getAttribute('max'), await level.getAttribute('step')],
    ['400', '2400', '100'],
  );
  await level.fill('1700');
  assert.equal(await text(page, '#level-out'), '1700 · strong');
  const spectators = page.locator('#spectators');
  assert.equal(await spectators.getAttribute('inputmode'), 'numeric');
  assert.match(await text(page, '#spectators-hint'), /0 to 12/);
  // The variants are folded under "options".
  assert.equal(await page.locator('details.options').getAttribute('open'), null);
  assert.equal(await page.locator('#multi-jump').isVisible(), false);
  await page.locator('details.options summary').click();
  assert.equal(await page.locator('#multi-jump').isVisible(), true);
  await page.locator('details.options summary').click();
  await page.locator('input[name="opponent"][value="friend"]').check();
  await screenshot(page, 'home');
  assert.deepEqual(await seriousViolations(page), []);

  // English and Nepali, switchable, and the choice is kept.
  await page.locator('#lang').click();
  assert.equal(await page.locator('html').getAttribute('lang'), 'ne');
  assert.equal(await text(page, '#site-title'), 'बाघचाल');
  assert.match(await text(page, 'form.create'), /बाख्रा/);
  // Numbers in Devanagari digits: the computer's level, 400 to 2400.
  await page.locator('input[name="opponent"][value="computer"]').check();
  await page.locator('#level').fill('2400');
  assert.equal(await text(page, '#level-out'), '२४०० · लगभग पूर्ण');
  await page.reload();
  assert.equal(await text(page, '#site-title'), 'बाघचाल');
  assert.deepEqual(await seriousViolations(page), []);
  await page.locator('#lang').click();
  assert.equal(await text(page, '#site-title'), 'Bagh-Chal');
  clean(home);
  await home.context.close();
});

test('two friends play to a finish through the opponent link while a third watches', async () => {
  const host = await newPage(browser, { reducedMotion: false, clipboard: true });
  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats', spectators: 2, goatsToWin: 3 });
  // The links panel, with copy buttons and the privacy note.
  const opponentLink = await link(host.page, 'opponent');
  const spectatorLink = await link(host.page, 'spectator');
  assert.match(opponentLink, /\/t\/[^/]+#invite=/);
  assert.match(spectatorLink, /\/t\/[^/]+#watch=/);
  assert.equal(await host.page.getByRole('button', { name: 'Copy the opponent link' }).count(), 1);
  assert.equal(await host.page.getByRole('button', { name: 'Copy the spectator link' }).count(), 1);
  assert.match(await text(host.page, '.links'), /private/);
  await host.page.getByRole('button', { name: 'Copy the spectator link' }).click();
  await host.page.getByText('Copied').waitFor();
  assert.equal(await host.page.evaluate(() => navigator.clipboard.readText()), spectatorLink);
  assert.equal(await text(host.page, '#seat-tigers .seat-state'), 'not connected');
  assert.equal(await text(host.page, '.rules'), 'Rules: 3 goats to win');

  // The guest is on a phone and taps.
  const guest = await newPage(browser, { phone: true, reducedMotion: false });
  await guest.page.goto(opponentLink);
  await waitPlies(guest.page);
  // The spent invitation was replaced by the guest's own seat.
  await guest.page.waitForURL(/#seat=/);
  await host.page.waitForFunction(() => document.querySelector('#seat-tigers .seat-state')?.textContent === 'connected');

  const watcher = await newPage(browser);
  await watcher.page.goto(spectatorLink);
  await waitPlies(watcher.page);
  await host.page.waitForFunction(() => /Spectators: 1 of 2/.test(document.querySelector('.spectators')?.textContent || ''));

  // Placement: the 21 empty points are gold for the goats and for no one else.
  assert.equal((await squaresNamed(host.page, 'you can place here')).length, 21);
  assert.equal((await squaresNamed(guest.page, 'you can place here')).length, 0);
  assert.match(await text(host.page, '#headline'), /Your turn \(Goats\) · placement/);
  assert.match(await text(guest.page, '#headline'), /Waiting for Goats/);
  assert.equal(await point(host.page, 'a1').getAttribute('aria-label'), 'a1, tiger');
  assert.equal(await point(host.page, 'b2').getAttribute('aria-label'), 'b2, empty, you can place here');

  // The spectator sees where the side to move can go, and can hide it.
  assert.equal((await squaresNamed(watcher.page, 'the side to move can go here')).length, 21);
  assert.equal(await watcher.page.locator('.gold-point').count(), 21);
  await watcher.page.locator('#hints').uncheck();
  assert.equal(await watcher.page.locator('.gold-point').count(), 0);
  await watcher.page.locator('#hints').check();
  assert.equal(await watcher.page.locator('.gold-point').count(), 21);
  // Nothing acts for a spectator.
  assert.equal(await watcher.page.locator('#resign, #offer-draw, #rematch, .links').count(), 0);
  assert.equal(await point(watcher.page, 'c3').getAttribute('aria-disabled'), 'true');
  await point(watcher.page, 'c3').click({ force: true });
  assert.equal(await watcher.page.locator('.selection-ring').count(), 0);
  assert.deepEqual(await plies(watcher.page), []);

  await playByMouse(host.page, THREE_GOAT_WIN[0]);
  await waitPlies(guest.page, 1);
  assert.equal(await point(guest.page, 'b2').getAttribute('aria-label'), 'b2, goat');
  // Selecting a tiger rings it and shows its destinations; the jump is named.
  await guest.page.locator('.board-root.playable').waitFor();
  await point(guest.page, 'a1').tap();
  assert.equal(await guest.page.locator('.selection-ring').count(), 1);
  assert.match((await point(guest.page, 'a1').getAttribute('aria-label')) || '', /^a1, tiger, selected/);
  assert.deepEqual((await squaresNamed(guest.page, 'you can jump here')).sort(), ['c3']);
  // A tap elsewhere drops the selection, on the board or off it.
  await point(guest.page, 'd3').tap();
  assert.equal(await guest.page.locator('.selection-ring').count(), 0);
  await point(guest.page, 'a1').tap();
  assert.equal(await guest.page.locator('.selection-ring').count(), 1);
  await guest.page.locator('.moves').tap();
  assert.equal(await guest.page.locator('.selection-ring').count(), 0);
  await point(guest.page, 'a1').tap();
  await point(guest.page, 'c3').tap();
  await waitPlies(host.page, 2);
  await waitPlies(watcher.page, 2);
  assert.equal(await text(host.page, '#counter-eaten'), '1/3');
  assert.equal(await host.page.locator('.pile-goat.eaten').count(), 1);
  assert.equal(await host.page.locator('.last-point').count(), 2);
  await screenshot(host.page, 'placement');

  await playByMouse(host.page, THREE_GOAT_WIN[2]);
  await waitPlies(guest.page, 3);

  // A refresh mid-game returns the guest to the same seat and state.
  await guest.page.reload();
  await waitPlies(guest.page, 3);
  assert.match(await text(guest.page, '#seat-tigers .seat-name'), /\(you\)/);
  assert.deepEqual(await plies(guest.page), THREE_GOAT_WIN.slice(0, 3));
  await playByMouse(guest.page, THREE_GOAT_WIN[3]);
  await waitPlies(host.page, 4);

  // The opponent link is spent: anyone else gets a clear page.
  const late = await newPage(browser);
  await late.page.goto(opponentLink);
  await late.page.getByRole('heading', { name: 'This seat is taken' }).waitFor();
  clean(late);
  await late.context.close();

  await screenshot(watcher.page, 'spectator');
  assert.deepEqual(await seriousViolations(watcher.page), []);
  assert.deepEqual(await seriousViolations(host.page), []);

  await playByMouse(host.page, THREE_GOAT_WIN[4]);
  await waitPlies(guest.page, 5);
  await playByMouse(guest.page, THREE_GOAT_WIN[5]);
  for (const p of [host.page, guest.page, watcher.page]) await waitPlies(p, 6);
  assert.match(await text(host.page, '#headline'), /You lost: Tigers win, 3 goats eaten/);
  assert.match(await text(guest.page, '#headline'), /You won: Tigers win, 3 goats eaten/);
  assert.match(await text(watcher.page, '#headline'), /Tigers win, 3 goats eaten/);
  await host.page.waitForFunction(() => /Tigers win/.test(document.getElementById('live')?.textContent || ''));
  assert.equal(await text(host.page, '#counter-eaten'), '3/3');
  assert.equal(await host.page.locator('.pile-goat.eaten').count(), 3);
  assert.equal(await host.page.locator('.gold-point').count(), 0);
  assert.equal(await host.page.locator('#rematch').count(), 1);
  assert.equal(await host.page.locator('#resign').count(), 0);
  assert.deepEqual(await plies(watcher.page), THREE_GOAT_WIN);
  // The eaten goat has left the board for the pile.
  await host.page.locator('.piece.captured').waitFor({ state: 'detached' });
  await screenshot(host.page, 'finished');

  // The phone layout does not scroll sideways.
  const overflow = await guest.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
  for (const p of [host, guest, watcher]) {
    clean(p);
    await p.context.close();
  }
});

/**
 * Presses arrow keys until the focus is on `sq`, checking that the focus
 * moves between points and stays visible.
 * @param {import('playwright-core').Page} page
 * @param {string} sq
 */
async function arrowTo(page, sq) {
  for (let i = 0; i < 12; i++) {
    const at = await page.evaluate(() => /** @type {HTMLElement} */ (document.activeElement).dataset.square || '');
    assert.ok(at, 'the focus left the board');
    if (at === sq) {
      const outline = await page.evaluate(() => getComputedStyle(/** @type {Element} */ (document.activeElement)).outlineStyle);
      assert.notEqual(outline, 'none', 'the focused point shows no focus');
      return;
    }
    const dc = sq.charCodeAt(0) - at.charCodeAt(0);
    const dr = Number(sq[1]) - Number(at[1]);
    await page.keyboard.press(dc > 0 ? 'ArrowRight' : dc < 0 ? 'ArrowLeft' : dr > 0 ? 'ArrowUp' : 'ArrowDown');
  }
  assert.fail(`the arrow keys did not reach ${sq}`);
}

/**
 * Presses Tab until a point of the board has the focus.
 * @param {import('playwright-core').Page} page
 */
async function tabToBoard(page) {
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => Boolean(/** @type {HTMLElement} */ (document.activeElement).dataset.square))) return;
  }
  assert.fail('Tab never reached the board');
}

/**
 * Plays an action with the keyboard only.
 * @param {import('playwright-core').Page} page
 * @param {string} action
 * @param {'Enter' | 'Space'} key
 */
async function playByKeyboard(page, action, key) {
  await page.locator('.board-root.playable').waitFor();
  for (const sq of action.split(/[-x]/)) {
    await arrowTo(page, sq);
    await page.keyboard.press(key);
  }
}

test('a whole game is played with the keyboard only', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'friend', side: 'tigers', spectators: 0, goatsToWin: 3 });
  const guest = await newPage(browser);
  await guest.page.goto(await link(host.page, 'opponent'));
  await waitPlies(guest.page);
  await tabToBoard(host.page);
  await tabToBoard(guest.page);
  for (const [i, action] of THREE_GOAT_WIN.entries()) {
    const page = i % 2 === 0 ? guest.page : host.page;
    await playByKeyboard(page, action, i % 4 < 2 ? 'Enter' : 'Space');
    await waitPlies(host.page, i + 1);
    await waitPlies(guest.page, i + 1);
  }
  assert.match(await text(host.page, '#headline'), /You won: Tigers win, 3 goats eaten/);
  // The live region announced the result.
  await guest.page.waitForFunction(() => /Tigers win/.test(document.getElementById('live')?.textContent || ''));
  for (const p of [host, guest]) {
    clean(p);
    await p.context.close();
  }
});

test('a game against the computer on each side', async () => {
  // Goats against the computer's tigers.
  const goats = await newPage(browser);
  await createTable(goats.page, server.url, { opponent: 'computer', side: 'goats', level: 400 });
  assert.equal(await goats.page.locator('#offer-draw').count(), 0, 'no draw offers against the computer');
  await waitText(goats.page, '#seat-tigers .seat-state', /computer, level 400/);
  for (let n = 0; n < 3; n++) {
    const place = (await squaresNamed(goats.page, 'you can place here'))[0];
    await playByMouse(goats.page, place);
    await waitPlies(goats.page, 2 * n + 2);
  }
  await goats.page.locator('#resign').click();
  await goats.page.getByText('Resign this game?').waitFor();
  await goats.page.locator('#resign-yes').click();
  await goats.page.waitForFunction(() => /You lost: Tigers win, Goats resigned/.test(document.getElementById('headline')?.textContent || ''));
  // A rematch against the computer starts at once, sides swapped.
  await goats.page.locator('#rematch').click();
  await goats.page.waitForFunction(() => /Game 2/.test(document.querySelector('.tally')?.textContent || ''));
  assert.match(await text(goats.page, '#seat-tigers .seat-name'), /\(you\)/);
  assert.match(await text(goats.page, '.tally'), /opponent 1/);
  clean(goats);
  await goats.context.close();

  // Tigers against the computer's goats: the goats still move first.
  const tigers = await newPage(browser);
  await createTable(tigers.page, server.url, { opponent: 'computer', side: 'tigers', level: 800 });
  await waitPlies(tigers.page, 1);
  await tigers.page.locator('.board-root.playable').waitFor();
  const movable = await squaresNamed(tigers.page, 'can move');
  assert.ok(movable.length > 0);
  await point(tigers.page, movable[0]).click();
  const dest = (await squaresNamed(tigers.page, 'you can move here'))[0] || (await squaresNamed(tigers.page, 'you can jump here'))[0];
  await point(tigers.page, dest).click();
  await waitPlies(tigers.page, 3);
  clean(tigers);
  await tigers.context.close();
});

test('placement ends and the goats move: a game in the movement phase', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats' });
  const guest = await newPage(browser);
  await guest.page.goto(await link(host.page, 'opponent'));
  await waitPlies(guest.page);
  let ply = 0;
  for (let goat = 0; goat < 20; goat++) {
    await host.page.locator('.board-root.playable').waitFor();
    const free = await squaresNamed(host.page, 'you can place here');
    // Fill the board from the top row down, keeping the tigers room.
    await point(host.page, free[0]).click();
    ply += 1;
    await waitPlies(guest.page, ply);
    if (goat === 19) break;
    // The tigers step (never eat), each time with the first tiger that can.
    await guest.page.locator('.board-root.playable').waitFor();
    let moved = false;
    for (const tiger of await squaresNamed(guest.page, 'can move')) {
      await point(guest.page, tiger).click();
      const steps = await squaresNamed(guest.page, 'you can move here');
      if (steps.length) {
        await point(guest.page, steps[0]).click();
        moved = true;
        break;
      }
      await point(guest.page, tiger).click();
    }
    assert.ok(moved, 'no tiger could step');
    ply += 1;
    await waitPlies(host.page, ply);
  }
  await guest.page.waitForFunction(() => document.getElementById('counter-phase')?.textContent === 'movement');
  await guest.page.waitForFunction(() => /Every goat is placed: now the goats move/.test(document.getElementById('live')?.textContent || ''));
  assert.equal(await text(guest.page, '#counter-in-hand'), '0');
  // The tigers move first in the movement phase; then the goats step.
  const tiger = (await squaresNamed(guest.page, 'can move'))[0];
  await point(guest.page, tiger).click();
  const dest = (await squaresNamed(guest.page, 'you can move here'))[0] || (await squaresNamed(guest.page, 'you can jump here'))[0];
  await point(guest.page, dest).click();
  await waitPlies(host.page, 40);
  await host.page.locator('.board-root.playable').waitFor();
  const goat = (await squaresNamed(host.page, 'can move'))[0];
  await point(host.page, goat).click();
  const goatDest = (await squaresNamed(host.page, 'you can move here'))[0];
  assert.ok(goatDest);
  assert.match(await text(host.page, '#headline'), /Your turn \(Goats\) · movement/);
  await screenshot(host.page, 'movement');
  // Clicking the selected goat again puts it down; dragging it moves it.
  await point(host.page, goat).click();
  assert.equal(await host.page.locator('.selection-ring').count(), 0);
  const centre = async (/** @type {string} */ sq) => {
    const box = /** @type {{x: number, y: number, width: number, height: number}} */ (await point(host.page, sq).boundingBox());
    return [box.x + box.width / 2, box.y + box.height / 2];
  };
  const [fx, fy] = await centre(goat);
  const [tx, ty] = await centre(goatDest);
  await host.page.mouse.move(fx, fy);
  await host.page.mouse.down();
  await host.page.mouse.move(tx, ty, { steps: 6 });
  await host.page.mouse.up();
  await waitPlies(guest.page, 41);
  assert.equal((await plies(guest.page))[40], `${goat}-${goatDest}`);
  for (const p of [host, guest]) {
    clean(p);
    await p.context.close();
  }
});

test('the computer plays itself at a bots table, watched through its link', async () => {
  const p = await newPage(browser);
  await createTable(p.page, server.url, { opponent: 'bots', level: 400, spectators: 1 });
  assert.match(p.page.url(), /#watch=/);
  await p.page.waitForFunction(() => document.querySelectorAll('.moves .ply').length >= 3);
  assert.equal(await p.page.locator('#resign, #offer-draw, .links').count(), 0);
  clean(p);
  await p.context.close();
});

test('one browser can hold both seats of a table in two tabs', async () => {
  const p = await newPage(browser);
  await createTable(p.page, server.url, { opponent: 'friend', side: 'goats' });
  const invite = await link(p.page, 'opponent');
  const tab = await p.context.newPage();
  await tab.goto(invite);
  await tab.waitForURL(/#seat=/);
  await waitPlies(tab);
  assert.match(await text(tab, '#seat-tigers .seat-name'), /\(you\)/);
  await p.page.waitForFunction(() => document.querySelector('#seat-tigers .seat-state')?.textContent === 'connected');
  await playByMouse(p.page, 'c3');
  await waitPlies(tab, 1);
  // The host's tab keeps its seat and its links after a refresh.
  await p.page.reload();
  await waitPlies(p.page, 1);
  assert.match(await text(p.page, '#seat-goats .seat-name'), /\(you\)/);
  assert.equal(await link(p.page, 'opponent'), invite);
  clean(p);
  await p.context.close();
});

test('a full gallery and an unknown link get clear pages', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'friend', spectators: 1 });
  const watchLink = await link(host.page, 'spectator');
  const first = await newPage(browser);
  await first.page.goto(watchLink);
  await waitPlies(first.page);
  const second = await newPage(browser);
  await second.page.goto(watchLink);
  await second.page.getByRole('heading', { name: 'The gallery is full' }).waitFor();
  assert.deepEqual(await seriousViolations(second.page), []);
  const forged = await newPage(browser);
  await forged.page.goto(watchLink.replace(/#watch=.*/, '#watch=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
  await forged.page.getByRole('heading', { name: 'This link is not valid' }).waitFor();
  for (const p of [host, first, second, forged]) {
    clean(p);
    await p.context.close();
  }
});

test('friends agree a draw, rematch with sides swapped, and one resigns', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats' });
  const guest = await newPage(browser);
  await guest.page.goto(await link(host.page, 'opponent'));
  await waitPlies(guest.page);
  await playByMouse(host.page, 'c3');
  await waitPlies(guest.page, 1);

  await host.page.locator('#offer-draw').click();
  await host.page.getByText('You offered a draw.').waitFor();
  await guest.page.getByText('Your opponent offers a draw.').waitFor();
  await guest.page.locator('#decline-draw').click();
  await host.page.locator('#offer-draw').waitFor();
  // Offers are limited per player (one each 10 s): the guest offers next.
  await guest.page.locator('#offer-draw').click();
  await host.page.locator('#accept-draw').click();
  for (const p of [host.page, guest.page]) {
    await p.waitForFunction(() => /Draw, agreed by both players/.test(document.getElementById('headline')?.textContent || ''));
  }

  await host.page.locator('#rematch').click();
  await host.page.getByText('Rematch asked').waitFor();
  await guest.page.getByText('Your opponent asks for a rematch.').waitFor();
  await guest.page.locator('#rematch').click();
  for (const p of [host.page, guest.page]) {
    await p.waitForFunction(() => /Game 2 · Tally: you 0, opponent 0, draws 1/.test(document.querySelector('.tally')?.textContent || ''));
    await waitPlies(p, 0);
  }
  // Sides are swapped: the guest now has the goats and moves first.
  assert.match(await text(guest.page, '#seat-goats .seat-name'), /\(you\)/);
  await playByMouse(guest.page, 'b2');
  await waitPlies(host.page, 1);

  // Resigning asks first; "keep playing" keeps playing.
  await host.page.locator('#resign').click();
  await host.page.locator('#resign-no').click();
  assert.equal(await host.page.locator('#resign').count(), 1);
  await host.page.locator('#resign').click();
  await host.page.locator('#resign-yes').click();
  await guest.page.waitForFunction(() => /You won: Goats win, Tigers resigned/.test(document.getElementById('headline')?.textContent || ''));
  assert.match(await text(guest.page, '.tally'), /Game 2 · Tally: you 1, opponent 0, draws 1/);

  // "New table" forgets this browser's seat.
  await guest.page.locator('#new-table').click();
  await guest.page.locator('form.create').waitFor();
  const kept = await guest.page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('baghchal.seat.')));
  assert.deepEqual(kept, []);
  for (const p of [host, guest]) {
    clean(p);
    await p.context.close();
  }
});

test('the page reconnects by itself when the server restarts, and catches up', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'computer', side: 'goats', level: 400 });
  await playByMouse(host.page, 'c3');
  await waitPlies(host.page, 2);
  const { addr, dir } = server;
  await server.stop(true);
  await host.page.getByText('Connection lost. Reconnecting…').waitFor();
  assert.equal(await host.page.locator('.board-root.playable').count(), 0);
  server = await startServer({ addr, dir });
  await host.page.locator('.banner[hidden]').waitFor({ state: 'attached' });
  await waitPlies(host.page, 2);
  await playByMouse(host.page, (await squaresNamed(host.page, 'you can place here'))[0]);
  await waitPlies(host.page, 4);
  // The browser itself logs each refused connection attempt.
  clean(host, /WebSocket connection to .* failed/);
  await host.context.close();
});

test('a player who drops off catches up on the missed moves with since', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats' });
  const guest = await newPage(browser);
  /** @type {string[]} */
  const hellos = [];
  guest.page.on('websocket', (ws) => {
    ws.on('framesent', (f) => {
      if (typeof f.payload === 'string' && f.payload.includes('"hello"')) hellos.push(f.payload);
    });
  });
  await guest.page.goto(await link(host.page, 'opponent'));
  await waitPlies(guest.page);
  await playByMouse(host.page, 'c3');
  await waitPlies(guest.page, 1);
  await playByMouse(guest.page, 'a1-b2');
  await waitPlies(host.page, 2);

  await guest.context.setOffline(true);
  await guest.page.getByText('Connection lost. Reconnecting…').waitFor();
  await host.page.waitForFunction(() => document.querySelector('#seat-tigers .seat-state')?.textContent === 'not connected');
  await playByMouse(host.page, 'd4');
  await guest.context.setOffline(false);
  await waitPlies(guest.page, 3);
  assert.deepEqual(await plies(guest.page), ['c3', 'a1-b2', 'd4']);
  await guest.page.locator('.board-root.playable').waitFor();
  const last = JSON.parse(hellos[hellos.length - 1]);
  assert.ok(hellos.length >= 2);
  assert.equal(typeof last.since, 'number');
  assert.equal(JSON.parse(hellos[0]).since, undefined);
  clean(host);
  clean(guest, /WebSocket connection to .* failed/);
  for (const p of [host, guest]) await p.context.close();
});

test('the board offers a chain of jumps one landing at a time, and stopping early', async () => {
  // The multi-jump variant's actions, drawn by the board component alone.
  const p = await newPage(browser);
  const { page } = p;
  await page.goto(`${server.url}/`);
  await page.evaluate(async () => {
    const { Board } = await import('/board.js');
    const root = document.createElement('div');
    root.id = 'chain';
    root.style.width = '400px';
    document.body.prepend(root);
    /** @type {string[]} */
    const sent = [];
    Object.assign(window, { sent });
    const board = new Board(root, (a) => sent.push(a));
    board.update(
      {
        position: 'T..../...G./...../.G.../T...T t 0 0 40',
        legal: ['a1xc3', 'a1xc3xe5', 'a1-a2', 'a1-b1', 'a5-a4', 'a5-b5', 'e1-d1', 'e1-e2', 'e1-d2'],
        lastAction: null,
        mode: 'play',
        hints: false,
      },
      false,
    );
  });
  const chain = (/** @type {string} */ sq) => page.locator(`#chain .point-button[data-square="${sq}"]`);
  const sent = () => page.evaluate(() => /** @type {any} */ (window).sent);
  await chain('a1').click();
  assert.equal(await chain('c3').getAttribute('aria-label'), 'c3, empty, you can jump here');
  await chain('c3').click();
  assert.deepEqual(await sent(), []);
  assert.equal(await chain('e5').getAttribute('aria-label'), 'e5, empty, you can jump here');
  assert.equal(await chain('c3').getAttribute('aria-label'), 'c3, empty, selected, end the jumps here');
  await chain('e5').click();
  assert.deepEqual(await sent(), ['a1xc3xe5']);
  await chain('a1').click();
  await chain('c3').click();
  await chain('c3').click();
  assert.deepEqual(await sent(), ['a1xc3xe5', 'a1xc3']);
  // A piece that cannot move is not picked up; a step goes at once.
  await chain('b2').click();
  assert.equal(await page.locator('#chain .selection-ring').count(), 0);
  await chain('e1').click();
  await chain('d2').click();
  assert.deepEqual(await sent(), ['a1xc3xe5', 'a1xc3', 'e1-d2']);
  clean(p);
  await p.context.close();
});
