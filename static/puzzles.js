// The puzzles, `/puzzles`: a position of the solved movement phase where
// exactly one action keeps the best result (`GET /api/puzzles/next`, near
// the player's puzzle rating and not tried before), played on the board
// from the server's legal list; the server checks each move (`POST
// /api/puzzles/{id}/moves`) and answers with the tablebase's reply,
// "solved", or "wrong" with the solution, and on a first try the change
// of the player's puzzle rating. The streak of puzzles solved in a row is
// kept in this browser (storage.js).

import { Board } from './board.js';
import { t, num } from './i18n.js';
import { h, mainElement, sideName, announce } from './dom.js';
import { puzzleRecord, savePuzzleRecord } from './storage.js';
import { describeAction } from './words.js';
import { playerAsked } from './account.js';

/** @typedef {import('./wire.js').PuzzleView} PuzzleView */
/** @typedef {import('./wire.js').PuzzleAnswer} PuzzleAnswer */
/** @typedef {import('./wire.js').PuzzleRating} PuzzleRating */
/** @typedef {import('./i18n.js').StringKey} StringKey */

/**
 * A puzzle rating as players read it: `1500?` while provisional.
 * @param {PuzzleRating} rating
 */
export function ratingText(rating) {
  return `${num(rating.rating)}${rating.provisional ? '?' : ''}`;
}

/**
 * A rating change: `+12`, `−12` (a real minus sign), `±0`.
 * @param {number} change
 */
export function changeText(change) {
  if (change === 0) return `±${num(0)}`;
  return `${change > 0 ? '+' : '−'}${num(Math.abs(change))}`;
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
    /** @type {PuzzleRating | null} the player's puzzle rating, once known */
    this.rating = null;
    /** @type {number | null} the change of the last rated try */
    this.change = null;
    /** whether the last try was a later one, not rated */
    this.unrated = false;
    this.boardRoot = h('div', { class: 'board-root' });
    /** @type {Board | null} */
    this.boardView = null;
    /** @type {{status: HTMLElement, headline: HTMLElement, hint: HTMLElement, rating: HTMLElement, streak: HTMLElement, next: HTMLButtonElement} | null} */
    this.el = null;
    // The first puzzle is asked once the page knows its player, so that
    // it is picked at the player's rating.
    playerAsked.then(() => this.load(null));
  }

  destroy() {
    this.destroyed = true;
    this.boardView?.destroy();
  }

  /**
   * Asks for the next puzzle at the player's rating.
   * @param {string | null} after the puzzle just played
   */
  async load(after) {
    if (this.destroyed) return;
    this.state = 'loading';
    this.update();
    // `/puzzles?theme=capture` keeps to one theme.
    const q = new URLSearchParams();
    const theme = new URLSearchParams(location.search).get('theme');
    if (theme) q.set('theme', theme);
    if (after) q.set('after', after);
    const url = q.size ? `/api/puzzles/next?${q}` : '/api/puzzles/next';
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error(String(res.status));
      const puzzle = /** @type {PuzzleView} */ (await res.json());
      if (this.destroyed) return;
      this.puzzle = puzzle;
      if (puzzle.player) this.rating = puzzle.player;
      this.change = null;
      this.unrated = false;
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
        this.record = { streak: solved ? this.record.streak + 1 : 0 };
        savePuzzleRecord(this.record);
        if (answer.rated) {
          this.rating = answer.rated.player;
          this.change = answer.rated.change;
        } else {
          this.unrated = this.rating !== null;
        }
        announce(`${solved ? t('puzzleSolved') : t('puzzleWrong', { solution: (answer.solution ?? []).join(' ') })} ${this.ratingLine()}`.trim());
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
    const rating = h('p', { id: 'puzzle-rating' });
    const streak = h('p', { id: 'puzzle-streak' });
    const next = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'next-puzzle', text: t('puzzleNext'), onclick: () => this.load(this.puzzle?.id ?? null) }));
    this.el = { status, headline, hint, rating, streak, next };
    mainElement().replaceChildren(
      h(
        'div',
        { class: 'table puzzles-page' },
        h('div', { class: 'board-column', id: 'board' }, h('h2', { class: 'game-title', text: t('puzzlesTitle') }), headline, this.boardRoot),
        h(
          'aside',
          { class: 'panel', 'aria-label': t('puzzlesPanel') },
          h('section', { class: 'card', 'aria-labelledby': 'puzzle-heading' }, h('h2', { id: 'puzzle-heading', text: t('puzzleHeading') }), hint, status, rating, next, streak, h('p', { class: 'hint', text: t('puzzlesExplained') })),
        ),
      ),
    );
    this.update();
  }

  /** The player's puzzle rating, with the last try's change or why it had none. */
  ratingLine() {
    if (!this.rating) return '';
    const rating = ratingText(this.rating);
    if (this.change !== null) return t('puzzleRatingChange', { rating, change: changeText(this.change) });
    if (this.unrated) return t('puzzleRatingUnrated', { rating });
    return t('puzzleRating', { rating });
  }

  update() {
    const e = this.el;
    const p = this.puzzle;
    if (!e || !this.boardView) return;
    e.streak.textContent = t('puzzleStreak', { n: num(this.record.streak) });
    e.rating.textContent = this.ratingLine();
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
