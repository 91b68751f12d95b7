// What this browser keeps between visits, in localStorage: the seat held at
// each table, the language, the spectator's hints switch, and "my games".
// Every access survives a browser that refuses storage (private mode).

/** @typedef {import('./wire.js').Player} Player */

/**
 * What this browser keeps of a seat, per table.
 * @typedef {object} StoredSeat
 * @property {string} secret
 * @property {Player} [player] which seat the secret holds
 * @property {string | null} [opponent_link]
 * @property {string | null} [spectator_link]
 */

const SEAT_PREFIX = 'baghchal.seat.';
const LANG_KEY = 'baghchal.lang';
const HINTS_KEY = 'baghchal.hints';

/**
 * @param {string} key
 * @returns {string | null}
 */
export function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * @param {string} key
 * @param {string | null} value `null` removes the key
 */
export function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Not kept: private mode or a full store.
  }
}

/**
 * @param {string} table
 * @returns {StoredSeat | null}
 */
export function loadSeat(table) {
  try {
    const raw = read(SEAT_PREFIX + table);
    const seat = raw ? JSON.parse(raw) : null;
    return seat && typeof seat.secret === 'string' ? seat : null;
  } catch {
    return null;
  }
}

/**
 * @param {string} table
 * @param {StoredSeat} seat
 */
export function saveSeat(table, seat) {
  write(SEAT_PREFIX + table, JSON.stringify(seat));
}

/** @param {string} table */
export function forgetSeat(table) {
  write(SEAT_PREFIX + table, null);
}

/** The tables this browser holds a seat at. */
export function storedTables() {
  /** @type {string[]} */
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k && k.startsWith(SEAT_PREFIX)) out.push(k.slice(SEAT_PREFIX.length));
    }
  } catch {
    // No storage.
  }
  return out.sort();
}

/** @returns {import('./i18n.js').Lang | null} */
export function savedLang() {
  const saved = read(LANG_KEY);
  return saved === 'ne' || saved === 'en' ? saved : null;
}

/** @param {import('./i18n.js').Lang} l */
export function saveLang(l) {
  write(LANG_KEY, l);
}

/** Whether a spectator sees the legal destinations (on unless turned off). */
export function hintsOn() {
  return read(HINTS_KEY) !== 'off';
}

/** @param {boolean} on */
export function saveHints(on) {
  write(HINTS_KEY, on ? 'on' : 'off');
}
