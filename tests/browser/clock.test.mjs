// Unit tests of how the page tells time (static/clock.js) and says the new
// results (static/words.js), in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatClock, formatCountdown, isLow, describeClock, TIME_CONTROLS } from '../../static/clock.js';
import { resultText } from '../../static/words.js';
import { setLang } from '../../static/i18n.js';

test('a clock reads in days and hours, hours, minutes, then tenths under ten seconds', () => {
  setLang('en');
  assert.equal(formatClock(2 * 86400000 + 4 * 3600000 + 59000), '2 d 4 h');
  assert.equal(formatClock(3723000), '1:02:03');
  assert.equal(formatClock(299999), '4:59');
  assert.equal(formatClock(10000), '0:10');
  assert.equal(formatClock(9999), '9.9');
  assert.equal(formatClock(400), '0.4');
  assert.equal(formatClock(-5), '0.0');
  assert.equal(formatCountdown(12500), '0:13');
  assert.equal(formatCountdown(0), '0:00');
  setLang('ne');
  assert.equal(formatClock(299999), '४:५९');
  assert.equal(formatClock(2 * 86400000), '२ दिन ० घण्टा');
  setLang('en');
});

test('a clock is low under twenty seconds, a quarter of a short clock, or an hour of a correspondence pace', () => {
  assert.equal(isLow({ initial: 300, increment: 3 }, 19999), true);
  assert.equal(isLow({ initial: 300, increment: 3 }, 20000), false);
  assert.equal(isLow({ initial: 5, increment: 0 }, 1000), true);
  assert.equal(isLow({ initial: 5, increment: 0 }, 4000), false);
  assert.equal(isLow({ days_per_action: 1 }, 3599999), true);
  assert.equal(isLow({ days_per_action: 1 }, 7200000), false);
  assert.equal(isLow(null, 5000), true);
});

test('the home form offers no clock, four clocks and three correspondence paces, within the contract bounds', () => {
  setLang('en');
  assert.deepEqual(TIME_CONTROLS.map((c) => describeClock(c.clock)), [
    'No clock',
    '3 min + 2 s per action',
    '5 min + 3 s per action',
    '10 min + 5 s per action',
    '15 min + 10 s per action',
    '1 day per action',
    '2 days per action',
    '3 days per action',
  ]);
  for (const { clock } of TIME_CONTROLS) {
    if (!clock) continue;
    if ('days_per_action' in clock) assert.ok(clock.days_per_action >= 1 && clock.days_per_action <= 3);
    else assert.ok(clock.initial >= 5 && clock.initial <= 10800 && clock.increment >= 0 && clock.increment <= 180);
  }
});

test('a timeout, a claim and an abort are said with who lost, or as a draw, or as no result', () => {
  setLang('en');
  const game = { goatsToWin: 5, plyLimit: 400, mine: /** @type {'goats'} */ ('goats') };
  assert.equal(resultText({ winner: 'goats', reason: 'timeout' }, game), 'You won: Goats win, Tigers ran out of time');
  assert.equal(resultText({ winner: null, reason: 'timeout' }, game), 'Draw, time ran out where the other side could not win');
  assert.equal(resultText({ winner: 'tigers', reason: 'abandoned' }, game), 'You lost: Tigers win, Goats left the game');
  assert.equal(resultText({ winner: null, reason: 'abandoned' }, game), 'Draw, a player left and the other called it a draw');
  assert.equal(resultText({ winner: null, reason: 'aborted' }, game), 'Aborted: no result, not counted');
  setLang('ne');
  assert.equal(resultText({ winner: 'goats', reason: 'timeout' }, { ...game, mine: null }), 'बाख्रा जिते, बाघ को समय सकियो');
  setLang('en');
});
