// The table view: one table, played or watched live over the websocket.
// The socket (socket.js) brings messages, the reducer (state.js) turns them
// into the next state, and this view draws that state and does what the
// state alone cannot: storing seats, announcing, sending actions.

import { Board } from './board.js';
import { MoveList } from './movelist.js';
import { positions, startPosition } from './replay.js';
import { describeAction, resultText, rulesText } from './words.js';
import { t, num, sentences } from './i18n.js';
import { h, mainElement, announce, other, sideName, shareSheet } from './dom.js';
import { loadSeat, saveSeat, forgetSeat, hintsOn, saveHints, rememberGame } from './storage.js';
import { TableSocket } from './socket.js';
import * as sound from './sound.js';
import { apply, initial, mySide, mode, timeLeft, absence, onlyBoard, matchOf, waitingForFriend } from './state.js';
import { BoardPane } from './pane.js';
import { formatClock, formatCountdown, isLow } from './clock.js';

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').GameState} GameState */
/** @typedef {import('./wire.js').ServerMessage} ServerMessage */
/** @typedef {import('./wire.js').ClientMessage} ClientMessage */
/** @typedef {import('./wire.js').TableEvent} TableEvent */
/** @typedef {import('./state.js').TableState} TableState */
/** @typedef {import('./state.js').Fatal} Fatal */
/** @typedef {import('./state.js').LocalEvent} LocalEvent */
/** @typedef {import('./i18n.js').StringKey} StringKey */
/** @typedef {import('./wire.js').BoardNumber} BoardNumber */
/** @typedef {import('./pane.js').BoardCommand} BoardCommand */

/** The boards of a two-board table, in their order. */
const BOARDS = /** @type {const} */ ([1, 2]);

/**
 * The parts of the table view that `update` fills.
 * @typedef {object} TableElements
 * @property {import('./wire.js').Role | null} role the role the view was built for
 * @property {HTMLElement} banner
 * @property {HTMLElement} absent the absent opponent's banner, with its countdown and the claims
 * @property {HTMLElement} clocks
 * @property {Record<Side, HTMLElement>} clock each side's clock
 * @property {HTMLElement} headline
 * @property {HTMLElement} invite the Share button beside the board while the friend has not come
 * @property {HTMLElement} counters
 * @property {HTMLElement} pile
 * @property {HTMLElement} seats
 * @property {HTMLElement} spectators
 * @property {HTMLElement} tally
 * @property {HTMLElement} series
 * @property {HTMLElement} rules
 * @property {HTMLElement} controls
 * @property {HTMLElement} leave "New table", apart from the game's buttons
 * @property {HTMLElement} browse
 * @property {HTMLElement | null} links
 * @property {HTMLElement | null} watch
 * @property {HTMLElement} [match] at a two-board table: the match's score or result
 * @property {HTMLElement} [matchControls] at a two-board table: the new match and its answer
 */

/**
 * The sentence for an event of one game (an action, a resignation, a
 * draw offer and its answers, a flag, a claim, an abort), the same at any
 * table; `null` for the events of the table (rematches) and for an agreed
 * draw, which the result says.
 * @param {TableEvent} event
 * @returns {string | null}
 */
function gameEventText(event) {
  switch (event.kind) {
    case 'played':
      return describeAction(event.side, event.action);
    case 'resigned':
      return t('announceResigned', { side: sideName(event.side) });
    case 'draw_offered':
      return t('announceDrawOffered', { side: sideName(event.side) });
    case 'draw_declined':
      return t('announceDrawDeclined', { side: sideName(event.side) });
    case 'draw_withdrawn':
      return t('announceDrawWithdrawn', { side: sideName(event.side) });
    case 'flagged':
      return t('announceFlagged', { side: sideName(event.side) });
    case 'claimed':
      return t(event.result === 'win' ? 'announceClaimedWin' : 'announceClaimedDraw', { side: sideName(event.side) });
    case 'aborted':
      return t('announceAborted', { side: sideName(event.side) });
    default:
      return null;
  }
}

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
    /** @type {'seat' | 'invite' | 'watch' | null} */
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
    }
    /** @type {TableState} */
    this.s = initial(Boolean(this.token));
    this.confirmResign = false;
    /** Whether "New table" is asking for confirmation. */
    this.confirmLeave = false;
    /** Whether to place the focus once the table is drawn. */
    this.wantFocus = false;
    /** @type {number | undefined} the timer that moves the clocks and the countdown on */
    this.ticker = undefined;
    /** @type {string | null} the absence (by its start) the player chose to keep waiting through */
    this.keptWaiting = null;
    /** @type {number | null} the game in which the player was told their time runs low */
    this.lowSaid = null;
    /** @type {string} what the absent banner shows, to redraw it only when that changes */
    this.absentShown = '';
    this.hints = hintsOn();
    this.actionCounter = 0;
    /** @type {Record<string, string>} copy-button feedback, by link kind */
    this.copyState = {};
    /** @type {Board | null} */
    this.board = null;
    this.boardRoot = h('div', { class: 'board-root' });
    /** @type {number | null} the ply shown while browsing the move list; `null`: the live position */
    this.cursor = null;
    /** @type {{key: string, list: string[]} | null} the positions of the moves, by ply */
    this.replayed = null;
    this.moveList = new MoveList({
      live: true,
      onSelect: (cursor) => {
        this.cursor = cursor;
        this.update();
      },
    });
    this.moveList.swipeOn(this.boardRoot);
    /** @type {TableElements | null} the parts of the view that `update` fills */
    this.el = null;
    /** @type {Record<BoardNumber, BoardPane> | null} both boards, at a two-board table */
    this.panes = null;
    /** @type {BoardNumber[]} the boards where it was the viewer's turn when last drawn */
    this.playingBefore = [];
    /** @type {string[]} what is to be said, gathered from events that come together */
    this.toSay = [];
    /** @type {number | undefined} */
    this.sayTimer = undefined;
    this.socket = new TableSocket({
      hello: () => {
        /** @type {ClientMessage} */
        const hello = { type: 'hello', table: this.table, token: /** @type {string} */ (this.token) };
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
    if (this.token) this.socket.start();
  }

  destroy() {
    window.clearInterval(this.ticker);
    this.ticker = undefined;
    document.title = t('title');
    this.socket.stop();
    this.board?.destroy();
    this.moveList.destroy();
    window.clearTimeout(this.sayTimer);
    for (const n of BOARDS) this.panes?.[n].destroy();
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
        if (this.panes) {
          this.update();
          if (before.game === null) this.announcePairTurn();
          break;
        }
        const prev = before.game;
        this.update(prev !== null && prev.game === msg.state.game && prev.ply + 1 === msg.state.ply);
        if (prev === null) this.announceTurn();
        break;
      }
      case 'event': {
        if (s === before) break;
        if (this.panes) {
          this.receivePairEvent(before, msg);
          break;
        }
        const hadResult = Boolean(before.game && before.game.result);
        const wasPlacing = before.game?.phase === 'placement' && before.game.game === msg.state.game;
        this.confirmResign = false;
        this.update(msg.event.kind === 'played');
        this.announceEvent(msg.event, msg.state, hadResult, wasPlacing && msg.state.phase === 'movement');
        sound.play(this.soundsFor(msg.event, msg.state, hadResult));
        break;
      }
      case 'presence': {
        if (this.panes) {
          this.receivePairPresence(before);
          break;
        }
        const now = Date.now();
        const mine = this.mySide();
        const was = absence(before, now);
        const is = absence(s, now);
        if (mine && is && is.side !== mine && !was) announce(t('announceAbsent'));
        else if (mine && was && was.side !== mine && !is) announce(t('announceReturned'));
        this.update();
        break;
      }
      case 'ack':
        this.update();
        break;
      case 'error': {
        if (s.fatal) {
          this.socket.stop();
          if (s.fatal === 'invalid_token' || s.fatal === 'unknown_table') forgetSeat(this.table);
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
      side: this.mySide(),
      opponent: info.opponent,
      level: info.level,
      result: g.result,
      goats_to_win: g.goats_to_win,
      ply_limit: g.ply_limit,
    });
  }

  // ------------------------------------------------------------ derived

  /** The viewer's side in the current game, for a player. */
  mySide() {
    return mySide(this.s);
  }

  /** @returns {'play' | 'wait' | 'watch'} */
  mode() {
    return mode(this.s);
  }

  /**
   * Plays on one board of a two-board table.
   * @param {BoardNumber} board
   * @param {string} action
   */
  playOn(board, action) {
    this.actionCounter += 1;
    const id = `${Date.now().toString(36)}-${this.actionCounter}`;
    this.dispatch({ type: 'sent', id, action, board });
    this.send({ type: 'action', id, action, board });
    this.update();
  }

  /**
   * Sends a command about one board's game, with an id.
   * @param {BoardNumber} board
   * @param {BoardCommand} type
   */
  commandOn(board, type) {
    this.actionCounter += 1;
    this.send({ type, board, id: `${Date.now().toString(36)}-${this.actionCounter}` });
  }

  /** @param {string} action */
  play(action) {
    this.actionCounter += 1;
    const id = `${Date.now().toString(36)}-${this.actionCounter}`;
    this.dispatch({ type: 'sent', id, action });
    this.send({ type: 'action', id, action });
    this.update();
  }

  // ------------------------------------------------------------ words

  /** @param {GameState} s */
  resultText(s) {
    return resultText(s.result, { goatsToWin: s.goats_to_win, plyLimit: s.ply_limit, mine: this.mySide() });
  }

  /**
   * @param {TableEvent} event
   * @param {GameState} s
   * @param {boolean} hadResult
   * @param {boolean} placed this event placed the last goat
   */
  announceEvent(event, s, hadResult, placed) {
    /** @type {string[]} */
    const parts = [];
    const said = gameEventText(event);
    if (said) parts.push(said);
    switch (event.kind) {
      case 'rematch_offered':
        parts.push(t('announceRematchOffered', { side: sideName(event.side) }));
        break;
      case 'rematch_declined':
        parts.push(t('announceRematchDeclined', { side: sideName(event.side) }));
        break;
      case 'rematch_withdrawn':
        parts.push(t('announceRematchWithdrawn', { side: sideName(event.side) }));
        break;
      case 'rematch_started': {
        const mine = this.mySide();
        parts.push(mine ? t('announceRematchStarted', { n: event.game, side: sideName(mine) }) : t('announceRematchStartedNeutral', { n: event.game }));
        break;
      }
    }
    if (placed) parts.push(t('announceAllPlaced'));
    if (s.result && !hadResult) {
      parts.push(this.resultText(s));
      // The game that decides a series says so.
      if (s.series?.result) parts.push(this.seriesText(s.series));
    } else if (!s.result && this.mode() === 'play' && (event.kind === 'played' || event.kind === 'rematch_started')) parts.push(t('announceYourTurn'));
    announce(sentences(parts));
  }

  /**
   * A series as its viewer reads it: the score so far, or the result once
   * it is decided, from the seat's point of view (a spectator's names the
   * host and the guest).
   * @param {import('./wire.js').SeriesState} series
   */
  seriesText(series) {
    const host = points(series.host_wins, series.draws);
    const guest = points(series.guest_wins, series.draws);
    const player = this.s.player;
    if (player) {
      const mine = player === 'host' ? host : guest;
      const theirs = player === 'host' ? guest : host;
      if (!series.result) return t('seriesLine', { games: series.games, n: series.game, mine, theirs });
      const winner = series.result.winner;
      return t(winner === null ? 'seriesTied' : winner === player ? 'seriesWon' : 'seriesLost', { mine, theirs });
    }
    if (!series.result) return t('seriesLineNeutral', { games: series.games, n: series.game, host, guest });
    const winner = series.result.winner;
    return t(winner === null ? 'seriesTiedNeutral' : winner === 'host' ? 'seriesWonByHost' : 'seriesWonByGuest', { host, guest });
  }

  /**
   * What an event sounds like: the action (a capture apart), then the end
   * of the game or the viewer's turn.
   * @param {TableEvent} event
   * @param {GameState} s
   * @param {boolean} hadResult
   * @param {boolean} [playing] whether it is now the viewer's turn on that board
   * @returns {import('./sound.js').SoundKind[]}
   */
  soundsFor(event, s, hadResult, playing = this.mode() === 'play') {
    /** @type {import('./sound.js').SoundKind[]} */
    const out = [];
    if (event.kind === 'played') out.push(event.action.includes('x') ? 'capture' : 'move');
    if (s.result && !hadResult) out.push('end');
    else if (!s.result && playing && (event.kind === 'played' || event.kind === 'rematch_started')) out.push('turn');
    return out;
  }

  announceTurn() {
    const s = this.s.game;
    if (!s) return;
    if (s.result) announce(this.resultText(s));
    else if (this.mode() === 'play') announce(t('announceYourTurn'));
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
    if (this.s.info.format === 'two_boards') {
      this.renderPair();
      return;
    }
    if (!this.board) this.board = new Board(this.boardRoot, (action) => this.play(action));
    this.board.relabel();
    this.moveList.relabel();

    this.el = {
      role: this.s.role,
      banner: h('p', { class: 'banner', role: 'status' }),
      absent: h('section', { class: 'absent-banner', id: 'absent', hidden: true, 'aria-labelledby': 'absent-text' }),
      clocks: h('div', { class: 'clocks', role: 'group', 'aria-label': t('clocksLabel'), hidden: true }),
      clock: {
        goats: h('div', { class: 'clock goats', id: 'clock-goats', role: 'timer' }),
        tigers: h('div', { class: 'clock tigers', id: 'clock-tigers', role: 'timer' }),
      },
      headline: h('p', { class: 'headline', id: 'headline' }),
      invite: h('div', { class: 'invite', id: 'invite', hidden: true }),
      counters: h('dl', { class: 'counters' }),
      pile: h('div', { class: 'pile', role: 'img' }),
      seats: h('ul', { class: 'seats' }),
      spectators: h('p', { class: 'spectators' }),
      tally: h('p', { class: 'tally' }),
      series: h('p', { class: 'series', id: 'series', hidden: true }),
      rules: h('p', { class: 'rules', text: this.rulesText() }),
      controls: h('div', { class: 'controls' }),
      leave: h('div', { class: 'leave' }),
      browse: h('div', { class: 'browse', hidden: true }),
      links: this.renderLinks(),
      watch: this.s.role === 'spectator' ? this.renderWatch() : null,
    };
    const e = this.el;
    e.clocks.replaceChildren(e.clock.goats, e.clock.tigers);
    this.absentShown = '';
    mainElement().replaceChildren(
      h(
        'div',
        { class: 'table' },
        e.banner,
        e.absent,
        // A series' score goes with the headline: on a phone it is on screen with the result.
        h('div', { class: 'board-column', id: 'board' }, e.headline, e.series, e.invite, e.clocks, e.browse, this.boardRoot, e.pile),
        h(
          'aside',
          { class: 'panel', 'aria-label': t('status') },
          e.watch,
          // What to do now comes first, under the board on a phone.
          h('section', { class: 'card', id: 'actions', 'aria-label': t('actions') }, e.controls),
          h(
            'section',
            { class: 'card' },
            h('h2', { class: 'visually-hidden', text: t('status') }),
            e.counters,
            e.seats,
            e.spectators,
            e.tally,
            e.rules,
            h('p', { class: 'learn-ref' }, h('a', { href: '/learn', id: 'learn-link', target: '_blank', rel: 'noopener', text: t('learnShort') })),
            this.renderSoundSwitch(),
          ),
          e.links,
          this.moveList.root,
          h('section', { class: 'card leave-card', 'aria-label': t('leaveLabel') }, e.leave),
        ),
      ),
    );
    this.update();
  }

  /** The table's rules, where they differ from the house rules. */
  rulesText() {
    return rulesText(this.s.info?.variant);
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
    const show = Boolean(link) && waitingForFriend(this.panes ? onlyBoard(this.s, 1) : this.s) && this.s.conn === 'online';
    if (show === !e.invite.hidden) return;
    const had = e.invite.contains(document.activeElement);
    e.invite.hidden = !show;
    if (!show) {
      e.invite.replaceChildren();
      if (had) this.board?.focus();
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
   * Fills the view from the current state.
   * @param {boolean} [animate] animate the last action on the board
   */
  update(animate = false) {
    if (this.panes) {
      this.updatePair();
      return;
    }
    const e = this.el;
    const s = this.s.game;
    if (!e || !s || !this.board || this.s.fatal) return;
    const mode = this.mode();
    // A rematch empties the list: browsing the old game ends with it.
    if (this.cursor !== null && this.cursor >= this.s.moves.length) this.cursor = null;
    const shown = this.cursor === null ? null : this.positionAt(this.cursor);
    if (shown === null) {
      this.cursor = null;
      this.board.update({ position: s.position, legal: s.legal, lastAction: s.last_action, mode, hints: this.hints }, animate);
    } else {
      this.board.update({ position: shown, legal: [], lastAction: this.s.moves[/** @type {number} */ (this.cursor) - 1] ?? null, mode: 'watch', hints: false }, false);
    }
    this.updateBrowse();

    e.banner.textContent = this.s.conn === 'reconnecting' ? t('reconnecting') : '';
    e.banner.hidden = this.s.conn !== 'reconnecting';

    // Whose turn, or the result.
    const mine = this.mySide();
    const phase = s.phase === 'placement' ? t('phasePlacement') : t('phaseMovement');
    let headline;
    if (s.result) headline = this.resultText(s);
    else if (waitingForFriend(this.s)) headline = t('waitingForOpponent');
    else if (mine && s.side_to_move === mine) headline = `${t('yourTurn', { side: sideName(mine) })} · ${phase}`;
    else if (mine) headline = `${t('opponentTurn', { side: sideName(s.side_to_move) })} · ${phase}`;
    else headline = `${t('turnOf', { side: sideName(s.side_to_move) })} · ${phase}`;
    e.headline.textContent = headline;
    document.title = mode === 'play' ? `● ${t('announceYourTurn')} ${t('title')}` : t('title');
    e.headline.classList.toggle('finished', Boolean(s.result));
    e.headline.classList.toggle('my-turn', mode === 'play');

    /** @type {[string, string, string][]} */
    const counters = [
      ['phase', t('phase'), phase],
      ['in-hand', t('inHand'), num(s.in_hand)],
      ['eaten', t('eaten'), `${num(s.eaten)}/${num(s.goats_to_win)}`],
      ['trapped', t('trapped'), `${num(s.trapped_tigers)}/${num(s.tigers)}`],
      ['ply', t('ply'), `${num(s.ply)}/${num(s.ply_limit)}`],
    ];
    e.counters.replaceChildren(
      ...counters.map(([id, label, value]) => h('div', { class: `counter ${id}` }, h('dt', { text: label }), h('dd', { id: `counter-${id}`, text: value }))),
    );

    // The eaten goats' pile.
    e.pile.setAttribute('aria-label', `${t('eatenPile')}: ${num(s.eaten)}/${num(s.goats_to_win)}`);
    const icons = [];
    for (let i = 0; i < s.goats_to_win; i++) {
      const slot = h('span', { class: i < s.eaten ? 'pile-goat eaten' : 'pile-goat' });
      if (i < s.eaten) {
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
    e.pile.replaceChildren(h('span', { class: 'pile-label', 'aria-hidden': 'true', text: t('eatenPile') }), ...icons);

    // Seats and gallery.
    const p = this.s.presence;
    e.seats.replaceChildren(
      ...(['goats', 'tigers']).map((side) => {
        const sd = /** @type {Side} */ (side);
        // Presence names each seat by the side it held when it was sent; a
        // rematch swaps the sides, so each seat is found by its player.
        const holder = s.host_side === sd ? 'host' : 'guest';
        const seat = p ? ([p.goats, p.tigers].find((v) => v.player === holder) ?? p[sd]) : null;
        const you = mine === sd;
        let who = sideName(sd);
        if (you) who += ` (${t('you')})`;
        let state = '';
        if (seat && seat.computer) state = t('computerLevel', { level: seat.level ?? (this.s.info && this.s.info.level) ?? 0 });
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
    const tally = s.tally;
    const gameNo = t('game', { n: s.game });
    if (this.s.player) {
      const mineWins = this.s.player === 'host' ? tally.host : tally.guest;
      const theirs = this.s.player === 'host' ? tally.guest : tally.host;
      e.tally.textContent = `${gameNo} · ${t('tally', { mine: mineWins, theirs, draws: tally.draws })}`;
    } else {
      e.tally.textContent = `${gameNo} · ${t('tallyNeutral', { host: tally.host, guest: tally.guest, draws: tally.draws })}`;
    }
    e.series.hidden = !s.series;
    e.series.textContent = s.series ? this.seriesText(s.series) : '';

    this.updateInvite();
    this.updateControls();

    this.moveList.update(this.s.moves, this.cursor);
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
    let counting = false;
    if (this.panes) {
      for (const n of BOARDS) running = this.panes[n].tick(now) || running;
    } else {
      running = this.updateClocks(now);
      counting = this.updateAbsent(now);
    }
    if ((running || counting) && this.ticker === undefined) this.ticker = window.setInterval(() => this.tick(), 100);
    else if (!running && !counting && this.ticker !== undefined) {
      window.clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  /**
   * Both clocks, the running one counting down from the turn's start.
   * @param {number} now the page's time
   * @returns {boolean} whether a clock runs
   */
  updateClocks(now) {
    const e = this.el;
    const g = this.s.game;
    if (!e) return false;
    const clock = g?.clock;
    e.clocks.hidden = !clock;
    if (!g || !clock) return false;
    const mine = this.mySide();
    for (const side of /** @type {Side[]} */ (['goats', 'tigers'])) {
      const ms = /** @type {number} */ (timeLeft(this.s, side, now));
      const el = e.clock[side];
      const runs = clock.running === side && !g.result;
      const low = isLow(this.s.info?.clock, ms);
      const name = mine === side ? `${sideName(side)} (${t('you')})` : sideName(side);
      const time = formatClock(ms);
      const state = [runs ? t('clockRunning') : '', low ? t('clockLow') : ''].filter(Boolean).join(', ');
      const label = state ? `${name}: ${time}, ${state}` : `${name}: ${time}`;
      // The player hears it once a game when their own time runs low.
      if (low && runs && side === mine && this.lowSaid !== g.game) {
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
   * The banner of an absent opponent: who left, the countdown to when the
   * present player may claim, then the claims and "keep waiting".
   * @param {number} now the page's time
   * @returns {boolean} whether the countdown runs
   */
  updateAbsent(now) {
    const e = this.el;
    if (!e) return false;
    const a = absence(this.s, now);
    const mine = this.mySide();
    if (!a || (mine && a.side === mine)) {
      if (this.absentShown) {
        const had = e.absent.contains(document.activeElement);
        e.absent.replaceChildren();
        e.absent.hidden = true;
        this.absentShown = '';
        if (had) this.board?.focus();
      }
      return false;
    }
    const since = this.s.presence?.absent?.since || '';
    const claimable = a.claimableIn === 0;
    const waiting = claimable && this.keptWaiting === since;
    const shape = `${a.side}|${since}|${claimable}|${waiting}|${Boolean(mine)}|${this.s.conn}`;
    const countdown = formatCountdown(a.claimableIn);
    /** @type {string} */
    let message;
    if (!mine) message = claimable ? t('absentWatchClaimable', { side: sideName(a.side) }) : t('absentWatch', { side: sideName(a.side), time: countdown });
    else if (!claimable) message = `${t('absentOpponent', { side: sideName(a.side) })} ${t('absentCountdown', { time: countdown })}`;
    else message = `${t('absentOpponent', { side: sideName(a.side) })} ${waiting ? t('absentWaiting') : t('absentClaimable')}`;
    if (shape === this.absentShown) {
      const text = document.getElementById('absent-text');
      if (text && text.textContent !== message) text.textContent = message;
      return !claimable;
    }
    const focusedId = document.activeElement instanceof HTMLElement && e.absent.contains(document.activeElement) ? document.activeElement.id : null;
    const before = this.absentShown;
    this.absentShown = shape;
    e.absent.hidden = false;
    /** @type {Node[]} */
    const buttons = [];
    if (mine && claimable) {
      const off = this.s.conn !== 'online';
      buttons.push(
        h('button', { type: 'button', id: 'claim-victory', class: 'primary', text: t('claimVictory'), disabled: off, onclick: () => this.command('claim_victory') }),
        h('button', { type: 'button', id: 'claim-draw', text: t('claimDraw'), disabled: off, onclick: () => this.command('claim_draw') }),
      );
      if (!waiting) {
        buttons.push(
          h('button', {
            type: 'button',
            id: 'keep-waiting',
            text: t('keepWaiting'),
            onclick: () => {
              this.keptWaiting = since;
              this.updateAbsent(Date.now());
              document.getElementById('claim-victory')?.focus();
            },
          }),
        );
      }
      // Said once, when the grace period ends.
      if (!before.includes(`|${since}|true|`)) announce(t('absentClaimable'));
    }
    e.absent.replaceChildren(h('p', { id: 'absent-text', text: message }), ...(buttons.length ? [h('div', { class: 'absent-actions' }, ...buttons)] : []));
    if (focusedId) document.getElementById(focusedId)?.focus();
    return !claimable;
  }

  /**
   * Sends a command with an id, acknowledged once stored.
   * @param {'claim_victory' | 'claim_draw' | 'abort' | 'decline_rematch'} type
   */
  command(type) {
    this.actionCounter += 1;
    this.send({ type, id: `${Date.now().toString(36)}-${this.actionCounter}` });
  }

  /**
   * The position after `n` actions of the current game, drawn from its
   * moves; `null` if the drawing does not end where the server's state does
   * (then the page does not pretend to know).
   * @param {number} n
   * @returns {string | null}
   */
  positionAt(n) {
    const g = this.s.game;
    if (!g || !this.s.info) return null;
    const key = `${g.game}:${this.s.moves.length}`;
    if (!this.replayed || this.replayed.key !== key) {
      const list = positions(startPosition(this.s.info.variant), this.s.moves);
      const last = list[list.length - 1] || '';
      this.replayed = { key, list: last.split(' ')[0] === g.position.split(' ')[0] ? list : [] };
    }
    return this.replayed.list[n] ?? null;
  }

  /** The notice above the board while the move list is browsed. */
  updateBrowse() {
    const e = this.el;
    if (!e) return;
    const browsing = this.cursor !== null;
    e.browse.hidden = !browsing;
    if (!browsing) {
      if (e.browse.contains(document.activeElement)) this.moveList.list.querySelector('.ply.current')?.closest('button')?.focus();
      e.browse.replaceChildren();
      return;
    }
    const had = e.browse.contains(document.activeElement);
    e.browse.replaceChildren(
      h('p', { text: t('browsing', { n: /** @type {number} */ (this.cursor), total: this.s.moves.length }) }),
      h('button', {
        type: 'button',
        id: 'back-to-live',
        class: 'primary',
        text: t('backToLive'),
        onclick: () => {
          this.cursor = null;
          this.update();
          this.board?.focus();
        },
      }),
    );
    if (had) document.getElementById('back-to-live')?.focus();
  }

  /** The buttons that fit the moment. */
  updateControls() {
    const e = this.el;
    const s = this.s.game;
    if (!e || !s) return;
    const focusedId = document.activeElement instanceof HTMLElement && e.controls.contains(document.activeElement) ? document.activeElement.id : null;
    /** @type {Node[]} */
    const out = [];
    const mine = this.mySide();
    const friend = this.s.info?.opponent === 'friend';
    /**
     * @param {string} id
     * @param {string} text
     * @param {() => void} onclick
     * @param {string} [cls]
     */
    const button = (id, text, onclick, cls = '') => h('button', { type: 'button', id, class: cls, text, onclick, disabled: this.s.conn !== 'online' });
    if (waitingForFriend(this.s)) {
      // Alone at the table: nothing to resign or offer, only to call it off.
      if (s.abortable) out.push(button('abort', t('cancelTable'), () => this.command('abort')));
    } else if (mine && !s.result) {
      if (this.confirmResign) {
        out.push(
          h(
            'div',
            { class: 'confirm', role: 'group', 'aria-labelledby': 'resign-question' },
            h('p', { id: 'resign-question', text: t('resignConfirm') }),
            button('resign-yes', t('resignYes'), () => {
              this.confirmResign = false;
              this.send({ type: 'resign' });
              this.updateControls();
            }, 'danger'),
            button('resign-no', t('resignNo'), () => {
              this.confirmResign = false;
              this.updateControls();
              document.getElementById('resign')?.focus();
            }),
          ),
        );
      } else {
        out.push(button('resign', t('resign'), () => {
          this.confirmResign = true;
          this.updateControls();
          document.getElementById('resign-no')?.focus();
        }));
      }
      if (s.abortable) {
        // Before both sides have moved: called off, no result. At a table
        // whose guest never came, that cancels the table.
        const cancel = friend && this.s.player === 'host' && s.game === 1 && s.ply === 0 && this.s.presence !== null && !this.s.presence[other(mine)].connected;
        out.push(button('abort', cancel ? t('cancelTable') : t('abortGame'), () => this.command('abort')), h('p', { class: 'hint', text: t('abortHint') }));
      }
      if (friend) {
        if (s.draw_offer === mine) out.push(h('p', { class: 'offer', text: t('drawOffered') }));
        else if (s.draw_offer) {
          out.push(
            h('p', { class: 'offer', text: t('drawOfferedToYou') }),
            button('accept-draw', t('acceptDraw'), () => this.send({ type: 'accept_draw' }), 'primary'),
            button('decline-draw', t('declineDraw'), () => this.send({ type: 'decline_draw' })),
          );
        } else out.push(button('offer-draw', t('offerDraw'), () => this.send({ type: 'offer_draw' })));
      }
    }
    if (!mine && s.draw_offer && !s.result) out.push(h('p', { class: 'offer', text: t('drawOfferPending', { side: sideName(s.draw_offer) }) }));
    if (mine && s.result) {
      if (s.rematch_offer === mine) out.push(h('p', { class: 'offer', text: t('rematchAsked') }));
      else if (s.rematch_offer) {
        out.push(
          h('p', { class: 'offer', text: t('rematchOfferedToYou') }),
          button('rematch', t('rematchAccept'), () => this.send({ type: 'rematch' }), 'primary'),
          button('decline-rematch', t('declineRematch'), () => this.command('decline_rematch')),
        );
      } else {
        // In a series not yet decided the next game starts at once; after
        // a decided one a rematch begins a new series.
        const label = !s.series ? t('rematch') : s.series.result ? t('newSeries') : t('nextGame');
        out.push(button('rematch', label, () => this.send({ type: 'rematch' }), 'primary'));
      }
    }
    if (s.result) {
      const href = `/t/${encodeURIComponent(this.table)}/games/${s.game}`;
      out.push(
        h('a', {
          class: 'button',
          id: 'review-game',
          href,
          text: t('reviewThisGame'),
          onclick: (ev) => {
            ev.preventDefault();
            this.navigate(href);
          },
        }),
      );
    }
    e.controls.replaceChildren(...out);
    // No empty card where there is nothing to do (a spectator's view).
    if (e.controls.parentElement) e.controls.parentElement.hidden = out.length === 0;
    if (focusedId) this.refocus(focusedId, e.controls);
    this.updateLeave();
  }

  /**
   * Puts the focus back on the control of that id after the controls were
   * redrawn; when it is gone (a rematch began, an offer was answered), on
   * the board while a game is on, else on the first control.
   * @param {string} id
   * @param {HTMLElement} within
   */
  refocus(id, within) {
    const again = document.getElementById(id);
    if (again && !(again instanceof HTMLButtonElement && again.disabled)) {
      again.focus();
      return;
    }
    const g = this.s.game;
    if (g && !g.result && this.s.role === 'player') this.board?.focus();
    else /** @type {HTMLElement | null} */ (within.querySelector('button:not([disabled]), a[href]'))?.focus();
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
    else if (this.panes) (BOARDS.find((n) => mode(onlyBoard(this.s, n)) === 'play') === 2 ? this.panes[2] : this.panes[1]).focus();
    else this.board?.focus();
  }

  /** Asks for the focus once the table is drawn (see `placeFocus`). */
  takeFocus() {
    this.wantFocus = true;
    this.placeFocus();
  }
  // ------------------------------------------------------------ two boards

  /**
   * Builds the view of a two-board table: the match's score and buttons
   * above both boards (side by side on a wide screen, one above the other
   * on a narrow one), each board in its own pane with its own controls,
   * then the seats, the links and "New table".
   */
  renderPair() {
    if (!this.panes) {
      /** @type {import('./pane.js').PaneHost} */
      const host = {
        play: (n, action) => this.playOn(n, action),
        command: (n, type) => this.commandOn(n, type),
        navigate: (path) => this.navigate(path),
        table: this.table,
      };
      this.panes = { 1: new BoardPane(1, host), 2: new BoardPane(2, host) };
    }
    for (const n of BOARDS) this.panes[n].relabel();
    this.el = {
      role: this.s.role,
      banner: h('p', { class: 'banner', role: 'status' }),
      absent: h('section', { class: 'absent-banner', hidden: true }),
      clocks: h('div', { hidden: true }),
      clock: { goats: h('div'), tigers: h('div') },
      headline: h('p', { class: 'headline', hidden: true }),
      invite: h('div', { class: 'invite', id: 'invite', hidden: true }),
      counters: h('dl', { class: 'counters' }),
      pile: h('div'),
      seats: h('ul', { class: 'seats' }),
      spectators: h('p', { class: 'spectators' }),
      tally: h('p', { class: 'tally' }),
      series: h('p', { class: 'series', hidden: true }),
      rules: h('p', { class: 'rules', text: this.rulesText() }),
      controls: h('div', { class: 'controls' }),
      leave: h('div', { class: 'leave' }),
      browse: h('div', { hidden: true }),
      links: this.renderLinks(),
      watch: this.s.role === 'spectator' ? this.renderWatch() : null,
      match: h('p', { class: 'match-line', id: 'match' }),
      matchControls: h('div', { class: 'controls', id: 'match-controls' }),
    };
    const e = this.el;
    mainElement().replaceChildren(
      h(
        'div',
        { class: 'table pair' },
        e.banner,
        h('section', { class: 'card match-card', 'aria-label': t('actions') }, e.match, e.matchControls),
        e.invite,
        h('div', { class: 'boards', role: 'group', 'aria-label': t('boardsLabel') }, this.panes[1].root, this.panes[2].root),
        h(
          'div',
          { class: 'panel pair-panel' },
          e.watch,
          h(
            'section',
            { class: 'card' },
            h('h2', { class: 'visually-hidden', text: t('status') }),
            e.seats,
            h('p', { class: 'hint', text: t('seatsOnBoardOne') }),
            e.spectators,
            e.tally,
            e.rules,
            h('p', { class: 'learn-ref' }, h('a', { href: '/learn', id: 'learn-link', target: '_blank', rel: 'noopener', text: t('learnShort') })),
            this.renderSoundSwitch(),
          ),
          e.links,
          h('section', { class: 'card leave-card', 'aria-label': t('leaveLabel') }, e.leave),
        ),
      ),
    );
    this.update();
  }

  /** Fills the view of a two-board table from the current state. */
  updatePair(animate = /** @type {BoardNumber | null} */ (null)) {
    const e = this.el;
    const g = this.s.game;
    if (!e || !g || !this.panes || this.s.fatal || !this.s.boards) return;
    for (const n of BOARDS) this.panes[n].update(onlyBoard(this.s, n), this.s.role === 'spectator' ? this.hints : true, animate === n);
    e.banner.textContent = this.s.conn === 'reconnecting' ? t('reconnecting') : '';
    e.banner.hidden = this.s.conn !== 'reconnecting';
    const playing = BOARDS.filter((n) => mode(onlyBoard(this.s, n)) === 'play');
    document.title = playing.length ? `● ${t('announceYourTurnOnBoard', { n: /** @type {number} */ (playing[0]) })} ${t('title')}` : t('title');
    this.bringTurnIntoView(playing);

    const match = matchOf(this.s);
    e.match?.replaceChildren(match ? this.matchText(match) : '');
    e.match?.classList.toggle('decided', Boolean(match?.result));

    // Seats as presence names them: by board 1's sides.
    const p = this.s.presence;
    const mine = mySide(onlyBoard(this.s, 1));
    e.seats.replaceChildren(
      ...(/** @type {Side[]} */ (['goats', 'tigers'])).map((sd) => {
        const seat = p ? p[sd] : null;
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
    const tally = g.tally;
    if (this.s.player) {
      const mineWins = this.s.player === 'host' ? tally.host : tally.guest;
      const theirs = this.s.player === 'host' ? tally.guest : tally.host;
      e.tally.textContent = t('tally', { mine: mineWins, theirs, draws: tally.draws });
    } else e.tally.textContent = t('tallyNeutral', { host: tally.host, guest: tally.guest, draws: tally.draws });

    this.updateMatchControls();
    this.updateInvite();
    this.updateLeave();
    this.tick();
    this.placeFocus();
  }

  /**
   * Where the two boards do not fit on the screen together (a phone stacks
   * them): when it becomes the viewer's turn on a board while no board
   * waiting for them is in sight, that board is scrolled into view, below
   * the match's score, which stays pinned at the top. The live region says
   * "Your turn on board n" (`receivePairEvent`); the focus stays put.
   * @param {BoardNumber[]} playing the boards where it is the viewer's turn
   */
  bringTurnIntoView(playing) {
    const fresh = playing.filter((n) => !this.playingBefore.includes(n));
    this.playingBefore = playing;
    const panes = this.panes;
    const first = fresh[0];
    if (!panes || first === undefined) return;
    const top = document.querySelector('.match-card')?.getBoundingClientRect().bottom ?? 0;
    if (playing.some((n) => panes[n].inView(top))) return;
    panes[first].bringIntoView(top);
  }

  /**
   * The match's buttons once both boards are over: "New match", or the
   * answer to the opponent's request, shown once for the pair.
   */
  updateMatchControls() {
    const e = this.el;
    const box = e?.matchControls;
    const one = this.s.boards?.[1].game;
    const match = matchOf(this.s);
    if (!box || !one || !match) return;
    const focusedId = document.activeElement instanceof HTMLElement && box.contains(document.activeElement) ? document.activeElement.id : null;
    /** @type {Node[]} */
    const out = [];
    const mine = mySide(onlyBoard(this.s, 1));
    const off = this.s.conn !== 'online';
    if (match.result) {
      // The request is stored on both boards; board 1's names the asker's side there.
      const offer = one.rematch_offer;
      if (mine) {
        if (offer === mine) out.push(h('p', { class: 'offer', text: t('newMatchAsked') }));
        else if (offer) {
          out.push(
            h('p', { class: 'offer', text: t('newMatchOfferedToYou') }),
            h('button', { type: 'button', id: 'rematch', class: 'primary', text: t('acceptNewMatch'), disabled: off, onclick: () => this.send({ type: 'rematch' }) }),
            h('button', { type: 'button', id: 'decline-rematch', text: t('declineRematch'), disabled: off, onclick: () => this.command('decline_rematch') }),
          );
        } else out.push(h('button', { type: 'button', id: 'rematch', class: 'primary', text: t('newMatch'), disabled: off, onclick: () => this.send({ type: 'rematch' }) }));
      } else if (offer) out.push(h('p', { class: 'offer', text: t('newMatchPending') }));
    }
    box.replaceChildren(...out);
    box.hidden = out.length === 0;
    if (focusedId) {
      const again = document.getElementById(focusedId);
      if (again && !(again instanceof HTMLButtonElement && again.disabled)) again.focus();
      else if (!match.result && this.panes) this.panes[1].focus();
      else /** @type {HTMLElement | null} */ (box.querySelector('button:not([disabled])'))?.focus();
    }
  }

  /**
   * A match as its viewer reads it: the score so far, or the result once
   * both boards are over, from the seat's point of view (a spectator's
   * names the host and the guest).
   * @param {import('./wire.js').MatchState} match
   */
  matchText(match) {
    const host = points(match.host_wins, match.draws);
    const guest = points(match.guest_wins, match.draws);
    const n = match.number;
    const player = this.s.player;
    const winner = match.result?.winner;
    if (player) {
      const mine = player === 'host' ? host : guest;
      const theirs = player === 'host' ? guest : host;
      if (!match.result) return t('matchLine', { n, mine, theirs });
      return t(winner === null ? 'matchTied' : winner === player ? 'matchWon' : 'matchLost', { n, mine, theirs });
    }
    if (!match.result) return t('matchLineNeutral', { n, host, guest });
    return t(winner === null ? 'matchTiedNeutral' : winner === 'host' ? 'matchWonByHost' : 'matchWonByGuest', { n, host, guest });
  }

  /**
   * Says `text` through the live region, with whatever else comes at the
   * same moment (both boards may move at once): one message, not the
   * last of several.
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

  /** On joining a two-board table: where it is the viewer's turn, or the results. */
  announcePairTurn() {
    /** @type {string[]} */
    const parts = [];
    for (const n of BOARDS) {
      const b = onlyBoard(this.s, n);
      if (b.game?.result) parts.push(t('announceOnBoard', { n, text: resultText(b.game.result, { goatsToWin: b.game.goats_to_win, plyLimit: b.game.ply_limit, mine: mySide(b) }) }));
      else if (mode(b) === 'play') parts.push(t('announceYourTurnOnBoard', { n }));
    }
    this.say(sentences(parts));
  }

  /**
   * An event of a two-board table: the view, then what is said and heard,
   * each naming the board (the match's own events, said once).
   * @param {TableState} before
   * @param {Extract<ServerMessage, {type: 'event'}>} msg
   */
  receivePairEvent(before, msg) {
    const n = msg.board ?? 1;
    const was = onlyBoard(before, n).game;
    const now = onlyBoard(this.s, n);
    const st = msg.state;
    const event = msg.event;
    const hadResult = Boolean(was && was.result && was.game === st.game);
    const placed = was?.phase === 'placement' && was.game === st.game && st.phase === 'movement';
    const pane = this.panes?.[n];
    if (pane) pane.confirmResign = false;
    this.updatePair(event.kind === 'played' ? n : null);
    const mine = mySide(now);
    const playing = mode(now) === 'play';
    /** @type {string[]} */
    const parts = [];
    const said = gameEventText(event);
    if (said) parts.push(said);
    switch (event.kind) {
      case 'rematch_offered':
        // Stored on both boards: said once, for board 1, and only to the one asked.
        if (n === 1 && mine !== event.side) this.say(mine ? t('announceNewMatchOffered') : t('newMatchPending'));
        break;
      case 'rematch_declined':
        if (n === 1) this.say(t('announceRematchDeclined', { side: sideName(event.side) }));
        break;
      case 'rematch_withdrawn':
        if (n === 1) this.say(t('announceRematchWithdrawn', { side: sideName(event.side) }));
        break;
      case 'rematch_started':
        if (n === 1) this.say(t('announceNewMatchStarted', { n: st.match?.number ?? st.game }));
        break;
    }
    if (placed) parts.push(t('announceAllPlaced'));
    if (st.result && !hadResult) {
      parts.push(resultText(st.result, { goatsToWin: st.goats_to_win, plyLimit: st.ply_limit, mine }));
      if (st.match?.result) {
        this.say(t('announceOnBoard', { n, text: sentences(parts) }));
        this.say(this.matchText(st.match));
        sound.play(this.soundsFor(event, st, hadResult, false));
        return;
      }
    }
    if (!st.result && playing && (event.kind === 'played' || event.kind === 'rematch_started')) parts.push(t('announceYourTurnOnBoard', { n }));
    if (parts.length) this.say(t('announceOnBoard', { n, text: sentences(parts) }));
    sound.play(this.soundsFor(event, st, hadResult, playing));
  }

  /**
   * A presence at a two-board table: the absence names its board, and
   * the side on it.
   * @param {TableState} before
   */
  receivePairPresence(before) {
    const now = Date.now();
    /** @param {TableState} st */
    const seen = (st) => onlyBoard(st, st.presence?.absent?.board ?? 1);
    const wasBoard = seen(before);
    const isBoard = seen(this.s);
    const was = absence(wasBoard, now);
    const is = absence(isBoard, now);
    const mineNow = mySide(isBoard);
    const mineBefore = mySide(wasBoard);
    if (mineNow && is && is.side !== mineNow && !was) this.say(t('announceAbsent'));
    else if (mineBefore && was && was.side !== mineBefore && !is) this.say(t('announceReturned'));
    this.update();
  }

}

/**
 * A series score: the wins and half the draws, as "2½" (in the page's
 * digits).
 * @param {number} wins
 * @param {number} draws
 */
function points(wins, draws) {
  const whole = wins + Math.floor(draws / 2);
  const half = draws % 2 === 1;
  if (half && whole === 0) return '½';
  return `${num(whole)}${half ? '½' : ''}`;
}
