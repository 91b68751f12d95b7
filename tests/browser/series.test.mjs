// A series in Chromium against the real server: the format chosen on the
// home form, the running score on both seats and in the gallery, the next
// game with sides swapped, and the series result, in English and Nepali.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, createTable, waitPlies, playByMouse, link, screenshot, waitText, clean, THREE_GOAT_WIN } from './harness.mjs';

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
 * Plays `actions` in turn, the goats on `goats`, the tigers on `tigers`,
 * each page seeing every ply.
 * @param {import('playwright-core').Page} goats
 * @param {import('playwright-core').Page} tigers
 * @param {string[]} actions
 */
async function playOut(goats, tigers, actions) {
  for (const [ply, action] of actions.entries()) {
    await playByMouse(ply % 2 === 0 ? goats : tigers, action);
    await waitPlies(goats, ply + 1);
    await waitPlies(tigers, ply + 1);
  }
}

test('a series of two is chosen on the home form, scored on every page and decided with sides swapped', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'friend', side: 'goats', spectators: 1, goatsToWin: 3, series: 2 });
  const guest = await newPage(browser);
  await guest.page.goto(await link(host.page, 'opponent'));
  await waitPlies(guest.page);
  const watcher = await newPage(browser);
  await watcher.page.goto(await link(host.page, 'spectator'));
  await waitPlies(watcher.page);

  await waitText(host.page, '#series', 'Series of 2, game 1: you 0, opponent 0');
  await waitText(guest.page, '#series', 'Series of 2, game 1: you 0, opponent 0');
  await waitText(watcher.page, '#series', 'Series of 2, game 1: host 0, guest 0');

  // Game 1: the host's goats are eaten three times; the guest leads.
  await playOut(host.page, guest.page, THREE_GOAT_WIN);
  await waitText(host.page, '#series', 'Series of 2, game 1: you 0, opponent 1');
  await waitText(watcher.page, '#series', 'Series of 2, game 1: host 0, guest 1');
  // The next game starts on one player's word, sides swapped.
  await waitText(host.page, '#rematch', 'Next game of the series (sides swapped)');
  await host.page.locator('#rematch').click();
  await waitText(guest.page, '#series', 'Series of 2, game 2: you 1, opponent 0');
  await waitPlies(host.page, 0);

  // Game 2: now the host holds the tigers and wins the same way.
  await playOut(guest.page, host.page, THREE_GOAT_WIN);
  await waitText(host.page, '#series', 'The series is tied 1 to 1.');
  await waitText(guest.page, '#series', 'The series is tied 1 to 1.');
  await waitText(watcher.page, '#series', 'The series is tied 1 to 1.');
  // After a decided series, a rematch begins a new one.
  await waitText(guest.page, '#rematch', 'New series (sides swapped)');
  await screenshot(host.page, 'series-decided');

  // The same in Nepali, in Nepali digits.
  await watcher.page.locator('#lang').click();
  const nepali = await waitText(watcher.page, '#series', /शृङ्खला/);
  assert.equal(nepali, 'शृङ्खला १–१ ले बराबर भयो।');
  await guest.page.locator('#lang').click();
  await waitText(guest.page, '#rematch', 'नयाँ शृङ्खला (पक्ष साटेर)');

  for (const p of [host, guest, watcher]) {
    clean(p);
    await p.context.close();
  }
});

test('a single game shows no series line and keeps its rematch button', async () => {
  const host = await newPage(browser);
  await createTable(host.page, server.url, { opponent: 'computer', side: 'goats', level: 400 });
  assert.equal(await host.page.locator('#series').isHidden(), true);
  await host.page.locator('#resign').click();
  await host.page.locator('#resign-yes').click();
  await waitText(host.page, '#rematch', 'Rematch (sides swapped)');
  assert.equal(await host.page.locator('#series').isHidden(), true);
  clean(host);
  await host.context.close();
});
