// The lobby on the home page: quick pairing in the pools, the open
// challenges with a form to make one, and the counts. It listens to the
// server's live channel (server-sent events) and opens the table when the
// lobby seats this player there.

import { t, num } from './i18n.js';
import { h } from './dom.js';
import { TIME_CONTROLS, describeClock } from './clock.js';
import { onPlayer } from './account.js';

/** @typedef {import('./wire.js').LobbyState} LobbyState */
/** @typedef {import('./wire.js').LobbyEvent} LobbyEvent */
/** @typedef {import('./wire.js').Challenge} Challenge */
/** @typedef {import('./wire.js').Me} Me */
/** @typedef {import('./wire.js').LiveGame} LiveGame */
/** @typedef {import('./wire.js').LobbyPlayer} LobbyPlayer */

/** The live games the home page lists. */
const SHOWN_LIVE = 10;

/** The clocks a challenge may have (the table form's, less the slow paces). */
const CHALLENGE_CLOCKS = TIME_CONTROLS.filter((c) => c.value !== '2d' && c.value !== '3d');

export class LobbySection {
  /** @param {(path: string) => void} navigate opens another view of the page */
  constructor(navigate) {
    this.navigate = navigate;
    /** @type {Me | null} */
    this.me = null;
    /** @type {LobbyState | null} */
    this.state = null;
    /** @type {string | null} the pool this player waits in */
    this.waiting = null;
    /** Whether this player has offered a game (a challenge) since the last pairing. */
    this.seeking = false;
    /** @type {string | null} a lobby game of this player that goes on */
    this.current = null;
    /** @type {string | null} */
    this.error = null;
    this.clock = '5+3';
    /** @type {'random' | 'goats' | 'tigers'} */
    this.side = 'random';
    this.rated = false;
    /** @type {LiveGame[]} the lobby games in progress, the best-rated first */
    this.live = [];
    /** @type {number | null} the count of games in play when the list was read */
    this.liveAt = null;
    /** @type {EventSource | null} */
    this.events = null;
    /** @type {(() => void) | null} */
    this.stopFollowing = null;
    this.closed = false;
    this.start();
  }

  /** Follows the browser's player, as the account area knows it. */
  start() {
    this.stopFollowing = onPlayer((me) => this.follow(me));
  }

  destroy() {
    this.closed = true;
    this.stopFollowing?.();
    this.events?.close();
    this.events = null;
  }

  /**
   * Takes the browser's player as it is now. The live channel is opened
   * under it, and again under the next one after a log in or out: the
   * server seats the player the session cookie names, so a channel of the
   * last player would never hear of it.
   * @param {Me | null} me
   */
  follow(me) {
    // Until the page's first `GET /api/me` is answered there is no
    // player (and asking again here would make a second one).
    if (this.closed || !me) return;
    const before = this.me;
    this.me = me;
    if (before?.name !== me.name) this.rated = Boolean(me.name);
    if (before?.id !== me.id) {
      this.events?.close();
      this.state = null;
      this.waiting = null;
      this.seeking = false;
      this.current = null;
      const events = new EventSource('/api/lobby/events');
      events.onmessage = (e) => this.receive(/** @type {LobbyEvent} */ (JSON.parse(e.data)));
      this.events = events;
    }
    this.redraw();
  }

  /** @param {LobbyEvent} event */
  receive(event) {
    if (event.type === 'paired') {
      // The state that drops the taken challenge may come first: whether
      // this player was seeking is remembered, not read from it.
      const waited = this.waiting !== null || this.seeking;
      this.current = event.table;
      if (waited) {
        this.waiting = null;
        this.seeking = false;
        this.navigate(`/t/${encodeURIComponent(event.table)}`);
        return;
      }
    } else {
      const { type: _type, ...state } = event;
      this.state = state;
      if (this.mine().length) this.seeking = true;
      if (state.games_in_play !== this.liveAt) {
        this.liveAt = state.games_in_play;
        this.readLive();
      }
    }
    this.redraw();
  }

  /** Draws the section again in place, the focus kept on its control. */
  redraw() {
    const old = document.getElementById('lobby');
    if (!old) return;
    const focused = document.activeElement instanceof HTMLElement && old.contains(document.activeElement) ? document.activeElement.id : '';
    old.replaceWith(this.render());
    if (focused) document.getElementById(focused)?.focus();
  }

  /** Reads the games in play again. */
  async readLive() {
    try {
      const res = await fetch('/api/live');
      if (!res.ok) return;
      this.live = /** @type {import('./wire.js').LiveGames} */ (await res.json()).games;
      this.redraw();
    } catch {
      // The list stays as it was; the next change reads it again.
    }
  }

  /** This player's open challenges. */
  mine() {
    const id = this.me?.id;
    return (this.state?.challenges ?? []).filter((c) => c.player.id === id);
  }

  /**
   * Sends a lobby request; a refusal is shown.
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   */
  async request(method, path, body) {
    this.error = null;
    try {
      /** @type {RequestInit} */
      const init = { method, headers: { 'content-type': 'application/json' } };
      if (body !== undefined) init.body = JSON.stringify(body);
      const res = await fetch(path, init);
      const json = await res.json().catch(() => null);
      if (!res.ok) {
        this.error = (json && json.message) || res.statusText;
        this.redraw();
        return null;
      }
      return json;
    } catch {
      this.error = t('networkError');
      this.redraw();
      return null;
    }
  }

  /** @param {string} pool */
  async joinPool(pool) {
    if (this.waiting === pool) {
      await this.request('DELETE', `/api/pools/${encodeURIComponent(pool)}`);
      this.waiting = null;
    } else if (await this.request('POST', `/api/pools/${encodeURIComponent(pool)}`)) {
      this.waiting = pool;
    }
    this.redraw();
  }

  async createChallenge() {
    const clock = CHALLENGE_CLOCKS.find((c) => c.value === this.clock)?.clock ?? null;
    if (await this.request('POST', '/api/challenges', { side: this.side, clock, rated: this.rated && Boolean(this.me?.name) })) this.seeking = true;
  }

  /** @param {Challenge} c */
  async accept(c) {
    const paired = await this.request('POST', `/api/challenges/${encodeURIComponent(c.id)}/accept`);
    if (paired) this.navigate(`/t/${encodeURIComponent(paired.table)}`);
  }

  /** @param {Challenge} c */
  async withdraw(c) {
    await this.request('DELETE', `/api/challenges/${encodeURIComponent(c.id)}`);
    if (this.mine().every((m) => m.id === c.id)) this.seeking = false;
  }

  render() {
    const state = this.state;
    const pools = state?.pools ?? [];
    const account = Boolean(this.me?.name);
    return h(
      'section',
      { class: 'lobby', id: 'lobby', 'aria-labelledby': 'lobby-heading' },
      h('h2', { id: 'lobby-heading', text: t('lobbyHeading') }),
      state
        ? h('p', { class: 'hint', id: 'lobby-counts', text: t('lobbyCounts', { players: state.players_online, games: state.games_in_play }) })
        : h('p', { class: 'hint', text: t('lobbyConnecting') }),
      this.current
        ? h('p', { class: 'lobby-current' }, h('a', { class: 'button primary', id: 'lobby-resume', href: `/t/${encodeURIComponent(this.current)}`, text: t('lobbyResume') }))
        : null,
      h('h3', { text: t('quickPairingHeading') }),
      h(
        'div',
        { class: 'pools', role: 'group', 'aria-label': t('quickPairingHeading') },
        ...pools.map((p) =>
          h(
            'button',
            {
              type: 'button',
              class: this.waiting === p.id ? 'pool waiting' : 'pool',
              id: `pool-${p.id.replace('+', '-')}`,
              'aria-pressed': this.waiting === p.id ? 'true' : 'false',
              onclick: () => this.joinPool(p.id),
            },
            h('span', { class: 'pool-clock', text: poolName(p.id) }),
            h('span', { class: 'pool-waiting', text: this.waiting === p.id ? t('poolWaitingYou') : t('poolWaiting', { n: p.waiting }) }),
          ),
        ),
      ),
      h('p', { class: 'hint', text: account ? t('poolsRated') : t('poolsCasual') }),
      h('h3', { text: t('challengesHeading') }),
      this.renderChallenges(),
      this.renderForm(account),
      this.error ? h('p', { class: 'error', role: 'alert', text: this.error }) : null,
      this.live.length ? h('h3', { text: t('liveGamesHeading') }) : null,
      this.live.length ? h('p', {}, h('a', { href: '/tv', id: 'tv-link', text: t('tvLink') })) : null,
      this.live.length
        ? h(
            'ul',
            { class: 'live-games', id: 'live-games' },
            ...this.live.slice(0, SHOWN_LIVE).map((g) =>
              h('li', {}, h('a', { href: `/t/${encodeURIComponent(g.table)}`, text: `${playerWords(g.goats)} – ${playerWords(g.tigers)} · ${describeClock(clockOption(g.clock))}${g.rated ? '' : ` · ${t('casual')}`}` })),
            ),
          )
        : null,
    );
  }

  renderChallenges() {
    const list = this.state?.challenges ?? [];
    if (!list.length) return h('p', { class: 'hint', id: 'no-challenges', text: t('noChallenges') });
    const mine = this.me?.id;
    return h(
      'ul',
      { class: 'challenges', id: 'challenges' },
      ...list.map((c) =>
        h(
          'li',
          {},
          h('span', { class: 'challenge-who', text: playerWords(c.player) }),
          h('span', { class: 'challenge-terms', text: ` · ${describeClock(clockOption(c.clock))} · ${t(c.side === 'goats' ? 'wantsGoats' : c.side === 'tigers' ? 'wantsTigers' : 'wantsEither')} · ${t(c.rated ? 'rated' : 'casual')}` }),
          c.player.id === mine
            ? h('button', { type: 'button', id: `withdraw-${c.id}`, class: 'challenge-withdraw', text: t('withdrawChallenge'), onclick: () => this.withdraw(c) })
            : h('button', { type: 'button', id: `accept-${c.id}`, class: 'challenge-accept', text: t('acceptChallenge'), onclick: () => this.accept(c) }),
        ),
      ),
    );
  }

  /** @param {boolean} account */
  renderForm(account) {
    return h(
      'form',
      {
        class: 'challenge-form',
        'aria-label': t('newChallengeHeading'),
        onsubmit: (/** @type {Event} */ e) => {
          e.preventDefault();
          this.createChallenge();
        },
      },
      h('label', { for: 'challenge-clock', text: t('clockLabel') }),
      h(
        'select',
        { id: 'challenge-clock', onchange: (e) => (this.clock = /** @type {HTMLSelectElement} */ (e.target).value) },
        ...CHALLENGE_CLOCKS.map((c) => h('option', { value: c.value, text: describeClock(c.clock), selected: c.value === this.clock })),
      ),
      h('label', { for: 'challenge-side', text: t('sideLegend') }),
      h(
        'select',
        { id: 'challenge-side', onchange: (e) => (this.side = /** @type {any} */ (/** @type {HTMLSelectElement} */ (e.target).value)) },
        h('option', { value: 'random', text: t('sideRandom'), selected: this.side === 'random' }),
        h('option', { value: 'goats', text: t('sideGoatsFirst'), selected: this.side === 'goats' }),
        h('option', { value: 'tigers', text: t('sideTigers'), selected: this.side === 'tigers' }),
      ),
      h(
        'label',
        { class: 'choice' },
        h('input', {
          type: 'checkbox',
          id: 'challenge-rated',
          checked: this.rated && account,
          disabled: !account,
          onchange: (e) => (this.rated = /** @type {HTMLInputElement} */ (e.target).checked),
        }),
        h('span', { text: account ? t('rated') : t('ratedNeedsAccount') }),
      ),
      h('button', { type: 'submit', id: 'create-challenge', text: t('createChallenge') }),
    );
  }
}

/**
 * A pool's time control in words.
 * @param {string} id
 */
function poolName(id) {
  if (id === '1d') return t('clockOneDay');
  const [minutes, increment] = id.split('+').map(Number);
  return t('clockMinutesPlus', { initial: num(minutes), increment });
}

/**
 * A challenge's clock as the page's clock words take it.
 * @param {import('./wire.js').TimeControlRequest | null} c
 * @returns {import('./clock.js').ClockOption | null}
 */
function clockOption(c) {
  if (!c) return null;
  if (c.days_per_action) return { days_per_action: c.days_per_action };
  return { initial: c.initial ?? 0, increment: c.increment ?? 0 };
}

/**
 * A player as the lobby names them: "GoatHerd (1623)", "Anonymous (1500?)".
 * @param {LobbyPlayer} p
 */
function playerWords(p) {
  return `${p.name ?? t('anonymousPlayer')} (${num(p.rating)}${p.provisional ? '?' : ''})`;
}
