// A player's finished games as the server records them (`GET
// /api/players/{id}/games`), page by page: the list a profile shows, and
// "My games" on the home page for a player with an account (beside the
// browser's own list of the tables it holds by link).

import { t, num, lang } from './i18n.js';
import { h, sideName } from './dom.js';
import { onPlayer } from './account.js';

/** @typedef {import('./wire.js').PlayerGame} PlayerGame */
/** @typedef {import('./wire.js').PlayerGames} PlayerGames */
/** @typedef {import('./wire.js').RatingView} RatingView */
/** @typedef {import('./i18n.js').StringKey} StringKey */

/** @type {Record<string, StringKey>} */
const SPEEDS = {
  bullet: 'speedBullet',
  blitz: 'speedBlitz',
  rapid: 'speedRapid',
  classical: 'speedClassical',
  correspondence: 'speedCorrespondence',
};

/** The speed classes, fastest first. */
export const SPEED_NAMES = Object.keys(SPEEDS);

/** @param {string} speed */
export function speedName(speed) {
  const key = SPEEDS[speed];
  return key ? t(key) : speed;
}

/**
 * A rating as players read it: `1500?` while provisional.
 * @param {{rating: number, provisional?: boolean}} r
 */
export function ratingText(r) {
  return `${num(r.rating)}${r.provisional ? '?' : ''}`;
}

/** @param {number} ms milliseconds since the epoch */
export function dateText(ms) {
  return new Date(ms).toLocaleDateString(lang() === 'ne' ? 'ne-NP' : 'en-GB', { year: 'numeric', month: 'short', day: 'numeric' });
}

/**
 * One page of a player's games, or `null` when the server cannot be read.
 * @param {string} id
 * @param {string | null} before
 * @returns {Promise<PlayerGames | null>}
 */
export async function fetchGames(id, before) {
  const query = before ? `?before=${encodeURIComponent(before)}` : '';
  try {
    const res = await fetch(`/api/players/${encodeURIComponent(id)}/games${query}`);
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

/** @type {Record<PlayerGame['result'], StringKey>} */
const RESULTS = { won: 'gameWon', drawn: 'gameDrawn', lost: 'gameLost', aborted: 'gameAborted' };

/** @param {PlayerGame} g */
function opponentText(g) {
  const o = g.opponent;
  if (o.kind === 'player') return o.name ?? t('anonymousPlayer');
  if (o.kind === 'computer') return o.level ? t('computerAtLevel', { level: o.level }) : t('opponentComputer');
  return t('opponentByLink');
}

/**
 * A game of the list: a link to its page, who played whom, the result and
 * the rating change.
 * @param {PlayerGame} g
 */
export function gameItem(g) {
  const change = g.rating_change;
  // The game's page on this page's origin, with its `?board=2`.
  const url = new URL(g.url, location.href);
  return h(
    'li',
    {},
    h('a', { class: 'game-link', href: url.pathname + url.search, text: t('gameAgainst', { opponent: opponentText(g), side: sideName(g.side) }) }),
    h('span', { class: 'my-game-result', text: ` · ${t(RESULTS[g.result])} · ${speedName(g.speed)}${g.rated ? '' : ` · ${t('casual')}`} · ${dateText(g.ended)}` }),
    change !== null ? h('span', { class: change >= 0 ? 'rating-up' : 'rating-down', text: ` ${change >= 0 ? '+' : '−'}${num(Math.abs(change))}` }) : null,
  );
}

/**
 * A list of a player's games with a button for the older ones.
 * @param {PlayerGame[]} games
 * @param {string | null} next
 * @param {() => void} more
 * @param {boolean} busy
 */
export function gameList(games, next, more, busy) {
  /** @type {HTMLElement[]} */
  const parts = [games.length ? h('ul', { class: 'player-games' }, ...games.map(gameItem)) : h('p', { class: 'hint', text: t('noRecordedGames') })];
  if (next) parts.push(h('button', { type: 'button', class: 'more-games', disabled: busy, text: t('olderGames'), onclick: more }));
  return parts;
}

/**
 * "My games" as the server records them, for a player with an account:
 * a section of the home page that fills itself.
 */
export class RecordedGames {
  constructor() {
    this.element = h('section', { class: 'my-games recorded-games', id: 'recorded-games', hidden: true });
    /** @type {PlayerGame[]} */
    this.games = [];
    /** @type {string | null} */
    this.next = null;
    /** @type {string | null} the player shown */
    this.player = null;
    /** @type {string | null} */
    this.name = null;
    this.busy = false;
    this.stop = onPlayer((me) => {
      if (me?.id === this.player && me?.name === this.name) return;
      this.player = me?.name ? me.id : null;
      this.name = me?.name ?? null;
      this.games = [];
      this.next = null;
      if (this.player) this.load();
      else this.render();
    });
  }

  destroy() {
    this.stop();
  }

  async load() {
    const player = this.player;
    if (!player) return;
    this.busy = true;
    const page = await fetchGames(player, this.next);
    this.busy = false;
    if (player !== this.player) return;
    const first = this.games.length;
    if (page) {
      this.games = this.games.concat(page.games);
      this.next = page.next;
    }
    this.render();
    if (first) /** @type {HTMLElement | null} */ (this.element.querySelectorAll('.game-link')[first])?.focus();
  }

  render() {
    this.element.hidden = !this.player;
    if (!this.player || !this.name) {
      this.element.replaceChildren();
      return;
    }
    this.element.replaceChildren(
      h('h2', { text: t('recordedGamesHeading') }),
      h('p', { class: 'hint' }, t('recordedGamesText'), ' ', h('a', { href: `/@/${encodeURIComponent(this.name)}`, text: t('accountProfile') })),
      ...gameList(this.games, this.next, () => this.load(), this.busy),
    );
  }
}
