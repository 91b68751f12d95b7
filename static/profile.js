// A player's profile, `/@/{name}` (an account) or `/player/{id}` (any
// player, anonymous ones too): their ratings ("1500?" while provisional),
// a chart of each speed class's rating (inline SVG), games won, drawn and
// lost with each side, and their games, page by page, each linking to
// its game page.

import { t, num } from './i18n.js';
import { h, s, mainElement, sideName } from './dom.js';
import { fetchGames, gameList, speedName, ratingText, dateText } from './playergames.js';

/** @typedef {import('./wire.js').Profile} Profile */
/** @typedef {import('./wire.js').PlayerGame} PlayerGame */
/** @typedef {import('./wire.js').RatingHistory} RatingHistory */

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
    this.render();
    if (this.profile) await this.more();
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
