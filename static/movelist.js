// The move list of a board, navigable: each half move is a button named by
// its ply and action; a click, ←/→, Home/End or a swipe on the board shows
// the position at that ply. Browsing is the page's own business: it never
// sends anything, and the live game keeps arriving underneath.

import { t } from './i18n.js';
import { h, s as svg } from './dom.js';

/**
 * How an action was judged in a review (review.js), shown next to it.
 * @typedef {'inaccuracy' | 'mistake' | 'blunder'} Mark
 */

/**
 * The step buttons' icons, drawn (a font may lack the media-control
 * glyphs, or draw them as emoji): paths in a 16 × 16 box.
 */
const ICONS = {
  first: 'M3 3h2v10H3z M13 3v10L6 8z',
  prev: 'M12 3v10L5 8z',
  next: 'M4 3v10l7-5z',
  last: 'M11 3h2v10h-2z M3 3v10l7-5z',
};

/**
 * An icon of `ICONS`, hidden from screen readers (its button is named).
 * @param {keyof typeof ICONS} name
 */
function icon(name) {
  const el = svg('svg', { viewBox: '0 0 16 16', width: 16, height: 16, 'aria-hidden': 'true', focusable: 'false', class: 'icon' });
  el.append(svg('path', { d: ICONS[name], fill: 'currentColor' }));
  return el;
}

/** The sign each mark carries in the list, as in chess notation. */
export const MARK_SIGN = { inaccuracy: '?!', mistake: '?', blunder: '??' };

/**
 * @typedef {object} MoveListOptions
 * @property {(cursor: number | null) => void} onSelect a ply was chosen:
 *   the number of actions to show, or `null` for the latest position
 * @property {boolean} live the game is played on: the latest position is
 *   "the live position"
 * @property {boolean} [ownKeys] answer ←/→, Home and End only while the focus
 *   is in this list (a page with several lists); else anywhere on the page
 * @property {string} [idSuffix] appended to the ids of the list's buttons,
 *   to tell several lists apart
 */

export class MoveList {
  /** @param {MoveListOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {string[]} */
    this.moves = [];
    /** @type {number | null} the number of actions shown; `null`: the latest */
    this.cursor = null;
    /** @type {Map<number, Mark>} marks by ply (0 for the first action) */
    this.marks = new Map();
    this.list = h('ol', { class: 'moves', 'aria-label': t('moves') });
    this.nav = h('div', { class: 'move-nav', role: 'group', 'aria-label': t('moveNavLabel') });
    this.heading = h('h2', { text: t('moves') });
    this.root = h('section', { class: 'card move-list' }, this.heading, this.nav, this.list);
    this.onKey = (/** @type {KeyboardEvent} */ e) => this.key(e);
    document.addEventListener('keydown', this.onKey);
    /** @type {{x: number, y: number} | null} */
    this.touch = null;
  }

  /** Stops listening to the keyboard (the view is gone). */
  destroy() {
    document.removeEventListener('keydown', this.onKey);
  }

  /**
   * Lets a swipe across `el` (the board) step through the plies.
   * @param {HTMLElement} el
   */
  swipeOn(el) {
    el.addEventListener(
      'touchstart',
      (e) => {
        const p = e.touches[0];
        // A piece the player may drag is a move, not a swipe.
        const onPiece = e.target instanceof Element && e.target.closest('.playable .point-button.movable');
        this.touch = e.touches.length === 1 && p && !onPiece ? { x: p.clientX, y: p.clientY } : null;
      },
      { passive: true },
    );
    el.addEventListener('touchend', (e) => {
      const start = this.touch;
      this.touch = null;
      const p = e.changedTouches[0];
      if (!start || !p) return;
      const dx = p.clientX - start.x;
      const dy = p.clientY - start.y;
      if (Math.abs(dx) < 60 || Math.abs(dy) > Math.abs(dx) / 2) return;
      this.step(dx < 0 ? 1 : -1);
    });
  }

  /** The number of actions shown. */
  shown() {
    return this.cursor ?? this.moves.length;
  }

  /**
   * @param {string[]} moves
   * @param {number | null} cursor
   * @param {Map<number, Mark>} [marks]
   */
  update(moves, cursor, marks) {
    this.moves = moves;
    this.cursor = cursor;
    if (marks) this.marks = marks;
    this.draw();
  }

  /** Re-reads every label (after a language switch). */
  relabel() {
    this.list.setAttribute('aria-label', t('moves'));
    this.nav.setAttribute('aria-label', t('moveNavLabel'));
    this.heading.textContent = t('moves');
    this.draw();
  }

  /**
   * Shows `n` actions (clamped); the latest position becomes `null`.
   * @param {number} n
   */
  go(n) {
    const c = Math.max(0, Math.min(this.moves.length, n));
    const next = c === this.moves.length ? null : c;
    if (next === this.cursor) return;
    this.cursor = next;
    this.draw();
    this.options.onSelect(next);
  }

  /** @param {number} delta */
  step(delta) {
    this.go(this.shown() + delta);
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || !this.root.isConnected) return;
    if (this.options.ownKeys && !(e.target instanceof Node && this.root.contains(e.target))) return;
    const target = e.target;
    // The board's own arrow keys, and typing, come first.
    if (target instanceof HTMLElement && (target.closest('.points, input, textarea, select, [contenteditable]'))) return;
    if (e.key === 'ArrowLeft') this.step(-1);
    else if (e.key === 'ArrowRight') this.step(1);
    else if (e.key === 'Home') this.go(0);
    else if (e.key === 'End') this.go(this.moves.length);
    else return;
    e.preventDefault();
    this.focusShown();
  }

  /** Keeps the focus on the move list's entry that is shown, if it was there. */
  focusShown() {
    if (!(document.activeElement instanceof HTMLElement) || !this.root.contains(document.activeElement)) return;
    if (!document.activeElement.classList.contains('ply')) return;
    const n = this.shown();
    const b = this.list.querySelector(`.ply[data-ply="${n}"]`);
    if (b instanceof HTMLElement) b.focus();
  }

  draw() {
    const focused = document.activeElement instanceof HTMLElement && this.root.contains(document.activeElement) ? document.activeElement.dataset.nav || document.activeElement.dataset.ply : null;
    const shown = this.shown();
    const n = this.moves.length;
    /** @param {number} i the action's index */
    const entry = (i) => {
      const action = /** @type {string} */ (this.moves[i]);
      const mark = this.marks.get(i);
      const label = mark ? t('plyButtonMarked', { n: i + 1, action, mark: t(/** @type {import('./i18n.js').StringKey} */ (`mark_${mark}`)) }) : t('plyButton', { n: i + 1, action });
      return h(
        'button',
        {
          type: 'button',
          class: `ply${mark ? ` ${mark}` : ''}${i + 1 === shown ? ' current' : ''}`,
          'data-ply': String(i + 1),
          'data-action': action,
          'aria-label': label,
          'aria-current': i + 1 === shown ? 'step' : false,
          onclick: () => this.go(i + 1),
        },
        action,
        mark ? h('span', { class: 'mark-sign', 'aria-hidden': 'true', text: MARK_SIGN[mark] }) : null,
      );
    };
    const items = [];
    for (let i = 0; i < n; i += 2) items.push(h('li', {}, entry(i), i + 1 < n ? entry(i + 1) : null));
    if (items.length) this.list.replaceChildren(...items);
    else this.list.replaceChildren(h('li', { class: 'empty', text: t('noMoves') }));

    /**
     * @param {string} id
     * @param {keyof typeof ICONS} sign
     * @param {import('./i18n.js').StringKey} label
     * @param {number} to
     * @param {boolean} disabled
     */
    const navButton = (id, sign, label, to, disabled) =>
      h('button', { type: 'button', id: `${id}${this.options.idSuffix ?? ''}`, class: 'nav', 'data-nav': id, 'aria-label': t(label), title: t(label), disabled, onclick: () => this.go(to) }, icon(sign));
    this.nav.replaceChildren(
      navButton('ply-first', 'first', 'plyFirst', 0, shown === 0),
      navButton('ply-prev', 'prev', 'plyPrev', shown - 1, shown === 0),
      h('span', { class: 'ply-status', text: t('plyOf', { n: shown, total: n }) }),
      navButton('ply-next', 'next', 'plyNext', shown + 1, shown >= n),
      navButton('ply-last', 'last', this.options.live ? 'plyLive' : 'plyLast', n, shown >= n),
    );
    if (focused) {
      const again = this.root.querySelector(`[data-nav="${focused}"], .ply[data-ply="${focused}"]`);
      if (again instanceof HTMLButtonElement && !again.disabled) again.focus();
      else if (again) this.list.querySelector('.ply.current')?.closest('button')?.focus();
    }
    // Keep the entry shown in sight, the latest at the bottom.
    const current = this.list.querySelector('.ply.current');
    if (this.cursor === null) this.list.scrollTop = this.list.scrollHeight;
    else if (current instanceof HTMLElement) {
      const top = current.offsetTop - this.list.offsetTop;
      if (top < this.list.scrollTop || top > this.list.scrollTop + this.list.clientHeight - current.offsetHeight) this.list.scrollTop = top - this.list.clientHeight / 2;
    }
  }
}
