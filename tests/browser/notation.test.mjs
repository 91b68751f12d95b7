// Pasting games on the analysis board in Chromium against the real server:
// an OBX game in the syntax of the README as it stands, read without
// naming its notation; the README's impossible example refused next to the
// paste box with its line, ply and reason; an impossible start refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, newPage, plies, seriousViolations, waitText, clean } from './harness.mjs';

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

/** The goats place on c3, a tiger steps a1-b2, the goats place on a1, the tiger jumps b2xd4: OBX as the current README writes it. */
const OBX_GAME = [
  'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #',
  'TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 #g1',
  'TXXXT/XXXXX/XXGXX/XTXXX/XXXXT g c0 mA5B4 #t1',
  'TXXXT/XXXXX/XXGXX/XTXXX/GXXXT t c0 mA5 #g2',
  'TXXXT/XXXTX/XXXXX/XXXXX/GXXXT g c1 mB4D2(C3) #t2',
].join('\n');

/** The README's "Example Sequence of Moves", each position once: its third line moves a tiger onto the goat on B2. */
const README_SEQUENCE = [
  'TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #',
  'TXXXT/XGXXX/XXXXX/XXXXX/TXXXT t c0 mB2 #g1',
  'TXTXT/TXXXX/XXXXX/XXXXX/TXXXT g c0 mA1B2 #t1',
  'TXTXT/TGXXX/XXXXX/XXXXX/TXXXT t c0 mC2 #g2',
].join('\n');

test('an OBX game in the current syntax is pasted without naming its notation and the board says it read OBX', async () => {
  const p = await newPage(browser);
  const { page } = p;
  await page.goto(`${server.url}/analysis`);
  await page.locator('.value-list li').first().waitFor();
  // The paste box tells the notation from the text unless told otherwise.
  assert.equal(await page.locator('#paste-format').inputValue(), 'detect');
  await page.locator('#pasted-game').fill(OBX_GAME);
  await page.locator('#load-game').click();
  await page.waitForFunction(() => document.querySelectorAll('.moves .ply').length === 4);
  assert.deepEqual(await plies(page), ['c3', 'a1-b2', 'a1', 'b2xd4']);
  assert.equal(await waitText(page, '#paste-status', /^Read as/), 'Read as OBX 2.0 (baghchal.net).');
  assert.equal(await page.locator('#paste-status.error').count(), 0);
  assert.equal(await page.locator('#current-position').inputValue(), 'T...T/...T./...../...../G...T g 18 1 4');
  assert.match(await page.locator('#counter-eaten').innerText(), /^1\/5$/);
  assert.deepEqual(await seriousViolations(page), []);
  // Stepping back along the pasted line keeps what the paste box said.
  await page.getByRole('button', { name: 'Ply 2: a1-b2' }).click();
  await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('current-position')).value.endsWith(' 2'));
  assert.equal(await page.locator('#paste-status').textContent(), 'Read as OBX 2.0 (baghchal.net).');
  // In Nepali the paste box says it in Nepali.
  await page.locator('#lang').click();
  assert.equal(await waitText(page, '#paste-status', /पढियो/), 'OBX 2.0 (baghchal.net) का रूपमा पढियो।');
  await page.locator('#lang').click();
  // The start set up again: the paste box has nothing to say.
  await page.locator('#analysis-start').click();
  await waitText(page, '#paste-status', '');
  clean(p);
  await p.context.close();
});

test('the README’s impossible example is refused next to the paste box with its line, ply and reason', async () => {
  const p = await newPage(browser);
  const { page } = p;
  await page.goto(`${server.url}/analysis`);
  await page.locator('.value-list li').first().waitFor();
  await page.locator('#pasted-game').fill(README_SEQUENCE);
  await page.locator('#load-game').click();
  await page.locator('#paste-status.error').waitFor();
  assert.equal(await page.locator('#paste-status').textContent(), 'Not read as OBX 2.0 (baghchal.net): line 3, ply 2: mA1B2: that point is occupied');
  // The board stays where it was: the start, nothing played.
  assert.equal(await page.locator('.moves .ply').count(), 0);
  assert.equal(await page.locator('.analysis-status.error').count(), 0);
  // A text in no notation is refused there too.
  await page.locator('#pasted-game').fill('c3 a1-b2');
  await page.locator('#load-game').click();
  await waitText(page, '#paste-status', /^Not read: line 1: c3 starts no game of a notation read here/);
  // A game read once says so again in place of the refusal.
  await page.locator('#pasted-game').fill(OBX_GAME);
  await page.locator('#load-game').click();
  await waitText(page, '#paste-status', 'Read as OBX 2.0 (baghchal.net).');
  assert.equal(await page.locator('#paste-status.error').count(), 0);
  assert.deepEqual(await seriousViolations(page), []);
  clean(p, /422/);
  await p.context.close();
});

test('a start whose ply contradicts its side to move is refused with the reason', async () => {
  const p = await newPage(browser);
  const { page } = p;
  await page.goto(`${server.url}/analysis`);
  await page.locator('.value-list li').first().waitFor();
  await page.locator('#position-text').fill('T...T/...../..G../...../T...T g 19 0 1');
  await page.locator('#load-position').click();
  await page.locator('.analysis-status.error').waitFor();
  assert.match(await page.locator('.analysis-status').innerText(), /at ply 1 it is the tigers' turn, not the goats'/);
  assert.match(await page.locator('.analysis-status').innerText(), /the goats move first, at the even plies/);
  clean(p, /422/);
  await p.context.close();
});
