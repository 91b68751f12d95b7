// The puzzles, `/puzzles`: a position of the solved movement phase where
// exactly one action keeps the best result (`GET /api/puzzles/next`), played
// on the board from the server's legal list; the server checks each move
// (`POST /api/puzzles/{id}/moves`) and answers with the tablebase's reply,
// "solved", or "wrong" with the solution. Until players have an identity
// the streak and the rating that picks the next puzzle's level are kept in
// this browser (storage.js).

import { Board } from './board.js';
import { t, num } from './i18n.js';
import { h, mainElement, sideName, announce } from './dom.js';
import { puzzleRecord, savePuzzleRecord } from './storage.js';
import { describeAction } from './words.js';

/** @typedef {import('./wire.js').PuzzleView} PuzzleView */
/** @typedef {import('./wire.js').PuzzleAnswer} PuzzleAnswer */
/** @typedef {import('./i18n.js').StringKey} StringKey */

/** How far the browser's rating moves on a solved or failed puzzle. */
const STEP = 50;

/**
 * The browser's rating after a puzzle, within the set's range.
 * @param {number} rating
 * @param {boolean} solved
 */
export function nextRating(rating, solved) {
  return Math.max(600, Math.min(2400, rating + (solved ? STEP : -STEP)));
}

export class PuzzlesView {
  /** @param {(path: string) => void} navigate opens another view of the page */
  constructor(navigate) {
    this.navigate = navigate;
    /** @type {PuzzleView | null} */
    this.puzzle = null;
    /** @type {string[]} the actions played from the puzzle's start */
    this.played = [];
    this.position = '';
    /** @type {string[]} */
    this.legal = [];
    /** @type {string | null} */
    this.lastAction = null;
    /** @type {'loading' | 'solving' | 'solved' | 'wrong' | 'failed'} */
    this.state = 'loading';
    /** @type {string[] | null} */
    this.solution = null;
    this.busy = false;
    this.destroyed = false;
    this.record = puzzleRecord();
    this.boardRoot = h('div', { class: 'board-root' });
    /** @type {Board | null} */
    this.boardView = null;
    /** @type {{status: HTMLElement, headline: HTMLElement, hint: HTMLElement, streak: HTMLElement, next: HTMLButtonElement} | null} */
    this.el = null;
    this.load(null);
  }

  destroy() {
    this.destroyed = true;
    this.boardView?.destroy();
  }

  /**
   * Asks for the next puzzle at the browser's level.
   * @param {string | null} after the puzzle just played
   */
  async load(after) {
    this.state = 'loading';
    this.update();
    const q = new URLSearchParams({ rating: String(this.record.rating) });
    if (after) q.set('after', after);
    try {
      const res = await fetch(`/api/puzzles/next?${q}`);
      if (!res.ok) throw new Error(String(res.status));
      const puzzle = /** @type {PuzzleView} */ (await res.json());
      if (this.destroyed) return;
      this.puzzle = puzzle;
      this.played = [];
      this.position = puzzle.position;
      this.legal = puzzle.legal;
      this.lastAction = null;
      this.solution = null;
      this.state = 'solving';
    } catch {
      if (this.destroyed) return;
      this.state = 'failed';
    }
    if (!this.el) this.render();
    else this.update();
  }

  /**
   * Sends the solver's move; the server answers with the reply or the verdict.
   * @param {string} action
   */
  async play(action) {
    const p = this.puzzle;
    if (!p || this.state !== 'solving' || this.busy) return;
    this.busy = true;
    const moves = [...this.played, action];
    this.lastAction = action;
    this.update();
    try {
      const res = await fetch(`/api/puzzles/${encodeURIComponent(p.id)}/moves`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ moves }) });
      if (!res.ok) throw new Error(String(res.status));
      const answer = /** @type {PuzzleAnswer} */ (await res.json());
      if (this.destroyed || this.puzzle !== p) return;
      this.busy = false;
      this.position = answer.position;
      this.legal = answer.legal;
      this.played = answer.reply ? [...moves, answer.reply] : moves;
      if (answer.reply) this.lastAction = answer.reply;
      if (answer.verdict === 'correct') {
        const replier = p.side_to_move === 'goats' ? 'tigers' : 'goats';
        announce(`${t('puzzleCorrect')} ${describeAction(replier, /** @type {string} */ (answer.reply))}`);
      } else {
        const solved = answer.verdict === 'solved';
        this.state = solved ? 'solved' : 'wrong';
        this.solution = answer.solution;
        this.record = { streak: solved ? this.record.streak + 1 : 0, rating: nextRating(this.record.rating, solved) };
        savePuzzleRecord(this.record);
        announce(solved ? t('puzzleSolved') : t('puzzleWrong', { solution: (answer.solution ?? []).join(' ') }));
      }
    } catch {
      if (this.destroyed) return;
      this.busy = false;
      this.state = 'failed';
    }
    this.update();
  }

  render() {
    if (!this.boardView) this.boardView = new Board(this.boardRoot, (action) => this.play(action));
    this.boardView.relabel();
    document.title = `${t('puzzlesTitle')} · ${t('title')}`;
    const status = h('p', { class: 'puzzle-status', id: 'puzzle-status', role: 'status' });
    const headline = h('p', { class: 'headline', id: 'headline' });
    const hint = h('p', { class: 'hint', id: 'puzzle-hint' });
    const streak = h('p', { id: 'puzzle-streak' });
    const next = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'next-puzzle', text: t('puzzleNext'), onclick: () => this.load(this.puzzle?.id ?? null) }));
    this.el = { status, headline, hint, streak, next };
    mainElement().replaceChildren(
      h(
        'div',
        { class: 'table puzzles-page' },
        h('div', { class: 'board-column', id: 'board' }, h('h2', { class: 'game-title', text: t('puzzlesTitle') }), headline, this.boardRoot),
        h(
          'aside',
          { class: 'panel', 'aria-label': t('puzzlesPanel') },
          h('section', { class: 'card', 'aria-labelledby': 'puzzle-heading' }, h('h2', { id: 'puzzle-heading', text: t('puzzleHeading') }), hint, status, next, streak, h('p', { class: 'hint', text: t('puzzlesExplained') })),
        ),
      ),
    );
    this.update();
  }

  update() {
    const e = this.el;
    const p = this.puzzle;
    if (!e || !this.boardView) return;
    e.streak.textContent = t('puzzleStreak', { n: num(this.record.streak), rating: num(this.record.rating) });
    e.next.hidden = this.state === 'solving' || this.state === 'loading';
    if (this.state === 'failed') {
      e.status.textContent = t('puzzleUnavailable');
      return;
    }
    if (!p) {
      e.status.textContent = t('puzzleLoading');
      return;
    }
    const solving = this.state === 'solving';
    this.boardView.update({ position: this.position, legal: solving && !this.busy ? this.legal : [], lastAction: this.lastAction, mode: solving && !this.busy ? 'play' : 'wait', hints: false }, true);
    e.headline.textContent = t('puzzleToPlay', { side: sideName(p.side_to_move) });
    const themes = p.themes.filter((name) => name !== 'endgame').map((name) => t(/** @type {StringKey} */ (`theme_${name}`)));
    e.hint.textContent = t('puzzleHint', { themes: themes.length ? themes.join(', ') : t('theme_endgame'), rating: num(p.rating) });
    if (this.state === 'solved') e.status.textContent = t('puzzleSolved');
    else if (this.state === 'wrong') e.status.textContent = t('puzzleWrong', { solution: (this.solution ?? []).join(' ') });
    else if (this.played.length) e.status.textContent = `${t('puzzleCorrect')} ${t('puzzleKeepGoing', { side: sideName(p.side_to_move) })}`;
    else e.status.textContent = t(p.themes.includes('hold_draw') ? 'puzzleFindDraw' : 'puzzleFindWin', { side: sideName(p.side_to_move) });
    e.status.classList.toggle('error', this.state === 'wrong');
    e.status.classList.toggle('ok', this.state === 'solved');
  }
}
