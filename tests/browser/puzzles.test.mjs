// The puzzles page in Chromium against the real server: a puzzle solved
// move by move (the server answering each with the tablebase's reply),
// one failed with the solution shown, the streak kept in the browser, on
// a desktop and on a 320 px phone, with axe clean.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, playByMouse, seriousViolations, screenshot, text, clean } from './harness.mjs';
import { nextRating } from '../../static/puzzles.js';

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
 * The puzzle the page is showing, as the server hands it out.
 * @param {import('playwright-core').Page} page
 * @param {string | null} after
 */
async function shown(page, after) {
  const { rating } = await page.evaluate(() => JSON.parse(localStorage.getItem('baghchal.puzzles') || '{"rating":1200}'));
  const q = new URLSearchParams({ rating: String(rating) });
  if (after) q.set('after', after);
  return /** @type {import('../../static/wire.js').PuzzleView} */ (await (await fetch(`${server.url}/api/puzzles/next?${q}`)).json());
}

test('the browser\'s puzzle level rises on a solved puzzle and falls on a failed one, within bounds', () => {
  assert.equal(nextRating(1200, true), 1250);
  assert.equal(nextRating(1200, false), 1150);
  assert.equal(nextRating(2400, true), 2400);
  assert.equal(nextRating(600, false), 600);
});

// On the desktop the browser's level is 1100, where the puzzles take two
// moves of the solver and a reply between; on the phone the first visit's 1200.
for (const [phone, level] of /** @type {[boolean, number][]} */ ([[false, 1100], [true, 1200]])) {
  test(`a puzzle is solved move by move and the next one failed, with its solution shown${phone ? ' (on a 320 px phone)' : ''}`, async () => {
    const p = await newPage(browser, phone ? { phone: true, width: 320, height: 640 } : {});
    const { page } = p;
    if (level !== 1200) await page.addInitScript((r) => localStorage.setItem('baghchal.puzzles', JSON.stringify({ streak: 0, rating: r })), level);
    await page.goto(`${server.url}/`);
    await page.locator('#puzzles-link').click();
    await page.waitForURL(`${server.url}/puzzles`);
    await page.locator('.board-root.playable').waitFor();
    const first = await shown(page, null);
    if (!phone) assert.equal(first.solution.length, 3, 'a puzzle with a reply');
    const solver = first.side_to_move === 'goats' ? 'Goats' : 'Tigers';
    assert.equal(await text(page, '#headline'), `${solver} to play`);
    assert.match(await text(page, '#puzzle-hint'), /^Hint: .+\. Puzzle rating \d+\.$/);
    // The solver's moves; after each but the last the server's reply is on the board.
    for (let i = 0; i < first.solution.length; i += 2) {
      await playByMouse(page, first.solution[i]);
      if (i + 1 < first.solution.length) {
        // The tablebase's reply is played on the board: its point is the last action's.
        await page.locator('#puzzle-status', { hasText: /^Correct\./ }).waitFor();
        const reply = first.solution[i + 1].split(/[-x]/).pop();
        await page.locator(`#board .point-button[data-square="${reply}"]`).waitFor();
      }
    }
    await page.locator('#puzzle-status', { hasText: /^Solved!$/ }).waitFor();
    assert.match(await text(page, '#puzzle-streak'), new RegExp(`^Solved in a row: 1\\. Your puzzle level: ${level + 50}`));
    if (!phone) await screenshot(page, 'puzzle-solved');
    assert.deepEqual(await seriousViolations(page), []);
    if (phone) {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the puzzles page is ${overflow}px wider than the phone`);
    }
    // The next puzzle, answered with another legal move: wrong, and the line shown.
    await page.locator('#next-puzzle').click();
    const second = await shown(page, first.id);
    assert.notEqual(second.id, first.id);
    await page.waitForFunction((want) => document.getElementById('puzzle-hint')?.textContent?.includes(`rating ${want}`), second.rating);
    const wrong = second.legal.find((a) => a !== second.solution[0]);
    assert.ok(wrong, 'the puzzle has another legal move');
    await playByMouse(page, /** @type {string} */ (wrong));
    await page.locator('#puzzle-status', { hasText: `Wrong: the solution was ${second.solution.join(' ')}.` }).waitFor();
    assert.match(await text(page, '#puzzle-streak'), new RegExp(`^Solved in a row: 0\\. Your puzzle level: ${level}`));
    assert.deepEqual(await seriousViolations(page), []);
    clean(p);
    await p.context.close();
  });
}
