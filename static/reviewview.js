// The review of a finished game, drawn: the evaluation graph (SVG, with a
// table as its text alternative), each side's summary, and the sentence on
// where the game turned. What it says comes from review.js.

import { t, num } from './i18n.js';
import { h, s, sideName } from './dom.js';
import { graph, summary, turningPoint, markOf, outcome, flip } from './review.js';
import { evaluationText, sourceText } from './words.js';

/** @typedef {import('./wire.js').GameAnalysis} GameAnalysis */
/** @typedef {import('./wire.js').ActionReview} ActionReview */
/** @typedef {import('./i18n.js').StringKey} StringKey */

const W = 600;
const H = 180;
const PAD = 14;

/**
 * The graph over the plies: one point per action, squares where the value
 * is exact, circles where a search estimated it; up is good for the goats.
 * @param {GameAnalysis} analysis
 * @param {(cursor: number) => void} onPick a point was clicked: show the position after it
 */
export function evaluationGraph(analysis, onPick) {
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
  if (n) {
    const d = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ');
    svg.append(s('path', { d, class: 'graph-line' }));
  }
  const cursor = s('line', { x1: 0, y1: 0, x2: 0, y2: H, class: 'graph-cursor', visibility: 'hidden' });
  svg.append(cursor);
  points.forEach((p, i) => {
    const mark = markOf(analysis.actions[i]?.cost ?? 0);
    const cls = `eval-point ${p.exact ? 'exact' : 'estimate'}${mark ? ` ${mark}` : ''}`;
    const el = p.exact
      ? s('rect', { x: x(i) - 4.5, y: y(p.y) - 4.5, width: 9, height: 9, class: cls, 'data-ply': p.ply })
      : s('circle', { cx: x(i), cy: y(p.y), r: 4.5, class: cls, 'data-ply': p.ply });
    svg.append(el);
  });
  svg.addEventListener('click', (e) => {
    if (!n) return;
    const r = svg.getBoundingClientRect();
    const at = ((e.clientX - r.left) / r.width) * W;
    const i = Math.round(((at - PAD) * (n - 1)) / (W - 2 * PAD));
    onPick(Math.max(0, Math.min(n - 1, i)) + 1);
  });
  const figure = h(
    'figure',
    { class: 'graph' },
    svg,
    h(
      'figcaption',
      { id: 'eval-graph-caption' },
      t('graphCaption'),
      ' ',
      h('span', { class: 'legend' }, h('span', { class: 'key exact', 'aria-hidden': 'true' }), t('graphExact'), ' ', h('span', { class: 'key estimate', 'aria-hidden': 'true' }), t('graphEstimate')),
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
 * The graph as a table: every action, its value for the goats, where the
 * value comes from, and its mark.
 * @param {GameAnalysis} analysis
 */
export function graphTable(analysis) {
  const rows = analysis.actions.map((a) => {
    const goats = a.side === 'goats' ? a.after : flip(a.after);
    const mark = markOf(a.cost);
    return h(
      'tr',
      {},
      h('td', { text: num(a.ply + 1) }),
      h('td', { text: sideName(a.side) }),
      h('td', { class: 'mono', text: a.action }),
      h('td', { text: evaluationText(goats) }),
      h('td', { text: sourceText(a.after_source) }),
      h('td', { class: 'mono', text: a.best }),
      h('td', { text: mark ? t(/** @type {StringKey} */ (`mark_${mark}`)) : '' }),
    );
  });
  return h(
    'details',
    { class: 'graph-text' },
    h('summary', { text: t('graphAsText') }),
    h(
      'div',
      { class: 'table-scroll' },
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
            ...['colPly', 'colSide', 'colAction', 'colValue', 'colSource', 'colBest', 'colMark'].map((k) => h('th', { scope: 'col', text: t(/** @type {StringKey} */ (k)) })),
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
    { class: 'table-scroll' },
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
 * The one sentence on where the game turned.
 * @param {GameAnalysis} analysis
 */
export function turningSentence(analysis) {
  const a = turningPoint(analysis.actions);
  if (!a) return t('turnedNowhere');
  const from = outcome(a.before);
  const to = outcome(a.after);
  const params = { n: a.ply + 1, side: sideName(a.side), action: a.action, best: a.best };
  if (!from && to) return t('turnedInto', { ...params, before: evaluationText(a.before), source: sourceText(a.before_source), to: t(/** @type {StringKey} */ (`outcome_${to}`)) });
  if (from && to && from !== to) {
    return t('turnedExact', {
      ...params,
      source: sourceText(a.before_source),
      from: t(/** @type {StringKey} */ (`outcome_${from}`)),
      to: t(/** @type {StringKey} */ (`outcome_${to}`)),
    });
  }
  return t('turnedCost', { ...params, cost: num((a.cost / 1000).toFixed(1)) });
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
    const mark = markOf(played.cost);
    parts.push(
      t('commentPlayed', {
        n: played.ply + 1,
        side: sideName(played.side),
        action: played.action,
        before: evaluationText(played.before),
        after: evaluationText(played.after),
        source: sourceText(played.after_source),
      }) + (mark ? ` ${t('commentMark', { mark: t(/** @type {StringKey} */ (`mark_${mark}`)), best: played.best })}` : ''),
    );
  }
  const next = actions[shown];
  if (next) parts.push(t('commentBest', { side: sideName(next.side), best: next.best }));
  return parts.join(' ');
}
