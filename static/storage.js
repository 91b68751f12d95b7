// What this browser keeps between visits, in localStorage: the seat held at
// each table, the language, the spectator's hints switch, the sound switch
// and "my games".
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
const SOUND_KEY = 'baghchal.sound';

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

/** Whether the page plays its sounds (on unless turned off). */
export function soundOn() {
  return read(SOUND_KEY) !== 'off';
}

/** @param {boolean} on */
export function saveSound(on) {
  write(SOUND_KEY, on ? 'on' : 'off');
}

const GAMES_KEY = 'baghchal.games';
/** The most games "my games" keeps; the oldest go first. */
const MAX_GAMES = 200;

/**
 * A game this browser took part in or watched, for "my games".
 * @typedef {object} MyGame
 * @property {string} table
 * @property {number} game
 * @property {import('./wire.js').Role} role
 * @property {import('./wire.js').Side | null} side the viewer's side, for a player
 * @property {import('./wire.js').Opponent} opponent
 * @property {number | null} level the computer's level
 * @property {import('./wire.js').GameResult | null} result
 * @property {number} goats_to_win
 * @property {number} ply_limit
 * @property {string} date when this browser first saw the game (ISO 8601)
 */

/** @returns {MyGame[]} newest first */
export function myGames() {
  try {
    const list = JSON.parse(read(GAMES_KEY) || '[]');
    return Array.isArray(list) ? list.filter((g) => g && typeof g.table === 'string' && typeof g.game === 'number') : [];
  } catch {
    return [];
  }
}

/**
 * Adds a game to "my games", or brings its entry up to date (its first
 * date stays).
 * @param {Omit<MyGame, 'date'>} game
 */
export function rememberGame(game) {
  const list = myGames();
  const old = list.find((g) => g.table === game.table && g.game === game.game);
  const entry = { ...game, date: old?.date || new Date().toISOString() };
  if (old && JSON.stringify(old) === JSON.stringify(entry)) return;
  const rest = list.filter((g) => g !== old);
  write(GAMES_KEY, JSON.stringify([entry, ...rest].slice(0, MAX_GAMES)));
}

/** Empties "my games". */
export function forgetGames() {
  write(GAMES_KEY, null);
}

const PUZZLE_KEY = 'baghchal.puzzles';

/**
 * What this browser keeps of its puzzles: the streak of puzzles solved in
 * a row (the puzzle rating is the player's, kept by the server).
 * @typedef {object} PuzzleRecord
 * @property {number} streak
 */

/** @returns {PuzzleRecord} */
export function puzzleRecord() {
  try {
    const v = JSON.parse(read(PUZZLE_KEY) || 'null');
    if (v && Number.isFinite(v.streak)) return { streak: v.streak };
  } catch {
    // A record that does not read starts again.
  }
  return { streak: 0 };
}

/** @param {PuzzleRecord} record */
export function savePuzzleRecord(record) {
  write(PUZZLE_KEY, JSON.stringify(record));
}
