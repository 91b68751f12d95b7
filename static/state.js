// The table as the page knows it, and the one pure function that moves it
// on: `apply(state, message)` takes a message of the server (or an event of
// the page's own connection) and returns the next state, never touching the
// one it was given. No DOM, no socket, no storage: the views draw from this
// and do the side effects; the unit tests feed it the protocol's golden
// fixtures.

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').Role} Role */
/** @typedef {import('./wire.js').Player} Player */
/** @typedef {import('./wire.js').GameState} GameState */
/** @typedef {import('./wire.js').Presence} Presence */
/** @typedef {import('./wire.js').TableInfo} TableInfo */
/** @typedef {import('./wire.js').ServerMessage} ServerMessage */
/** @typedef {import('./wire.js').ErrorCode} ErrorCode */

/** @typedef {'connecting' | 'online' | 'reconnecting'} ConnState */

/** Why the table cannot be shown: an error no reconnect helps with, no token, or a seat opened elsewhere. */
/** @typedef {'unknown_table' | 'invalid_token' | 'seat_taken' | 'gallery_full' | 'no_seat' | 'replaced'} Fatal */

/** Errors after which reconnecting cannot help: each gets its own page. */
export const FATAL = /** @type {const} */ (['unknown_table', 'invalid_token', 'seat_taken', 'gallery_full']);

/**
 * What the page itself adds to the server's messages.
 * @typedef {{type: 'lost'}
 *   | {type: 'replaced'}
 *   | {type: 'retry'}
 *   | {type: 'sent', id: string, action: string}} LocalEvent
 */

/**
 * @typedef {object} TableState
 * @property {ConnState} conn
 * @property {Fatal | null} fatal
 * @property {number | null} version the last version seen, for `since`
 * @property {Role | null} role
 * @property {Player | null} player
 * @property {TableInfo | null} info
 * @property {GameState | null} game the current game
 * @property {string[]} moves the current game's actions so far
 * @property {Presence | null} presence
 * @property {string | null} pending the id of the action awaiting its answer
 * @property {string | null} pendingAction that action, resent with the same id after a reconnect
 */

/**
 * The state before the first message.
 * @param {boolean} hasToken whether the page has a capability to join with
 * @returns {TableState}
 */
export function initial(hasToken) {
  return {
    conn: 'connecting',
    fatal: hasToken ? null : 'no_seat',
    version: null,
    role: null,
    player: null,
    info: null,
    game: null,
    moves: [],
    presence: null,
    pending: null,
    pendingAction: null,
  };
}

/**
 * The next state.
 * @param {TableState} state
 * @param {ServerMessage | LocalEvent} msg
 * @returns {TableState}
 */
export function apply(state, msg) {
  switch (msg.type) {
    case 'welcome':
      return { ...state, conn: 'online', role: msg.role, player: msg.player ?? null, info: msg.table };
    case 'snapshot':
      return { ...state, version: msg.version, moves: msg.moves, game: msg.state };
    case 'event': {
      // A replayed event the snapshot already holds.
      if (state.version !== null && msg.version <= state.version) return state;
      let moves = state.moves;
      if (msg.event.kind === 'played') moves = [...moves, msg.event.action];
      if (msg.event.kind === 'rematch_started') moves = [];
      return { ...state, version: msg.version, moves, game: msg.state, pending: null, pendingAction: null };
    }
    case 'presence': {
      const { type: _type, ...presence } = msg;
      return { ...state, presence };
    }
    case 'ack':
      return state.pending === msg.id ? { ...state, pending: null, pendingAction: null } : state;
    case 'error': {
      const code = msg.code;
      const fatal = FATAL.find((c) => c === code);
      if (fatal) return { ...state, fatal };
      if (msg.id !== undefined && msg.id === state.pending) return { ...state, pending: null, pendingAction: null };
      return state;
    }
    case 'pong':
      return state;
    case 'lost':
      return state.fatal ? state : { ...state, conn: 'reconnecting' };
    case 'replaced':
      return { ...state, fatal: 'replaced' };
    case 'retry':
      return { ...state, fatal: null };
    case 'sent':
      return { ...state, pending: msg.id, pendingAction: msg.action };
  }
}

/**
 * The viewer's side in the current game, for a player.
 * @param {TableState} state
 * @returns {Side | null}
 */
export function mySide(state) {
  if (state.role !== 'player' || !state.game || !state.player) return null;
  const host = state.game.host_side;
  return state.player === 'host' ? host : host === 'goats' ? 'tigers' : 'goats';
}

/**
 * What the board lets the viewer do now.
 * @param {TableState} state
 * @returns {'play' | 'wait' | 'watch'}
 */
export function mode(state) {
  if (state.role !== 'player') return 'watch';
  const g = state.game;
  if (!g || g.result || state.conn !== 'online' || state.pending) return 'wait';
  return g.side_to_move === mySide(state) ? 'play' : 'wait';
}
