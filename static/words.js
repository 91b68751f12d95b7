// How the page says things about a game in words: an action, a result.

import { t, num } from './i18n.js';
import { parseAction, between } from './board.js';
import { other, sideName } from './dom.js';

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').GameResult} GameResult */
/** @typedef {import('./i18n.js').StringKey} StringKey */

/**
 * An action in a sentence: "Goats place on c3".
 * @param {Side} side
 * @param {string} action
 */
export function describeAction(side, action) {
  const { kind, points } = parseAction(action);
  const who = sideName(side);
  if (kind === 'place') return t('announcePlace', { side: who, to: points[0] });
  if (kind === 'step') return t('announceStep', { side: who, from: points[0], to: points[1] });
  const over = points.slice(1).map((p, i) => between(points[i], p));
  return t('announceJump', { side: who, from: points[0], to: points[points.length - 1], over: over.join(', ') });
}

/**
 * A result with its reason: "Tigers win, 5 goats eaten", with "You won: "
 * before it for a player.
 * @param {GameResult | null} r
 * @param {{goatsToWin: number, plyLimit: number, mine?: Side | null}} game
 */
export function resultText(r, game) {
  if (!r) return '';
  if (r.reason === 'aborted') return t('resultAborted');
  const head = r.winner ? t('resultWin', { side: sideName(r.winner) }) : t('resultDraw');
  /** @type {Record<string, string | number>} */
  const params = {};
  if (r.reason === 'capture_target') params.n = game.goatsToWin;
  if (r.reason === 'ply_limit') params.n = game.plyLimit;
  const losing = r.reason === 'resignation' || r.reason === 'timeout' || r.reason === 'abandoned';
  if (losing && r.winner) params.side = sideName(other(r.winner));
  // A timeout or a claim can end in a draw, told in its own words.
  const drawn = !r.winner && (r.reason === 'timeout' || r.reason === 'abandoned') ? '_draw' : '';
  const key = /** @type {StringKey} */ (`reason_${r.reason}${drawn}`);
  const mine = game.mine;
  const personal = mine && r.winner ? (r.winner === mine ? t('youWon') : t('youLost')) : null;
  return `${personal ? `${personal}: ` : ''}${head}, ${t(key, params)}`;
}

/**
 * A table's rules where they differ from the house rules: "Rules: 3 goats
 * to win".
 * @param {import('./wire.js').Variant | undefined} v
 */
export function rulesText(v) {
  /** @type {string[]} */
  const list = [];
  if (v) {
    const target = v.three_tigers ? 4 : 5;
    if (v.goats_to_win !== undefined && v.goats_to_win !== null && v.goats_to_win !== target) list.push(t('rulesTarget', { n: v.goats_to_win }));
    if (v.first === 'tigers') list.push(t('rulesTigersFirst'));
    if (v.multi_jump) list.push(t('rulesMultiJump'));
    if (v.three_tigers) list.push(t('rulesThreeTigers'));
    if (v.repetition === 'threefold_draw') list.push(t('rulesThreefold'));
    if (v.ply_limit !== undefined && v.ply_limit !== 400) list.push(t('rulesPlyLimit', { n: v.ply_limit }));
  }
  return t('rules', { list: list.length ? list.join(', ') : t('rulesHouse') });
}

/**
 * The goats the tigers must eat under a variant.
 * @param {import('./wire.js').Variant | undefined} v
 */
export function goatsToWin(v) {
  return v?.goats_to_win ?? (v?.three_tigers ? 4 : 5);
}

/**
 * A value in words, for the side it is for: "a win in 7 plies", "a win
 * within 28 plies", "a draw", "a 62 % chance for the tigers", "won".
 * Its kind is told apart by kindText.
 * @param {import('./wire.js').Evaluation} e
 * @param {Side} side whom the value is for
 */
export function evaluationText(e, side) {
  if (e.kind === 'estimate') {
    const p = side === 'goats' ? e.goats_percent : 100 - e.goats_percent;
    return t('evalChance', { p: num(p), side: sideName(side) });
  }
  if (e.kind === 'over') return t(e.result === 'win' ? 'evalWon' : e.result === 'loss' ? 'evalLost' : 'evalDrawn');
  if (e.result === 'draw') return t('evalDraw');
  const win = e.result === 'win';
  if (e.plies === 1) return t(win ? 'evalWinOne' : 'evalLossOne');
  if (e.kind === 'proved') return t(win ? 'evalWinWithin' : 'evalLossWithin', { n: num(e.plies) });
  return t(win ? 'evalWin' : 'evalLoss', { n: num(e.plies) });
}

/**
 * The kind of a value in words: "the game is over", "solved for this
 * board", "proved under the house rules", "estimate".
 * @param {import('./wire.js').Evaluation} e
 */
export function kindText(e) {
  return t(/** @type {StringKey} */ (`kind_${e.kind}`));
}

/**
 * A value with its kind: "a draw, solved for this board"; a proved value
 * that differs from the tablebase's says so: "a loss within 22 plies,
 * proved under the house rules (the tablebase says a loss in 28 plies for
 * this board; the repetition rule makes it sooner)".
 * @param {import('./wire.js').Evaluation} e
 * @param {Side} side whom the value is for
 */
export function valueText(e, side) {
  const text = `${evaluationText(e, side)}, ${kindText(e)}`;
  if (e.kind !== 'proved' || !e.solved) return text;
  const solved = evaluationText({ kind: 'solved', ...e.solved }, side);
  const key = e.solved.result === e.result && e.solved.plies > e.plies ? 'solvedDiffersSooner' : 'solvedDiffers';
  return `${text} (${t(key, { value: solved })})`;
}
