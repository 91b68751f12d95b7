// A player's profile, `/@/{name}` (an account) or `/player/{id}` (any
// player, anonymous ones too): their ratings ("1500?" while provisional),
// a chart of each speed class's rating (inline SVG), games won, drawn and
// lost with each side, and their games, page by page, each linking to
// its game page. On another player's profile, a button blocks them (the
// lobby then never pairs the two, nor shows either the other's
// challenges) or unblocks them.

import { t, num } from './i18n.js';
import { h, s, mainElement, sideName } from './dom.js';
import { fetchGames, gameList, speedName, ratingText, dateText } from './playergames.js';
import { currentPlayer, playerAsked } from './account.js';

/** @typedef {import('./wire.js').Profile} Profile */
/** @typedef {import('./wire.js').PlayerGame} PlayerGame */
/** @typedef {import('./wire.js').RatingHistory} RatingHistory */
/** @typedef {import('./wire.js').BlockList} BlockList */

const CHART_WIDTH = 320;
const CHART_HEIGHT = 120;
const CHART_PAD = 8;

/**
 * A rating chart: the rating after each rated game, oldest on the left;
 * the lowest and highest ratings are written beside it.
 * @param {RatingHistory} history
 */
export function ratingChart(history) {
  const ratings = history.points.map((p) => p.rating);
  const low = Math.min(...ratings);
  const high = Math.max(...ratings);
  const span = Math.max(high - low, 1);
  const step = ratings.length > 1 ? (CHART_WIDTH - 2 * CHART_PAD) / (ratings.length - 1) : 0;
  const points = ratings
    .map((r, i) => {
      const x = ratings.length > 1 ? CHART_PAD + i * step : CHART_WIDTH / 2;
      const y = CHART_HEIGHT - CHART_PAD - ((r - low) / span) * (CHART_HEIGHT - 2 * CHART_PAD);
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
  const svg = s('svg', { class: 'rating-chart', viewBox: `0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`, role: 'img', 'aria-label': t('chartLabel', { speed: speedName(history.speed), games: ratings.length, first: ratings[0], last: ratings[ratings.length - 1], low, high }) });
  svg.append(s('rect', { x: 0, y: 0, width: CHART_WIDTH, height: CHART_HEIGHT, class: 'chart-frame' }));
  if (ratings.length > 1) svg.append(s('polyline', { points, class: 'chart-line' }));
  const [x, y] = points.split(' ').slice(-1)[0].split(',');
  svg.append(s('circle', { cx: x, cy: y, r: 4, class: 'chart-dot' }));
  return h('figure', { class: 'chart' }, svg, h('figcaption', { text: t('chartCaption', { speed: speedName(history.speed), low, high }) }));
}

export class ProfileView {
  /**
   * @param {{name?: string, id?: string}} who
   * @param {(path: string) => void} navigate
   */
  constructor(who, navigate) {
    this.who = who;
    this.navigate = navigate;
    /** @type {Profile | null} */
    this.profile = null;
    /** @type {'loading' | 'missing' | 'failed' | 'ready'} */
    this.status = 'loading';
    /** @type {PlayerGame[]} */
    this.games = [];
    /** @type {string | null} */
    this.next = null;
    this.busy = false;
    this.gone = false;
    /**
     * Whether the current player blocks this one: `null` on one's own
     * profile, or while unknown (no session).
     * @type {boolean | null}
     */
    this.blocked = null;
    /** A refused block or unblock, said under the button. */
    this.blockError = '';
    this.blocking = false;
    this.load();
  }

  destroy() {
    this.gone = true;
  }

  async load() {
    const path = this.who.name ? `/api/players/by-name/${encodeURIComponent(this.who.name)}` : `/api/players/${encodeURIComponent(this.who.id ?? '')}`;
    try {
      const res = await fetch(path);
      if (this.gone) return;
      if (res.status === 404) this.status = 'missing';
      else if (!res.ok) this.status = 'failed';
      else {
        this.profile = await res.json();
        this.status = 'ready';
      }
    } catch {
      this.status = 'failed';
    }
    if (this.gone) return;
    if (this.profile) await this.loadBlocked(this.profile.id);
    if (this.gone) return;
    this.render();
    if (this.profile) await this.more();
  }

  /**
   * Whether the current player blocks `id` (left unknown on one's own
   * profile and without a session).
   * @param {string} id
   */
  async loadBlocked(id) {
    await playerAsked;
    const me = currentPlayer();
    if (!me || me.id === id) return;
    try {
      const res = await fetch('/api/blocks');
      if (!res.ok) return;
      /** @type {BlockList} */
      const list = await res.json();
      this.blocked = list.players.some((p) => p.id === id);
    } catch {
      // Without the list, no button.
    }
  }

  /** Blocks or unblocks this profile's player. */
  async toggleBlock() {
    if (!this.profile || this.blocked === null || this.blocking) return;
    this.blocking = true;
    this.blockError = '';
    const method = this.blocked ? 'DELETE' : 'PUT';
    try {
      const res = await fetch(`/api/players/${encodeURIComponent(this.profile.id)}/block`, { method });
      if (res.ok) this.blocked = !this.blocked;
      else this.blockError = res.status === 429 ? t('blockLimit') : t('blockFailed');
    } catch {
      this.blockError = t('networkError');
    }
    this.blocking = false;
    if (this.gone) return;
    this.render();
    document.getElementById('profile-block')?.focus();
  }

  async more() {
    if (!this.profile) return;
    this.busy = true;
    const first = this.games.length;
    const page = await fetchGames(this.profile.id, this.next);
    this.busy = false;
    if (this.gone) return;
    if (page) {
      this.games = this.games.concat(page.games);
      this.next = page.next;
    }
    this.render();
    if (first) /** @type {HTMLElement | null} */ (mainElement().querySelectorAll('.player-games .game-link')[first])?.focus();
  }

  /** The name a profile goes by. */
  title() {
    const p = this.profile;
    if (!p) return this.who.name ?? t('anonymousPlayer');
    if (p.closed) return t('closedAccount');
    return p.name ?? t('anonymousPlayer');
  }

  render() {
    document.title = `${this.title()} · ${t('title')}`;
    const main = mainElement();
    if (this.status !== 'ready' || !this.profile) {
      const text = this.status === 'loading' ? t('loading') : this.status === 'missing' ? t('noSuchPlayer') : t('networkError');
      main.replaceChildren(h('section', { class: 'profile' }, h('h2', { text: this.title() }), h('p', { role: this.status === 'loading' ? false : 'alert', text })));
      return;
    }
    const p = this.profile;
    const ratings = p.ratings.length
      ? h(
          'ul',
          { class: 'ratings' },
          ...p.ratings.map((r) =>
            h('li', {}, h('span', { class: 'speed', text: speedName(r.speed) }), ' ', h('strong', { text: ratingText(r) }), h('span', { class: 'hint', text: ` · ${t('ratedGames', { n: r.games })}${r.provisional ? ` · ${t('provisional')}` : ''}` })),
          ),
        )
      : h('p', { class: 'hint', text: t('noRatings') });
    const record = h(
      'table',
      { class: 'record' },
      h('caption', { text: t('recordCaption') }),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: t('sideColumn') }), h('th', { scope: 'col', text: t('gameWon') }), h('th', { scope: 'col', text: t('gameDrawn') }), h('th', { scope: 'col', text: t('gameLost') }))),
      h('tbody', {}, ...p.record.map((r) => h('tr', {}, h('th', { scope: 'row', text: sideName(r.side) }), h('td', { text: num(r.won) }), h('td', { text: num(r.drawn) }), h('td', { text: num(r.lost) })))),
    );
    mainElement().replaceChildren(
      h(
        'section',
        { class: 'profile' },
        h('h2', { id: 'profile-name', text: this.title() }),
        h('p', { class: 'hint', text: t('playingSince', { date: dateText(p.created) }) }),
        this.blocked === null
          ? null
          : h(
              'p',
              { class: 'profile-block' },
              h('button', { type: 'button', id: 'profile-block', 'aria-describedby': 'profile-block-hint', text: this.blocked ? t('unblockPlayer') : t('blockPlayer'), onclick: () => this.toggleBlock() }),
              ' ',
              h('span', { id: 'profile-block-hint', class: 'hint', text: this.blocked ? t('blockedHint') : t('blockHint') }),
              this.blockError ? h('span', { class: 'error', role: 'alert', text: ` ${this.blockError}` }) : null,
            ),
        h('h3', { text: t('ratingsHeading') }),
        ratings,
        ...p.history.map(ratingChart),
        record,
        h('h3', { text: t('gamesHeading') }),
        ...gameList(this.games, this.next, () => this.more(), this.busy),
        h('p', {}, h('a', { href: '/leaderboard', text: t('leaderboardHeading') })),
      ),
    );
  }
}
