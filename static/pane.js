// One board of a two-board match, drawn in its own pane: its header (which
// board, the viewer's side on it), whose turn, its clocks, the board, its
// counters, the claim on an absent opponent, its own controls and its move
// list. The table view (table.js) owns the socket and the state, and gives
// each pane the table as seen from its board (state.js `onlyBoard`); every
// command a pane sends names its board.

import { Board } from './board.js';
import { MoveList } from './movelist.js';
import { positions, startPosition } from './replay.js';
import { resultText } from './words.js';
import { t, num } from './i18n.js';
import { h, sideName } from './dom.js';
import { mySide, mode, timeLeft, absence, waitingForFriend } from './state.js';
import { formatClock, formatCountdown, isLow } from './clock.js';

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').BoardNumber} BoardNumber */
/** @typedef {import('./state.js').TableState} TableState */

/**
 * The commands about one board's game.
 * @typedef {'resign' | 'offer_draw' | 'accept_draw' | 'decline_draw' | 'abort' | 'claim_victory' | 'claim_draw'} BoardCommand
 */

/**
 * What a pane needs of its table.
 * @typedef {object} PaneHost
 * @property {(board: BoardNumber, action: string) => void} play sends an action on the board
 * @property {(board: BoardNumber, type: BoardCommand) => void} command sends a command about the board's game
 * @property {(path: string) => void} navigate opens another view of the page
 * @property {string} table the table's id
 */

export class BoardPane {
  /**
   * @param {BoardNumber} n
   * @param {PaneHost} host
   */
  constructor(n, host) {
    this.n = n;
    this.host = host;
    this.boardRoot = h('div', { class: 'board-root' });
    this.board = new Board(this.boardRoot, (action) => host.play(n, action));
    /** @type {number | null} the ply shown while browsing the move list; `null`: the live position */
    this.cursor = null;
    /** @type {{key: string, list: string[]} | null} */
    this.replayed = null;
    /** @type {TableState | null} the table as seen from this board, as last drawn */
    this.s = null;
    this.hints = true;
    this.confirmResign = false;
    /** @type {string | null} the absence (by its start) the player chose to keep waiting through */
    this.keptWaiting = null;
    this.absentShown = '';
    this.moveList = new MoveList({
      live: true,
      ownKeys: true,
      idSuffix: `-${n}`,
      onSelect: (cursor) => {
        this.cursor = cursor;
        if (this.s) this.update(this.s, this.hints);
      },
    });
    this.moveList.swipeOn(this.boardRoot);
    const id = (/** @type {string} */ name) => `${name}-${n}`;
    this.title = h('h2', { class: 'pane-title', id: id('pane-title') });
    this.turn = h('p', { class: 'headline', id: id('headline') });
    this.clocks = h('div', { class: 'clocks', role: 'group', 'aria-label': t('clocksLabel'), hidden: true });
    /** @type {Record<Side, HTMLElement>} */
    this.clock = {
      goats: h('div', { class: 'clock goats', id: id('clock-goats'), role: 'timer' }),
      tigers: h('div', { class: 'clock tigers', id: id('clock-tigers'), role: 'timer' }),
    };
    this.clocks.replaceChildren(this.clock.goats, this.clock.tigers);
    this.browse = h('div', { class: 'browse', hidden: true });
    this.counters = h('dl', { class: 'counters compact' });
    this.absent = h('div', { class: 'absent-banner', id: id('absent'), hidden: true });
    this.controls = h('div', { class: 'controls', id: id('controls'), role: 'group', 'aria-label': t('boardActions', { n }) });
    this.root = h(
      'section',
      { class: 'pane', id: id('board'), 'data-board': String(n), 'aria-labelledby': id('pane-title') },
      this.title,
      this.turn,
      this.clocks,
      this.browse,
      this.boardRoot,
      this.counters,
      this.absent,
      this.controls,
      this.moveList.root,
    );
  }

  destroy() {
    this.board.destroy();
    this.moveList.destroy();
  }

  /** Re-reads every label (after a language switch). */
  relabel() {
    this.board.relabel();
    this.moveList.relabel();
    this.clocks.setAttribute('aria-label', t('clocksLabel'));
    this.controls.setAttribute('aria-label', t('boardActions', { n: this.n }));
    this.absentShown = '';
  }

  /** Puts the keyboard focus on this board. */
  focus() {
    this.board.focus();
  }

  /**
   * Whether most of this board is on screen, below `top` (what stays
   * pinned at the top of the screen).
   * @param {number} top
   */
  inView(top) {
    const r = this.boardRoot.getBoundingClientRect();
    const seen = Math.min(r.bottom, window.innerHeight) - Math.max(r.top, top);
    return r.height > 0 && seen >= r.height * 0.6;
  }

  /**
   * Scrolls this pane to just below `top`, moving the focus nowhere.
   * @param {number} top
   */
  bringIntoView(top) {
    this.root.style.scrollMarginTop = `${Math.ceil(top) + 8}px`;
    const smooth = !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    this.root.scrollIntoView({ block: 'start', behavior: smooth ? 'smooth' : 'auto' });
  }

  /**
   * Draws the board from the table as seen from it.
   * @param {TableState} s from `onlyBoard(state, this.n)`
   * @param {boolean} hints a spectator's hints switch
   * @param {boolean} [animate]
   */
  update(s, hints, animate = false) {
    this.s = s;
    this.hints = hints;
    const g = s.game;
    if (!g) return;
    const m = mode(s);
    const n = this.n;
    const mine = mySide(s);
    if (this.cursor !== null && this.cursor >= s.moves.length) this.cursor = null;
    const shown = this.cursor === null ? null : this.positionAt(s, this.cursor);
    if (shown === null) {
      this.cursor = null;
      this.board.update({ position: g.position, legal: g.legal, lastAction: g.last_action, mode: m, hints }, animate);
    } else {
      this.board.update({ position: shown, legal: [], lastAction: s.moves[/** @type {number} */ (this.cursor) - 1] ?? null, mode: 'watch', hints: false }, false);
    }
    this.updateBrowse(s);

    const hostSide = g.host_side;
    if (mine) this.title.textContent = t(mine === 'goats' ? 'boardYouGoats' : 'boardYouTigers', { n });
    else this.title.textContent = t(hostSide === 'goats' ? 'boardHostGoats' : 'boardHostTigers', { n });

    const phase = g.phase === 'placement' ? t('phasePlacement') : t('phaseMovement');
    let turn;
    if (g.result) turn = resultText(g.result, { goatsToWin: g.goats_to_win, plyLimit: g.ply_limit, mine });
    else if (waitingForFriend(s)) turn = t('waitingForOpponent');
    else if (mine && g.side_to_move === mine) turn = `${t('yourTurnOnBoard', { n, side: sideName(mine) })} · ${phase}`;
    else if (mine) turn = `${t('opponentTurn', { side: sideName(g.side_to_move) })} · ${phase}`;
    else turn = `${t('turnOf', { side: sideName(g.side_to_move) })} · ${phase}`;
    this.turn.textContent = turn;
    this.turn.classList.toggle('finished', Boolean(g.result));
    this.turn.classList.toggle('my-turn', m === 'play');
    this.root.classList.toggle('my-turn', m === 'play');
    this.root.classList.toggle('finished', Boolean(g.result));

    /** @type {[string, string, string][]} */
    const counters = [
      ['in-hand', t('inHand'), num(g.in_hand)],
      ['eaten', t('eaten'), `${num(g.eaten)}/${num(g.goats_to_win)}`],
      ['trapped', t('trapped'), `${num(g.trapped_tigers)}/${num(g.tigers)}`],
      ['ply', t('ply'), `${num(g.ply)}/${num(g.ply_limit)}`],
    ];
    this.counters.replaceChildren(
      ...counters.map(([id, label, value]) => h('div', { class: `counter ${id}` }, h('dt', { text: label }), h('dd', { id: `counter-${id}-${n}`, text: value }))),
    );

    this.updateControls(s);
    this.moveList.update(s.moves, this.cursor);
    this.tick(Date.now());
  }

  /**
   * Moves the clocks and the absence countdown on.
   * @param {number} now
   * @returns {boolean} whether anything counts down
   */
  tick(now) {
    if (!this.s) return false;
    return this.updateClocks(this.s, now) || this.updateAbsent(this.s, now);
  }

  /**
   * @param {TableState} s
   * @param {number} now
   */
  updateClocks(s, now) {
    const g = s.game;
    const clock = g?.clock;
    this.clocks.hidden = !clock;
    if (!g || !clock) return false;
    const mine = mySide(s);
    for (const side of /** @type {Side[]} */ (['goats', 'tigers'])) {
      const ms = /** @type {number} */ (timeLeft(s, side, now));
      const el = this.clock[side];
      const runs = clock.running === side && !g.result;
      const low = isLow(s.info?.clock, ms);
      const name = mine === side ? `${sideName(side)} (${t('you')})` : sideName(side);
      const time = formatClock(ms);
      const state = [runs ? t('clockRunning') : '', low ? t('clockLow') : ''].filter(Boolean).join(', ');
      const label = state ? `${name}: ${time}, ${state}` : `${name}: ${time}`;
      if (el.dataset.label === label) continue;
      el.dataset.label = label;
      el.classList.toggle('running', runs);
      el.classList.toggle('low', low);
      el.replaceChildren(
        h('span', { class: 'clock-side', text: name }),
        h('span', { class: 'clock-time', text: time }),
        h('span', { class: 'visually-hidden', text: state ? `, ${state}` : '' }),
      );
    }
    return Boolean(clock.running) && !g.result;
  }

  /**
   * The absent opponent on this board: the countdown, then the claims.
   * @param {TableState} s
   * @param {number} now
   */
  updateAbsent(s, now) {
    const onThis = (s.presence?.absent?.board ?? 1) === this.n;
    const a = onThis ? absence(s, now) : null;
    const mine = mySide(s);
    if (!a || (mine && a.side === mine)) {
      if (this.absentShown) {
        const had = this.absent.contains(document.activeElement);
        this.absent.replaceChildren();
        this.absent.hidden = true;
        this.absentShown = '';
        if (had) this.board.focus();
      }
      return false;
    }
    const since = s.presence?.absent?.since || '';
    const claimable = a.claimableIn === 0;
    const waiting = claimable && this.keptWaiting === since;
    const countdown = formatCountdown(a.claimableIn);
    let message;
    if (!mine) message = claimable ? t('absentWatchClaimable', { side: sideName(a.side) }) : t('absentWatch', { side: sideName(a.side), time: countdown });
    else if (!claimable) message = `${t('absentOpponent', { side: sideName(a.side) })} ${t('absentCountdown', { time: countdown })}`;
    else message = `${t('absentOpponent', { side: sideName(a.side) })} ${waiting ? t('absentWaiting') : t('absentClaimable')}`;
    const shape = `${a.side}|${since}|${claimable}|${waiting}|${Boolean(mine)}|${s.conn}|${message}`;
    if (shape === this.absentShown) return !claimable;
    const focusedId = document.activeElement instanceof HTMLElement && this.absent.contains(document.activeElement) ? document.activeElement.id : null;
    this.absentShown = shape;
    this.absent.hidden = false;
    /** @type {Node[]} */
    const buttons = [];
    const n = this.n;
    if (mine && claimable) {
      const off = s.conn !== 'online';
      buttons.push(
        h('button', { type: 'button', id: `claim-victory-${n}`, class: 'primary', text: t('claimVictory'), disabled: off, onclick: () => this.host.command(n, 'claim_victory') }),
        h('button', { type: 'button', id: `claim-draw-${n}`, text: t('claimDraw'), disabled: off, onclick: () => this.host.command(n, 'claim_draw') }),
      );
      if (!waiting) {
        buttons.push(
          h('button', {
            type: 'button',
            id: `keep-waiting-${n}`,
            text: t('keepWaiting'),
            onclick: () => {
              this.keptWaiting = since;
              this.updateAbsent(s, Date.now());
              document.getElementById(`claim-victory-${n}`)?.focus();
            },
          }),
        );
      }
    }
    this.absent.replaceChildren(h('p', { id: `absent-text-${n}`, text: message }), ...(buttons.length ? [h('div', { class: 'absent-actions' }, ...buttons)] : []));
    if (focusedId) document.getElementById(focusedId)?.focus();
    return !claimable;
  }

  /**
   * The position after `k` actions, drawn from the moves; `null` if the
   * drawing does not end where the server's state does.
   * @param {TableState} s
   * @param {number} k
   */
  positionAt(s, k) {
    const g = s.game;
    if (!g || !s.info) return null;
    const key = `${g.game}:${s.moves.length}`;
    if (!this.replayed || this.replayed.key !== key) {
      const list = positions(startPosition(s.info.variant), s.moves);
      const last = list[list.length - 1] || '';
      this.replayed = { key, list: last.split(' ')[0] === g.position.split(' ')[0] ? list : [] };
    }
    return this.replayed.list[k] ?? null;
  }

  /** @param {TableState} s */
  updateBrowse(s) {
    const browsing = this.cursor !== null;
    this.browse.hidden = !browsing;
    if (!browsing) {
      this.browse.replaceChildren();
      return;
    }
    const had = this.browse.contains(document.activeElement);
    const id = `back-to-live-${this.n}`;
    this.browse.replaceChildren(
      h('p', { text: t('browsing', { n: /** @type {number} */ (this.cursor), total: s.moves.length }) }),
      h('button', {
        type: 'button',
        id,
        class: 'primary',
        text: t('backToLive'),
        onclick: () => {
          this.cursor = null;
          this.update(s, this.hints);
          this.board.focus();
        },
      }),
    );
    if (had) document.getElementById(id)?.focus();
  }

  /**
   * This board's buttons: resign (asked first), abort, the draw offer and
   * its answer; once over, the review of its game. The rematch is the
   * match's, drawn by the table.
   * @param {TableState} s
   */
  updateControls(s) {
    const g = s.game;
    if (!g) return;
    const n = this.n;
    const focusedId = document.activeElement instanceof HTMLElement && this.controls.contains(document.activeElement) ? document.activeElement.id : null;
    /** @type {Node[]} */
    const out = [];
    const mine = mySide(s);
    const friend = s.info?.opponent === 'friend';
    /**
     * @param {string} id
     * @param {string} text
     * @param {() => void} onclick
     * @param {string} [cls]
     */
    const button = (id, text, onclick, cls = '') => h('button', { type: 'button', id: `${id}-${n}`, class: cls, text, onclick, disabled: s.conn !== 'online' });
    const redraw = () => this.s && this.updateControls(this.s);
    // Alone at the table, nothing to resign or offer on either board.
    if (mine && !g.result && !waitingForFriend(s)) {
      if (this.confirmResign) {
        out.push(
          h(
            'div',
            { class: 'confirm', role: 'group', 'aria-labelledby': `resign-question-${n}` },
            h('p', { id: `resign-question-${n}`, text: t('resignBoardConfirm', { n }) }),
            button('resign-yes', t('resignYes'), () => {
              this.confirmResign = false;
              this.host.command(n, 'resign');
              redraw();
            }, 'danger'),
            button('resign-no', t('resignNo'), () => {
              this.confirmResign = false;
              redraw();
              document.getElementById(`resign-${n}`)?.focus();
            }),
          ),
        );
      } else {
        out.push(button('resign', t('resign'), () => {
          this.confirmResign = true;
          redraw();
          document.getElementById(`resign-no-${n}`)?.focus();
        }));
      }
      if (g.abortable) out.push(button('abort', t('abortGame'), () => this.host.command(n, 'abort')));
      if (friend) {
        if (g.draw_offer === mine) out.push(h('p', { class: 'offer', text: t('drawOffered') }));
        else if (g.draw_offer) {
          out.push(
            h('p', { class: 'offer', text: t('drawOfferedToYou') }),
            button('accept-draw', t('acceptDraw'), () => this.host.command(n, 'accept_draw'), 'primary'),
            button('decline-draw', t('declineDraw'), () => this.host.command(n, 'decline_draw')),
          );
        } else out.push(button('offer-draw', t('offerDraw'), () => this.host.command(n, 'offer_draw')));
      }
    }
    if (!mine && g.draw_offer && !g.result) out.push(h('p', { class: 'offer', text: t('drawOfferPending', { side: sideName(g.draw_offer) }) }));
    if (g.result) {
      // The table's match, as of the latest state: this board's own may be older.
      if (s.match && !s.match.result) out.push(h('p', { class: 'offer', text: t('matchGoesOn') }));
      const href = `/t/${encodeURIComponent(this.host.table)}/games/${g.game}?board=${n}`;
      out.push(
        h('a', {
          class: 'button',
          id: `review-game-${n}`,
          href,
          text: t('reviewThisGame'),
          onclick: (ev) => {
            ev.preventDefault();
            this.host.navigate(href);
          },
        }),
      );
    }
    this.controls.replaceChildren(...out);
    this.controls.hidden = out.length === 0;
    if (focusedId) {
      const again = document.getElementById(focusedId);
      if (again && !(again instanceof HTMLButtonElement && again.disabled)) again.focus();
      else if (!g.result && mine) this.board.focus();
      else /** @type {HTMLElement | null} */ (this.controls.querySelector('button:not([disabled]), a[href]'))?.focus();
    }
  }
}

