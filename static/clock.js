// How the page tells time: a clock's reading, when it counts as low, the
// time controls offered on the home form, and a time control in words.
// No DOM, no timers: the table view asks these as its clocks tick.

import { t, num } from './i18n.js';

/** @typedef {import('./wire.js').ClockOption} ClockOption */

/**
 * The time controls the home form offers: none, four clocks (minutes +
 * seconds per action) and three correspondence paces.
 * @type {{value: string, clock: ClockOption | null}[]}
 */
export const TIME_CONTROLS = [
  { value: 'none', clock: null },
  { value: '3+2', clock: { initial: 180, increment: 2 } },
  { value: '5+3', clock: { initial: 300, increment: 3 } },
  { value: '10+5', clock: { initial: 600, increment: 5 } },
  { value: '15+10', clock: { initial: 900, increment: 10 } },
  { value: '1d', clock: { days_per_action: 1 } },
  { value: '2d', clock: { days_per_action: 2 } },
  { value: '3d', clock: { days_per_action: 3 } },
];

/**
 * A time control in words: "5 + 3", "2 days per action", "no clock".
 * @param {ClockOption | null | undefined} c
 */
export function describeClock(c) {
  if (!c) return t('clockNone');
  if ('days_per_action' in c) return c.days_per_action === 1 ? t('clockOneDay') : t('clockDays', { n: c.days_per_action });
  const minutes = c.initial / 60;
  const initial = Number.isInteger(minutes) ? num(minutes) : t('clockSeconds', { n: c.initial });
  return t('clockMinutesPlus', { initial, increment: c.increment });
}

/**
 * A clock's reading: "2 d 4 h" beyond a day, "1:02:03" beyond an hour,
 * "4:59" beyond ten seconds, "9.4" under that; in the language's digits.
 * @param {number} ms
 */
export function formatClock(ms) {
  const left = Math.max(0, ms);
  if (left >= 86400000) {
    const hours = Math.floor(left / 3600000);
    return t('clockDaysHours', { d: Math.floor(hours / 24), h: hours % 24 });
  }
  if (left < 10000) {
    const tenths = Math.floor(left / 100);
    return num(`${Math.floor(tenths / 10)}.${tenths % 10}`);
  }
  const total = Math.floor(left / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return num(h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`);
}

/**
 * Whether a clock is low: under 20 seconds (or a quarter of a shorter
 * initial time) on a clock, under an hour on a correspondence pace.
 * @param {ClockOption | null | undefined} c the table's time control, if known
 * @param {number} ms
 */
export function isLow(c, ms) {
  if (c && 'days_per_action' in c) return ms < 3600000;
  const initial = c && 'initial' in c ? c.initial * 1000 : Infinity;
  return ms < Math.min(20000, initial / 4);
}

/**
 * A countdown in whole seconds, rounded up: "0:15", "0:01", then "0:00".
 * @param {number} ms
 */
export function formatCountdown(ms) {
  const total = Math.ceil(Math.max(0, ms) / 1000);
  return num(`${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`);
}
