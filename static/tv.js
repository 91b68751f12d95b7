// The TV: the best-rated lobby game in progress, watched, and the next
// one once it ends (lila's TV is the model). It shows the game through the
// table view, as a spectator without a link.

import { t } from './i18n.js';
import { h, mainElement } from './dom.js';
import { TableView } from './table.js';

/** How often the TV looks for a better or a next game. */
const LOOK_EVERY_MS = 5000;

export class TvView {
  /** @param {(path: string) => void} navigate opens another view of the page */
  constructor(navigate) {
    this.navigate = navigate;
    /** @type {TableView | null} the game shown */
    this.showing = null;
    /** @type {string | null} its table */
    this.table = null;
    /** @type {number | undefined} */
    this.timer = undefined;
    this.looked = false;
    this.look();
    this.timer = window.setInterval(() => this.look(), LOOK_EVERY_MS);
  }

  destroy() {
    window.clearInterval(this.timer);
    this.showing?.destroy();
    this.showing = null;
  }

  /** Finds the game to show: the current one while it goes on, else the top. */
  async look() {
    /** @type {import('./wire.js').LiveGame[]} */
    let games;
    try {
      const res = await fetch('/api/live');
      if (!res.ok) return;
      games = /** @type {import('./wire.js').LiveGames} */ (await res.json()).games;
    } catch {
      return;
    }
    this.looked = true;
    const goesOn = games.some((g) => g.table === this.table);
    const over = Boolean(this.showing?.s.game?.result);
    if (goesOn && !over) return;
    const next = games.find((g) => g.table !== this.table) ?? null;
    if (!next) {
      if (!this.showing) this.render();
      return;
    }
    this.showing?.destroy();
    this.table = next.table;
    this.showing = new TableView(next.table, this.navigate);
    this.showing.render();
  }

  render() {
    if (this.showing) {
      this.showing.render();
      return;
    }
    mainElement().replaceChildren(
      h(
        'section',
        { class: 'tv' },
        h('h2', { text: t('tvHeading') }),
        h('p', { class: 'hint', id: 'tv-empty', text: this.looked ? t('tvNothing') : t('lobbyConnecting') }),
      ),
    );
  }
}
