// Accounts on the page, in Chromium against the real server: the header's
// account area (sign up with the server's field errors next to the field,
// log out, log in on a second browser), a seat taken before signing up
// found again by the session alone (the panel links to it), the profile
// listing the finished game, a seat taken through an invitation on a first
// visit kept by the new player, "My games" from the server, the
// leaderboard; axe on the new views and a 320 px phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, createTable, waitPlies, playByMouse, link, seriousViolations, waitText, clean } from './harness.mjs';

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

const PASSWORD = 'correct horse battery';

/**
 * Opens the home page and waits until the server said who the browser is.
 * @param {import('playwright-core').Page} page
 * @param {string | RegExp} who
 */
async function home(page, who) {
  await page.goto(`${server.url}/`);
  await waitText(page, '#account-toggle', who);
}

/**
 * Sends the sign-up or log-in form of the open account panel.
 * @param {import('playwright-core').Page} page
 * @param {'sign-up' | 'log-in'} form
 * @param {string} name
 */
async function sendCredentials(page, form, name) {
  await page.locator('#account-name').fill(name);
  await page.locator('#account-password').fill(PASSWORD);
  await page.locator(`#${form}-form button[type="submit"]`).click();
}

test('sign up, log out, log in on a second browser and find the seat of a table made before signing up; the profile lists the finished game', async () => {
  const first = await newPage(browser);
  await home(first.page, 'anonymous');
  await createTable(first.page, server.url, { opponent: 'friend', side: 'goats', spectators: 0 });
  const table = decodeURIComponent(new URL(first.page.url()).pathname.split('/')[2]);
  const invite = await link(first.page, 'opponent');
  const guest = await newPage(browser);
  await guest.page.goto(invite);
  await guest.page.locator('.board-root .point-button').first().waitFor();

  // A name the server refuses: its words next to the field, what was typed kept.
  await first.page.locator('#account-toggle').click();
  await sendCredentials(first.page, 'sign-up', 'admin');
  await waitText(first.page, '#account-name-error', /3 to 20 letters/);
  assert.equal(await first.page.locator('#account-name').getAttribute('aria-invalid'), 'true');
  assert.equal(await first.page.locator('#account-name').inputValue(), 'admin');
  await sendCredentials(first.page, 'sign-up', 'GoatHerd');
  await waitText(first.page, '#account-toggle', 'GoatHerd');
  await waitText(first.page, '.account-done', /account is ready/);

  await first.page.locator('#log-out').click();
  await waitText(first.page, '#account-toggle', 'anonymous');

  // Another browser: log in, then open the table without any link.
  const second = await newPage(browser);
  await home(second.page, 'anonymous');
  await second.page.locator('#account-toggle').click();
  await second.page.locator('#show-log-in').click();
  await sendCredentials(second.page, 'log-in', 'goatherd');
  await waitText(second.page, '#account-toggle', 'GoatHerd');
  // The panel lists the game in progress; its link has no secret in it.
  const back = second.page.locator('.account-playing .playing-link');
  await back.waitFor();
  assert.equal(await back.getAttribute('href'), `/t/${encodeURIComponent(table)}`);
  await back.click();
  await second.page.waitForURL(`${server.url}/t/${encodeURIComponent(table)}`);
  await second.page.locator('#resign').waitFor();
  await playByMouse(second.page, 'c3');
  await waitPlies(guest.page, 1);
  await playByMouse(guest.page, 'a1-b2');
  await waitPlies(second.page, 2);
  await second.page.locator('#resign').click();
  await second.page.locator('#resign-yes').click();
  await waitText(second.page, '#headline', /You lost/);

  // The profile, by name, lists the game and counts it with the goats.
  await second.page.goto(`${server.url}/@/GoatHerd`);
  await waitText(second.page, '#profile-name', 'GoatHerd');
  const game = second.page.locator('.player-games .game-link');
  await game.waitFor();
  assert.equal(await game.count(), 1);
  assert.equal(await game.getAttribute('href'), `/t/${table}/games/1`);
  assert.match(await second.page.locator('.player-games li').innerText(), /as the Goats · Lost · Correspondence · casual/);
  assert.deepEqual(await second.page.locator('table.record tbody tr').first().locator('td').allInnerTexts(), ['0', '0', '1']);
  assert.deepEqual(await seriousViolations(second.page), []);
  await game.click();
  await second.page.waitForURL(`${server.url}/t/${table}/games/1`);

  // "My games" on the home page comes from the server for an account.
  await home(second.page, 'GoatHerd');
  await second.page.locator('#recorded-games .game-link').waitFor();
  assert.equal(await second.page.locator('#recorded-games .game-link').count(), 1);
  // The refused name is the one failed request.
  clean(first, /422/);
  for (const p of [guest, second]) clean(p);
});

test('a first visit through an invitation takes the seat as the new player, however slow the server is to say who that is', async () => {
  const host = await newPage(browser);
  await home(host.page, 'anonymous');
  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats', spectators: 0 });
  const table = decodeURIComponent(new URL(host.page.url()).pathname.split('/')[2]);
  const invite = await link(host.page, 'opponent');
  // A browser that has never been here: its session cookie comes with
  // the answer to the page's first `GET /api/me`, held back a while.
  const guest = await newPage(browser);
  await guest.page.route('**/api/me', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await route.continue();
  });
  await guest.page.goto(invite);
  await guest.page.locator('.board-root .point-button').first().waitFor();
  await waitText(guest.page, '#account-toggle', 'anonymous');
  const me = await guest.page.evaluate(async () => (await fetch('/api/me')).json());
  assert.deepEqual(
    me.playing.map((/** @type {{table: string}} */ p) => p.table),
    [table],
  );
  assert.deepEqual([...host.problems, ...guest.problems], []);
  await host.context.close();
  await guest.context.close();
});

test('the leaderboard and a missing player are views of their own, accessible in English and Nepali', async () => {
  const p = await newPage(browser);
  await p.page.goto(`${server.url}/leaderboard`);
  await waitText(p.page, '#leaderboard-heading', 'Leaderboard');
  await waitText(p.page, '.leaderboard-view', /No player has a settled rating/);
  assert.equal(await p.page.locator('.speeds a[aria-current="page"]').innerText(), 'Blitz');
  assert.deepEqual(await seriousViolations(p.page), []);
  await p.page.locator('#lang').click();
  await waitText(p.page, '#leaderboard-heading', 'अग्रता सूची');
  assert.deepEqual(await seriousViolations(p.page), []);
  await p.page.goto(`${server.url}/@/nobody-here`);
  await waitText(p.page, '.profile', /यस्तो खेलाडी छैन/);
  clean(p, /404/);
});

/**
 * How far the page reaches past the screen's right edge, and the controls
 * smaller than 44 × 44 px (links in running text, and radio buttons and
 * checkboxes, whose labels are the targets, excepted).
 * @param {import('playwright-core').Page} page
 */
function fit(page) {
  return page.evaluate(() => {
    const over = document.documentElement.scrollWidth - document.documentElement.clientWidth;
    /** @type {string[]} */
    const small = [];
    for (const el of document.querySelectorAll('header button, header a, header input, main button, main a, main input:not([type="radio"]):not([type="checkbox"])')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || el.closest('.visually-hidden, .skip, [hidden]')) continue;
      if (el instanceof HTMLAnchorElement && (el.parentElement?.textContent || '').trim() !== (el.textContent || '').trim()) continue;
      if (r.width < 43.5 || r.height < 43.5) small.push(`${el.id || el.className || el.tagName} ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return { over, small };
  });
}

test('on a 320 px phone the account panel, a profile and the leaderboard fit, with 44 px targets, in English and Nepali', async () => {
  const p = await newPage(browser, { phone: true, width: 320, height: 640 });
  await home(p.page, 'anonymous');
  await p.page.locator('#account-toggle').click();
  await sendCredentials(p.page, 'sign-up', 'PhoneHerd');
  await waitText(p.page, '#account-toggle', 'PhoneHerd');
  const views = [
    ['home with the account panel', '/', async () => {
      await p.page.locator('#account-toggle').click();
      await p.page.locator('#account-panel').waitFor();
    }],
    ['profile', '/@/PhoneHerd', () => p.page.locator('#profile-name').waitFor()],
    ['leaderboard', '/leaderboard/rapid', () => p.page.locator('.leaderboard-view .hint').first().waitFor()],
  ];
  /** @type {string[]} */
  const faults = [];
  for (const [name, path, ready] of /** @type {[string, string, () => Promise<unknown>][]} */ (views)) {
    await p.page.goto(`${server.url}${path}`);
    await waitText(p.page, '#account-toggle', 'PhoneHerd');
    await ready();
    for (const l of ['en', 'ne']) {
      const { over, small } = await fit(p.page);
      if (over > 0) faults.push(`${name} (${l}): ${over} px past the edge`);
      for (const s of small) faults.push(`${name} (${l}): ${s}`);
      for (const v of await seriousViolations(p.page)) faults.push(`${name} (${l}): ${v.id} ${v.nodes.join(', ')}`);
      await p.page.locator('#lang').click();
    }
  }
  assert.deepEqual(faults, []);
  clean(p);
});
