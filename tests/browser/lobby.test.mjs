// The lobby in Chromium against the real server: two browsers that have
// never met find each other through a pool and land at one table, each in
// their own seat; one who logs in on the home page is paired under the
// account; a challenge made in one browser is accepted in another;
// a player blocked from a profile page has their challenges hidden from
// the blocker until unblocked; the lobby is axe clean and fits a phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, seriousViolations, playByMouse, waitPlies, waitText } from './harness.mjs';

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
 * A person on the home page, with an account when `name` is given.
 * @param {string | null} name
 * @param {{phone?: boolean}} [opts]
 */
async function visitor(name, opts = {}) {
  const person = await newPage(browser, opts);
  await person.page.goto(server.url);
  await person.page.locator('#lobby-counts').waitFor();
  if (name) {
    const status = await person.page.evaluate(async (n) => {
      const res = await fetch('/api/account', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: n, password: 'a long password' }) });
      return res.status;
    }, name);
    assert.equal(status, 200);
    await person.page.reload();
    await person.page.locator('#lobby-counts').waitFor();
  }
  return person;
}

test('two strangers meet through a pool and each lands in their own seat of one rated table', async () => {
  const alice = await visitor('AliceB');
  const bob = await visitor('BobB');
  await alice.page.locator('#pool-3-2').click();
  await alice.page.locator('#pool-3-2[aria-pressed="true"]').waitFor();
  await bob.page.locator('#pool-3-2').click();
  await alice.page.waitForURL(/\/t\/[^/#]+$/);
  await bob.page.waitForURL(/\/t\/[^/#]+$/);
  assert.equal(alice.page.url(), bob.page.url());
  // The goats' player moves first, with the mouse, and the other sees it.
  await alice.page.locator('.board-root').waitFor();
  await bob.page.locator('.board-root').waitFor();
  const aliceMoves = await alice.page.locator('.board-root.playable').count();
  const [goats, tigers] = aliceMoves ? [alice, bob] : [bob, alice];
  await playByMouse(goats.page, 'c3');
  await waitPlies(tigers.page, 1);
  // A third browser finds the game on the live list and watches it.
  const watcher = await visitor(null);
  const game = watcher.page.locator('#live-games a').first();
  await game.waitFor();
  assert.match((await game.textContent()) || '', /AliceB|BobB/);
  await game.click();
  await watcher.page.waitForURL(alice.page.url());
  await waitPlies(watcher.page, 1);
  assert.equal(await watcher.page.locator('.board-root.playable').count(), 0);
  // The TV shows the same game.
  const tv = await newPage(browser);
  await tv.page.goto(`${server.url}/tv`);
  await waitPlies(tv.page, 1);
  assert.equal(await tv.page.locator('.board-root.playable').count(), 0);
  assert.deepEqual(await seriousViolations(tv.page), []);
  assert.deepEqual(tv.problems, []);
  await tv.context.close();
  // The game is played to its end (the goats resign): each player sees
  // how both ratings moved.
  await playByMouse(tigers.page, 'a1-b2');
  await waitPlies(goats.page, 2);
  await goats.page.locator('#resign').click();
  await goats.page.locator('#resign-yes').click();
  for (const p of [goats.page, tigers.page]) {
    await p.waitForFunction(() => /1500 → \d+ \(\+\d+\).*1500 → \d+ \(−\d+\)|1500 → \d+ \(−\d+\).*1500 → \d+ \(\+\d+\)/.test(document.querySelector('.tally')?.textContent || ''));
  }
  assert.deepEqual([...alice.problems, ...bob.problems, ...watcher.problems], []);
  await watcher.context.close();
  await alice.context.close();
  await bob.context.close();
});

test('a player who logs in on the home page is paired under their account without reloading it', async () => {
  // The account, made in a browser that then goes away.
  const maker = await visitor('CarolB');
  await maker.context.close();
  const carol = await visitor(null);
  await waitText(carol.page, '#account-toggle', 'anonymous');
  await carol.page.locator('#account-toggle').click();
  await carol.page.locator('#show-log-in').click();
  await carol.page.locator('#account-name').fill('CarolB');
  await carol.page.locator('#account-password').fill('a long password');
  await carol.page.locator('#log-in-form button[type="submit"]').click();
  await waitText(carol.page, '#account-toggle', 'CarolB');
  // The lobby now speaks to the account: the pools are rated for it.
  await waitText(carol.page, '#lobby', /Games between accounts are rated\./);
  const dave = await visitor('DaveB');
  await carol.page.locator('#pool-3-2').click();
  await carol.page.locator('#pool-3-2[aria-pressed="true"]').waitFor();
  await dave.page.locator('#pool-3-2').click();
  await carol.page.waitForURL(/\/t\/[^/#]+$/);
  await dave.page.waitForURL(/\/t\/[^/#]+$/);
  assert.equal(carol.page.url(), dave.page.url());
  assert.deepEqual([...carol.problems, ...dave.problems], []);
  await carol.context.close();
  await dave.context.close();
});

test('a challenge made in one browser is accepted in another', async () => {
  const maker = await visitor(null);
  const taker = await visitor(null);
  await maker.page.locator('#challenge-side').selectOption('tigers');
  await maker.page.locator('#create-challenge').click();
  await maker.page.locator('.challenge-withdraw').waitFor();
  const accept = taker.page.locator('.challenge-accept').first();
  await accept.waitFor();
  await accept.click();
  await taker.page.waitForURL(/\/t\/[^/#]+$/);
  await maker.page.waitForURL(/\/t\/[^/#]+$/);
  assert.equal(taker.page.url(), maker.page.url());
  // The maker wanted the tigers: the taker has the goats and moves.
  await taker.page.locator('.board-root.playable').waitFor();
  assert.deepEqual([...maker.problems, ...taker.problems], []);
  await maker.context.close();
  await taker.context.close();
});

/**
 * Makes a challenge on the home page; its id.
 * @param {import('playwright-core').Page} page
 */
async function makeChallenge(page) {
  await page.locator('#create-challenge').click();
  const withdraw = page.locator('.challenge-withdraw');
  await withdraw.waitFor();
  return ((await withdraw.getAttribute('id')) ?? '').replace(/^withdraw-/, '');
}

test('a player blocked from their profile page has their challenges hidden from the blocker until unblocked', async () => {
  const blocker = await visitor(null);
  const blocked = await visitor(null);
  const other = await visitor(null);
  const blockedId = await blocked.page.evaluate(async () => (await (await fetch('/api/me')).json()).id);

  // One's own profile has no button; another player's has "Block".
  await blocked.page.goto(`${server.url}/player/${blockedId}`);
  await blocked.page.locator('#profile-name').waitFor();
  assert.equal(await blocked.page.locator('#profile-block').count(), 0);
  await blocker.page.goto(`${server.url}/player/${blockedId}`);
  await waitText(blocker.page, '#profile-block', 'Block');
  await blocker.page.locator('#profile-block').click();
  await waitText(blocker.page, '#profile-block', 'Unblock');
  assert.deepEqual(await seriousViolations(blocker.page), []);
  await blocker.page.locator('#lang').click();
  await waitText(blocker.page, '#profile-block', 'रोक हटाउनुहोस्');
  assert.deepEqual(await seriousViolations(blocker.page), []);
  await blocker.page.locator('#lang').click();
  await waitText(blocker.page, '#profile-block', 'Unblock');

  // In the lobby the blocker sees the other challenge, not the blocked one.
  await blocker.page.goto(server.url);
  await blocked.page.goto(server.url);
  await blocked.page.locator('#lobby-counts').waitFor();
  const hidden = await makeChallenge(blocked.page);
  const shown = await makeChallenge(other.page);
  await blocker.page.locator(`#accept-${shown}`).waitFor();
  assert.equal(await blocker.page.locator(`#accept-${hidden}`).count(), 0);
  await other.page.locator(`#accept-${hidden}`).waitFor();

  // Unblocked, it shows again.
  await blocker.page.goto(`${server.url}/player/${blockedId}`);
  await waitText(blocker.page, '#profile-block', 'Unblock');
  await blocker.page.locator('#profile-block').click();
  await waitText(blocker.page, '#profile-block', 'Block');
  await blocker.page.goto(server.url);
  await blocker.page.locator(`#accept-${hidden}`).waitFor();
  assert.deepEqual([...blocker.problems, ...blocked.problems, ...other.problems], []);
  for (const p of [blocker, blocked, other]) await p.context.close();
});

test('the lobby is axe clean and fits a phone in both languages', async () => {
  const phone = await visitor(null, { phone: true });
  await phone.page.locator('#create-challenge').click();
  await phone.page.locator('.challenge-withdraw').waitFor();
  assert.deepEqual(await seriousViolations(phone.page), []);
  const wide = await phone.page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 375, `the home page is ${wide} px wide`);
  const small = await phone.page.$$eval('#lobby button, #lobby select', (els) =>
    els.filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.width < 44 || r.height < 44); }).map((e) => e.id || e.className));
  assert.deepEqual(small, []);
  await phone.page.locator('#lang').click();
  await phone.page.locator('#lobby-heading').waitFor();
  assert.deepEqual(await seriousViolations(phone.page), []);
  assert.deepEqual(phone.problems, []);
  await phone.context.close();
});
