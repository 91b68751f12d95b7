// "Learn from your mistakes", `/mistakes?table=T&game=N[&board=2][&side=S]`:
// a reviewed game's marked moves as exercises. For each, the board shows
// the position before it and asks for a better move; the answer is
// played from the server's legal list (`POST /api/analysis` of the game's
// line up to there) and judged against the same values the review shows
// (solved, proved or estimated): a move is good when it keeps the mover
// within an inaccuracy (5 points of the share of the game) of the best.

import { Board } from './board.js';
import { t, num } from './i18n.js';
import { h, mainElement, sideName, announce } from './dom.js';
import { markOf, goatsPercent } from './review.js';
import { valueText } from './words.js';

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').ActionReview} ActionReview */
/** @typedef {import('./wire.js').ActionValue} ActionValue */
/** @typedef {import('./wire.js').AnalysisBoard} AnalysisBoard */
/** @typedef {import('./wire.js').GameAnalysis} GameAnalysis */
/** @typedef {import('./wire.js').GameRecord} GameRecord */
/** @typedef {import('./i18n.js').StringKey} StringKey */

/** How far below the best an answer may stay and still be good, in points. */
export const GOOD_WITHIN = 5;

/**
 * The marked moves of a review, of one side or both, in order.
 * @param {ActionReview[]} actions
 * @param {Side | null} side
 */
export function exercises(actions, side) {
  return actions.filter((a) => markOf(a.lost) && (!side || a.side === side));
}

/**
 * A value's share of the game for `side`, 0 to 100.
 * @param {import('./wire.js').Evaluation} e
 * @param {Side} side
 */
function share(e, side) {
  const goats = goatsPercent(e, side);
  return side === 'goats' ? goats : 100 - goats;
}

/**
 * How an answer to an exercise went, from the values of every legal
 * action (best first): `good` within GOOD_WITHIN points of the best,
 * `played` the mistake itself, else `worse`; with the answer's and the
 * best action's values.
 * @param {ActionValue[]} legal
 * @param {string} answer
 * @param {string} played the marked move
 * @param {Side} side
 * @returns {{verdict: 'good' | 'played' | 'worse', answer: ActionValue | undefined, best: ActionValue}}
 */
export function judge(legal, answer, played, side) {
  const best = legal[0];
  const mine = legal.find((v) => v.action === answer);
  if (answer === played) return { verdict: 'played', answer: mine, best };
  const good = mine && share(mine.evaluation, side) >= share(best.evaluation, side) - GOOD_WITHIN;
  return { verdict: good ? 'good' : 'worse', answer: mine, best };
}

export class MistakesView {
  /** @param {(path: string) => void} navigate opens another view of the page */
  constructor(navigate) {
    this.navigate = navigate;
    const q = new URLSearchParams(location.search);
    this.table = q.get('table') ?? '';
    this.game = q.get('game') ?? '';
    this.query = q.get('board') === '2' ? '?board=2' : '';
    const side = q.get('side');
    /** @type {Side | null} */
    this.side = side === 'goats' || side === 'tigers' ? side : null;
    /** @type {GameRecord | null} */
    this.record = null;
    /** @type {ActionReview[]} */
    this.list = [];
    this.at = 0;
    /** @type {AnalysisBoard | null} */
    this.board = null;
    /** @type {ReturnType<typeof judge> | null} */
    this.result = null;
    /** @type {'loading' | 'ready' | 'failed' | 'none'} */
    this.state = 'loading';
    this.destroyed = false;
    this.boardRoot = h('div', { class: 'board-root' });
    /** @type {Board | null} */
    this.boardView = null;
    /** @type {{headline: HTMLElement, task: HTMLElement, status: HTMLElement, next: HTMLButtonElement, progress: HTMLElement} | null} */
    this.el = null;
    this.load();
  }

  destroy() {
    this.destroyed = true;
    this.boardView?.destroy();
  }

  /** @param {string} [part] */
  api(part = '') {
    return `/api/tables/${encodeURIComponent(this.table)}/games/${encodeURIComponent(this.game)}${part}${this.query}`;
  }

  async load() {
    try {
      const [record, analysis] = await Promise.all([this.api(), this.api('/analysis')].map(async (url) => {
        const res = await fetch(url);
        if (!res.ok) throw new Error(String(res.status));
        return res.json();
      }));
      if (this.destroyed) return;
      this.record = /** @type {GameRecord} */ (record);
      this.list = exercises(/** @type {GameAnalysis} */ (analysis).actions, this.side);
      this.state = this.list.length ? 'ready' : 'none';
    } catch {
      if (this.destroyed) return;
      this.state = 'failed';
    }
    this.render();
    if (this.state === 'ready') this.open(0);
  }

  /**
   * Shows the position before the exercise's marked move.
   * @param {number} i
   */
  async open(i) {
    this.at = i;
    this.board = null;
    this.result = null;
    this.update();
    const a = this.list[i];
    const r = this.record;
    if (!a || !r) return;
    try {
      const res = await fetch('/api/analysis', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ variant: r.variant, actions: r.moves.slice(0, a.ply) }) });
      if (!res.ok) throw new Error(String(res.status));
      const board = /** @type {AnalysisBoard} */ (await res.json());
      if (this.destroyed || this.at !== i) return;
      this.board = board;
    } catch {
      if (this.destroyed) return;
      this.state = 'failed';
    }
    this.update();
  }

  /** @param {string} action */
  answer(action) {
    const a = this.list[this.at];
    const b = this.board;
    if (!a || !b || this.result) return;
    this.result = judge(b.legal, action, a.action, a.side);
    this.update();
    if (this.el) announce(this.el.status.textContent ?? '');
  }

  render() {
    if (!this.boardView) this.boardView = new Board(this.boardRoot, (action) => this.answer(action));
    this.boardView.relabel();
    document.title = `${t('mistakesTitle')} · ${t('title')}`;
    const headline = h('p', { class: 'headline', id: 'headline' });
    const task = h('p', { id: 'mistake-task' });
    const status = h('p', { class: 'puzzle-status', id: 'mistake-status', role: 'status' });
    const progress = h('p', { class: 'hint', id: 'mistake-progress' });
    const next = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'next-mistake', text: t('mistakeNext'), onclick: () => this.open(this.at + 1) }));
    this.el = { headline, task, status, next, progress };
    const back = `/t/${encodeURIComponent(this.table)}/games/${encodeURIComponent(this.game)}${this.query}`;
    mainElement().replaceChildren(
      h(
        'div',
        { class: 'table mistakes-page' },
        h('div', { class: 'board-column', id: 'board' }, h('h2', { class: 'game-title', text: t('mistakesTitle') }), headline, this.boardRoot),
        h(
          'aside',
          { class: 'panel', 'aria-label': t('mistakesTitle') },
          h('section', { class: 'card', 'aria-labelledby': 'mistake-heading' }, h('h2', { id: 'mistake-heading', text: t('mistakeHeading') }), progress, task, status, next, h('p', {}, h('a', { href: back, id: 'back-to-game', text: t('backToGame') }))),
        ),
      ),
    );
    this.update();
  }

  update() {
    const e = this.el;
    if (!e || !this.boardView) return;
    e.next.hidden = true;
    if (this.state !== 'ready') {
      e.task.textContent = this.state === 'loading' ? t('mistakesLoading') : this.state === 'none' ? t('mistakesNone') : t('mistakesUnavailable');
      return;
    }
    const a = this.list[this.at];
    const b = this.board;
    if (!a) {
      e.progress.textContent = '';
      e.task.textContent = t('mistakesDone', { n: num(this.list.length) });
      e.status.textContent = '';
      return;
    }
    e.progress.textContent = t('mistakeProgress', { i: num(this.at + 1), n: num(this.list.length) });
    e.headline.textContent = t('puzzleToPlay', { side: sideName(a.side) });
    const mark = t(/** @type {StringKey} */ (`mark_${markOf(a.lost)}`));
    e.task.textContent = t('mistakeTask', { n: num(a.ply + 1), side: sideName(a.side), action: a.action, mark });
    if (!b) {
      e.status.textContent = t('analysing');
      return;
    }
    const r = this.result;
    const legal = r ? [] : b.legal.map((v) => v.action);
    this.boardView.update({ position: b.position, legal, lastAction: b.actions[b.actions.length - 1] ?? null, mode: r ? 'wait' : 'play', hints: false }, false);
    this.boardView.setArrows(r ? [{ action: r.best.action, kind: 'best' }] : []);
    e.next.hidden = !r;
    e.status.classList.toggle('ok', r?.verdict === 'good');
    e.status.classList.toggle('error', Boolean(r) && r?.verdict !== 'good');
    if (!r) {
      e.status.textContent = t('mistakeFind', { side: sideName(a.side) });
      return;
    }
    const best = `${r.best.action}: ${valueText(r.best.evaluation, a.side)}`;
    const mine = r.answer ? valueText(r.answer.evaluation, a.side) : '';
    if (r.verdict === 'good') e.status.textContent = t('mistakeGood', { value: mine, best });
    else if (r.verdict === 'played') e.status.textContent = t('mistakeSame', { best });
    else e.status.textContent = t('mistakeWorse', { value: mine, best });
  }
}
