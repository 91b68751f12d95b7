// The analysis board, `/analysis`: any position of any line, from the start,
// from position text or from a pasted game (in the notation the server tells
// from its text, unless one is chosen), played for either side from
// the server's legal list (`POST /api/analysis`; the page knows no rules),
// with the value of every legal action, naming its kind: solved (the
// tablebase, for the board) or proved under the house rules in the
// movement phase, a search's proof or estimate elsewhere.

import { Board } from './board.js';
import { t, num } from './i18n.js';
import { h, mainElement, sideName, announce } from './dom.js';
import { MoveList } from './movelist.js';
import { evaluationText, kindText, valueText, resultText, describeAction } from './words.js';

/** @typedef {import('./wire.js').AnalysisBoard} AnalysisBoard */
/** @typedef {import('./wire.js').AnalysisRequest} AnalysisRequest */
/** @typedef {import('./wire.js').NotationFormat} NotationFormat */
/** @typedef {import('./wire.js').Variant} Variant */
/** @typedef {import('./i18n.js').StringKey} StringKey */

/** The formats a pasted game may be in, with their names. */
const FORMATS = /** @type {[NotationFormat, StringKey][]} */ ([
  ['record', 'notationRecord'],
  ['pypi', 'notationPypi'],
  ['obx', 'notationObx'],
]);

/** The paste box's choices: the server tells the notation from the text, or the one named. */
const PASTE_CHOICES = /** @type {[NotationFormat | 'detect', StringKey][]} */ ([['detect', 'notationDetect'], ...FORMATS]);

/**
 * The name of a notation, in the page's language.
 * @param {NotationFormat} format
 */
function formatName(format) {
  const found = FORMATS.find(([f]) => f === format);
  return found ? t(found[1]) : format;
}

/**
 * What the paste box says about a refused game: the server's message
 * starts with the notation it read the text in (`obx: line 3, ply 2: …`).
 * @param {string} message
 */
function pasteRefusal(message) {
  const m = /^(record|pypi|obx): ([\s\S]*)$/.exec(message);
  return m ? t('pasteRefused', { format: formatName(/** @type {NotationFormat} */ (m[1])), message: m[2] }) : t('pasteUnread', { message });
}

export class AnalysisView {
  /** @param {(path: string) => void} navigate opens another view of the page */
  constructor(navigate) {
    this.navigate = navigate;
    /** @type {Variant | undefined} the rules of the line */
    this.variant = undefined;
    /** @type {string | undefined} where the line starts */
    this.start = undefined;
    /** @type {string[]} the whole line, also past the ply shown */
    this.line = [];
    /** The number of actions of the line shown. */
    this.at = 0;
    /** @type {AnalysisBoard | null} the server's answer for the ply shown */
    this.board = null;
    /** @type {{side: import('./wire.js').Side, action: string} | null} the action just played, to announce */
    this.justPlayed = null;
    /** @type {string | null} */
    this.error = null;
    /** @type {{read: NotationFormat} | {refused: string} | null} what the paste box says about the last pasted game */
    this.pasteNote = null;
    this.busy = false;
    /** Requests sent, so that only the answer to the latest is shown. */
    this.sent = 0;
    this.destroyed = false;
    this.boardRoot = h('div', { class: 'board-root' });
    /** @type {Board | null} */
    this.boardView = null;
    this.moveList = new MoveList({
      live: false,
      onSelect: (cursor) => {
        this.at = cursor ?? this.line.length;
        this.ask({ variant: this.variant, start: this.start, actions: this.line.slice(0, this.at) }, false);
      },
    });
    this.moveList.swipeOn(this.boardRoot);
    /** @type {{status: HTMLElement, values: HTMLElement, counters: HTMLElement, headline: HTMLElement, current: HTMLInputElement, paste: HTMLElement} | null} */
    this.el = null;
    /** What the set-up form holds, kept across a language switch. */
    this.form = { position: '', pasted: '', format: /** @type {NotationFormat | 'detect'} */ ('detect') };
    const q = new URLSearchParams(location.search);
    const table = q.get('table');
    const game = q.get('game');
    const position = q.get('position');
    if (table && game) this.openGame(table, game);
    else if (position) {
      this.form.position = position;
      this.ask({ start: position }, true);
    } else this.ask({}, true);
  }

  destroy() {
    this.destroyed = true;
    this.boardView?.destroy();
    this.moveList.destroy();
  }

  /**
   * Opens a game of a table, from its record.
   * @param {string} table
   * @param {string} game
   */
  async openGame(table, game) {
    try {
      const res = await fetch(`/api/tables/${encodeURIComponent(table)}/games/${encodeURIComponent(game)}`);
      if (!res.ok) throw new Error(String(res.status));
      const record = /** @type {import('./wire.js').GameRecord} */ (await res.json());
      this.form.pasted = record.record;
      this.form.format = 'record';
      this.ask({ game: { format: 'record', text: record.record } }, true);
    } catch {
      this.error = t('noGameText');
      this.render();
    }
  }

  /**
   * Asks the server for a board and shows it.
   * @param {AnalysisRequest} request
   * @param {boolean} newLine the answer's line replaces the line kept
   */
  async ask(request, newLine) {
    const seq = ++this.sent;
    const pasted = Boolean(request.game);
    this.busy = true;
    this.update();
    /** @type {string | null} */
    let error = null;
    /** @type {AnalysisBoard | null} */
    let board = null;
    try {
      const res = await fetch('/api/analysis', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
      const json = await res.json().catch(() => null);
      if (res.status === 404 || res.status === 405) error = t('analysisUnavailable');
      else if (!res.ok) error = (json && json.message) || res.statusText;
      else board = /** @type {AnalysisBoard} */ (json);
    } catch {
      error = t('networkError');
    }
    if (this.destroyed || seq !== this.sent) return;
    this.busy = false;
    // A pasted game's answer is told next to the paste box; a line set up
    // otherwise (the start, position text) clears it, and moving along the
    // pasted line keeps it.
    if (pasted && board?.game_format) this.pasteNote = { read: board.game_format };
    else if (pasted && error) this.pasteNote = { refused: error };
    else if (newLine && board) this.pasteNote = null;
    this.error = pasted && error ? null : error;
    if (board) {
      this.board = board;
      this.variant = board.variant;
      this.start = board.start;
      if (newLine) this.line = board.actions;
      this.at = board.actions.length;
    }
    if (!this.el) this.render();
    else this.update();
    // Say what was played and what the position now is.
    const played = this.justPlayed;
    this.justPlayed = null;
    if (played && board && this.el) announce(`${describeAction(played.side, played.action)}. ${this.el.headline.textContent}`);
  }

  /**
   * Plays an action from the ply shown: the line from there on is replaced.
   * @param {string} action
   */
  play(action) {
    this.justPlayed = this.board ? { side: this.board.side_to_move, action } : null;
    const actions = [...this.line.slice(0, this.at), action];
    this.line = actions;
    this.at = actions.length;
    this.ask({ variant: this.variant, start: this.start, actions }, false);
  }

  render() {
    if (!this.boardView) this.boardView = new Board(this.boardRoot, (action) => this.play(action));
    this.boardView.relabel();
    this.moveList.relabel();
    document.title = `${t('analysisTitle')} · ${t('title')}`;
    const status = h('p', { class: 'analysis-status', role: 'status' });
    const values = h('div', { class: 'values' });
    const counters = h('dl', { class: 'counters' });
    const headline = h('p', { class: 'headline', id: 'headline' });
    const current = h('input', { id: 'current-position', type: 'text', readonly: true, class: 'mono', onfocus: (e) => /** @type {HTMLInputElement} */ (e.target).select() });
    const paste = h('p', { id: 'paste-status', class: 'hint', role: 'status' });
    this.el = { status, values, counters, headline, current, paste };
    const f = this.form;
    const setup = h(
      'section',
      { class: 'card setup', 'aria-labelledby': 'setup-heading' },
      h('h2', { id: 'setup-heading', text: t('setupHeading') }),
      h('p', {}, h('button', { type: 'button', id: 'analysis-start', text: t('fromStart'), onclick: () => this.ask({}, true) })),
      h(
        'form',
        {
          class: 'setup-position',
          onsubmit: (e) => {
            e.preventDefault();
            const text = f.position.trim();
            if (text) this.ask({ start: text }, true);
          },
        },
        h('label', { for: 'position-text', text: t('positionTextLabel') }),
        h(
          'div',
          { class: 'link-field' },
          h('input', {
            id: 'position-text',
            type: 'text',
            class: 'mono',
            spellcheck: 'false',
            autocomplete: 'off',
            placeholder: 'T...T/...../...../...../T...T g 20 0 0',
            'aria-describedby': 'position-hint',
            value: f.position,
            oninput: (e) => (f.position = /** @type {HTMLInputElement} */ (e.target).value),
          }),
          h('button', { type: 'submit', id: 'load-position', text: t('setUp') }),
        ),
        h('p', { class: 'hint', id: 'position-hint', text: t('positionTextHint') }),
      ),
      h(
        'form',
        {
          class: 'setup-game',
          onsubmit: (e) => {
            e.preventDefault();
            if (f.pasted.trim()) this.ask({ game: f.format === 'detect' ? { text: f.pasted } : { format: f.format, text: f.pasted } }, true);
          },
        },
        h('label', { for: 'pasted-game', text: t('pastedGameLabel') }),
        h('textarea', { id: 'pasted-game', rows: 4, class: 'mono', spellcheck: 'false', 'aria-describedby': 'paste-status', oninput: (e) => (f.pasted = /** @type {HTMLTextAreaElement} */ (e.target).value) }, f.pasted),
        h(
          'div',
          { class: 'link-field' },
          h('label', { for: 'paste-format', class: 'visually-hidden', text: t('pasteFormatLabel') }),
          h(
            'select',
            { id: 'paste-format', onchange: (e) => (f.format = /** @type {NotationFormat | 'detect'} */ (/** @type {HTMLSelectElement} */ (e.target).value)) },
            ...PASTE_CHOICES.map(([value, label]) => h('option', { value, text: t(label), selected: value === f.format })),
          ),
          h('button', { type: 'submit', id: 'load-game', text: t('loadGame') }),
        ),
        paste,
      ),
    );
    mainElement().replaceChildren(
      h(
        'div',
        { class: 'table analysis-page' },
        h('div', { class: 'board-column', id: 'board' }, h('h2', { class: 'game-title', text: t('analysisTitle') }), headline, this.boardRoot, status),
        h(
          'aside',
          { class: 'panel', 'aria-label': t('analysisPanel') },
          h('section', { class: 'card', 'aria-labelledby': 'values-heading' }, h('h2', { id: 'values-heading', text: t('valuesHeading') }), values),
          h('section', { class: 'card' }, h('h2', { class: 'visually-hidden', text: t('status') }), counters, h('label', { for: 'current-position', class: 'small-label', text: t('currentPosition') }), current),
          this.moveList.root,
          setup,
        ),
      ),
    );
    this.update();
  }

  update() {
    const e = this.el;
    const b = this.board;
    if (!e || !this.boardView) return;
    e.status.textContent = this.busy ? t('analysing') : '';
    e.status.classList.toggle('error', Boolean(this.error));
    if (this.error) e.status.textContent = t('analysisRefused', { message: this.error });
    const note = this.pasteNote;
    e.paste.classList.toggle('error', Boolean(note && 'refused' in note));
    e.paste.textContent = !note ? '' : 'read' in note ? t('pasteRead', { format: formatName(note.read) }) : pasteRefusal(note.refused);
    if (!b) return;
    const legal = b.legal.map((v) => v.action);
    this.boardView.update({ position: b.position, legal, lastAction: b.actions[b.actions.length - 1] ?? null, mode: this.busy || b.result ? 'wait' : 'play', hints: false }, false);
    this.boardView.setArrows(b.best ? [{ action: b.best, kind: 'best' }] : []);
    this.moveList.update(this.line, this.at >= this.line.length ? null : this.at);
    e.current.value = b.position;
    e.headline.textContent = b.result
      ? resultText(b.result, { goatsToWin: b.goats_to_win, plyLimit: b.ply_limit })
      : `${t('turnOf', { side: sideName(b.side_to_move) })} · ${b.phase === 'placement' ? t('phasePlacement') : t('phaseMovement')}`;
    /** @type {[string, string, string][]} */
    const rows = [
      ['in-hand', t('inHand'), num(b.in_hand)],
      ['eaten', t('eaten'), `${num(b.eaten)}/${num(b.goats_to_win)}`],
      ['ply', t('ply'), `${num(b.ply)}/${num(b.ply_limit)}`],
    ];
    e.counters.replaceChildren(...rows.map(([id, label, value]) => h('div', { class: `counter ${id}` }, h('dt', { text: label }), h('dd', { id: `counter-${id}`, text: value }))));
    if (!b.legal.length) {
      e.values.replaceChildren(h('p', { class: 'hint', text: b.result ? t('noActionsOver') : t('noActions') }));
      return;
    }
    e.values.replaceChildren(
      h('p', { class: 'hint', text: t('valuesHint', { side: sideName(b.side_to_move) }) }),
      h(
        'ol',
        { class: 'value-list' },
        ...b.legal.map((v) =>
          h(
            'li',
            { 'data-action': v.action, 'data-kind': v.evaluation.kind, class: v.action === b.best ? 'best' : '' },
            h('button', {
              type: 'button',
              class: 'play-value mono',
              'aria-label': t('playValue', { action: v.action, value: valueText(v.evaluation, b.side_to_move) }),
              disabled: this.busy,
              text: v.action,
              onclick: () => this.play(v.action),
            }),
            h('span', { class: `value ${v.evaluation.kind === 'estimate' ? 'estimate' : v.evaluation.result}`, text: evaluationText(v.evaluation, b.side_to_move) }),
            h('span', { class: `kind ${v.evaluation.kind}`, text: kindText(v.evaluation) }),
          ),
        ),
      ),
    );
  }
}
