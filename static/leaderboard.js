// The leaderboard, `/leaderboard` (blitz) and `/leaderboard/{speed}`: the
// best 100 players of a speed class whose rating is no longer
// provisional, each linking to their profile.

import { t, num } from './i18n.js';
import { h, mainElement } from './dom.js';
import { SPEED_NAMES, speedName } from './playergames.js';

/** @typedef {import('./wire.js').Leaderboard} Leaderboard */

export class LeaderboardView {
  /**
   * @param {string} speed
   * @param {(path: string) => void} navigate
   */
  constructor(speed, navigate) {
    this.speed = SPEED_NAMES.includes(speed) ? speed : 'blitz';
    this.navigate = navigate;
    /** @type {Leaderboard | null} */
    this.board = null;
    this.failed = false;
    this.gone = false;
    this.load();
  }

  destroy() {
    this.gone = true;
  }

  async load() {
    try {
      const res = await fetch(`/api/leaderboard/${this.speed}`);
      if (res.ok) this.board = await res.json();
      else this.failed = true;
    } catch {
      this.failed = true;
    }
    if (!this.gone) this.render();
  }

  render() {
    document.title = `${t('leaderboardHeading')} · ${t('title')}`;
    const speeds = h(
      'nav',
      { class: 'speeds', 'aria-label': t('speedsLabel') },
      ...SPEED_NAMES.map((speed) => h('a', { href: `/leaderboard/${speed}`, 'aria-current': speed === this.speed ? 'page' : false, text: speedName(speed) })),
    );
    let body;
    if (this.failed) body = h('p', { role: 'alert', text: t('networkError') });
    else if (!this.board) body = h('p', { text: t('loading') });
    else if (!this.board.players.length) body = h('p', { class: 'hint', text: t('leaderboardEmpty') });
    else {
      body = h(
        'table',
        { class: 'leaderboard' },
        h('caption', { text: t('leaderboardCaption', { speed: speedName(this.speed) }) }),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: t('rankColumn') }), h('th', { scope: 'col', text: t('playerColumn') }), h('th', { scope: 'col', text: t('ratingColumn') }), h('th', { scope: 'col', text: t('gamesColumn') }))),
        h(
          'tbody',
          {},
          ...this.board.players.map((p) =>
            h('tr', {}, h('td', { text: num(p.rank) }), h('td', {}, h('a', { href: `/@/${encodeURIComponent(p.name)}`, text: p.name })), h('td', { text: num(p.rating) }), h('td', { text: num(p.games) })),
          ),
        ),
      );
    }
    mainElement().replaceChildren(h('section', { class: 'leaderboard-view' }, h('h2', { id: 'leaderboard-heading', text: t('leaderboardHeading') }), speeds, h('p', { class: 'hint', text: t('leaderboardText') }), body));
  }
}
