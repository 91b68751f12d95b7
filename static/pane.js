// One board drawn in its pane: whose turn, its clocks, the board, its
// counters, the claim on an absent opponent, its own controls and its
// move list. It serves both kinds of table: each board of a two-board
// match has its pane, framed with a header (which board, the viewer's side
// on it); the only board of a table is a match of one, whose parts keep
// the table's unnumbered ids and which the table lays out around its own
// panel. The table view (table.js) owns the socket and the state, and
// gives each pane the table as seen from its board (state.js `onlyBoard`);
// every command a pane sends names its board, which the table puts on the
// wire where there are two. What a pane says in words is tablewords.js's.

import { Board } from './board.js';
import { MoveList } from './movelist.js';
import { positions, startPosition } from './replay.js';
import { turnText, counterRows } from './tablewords.js';
import { t, num } from './i18n.js';
import { h, announce, other, sideName } from './dom.js';
import { mySide, mode, timeLeft, absence, waitingForFriend } from './state.js';
import { formatClock, formatCountdown, isLow } from './clock.js';

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').BoardNumber} BoardNumber */
/** @typedef {import('./wire.js').GameState} GameState */
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
 * @property {() => Node[]} [rematch] at a table of one board, the table's
 *   rematch buttons, drawn among the board's own
 * @property {string} table the table's id
 */

export class BoardPane {
  /**
   * @param {BoardNumber} n
   * @param {PaneHost} host
   * @param {boolean} [alone] the only board of its table: a match of one
   */
  constructor(n, host, alone = false) {
    this.n = n;
    this.host = host;
    /** @type {BoardNumber | null} the board's number as the page names it: none when it is the only one */
    this.label = alone ? null : n;
    this.boardRoot = h('div', { class: 'board-root' });
    this.board = new Board(this.boardRoot, (action) => host.play(n, action));
    /** @type {number | null} the ply shown while browsing the move list; `null`: the live position */
    this.cursor = null;
    /** @type {{key: string, list: string[]} | null} the positions of the moves, by ply */
    this.replayed = null;
    /** @type {TableState | null} the table as seen from this board, as last drawn */
    this.s = null;
    this.hints = true;
    this.confirmResign = false;
    /** @type {string | null} the absence (by its start) the player chose to keep waiting through */
    this.keptWaiting = null;
    /** @type {string} the absent banner's shape as drawn, to redraw it only when that changes */
    this.absentShown = '';
    /** @type {number | null} the game in which the player was told their time runs low */
    this.lowSaid = null;
    this.moveList = new MoveList(
      alone
        ? { live: true, onSelect: (cursor) => this.browseTo(cursor) }
        : { live: true, ownKeys: true, idSuffix: `-${n}`, onSelect: (cursor) => this.browseTo(cursor) },
    );
    this.moveList.swipeOn(this.boardRoot);
    const id = (/** @type {string} */ name) => this.id(name);
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
    this.counters = h('dl', { class: alone ? 'counters' : 'counters compact' });
    /** The eaten goats' pile, under the only board of a table. */
    this.pile = h('div', { class: 'pile', role: 'img' });
    this.absent = alone
      ? h('section', { class: 'absent-banner', id: 'absent', hidden: true, 'aria-labelledby': 'absent-text' })
      : h('div', { class: 'absent-banner', id: id('absent'), hidden: true });
    this.controls = alone ? h('div', { class: 'controls' }) : h('div', { class: 'controls', id: id('controls'), role: 'group', 'aria-label': t('boardActions', { n }) });
    /** @type {HTMLElement | null} the pane's frame at a two-board table (`frame`) */
    this.root = null;
  }

  /**
   * An element's id in this pane: numbered by the board at a two-board
   * table, as the table's own at a table of one.
   * @param {string} name
   */
  id(name) {
    return this.label === null ? name : `${name}-${this.label}`;
  }

  /**
   * The pane as one of two boards: its header, then every part, in a
   * frame of its own.
   */
  frame() {
    this.root = h(
      'section',
      { class: 'pane', id: this.id('board'), 'data-board': String(this.n), 'aria-labelledby': this.id('pane-title') },
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
    return this.root;
  }

  /**
   * The board's column at a table of one board: the turn, the table's
   * lines that go with it (on a phone they are on screen with the result),
   * the clocks, the board and the pile. The table places the absent
   * banner above it, and the controls, the counters and the move list in
   * its panel.
   * @param {Node[]} lines
   */
  column(lines) {
    return h('div', { class: 'board-column', id: 'board' }, this.turn, ...lines, this.clocks, this.browse, this.boardRoot, this.pile);
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
    if (this.label !== null) this.controls.setAttribute('aria-label', t('boardActions', { n: this.label }));
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
    const el = this.root ?? this.boardRoot;
    el.style.scrollMarginTop = `${Math.ceil(top) + 8}px`;
    const smooth = !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    el.scrollIntoView({ block: 'start', behavior: smooth ? 'smooth' : 'auto' });
  }

  /**
   * Shows the position after `cursor` plies (from the move list), or the
   * live one.
   * @param {number | null} cursor
   */
  browseTo(cursor) {
    this.cursor = cursor;
    if (this.s) this.update(this.s, this.hints);
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
    const mine = mySide(s);
    // A rematch empties the list: browsing the old game ends with it.
    if (this.cursor !== null && this.cursor >= s.moves.length) this.cursor = null;
    const shown = this.cursor === null ? null : this.positionAt(s, this.cursor);
    if (shown === null) {
      this.cursor = null;
      this.board.update({ position: g.position, legal: g.legal, lastAction: g.last_action, mode: m, hints }, animate);
    } else {
      this.board.update({ position: shown, legal: [], lastAction: s.moves[/** @type {number} */ (this.cursor) - 1] ?? null, mode: 'watch', hints: false }, false);
    }
    this.updateBrowse(s);

    if (this.label !== null) {
      const n = this.label;
      if (mine) this.title.textContent = t(mine === 'goats' ? 'boardYouGoats' : 'boardYouTigers', { n });
      else this.title.textContent = t(g.host_side === 'goats' ? 'boardHostGoats' : 'boardHostTigers', { n });
    }
    this.turn.textContent = turnText(s, this.label);
    this.turn.classList.toggle('finished', Boolean(g.result));
    this.turn.classList.toggle('my-turn', m === 'play');
    this.root?.classList.toggle('my-turn', m === 'play');
    this.root?.classList.toggle('finished', Boolean(g.result));

    this.counters.replaceChildren(
      ...counterRows(g, this.label).map(([id, label, value]) => h('div', { class: `counter ${id}` }, h('dt', { text: label }), h('dd', { id: this.id(`counter-${id}`), text: value }))),
    );
    if (this.label === null) this.updatePile(g);

    this.updateControls(s);
    this.moveList.update(s.moves, this.cursor);
    this.tick(Date.now());
  }

  /**
   * The eaten goats' pile: a slot for each goat the tigers need, filled as
   * they are eaten.
   * @param {GameState} g
   */
  updatePile(g) {
    this.pile.setAttribute('aria-label', `${t('eatenPile')}: ${num(g.eaten)}/${num(g.goats_to_win)}`);
    const icons = [];
    for (let i = 0; i < g.goats_to_win; i++) {
      const slot = h('span', { class: i < g.eaten ? 'pile-goat eaten' : 'pile-goat' });
      if (i < g.eaten) {
        const icon = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
        icon.setAttribute('viewBox', '-40 -40 80 80');
        icon.setAttribute('aria-hidden', 'true');
        const use = document.createElementNS('http://www.w3.org/2000/svg', 'use');
        use.setAttribute('href', '#goat-piece');
        use.setAttribute('x', '-40');
        use.setAttribute('y', '-40');
        use.setAttribute('width', '80');
        use.setAttribute('height', '80');
        icon.append(use);
        slot.append(icon);
      }
      icons.push(slot);
    }
    this.pile.replaceChildren(h('span', { class: 'pile-label', 'aria-hidden': 'true', text: t('eatenPile') }), ...icons);
  }

  /**
   * Moves the clocks and the absence countdown on.
   * @param {number} now
   * @returns {boolean} whether anything counts down
   */
  tick(now) {
    if (!this.s) return false;
    const running = this.updateClocks(this.s, now);
    const counting = this.updateAbsent(this.s, now);
    return running || counting;
  }

  /**
   * Both clocks, the running one counting down from the turn's start.
   * @param {TableState} s
   * @param {number} now the page's time
   * @returns {boolean} whether a clock runs
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
      // At a table of one board the player hears it once a game when their own time runs low.
      if (this.label === null && low && runs && side === mine && this.lowSaid !== g.game) {
        this.lowSaid = g.game;
        announce(t('announceLowTime', { time }));
      }
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
   * The absent opponent on this board: who left, the countdown to when
   * the present player may claim, then the claims and "keep waiting".
   * @param {TableState} s
   * @param {number} now
   * @returns {boolean} whether the countdown runs
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
    const textId = this.id('absent-text');
    // The countdown only changes the text: the buttons (and the focus) stay.
    const shape = `${a.side}|${since}|${claimable}|${waiting}|${Boolean(mine)}|${s.conn}`;
    if (shape === this.absentShown) {
      const text = document.getElementById(textId);
      if (text && text.textContent !== message) text.textContent = message;
      return !claimable;
    }
    const focusedId = document.activeElement instanceof HTMLElement && this.absent.contains(document.activeElement) ? document.activeElement.id : null;
    const before = this.absentShown;
    this.absentShown = shape;
    this.absent.hidden = false;
    /** @type {Node[]} */
    const buttons = [];
    const n = this.n;
    if (mine && claimable) {
      const off = s.conn !== 'online';
      buttons.push(
        h('button', { type: 'button', id: this.id('claim-victory'), class: 'primary', text: t('claimVictory'), disabled: off, onclick: () => this.host.command(n, 'claim_victory') }),
        h('button', { type: 'button', id: this.id('claim-draw'), text: t('claimDraw'), disabled: off, onclick: () => this.host.command(n, 'claim_draw') }),
      );
      if (!waiting) {
        buttons.push(
          h('button', {
            type: 'button',
            id: this.id('keep-waiting'),
            text: t('keepWaiting'),
            onclick: () => {
              this.keptWaiting = since;
              this.updateAbsent(s, Date.now());
              document.getElementById(this.id('claim-victory'))?.focus();
            },
          }),
        );
      }
      // At a table of one board, said once, when the grace period ends.
      if (this.label === null && !before.includes(`|${since}|true|`)) announce(t('absentClaimable'));
    }
    this.absent.replaceChildren(h('p', { id: textId, text: message }), ...(buttons.length ? [h('div', { class: 'absent-actions' }, ...buttons)] : []));
    if (focusedId) document.getElementById(focusedId)?.focus();
    return !claimable;
  }

  /**
   * The position after `k` actions, drawn from the moves; `null` if the
   * drawing does not end where the server's state does (then the page
   * does not pretend to know).
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

  /**
   * The notice above the board while the move list is browsed.
   * @param {TableState} s
   */
  updateBrowse(s) {
    const browsing = this.cursor !== null;
    this.browse.hidden = !browsing;
    if (!browsing) {
      if (this.browse.contains(document.activeElement)) this.moveList.list.querySelector('.ply.current')?.closest('button')?.focus();
      this.browse.replaceChildren();
      return;
    }
    const had = this.browse.contains(document.activeElement);
    const id = this.id('back-to-live');
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
   * table's: at a table of one board it is drawn here too (`host.rematch`).
   * @param {TableState} s
   */
  updateControls(s) {
    const g = s.game;
    if (!g) return;
    const n = this.n;
    const alone = this.label === null;
    const focusedId = document.activeElement instanceof HTMLElement && this.controls.contains(document.activeElement) ? document.activeElement.id : null;
    /** @type {Node[]} */
    const out = [];
    const mine = mySide(s);
    const friend = s.info?.opponent === 'friend';
    /**
     * @param {string} name
     * @param {string} text
     * @param {() => void} onclick
     * @param {string} [cls]
     */
    const button = (name, text, onclick, cls = '') => h('button', { type: 'button', id: this.id(name), class: cls, text, onclick, disabled: s.conn !== 'online' });
    const redraw = () => this.s && this.updateControls(this.s);
    if (waitingForFriend(s)) {
      // Alone at the table: nothing to resign or offer, only to call it off.
      if (alone && g.abortable) out.push(button('abort', t('cancelTable'), () => this.host.command(n, 'abort')));
    } else if (mine && !g.result) {
      if (this.confirmResign) {
        out.push(
          h(
            'div',
            { class: 'confirm', role: 'group', 'aria-labelledby': this.id('resign-question') },
            h('p', { id: this.id('resign-question'), text: alone ? t('resignConfirm') : t('resignBoardConfirm', { n }) }),
            button('resign-yes', t('resignYes'), () => {
              this.confirmResign = false;
              this.host.command(n, 'resign');
              redraw();
            }, 'danger'),
            button('resign-no', t('resignNo'), () => {
              this.confirmResign = false;
              redraw();
              document.getElementById(this.id('resign'))?.focus();
            }),
          ),
        );
      } else {
        out.push(button('resign', t('resign'), () => {
          this.confirmResign = true;
          redraw();
          document.getElementById(this.id('resign-no'))?.focus();
        }));
      }
      if (g.abortable && alone) {
        // Before both sides have moved: called off, no result. At a table
        // whose guest never came, that cancels the table.
        const cancel = friend && s.player === 'host' && g.game === 1 && g.ply === 0 && s.presence !== null && !s.presence[other(mine)].connected;
        out.push(button('abort', cancel ? t('cancelTable') : t('abortGame'), () => this.host.command(n, 'abort')), h('p', { class: 'hint', text: t('abortHint') }));
      } else if (g.abortable) out.push(button('abort', t('abortGame'), () => this.host.command(n, 'abort')));
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
    if (alone && this.host.rematch) out.push(...this.host.rematch());
    if (g.result) {
      // The table's match, as of the latest state: this board's own may be older.
      if (s.match && !s.match.result) out.push(h('p', { class: 'offer', text: t('matchGoesOn') }));
      const href = `/t/${encodeURIComponent(this.host.table)}/games/${g.game}${alone ? '' : `?board=${n}`}`;
      out.push(
        h('a', {
          class: 'button',
          id: this.id('review-game'),
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
    // No empty box where there is nothing to do (a spectator's view); at a
    // table of one board, the controls' card goes with them.
    const box = alone ? this.controls.parentElement : this.controls;
    if (box) box.hidden = out.length === 0;
    if (focusedId) {
      const again = document.getElementById(focusedId);
      if (again && !(again instanceof HTMLButtonElement && again.disabled)) again.focus();
      else if (!g.result && mine) this.board.focus();
      else /** @type {HTMLElement | null} */ (this.controls.querySelector('button:not([disabled]), a[href]'))?.focus();
    }
  }
}
