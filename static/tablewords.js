// What the table view says in words, for one board and for two: a board's
// turn line and counters, the score of a series or a match, and what the
// live region says of an event, a presence or a join. Pure: state in,
// strings out, in the page's language; the views draw and announce them.
// A board is named (`board` is its number) only at a two-board table;
// `null` is the only board of a table of one.

import { describeAction, resultText } from './words.js';
import { t, num, sentences } from './i18n.js';
import { sideName } from './dom.js';
import { mySide, mode, absence, onlyBoard, waitingForFriend } from './state.js';

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').Player} Player */
/** @typedef {import('./wire.js').GameState} GameState */
/** @typedef {import('./wire.js').TableEvent} TableEvent */
/** @typedef {import('./wire.js').BoardNumber} BoardNumber */
/** @typedef {import('./wire.js').ServerMessage} ServerMessage */
/** @typedef {import('./state.js').TableState} TableState */
/** @typedef {import('./sound.js').SoundKind} SoundKind */

/**
 * A score: the wins and half the draws, as "2½" (in the page's digits).
 * @param {number} wins
 * @param {number} draws
 */
export function points(wins, draws) {
  const whole = wins + Math.floor(draws / 2);
  const half = draws % 2 === 1;
  if (half && whole === 0) return '½';
  return `${num(whole)}${half ? '½' : ''}`;
}

/**
 * A series as its viewer reads it: the score so far, or the result once it
 * is decided, from the seat's point of view (a spectator's names the host
 * and the guest).
 * @param {import('./wire.js').SeriesState} series
 * @param {Player | null} player
 */
export function seriesText(series, player) {
  const host = points(series.host_wins, series.draws);
  const guest = points(series.guest_wins, series.draws);
  if (player) {
    const mine = player === 'host' ? host : guest;
    const theirs = player === 'host' ? guest : host;
    if (!series.result) return t('seriesLine', { games: series.games, n: series.game, mine, theirs });
    const winner = series.result.winner;
    return t(winner === null ? 'seriesTied' : winner === player ? 'seriesWon' : 'seriesLost', { mine, theirs });
  }
  if (!series.result) return t('seriesLineNeutral', { games: series.games, n: series.game, host, guest });
  const winner = series.result.winner;
  return t(winner === null ? 'seriesTiedNeutral' : winner === 'host' ? 'seriesWonByHost' : 'seriesWonByGuest', { host, guest });
}

/**
 * A match of two boards as its viewer reads it: the score so far, or the
 * result once both boards are over.
 * @param {import('./wire.js').MatchState} match
 * @param {Player | null} player
 */
export function matchText(match, player) {
  const host = points(match.host_wins, match.draws);
  const guest = points(match.guest_wins, match.draws);
  const n = match.number;
  const winner = match.result?.winner;
  if (player) {
    const mine = player === 'host' ? host : guest;
    const theirs = player === 'host' ? guest : host;
    if (!match.result) return t('matchLine', { n, mine, theirs });
    return t(winner === null ? 'matchTied' : winner === player ? 'matchWon' : 'matchLost', { n, mine, theirs });
  }
  if (!match.result) return t('matchLineNeutral', { n, host, guest });
  return t(winner === null ? 'matchTiedNeutral' : winner === 'host' ? 'matchWonByHost' : 'matchWonByGuest', { n, host, guest });
}

/**
 * The games won by each seat and drawn, from the seat's point of view;
 * at a table of one board, after the game's number.
 * @param {TableState} s
 * @param {boolean} two whether the table has two boards
 */
export function tallyText(s, two) {
  const g = s.game;
  if (!g) return '';
  const tally = g.tally;
  let text;
  if (s.player) {
    const mine = s.player === 'host' ? tally.host : tally.guest;
    const theirs = s.player === 'host' ? tally.guest : tally.host;
    text = t('tally', { mine, theirs, draws: tally.draws });
  } else text = t('tallyNeutral', { host: tally.host, guest: tally.guest, draws: tally.draws });
  return two ? text : `${t('game', { n: g.game })} · ${text}`;
}

/**
 * A board's line above it: the result, or whose turn it is and the phase.
 * @param {TableState} s the table as seen from the board (`onlyBoard`)
 * @param {BoardNumber | null} board
 */
export function turnText(s, board) {
  const g = s.game;
  if (!g) return '';
  const mine = mySide(s);
  const phase = g.phase === 'placement' ? t('phasePlacement') : t('phaseMovement');
  if (g.result) return resultText(g.result, { goatsToWin: g.goats_to_win, plyLimit: g.ply_limit, mine });
  if (waitingForFriend(s)) return t('waitingForOpponent');
  if (mine && g.side_to_move === mine) {
    const yours = board === null ? t('yourTurn', { side: sideName(mine) }) : t('yourTurnOnBoard', { n: board, side: sideName(mine) });
    return `${yours} · ${phase}`;
  }
  if (mine) return `${t('opponentTurn', { side: sideName(g.side_to_move) })} · ${phase}`;
  return `${t('turnOf', { side: sideName(g.side_to_move) })} · ${phase}`;
}

/**
 * A board's counters, as `[id, label, value]`: the phase (at a table of
 * one board, where no pane title says it), goats in hand, eaten and
 * trapped, and the plies.
 * @param {GameState} g
 * @param {BoardNumber | null} board
 * @returns {[string, string, string][]}
 */
export function counterRows(g, board) {
  /** @type {[string, string, string][]} */
  const rows = [
    ['in-hand', t('inHand'), num(g.in_hand)],
    ['eaten', t('eaten'), `${num(g.eaten)}/${num(g.goats_to_win)}`],
    ['trapped', t('trapped'), `${num(g.trapped_tigers)}/${num(g.tigers)}`],
    ['ply', t('ply'), `${num(g.ply)}/${num(g.ply_limit)}`],
  ];
  if (board === null) rows.unshift(['phase', t('phase'), g.phase === 'placement' ? t('phasePlacement') : t('phaseMovement')]);
  return rows;
}

/**
 * The page's title: a dot and "Your turn" while the viewer has a move to
 * make on some board (the first such board named at a two-board table).
 * @param {BoardNumber[]} playing the boards where it is the viewer's turn
 * @param {boolean} two whether the table has two boards
 */
export function pageTitle(playing, two) {
  const first = playing[0];
  if (first === undefined) return t('title');
  return `● ${two ? t('announceYourTurnOnBoard', { n: first }) : t('announceYourTurn')} ${t('title')}`;
}

/**
 * The sentence for an event of one game (an action, a resignation, a
 * draw offer and its answers, a flag, a claim, an abort, an abandonment), the same at any
 * table; `null` for the events of the table (rematches) and for an agreed
 * draw, which the result says.
 * @param {TableEvent} event
 * @returns {string | null}
 */
export function gameEventText(event) {
  switch (event.kind) {
    case 'played':
      return describeAction(event.side, event.action);
    case 'resigned':
      return t('announceResigned', { side: sideName(event.side) });
    case 'draw_offered':
      return t('announceDrawOffered', { side: sideName(event.side) });
    case 'draw_declined':
      return t('announceDrawDeclined', { side: sideName(event.side) });
    case 'draw_withdrawn':
      return t('announceDrawWithdrawn', { side: sideName(event.side) });
    case 'flagged':
      return t('announceFlagged', { side: sideName(event.side) });
    case 'claimed':
      return t(event.result === 'win' ? 'announceClaimedWin' : 'announceClaimedDraw', { side: sideName(event.side) });
    case 'aborted':
      return t('announceAborted', { side: sideName(event.side) });
    case 'abandoned':
      return t('announceAbandoned', { side: sideName(event.side) });
    default:
      return null;
  }
}

/**
 * What an event means for its board, read from the table before and
 * after it.
 * @typedef {object} EventMoment
 * @property {BoardNumber} n the event's board (1 at a table of one board)
 * @property {boolean} hadResult the board's game was already over
 * @property {boolean} placed the event placed the last goat
 * @property {Side | null} mine the viewer's side on the board
 * @property {boolean} playing whether it is now the viewer's turn on the board
 */

/**
 * @param {TableState} before
 * @param {TableState} after
 * @param {Extract<ServerMessage, {type: 'event'}>} msg
 * @returns {EventMoment}
 */
export function eventMoment(before, after, msg) {
  const n = msg.board ?? 1;
  const was = onlyBoard(before, n).game;
  const now = onlyBoard(after, n);
  const st = msg.state;
  const same = Boolean(was && was.game === st.game);
  return {
    n,
    hadResult: same && Boolean(was?.result),
    placed: same && was?.phase === 'placement' && st.phase === 'movement',
    mine: mySide(now),
    playing: mode(now) === 'play',
  };
}

/**
 * What the live region says of an event: at a table of one board, one
 * message; at a two-board table, the board's message naming it, and the
 * match's own (its rematch, its result) said once.
 * @param {Extract<ServerMessage, {type: 'event'}>} msg
 * @param {EventMoment} m
 * @param {Player | null} player the viewer's seat
 * @param {boolean} two whether the table has two boards
 * @returns {string[]}
 */
export function eventSaid(msg, m, player, two) {
  const { event, state: st } = msg;
  const { n, mine } = m;
  /** @type {string[]} the match's messages, said before the board's */
  const match = [];
  /** @type {string[]} */
  const parts = [];
  const said = gameEventText(event);
  if (said) parts.push(said);
  // At a two-board table the rematch is stored on both boards: said once, for board 1.
  const once = !two || n === 1;
  switch (event.kind) {
    case 'rematch_offered':
      if (!two) parts.push(t('announceRematchOffered', { side: sideName(event.side) }));
      // Only to the one asked.
      else if (once && mine !== event.side) match.push(mine ? t('announceNewMatchOffered') : t('newMatchPending'));
      break;
    case 'rematch_declined':
      if (once) (two ? match : parts).push(t('announceRematchDeclined', { side: sideName(event.side) }));
      break;
    case 'rematch_withdrawn':
      if (once) (two ? match : parts).push(t('announceRematchWithdrawn', { side: sideName(event.side) }));
      break;
    case 'rematch_started':
      if (two) {
        if (once) match.push(t('announceNewMatchStarted', { n: st.match?.number ?? st.game }));
      } else parts.push(mine ? t('announceRematchStarted', { n: event.game, side: sideName(mine) }) : t('announceRematchStartedNeutral', { n: event.game }));
      break;
  }
  if (m.placed) parts.push(t('announceAllPlaced'));
  const ended = Boolean(st.result) && !m.hadResult;
  if (ended) {
    parts.push(resultText(st.result, { goatsToWin: st.goats_to_win, plyLimit: st.ply_limit, mine }));
    // The game that decides a series says so.
    if (!two && st.series?.result) parts.push(seriesText(st.series, player));
  } else if (!st.result && m.playing && (event.kind === 'played' || event.kind === 'rematch_started')) {
    parts.push(two ? t('announceYourTurnOnBoard', { n }) : t('announceYourTurn'));
  }
  if (!two) return [sentences(parts)];
  const out = [...match];
  if (parts.length) out.push(t('announceOnBoard', { n, text: sentences(parts) }));
  if (ended && st.match?.result) out.push(matchText(st.match, player));
  return out;
}

/**
 * What an event sounds like: the action (a capture apart), then the end
 * of the game or the viewer's turn.
 * @param {TableEvent} event
 * @param {GameState} st the board's state after it
 * @param {EventMoment} m
 * @returns {SoundKind[]}
 */
export function eventSounds(event, st, m) {
  /** @type {SoundKind[]} */
  const out = [];
  if (event.kind === 'played') out.push(event.action.includes('x') ? 'capture' : 'move');
  if (st.result && !m.hadResult) out.push('end');
  else if (!st.result && m.playing && (event.kind === 'played' || event.kind === 'rematch_started')) out.push('turn');
  return out;
}

/**
 * What is said on joining a table: on each board, its result or that it
 * is the viewer's turn there.
 * @param {TableState} s
 * @param {readonly BoardNumber[]} boards the table's boards
 */
export function joinSaid(s, boards) {
  const two = boards.length > 1;
  /** @type {string[]} */
  const parts = [];
  for (const n of boards) {
    const b = onlyBoard(s, n);
    const g = b.game;
    if (g?.result) {
      const text = resultText(g.result, { goatsToWin: g.goats_to_win, plyLimit: g.ply_limit, mine: mySide(b) });
      parts.push(two ? t('announceOnBoard', { n, text }) : text);
    } else if (mode(b) === 'play') parts.push(two ? t('announceYourTurnOnBoard', { n }) : t('announceYourTurn'));
  }
  return two ? sentences(parts) : parts.join(' ');
}

/**
 * What a presence means to a player: the opponent gone (on the board the
 * absence names), or back; `null` when nothing changed for them.
 * @param {TableState} before
 * @param {TableState} after
 * @param {number} now the page's time
 * @returns {string | null}
 */
export function presenceSaid(before, after, now) {
  /** @param {TableState} st */
  const seen = (st) => onlyBoard(st, st.presence?.absent?.board ?? 1);
  const wasBoard = seen(before);
  const isBoard = seen(after);
  const was = absence(wasBoard, now);
  const is = absence(isBoard, now);
  const mineNow = mySide(isBoard);
  const mineBefore = mySide(wasBoard);
  if (mineNow && is && is.side !== mineNow && !was) return t('announceAbsent');
  if (mineBefore && was && was.side !== mineBefore && !is) return t('announceReturned');
  return null;
}
