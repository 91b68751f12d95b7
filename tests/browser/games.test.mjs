// The page's views of games in Chromium against the real server: the move
// list stepped through during a live game, a finished game's page with its
// permalink and review, my games, the notations, the analysis board and the
// learn page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, createTable, waitPlies, plies, point, playByMouse, link, seriousViolations, screenshot, text, clean, THREE_GOAT_WIN } from './harness.mjs';


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
 * A friend table with both seats taken, in two contexts.
 * @param {{goatsToWin?: number, clipboard?: boolean}} [o]
 */
async function friends(o = {}) {
  const host = await newPage(browser, { clipboard: o.clipboard });
  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats', goatsToWin: o.goatsToWin });
  const guest = await newPage(browser);
  await guest.page.goto(await link(host.page, 'opponent'));
  await waitPlies(guest.page);
  const table = decodeURIComponent(new URL(host.page.url()).pathname.split('/')[2]);
  return { host, guest, table };
}

/**
 * Plays `actions` in turn, the goats on `goats`, the tigers on `tigers`.
 * @param {import('playwright-core').Page} goats
 * @param {import('playwright-core').Page} tigers
 * @param {string[]} actions
 * @param {number} [from] plies already played
 */
async function playOut(goats, tigers, actions, from = 0) {
  for (const [i, action] of actions.entries()) {
    const ply = from + i;
    await playByMouse(ply % 2 === 0 ? goats : tigers, action);
    await waitPlies(goats, ply + 1);
    await waitPlies(tigers, ply + 1);
  }
}

/**
 * The position drawn on a board, as the points' names say it.
 * @param {import('playwright-core').Page} page
 * @param {string} [scope] a selector around the board
 */
async function drawn(page, scope = '#board') {
  return page.$$eval(`${scope} .point-button`, (els) =>
    els
      .map((e) => e.getAttribute('aria-label') || '')
      .filter((l) => /, (tiger|goat)/.test(l))
      .map((l) => l.split(',').slice(0, 2).join(''))
      .sort(),
  );
}

test('the move list steps back through a live game while it goes on', async () => {
  const { host, guest, table } = await friends();
  await playOut(host.page, guest.page, ['c3', 'a1-b2', 'd4']);
  // The tigers' player looks back at the first ply.
  const first = guest.page.getByRole('button', { name: 'Ply 1: c3' });
  await first.click();
  assert.equal(await first.getAttribute('aria-current'), 'step');
  assert.deepEqual(await drawn(guest.page), ['a1 tiger', 'a5 tiger', 'c3 goat', 'e1 tiger', 'e5 tiger']);
  assert.match(await text(guest.page, '.browse'), /ply 1 of 3/);
  assert.equal(await guest.page.locator('.board-root.playable').count(), 0, 'browsing never plays');
  // The keys step through the plies; the board's own keys are left alone.
  await guest.page.keyboard.press('ArrowRight');
  assert.deepEqual(await drawn(guest.page), ['a5 tiger', 'b2 tiger', 'c3 goat', 'e1 tiger', 'e5 tiger']);
  await guest.page.keyboard.press('Home');
  assert.deepEqual(await drawn(guest.page), ['a1 tiger', 'a5 tiger', 'e1 tiger', 'e5 tiger']);
  assert.equal(await text(guest.page, '.ply-status'), 'Ply 0 of 3');
  // The goats' player browses while the tigers play on: the move arrives,
  // the board stays where it was.
  await host.page.getByRole('button', { name: 'Ply 2: a1-b2' }).click();
  await guest.page.getByRole('button', { name: 'Back to the live position' }).click();
  await playByMouse(guest.page, 'e5-e4');
  await waitPlies(host.page, 4);
  assert.match(await text(host.page, '.browse'), /ply 2 of 4/);
  assert.deepEqual(await drawn(host.page), ['a5 tiger', 'b2 tiger', 'c3 goat', 'e1 tiger', 'e5 tiger']);
  assert.equal(await host.page.locator('.board-root.playable').count(), 0);
  await host.page.getByRole('button', { name: 'Back to the live position' }).click();
  await playByMouse(host.page, 'e3');
  await waitPlies(guest.page, 5);
  assert.deepEqual(await plies(guest.page), ['c3', 'a1-b2', 'd4', 'e5-e4', 'e3']);
  // The game's own page shows it in progress, to anyone with the table id.
  const reader = await newPage(browser);
  await reader.page.goto(`${server.url}/t/${table}/games/1`);
  await reader.page.getByText('This game is still being played.').waitFor();
  assert.deepEqual(await plies(reader.page), ['c3', 'a1-b2', 'd4', 'e5-e4', 'e3']);
  assert.match(await text(reader.page, '#headline'), /Tigers to move/);
  assert.equal(await reader.page.locator('#review, #permalink').count(), 0);
  assert.deepEqual(await seriousViolations(reader.page), []);
  clean(reader);
  await reader.context.close();
  assert.deepEqual(await seriousViolations(guest.page), []);
  for (const p of [host, guest]) {
    clean(p);
    await p.context.close();
  }
});

test('a finished game has a page of its own: review, marks, arrow, keys and a permalink without a token', async () => {
  const { host, guest, table } = await friends({ goatsToWin: 3, clipboard: true });
  await playOut(host.page, guest.page, THREE_GOAT_WIN);
  // The result screen offers the review.
  await host.page.locator('#review-game').click();
  await host.page.waitForURL(`${server.url}/t/${table}/games/1`);
  const page = host.page;
  await page.locator('#eval-graph').waitFor();
  // One point per ply on the graph, and the graph as a table.
  assert.equal(await page.locator('#eval-graph .eval-point').count(), THREE_GOAT_WIN.length);
  assert.equal(await page.locator('.graph-text tbody tr').count(), THREE_GOAT_WIN.length);
  assert.equal(await page.locator('#eval-graph').getAttribute('role'), 'img');
  // The last placement hangs the third goat: a blunder by any measure.
  const d4 = page.getByRole('button', { name: 'Ply 5: d4, blunder' });
  assert.equal(await d4.count(), 1);
  assert.equal(await page.locator('.moves .ply.blunder').count(), 1);
  // The variant has no tablebase: d4 turned a search's estimate into a
  // loss the search proves.
  assert.match(await text(page, '#turning'), /^Ply 5: d4 turned the game into a loss for the Goats\.$/);
  assert.match(await text(page, '.graph-axis.top'), /Goats win/);
  assert.match(await text(page, '.graph-axis.bottom'), /Tigers win/);
  assert.equal(await text(page, '#review-summary tr[data-side="goats"] td:last-child'), '1');
  assert.equal(await text(page, '#review-summary tr[data-side="tigers"] td:last-child'), '0');
  // Stepping through by keyboard: the engine's choice is drawn as an arrow.
  await d4.focus();
  await page.keyboard.press('Home');
  assert.equal(await text(page, '.ply-status'), 'Ply 0 of 6');
  assert.equal(await page.locator('#board .arrow.best').count(), 1);
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await text(page, '.ply-status'), 'Ply 4 of 6');
  assert.equal(await text(page, '#counter-eaten'), '2/3');
  assert.match(await text(page, '#review-comment'), /The engine’s choice for the Goats here: (\S+) \(the arrow\)/);
  const best = (await text(page, '#review-comment')).match(/here: (\S+) \(/)?.[1];
  assert.equal(await page.locator(`#board .arrow.best[data-action="${best}"]`).count(), 1);
  await page.keyboard.press('ArrowRight');
  assert.match(await text(page, '#review-comment'), /Ply 5: the Goats played d4: .* A blunder/);
  await page.keyboard.press('End');
  assert.equal(await text(page, '.ply-status'), 'Ply 6 of 6');
  assert.equal(await page.locator('#board .arrow').count(), 0, 'no arrow once the game is over');
  await page.getByRole('button', { name: 'Ply 4: c3xa3' }).click();
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'review');
  assert.deepEqual(await seriousViolations(page), []);

  // "Share this game": the permalink carries no seat, invitation or token.
  const permalink = await page.locator('#permalink').inputValue();
  assert.equal(permalink, `${server.url}/t/${table}/games/1`);
  await page.locator('#share-game').click();
  await page.getByText('Copied').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), permalink);
  // A fresh context (another person, nothing stored, on a phone) sees the same game.
  const stranger = await newPage(browser, { phone: true });
  await stranger.page.goto(permalink);
  await stranger.page.locator('#eval-graph').waitFor();
  assert.deepEqual(await plies(stranger.page), THREE_GOAT_WIN);
  assert.match(await text(stranger.page, '#headline'), /Tigers win, 3 goats eaten/);
  assert.equal(await stranger.page.locator('.links input:not(#permalink)').count(), 0);
  const stored = await stranger.page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('baghchal.seat.')));
  assert.deepEqual(stored, []);
  // A swipe across the board steps back, and forward again.
  const swipe = (/** @type {number} */ dx) =>
    stranger.page.evaluate((d) => {
      const el = /** @type {HTMLElement} */ (document.querySelector('#board .board-root'));
      const r = el.getBoundingClientRect();
      const y = r.top + r.height / 2;
      const x0 = r.left + r.width / 2 - d / 2;
      const touch = (/** @type {number} */ x) => new Touch({ identifier: 1, target: el, clientX: x, clientY: y });
      el.dispatchEvent(new TouchEvent('touchstart', { touches: [touch(x0)], changedTouches: [touch(x0)], bubbles: true }));
      el.dispatchEvent(new TouchEvent('touchend', { touches: [], changedTouches: [touch(x0 + d)], bubbles: true }));
    }, dx);
  await swipe(120);
  assert.equal(await text(stranger.page, '.ply-status'), 'Ply 5 of 6');
  await swipe(120);
  await swipe(-120);
  assert.equal(await text(stranger.page, '.ply-status'), 'Ply 5 of 6');
  const overflow = await stranger.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the game page is ${overflow}px wider than the phone`);
  clean(stranger);
  await stranger.context.close();
  // No such game: a clear page.
  const lost = await newPage(browser);
  await lost.page.goto(`${server.url}/t/${table}/games/9`);
  await lost.page.getByRole('heading', { name: 'There is no such game' }).waitFor();
  clean(lost, /404/);
  await lost.context.close();
  for (const p of [host, guest]) {
    clean(p);
    await p.context.close();
  }
});

/** A game the goats won by trapping the tigers (docs/strength), 20 placements then the movement phase. */
const TRAPPED = 'a3 e1-d1 e3 a1-b1 a4 b1-c1 a1 d1-d2 b2 a5-b5 a5 e5-e4 e2 e4-e5 b3 c1-c2 a2 c2-c3 d1 d2-c1 e1 e5-e4 b4 e4-e5 c2 c1-d2 c1 d2-d3 d2 d3-d4 e4 d4-d3 c5 b5xd5 d4 d5-c5 d5 c3-c4 c3 c5-b5 b4-c5 b5-b4 a1-b1 b4-b5 a3-b4'.split(' ');

/**
 * A review of TRAPPED as the server words it: estimates in the placement,
 * a solved draw from the goats' last placement, then the tigers' c5-b5
 * turning it into a proved loss.
 */
function trappedReview() {
  const actions = TRAPPED.map((action, ply) => {
    const side = ply % 2 === 0 ? 'goats' : 'tigers';
    /** @type {any} */
    let before = { kind: 'estimate', goats_percent: 85, score: side === 'goats' ? -300 : 300 };
    /** @type {any} */
    let after = before;
    let lost = 0;
    const left = TRAPPED.length - ply;
    if (ply === 37) after = { kind: 'solved', result: 'draw', plies: 0 };
    if (ply === 38) before = after = { kind: 'solved', result: 'draw', plies: 0 };
    if (ply === 39) {
      before = { kind: 'solved', result: 'draw', plies: 0 };
      // Proved sooner than the tablebase's loss for the board alone.
      after = { kind: 'proved', result: 'loss', plies: left - 1, solved: { result: 'loss', plies: left + 5 } };
      lost = 50;
    }
    if (ply > 39) {
      const result = side === 'goats' ? 'win' : 'loss';
      before = { kind: 'proved', result, plies: left };
      after = ply === TRAPPED.length - 1 ? { kind: 'over', result: 'win' } : { kind: 'solved', result, plies: left - 1 };
    }
    return { ply, side, action, before, after, best: action, lost };
  });
  return { version: 2, table: 'reviewedXXXXXXXXXXXXXX', game: 1, actions };
}

test('a review shows solved values as results, the axis, the phase change and the sentence', async () => {
  const p = await newPage(browser);
  const { page } = p;
  const table = 'reviewedXXXXXXXXXXXXXX';
  const record = {
    table,
    game: 1,
    variant: { first: 'goats', multi_jump: false, ply_limit: 400, repetition: 'forbid', three_tigers: false },
    host_side: 'goats',
    moves: TRAPPED,
    result: { winner: 'goats', reason: 'tigers_trapped' },
    record: `rules standard\nactions ${TRAPPED.join(' ')}\nresult goats tigers_trapped\n`,
  };
  await page.route(`**/api/tables/${table}/games/1/analysis`, (route) => route.fulfill({ json: trappedReview() }));
  await page.route(`**/api/tables/${table}/games/1`, (route) => route.fulfill({ json: record }));
  await page.goto(`${server.url}/t/${table}/games/1`);
  await page.locator('#eval-graph').waitFor();
  // The sentence, in words a newcomer reads, from solved and proved values.
  assert.equal(await text(page, '#turning'), 'Ply 40: c5-b5 turned a draw into a loss for the Tigers.');
  // The axis from the goats' win to the tigers', the draw line, the phase change.
  assert.match(await text(page, '.graph-axis.top'), /Goats win/);
  assert.match(await text(page, '.graph-axis.bottom'), /Tigers win/);
  assert.equal(await page.locator('#eval-graph .graph-draw').count(), 1);
  assert.equal(await page.locator('#eval-graph #graph-phase').count(), 1);
  // Solved, proved and estimated points are drawn apart.
  assert.equal(await page.locator('#eval-graph .eval-point.estimate').count(), 37);
  assert.equal(await page.locator('#eval-graph .eval-point.solved').count(), 2 + (TRAPPED.length - 41));
  assert.equal(await page.locator('#eval-graph .eval-point.proved').count(), 1);
  // The graph spans the review's width.
  const widths = await page.evaluate(() => [document.getElementById('eval-graph')?.getBoundingClientRect().width, document.getElementById('review')?.getBoundingClientRect().width]);
  assert.ok(Math.abs(Number(widths[0]) - Number(widths[1])) < 40, `graph ${widths[0]}px in a review of ${widths[1]}px`);
  // The text alternative shows a solved draw as a draw, and the goats' share.
  await page.locator('.graph-text summary').click();
  const row = page.locator('.graph-text tbody tr').nth(38);
  assert.match(await row.innerText(), /a draw, solved for this board/);
  assert.match(await row.innerText(), /50 %/);
  assert.match(await page.locator('.graph-text tbody tr').nth(39).innerText(), /a win within \d+ plies, proved under the house rules \(the tablebase says a win in \d+ plies for this board; the repetition rule makes it sooner\)/);
  // The cursor follows the move list.
  await page.getByRole('button', { name: /^Ply 40: c5-b5/ }).click();
  const cursor = await page.locator('#eval-graph .graph-cursor').getAttribute('visibility');
  assert.equal(cursor, 'visible');
  assert.match(await text(page, '#review-comment'), /before it a draw, solved for this board; after it a loss within \d+ plies, proved under the house rules \(the tablebase says a loss in \d+ plies for this board; the repetition rule makes it sooner\)\. A blunder, 50 points given away/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'review-solved');
  assert.deepEqual(await seriousViolations(page), []);
  clean(p);
  await p.context.close();
});

test('learn from your mistakes walks through a side\'s marked moves, judging each answer by the review\'s values', async () => {
  const { host, guest, table } = await friends({ goatsToWin: 3 });
  await playOut(host.page, guest.page, THREE_GOAT_WIN);
  const page = host.page;
  await page.goto(`${server.url}/t/${table}/games/1`);
  await page.locator('#eval-graph').waitFor();
  // The goats' blunder d4 (and any other marked move of theirs) as exercises.
  await page.locator('.mistakes-link[data-side="goats"]').click();
  await page.waitForURL(/\/mistakes\?/);
  await page.locator('#mistake-task').waitFor();
  const review = await (await fetch(`${server.url}/api/tables/${table}/games/1/analysis`)).json();
  const marked = review.actions.filter((/** @type {any} */ a) => a.side === 'goats' && a.lost >= 5);
  const total = marked.length;
  assert.equal(await text(page, '#mistake-progress'), `Marked move 1 of ${total}`);
  // The marked moves before the blunder, answered with the move played.
  for (const a of marked.filter((/** @type {any} */ a) => a.ply < 4)) {
    await page.locator('#mistake-task', { hasText: `the Goats played ${a.action} here` }).waitFor();
    await playByMouse(page, a.action);
    await page.locator('#mistake-status', { hasText: /^That is the move played\./ }).waitFor();
    await page.locator('#next-mistake').click();
  }
  await page.locator('#mistake-task', { hasText: 'd4' }).waitFor();
  assert.equal(await text(page, '#mistake-task'), 'Ply 5: the Goats played d4 here, a blunder.');
  await page.locator('.board-root.playable').waitFor();
  // The server's values of the position before d4: its best answer is good.
  const answer = await (await fetch(`${server.url}/api/analysis`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ variant: { goats_to_win: 3 }, actions: THREE_GOAT_WIN.slice(0, 4) }) })).json();
  assert.equal(await text(page, '#mistake-status'), 'Find a better move for the Goats.');
  await playByMouse(page, answer.legal[0].action);
  await page.locator('#mistake-status', { hasText: /^Good: / }).waitFor();
  assert.equal(await page.locator(`#board .arrow.best[data-action="${answer.legal[0].action}"]`).count(), 1);
  assert.deepEqual(await seriousViolations(page), []);
  await page.locator('#next-mistake').click();
  await page.locator('#mistake-task', { hasText: `That was every marked move (${total}).` }).waitFor();
  for (const p of [host, guest]) {
    clean(p);
    await p.context.close();
  }
});

test('my games lists each game by opponent, side, date and result, survives a refresh and can be cleared', async () => {
  const p = await newPage(browser);
  const { page } = p;
  await createTable(page, server.url, { opponent: 'computer', side: 'goats', level: 400 });
  const table = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
  await playByMouse(page, 'c3');
  await waitPlies(page, 2);
  await page.locator('#resign').click();
  await page.locator('#resign-yes').click();
  await page.waitForFunction(() => /You lost/.test(document.getElementById('headline')?.textContent || ''));
  await page.goto(`${server.url}/`);
  await page.reload();
  const entry = page.locator('#my-games li');
  assert.equal(await entry.count(), 1);
  const words = await entry.textContent();
  const today = new Date().toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
  // One entry: the game, its result and the way back to its table, which this browser still holds.
  assert.equal(words, `${today} · against the computer (level 400) · you played Goats · Game 1 · You lost: Tigers win, Goats resignedReturn to the table`);
  assert.ok(!(words || '').includes(table), 'a table is shown by what a person recognises, not by its id');
  assert.equal(await entry.locator('.resume-link').getAttribute('href'), `/t/${table}`);
  await entry.locator('.game-link').click();
  await page.waitForURL(`${server.url}/t/${table}/games/1`);
  await page.locator('#review').waitFor();
  await page.goBack();
  await page.locator('#clear-games').click();
  // The games are forgotten; the seat held at the table is not.
  assert.deepEqual(await page.$$eval('#my-games li', (els) => els.map((e) => e.textContent)), ['Return to a table of yours']);
  await page.reload();
  assert.equal(await page.locator('#my-games .game-link[href*="/games/"]').count(), 0);
  assert.deepEqual(await seriousViolations(page), []);
  clean(p);
  await p.context.close();
});

test('the learn page teaches the rules in English and Nepali with diagrams drawn by the board', async () => {
  const p = await newPage(browser);
  const { page } = p;
  await page.goto(`${server.url}/`);
  await page.locator('#learn-link').click();
  await page.waitForURL(`${server.url}/learn`);
  await page.getByRole('heading', { name: 'Learn Bagh-Chal' }).waitFor();
  for (const heading of ['The board', 'Placing the goats', 'Steps and jumps', 'Moving the goats', 'How each side wins', 'This site’s house rules', 'Variants', 'Starting a table']) {
    assert.equal(await page.getByRole('heading', { name: heading, exact: true }).count(), 1, heading);
  }
  assert.match(await text(page, '#learn-house'), /not offered: its point is not gold/);
  assert.match(await text(page, '#learn-house'), /400 half moves/);
  // The diagrams are the board component's, as pictures with names.
  assert.equal(await page.locator('.learn .board-root.diagram svg[role="img"]').count(), 5);
  assert.equal(await page.locator('.learn .point-button').count(), 0);
  assert.equal(await page.locator('#learn-jumps .arrow[data-action="a1xc3"]').count(), 1);
  assert.equal(await page.locator('#learn-board .piece.tiger').count(), 4);
  await page.getByRole('link', { name: 'Steps and jumps' }).click();
  assert.equal(new URL(page.url()).pathname, '/learn');
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'learn');
  assert.deepEqual(await seriousViolations(page), []);
  // The same page in Nepali.
  await page.locator('#lang').click();
  await page.getByRole('heading', { name: 'बाघचाल सिक्नुहोस्' }).waitFor();
  assert.equal(await page.locator('html').getAttribute('lang'), 'ne');
  // The server serves the page at its own address, and the language is kept.
  await page.reload();
  await page.getByRole('heading', { name: 'बाघचाल सिक्नुहोस्' }).waitFor();
  assert.match(await text(page, '#learn-winning'), /बाख्रा जित्छन्/);
  assert.equal(await page.locator('.learn .board-root.diagram').count(), 5);
  assert.deepEqual(await seriousViolations(page), []);
  await page.locator('#lang').click();
  for (const path of ['/learn', '/analysis', '/t/q7Xc2LmN0pRsTuVwYz1A3b/games/1']) {
    const res = await fetch(`${server.url}${path}`);
    assert.equal(res.status, 200, path);
    assert.match(await res.text(), /<script type="module" src="\/app.js">/, path);
  }
  // The table view links to it too.
  await createTable(page, server.url, { opponent: 'computer', side: 'goats', level: 400 });
  assert.equal(await page.locator('#learn-link').getAttribute('href'), '/learn');
  clean(p);
  await p.context.close();
});

/** The movement-phase position of the protocol's analysis fixture: the goats to move, four eaten. */
const ENDGAME = 'T...T/GGGGG/GGGGG/GG.GG/TG.GT g 0 4 100';

test('the analysis board plays either side from position text with the value of every legal action', async () => {
  const p = await newPage(browser);
  const { page } = p;
  await page.goto(`${server.url}/`);
  await page.locator('#analysis-link').click();
  await page.waitForURL(`${server.url}/analysis`);
  // The start: the goats place, every empty point is legal.
  await page.locator('.value-list li').first().waitFor();
  assert.equal(await page.locator('.value-list li').count(), 21);
  assert.match(await text(page, '#headline'), /Goats to move · placement/);
  // From position text: the goats to move in the movement phase.
  await page.locator('#position-text').fill(ENDGAME);
  await page.locator('#load-position').click();
  await page.waitForFunction((want) => /** @type {HTMLInputElement} */ (document.getElementById('current-position')).value === want, ENDGAME);
  const answer = await (await fetch(`${server.url}/api/analysis`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ start: ENDGAME }) })).json();
  assert.deepEqual(
    await page.$$eval('.value-list li', (els) => els.map((e) => /** @type {HTMLElement} */ (e).dataset.action)),
    answer.legal.map((/** @type {{action: string}} */ v) => v.action),
  );
  assert.equal(await page.locator(`#board .arrow.best[data-action="${answer.best}"]`).count(), 1);
  // The goats step c3-c2 on the board; now the tigers have the move and a win in one.
  await playByMouse(page, 'c3-c2');
  await page.locator('.value-list li[data-action="a1xc1"]').waitFor();
  assert.match(await text(page, '.value-list li[data-action="a1xc1"]'), /won.*the game is over/);
  assert.match(await text(page, '#headline'), /Tigers to move · movement/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'analysis');
  assert.deepEqual(await seriousViolations(page), []);
  // The tigers take it from the values list: the game is over.
  await page.getByRole('button', { name: /^Play a1xc1/ }).click();
  await page.getByText('The game is over.').waitFor();
  assert.match(await text(page, '#headline'), /Tigers win, 5 goats eaten/);
  assert.deepEqual(await plies(page), ['c3-c2', 'a1xc1']);
  // Back one ply and another action: the line branches there.
  await page.getByRole('button', { name: 'Ply 1: c3-c2' }).click();
  await page.getByRole('button', { name: /^Play a5-b5/ }).click();
  await page.waitForFunction(() => document.querySelectorAll('.moves .ply').length === 2 && document.querySelector('.moves .ply[data-ply="2"]')?.getAttribute('data-action') === 'a5-b5');
  // Text that is not a position is refused with the server's reason.
  await page.locator('#position-text').fill('T...T/GGGGG g');
  await page.locator('#load-position').click();
  await page.locator('.analysis-status.error').waitFor();
  clean(p, /422/);
  await p.context.close();
});

/** A few plies under the house rules, then the tigers resign: every notation can write it. */
const RESIGNED = ['c3', 'a1-b2', 'b3', 'b2-a1'];

test('each notation of a finished game is exported from its page and pasted back into the analysis board', async () => {
  const { host, guest, table } = await friends({ clipboard: true });
  await playOut(host.page, guest.page, RESIGNED);
  await guest.page.locator('#resign').click();
  await guest.page.locator('#resign-yes').click();
  await host.page.locator('#review-game').waitFor();
  const page = host.page;
  await page.goto(`${server.url}/t/${table}/games/1`);
  for (const format of ['record', 'pypi', 'obx']) {
    // Download: the link is the notation endpoint, as text.
    const href = await page.locator(`.notation li[data-format="${format}"] a[download]`).getAttribute('href');
    const res = await fetch(`${server.url}${href}`);
    assert.equal(res.status, 200, format);
    assert.match(res.headers.get('content-type') || '', /^text\/plain/);
    const exported = await res.text();
    // Copy: the same text on the clipboard.
    const name = await text(page, `.notation li[data-format="${format}"] .notation-name`);
    await page.locator(`.copy-notation[data-format="${format}"]`).click();
    await page.waitForFunction((n) => document.getElementById('notation-status')?.textContent === `Copied as ${n}.`, name);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, exported, format);
    // Paste: the analysis board replays the same actions.
    const board = await newPage(browser);
    await board.page.goto(`${server.url}/analysis`);
    await board.page.locator('.value-list li').first().waitFor();
    await board.page.locator('#pasted-game').fill(copied);
    await board.page.locator('#paste-format').selectOption(format);
    await board.page.locator('#load-game').click();
    await board.page.waitForFunction((n) => document.querySelectorAll('.moves .ply').length === n, RESIGNED.length);
    assert.deepEqual(await plies(board.page), RESIGNED, format);
    clean(board);
    await board.context.close();
  }
  // The game page opens the game on the analysis board too.
  await page.locator('#open-analysis').click();
  await page.waitForFunction((n) => document.querySelectorAll('.moves .ply').length === n, RESIGNED.length);
  assert.deepEqual(await plies(page), RESIGNED);
  for (const p of [host, guest]) {
    clean(p);
    await p.context.close();
  }
});
