// What a review of a finished game says, from the server's analysis
// (`GET /api/tables/{table}/games/{game}/analysis`), in pure functions:
// the mark each action earns, the curve of the graph, each side's summary
// and the action where the game turned. No DOM: reviewview.js draws these.
//
// Every value names its kind (docs/protocol.md, "Values and their kinds"):
// `over`, `solved` (the tablebase, for the board), `proved` (under the
// house rules) or `estimate` (the goats' winning chance). On the graph a
// value is the goats' share of the game: a goats' win 100 %, a draw 50 %,
// a tigers' win 0 %, an estimate its chance.
//
// Marks go by the action's `lost`: the percentage points of the mover's
// share of the game the action gave away (a win 100, a draw 50, a loss 0,
// an estimate its chance), as lichess marks by winning chances:
//   inaccuracy   5 <= lost < 10   (about a goat's worth in the placement)
//   mistake     10 <= lost < 15
//   blunder           lost >= 15  (and every action that turns a solved
//                                  or proved result: 50 points or more)
// Under 5 points is within the search's noise and earns no mark.

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').Evaluation} Evaluation */
/** @typedef {import('./wire.js').Outcome} Outcome */
/** @typedef {import('./wire.js').ActionReview} ActionReview */
/** @typedef {import('./movelist.js').Mark} Mark */

/** The fewest points lost of each mark, from the largest down. */
export const THRESHOLDS = /** @type {const} */ ([
  ['blunder', 15],
  ['mistake', 10],
  ['inaccuracy', 5],
]);

/**
 * The mark an action's lost points earn, if any.
 * @param {number} lost
 * @returns {Mark | null}
 */
export function markOf(lost) {
  for (const [mark, min] of THRESHOLDS) if (lost >= min) return mark;
  return null;
}

/**
 * Marks by ply (0 for the first action).
 * @param {ActionReview[]} actions
 * @returns {Map<number, Mark>}
 */
export function marks(actions) {
  /** @type {Map<number, Mark>} */
  const out = new Map();
  for (const a of actions) {
    const m = markOf(a.lost);
    if (m) out.set(a.ply, m);
  }
  return out;
}

/**
 * The result a value promises for its side, where it is one (over,
 * solved or proved); `null` for an estimate.
 * @param {Evaluation} e
 * @returns {'win' | 'draw' | 'loss' | null}
 */
export function outcome(e) {
  return e.kind === 'estimate' ? null : e.result;
}

/**
 * A value's share of the game for the goats, 0 to 100.
 * @param {Evaluation} e the value
 * @param {Side} side whom it is for
 */
export function goatsPercent(e, side) {
  if (e.kind === 'estimate') return e.goats_percent;
  const forSide = e.result === 'win' ? 100 : e.result === 'loss' ? 0 : 50;
  return side === 'goats' ? forSide : 100 - forSide;
}

/**
 * The same value for the other side.
 * @param {Evaluation} e
 * @returns {Evaluation}
 */
export function flip(e) {
  if (e.kind === 'estimate') return { ...e, score: -e.score };
  /** @param {Outcome} r */
  const other = (r) => (r === 'win' ? 'loss' : r === 'loss' ? 'win' : 'draw');
  if (e.kind === 'proved' && e.solved) return { ...e, result: other(e.result), solved: { ...e.solved, result: other(e.solved.result) } };
  return /** @type {Evaluation} */ ({ ...e, result: other(e.result) });
}

/**
 * One point of the graph per action: the position after it, for the goats
 * (from -1, a tigers' win, to +1, a goats' win, 0 a draw), and the kind
 * of the value.
 * @typedef {object} GraphPoint
 * @property {number} ply the action's ply (0 for the first)
 * @property {number} y -1..1, for the goats
 * @property {Evaluation['kind']} kind
 * @property {Evaluation} goats the value for the goats
 */

/**
 * @param {ActionReview[]} actions
 * @returns {GraphPoint[]}
 */
export function graph(actions) {
  return actions.map((a) => {
    const goats = a.side === 'goats' ? a.after : flip(a.after);
    return { ply: a.ply, y: goatsPercent(a.after, a.side) / 50 - 1, kind: a.after.kind, goats };
  });
}

/**
 * How many of each mark a side earned.
 * @param {ActionReview[]} actions
 * @returns {Record<Side, Record<Mark, number>>}
 */
export function summary(actions) {
  const empty = () => ({ inaccuracy: 0, mistake: 0, blunder: 0 });
  /** @type {Record<Side, Record<Mark, number>>} */
  const out = { goats: empty(), tigers: empty() };
  for (const a of actions) {
    const m = markOf(a.lost);
    if (m) out[a.side][m] += 1;
  }
  return out;
}

/**
 * Where a result stands: a loss 0, a draw 1, a win 2.
 * @param {'win' | 'draw' | 'loss'} r
 */
function rank(r) {
  return r === 'loss' ? 0 : r === 'win' ? 2 : 1;
}

/**
 * Where the game turned, from solved and proved values only: the first
 * marked action after which the mover's result is solved or proved and
 * worse than before it (a win into a draw or a loss, a draw into a loss,
 * or an estimate into a loss); `null` when no action did.
 * @param {ActionReview[]} actions
 * @returns {ActionReview | null}
 */
export function turningPoint(actions) {
  for (const a of actions) {
    const to = outcome(a.after);
    if (!to || !markOf(a.lost)) continue;
    const from = outcome(a.before);
    if (from ? rank(to) < rank(from) : to === 'loss') return a;
  }
  return null;
}

/**
 * The first action played in the movement phase, counted as the number of
 * actions before it: the goats' last placement is the last action that
 * is a placement (no step, no jump). `null` when the game never left the
 * placement.
 * @param {string[]} moves
 * @param {number} inHand the goats in hand at the start
 */
export function movementFrom(moves, inHand) {
  let placed = 0;
  for (let i = 0; i < moves.length; i++) {
    if (!moves[i].includes('-') && !moves[i].includes('x')) placed += 1;
    if (placed === inHand) return i + 1;
  }
  return null;
}
