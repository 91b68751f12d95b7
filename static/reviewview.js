// The review of a finished game, drawn: the evaluation graph (SVG, the
// full width of the review, from "goats win" at the top to "tigers win"
// at the bottom, with a table as its text alternative), each side's
// summary, and the sentence on where the game turned. What it says comes
// from review.js.

import { t, num } from './i18n.js';
import { h, s, sideName } from './dom.js';
import { graph, summary, turningPoint, markOf, outcome, flip, goatsPercent } from './review.js';
import { valueText } from './words.js';

/** @typedef {import('./wire.js').GameAnalysis} GameAnalysis */
/** @typedef {import('./wire.js').ActionReview} ActionReview */
/** @typedef {import('./i18n.js').StringKey} StringKey */

const W = 800;
const H = 260;
const PAD = 10;
/** Beyond this many actions only the marked ones get a point of their own. */
const MAX_POINTS = 160;

/**
 * The graph over the plies: the goats' share of the game after each
 * action, a solid line where the value is solved or proved and a dashed
 * one where a search estimated it; a point per action (squares solved,
 * diamonds proved, circles estimates), the movement phase's start, and a
 * cursor at the ply shown.
 * @param {GameAnalysis} analysis
 * @param {(cursor: number) => void} onPick a point was clicked: show the position after it
 * @param {number | null} [movementFrom] the actions played before the movement phase
 */
export function evaluationGraph(analysis, onPick, movementFrom = null) {
  const points = graph(analysis.actions);
  const n = points.length;
  const x = (/** @type {number} */ i) => PAD + (n <= 1 ? (W - 2 * PAD) / 2 : (i * (W - 2 * PAD)) / (n - 1));
  const y = (/** @type {number} */ v) => H / 2 - v * (H / 2 - PAD);
  const svg = /** @type {SVGSVGElement} */ (s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'eval-graph', id: 'eval-graph', role: 'img', 'aria-labelledby': 'eval-graph-caption' }));
  svg.append(
    s('rect', { x: 0, y: 0, width: W, height: H / 2, class: 'graph-goats' }),
    s('rect', { x: 0, y: H / 2, width: W, height: H / 2, class: 'graph-tigers' }),
    s('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'graph-draw' }),
  );
  if (movementFrom !== null && movementFrom > 0 && movementFrom < n) {
    const at = (x(movementFrom - 1) + x(movementFrom)) / 2;
    svg.append(s('line', { x1: at, y1: 0, x2: at, y2: H, class: 'graph-phase', id: 'graph-phase' }));
  }
  if (n) {
    svg.append(s('path', { d: `M${x(0)},${H / 2} ${points.map((p, i) => `L${x(i).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ')} L${x(n - 1)},${H / 2} Z`, class: 'graph-area' }));
    // One path per run of one kind: solid where solved or proved.
    for (let i = 1; i < n; i++) {
      const dashed = points[i].kind === 'estimate';
      let j = i;
      while (j + 1 < n && (points[j + 1].kind === 'estimate') === dashed) j++;
      const d = points
        .slice(i - 1, j + 1)
        .map((p, k) => `${k ? 'L' : 'M'}${x(i - 1 + k).toFixed(1)},${y(p.y).toFixed(1)}`)
        .join(' ');
      svg.append(s('path', { d, class: `graph-line ${dashed ? 'estimate' : 'result'}` }));
      i = j;
    }
  }
  const cursor = s('line', { x1: 0, y1: 0, x2: 0, y2: H, class: 'graph-cursor', visibility: 'hidden' });
  svg.append(cursor);
  points.forEach((p, i) => {
    const mark = markOf(analysis.actions[i]?.lost ?? 0);
    if (n > MAX_POINTS && !mark) return;
    const cls = `eval-point ${p.kind}${mark ? ` ${mark}` : ''}`;
    const cx = x(i);
    const cy = y(p.y);
    const r = n > 60 ? 3.5 : 5;
    let el;
    if (p.kind === 'estimate') el = s('circle', { cx, cy, r, class: cls, 'data-ply': p.ply });
    else if (p.kind === 'proved') el = s('path', { d: `M${cx},${cy - r * 1.3} L${cx + r * 1.3},${cy} L${cx},${cy + r * 1.3} L${cx - r * 1.3},${cy} Z`, class: cls, 'data-ply': p.ply });
    else el = s('rect', { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, class: cls, 'data-ply': p.ply });
    svg.append(el);
  });
  svg.addEventListener('click', (e) => {
    if (!n) return;
    const r = svg.getBoundingClientRect();
    const at = ((e.clientX - r.left) / r.width) * W;
    const i = Math.round(((at - PAD) * (n - 1)) / (W - 2 * PAD));
    onPick(Math.max(0, Math.min(n - 1, i)) + 1);
  });
  const key = (/** @type {string} */ kind, /** @type {StringKey} */ label) => h('span', { class: 'legend-item' }, h('span', { class: `key ${kind}`, 'aria-hidden': 'true' }), t(label));
  const figure = h(
    'figure',
    { class: 'graph' },
    h('div', { class: 'graph-axis top', 'aria-hidden': 'true', text: `▲ ${t('axisGoats')}` }),
    svg,
    h('div', { class: 'graph-axis bottom', 'aria-hidden': 'true', text: `▼ ${t('axisTigers')}` }),
    h(
      'figcaption',
      { id: 'eval-graph-caption' },
      t('graphCaption'),
      ' ',
      h('span', { class: 'legend' }, key('solved', 'graphSolved'), key('proved', 'graphProved'), key('estimate', 'graphEstimate'), key('draw-line', 'graphDrawLine'), movementFrom !== null ? key('phase', 'graphPhase') : ''),
    ),
  );
  return {
    root: figure,
    /**
     * Shows where the board is.
     * @param {number} shown the number of actions shown
     */
    setCursor(shown) {
      if (shown < 1 || shown > n) {
        cursor.setAttribute('visibility', 'hidden');
        return;
      }
      cursor.setAttribute('x1', String(x(shown - 1)));
      cursor.setAttribute('x2', String(x(shown - 1)));
      cursor.setAttribute('visibility', 'visible');
    },
  };
}

/**
 * The graph as a table: every action, its value for the goats with its
 * kind, the goats' share of the game, the engine's choice and the mark.
 * @param {GameAnalysis} analysis
 */
export function graphTable(analysis) {
  const rows = analysis.actions.map((a) => {
    const goats = a.side === 'goats' ? a.after : flip(a.after);
    const mark = markOf(a.lost);
    return h(
      'tr',
      { 'data-kind': a.after.kind },
      h('td', { text: num(a.ply + 1) }),
      h('td', { text: sideName(a.side) }),
      h('td', { class: 'mono', text: a.action }),
      h('td', { text: valueText(goats, 'goats') }),
      h('td', { text: `${num(goatsPercent(a.after, a.side))} %` }),
      h('td', { class: 'mono', text: a.best }),
      h('td', { text: mark ? t(/** @type {StringKey} */ (`mark_${mark}`)) : '' }),
    );
  });
  return h(
    'details',
    { class: 'graph-text' },
    h('summary', { text: t('graphAsText') }),
    // A region that scrolls is reached with the keyboard too.
    h(
      'div',
      { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': t('graphAsText') },
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden', text: t('graphAsText') }),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['colPly', 'colSide', 'colAction', 'colValue', 'colChance', 'colBest', 'colMark'].map((k) => h('th', { scope: 'col', text: t(/** @type {StringKey} */ (k)) })),
          ),
        ),
        h('tbody', {}, ...rows),
      ),
    ),
  );
}

/**
 * Each side's marks.
 * @param {GameAnalysis} analysis
 */
export function summaryTable(analysis) {
  const sum = summary(analysis.actions);
  /** @type {import('./wire.js').Side[]} */
  const sides = ['goats', 'tigers'];
  // In a box of its own that scrolls sideways rather than widen a phone's page.
  return h(
    'div',
    { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': t('summaryCaption') },
    h(
      'table',
      { class: 'review-summary', id: 'review-summary' },
      h('caption', { text: t('summaryCaption') }),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: t('colSide') }), ...['inaccuracy', 'mistake', 'blunder'].map((m) => h('th', { scope: 'col', text: t(/** @type {StringKey} */ (`marks_${m}`)) })))),
      h(
        'tbody',
        {},
        ...sides.map((side) =>
          h(
            'tr',
            { 'data-side': side },
            h('th', { scope: 'row', text: sideName(side) }),
            h('td', { text: num(sum[side].inaccuracy) }),
            h('td', { text: num(sum[side].mistake) }),
            h('td', { text: num(sum[side].blunder) }),
          ),
        ),
      ),
    ),
  );
}

/**
 * The one sentence on where the game turned, from solved and proved
 * values only: "Ply 62: b2-c3 turned a draw into a loss for the Tigers."
 * @param {GameAnalysis} analysis
 */
export function turningSentence(analysis) {
  const a = turningPoint(analysis.actions);
  if (!a) return t('turnedNowhere');
  const from = outcome(a.before);
  const to = /** @type {'win' | 'draw' | 'loss'} */ (outcome(a.after));
  const params = { n: num(a.ply + 1), side: sideName(a.side), action: a.action, to: t(/** @type {StringKey} */ (`outcome_${to}`)) };
  if (!from) return t('turnedFromEstimate', params);
  return t('turnedResult', { ...params, from: t(/** @type {StringKey} */ (`outcome_${from}`)) });
}

/**
 * What the review says about the action that led to the position shown and
 * the engine's choice in it.
 * @param {ActionReview[]} actions
 * @param {number} shown the number of actions shown
 */
export function plyComment(actions, shown) {
  /** @type {string[]} */
  const parts = [];
  const played = actions[shown - 1];
  if (played) {
    const mark = markOf(played.lost);
    parts.push(
      t('commentPlayed', {
        n: num(played.ply + 1),
        side: sideName(played.side),
        action: played.action,
        before: valueText(played.before, played.side),
        after: valueText(played.after, played.side),
      }) + (mark ? ` ${t('commentMark', { mark: t(/** @type {StringKey} */ (`mark_${mark}`)), best: played.best, lost: num(played.lost) })}` : ''),
    );
  }
  const next = actions[shown];
  if (next) parts.push(t('commentBest', { side: sideName(next.side), best: next.best }));
  return parts.join(' ');
}

