// The page: the home form that creates a table, and the table view that
// plays or watches one over the websocket. It routes itself: `/` is home,
// `/t/{id}` a table, with the capability in the fragment (`#seat=`,
// `#invite=`, `#watch=`).

import { Board, parseAction, between } from './board.js';
import { t, setLang, lang, num } from './i18n.js';
import { REPLACED } from './close-codes.js';

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').GameState} GameState */
/** @typedef {import('./wire.js').Presence} Presence */
/** @typedef {import('./wire.js').TableInfo} TableInfo */
/** @typedef {import('./wire.js').ServerMessage} ServerMessage */
/** @typedef {import('./wire.js').ClientMessage} ClientMessage */
/** @typedef {import('./wire.js').TableEvent} TableEvent */
/** @typedef {import('./wire.js').CreateTable} CreateTable */
/** @typedef {import('./wire.js').TableCreated} TableCreated */
/** @typedef {import('./wire.js').ErrorCode} ErrorCode */
/** @typedef {import('./i18n.js').StringKey} StringKey */
/** @typedef {import('./i18n.js').Lang} Lang */

/**
 * What this browser keeps of a seat, per table.
 * @typedef {object} StoredSeat
 * @property {string} secret
 * @property {import('./wire.js').Player} [player] which seat the secret holds
 * @property {string | null} [opponent_link]
 * @property {string | null} [spectator_link]
 */

const SEAT_PREFIX = 'baghchal.seat.';
const LANG_KEY = 'baghchal.lang';
const HINTS_KEY = 'baghchal.hints';
/** Errors after which reconnecting cannot help: each gets its own page. */
const FATAL = /** @type {const} */ (['unknown_table', 'invalid_token', 'seat_taken', 'gallery_full']);

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const live = /** @type {HTMLElement} */ (document.getElementById('live'));
const langButton = /** @type {HTMLButtonElement} */ (document.getElementById('lang'));

// ---------------------------------------------------------------- helpers

/**
 * Creates an element.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | boolean | number | ((e: Event) => void)>} [attrs]
 *   attributes; `on*` keys add listeners, `text` sets the text
 * @param {(Node | string | null | false)[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = String(v);
    else if (v === true) el.setAttribute(k, '');
    else if (v !== false) el.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null && c !== false) el.append(c);
  return el;
}

/** @param {string} text */
function announce(text) {
  // Replacing the text makes screen readers read the new message.
  live.textContent = '';
  window.setTimeout(() => {
    live.textContent = text;
  }, 30);
}

/** @param {Side} side */
function other(side) {
  return side === 'goats' ? 'tigers' : 'goats';
}

/** @param {Side} side */
function sideName(side) {
  return side === 'goats' ? t('goats') : t('tigers');
}

/**
 * @param {string} table
 * @returns {StoredSeat | null}
 */
function loadSeat(table) {
  try {
    const raw = localStorage.getItem(SEAT_PREFIX + table);
    const seat = raw ? JSON.parse(raw) : null;
    return seat && typeof seat.secret === 'string' ? seat : null;
  } catch {
    return null;
  }
}

/**
 * @param {string} table
 * @param {StoredSeat} seat
 */
function saveSeat(table, seat) {
  try {
    localStorage.setItem(SEAT_PREFIX + table, JSON.stringify(seat));
  } catch {
    // Private mode: the fragment still holds the seat.
  }
}

/** @param {string} table */
function forgetSeat(table) {
  try {
    localStorage.removeItem(SEAT_PREFIX + table);
  } catch {
    // Nothing stored.
  }
}

/** The tables this browser holds a seat at. */
function storedTables() {
  /** @type {string[]} */
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k && k.startsWith(SEAT_PREFIX)) out.push(k.slice(SEAT_PREFIX.length));
    }
  } catch {
    // No storage.
  }
  return out.sort();
}

/**
 * A link from the server, made relative to this page's origin so that the
 * page stays on the address it was opened with.
 * @param {string} link
 */
function localPath(link) {
  const u = new URL(link, location.href);
  return u.pathname + u.hash;
}

// ---------------------------------------------------------------- routing

/** @type {{destroy(): void, render(): void} | null} */
let view = null;

function route() {
  view?.destroy();
  view = null;
  const m = location.pathname.match(/^\/t\/([^/]+)\/?$/);
  if (m) {
    view = new TableView(decodeURIComponent(m[1]));
  } else {
    view = new HomeView();
  }
  view.render();
}

/** @param {string} path */
function navigate(path) {
  history.pushState(null, '', path);
  route();
}

window.addEventListener('popstate', route);
window.addEventListener('hashchange', route);

/** @param {Lang} l */
function applyLang(l) {
  setLang(l);
  document.documentElement.lang = l;
  document.title = t('title');
  langButton.textContent = t('switchLanguage');
  langButton.setAttribute('aria-label', t('switchLanguageLabel'));
  langButton.lang = l === 'en' ? 'ne' : 'en';
  const title = document.getElementById('site-title');
  if (title) title.textContent = t('title');
  const tagline = document.getElementById('tagline');
  if (tagline) tagline.textContent = t('tagline');
  const skip = document.getElementById('skip');
  if (skip) skip.textContent = t('skipToBoard');
}

langButton.addEventListener('click', () => {
  const next = lang() === 'en' ? 'ne' : 'en';
  try {
    localStorage.setItem(LANG_KEY, next);
  } catch {
    // Not kept.
  }
  applyLang(next);
  view?.render();
});

// ---------------------------------------------------------------- home

class HomeView {
  constructor() {
    /** @type {CreateTable} */
    this.form = {
      opponent: 'friend',
      side: 'goats',
      level: 1200,
      spectators: 1,
      variant: { first: 'goats', multi_jump: false, three_tigers: false, repetition: 'forbid', ply_limit: 400 },
    };
    this.optionsOpen = false;
    /** @type {string | null} */
    this.error = null;
    this.busy = false;
  }

  destroy() {}

  render() {
    const f = this.form;
    const v = f.variant || {};
    /**
     * @param {string} name
     * @param {string} value
     * @param {string} label
     * @param {boolean} checked
     * @param {(e: Event) => void} onchange
     */
    const radio = (name, value, label, checked, onchange) =>
      h('label', { class: 'choice' }, h('input', { type: 'radio', name, value, checked, onchange }), h('span', { text: label }));
    const levelOut = h('output', { id: 'level-out', for: 'level', text: num(f.level || 1200) });
    const bots = f.opponent === 'bots';

    const options = h(
      'details',
      { class: 'options', ...(this.optionsOpen ? { open: true } : {}), ontoggle: (e) => (this.optionsOpen = /** @type {HTMLDetailsElement} */ (e.target).open) },
      h('summary', { text: t('options') }),
      h(
        'div',
        { class: 'option-grid' },
        h('label', { for: 'goats-to-win', text: t('goatsToWinLabel') }),
        h(
          'select',
          {
            id: 'goats-to-win',
            onchange: (e) => {
              const s = /** @type {HTMLSelectElement} */ (e.target).value;
              if (s === '') delete v.goats_to_win;
              else v.goats_to_win = Number(s);
            },
          },
          h('option', { value: '', text: t('goatsToWinDefault'), selected: v.goats_to_win === undefined }),
          ...[3, 4, 5, 6, 7].map((n) => h('option', { value: String(n), text: num(n), selected: v.goats_to_win === n })),
        ),
        h('label', { for: 'first', text: t('firstLabel') }),
        h(
          'select',
          { id: 'first', onchange: (e) => (v.first = /** @type {Side} */ (/** @type {HTMLSelectElement} */ (e.target).value)) },
          h('option', { value: 'goats', text: t('goats'), selected: v.first !== 'tigers' }),
          h('option', { value: 'tigers', text: t('tigers'), selected: v.first === 'tigers' }),
        ),
        h('label', { for: 'repetition', text: t('repetitionLabel') }),
        h(
          'select',
          {
            id: 'repetition',
            onchange: (e) => (v.repetition = /** @type {HTMLSelectElement} */ (e.target).value === 'threefold_draw' ? 'threefold_draw' : 'forbid'),
          },
          h('option', { value: 'forbid', text: t('repetitionForbid'), selected: v.repetition !== 'threefold_draw' }),
          h('option', { value: 'threefold_draw', text: t('repetitionThreefold'), selected: v.repetition === 'threefold_draw' }),
        ),
        h('label', { for: 'ply-limit', text: t('plyLimitLabel') }),
        h('input', {
          id: 'ply-limit',
          type: 'number',
          min: 2,
          max: 1000,
          step: 1,
          value: String(v.ply_limit || 400),
          oninput: (e) => (v.ply_limit = Number(/** @type {HTMLInputElement} */ (e.target).value) || 400),
        }),
        h(
          'label',
          { class: 'check span2' },
          h('input', { type: 'checkbox', id: 'multi-jump', checked: Boolean(v.multi_jump), onchange: (e) => (v.multi_jump = /** @type {HTMLInputElement} */ (e.target).checked) }),
          h('span', { text: t('multiJumpLabel') }),
        ),
        h(
          'label',
          { class: 'check span2' },
          h('input', { type: 'checkbox', id: 'three-tigers', checked: Boolean(v.three_tigers), onchange: (e) => (v.three_tigers = /** @type {HTMLInputElement} */ (e.target).checked) }),
          h('span', { text: t('threeTigersLabel') }),
        ),
      ),
    );

    const tables = storedTables();
    const form = h(
      'form',
      { class: 'create', onsubmit: (e) => this.submit(e) },
      h(
        'fieldset',
        {},
        h('legend', { text: t('opponentLegend') }),
        radio('opponent', 'friend', t('opponentFriend'), f.opponent === 'friend', () => this.set({ opponent: 'friend' })),
        radio('opponent', 'computer', t('opponentComputer'), f.opponent === 'computer', () => this.set({ opponent: 'computer' })),
        radio('opponent', 'bots', t('opponentBots'), bots, () => this.set({ opponent: 'bots', spectators: Math.max(1, f.spectators || 0) })),
      ),
      h(
        'fieldset',
        { disabled: bots },
        h('legend', { text: t('sideLegend') }),
        radio('side', 'goats', t('sideGoatsFirst'), f.side === 'goats', () => (f.side = 'goats')),
        radio('side', 'tigers', t('sideTigers'), f.side === 'tigers', () => (f.side = 'tigers')),
      ),
      h(
        'div',
        { class: 'field', hidden: f.opponent === 'friend' },
        h('label', { for: 'level', text: t('levelLabel') }),
        h(
          'div',
          { class: 'range' },
          h('input', {
            id: 'level',
            type: 'range',
            min: 400,
            max: 2400,
            step: 100,
            value: String(f.level || 1200),
            'aria-describedby': 'level-hint',
            oninput: (e) => {
              f.level = Number(/** @type {HTMLInputElement} */ (e.target).value);
              levelOut.textContent = num(f.level);
            },
          }),
          levelOut,
        ),
        h('p', { class: 'hint', id: 'level-hint', text: t('levelHint') }),
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'spectators', text: t('spectatorsLabel') }),
        h('input', {
          id: 'spectators',
          type: 'number',
          min: bots ? 1 : 0,
          max: 12,
          step: 1,
          value: String(f.spectators || 0),
          'aria-describedby': 'spectators-hint',
          oninput: (e) => (f.spectators = Math.min(12, Math.max(0, Math.round(Number(/** @type {HTMLInputElement} */ (e.target).value) || 0)))),
        }),
        h('p', { class: 'hint', id: 'spectators-hint', text: t('spectatorsHint') }),
      ),
      options,
      this.error ? h('p', { class: 'error', role: 'alert', text: this.error }) : null,
      h('button', { type: 'submit', class: 'primary', disabled: this.busy, text: this.busy ? t('creating') : t('create') }),
    );

    main.replaceChildren(
      h(
        'section',
        { class: 'home' },
        h('h2', { text: t('newTableHeading') }),
        form,
        h('p', { class: 'how', text: t('howToPlay') }),
        tables.length
          ? h(
              'section',
              { class: 'resume' },
              h('h2', { text: t('resumeHeading') }),
              h('ul', {}, ...tables.map((id) => h('li', {}, h('a', { href: `/t/${encodeURIComponent(id)}`, text: t('resume', { table: id }) })))),
            )
          : null,
      ),
    );
  }

  /** @param {Partial<CreateTable>} patch */
  set(patch) {
    Object.assign(this.form, patch);
    this.render();
  }

  /** @param {Event} e */
  async submit(e) {
    e.preventDefault();
    if (this.busy) return;
    /** @type {CreateTable} */
    const body = { ...this.form };
    if (body.opponent === 'friend') delete body.level;
    this.busy = true;
    this.error = null;
    this.render();
    try {
      const res = await fetch('/api/tables', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await res.json().catch(() => null);
      if (!res.ok) {
        this.error = t('createFailed', { message: (json && json.message) || res.statusText });
        this.busy = false;
        this.render();
        return;
      }
      const created = /** @type {TableCreated} */ (json);
      this.busy = false;
      if (created.secret) {
        saveSeat(created.table, { secret: created.secret, player: 'host', opponent_link: created.opponent_link, spectator_link: created.spectator_link });
        navigate(`/t/${encodeURIComponent(created.table)}#seat=${encodeURIComponent(created.secret)}`);
      } else if (created.spectator_link) {
        navigate(localPath(created.spectator_link));
      }
    } catch {
      this.error = t('networkError');
      this.busy = false;
      this.render();
    }
  }
}

// ---------------------------------------------------------------- table

/**
 * @typedef {'connecting' | 'online' | 'reconnecting'} ConnState
 */

class TableView {
  /** @param {string} table */
  constructor(table) {
    this.table = table;
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
    /** @type {ErrorCode | 'no_seat' | 'replaced' | null} */
    this.fatal = this.token ? null : 'no_seat';
    /** @type {WebSocket | null} */
    this.ws = null;
    /** @type {ConnState} */
    this.conn = 'connecting';
    this.attempts = 0;
    /** @type {number | null} */
    this.version = null;
    /** @type {import('./wire.js').Role | null} */
    this.role = null;
    /** @type {import('./wire.js').Player | null} */
    this.player = null;
    /** @type {TableInfo | null} */
    this.info = null;
    /** @type {GameState | null} */
    this.state = null;
    /** @type {string[]} */
    this.moves = [];
    /** @type {Presence | null} */
    this.presence = null;
    /** @type {string | null} the id of the action awaiting its answer */
    this.pending = null;
    /** @type {string | null} that action, resent with the same id after a reconnect */
    this.pendingAction = null;
    this.confirmResign = false;
    this.hints = localStorage.getItem(HINTS_KEY) !== 'off';
    this.actionCounter = 0;
    /** @type {number | undefined} */
    this.retryTimer = undefined;
    /** @type {number | undefined} */
    this.pingTimer = undefined;
    this.lastHeard = Date.now();
    this.destroyed = false;
    /** @type {Record<string, string>} copy-button feedback, by link kind */
    this.copyState = {};
    /** @type {Board | null} */
    this.board = null;
    this.boardRoot = h('div', { class: 'board-root' });
    this.onOnline = () => this.reconnectNow();
    // Going offline drops the socket at once rather than when pings fail.
    this.onOffline = () => {
      const ws = this.ws;
      if (!ws) return;
      ws.onclose = null;
      ws.close();
      this.lost(ws, 1006);
    };
    window.addEventListener('online', this.onOnline);
    window.addEventListener('offline', this.onOffline);
    if (this.token) this.connect();
  }

  destroy() {
    this.destroyed = true;
    document.title = t('title');
    window.clearTimeout(this.retryTimer);
    window.clearInterval(this.pingTimer);
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('offline', this.onOffline);
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
    }
  }

  // ------------------------------------------------------------ the socket

  connect() {
    if (this.destroyed || this.fatal) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/ws`);
    this.ws = ws;
    ws.onopen = () => {
      /** @type {ClientMessage} */
      const hello = { type: 'hello', table: this.table, token: /** @type {string} */ (this.token) };
      if (this.version !== null) hello.since = this.version;
      ws.send(JSON.stringify(hello));
      this.lastHeard = Date.now();
      window.clearInterval(this.pingTimer);
      this.pingTimer = window.setInterval(() => this.keepAlive(), 15000);
    };
    ws.onmessage = (e) => {
      this.lastHeard = Date.now();
      /** @type {ServerMessage} */
      let msg;
      try {
        msg = JSON.parse(String(e.data));
      } catch {
        return;
      }
      this.receive(msg);
    };
    ws.onclose = (e) => this.lost(ws, e.code);
  }

  /**
   * The socket is gone: retry with backoff, unless reconnecting cannot help.
   * @param {WebSocket} ws
   * @param {number} code the close code
   */
  lost(ws, code) {
    window.clearInterval(this.pingTimer);
    if (this.ws !== ws) return;
    this.ws = null;
    if (this.destroyed || this.fatal) return;
    if (code === REPLACED) {
      // The same seat was opened elsewhere (another tab): that one plays.
      this.fatal = 'replaced';
      this.render();
      return;
    }
    this.conn = 'reconnecting';
    this.update();
    // Exponential backoff with jitter: 0.5 s, 1 s, 2 s ... up to 10 s.
    const delay = Math.min(10000, 500 * 2 ** this.attempts) * (0.75 + Math.random() / 2);
    this.attempts += 1;
    this.retryTimer = window.setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (this.ws || this.destroyed || this.fatal) return;
    window.clearTimeout(this.retryTimer);
    this.connect();
  }

  keepAlive() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastHeard > 40000) {
      // Nothing heard for too long: the connection is dead.
      this.ws.close();
      return;
    }
    this.send({ type: 'ping' });
  }

  /** @param {ClientMessage} msg */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  /** @param {ServerMessage} msg */
  receive(msg) {
    switch (msg.type) {
      case 'welcome': {
        this.attempts = 0;
        this.conn = 'online';
        this.role = msg.role;
        this.player = msg.player ?? null;
        this.info = msg.table;
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
        if (this.pending && this.pendingAction) this.send({ type: 'action', id: this.pending, action: this.pendingAction });
        break;
      }
      case 'snapshot': {
        const first = this.state === null;
        const before = this.state;
        this.version = msg.version;
        this.moves = msg.moves;
        this.state = msg.state;
        this.update(!first && before !== null && before.game === msg.state.game && before.ply + 1 === msg.state.ply);
        if (first) this.announceTurn();
        break;
      }
      case 'event': {
        if (this.version !== null && msg.version <= this.version) break;
        this.version = msg.version;
        if (msg.event.kind === 'played') this.moves = [...this.moves, msg.event.action];
        if (msg.event.kind === 'rematch_started') this.moves = [];
        const hadResult = Boolean(this.state && this.state.result);
        const wasPlacing = this.state?.phase === 'placement' && this.state.game === msg.state.game;
        this.state = msg.state;
        this.pending = null;
        this.pendingAction = null;
        this.confirmResign = false;
        this.update(msg.event.kind === 'played');
        this.announceEvent(msg.event, msg.state, hadResult, wasPlacing && msg.state.phase === 'movement');
        break;
      }
      case 'presence': {
        const { type: _type, ...presence } = msg;
        this.presence = presence;
        this.update();
        break;
      }
      case 'ack':
        if (this.pending === msg.id) {
          this.pending = null;
          this.pendingAction = null;
        }
        this.update();
        break;
      case 'error': {
        const code = msg.code;
        if (FATAL.some((c) => c === code)) {
          this.fatal = code;
          this.ws?.close();
          if (code === 'invalid_token' || code === 'unknown_table') forgetSeat(this.table);
          this.render();
          return;
        }
        if (msg.id !== undefined && msg.id === this.pending) {
          this.pending = null;
          this.pendingAction = null;
        }
        announce(code === 'not_your_turn' ? t('notYourTurn') : t('actionRefused', { message: msg.message }));
        this.update();
        break;
      }
      case 'pong':
        break;
    }
  }

  // ------------------------------------------------------------ derived

  /** The viewer's side in the current game, for a player. */
  mySide() {
    if (this.role !== 'player' || !this.state || !this.player) return null;
    return this.player === 'host' ? this.state.host_side : other(this.state.host_side);
  }

  /** @returns {'play' | 'wait' | 'watch'} */
  mode() {
    if (this.role !== 'player') return 'watch';
    const s = this.state;
    if (!s || s.result || this.conn !== 'online' || this.pending) return 'wait';
    return s.side_to_move === this.mySide() ? 'play' : 'wait';
  }

  /** @param {string} action */
  play(action) {
    this.actionCounter += 1;
    const id = `${Date.now().toString(36)}-${this.actionCounter}`;
    this.pending = id;
    this.pendingAction = action;
    this.send({ type: 'action', id, action });
    this.update();
  }

  // ------------------------------------------------------------ words

  /**
   * @param {Side} side
   * @param {string} action
   */
  describeAction(side, action) {
    const { kind, points } = parseAction(action);
    const who = sideName(side);
    if (kind === 'place') return t('announcePlace', { side: who, to: points[0] });
    if (kind === 'step') return t('announceStep', { side: who, from: points[0], to: points[1] });
    const over = points.slice(1).map((p, i) => between(points[i], p));
    return t('announceJump', { side: who, from: points[0], to: points[points.length - 1], over: over.join(', ') });
  }

  /** @param {GameState} s */
  resultText(s) {
    const r = s.result;
    if (!r) return '';
    const head = r.winner ? t('resultWin', { side: sideName(r.winner) }) : t('resultDraw');
    /** @type {Record<string, string | number>} */
    const params = {};
    if (r.reason === 'capture_target') params.n = s.goats_to_win;
    if (r.reason === 'ply_limit') params.n = s.ply_limit;
    if (r.reason === 'resignation' && r.winner) params.side = sideName(other(r.winner));
    const key = /** @type {StringKey} */ (`reason_${r.reason}`);
    const mine = this.mySide();
    const personal = mine && r.winner ? (r.winner === mine ? t('youWon') : t('youLost')) : null;
    return `${personal ? `${personal}: ` : ''}${head}, ${t(key, params)}`;
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
    switch (event.kind) {
      case 'played':
        parts.push(this.describeAction(event.side, event.action));
        break;
      case 'resigned':
        parts.push(t('announceResigned', { side: sideName(event.side) }));
        break;
      case 'draw_offered':
        parts.push(t('announceDrawOffered', { side: sideName(event.side) }));
        break;
      case 'draw_declined':
        parts.push(t('announceDrawDeclined', { side: sideName(event.side) }));
        break;
      case 'draw_agreed':
        break;
      case 'rematch_offered':
        parts.push(t('announceRematchOffered', { side: sideName(event.side) }));
        break;
      case 'rematch_started': {
        const mine = this.mySide();
        parts.push(mine ? t('announceRematchStarted', { n: event.game, side: sideName(mine) }) : t('announceRematchStartedNeutral', { n: event.game }));
        break;
      }
    }
    if (placed) parts.push(t('announceAllPlaced'));
    if (s.result && !hadResult) parts.push(this.resultText(s));
    else if (!s.result && this.mode() === 'play' && (event.kind === 'played' || event.kind === 'rematch_started')) parts.push(t('announceYourTurn'));
    announce(parts.join('. '));
  }

  announceTurn() {
    const s = this.state;
    if (!s) return;
    if (s.result) announce(this.resultText(s));
    else if (this.mode() === 'play') announce(t('announceYourTurn'));
  }

  // ------------------------------------------------------------ drawing

  /** Builds the whole view (after joining, or a language switch). */
  render() {
    if (this.fatal) {
      this.renderFatal(this.fatal);
      return;
    }
    if (!this.info) {
      main.replaceChildren(h('p', { class: 'connecting', role: 'status', text: t('connecting') }));
      return;
    }
    if (!this.board) this.board = new Board(this.boardRoot, (action) => this.play(action));
    this.board.relabel();

    this.el = {
      role: this.role,
      banner: h('p', { class: 'banner', role: 'status' }),
      headline: h('p', { class: 'headline', id: 'headline' }),
      counters: h('dl', { class: 'counters' }),
      pile: h('div', { class: 'pile', role: 'img' }),
      seats: h('ul', { class: 'seats' }),
      spectators: h('p', { class: 'spectators' }),
      tally: h('p', { class: 'tally' }),
      rules: h('p', { class: 'rules', text: this.rulesText() }),
      controls: h('div', { class: 'controls' }),
      moves: h('ol', { class: 'moves', 'aria-label': t('moves') }),
      links: this.renderLinks(),
      watch: this.role === 'spectator' ? this.renderWatch() : null,
    };
    const e = this.el;
    main.replaceChildren(
      h(
        'div',
        { class: 'table' },
        e.banner,
        h('div', { class: 'board-column', id: 'board' }, e.headline, this.boardRoot, e.pile),
        h(
          'aside',
          { class: 'panel', 'aria-label': t('status') },
          e.watch,
          h('section', { class: 'card' }, h('h2', { class: 'visually-hidden', text: t('status') }), e.counters, e.seats, e.spectators, e.tally, e.rules),
          h('section', { class: 'card', 'aria-label': t('actions') }, e.controls),
          e.links,
          h('section', { class: 'card' }, h('h2', { text: t('moves') }), e.moves),
        ),
      ),
    );
    this.update();
  }

  /** The table's rules, where they differ from the house rules. */
  rulesText() {
    const v = this.info?.variant;
    /** @type {string[]} */
    const list = [];
    if (v) {
      const target = v.three_tigers ? 4 : 5;
      if (v.goats_to_win !== undefined && v.goats_to_win !== null && v.goats_to_win !== target) list.push(t('rulesTarget', { n: v.goats_to_win }));
      if (v.first === 'tigers') list.push(t('rulesTigersFirst'));
      if (v.multi_jump) list.push(t('rulesMultiJump'));
      if (v.three_tigers) list.push(t('rulesThreeTigers'));
      if (v.repetition === 'threefold_draw') list.push(t('rulesThreefold'));
      if (v.ply_limit !== undefined && v.ply_limit !== 400) list.push(t('rulesPlyLimit', { n: v.ply_limit }));
    }
    return t('rules', { list: list.length ? list.join(', ') : t('rulesHouse') });
  }

  /**
   * @param {ErrorCode | 'no_seat' | 'replaced'} code
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
            this.fatal = null;
            this.render();
            this.connect();
          },
        }),
      );
    }
    main.replaceChildren(
      h('section', { class: `notice ${code.replace(/_/g, '-')}` }, h('h2', { text: t(heading) }), h('p', { text: t(text) }), h('p', { class: 'notice-actions' }, ...buttons)),
    );
  }

  /** @param {Event} ev */
  goHome(ev) {
    ev.preventDefault();
    navigate('/');
  }

  /** The links panel, for the creator of the table. */
  renderLinks() {
    const stored = loadSeat(this.table);
    if (this.role !== 'player' || !stored || stored.secret !== this.token) return null;
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
            h('button', { type: 'button', 'aria-label': t(copyLabel), text: t('copy'), onclick: () => this.copy(kind, String(link), input, status) }),
          ),
          status,
        );
      }),
      h('p', { class: 'private-note', text: t('linksPrivate') }),
    );
  }

  /**
   * @param {string} kind
   * @param {string} link
   * @param {HTMLInputElement} input
   * @param {HTMLElement} status
   */
  async copy(kind, link, input, status) {
    try {
      await navigator.clipboard.writeText(link);
      this.copyState[kind] = t('copied');
    } catch {
      input.focus();
      input.select();
      this.copyState[kind] = t('copyFailed');
    }
    status.textContent = this.copyState[kind];
    window.setTimeout(() => {
      delete this.copyState[kind];
      status.textContent = '';
    }, 4000);
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
            try {
              localStorage.setItem(HINTS_KEY, this.hints ? 'on' : 'off');
            } catch {
              // Not kept.
            }
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
    const e = this.el;
    const s = this.state;
    if (!e || !s || !this.board || this.fatal) return;
    const mode = this.mode();
    this.board.update({ position: s.position, legal: s.legal, lastAction: s.last_action, mode, hints: this.hints }, animate);

    e.banner.textContent = this.conn === 'reconnecting' ? t('reconnecting') : '';
    e.banner.hidden = this.conn !== 'reconnecting';

    // Whose turn, or the result.
    const mine = this.mySide();
    const phase = s.phase === 'placement' ? t('phasePlacement') : t('phaseMovement');
    let headline;
    if (s.result) headline = this.resultText(s);
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
    const p = this.presence;
    e.seats.replaceChildren(
      ...(['goats', 'tigers']).map((side) => {
        const sd = /** @type {Side} */ (side);
        const seat = p ? p[sd] : null;
        const you = mine === sd;
        let who = sideName(sd);
        if (you) who += ` (${t('you')})`;
        let state = '';
        if (seat && seat.computer) state = t('computerLevel', { level: seat.level ?? (this.info && this.info.level) ?? 0 });
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
    if (this.player) {
      const mineWins = this.player === 'host' ? tally.host : tally.guest;
      const theirs = this.player === 'host' ? tally.guest : tally.host;
      e.tally.textContent = `${gameNo} · ${t('tally', { mine: mineWins, theirs, draws: tally.draws })}`;
    } else {
      e.tally.textContent = `${gameNo} · ${t('tallyNeutral', { host: tally.host, guest: tally.guest, draws: tally.draws })}`;
    }

    this.updateControls();

    // The move list, two half moves a line.
    const items = [];
    for (let i = 0; i < this.moves.length; i += 2) {
      items.push(h('li', {}, h('span', { class: 'ply', text: this.moves[i] }), this.moves[i + 1] ? h('span', { class: 'ply', text: this.moves[i + 1] }) : null));
    }
    if (items.length) e.moves.replaceChildren(...items);
    else e.moves.replaceChildren(h('li', { class: 'empty', text: t('noMoves') }));
    e.moves.scrollTop = e.moves.scrollHeight;
  }

  /** The buttons that fit the moment. */
  updateControls() {
    const e = this.el;
    const s = this.state;
    if (!e || !s) return;
    const focusedId = document.activeElement instanceof HTMLElement && e.controls.contains(document.activeElement) ? document.activeElement.id : null;
    /** @type {Node[]} */
    const out = [];
    const mine = this.mySide();
    const friend = this.info?.opponent === 'friend';
    /**
     * @param {string} id
     * @param {string} text
     * @param {() => void} onclick
     * @param {string} [cls]
     */
    const button = (id, text, onclick, cls = '') => h('button', { type: 'button', id, class: cls, text, onclick, disabled: this.conn !== 'online' });
    if (mine && !s.result) {
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
        out.push(h('p', { class: 'offer', text: t('rematchOfferedToYou') }), button('rematch', t('rematchAccept'), () => this.send({ type: 'rematch' }), 'primary'));
      } else out.push(button('rematch', t('rematch'), () => this.send({ type: 'rematch' }), 'primary'));
    }
    if (mine && friend && this.presence && !this.presence[other(mine)].connected && s.ply === 0 && s.game === 1) {
      out.push(h('p', { class: 'offer', text: t('waitingForOpponent') }));
    }
    out.push(
      h('button', {
        type: 'button',
        id: 'new-table',
        text: t('newTable'),
        onclick: () => {
          if (this.role === 'player') forgetSeat(this.table);
          navigate('/');
        },
      }),
    );
    e.controls.replaceChildren(...out);
    if (focusedId) document.getElementById(focusedId)?.focus();
  }
}

// ---------------------------------------------------------------- start

/** @returns {Lang} */
function initialLang() {
  try {
    const saved = localStorage.getItem(LANG_KEY);
    if (saved === 'ne' || saved === 'en') return saved;
  } catch {
    // No storage.
  }
  return navigator.language.startsWith('ne') ? 'ne' : 'en';
}

applyLang(initialLang());
route();
