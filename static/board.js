// The board: an SVG drawing of the 25 points and their lines, the pieces,
// and one button per point for mouse, touch and keyboard.
//
// Like chessground, the board knows no rules. It is told the position and
// the legal actions of the side to move (in notation, as the server sends
// them); it draws those as gold points, lets the player pick one, and
// reports the chosen action through `onAction`. Everything else (whose
// turn, what is legal) is the server's business.

import { t } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';
const FILES = ['a', 'b', 'c', 'd', 'e'];
/** Board units between two neighbouring points, and the margin. */
const STEP = 120;
const MARGIN = 60;
const SIZE = 2 * MARGIN + 4 * STEP;
/** Milliseconds one step of a move takes to animate. */
const MOVE_MS = 260;

/** @typedef {'T' | 'G'} Piece */

/**
 * A position as drawn: what stands on each point, from the position text
 * `BOARD SIDE IN_HAND EATEN PLY`.
 * @param {string} text
 * @returns {Map<string, Piece>}
 */
export function parseBoard(text) {
  /** @type {Map<string, Piece>} */
  const pieces = new Map();
  const rows = (text.split(' ')[0] || '').split('/');
  rows.forEach((row, i) => {
    const rank = 5 - i;
    [...row].forEach((ch, col) => {
      if (ch === 'T' || ch === 'G') pieces.set(`${FILES[col]}${rank}`, ch);
    });
  });
  return pieces;
}

/**
 * The points an action passes through, in order: one for a placement
 * (`c3`), two for a step (`b2-c3`), two or more for a jump (`a1xc3`, or
 * `a1xc3xe5` under the multi-jump variant).
 * @param {string} action
 * @returns {{kind: 'place' | 'step' | 'jump', points: string[]}}
 */
export function parseAction(action) {
  if (action.includes('x')) return { kind: 'jump', points: action.split('x') };
  if (action.includes('-')) return { kind: 'step', points: action.split('-') };
  return { kind: 'place', points: [action] };
}

/**
 * The point halfway between two points two steps apart: the goat a jump
 * takes.
 * @param {string} from
 * @param {string} to
 */
export function between(from, to) {
  const c = (FILES.indexOf(from[0]) + FILES.indexOf(to[0])) / 2;
  const r = (Number(from[1]) + Number(to[1])) / 2;
  return `${FILES[c]}${r}`;
}

/** @param {string} sq */
function coords(sq) {
  const col = FILES.indexOf(sq[0]);
  const row = Number(sq[1]);
  return { x: MARGIN + col * STEP, y: MARGIN + (5 - row) * STEP };
}

/** Every point, a5 first, row by row down to e1. */
export const POINTS = [5, 4, 3, 2, 1].flatMap((r) => FILES.map((f) => `${f}${r}`));

/**
 * The lines of the board: orthogonal lines everywhere, diagonals only
 * between points whose column and row sum is even (the two long diagonals
 * and the four short ones joining the middles of the sides).
 * @returns {[string, string][]}
 */
function lines() {
  /** @type {[string, string][]} */
  const out = [];
  for (const f of FILES) out.push([`${f}1`, `${f}5`]);
  for (let r = 1; r <= 5; r++) out.push([`a${r}`, `e${r}`]);
  out.push(['a1', 'e5'], ['a5', 'e1'], ['a3', 'c5'], ['c5', 'e3'], ['e3', 'c1'], ['c1', 'a3']);
  return out;
}

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @returns {SVGElement}
 */
function svg(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** The pieces' drawings, shared by every board (and the eaten goats' pile). */
const SYMBOLS = `
      <defs>
        <symbol id="tiger-piece" viewBox="-40 -40 80 80" overflow="visible">
          <circle r="37" class="tiger-body"/>
          <circle cx="-24" cy="-27" r="9" class="tiger-ear"/>
          <circle cx="24" cy="-27" r="9" class="tiger-ear"/>
          <circle r="37" class="tiger-body"/>
          <path d="M-6 -36 L0 -22 L6 -36 M-22 -28 L-12 -18 M22 -28 L12 -18 M-37 -4 L-22 0 M-36 10 L-22 8 M37 -4 L22 0 M36 10 L22 8" class="tiger-stripe"/>
          <ellipse cx="-12" cy="-6" rx="5" ry="6" class="tiger-eye"/>
          <ellipse cx="12" cy="-6" rx="5" ry="6" class="tiger-eye"/>
          <path d="M-7 10 L7 10 L0 17 Z" class="tiger-nose"/>
        </symbol>
        <symbol id="goat-piece" viewBox="-40 -40 80 80" overflow="visible">
          <path d="M-14 -20 C-26 -34 -34 -26 -30 -14 M14 -20 C26 -34 34 -26 30 -14" class="goat-horn"/>
          <circle r="27" class="goat-body"/>
          <ellipse cx="-9" cy="-4" rx="3.5" ry="4.5" class="goat-eye"/>
          <ellipse cx="9" cy="-4" rx="3.5" ry="4.5" class="goat-eye"/>
          <path d="M-6 12 Q0 17 6 12" class="goat-mouth"/>
        </symbol>
      </defs>`;

/**
 * Puts the pieces' drawings in the document once, so that each board's
 * pieces refer to the same ids.
 */
export function ensureSymbols() {
  if (document.getElementById('board-symbols')) return;
  const holder = /** @type {SVGSVGElement} */ (svg('svg', { id: 'board-symbols', width: 0, height: 0, 'aria-hidden': 'true', focusable: 'false', class: 'symbols' }));
  holder.innerHTML = SYMBOLS;
  document.body.prepend(holder);
}

/** @param {string} sq */
function translate(sq) {
  const { x, y } = coords(sq);
  return `translate(${x}px, ${y}px)`;
}

function reducedMotion() {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/**
 * What the board shows: set through `Board.update`.
 * @typedef {object} BoardView
 * @property {string} position the position text
 * @property {string[]} legal the legal actions of the side to move
 * @property {string | null} lastAction the last action played, highlighted
 * @property {'play' | 'wait' | 'watch'} mode `play`: the viewer may act now;
 *   `wait`: a player waiting for the other side; `watch`: a spectator
 * @property {boolean} hints in `watch` mode, show where the side to move can go
 */

/**
 * An arrow drawn over the board: an action (`b2-c3`, `a1xc3`; a placement
 * `c3` is drawn as a ring on its point), in one of the arrow styles.
 * @typedef {object} Arrow
 * @property {string} action
 * @property {'best' | 'played' | 'hint'} kind `best`: the engine's preferred
 *   action; `played`: the action played; `hint`: any other
 */

/**
 * How a board is made.
 * @typedef {object} BoardOptions
 * @property {boolean} [interactive] with a button per point (the default);
 *   without, a picture: one image named by `label`
 * @property {string} [label] the picture's accessible name
 */

export class Board {
  /**
   * @param {HTMLElement} root an empty element the board fills
   * @param {(action: string) => void} onAction called with the chosen action
   * @param {BoardOptions} [options]
   */
  constructor(root, onAction, options = {}) {
    this.root = root;
    this.onAction = onAction;
    this.interactive = options.interactive !== false;
    this.label = options.label || '';
    /** @type {Arrow[]} */
    this.arrows = [];
    /** @type {Map<string, SVGElement>} the piece element on each point */
    this.pieceEls = new Map();
    /** @type {Map<string, Piece>} */
    this.pieces = new Map();
    /** @type {string[]} the selected piece and, in a multi-jump, its landings so far */
    this.path = [];
    /** @type {BoardView} */
    this.view = { position: '', legal: [], lastAction: null, mode: 'watch', hints: true };
    /** The point that holds the keyboard focus (roving tabindex). */
    this.focusPoint = 'c3';
    /** @type {Map<string, HTMLButtonElement>} */
    this.buttons = new Map();
    this.lastLayer = svg('g', { class: 'last-layer' });
    this.dotLayer = svg('g', { class: 'dot-layer' });
    this.pieceLayer = svg('g', { class: 'piece-layer' });
    this.markLayer = svg('g', { class: 'mark-layer' });
    this.arrowLayer = svg('g', { class: 'arrow-layer' });
    this.grid = document.createElement('div');
    /** @type {{sq: string, pointer: number, x: number, y: number, moving: boolean} | null} a piece being dragged */
    this.drag = null;
    /** Set between a drop and the click the browser sends after it. */
    this.swallowClick = false;
    /** @type {[EventTarget, string, (e: any) => void][]} listeners outside the board, removed by `destroy` */
    this.outside = [];
    this.build();
  }

  build() {
    this.root.classList.add('board');
    const s = /** @type {SVGSVGElement} */ (
      svg('svg', this.interactive ? { viewBox: `0 0 ${SIZE} ${SIZE}`, 'aria-hidden': 'true', focusable: 'false' } : { viewBox: `0 0 ${SIZE} ${SIZE}`, role: 'img', 'aria-label': this.label })
    );
    ensureSymbols();
    const frame = svg('rect', { x: 14, y: 14, width: SIZE - 28, height: SIZE - 28, rx: 18, class: 'board-frame' });
    s.append(frame);
    const g = svg('g', { class: 'lines' });
    for (const [a, b] of lines()) {
      const p = coords(a);
      const q = coords(b);
      g.append(svg('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y }));
    }
    s.append(g);
    // Coordinates along the bottom and the left edge, to read the move list by.
    const labels = svg('g', { class: 'coords' });
    FILES.forEach((f, i) => {
      const label = svg('text', { x: MARGIN + i * STEP, y: SIZE - 21, 'text-anchor': 'middle' });
      label.textContent = f;
      labels.append(label);
    });
    for (let r = 1; r <= 5; r++) {
      const label = svg('text', { x: 22, y: MARGIN + (5 - r) * STEP + 6, 'text-anchor': 'middle' });
      label.textContent = String(r);
      labels.append(label);
    }
    s.append(labels);
    for (const sq of POINTS) {
      const { x, y } = coords(sq);
      this.dotLayer.append(svg('circle', { cx: x, cy: y, r: 7, class: 'point' }));
    }
    s.append(this.lastLayer, this.dotLayer, this.pieceLayer, this.markLayer, this.arrowLayer);
    if (!this.interactive) {
      this.root.classList.add('diagram');
      this.root.replaceChildren(s);
      return;
    }

    const grid = this.grid;
    grid.className = 'points';
    grid.setAttribute('role', 'group');
    grid.addEventListener('keydown', (e) => this.onKey(e));
    for (const sq of POINTS) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'point-button';
      b.dataset.square = sq;
      const { x, y } = coords(sq);
      b.style.left = `${(x / SIZE) * 100}%`;
      b.style.top = `${(y / SIZE) * 100}%`;
      b.tabIndex = sq === this.focusPoint ? 0 : -1;
      b.addEventListener('click', (e) => {
        if (this.swallowClick) {
          this.swallowClick = false;
          e.stopPropagation();
          return;
        }
        this.activate(sq);
      });
      b.addEventListener('focus', () => this.setFocusPoint(sq, false));
      this.buttons.set(sq, b);
      grid.append(b);
    }
    this.root.replaceChildren(s, grid);
    // A click on the board outside every point drops the selection.
    this.root.addEventListener('click', (e) => {
      if (this.swallowClick) {
        this.swallowClick = false;
        return;
      }
      if (!(e.target instanceof HTMLElement && e.target.closest('.point-button'))) this.deselect();
    });
    // So does a click anywhere else on the page.
    this.listen(document, 'click', (e) => {
      if (e.target instanceof Node && !this.root.contains(e.target)) this.deselect();
    });
    grid.addEventListener('pointerdown', (e) => this.dragStart(e));
    this.listen(window, 'pointermove', (e) => this.dragMove(e));
    this.listen(window, 'pointerup', (e) => this.dragEnd(e));
    this.listen(window, 'pointercancel', () => this.dragCancel());
  }

  /**
   * Listens outside the board, until `destroy`.
   * @param {EventTarget} target
   * @param {string} type
   * @param {(e: any) => void} fn
   */
  listen(target, type, fn) {
    target.addEventListener(type, fn);
    this.outside.push([target, type, fn]);
  }

  /** Stops listening outside the board (the view that held it is gone). */
  destroy() {
    for (const [target, type, fn] of this.outside) target.removeEventListener(type, fn);
    this.outside = [];
  }

  /**
   * Draws arrows over the board (replacing those drawn before): the
   * engine's preferred action in a review, the values of an analysis.
   * @param {Arrow[]} arrows
   */
  setArrows(arrows) {
    this.arrows = arrows;
    this.arrowLayer.replaceChildren();
    for (const a of arrows) {
      const { points } = parseAction(a.action);
      const g = svg('g', { class: `arrow ${a.kind}`, 'data-action': a.action });
      if (points.length === 1) {
        const { x, y } = coords(points[0]);
        g.append(svg('circle', { cx: x, cy: y, r: 40, class: 'arrow-ring' }));
      } else {
        for (let i = 1; i < points.length; i++) {
          const p = coords(points[i - 1]);
          const q = coords(points[i]);
          const len = Math.hypot(q.x - p.x, q.y - p.y);
          const ux = (q.x - p.x) / len;
          const uy = (q.y - p.y) / len;
          // From the edge of the piece to the tip of the head, short of the point's centre.
          const sx = p.x + ux * 30;
          const sy = p.y + uy * 30;
          const tx = q.x - ux * 14;
          const ty = q.y - uy * 14;
          const bx = tx - ux * 34;
          const by = ty - uy * 34;
          g.append(svg('line', { x1: sx, y1: sy, x2: bx, y2: by, class: 'arrow-shaft' }));
          g.append(svg('polygon', { points: `${tx},${ty} ${bx - uy * 20},${by + ux * 20} ${bx + uy * 20},${by - ux * 20}`, class: 'arrow-head' }));
        }
      }
      this.arrowLayer.append(g);
    }
  }

  // Dragging a piece onto a point does what two clicks do.

  /** @param {PointerEvent} e */
  dragStart(e) {
    if (this.view.mode !== 'play' || e.button !== 0 || !(e.target instanceof HTMLElement)) return;
    const sq = e.target.closest('.point-button')?.getAttribute('data-square');
    if (!sq || this.path.length > 1 || !this.targets().movable.has(sq)) return;
    this.drag = { sq, pointer: e.pointerId, x: e.clientX, y: e.clientY, moving: false };
  }

  /** @param {PointerEvent} e */
  dragMove(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer) return;
    if (!d.moving) {
      if (Math.hypot(e.clientX - d.x, e.clientY - d.y) < 8) return;
      d.moving = true;
      this.path = [d.sq];
      this.render();
    }
    const el = this.pieceEls.get(d.sq);
    if (!el) return;
    const { x, y } = this.toBoard(e.clientX, e.clientY);
    el.classList.add('dragging');
    this.pieceLayer.append(el);
    el.style.transform = `translate(${x}px, ${y}px) scale(1.12)`;
  }

  /** @param {PointerEvent} e */
  dragEnd(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer) return;
    this.drag = null;
    if (!d.moving) return;
    this.dropPiece(d.sq);
    // The click that follows this pointerup is the drop, not a new choice.
    this.swallowClick = true;
    window.setTimeout(() => {
      this.swallowClick = false;
    }, 0);
    const { x, y } = this.toBoard(e.clientX, e.clientY);
    const col = Math.round((x - MARGIN) / STEP);
    const row = 5 - Math.round((y - MARGIN) / STEP);
    if (col < 0 || col > 4 || row < 1 || row > 5) return;
    const target = `${FILES[col]}${row}`;
    if (target !== d.sq && this.targets().dests.has(target)) this.activate(target);
  }

  dragCancel() {
    if (this.drag?.moving) this.dropPiece(this.drag.sq);
    this.drag = null;
  }

  /**
   * Puts a dragged piece back on its point.
   * @param {string} sq
   */
  dropPiece(sq) {
    const el = this.pieceEls.get(sq);
    if (!el) return;
    el.classList.remove('dragging');
    el.style.transform = translate(sq);
  }

  /**
   * Board units of a point on the screen.
   * @param {number} clientX
   * @param {number} clientY
   */
  toBoard(clientX, clientY) {
    const r = this.root.getBoundingClientRect();
    return { x: ((clientX - r.left) / r.width) * SIZE, y: ((clientY - r.top) / r.height) * SIZE };
  }

  /**
   * Shows a new view. When `animate` is set and the position follows from
   * the old one by `view.lastAction`, the move is animated.
   * @param {BoardView} view
   * @param {boolean} animate
   */
  update(view, animate) {
    const positionChanged = view.position !== this.view.position;
    const legalChanged = view.legal.join(' ') !== this.view.legal.join(' ') || view.mode !== this.view.mode;
    this.view = view;
    if (positionChanged) {
      this.placePieces(parseBoard(view.position), animate ? view.lastAction : null);
    }
    if (positionChanged || legalChanged || view.mode !== 'play') this.path = [];
    this.drawLast();
    this.render();
  }

  /** Re-reads every label (after a language switch). */
  relabel() {
    if (!this.interactive) return;
    this.grid.setAttribute('aria-label', t('boardLabel'));
    this.render();
  }

  /**
   * Moves the piece elements to a new position, animating `action` if given.
   * @param {Map<string, Piece>} next
   * @param {string | null} action
   */
  placePieces(next, action) {
    const motion = !reducedMotion();
    if (action && motion) {
      const { kind, points } = parseAction(action);
      if (kind !== 'place') {
        const from = points[0];
        const to = points[points.length - 1];
        const el = this.pieceEls.get(from);
        if (el && this.pieces.get(from) === next.get(to) && !next.has(from)) {
          this.pieceEls.delete(from);
          this.pieceEls.set(to, el);
          this.pieces.delete(from);
          this.pieces.set(to, /** @type {Piece} */ (next.get(to)));
          el.style.transform = translate(to);
          el.animate(points.map((p) => ({ transform: translate(p) })), {
            duration: MOVE_MS * (points.length - 1),
            easing: 'ease-in-out',
          });
          if (kind === 'jump') {
            points.slice(1).forEach((landing, i) => {
              const over = between(points[i], landing);
              const goat = this.pieceEls.get(over);
              if (goat && !next.has(over)) {
                this.pieceEls.delete(over);
                this.pieces.delete(over);
                goat.classList.add('captured');
                const fade = goat.animate(
                  [{ opacity: 1, transform: translate(over) }, { opacity: 0, transform: `${translate(over)} scale(0.3)` }],
                  { duration: MOVE_MS, delay: MOVE_MS * (i + 0.5), fill: 'forwards' },
                );
                fade.finished.then(() => goat.remove(), () => goat.remove());
              }
            });
          }
        }
      }
    }
    for (const sq of POINTS) {
      const want = next.get(sq);
      const have = this.pieces.get(sq);
      if (have && have !== want) {
        this.pieceEls.get(sq)?.remove();
        this.pieceEls.delete(sq);
        this.pieces.delete(sq);
      }
      if (want && !this.pieces.has(sq)) {
        const el = svg('g', { class: `piece ${want === 'T' ? 'tiger' : 'goat'}` });
        el.style.transform = translate(sq);
        el.append(svg('use', { href: want === 'T' ? '#tiger-piece' : '#goat-piece', x: -40, y: -40, width: 80, height: 80 }));
        this.pieceLayer.append(el);
        if (action && motion) {
          el.animate([{ opacity: 0, transform: `${translate(sq)} scale(1.6)` }, { opacity: 1, transform: translate(sq) }], {
            duration: MOVE_MS,
            easing: 'ease-out',
          });
        }
        this.pieceEls.set(sq, el);
        this.pieces.set(sq, want);
      }
    }
  }

  /** Highlights the points of the last action. */
  drawLast() {
    this.lastLayer.replaceChildren();
    const action = this.view.lastAction;
    if (!action) return;
    const { points } = parseAction(action);
    for (let i = 1; i < points.length; i++) {
      const p = coords(points[i - 1]);
      const q = coords(points[i]);
      this.lastLayer.append(svg('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y, class: 'last-line' }));
    }
    for (const sq of points) {
      const { x, y } = coords(sq);
      this.lastLayer.append(svg('circle', { cx: x, cy: y, r: 46, class: 'last-point' }));
    }
  }

  /**
   * The legal actions as lists of points, with their text.
   * @returns {{text: string, points: string[], kind: string}[]}
   */
  actions() {
    return this.view.legal.map((text) => ({ text, ...parseAction(text) }));
  }

  /**
   * What each point may do now: the gold destinations (with the action
   * they complete, if any), the pieces that can be picked up, and the
   * point that ends a multi-jump early.
   */
  targets() {
    /** @type {Map<string, {kind: string, complete: string | null, more: boolean}>} */
    const dests = new Map();
    /** @type {Set<string>} */
    const movable = new Set();
    /** @type {string | null} */
    let stop = null;
    const all = this.actions();
    if (this.view.mode === 'watch') {
      if (this.view.hints) {
        for (const a of all) dests.set(a.points[a.points.length - 1], { kind: a.kind, complete: null, more: false });
      }
      return { dests, movable, stop };
    }
    if (this.view.mode !== 'play') return { dests, movable, stop };
    const path = this.path;
    for (const a of all) {
      if (a.kind === 'place') {
        if (path.length === 0) dests.set(a.points[0], { kind: 'place', complete: a.text, more: false });
        continue;
      }
      movable.add(a.points[0]);
      if (path.length === 0 || a.points.length < path.length) continue;
      if (!path.every((p, i) => a.points[i] === p)) continue;
      if (a.points.length === path.length) {
        stop = a.text;
        continue;
      }
      const next = a.points[path.length];
      const d = dests.get(next) || { kind: a.kind, complete: null, more: false };
      if (a.points.length === path.length + 1) d.complete = a.text;
      else d.more = true;
      dests.set(next, d);
    }
    return { dests, movable, stop };
  }

  /**
   * A click, a tap, Enter or Space on a point.
   * @param {string} sq
   */
  activate(sq) {
    this.setFocusPoint(sq, false);
    if (this.view.mode !== 'play') return;
    const { dests, movable, stop } = this.targets();
    const d = dests.get(sq);
    if (d) {
      if (d.complete && !d.more) {
        this.send(d.complete);
      } else {
        this.path = [...this.path, sq];
        this.render();
      }
      return;
    }
    if (stop && sq === this.path[this.path.length - 1]) {
      this.send(stop);
      return;
    }
    if (this.path.length === 1 && sq === this.path[0]) {
      this.deselect();
      return;
    }
    if (this.path.length <= 1 && movable.has(sq)) {
      this.path = [sq];
      this.render();
      return;
    }
    this.deselect();
  }

  /** @param {string} action */
  send(action) {
    this.path = [];
    this.onAction(action);
    this.render();
  }

  /** Drops the selection. */
  deselect() {
    if (this.path.length === 0) return;
    this.path = [];
    this.render();
  }

  /**
   * @param {string} sq
   * @param {boolean} focus also move the DOM focus there
   */
  setFocusPoint(sq, focus) {
    if (this.focusPoint !== sq) {
      const old = this.buttons.get(this.focusPoint);
      if (old) old.tabIndex = -1;
      this.focusPoint = sq;
    }
    const b = this.buttons.get(sq);
    if (!b) return;
    b.tabIndex = 0;
    if (focus) b.focus();
  }

  /** @param {KeyboardEvent} e */
  onKey(e) {
    const col = FILES.indexOf(this.focusPoint[0]);
    const row = Number(this.focusPoint[1]);
    /** @type {Record<string, [number, number]>} */
    const deltas = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    const d = deltas[e.key];
    if (d) {
      e.preventDefault();
      const c = Math.min(4, Math.max(0, col + d[0]));
      const r = Math.min(5, Math.max(1, row + d[1]));
      this.setFocusPoint(`${FILES[c]}${r}`, true);
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      this.setFocusPoint(e.key === 'Home' ? 'a5' : 'e1', true);
    } else if (e.key === 'Escape') {
      this.deselect();
    }
  }

  /** Draws the gold points, the selection ring and every point's name. */
  render() {
    const { dests, movable, stop } = this.targets();
    this.markLayer.replaceChildren();
    const selected = this.path[this.path.length - 1];
    if (selected) {
      const { x, y } = coords(selected);
      this.markLayer.append(svg('circle', { cx: x, cy: y, r: 44, class: 'selection-ring' }));
    }
    if (stop && selected) {
      const { x, y } = coords(selected);
      this.markLayer.append(svg('circle', { cx: x, cy: y, r: 15, class: 'gold-point' }));
    }
    for (const sq of dests.keys()) {
      const { x, y } = coords(sq);
      this.markLayer.append(svg('circle', { cx: x, cy: y, r: 15, class: this.view.mode === 'watch' ? 'gold-point hint' : 'gold-point' }));
    }
    if (this.view.mode === 'play' && this.path.length === 0) {
      for (const sq of movable) {
        const { x, y } = coords(sq);
        this.markLayer.append(svg('circle', { cx: x, cy: y, r: 42, class: 'movable-ring' }));
      }
    }
    this.root.classList.toggle('playable', this.view.mode === 'play');
    for (const [sq, b] of this.buttons) {
      const piece = this.pieces.get(sq);
      const parts = [sq, piece === 'T' ? t('tiger') : piece === 'G' ? t('goat') : t('empty')];
      if (this.path.includes(sq)) parts.push(t('selected'));
      const d = dests.get(sq);
      if (d) {
        if (this.view.mode === 'watch') parts.push(t('legalHint'));
        else parts.push(d.kind === 'place' ? t('canPlace') : d.kind === 'jump' ? t('canJumpHere') : t('canMoveHere'));
      } else if (stop && sq === selected) {
        parts.push(t('stopHere'));
      } else if (this.path.length === 0 && movable.has(sq)) {
        parts.push(t('canMove'));
      }
      b.setAttribute('aria-label', parts.join(', '));
      b.classList.toggle('dest', Boolean(d) && this.view.mode === 'play');
      b.classList.toggle('movable', movable.has(sq));
      b.setAttribute('aria-disabled', String(this.view.mode !== 'play'));
    }
  }

  /** Puts the keyboard focus on the board. */
  focus() {
    this.setFocusPoint(this.focusPoint, true);
  }
}
