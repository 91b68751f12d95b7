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
/** @typedef {import('./wire.js').BoardNumber} BoardNumber */

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
 *   | {type: 'sent', id: string, action: string, board?: BoardNumber}} LocalEvent
 */

/**
 * One board of a two-board table: its game, its actions so far, and
 * whether it waits for the state after an action sent on it.
 * @typedef {object} BoardState
 * @property {GameState} game
 * @property {string[]} moves
 * @property {boolean} locked
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
 * @property {BoardNumber | null} pendingBoard the board that action was sent on, at a two-board table
 * @property {Record<BoardNumber, BoardState> | null} boards both boards, at a two-board
 *   table (`game` and `moves` are then board 1's again); `null` elsewhere
 * @property {import('./wire.js').MatchState | null} match at a two-board table, the match
 *   as of the latest state (each state counts both boards at its moment)
 * @property {boolean} locked an action was sent and no state has come since: the
 *   board waits for the next state (an acknowledgement alone does not free it)
 * @property {number} clockSkew the server's clock minus the page's, in ms, when
 *   the last state with a clock came (its `now` against the page's time then)
 * @property {number} absentSkew the same for the last presence naming an absent side
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
    pendingBoard: null,
    boards: null,
    match: null,
    locked: false,
    clockSkew: 0,
    absentSkew: 0,
  };
}

/**
 * The server's clock minus the page's, from a time the server sent and the
 * page's time when it came; the old value if the time does not parse.
 * @param {string} now
 * @param {number} at
 * @param {number} old
 */
function skew(now, at, old) {
  const server = Date.parse(now);
  return Number.isFinite(server) ? server - at : old;
}

/**
 * The next state.
 * @param {TableState} state
 * @param {ServerMessage | LocalEvent} msg
 * @param {number} [at] the page's time when the message came (ms since the
 *   epoch), against which the server's times in it are read
 * @returns {TableState}
 */
export function apply(state, msg, at = 0) {
  switch (msg.type) {
    case 'welcome':
      return { ...state, conn: 'online', role: msg.role, player: msg.player ?? null, info: msg.table };
    case 'snapshot': {
      const clockSkew = msg.state.clock ? skew(msg.state.clock.now, at, state.clockSkew) : state.clockSkew;
      const next = { ...state, version: msg.version, moves: msg.moves, game: msg.state, locked: false, clockSkew };
      const [one, two] = msg.boards ?? [];
      if (one && two) {
        next.boards = { 1: { game: one.state, moves: one.moves, locked: false }, 2: { game: two.state, moves: two.moves, locked: false } };
        next.match = two.state.match ?? one.state.match ?? null;
      }
      return next;
    }
    case 'event': {
      // A replayed event the snapshot already holds.
      if (state.version !== null && msg.version <= state.version) return state;
      if (state.boards) return onBoard(state, msg, at);
      let moves = state.moves;
      if (msg.event.kind === 'played') moves = [...moves, msg.event.action];
      if (msg.event.kind === 'rematch_started') moves = [];
      const clockSkew = msg.state.clock ? skew(msg.state.clock.now, at, state.clockSkew) : state.clockSkew;
      return { ...state, version: msg.version, moves, game: msg.state, pending: null, pendingAction: null, locked: false, clockSkew };
    }
    case 'presence': {
      const { type: _type, ...presence } = msg;
      const absentSkew = presence.absent ? skew(presence.absent.now, at, state.absentSkew) : state.absentSkew;
      return { ...state, presence, absentSkew };
    }
    case 'ack':
      // Stored, and not to be sent again; but the board stays locked until
      // the state that follows it.
      return state.pending === msg.id ? { ...state, pending: null, pendingAction: null, pendingBoard: null } : state;
    case 'error': {
      const code = msg.code;
      const fatal = FATAL.find((c) => c === code);
      if (fatal) return { ...state, fatal };
      if (msg.id !== undefined && msg.id === state.pending) {
        const next = { ...state, pending: null, pendingAction: null, pendingBoard: null, locked: false };
        const board = state.pendingBoard;
        if (state.boards && board) next.boards = { ...state.boards, [board]: { ...state.boards[board], locked: false } };
        return next;
      }
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
    case 'sent': {
      const board = msg.board ?? null;
      const next = { ...state, pending: msg.id, pendingAction: msg.action, pendingBoard: board, locked: true };
      if (state.boards && board) next.boards = { ...state.boards, [board]: { ...state.boards[board], locked: true } };
      return next;
    }
  }
}

/**
 * An event of a two-board table: it moves on the board it names (board 1
 * if none), and `game` and `moves` follow board 1. An action pending on
 * the other board stays pending, and that board stays locked.
 * @param {TableState} state with `boards`
 * @param {Extract<ServerMessage, {type: 'event'}>} msg
 * @param {number} at
 * @returns {TableState}
 */
function onBoard(state, msg, at) {
  const boards = /** @type {Record<BoardNumber, BoardState>} */ (state.boards);
  const n = msg.board ?? 1;
  const was = boards[n];
  let moves = was.moves;
  if (msg.event.kind === 'played') moves = [...moves, msg.event.action];
  if (msg.event.kind === 'rematch_started') moves = [];
  const board = { game: msg.state, moves, locked: false };
  const clockSkew = msg.state.clock ? skew(msg.state.clock.now, at, state.clockSkew) : state.clockSkew;
  const next = { ...state, version: msg.version, boards: { ...boards, [n]: board }, match: msg.state.match ?? state.match, clockSkew };
  if (n === 1) {
    next.game = msg.state;
    next.moves = moves;
  }
  if (state.pendingBoard === n || state.pendingBoard === null) {
    next.pending = null;
    next.pendingAction = null;
    next.pendingBoard = null;
  }
  next.locked = next.boards[1].locked || next.boards[2].locked;
  return next;
}

/**
 * The table as seen from one board: `game`, `moves`, the pending action
 * and the lock are that board's; at a table of one board, the table itself.
 * Every function below reads a board this way.
 * @param {TableState} state
 * @param {BoardNumber} n
 * @returns {TableState}
 */
export function onlyBoard(state, n) {
  const b = state.boards?.[n];
  if (!b) return state;
  const mine = state.pendingBoard === n;
  return { ...state, game: b.game, moves: b.moves, locked: b.locked, pending: mine ? state.pending : null, pendingAction: mine ? state.pendingAction : null };
}

/**
 * Where a two-board match stands, as of the latest state, or `null` at
 * another table. The latest state is the one to trust: the other board's
 * last state may be older than the last board to end (or to begin again).
 * @param {TableState} state
 * @returns {import('./wire.js').MatchState | null}
 */
export function matchOf(state) {
  return state.match;
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
 * Whether the host of a friend table is still alone at it: the first game
 * not begun and the friend's seat empty. Nothing is played, resigned or
 * offered then; the host may only cancel the table.
 * @param {TableState} state
 */
export function waitingForFriend(state) {
  const g = state.game;
  const p = state.presence;
  if (!g || !p || !mySide(state) || g.result || state.info?.opponent !== 'friend' || state.player !== 'host') return false;
  // The first game, or at a two-board table the first match (board 2's game has another number).
  const first = g.match ? g.match.number === 1 : g.game === 1;
  // The friend's seat, found by its player: presence names seats by board 1's sides.
  const theirs = [p.goats, p.tigers].find((v) => v.player !== state.player);
  return first && g.ply === 0 && Boolean(theirs) && !theirs?.connected;
}

/**
 * What the board lets the viewer do now.
 * @param {TableState} state
 * @returns {'play' | 'wait' | 'watch'}
 */
export function mode(state) {
  if (state.role !== 'player') return 'watch';
  const g = state.game;
  if (!g || g.result || state.conn !== 'online' || state.pending || state.locked || waitingForFriend(state)) return 'wait';
  return g.side_to_move === mySide(state) ? 'play' : 'wait';
}

/**
 * Milliseconds left on a side's clock at the page's time `now`: the time
 * the state gave it, less what has run since its turn started (read on the
 * server's clock); `null` without a clock.
 * @param {TableState} state
 * @param {Side} side
 * @param {number} now the page's time, ms since the epoch
 * @returns {number | null}
 */
export function timeLeft(state, side, now) {
  const clock = state.game?.clock;
  if (!clock) return null;
  const base = side === 'goats' ? clock.goats_ms : clock.tigers_ms;
  if (clock.running !== side || !clock.turn_started_at || state.game?.result) return Math.max(0, base);
  const started = Date.parse(clock.turn_started_at);
  if (!Number.isFinite(started)) return Math.max(0, base);
  return Math.max(0, base - (now + state.clockSkew - started));
}

/**
 * The absent side while a game is in progress, with the milliseconds until
 * the present player may claim (0 once they may), at the page's time `now`.
 * @param {TableState} state
 * @param {number} now
 * @returns {{side: Side, claimableIn: number} | null}
 */
export function absence(state, now) {
  const a = state.presence?.absent;
  const g = state.game;
  if (!a || !g || g.result) return null;
  const at = Date.parse(a.claimable_at);
  const claimableIn = Number.isFinite(at) ? Math.max(0, at - (now + state.absentSkew)) : 0;
  return { side: a.side, claimableIn };
}

/**
 * Whether the viewer may claim now: a player of the game in progress whose
 * opponent is absent past the grace period.
 * @param {TableState} state
 * @param {number} now
 */
export function mayClaim(state, now) {
  const a = absence(state, now);
  const mine = mySide(state);
  return Boolean(a && mine && a.side !== mine && a.claimableIn === 0);
}
