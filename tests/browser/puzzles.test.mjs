// The puzzles page in Chromium against the real server: a puzzle solved
// move by move (the server answering each with the tablebase's reply),
// one failed with the solution shown, the player's puzzle rating and its
// change after each first try, the streak kept in the browser, on a
// desktop and on a 320 px phone, with axe clean.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, playByMouse, seriousViolations, screenshot, text, clean } from './harness.mjs';
import { changeText, ratingText } from '../../static/puzzles.js';

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
 * The puzzle the page is showing, as the server hands it to the page's
 * player (the page's own cookie): the same until it is tried.
 * @param {import('playwright-core').Page} page
 * @param {string} query
 */
async function shown(page, query) {
  return /** @type {import('../../static/wire.js').PuzzleView} */ (await page.evaluate(async (q) => (await fetch(`/api/puzzles/next${q}`)).json(), query));
}

test('a puzzle rating reads with a question mark while provisional, and its change with its sign', () => {
  assert.equal(ratingText({ rating: 1500, deviation: 500, provisional: true, tries: 0 }), '1500?');
  assert.equal(ratingText({ rating: 1623, deviation: 80, provisional: false, tries: 40 }), '1623');
  assert.equal(changeText(12), '+12');
  assert.equal(changeText(-12), '−12');
  assert.equal(changeText(0), '±0');
});

// On the desktop the capture puzzles (`/puzzles?theme=capture`), whose
// lines have a reply between the solver's moves; on the phone any.
for (const phone of [false, true]) {
  test(`a puzzle is solved move by move and the next one failed, with its solution and the rating changes shown${phone ? ' (on a 320 px phone)' : ''}`, async () => {
    const p = await newPage(browser, phone ? { phone: true, width: 320, height: 640 } : {});
    const { page } = p;
    const query = phone ? '' : '?theme=capture';
    await page.goto(`${server.url}/`);
    if (phone) {
      await page.locator('#puzzles-link').click();
      await page.waitForURL(`${server.url}/puzzles`);
    } else {
      await page.goto(`${server.url}/puzzles${query}`);
    }
    await page.locator('.board-root.playable').waitFor();
    const first = await shown(page, query);
    if (!phone) assert.ok(first.solution.length >= 3, 'a puzzle with a reply');
    assert.deepEqual(first.player, { rating: 1500, deviation: 500, provisional: true, tries: 0 });
    assert.equal(await text(page, '#puzzle-rating'), 'Your puzzle rating: 1500?');
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
    assert.equal(await text(page, '#puzzle-streak'), 'Solved in a row: 1.');
    const gained = await text(page, '#puzzle-rating');
    assert.match(gained, /^Your puzzle rating: \d+\? \(\+\d+\)$/);
    const risen = Number(/(\d+)\?/.exec(gained)?.[1]);
    assert.ok(risen > 1500, gained);
    if (!phone) await screenshot(page, 'puzzle-solved');
    assert.deepEqual(await seriousViolations(page), []);
    if (phone) {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the puzzles page is ${overflow}px wider than the phone`);
    }
    // The next puzzle, a new one, answered with another legal move: wrong,
    // the line shown, and the rating falls.
    await page.locator('#next-puzzle').click();
    const second = await shown(page, `${query ? `${query}&` : '?'}after=${first.id}`);
    assert.notEqual(second.id, first.id);
    assert.equal(second.player?.rating, risen);
    await page.locator('#puzzle-status', { hasText: /exactly one move|Every move but one/ }).waitFor();
    assert.match(await text(page, '#puzzle-hint'), new RegExp(`Puzzle rating ${second.rating}\\.$`));
    const wrong = second.legal.find((a) => a !== second.solution[0]);
    assert.ok(wrong, 'the puzzle has another legal move');
    await playByMouse(page, /** @type {string} */ (wrong));
    await page.locator('#puzzle-status', { hasText: `Wrong: the solution was ${second.solution.join(' ')}.` }).waitFor();
    assert.equal(await text(page, '#puzzle-streak'), 'Solved in a row: 0.');
    assert.match(await text(page, '#puzzle-rating'), /^Your puzzle rating: \d+\? \(−\d+\)$/);
    assert.deepEqual(await seriousViolations(page), []);
    clean(p);
    await p.context.close();
  });
}
