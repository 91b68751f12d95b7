// The table view: one table, played or watched live over the websocket.
// The socket (socket.js) brings messages, the reducer (state.js) turns them
// into the next state, and this view draws that state and does what the
// state alone cannot: storing seats, announcing, sending actions. Each
// board is drawn by a pane (pane.js): one at a table of one board (a
// match of one), two at a two-board table, through the same path; this
// view draws what is the table's (the seats, the series or the match, the
// links, "New table") and lays the panes out. Its words are tablewords.js's.

import { rulesText } from './words.js';
import { t, num } from './i18n.js';
import { h, mainElement, announce, sideName, shareSheet } from './dom.js';
import { loadSeat, saveSeat, forgetSeat, hintsOn, saveHints, rememberGame } from './storage.js';
import { TableSocket } from './socket.js';
import { playerAsked } from './account.js';
import * as sound from './sound.js';
import { apply, initial, mySide, mode, onlyBoard, matchOf, waitingForFriend } from './state.js';
import { BoardPane } from './pane.js';
import { seriesText, matchText, tallyText, pageTitle, eventMoment, eventSaid, eventSounds, joinSaid, presenceSaid } from './tablewords.js';

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').ServerMessage} ServerMessage */
/** @typedef {import('./wire.js').ClientMessage} ClientMessage */
/** @typedef {import('./state.js').TableState} TableState */
/** @typedef {import('./state.js').Fatal} Fatal */
/** @typedef {import('./state.js').LocalEvent} LocalEvent */
/** @typedef {import('./i18n.js').StringKey} StringKey */
/** @typedef {import('./wire.js').BoardNumber} BoardNumber */
/** @typedef {import('./pane.js').BoardCommand} BoardCommand */

/** How long the socket waits for the page's first `GET /api/me` at most. */
const PLAYER_WAIT_MS = 5000;

/**
 * The parts of the table view that `update` fills; each board's are its
 * pane's.
 * @typedef {object} TableElements
 * @property {import('./wire.js').Role | null} role the role the view was built for
 * @property {HTMLElement} banner
 * @property {HTMLElement} invite the Share button beside the board while the friend has not come
 * @property {HTMLElement} seats
 * @property {HTMLElement} spectators
 * @property {HTMLElement} tally
 * @property {HTMLElement} series at a table of one board: the series' score, under the turn
 * @property {HTMLElement} leave "New table", apart from the game's buttons
 * @property {HTMLElement | null} links
 * @property {HTMLElement | null} watch
 * @property {HTMLElement} [match] at a two-board table: the match's score or result
 * @property {HTMLElement} [matchControls] at a two-board table: the new match and its answer
 */

export class TableView {
  /**
   * @param {string} table
   * @param {(path: string) => void} navigate opens another view of the page
   */
  constructor(table, navigate) {
    this.table = table;
    this.navigate = navigate;
    const frag = new URLSearchParams(location.hash.slice(1));
    const stored = loadSeat(table);
    /** @type {string | null} the capability this page joins with */
    this.token = null;
    /** @type {'seat' | 'invite' | 'watch' | 'session' | null} */
    this.tokenKind = null;
    const seat = frag.get('seat');
    const invite = frag.get('invite');
    const watch = frag.get('watch');
    if (seat) {
      this.token = seat;
      this.tokenKind = 'seat';
    } else if (invite && stored && stored.player === 'guest') {
      // This browser already claimed the seat: reconnect it.
      this.token = stored.secret;
      this.tokenKind = 'seat';
      history.replaceState(null, '', `/t/${encodeURIComponent(table)}#seat=${encodeURIComponent(stored.secret)}`);
    } else if (invite) {
      this.token = invite;
      this.tokenKind = 'invite';
    } else if (watch) {
      this.token = watch;
      this.tokenKind = 'watch';
    } else if (stored) {
      this.token = stored.secret;
      this.tokenKind = 'seat';
    } else {
      // No link: the browser's session (its cookie) may hold a seat here,
      // taken on another device or before this browser forgot its link.
      this.tokenKind = 'session';
    }
    // Without a link, the page joins with the browser's session: its
    // player's own seat (a table the lobby made, or one it took with a
    // session), or the open gallery of a lobby table.
    /** @type {TableState} */
    this.s = initial(true);
    /** Whether "New table" is asking for confirmation. */
    this.confirmLeave = false;
    /** Whether to place the focus once the table is drawn. */
    this.wantFocus = false;
    /** @type {number | undefined} the timer that moves the clocks and the countdown on */
    this.ticker = undefined;
    this.hints = hintsOn();
    this.actionCounter = 0;
    /** @type {Record<string, string>} copy-button feedback, by link kind */
    this.copyState = {};
    /** @type {{game: number, text: string} | null} a rated game's rating changes, once read */
    this.ratings = null;
    /** @type {TableElements | null} the parts of the view that `update` fills */
    this.el = null;
    /** @type {BoardPane[]} the table's boards, in their order: one, or two */
    this.panes = [];
    /** @type {BoardNumber[]} the boards where it was the viewer's turn when last drawn */
    this.playingBefore = [];
    /** @type {string[]} what is to be said, gathered from events that come together */
    this.toSay = [];
    /** @type {number | undefined} */
    this.sayTimer = undefined;
    this.socket = new TableSocket({
      hello: () => {
        /** @type {ClientMessage} */
        const hello = this.token ? { type: 'hello', table: this.table, token: this.token } : { type: 'hello', table: this.table };
        if (this.s.version !== null) hello.since = this.s.version;
        return hello;
      },
      onMessage: (msg) => this.receive(msg),
      onLost: () => {
        this.dispatch({ type: 'lost' });
        this.update();
      },
      onReplaced: () => {
        // The same seat was opened elsewhere (another tab): that one plays.
        this.dispatch({ type: 'replaced' });
        this.render();
      },
    });
    this.destroyed = false;
    // A seat the hello claims is the session player's too (their games
    // list it; signing up keeps it). On a first visit the session cookie
    // comes with the answer to the page's first `GET /api/me`: the socket
    // waits for it, though not for ever.
    Promise.race([playerAsked, new Promise((resolve) => window.setTimeout(resolve, PLAYER_WAIT_MS))]).then(() => {
      if (!this.destroyed) this.socket.start();
    });
  }

  destroy() {
    this.destroyed = true;
    window.clearInterval(this.ticker);
    this.ticker = undefined;
    document.title = t('title');
    this.socket.stop();
    window.clearTimeout(this.sayTimer);
    for (const pane of this.panes) pane.destroy();
  }

  /**
   * Moves the state on.
   * @param {ServerMessage | LocalEvent} msg
   */
  dispatch(msg) {
    this.s = apply(this.s, msg, Date.now());
  }

  /** @param {ClientMessage} msg */
  send(msg) {
    this.socket.send(msg);
  }

  /**
   * A message of the server: the next state, then what it means for the
   * view, the storage and the live region.
   * @param {ServerMessage} msg
   */
  receive(msg) {
    const before = this.s;
    this.dispatch(msg);
    const s = this.s;
    if ((msg.type === 'snapshot' || msg.type === 'event') && s !== before) this.remember();
    switch (msg.type) {
      case 'welcome': {
        if (msg.secret) {
          this.token = msg.secret;
          this.tokenKind = 'seat';
          // One browser may hold both seats (two tabs): the host's record,
          // with its links, is kept; this tab's fragment holds the guest's.
          if (loadSeat(this.table)?.player !== 'host') saveSeat(this.table, { secret: msg.secret, player: 'guest' });
          history.replaceState(null, '', `/t/${encodeURIComponent(this.table)}#seat=${encodeURIComponent(msg.secret)}`);
        } else if (msg.role === 'player' && this.tokenKind === 'seat' && this.token) {
          const stored = loadSeat(this.table);
          if (!stored || (stored.secret !== this.token && (stored.player !== 'host' || msg.player === 'host'))) {
            saveSeat(this.table, { secret: this.token, player: msg.player });
          }
        }
        // A reconnect keeps the view (and the focus); a first join builds it.
        if (this.el && this.el.role === msg.role) this.update();
        else this.render();
        // An action sent before the connection dropped and never answered
        // goes again with its id: the server applies it at most once.
        // At a two-board table it names the board it was sent on.
        if (s.pending && s.pendingAction) {
          /** @type {ClientMessage} */
          const again = { type: 'action', id: s.pending, action: s.pendingAction };
          if (s.pendingBoard) again.board = s.pendingBoard;
          this.send(again);
        }
        break;
      }
      case 'snapshot': {
        // One action more in the same game: the board shows it played.
        const was = before.game;
        const now = s.game;
        const played = was !== null && now !== null && was.game === now.game && was.ply + 1 === now.ply;
        this.update(played ? 1 : null);
        if (was === null) this.say(joinSaid(s, this.boards()));
        break;
      }
      case 'event':
        if (s !== before) this.receiveEvent(before, msg);
        break;
      case 'presence': {
        const said = presenceSaid(before, s, Date.now());
        if (said) this.say(said);
        this.update();
        break;
      }
      case 'ack':
        this.update();
        break;
      case 'error': {
        if (s.fatal) {
          this.socket.stop();
          // The session holds no seat here: as without a link.
          if (this.tokenKind === 'session' && s.fatal === 'invalid_token') this.s = { ...s, fatal: 'no_seat' };
          else if (s.fatal === 'invalid_token' || s.fatal === 'unknown_table') forgetSeat(this.table);
          this.render();
          return;
        }
        /** @type {Partial<Record<import('./wire.js').ErrorCode, StringKey>>} */
        const said = { not_your_turn: 'notYourTurn', not_claimable: 'notClaimable', not_abortable: 'notAbortable', too_many_offers: 'tooManyOffers' };
        const key = said[msg.code];
        announce(key ? t(key) : t('actionRefused', { message: msg.message }));
        this.update();
        break;
      }
      case 'pong':
        break;
    }
  }

  /** Keeps this game in "my games". */
  remember() {
    const { game: g, info, role } = this.s;
    if (!g || !info || !role) return;
    rememberGame({
      table: this.table,
      game: g.game,
      role,
      side: mySide(this.s),
      opponent: info.opponent,
      level: info.level,
      result: g.result,
      goats_to_win: g.goats_to_win,
      ply_limit: g.ply_limit,
    });
  }

  /**
   * An event: the view, then what is said and heard, naming the board at
   * a two-board table.
   * @param {TableState} before
   * @param {Extract<ServerMessage, {type: 'event'}>} msg
   */
  receiveEvent(before, msg) {
    const m = eventMoment(before, this.s, msg);
    // A game that just ended may have been rated: both players see how
    // their ratings moved.
    // Only a lobby game is rated, and a lobby table is joined with the
    // session, never a link; an aborted game is never rated.
    const ended = msg.state.result;
    if (ended && ended.reason !== 'aborted' && !before.game?.result && !this.token && !this.two()) this.readRatings(msg.state.game);
    const pane = this.pane(m.n);
    if (pane) pane.confirmResign = false;
    this.update(msg.event.kind === 'played' ? m.n : null);
    for (const text of eventSaid(msg, m, this.s.player, this.two())) this.say(text);
    sound.play(eventSounds(msg.event, msg.state, m));
  }

  /**
   * Reads a finished game's rating changes and shows them with the tally.
   * @param {number} game
   */
  async readRatings(game) {
    try {
      const res = await fetch(`/api/tables/${encodeURIComponent(this.table)}/games/${game}`);
      if (!res.ok) return;
      const record = /** @type {import('./wire.js').GameRecord} */ (await res.json());
      if (!record.ratings) return;
      /** @param {import('./wire.js').RatingChange} r */
      const change = (r) => t('ratingChange', { before: r.before, after: r.after, change: `${r.change >= 0 ? '+' : '−'}${num(Math.abs(r.change))}` });
      this.ratings = { game, text: `${sideName('goats')} ${change(record.ratings.goats)} · ${sideName('tigers')} ${change(record.ratings.tigers)}` };
      this.update();
    } catch {
      // Without the record, the tally stays as it is.
    }
  }

  // ------------------------------------------------------------ boards

  /** Whether the table has two boards. */
  two() {
    return this.s.info?.format === 'two_boards';
  }

  /** @returns {BoardNumber[]} the table's boards */
  boards() {
    return this.two() ? [1, 2] : [1];
  }

  /**
   * The pane of board `n`, once drawn.
   * @param {BoardNumber} n
   */
  pane(n) {
    return this.panes.find((p) => p.n === n) ?? null;
  }

  /** A fresh id for an action or a command. */
  nextId() {
    this.actionCounter += 1;
    return `${Date.now().toString(36)}-${this.actionCounter}`;
  }

  /**
   * Plays on a board; at a two-board table, the action names it.
   * @param {BoardNumber} board
   * @param {string} action
   */
  playOn(board, action) {
    const id = this.nextId();
    if (this.two()) {
      this.dispatch({ type: 'sent', id, action, board });
      this.send({ type: 'action', id, action, board });
    } else {
      this.dispatch({ type: 'sent', id, action });
      this.send({ type: 'action', id, action });
    }
    this.update();
  }

  /**
   * Sends a command about a board's game, with an id (acknowledged once
   * stored); at a two-board table, it names the board.
   * @param {BoardNumber} board
   * @param {BoardCommand} type
   */
  commandOn(board, type) {
    const id = this.nextId();
    this.send(this.two() ? { type, board, id } : { type, id });
  }

  /**
   * Sends a command about the table, with an id.
   * @param {'decline_rematch'} type
   */
  command(type) {
    this.send({ type, id: this.nextId() });
  }

  // ------------------------------------------------------------ drawing

  /** Builds the whole view (after joining, or a language switch). */
  render() {
    if (this.s.fatal) {
      this.renderFatal(this.s.fatal);
      return;
    }
    if (!this.s.info) {
      mainElement().replaceChildren(h('p', { class: 'connecting', role: 'status', text: t('connecting') }));
      return;
    }
    const two = this.two();
    if (!this.panes.length) {
      /** @type {import('./pane.js').PaneHost} */
      const host = {
        play: (n, action) => this.playOn(n, action),
        command: (n, type) => this.commandOn(n, type),
        navigate: (path) => this.navigate(path),
        rematch: () => this.rematchControls(),
        table: this.table,
      };
      this.panes = two ? [new BoardPane(1, host), new BoardPane(2, host)] : [new BoardPane(1, host, true)];
    }
    for (const pane of this.panes) pane.relabel();
    this.el = {
      role: this.s.role,
      banner: h('p', { class: 'banner', role: 'status' }),
      invite: h('div', { class: 'invite', id: 'invite', hidden: true }),
      seats: h('ul', { class: 'seats' }),
      spectators: h('p', { class: 'spectators' }),
      tally: h('p', { class: 'tally' }),
      series: h('p', { class: 'series', id: 'series', hidden: true }),
      leave: h('div', { class: 'leave' }),
      links: this.renderLinks(),
      watch: this.s.role === 'spectator' ? this.renderWatch() : null,
    };
    if (two) {
      this.el.match = h('p', { class: 'match-line', id: 'match' });
      this.el.matchControls = h('div', { class: 'controls', id: 'match-controls' });
    }
    mainElement().replaceChildren(two ? this.layoutTwo(this.el) : this.layoutOne(this.el, this.panes[0]));
    this.update();
  }

  /**
   * A table of one board: the board's column (its turn, the series' score
   * and the invitation under it, the clocks, the board, the pile), then a
   * panel with what to do now first (under the board on a phone), the
   * counters and the table's status, the links, the moves and "New table".
   * @param {TableElements} e
   * @param {BoardPane} pane
   */
  layoutOne(e, pane) {
    return h(
      'div',
      { class: 'table' },
      e.banner,
      pane.absent,
      pane.column([e.series, e.invite]),
      h(
        'aside',
        { class: 'panel', 'aria-label': t('status') },
        e.watch,
        h('section', { class: 'card', id: 'actions', 'aria-label': t('actions') }, pane.controls),
        this.statusCard([pane.counters, e.seats, e.spectators, e.tally]),
        e.links,
        pane.moveList.root,
        h('section', { class: 'card leave-card', 'aria-label': t('leaveLabel') }, e.leave),
      ),
    );
  }

  /**
   * A two-board table: the match's score and buttons above both boards
   * (side by side on a wide screen, one above the other on a narrow one),
   * each board in its own pane with its own controls, then the seats, the
   * links and "New table".
   * @param {TableElements} e
   */
  layoutTwo(e) {
    return h(
      'div',
      { class: 'table pair' },
      e.banner,
      h('section', { class: 'card match-card', 'aria-label': t('actions') }, e.match, e.matchControls),
      e.invite,
      h('div', { class: 'boards', role: 'group', 'aria-label': t('boardsLabel') }, ...this.panes.map((p) => p.frame())),
      h(
        'div',
        { class: 'panel pair-panel' },
        e.watch,
        this.statusCard([e.seats, h('p', { class: 'hint', text: t('seatsOnBoardOne') }), e.spectators, e.tally]),
        e.links,
        h('section', { class: 'card leave-card', 'aria-label': t('leaveLabel') }, e.leave),
      ),
    );
  }

  /**
   * The table's status: `lines` (the seats and the games so far), its
   * rules, the way to learn them and the sound switch.
   * @param {Node[]} lines
   */
  statusCard(lines) {
    return h(
      'section',
      { class: 'card' },
      h('h2', { class: 'visually-hidden', text: t('status') }),
      ...lines,
      h('p', { class: 'rules', text: rulesText(this.s.info?.variant) }),
      h('p', { class: 'learn-ref' }, h('a', { href: '/learn', id: 'learn-link', target: '_blank', rel: 'noopener', text: t('learnShort') })),
      this.renderSoundSwitch(),
    );
  }

  /**
   * @param {Fatal} code
   */
  renderFatal(code) {
    /** @type {Record<string, [StringKey, StringKey]>} */
    const pages = {
      seat_taken: ['seatTakenHeading', 'seatTakenText'],
      gallery_full: ['galleryFullHeading', 'galleryFullText'],
      invalid_token: ['invalidTokenHeading', 'invalidTokenText'],
      unknown_table: ['unknownTableHeading', 'unknownTableText'],
      no_seat: ['noSeatHeading', 'noSeatText'],
      replaced: ['replacedHeading', 'replacedText'],
    };
    const [heading, text] = pages[code] || ['errorHeading', 'networkError'];
    /** @type {(Node | null)[]} */
    const buttons = [h('a', { class: 'button primary', href: '/', onclick: (ev) => this.goHome(ev), text: t('goHome') })];
    if (code === 'gallery_full' || code === 'replaced') {
      buttons.push(
        h('button', {
          type: 'button',
          id: 'try-again',
          text: code === 'replaced' ? t('playHere') : t('tryAgain'),
          onclick: () => {
            this.dispatch({ type: 'retry' });
            this.render();
            this.socket.start();
          },
        }),
      );
    }
    mainElement().replaceChildren(
      h('section', { class: `notice ${code.replace(/_/g, '-')}` }, h('h2', { text: t(heading) }), h('p', { text: t(text) }), h('p', { class: 'notice-actions' }, ...buttons)),
    );
  }

  /** @param {Event} ev */
  goHome(ev) {
    ev.preventDefault();
    this.navigate('/');
  }

  /** The links panel, for the creator of the table. */
  renderLinks() {
    const stored = loadSeat(this.table);
    if (this.s.role !== 'player' || !stored || stored.secret !== this.token) return null;
    /** @type {[string, StringKey, StringKey, string | null | undefined][]} */
    const rows = [
      ['opponent', 'opponentLink', 'copyOpponentLink', stored.opponent_link],
      ['spectator', 'spectatorLink', 'copySpectatorLink', stored.spectator_link],
    ];
    const present = rows.filter((r) => r[3]);
    if (!present.length) return null;
    return h(
      'section',
      { class: 'card links' },
      h('h2', { text: t('links') }),
      ...present.map(([kind, label, copyLabel, link]) => {
        const input = h('input', { id: `${kind}-link`, type: 'text', readonly: true, value: String(link), onfocus: (e) => /** @type {HTMLInputElement} */ (e.target).select() });
        const status = h('span', { class: 'copy-status', role: 'status', text: this.copyState[kind] || '' });
        return h(
          'div',
          { class: 'link-row' },
          h('label', { for: `${kind}-link`, text: t(label) }),
          h(
            'div',
            { class: 'link-field' },
            input,
            h('button', { type: 'button', id: `copy-${kind}-link`, 'aria-label': t(copyLabel), text: t('copy'), onclick: () => this.copy(kind, String(link), input, status) }),
            // The opponent link's Share stands beside the board while it is needed.
            kind === 'spectator'
              ? h('button', { type: 'button', id: 'share-spectator-link', 'aria-label': t('shareSpectatorLink'), text: t('share'), onclick: () => this.share(kind, String(link), status) })
              : null,
          ),
          status,
        );
      }),
      // Only an opponent link is an invitation to a seat.
      stored.opponent_link ? h('p', { class: 'private-note', text: t('linksPrivate') }) : h('p', { class: 'hint', text: t('spectatorLinkNote') }),
    );
  }

  /**
   * Beside the board, while the host of a friend table waits: what to do
   * and the Share button for the opponent link.
   */
  updateInvite() {
    const e = this.el;
    if (!e) return;
    const link = loadSeat(this.table)?.opponent_link;
    const show = Boolean(link) && waitingForFriend(onlyBoard(this.s, 1)) && this.s.conn === 'online';
    if (show === !e.invite.hidden) return;
    const had = e.invite.contains(document.activeElement);
    e.invite.hidden = !show;
    if (!show) {
      e.invite.replaceChildren();
      if (had) this.panes[0]?.focus();
      return;
    }
    const status = h('span', { class: 'copy-status', role: 'status' });
    e.invite.replaceChildren(
      h('p', { text: t('inviteText') }),
      h('button', { type: 'button', id: 'share-opponent-link', class: 'primary', 'aria-label': t('shareOpponentLink'), text: t('share'), onclick: () => this.share('opponent', String(link), status) }),
      status,
    );
  }

  /**
   * Hands a link to the phone's share sheet (the Web Share API) where the
   * browser has one, else copies it.
   * @param {string} kind
   * @param {string} link
   * @param {HTMLElement} status where "Copied" is said
   */
  async share(kind, link, status) {
    if (await shareSheet(link)) return;
    const input = /** @type {HTMLInputElement | null} */ (document.getElementById(`${kind}-link`));
    await this.copy(kind, link, input, status);
  }

  /**
   * @param {string} kind
   * @param {string} link
   * @param {HTMLInputElement | null} input selected for copying by hand where the clipboard refuses
   * @param {HTMLElement} status
   */
  async copy(kind, link, input, status) {
    try {
      await navigator.clipboard.writeText(link);
      this.copyState[kind] = t('copied');
    } catch {
      input?.focus();
      input?.select();
      this.copyState[kind] = t('copyFailed');
    }
    status.textContent = this.copyState[kind];
    window.setTimeout(() => {
      delete this.copyState[kind];
      status.textContent = '';
    }, 4000);
  }

  /** The sound switch, kept in this browser. */
  renderSoundSwitch() {
    return h(
      'label',
      { class: 'check sound-switch' },
      h('input', {
        type: 'checkbox',
        id: 'sound',
        checked: sound.enabled(),
        onchange: (e) => sound.setEnabled(/** @type {HTMLInputElement} */ (e.target).checked),
      }),
      h('span', { text: t('soundSwitch') }),
    );
  }

  renderWatch() {
    return h(
      'section',
      { class: 'card watch' },
      h('p', { text: t('spectating') }),
      h(
        'label',
        { class: 'check' },
        h('input', {
          type: 'checkbox',
          id: 'hints',
          checked: this.hints,
          onchange: (e) => {
            this.hints = /** @type {HTMLInputElement} */ (e.target).checked;
            saveHints(this.hints);
            this.update();
          },
        }),
        h('span', { text: t('showHints') }),
      ),
    );
  }

  /**
   * Fills the view from the current state: each board's pane, then what
   * is the table's.
   * @param {BoardNumber | null} [animate] the board whose last action is animated
   */
  update(animate = null) {
    const e = this.el;
    const g = this.s.game;
    const two = this.two();
    if (!e || !g || !this.panes.length || this.s.fatal || (two && !this.s.boards)) return;
    for (const pane of this.panes) pane.update(onlyBoard(this.s, pane.n), this.hints, animate === pane.n);

    e.banner.textContent = this.s.conn === 'reconnecting' ? t('reconnecting') : '';
    e.banner.hidden = this.s.conn !== 'reconnecting';
    const playing = this.boards().filter((n) => mode(onlyBoard(this.s, n)) === 'play');
    document.title = pageTitle(playing, two);
    if (two) this.bringTurnIntoView(playing);

    const match = matchOf(this.s);
    e.match?.replaceChildren(match ? matchText(match, this.s.player) : '');
    e.match?.classList.toggle('decided', Boolean(match?.result));
    e.series.hidden = !g.series;
    e.series.textContent = g.series ? seriesText(g.series, this.s.player) : '';

    // Seats and gallery, by board 1's sides.
    const p = this.s.presence;
    const mine = mySide(this.s);
    e.seats.replaceChildren(
      ...(/** @type {Side[]} */ (['goats', 'tigers'])).map((sd) => {
        // Presence names each seat by the side it held when it was sent; a
        // rematch swaps the sides, so each seat is found by its player.
        const holder = g.host_side === sd ? 'host' : 'guest';
        const seat = p ? ([p.goats, p.tigers].find((v) => v.player === holder) ?? p[sd]) : null;
        let who = sideName(sd);
        if (mine === sd) who += ` (${t('you')})`;
        let state = '';
        if (seat && seat.computer) state = t('computerLevel', { level: seat.level ?? this.s.info?.level ?? 0 });
        else if (seat) state = seat.connected ? t('connected') : t('disconnected');
        const on = Boolean(seat && seat.connected);
        return h(
          'li',
          { class: `seat ${sd} ${on ? 'on' : 'off'}`, id: `seat-${sd}` },
          h('span', { class: 'dot', 'aria-hidden': 'true' }),
          h('span', { class: 'seat-name', text: who }),
          h('span', { class: 'seat-state', text: state }),
        );
      }),
    );
    if (!p) e.spectators.textContent = '';
    else if (p.spectator_seats === 0) e.spectators.textContent = t('noSpectatorSeats');
    else e.spectators.textContent = t('spectatorsCount', { n: p.spectators, seats: p.spectator_seats });
    const rated = this.ratings && this.ratings.game === this.s.game?.game ? ` · ${this.ratings.text}` : '';
    e.tally.textContent = tallyText(this.s, two) + rated;

    if (two) this.updateMatchControls();
    this.updateInvite();
    this.updateLeave();
    this.tick();
    this.placeFocus();
  }

  /**
   * Moves the clocks and the absent opponent's countdown on, and keeps a
   * timer going (ten times a second) while either runs.
   */
  tick() {
    const now = Date.now();
    let running = false;
    for (const pane of this.panes) running = pane.tick(now) || running;
    if (running && this.ticker === undefined) this.ticker = window.setInterval(() => this.tick(), 100);
    else if (!running && this.ticker !== undefined) {
      window.clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  /**
   * The rematch once the game (at a two-board table, the match) is over:
   * the button, or the answer to the opponent's request; at a two-board
   * table a spectator sees that one was asked.
   * @returns {Node[]}
   */
  rematchControls() {
    const one = this.s.game;
    const two = this.two();
    if (!one || !(two ? matchOf(this.s)?.result : one.result)) return [];
    const mine = mySide(this.s);
    // At a two-board table the request is stored on both boards; board 1's names the asker's side there.
    const offer = one.rematch_offer;
    const off = this.s.conn !== 'online';
    if (!mine) return two && offer ? [h('p', { class: 'offer', text: t('newMatchPending') })] : [];
    if (offer === mine) return [h('p', { class: 'offer', text: t(two ? 'newMatchAsked' : 'rematchAsked') })];
    const rematch = (/** @type {string} */ text) => h('button', { type: 'button', id: 'rematch', class: 'primary', text, disabled: off, onclick: () => this.send({ type: 'rematch' }) });
    if (offer) {
      return [
        h('p', { class: 'offer', text: t(two ? 'newMatchOfferedToYou' : 'rematchOfferedToYou') }),
        rematch(t(two ? 'acceptNewMatch' : 'rematchAccept')),
        h('button', { type: 'button', id: 'decline-rematch', text: t('declineRematch'), disabled: off, onclick: () => this.command('decline_rematch') }),
      ];
    }
    // In a series not yet decided the next game starts at once; after a
    // decided one a rematch begins a new series.
    if (two) return [rematch(t('newMatch'))];
    return [rematch(!one.series ? t('rematch') : one.series.result ? t('newSeries') : t('nextGame'))];
  }

  /**
   * "New table", apart from the game's buttons: in the middle of a game a
   * player is asked first, since leaving forgets the seat.
   */
  updateLeave() {
    const e = this.el;
    const g = this.s.game;
    if (!e || !g) return;
    const focusedId = document.activeElement instanceof HTMLElement && e.leave.contains(document.activeElement) ? document.activeElement.id : null;
    const midGame = this.s.role === 'player' && !g.result;
    if (!midGame) this.confirmLeave = false;
    const leave = () => {
      if (this.s.role === 'player') forgetSeat(this.table);
      this.navigate('/');
    };
    if (this.confirmLeave) {
      e.leave.replaceChildren(
        h(
          'div',
          { class: 'confirm', role: 'group', 'aria-labelledby': 'new-table-question' },
          h('p', { id: 'new-table-question', text: t('newTableConfirm') }),
          h('p', { class: 'hint', text: t('newTableConfirmText') }),
          h('button', { type: 'button', id: 'new-table-yes', class: 'danger', text: t('newTableYes'), onclick: leave }),
          h('button', {
            type: 'button',
            id: 'new-table-no',
            text: t('newTableNo'),
            onclick: () => {
              this.confirmLeave = false;
              this.updateLeave();
              document.getElementById('new-table')?.focus();
            },
          }),
        ),
      );
    } else {
      e.leave.replaceChildren(
        h('button', {
          type: 'button',
          id: 'new-table',
          text: t('newTable'),
          onclick: () => {
            if (!midGame) {
              leave();
              return;
            }
            this.confirmLeave = true;
            this.updateLeave();
            document.getElementById('new-table-no')?.focus();
          },
        }),
      );
    }
    if (focusedId) document.getElementById(focusedId)?.focus();
  }

  /**
   * Where the focus goes once the table is drawn after the page moved here
   * by itself (a table created, a link followed within the page): the
   * Share for the opponent link while the friend has not come, the board for a player,
   * the hints switch for a spectator.
   */
  placeFocus() {
    // A player's place depends on whether the opponent is seated: it waits for the presence.
    if (!this.wantFocus || !this.el || !this.s.game || (this.s.role === 'player' && !this.s.presence)) return;
    this.wantFocus = false;
    const share = document.getElementById('share-opponent-link');
    if (share) share.focus();
    else if (this.s.role === 'spectator') document.getElementById('hints')?.focus();
    else (this.panes.find((p) => mode(onlyBoard(this.s, p.n)) === 'play') ?? this.panes[0])?.focus();
  }

  /** Asks for the focus once the table is drawn (see `placeFocus`). */
  takeFocus() {
    this.wantFocus = true;
    this.placeFocus();
  }

  // ------------------------------------------------------------ two boards

  /**
   * Where the two boards do not fit on the screen together (a phone stacks
   * them): when it becomes the viewer's turn on a board while no board
   * waiting for them is in sight, that board is scrolled into view, below
   * the match's score, which stays pinned at the top. The live region says
   * "Your turn on board n" (`receiveEvent`); the focus stays put.
   * @param {BoardNumber[]} playing the boards where it is the viewer's turn
   */
  bringTurnIntoView(playing) {
    const fresh = playing.filter((n) => !this.playingBefore.includes(n));
    this.playingBefore = playing;
    const first = fresh[0];
    if (first === undefined) return;
    const top = document.querySelector('.match-card')?.getBoundingClientRect().bottom ?? 0;
    if (playing.some((n) => this.pane(n)?.inView(top))) return;
    this.pane(first)?.bringIntoView(top);
  }

  /**
   * The match's buttons once both boards are over: "New match", or the
   * answer to the opponent's request, shown once for the pair.
   */
  updateMatchControls() {
    const box = this.el?.matchControls;
    const match = matchOf(this.s);
    if (!box || !match) return;
    const focusedId = document.activeElement instanceof HTMLElement && box.contains(document.activeElement) ? document.activeElement.id : null;
    const out = this.rematchControls();
    box.replaceChildren(...out);
    box.hidden = out.length === 0;
    if (focusedId) {
      const again = document.getElementById(focusedId);
      if (again && !(again instanceof HTMLButtonElement && again.disabled)) again.focus();
      else if (!match.result) this.panes[0]?.focus();
      else /** @type {HTMLElement | null} */ (box.querySelector('button:not([disabled])'))?.focus();
    }
  }

  /**
   * Says `text` through the live region, with whatever else comes at the
   * same moment (both boards may move at once; a match ends with its last
   * game): one message, not the last of several.
   * @param {string} text
   */
  say(text) {
    if (!text) return;
    this.toSay.push(text);
    if (this.sayTimer !== undefined) return;
    this.sayTimer = window.setTimeout(() => {
      this.sayTimer = undefined;
      const all = this.toSay.join(' ');
      this.toSay = [];
      announce(all);
    }, 60);
  }
}
