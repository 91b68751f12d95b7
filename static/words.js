// How the page says things about a game in words: an action, a result.

import { t } from './i18n.js';
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
  const head = r.winner ? t('resultWin', { side: sideName(r.winner) }) : t('resultDraw');
  /** @type {Record<string, string | number>} */
  const params = {};
  if (r.reason === 'capture_target') params.n = game.goatsToWin;
  if (r.reason === 'ply_limit') params.n = game.plyLimit;
  if (r.reason === 'resignation' && r.winner) params.side = sideName(other(r.winner));
  const key = /** @type {StringKey} */ (`reason_${r.reason}`);
  const mine = game.mine;
  const personal = mine && r.winner ? (r.winner === mine ? t('youWon') : t('youLost')) : null;
  return `${personal ? `${personal}: ` : ''}${head}, ${t(key, params)}`;
}
