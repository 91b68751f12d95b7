// What a review of a finished game says, from the server's analysis
// (`GET /api/tables/{table}/games/{game}/analysis`), in pure functions:
// the mark each action earns, the curve of the graph, each side's summary
// and the action where the game turned. No DOM: reviewview.js draws these.
//
// Marks go by the action's `cost`, on the engine's scale (a captured goat
// is 1000; turning a win into a draw or a loss costs about 30000):
//   inaccuracy  300 <= cost < 1000   (less than a goat's worth)
//   mistake    1000 <= cost < 3000   (a goat to three goats' worth)
//   blunder           cost >= 3000   (more, and every action that turns
//                                     the exact result: win to draw or
//                                     loss, draw to loss)
// A cost under 300 is within the search's noise and earns no mark.

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').Evaluation} Evaluation */
/** @typedef {import('./wire.js').ActionReview} ActionReview */
/** @typedef {import('./movelist.js').Mark} Mark */

/** The smallest cost of each mark, from the largest down. */
export const THRESHOLDS = /** @type {const} */ ([
  ['blunder', 3000],
  ['mistake', 1000],
  ['inaccuracy', 300],
]);

/** The engine's score of a win (a win in n plies scores WIN - n). */
const WIN = 30000;

/**
 * The mark an action's cost earns, if any.
 * @param {number} cost
 * @returns {Mark | null}
 */
export function markOf(cost) {
  for (const [mark, min] of THRESHOLDS) if (cost >= min) return mark;
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
    const m = markOf(a.cost);
    if (m) out.set(a.ply, m);
  }
  return out;
}

/**
 * An evaluation as one number on the engine's scale.
 * @param {Evaluation} e
 */
export function score(e) {
  switch (e.kind) {
    case 'win':
      return WIN - e.plies;
    case 'loss':
      return -WIN + e.plies;
    case 'draw':
      return 0;
    case 'score':
      return e.score;
  }
}

/**
 * The result an evaluation promises, if it is exact.
 * @param {Evaluation} e
 * @returns {'win' | 'draw' | 'loss' | null}
 */
export function outcome(e) {
  return e.kind === 'score' ? null : e.kind;
}

/**
 * One point of the graph per action: the position after it, for the goats
 * (from -1, a tigers' win, to +1, a goats' win), and whether the value is
 * exact (the tablebase or the rules) or a search's estimate.
 * @typedef {object} GraphPoint
 * @property {number} ply the action's ply (0 for the first)
 * @property {number} y -1..1, for the goats
 * @property {boolean} exact
 * @property {Evaluation} goats the evaluation for the goats
 */

/**
 * @param {Evaluation} e
 * @returns {Evaluation} the same evaluation for the other side
 */
export function flip(e) {
  switch (e.kind) {
    case 'win':
      return { kind: 'loss', plies: e.plies };
    case 'loss':
      return { kind: 'win', plies: e.plies };
    case 'draw':
      return e;
    case 'score':
      return { kind: 'score', score: -e.score };
  }
}

/**
 * @param {ActionReview[]} actions
 * @returns {GraphPoint[]}
 */
export function graph(actions) {
  return actions.map((a) => {
    const goats = a.side === 'goats' ? a.after : flip(a.after);
    let y;
    if (goats.kind === 'win') y = 1;
    else if (goats.kind === 'loss') y = -1;
    else if (goats.kind === 'draw') y = 0;
    else y = 0.9 * Math.tanh(goats.score / 2500);
    return { ply: a.ply, y, exact: a.after_source !== 'search' || goats.kind !== 'score', goats };
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
    const m = markOf(a.cost);
    if (m) out[a.side][m] += 1;
  }
  return out;
}

/**
 * Where an evaluation stands among the results: a loss 0, a draw or an
 * estimate 1, a win 2.
 * @param {Evaluation} e
 */
function rank(e) {
  return e.kind === 'loss' ? 0 : e.kind === 'win' ? 2 : 1;
}

/**
 * Where the game turned: the first marked action after which the result
 * is exact and worse than before it (a win or an estimate into a draw or
 * a loss, a draw into a loss), or else
 * the costliest marked action; `null` when no action earned a mark.
 * @param {ActionReview[]} actions
 * @returns {ActionReview | null}
 */
export function turningPoint(actions) {
  for (const a of actions) {
    if (outcome(a.after) && rank(a.after) < rank(a.before) && markOf(a.cost)) return a;
  }
  /** @type {ActionReview | null} */
  let worst = null;
  for (const a of actions) if (markOf(a.cost) && (!worst || a.cost > worst.cost)) worst = a;
  return worst;
}
