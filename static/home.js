// The home view: the form that creates a table, and the tables this
// browser holds a seat at.

import { t, num, parseNum, lang } from './i18n.js';
import { h, mainElement, localPath } from './dom.js';
import { saveSeat, storedTables, myGames, forgetGames } from './storage.js';
import { resultText } from './words.js';
import { sideName } from './dom.js';
import { TIME_CONTROLS, describeClock } from './clock.js';
import { LobbySection } from './lobby.js';
import { RecordedGames } from './playergames.js';
import { playerAsked } from './account.js';

/** @typedef {import('./wire.js').Side} Side */
/** @typedef {import('./wire.js').CreateTable} CreateTable */
/** @typedef {import('./wire.js').TableCreated} TableCreated */

export class HomeView {
  /** @param {(path: string) => void} navigate opens another view of the page */
  constructor(navigate) {
    this.navigate = navigate;
    /** @type {CreateTable} */
    this.form = {
      opponent: 'friend',
      side: 'goats',
      level: 1200,
      spectators: 1,
      variant: { first: 'goats', multi_jump: false, three_tigers: false, repetition: 'forbid', ply_limit: 400 },
    };
    /** The time control chosen, a value of `TIME_CONTROLS`. */
    this.clockChoice = 'none';
    /** The format chosen: 0 for one game at a time, else the games of a series. */
    this.seriesGames = 0;
    /** Two boards at once (then `seriesGames` is 0). */
    this.twoBoards = false;
    this.optionsOpen = false;
    /** Whether the person typed a number of spectator seats (else it follows the opponent). */
    this.spectatorsTyped = false;
    /** @type {string | null} */
    this.error = null;
    this.busy = false;
    /** Strangers meet here: the pools and the open challenges. */
    this.lobby = new LobbySection(navigate);
    /** "My games" as the server records them, for a player with an account. */
    this.recorded = new RecordedGames();
  }

  destroy() {
    this.lobby.destroy();
    this.recorded.destroy();
  }

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
    const levelOut = h('output', { id: 'level-out', for: 'level', text: levelText(f.level || 1200) });
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
          ...NUMBER_FIELD,
          value: num(v.ply_limit || 400),
          oninput: (e) => (v.ply_limit = parseNum(/** @type {HTMLInputElement} */ (e.target).value) || 400),
          onchange: (e) => (/** @type {HTMLInputElement} */ (e.target).value = num(v.ply_limit || 400)),
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
        // A friend's table keeps a seat for one spectator unless told
        // otherwise; a game against the computer, none.
        radio('opponent', 'friend', t('opponentFriend'), f.opponent === 'friend', () => this.set({ opponent: 'friend', spectators: this.spectatorsTyped ? f.spectators : 1 })),
        radio('opponent', 'computer', t('opponentComputer'), f.opponent === 'computer', () => this.set({ opponent: 'computer', spectators: this.spectatorsTyped ? f.spectators : 0 })),
        // A bots table is only watched: its creator takes a seat of the
        // gallery, so it keeps more than one.
        radio('opponent', 'bots', t('opponentBots'), bots, () => this.set({ opponent: 'bots', spectators: (f.spectators || 0) < 2 ? BOTS_SPECTATORS : f.spectators })),
      ),
      h(
        'fieldset',
        { disabled: bots },
        h('legend', { text: t('sideLegend') }),
        radio('side', 'goats', t('sideGoatsFirst'), f.side === 'goats', () => (f.side = 'goats')),
        radio('side', 'tigers', t('sideTigers'), f.side === 'tigers', () => (f.side = 'tigers')),
        h('p', { class: 'hint', id: 'side-two-boards', hidden: !this.twoBoards || bots, text: t('sideTwoBoards') }),
      ),
      h(
        'div',
        { class: 'field', hidden: bots },
        h('label', { for: 'clock', text: t('clockLabel') }),
        h(
          'select',
          { id: 'clock', 'aria-describedby': 'clock-hint', onchange: (e) => (this.clockChoice = /** @type {HTMLSelectElement} */ (e.target).value) },
          ...TIME_CONTROLS.map((c) => h('option', { value: c.value, text: describeClock(c.clock), selected: c.value === this.clockChoice })),
        ),
        h('p', { class: 'hint', id: 'clock-hint', text: t('clockHint') }),
      ),
      h(
        'div',
        { class: 'field', hidden: bots },
        h('label', { for: 'format', text: t('formatLabel') }),
        h(
          'select',
          {
            id: 'format',
            'aria-describedby': 'format-hint',
            onchange: (e) => {
              const value = /** @type {HTMLSelectElement} */ (e.target).value;
              this.twoBoards = value === TWO_BOARDS;
              this.seriesGames = this.twoBoards ? 0 : Number(value);
              // The side chosen is then board 1's: the form says so.
              const note = document.getElementById('side-two-boards');
              if (note) note.hidden = !this.twoBoards;
            },
          },
          h('option', { value: '0', text: t('formatSingle'), selected: this.seriesGames === 0 && !this.twoBoards }),
          ...SERIES_GAMES.map((n) => h('option', { value: String(n), text: t('formatSeries', { n }), selected: this.seriesGames === n })),
          h('option', { value: TWO_BOARDS, text: t('formatTwoBoards'), selected: this.twoBoards }),
        ),
        h('p', { class: 'hint', id: 'format-hint', text: t('formatHint') }),
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
            'aria-valuetext': levelText(f.level || 1200),
            'aria-describedby': 'level-hint',
            oninput: (e) => {
              const input = /** @type {HTMLInputElement} */ (e.target);
              f.level = Number(input.value);
              levelOut.textContent = levelText(f.level);
              input.setAttribute('aria-valuetext', levelText(f.level));
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
          ...NUMBER_FIELD,
          value: num(f.spectators || 0),
          'aria-describedby': 'spectators-hint',
          oninput: (e) => {
            this.spectatorsTyped = true;
            f.spectators = Math.min(12, Math.max(bots ? 2 : 0, parseNum(/** @type {HTMLInputElement} */ (e.target).value) || 0));
          },
          // Once typed, the field shows the number the table will get.
          onchange: (e) => (/** @type {HTMLInputElement} */ (e.target).value = num(f.spectators || 0)),
        }),
        h('p', { class: 'hint', id: 'spectators-hint', text: t('spectatorsHint') }),
      ),
      options,
      this.error ? h('p', { class: 'error', role: 'alert', text: this.error }) : null,
      // Busy, the button stays focusable (aria-disabled) and a second press does nothing.
      h('button', { type: 'submit', id: 'create', class: 'primary', 'aria-disabled': this.busy ? 'true' : 'false', text: this.busy ? t('creating') : t('create') }),
    );

    const again = focusKey(document.activeElement);
    this.recorded.render();
    mainElement().replaceChildren(
      h(
        'section',
        { class: 'home' },
        // A table to return to comes before the form that makes a new one.
        tables.length ? this.renderMyGames(tables) : null,
        this.lobby.render(),
        h('h2', { text: t('newTableHeading') }),
        form,
        h('p', { class: 'how', text: t('howToPlay') }),
        h(
          'nav',
          { class: 'home-links', 'aria-label': t('moreLabel') },
          h('a', { href: '/learn', id: 'learn-link', text: t('learnLink') }),
          h('a', { href: '/analysis', id: 'analysis-link', text: t('analysisLink') }),
          h('a', { href: '/puzzles', id: 'puzzles-link', text: t('puzzlesLink') }),
        ),
        tables.length ? null : this.renderMyGames(tables),
        this.recorded.element,
      ),
    );
    // A redraw (an opponent chosen with the arrow keys, the form sent)
    // leaves the focus where it was.
    if (again) /** @type {HTMLElement | null} */ (mainElement().querySelector(again))?.focus();
  }

  /**
   * One list of this browser's games, newest first: each game to its own
   * page, with its result, and where this browser still holds the seat of
   * its table, the way back to that table (on the table's newest game);
   * then any table held whose games were never listed.
   * @param {string[]} tables the tables this browser holds a seat at
   */
  renderMyGames(tables) {
    const games = myGames();
    const held = new Set(tables);
    /** @param {string} table */
    const resume = (table) => h('a', { class: 'button resume-link', href: `/t/${encodeURIComponent(table)}`, text: t('resumeShort') });
    const items = games.map((g) => {
      const back = held.delete(g.table);
      return h(
        'li',
        {},
        h('a', { class: 'game-link', href: `/t/${encodeURIComponent(g.table)}/games/${g.game}`, text: gameWords(g) }),
        h('span', { class: 'my-game-result', text: ` · ${g.result ? resultText(g.result, { goatsToWin: g.goats_to_win, plyLimit: g.ply_limit, mine: g.side }) : t('inProgress')}` }),
        back ? resume(g.table) : null,
      );
    });
    for (const table of held) items.push(h('li', {}, h('a', { class: 'game-link', href: `/t/${encodeURIComponent(table)}`, text: t('resumeUnknown') })));
    if (!items.length) return h('section', { class: 'my-games', id: 'my-games' }, h('h2', { tabindex: -1, text: t('myGamesHeading') }), h('p', { class: 'hint', text: t('myGamesEmpty') }));
    return h(
      'section',
      { class: 'my-games', id: 'my-games' },
      h('h2', { tabindex: -1, text: t('myGamesHeading') }),
      h('ul', {}, ...items),
      games.length
        ? h('button', {
            type: 'button',
            id: 'clear-games',
            text: t('clearGames'),
            onclick: () => {
              forgetGames();
              this.render();
              document.getElementById('my-games')?.querySelector('h2')?.focus();
            },
          })
        : null,
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
    const clock = TIME_CONTROLS.find((c) => c.value === this.clockChoice)?.clock;
    // Left out without a clock, as the server takes no clock by default.
    if (clock && body.opponent !== 'bots') body.clock = clock;
    // Left out for one game at a time, the server's default.
    if (this.seriesGames && body.opponent !== 'bots') {
      body.format = 'series';
      body.series_games = this.seriesGames;
    }
    if (this.twoBoards && body.opponent !== 'bots') body.format = 'two_boards';
    this.busy = true;
    this.error = null;
    this.render();
    // The session's cookie first, so that the table belongs to the player.
    await playerAsked;
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
        this.navigate(`/t/${encodeURIComponent(created.table)}#seat=${encodeURIComponent(created.secret)}`);
      } else if (created.spectator_link) {
        this.navigate(localPath(created.spectator_link));
      }
    } catch {
      this.error = t('networkError');
      this.busy = false;
      this.render();
    }
  }
}

/**
 * The computer's levels in words, by the lowest level of each range: what
 * the numbers mean to a player (docs/strength.md measures them).
 * @type {[number, import('./i18n.js').StringKey][]}
 */
const LEVEL_RANGES = [
  [400, 'levelBeginner'],
  [900, 'levelClub'],
  [1500, 'levelStrong'],
  [2000, 'levelNearPerfect'],
];

/**
 * A level with the name of its range: "1200 · club".
 * @param {number} level
 */
export function levelText(level) {
  let key = LEVEL_RANGES[0][1];
  for (const [from, k] of LEVEL_RANGES) if (level >= from) key = k;
  return `${num(level)} · ${t(key)}`;
}

/** The format select's value for a two-board match. */
const TWO_BOARDS = 'two_boards';

/** The games a series may have. */
const SERIES_GAMES = [2, 4, 6];

/** The spectator seats a bots table keeps by default: its creator and three more. */
const BOTS_SPECTATORS = 4;

/**
 * A whole number typed in the page's digits (Devanagari in Nepali), which
 * `type="number"` cannot show; read back by `parseNum`.
 */
const NUMBER_FIELD = { type: 'text', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', class: 'number' };

/**
 * A selector that finds the same control after a redraw.
 * @param {Element | null} el
 * @returns {string | null}
 */
function focusKey(el) {
  if (!(el instanceof HTMLElement) || el === document.body) return null;
  if (el instanceof HTMLInputElement && el.type === 'radio') return `input[name="${el.name}"][value="${el.value}"]`;
  return el.id ? `#${CSS.escape(el.id)}` : null;
}

/**
 * A game as a person recognises it: the date, the opponent, the side.
 * @param {import('./storage.js').MyGame} g
 */
function gameWords(g) {
  // In the page's digits also where the browser has no Nepali calendar words.
  const date = num(new Date(g.date).toLocaleDateString(lang() === 'ne' ? 'ne-NP' : 'en-GB', { day: 'numeric', month: 'short', year: 'numeric' }));
  const opponent = g.opponent === 'friend' ? t('vsFriend') : g.opponent === 'computer' ? t('vsComputer', { level: g.level ?? 0 }) : t('vsBots', { level: g.level ?? 0 });
  const you = g.side ? t('youPlayed', { side: sideName(g.side) }) : t('youWatched');
  return `${date} · ${opponent} · ${you} · ${t('game', { n: g.game })}`;
}
