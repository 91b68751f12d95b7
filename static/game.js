// The game page, `/t/{table}/games/{n}`: one game, finished or in
// progress, from its public record (`GET /api/tables/{table}/games/{n}`),
// with the board, the navigable move list and the counters; for a
// finished game the permalink to share, the game in the three notations,
// and the review against the solved movement phase. The page carries no
// token: whoever has the table id may see its games.

import { Board } from './board.js';
import { t, num } from './i18n.js';
import { h, mainElement, copyText, shareSheet, sideName } from './dom.js';
import { MoveList } from './movelist.js';
import { positions, startPosition } from './replay.js';
import { marks, movementFrom, summary } from './review.js';
import { evaluationGraph, graphTable, summaryTable, turningSentence, plyComment } from './reviewview.js';
import { resultText, rulesText, goatsToWin } from './words.js';
import { loadSeat } from './storage.js';

/** @typedef {import('./wire.js').GameRecord} GameRecord */
/** @typedef {import('./wire.js').GameAnalysis} GameAnalysis */
/** @typedef {import('./i18n.js').StringKey} StringKey */

/**
 * The notations a game is offered in, as the notation endpoint names them.
 * @type {[format: string, label: StringKey, extension: string][]}
 */
export const NOTATIONS = [
  ['record', 'notationRecord', 'txt'],
  ['pypi', 'notationPypi', 'pgn'],
  ['obx', 'notationObx', 'obx'],
];

export class GameView {
  /**
   * @param {string} table
   * @param {number} game
   * @param {(path: string) => void} navigate opens another view of the page
   */
  constructor(table, game, navigate) {
    this.table = table;
    this.game = game;
    this.navigate = navigate;
    /** Board 2 of a two-board table is addressed with `?board=2`; else board 1. */
    this.query = new URLSearchParams(location.search).get('board') === '2' ? '?board=2' : '';
    /** @type {GameRecord | null} */
    this.record = null;
    /** @type {'loading' | 'ready' | 'missing' | 'failed'} */
    this.status = 'loading';
    /** @type {GameAnalysis | null} */
    this.analysis = null;
    /** @type {'idle' | 'loading' | 'ready' | 'failed'} */
    this.reviewStatus = 'idle';
    /** @type {number | null} */
    this.cursor = null;
    /** @type {string[]} */
    this.positions = [];
    this.destroyed = false;
    this.boardRoot = h('div', { class: 'board-root' });
    /** @type {Board | null} */
    this.board = null;
    this.moveList = new MoveList({
      live: false,
      onSelect: (cursor) => {
        this.cursor = cursor;
        this.update();
      },
    });
    this.moveList.swipeOn(this.boardRoot);
    /** @type {ReturnType<typeof evaluationGraph> | null} */
    this.graph = null;
    /** @type {{counters: HTMLElement, headline: HTMLElement, comment: HTMLElement, review: HTMLElement} | null} */
    this.el = null;
    this.load();
  }

  destroy() {
    this.destroyed = true;
    this.board?.destroy();
    this.moveList.destroy();
  }

  /** The game's public address. */
  permalink() {
    return `${location.origin}/t/${encodeURIComponent(this.table)}/games/${this.game}${this.query}`;
  }

  /**
   * The API address of this game, or of a part of it.
   * @param {string} [part] `/analysis`, `/notation/{format}`
   */
  api(part = '') {
    return `/api/tables/${encodeURIComponent(this.table)}/games/${this.game}${part}${this.query}`;
  }

  async load() {
    try {
      const res = await fetch(this.api());
      if (this.destroyed) return;
      if (res.status === 404) {
        this.status = 'missing';
      } else if (!res.ok) {
        this.status = 'failed';
      } else {
        this.record = /** @type {GameRecord} */ (await res.json());
        this.positions = positions(startPosition(this.record.variant), this.record.moves);
        this.status = 'ready';
      }
    } catch {
      this.status = 'failed';
    }
    if (this.destroyed) return;
    this.render();
    if (this.record?.result) this.review();
  }

  /** Asks the server for the review, showing the progress meanwhile. */
  async review() {
    if (this.reviewStatus === 'loading' || this.reviewStatus === 'ready') return;
    this.reviewStatus = 'loading';
    this.drawReview();
    try {
      const res = await fetch(this.api('/analysis'));
      if (this.destroyed) return;
      if (!res.ok) throw new Error(String(res.status));
      this.analysis = /** @type {GameAnalysis} */ (await res.json());
      this.reviewStatus = 'ready';
    } catch {
      if (this.destroyed) return;
      this.reviewStatus = 'failed';
    }
    this.drawReview();
    this.update();
  }

  render() {
    const main = mainElement();
    if (this.status === 'loading') {
      main.replaceChildren(h('p', { class: 'connecting', role: 'status', text: t('loadingGame') }));
      return;
    }
    const r = this.record;
    if (!r) {
      main.replaceChildren(
        h(
          'section',
          { class: 'notice' },
          h('h2', { text: this.status === 'missing' ? t('noGameHeading') : t('errorHeading') }),
          h('p', { text: this.status === 'missing' ? t('noGameText') : t('networkError') }),
          h('p', { class: 'notice-actions' }, h('a', { class: 'button primary', href: '/', text: t('goHome') })),
        ),
      );
      return;
    }
    if (!this.board) this.board = new Board(this.boardRoot, () => {});
    this.board.relabel();
    this.moveList.relabel();
    const headline = h('p', { class: 'headline', id: 'headline' });
    const counters = h('dl', { class: 'counters' });
    const comment = h('p', { class: 'review-comment', id: 'review-comment' });
    const review = h('section', { class: 'card review', id: 'review', 'aria-labelledby': 'review-heading' });
    this.el = { headline, counters, comment, review };
    const stored = loadSeat(this.table);
    main.replaceChildren(
      h(
        'div',
        { class: 'table game-page' },
        h('div', { class: 'board-column', id: 'board' }, h('h2', { class: 'game-title', text: t('gameTitle', { n: r.game }) }), headline, this.boardRoot, comment),
        h(
          'aside',
          { class: 'panel', 'aria-label': t('status') },
          h('section', { class: 'card' }, h('h2', { class: 'visually-hidden', text: t('status') }), counters, h('p', { class: 'rules', text: rulesText(r.variant) }), stored ? h('p', {}, h('a', { href: `/t/${encodeURIComponent(this.table)}`, text: t('backToTable') })) : null),
          r.result ? review : h('section', { class: 'card' }, h('p', { text: t('gameInProgress') }), h('button', { type: 'button', id: 'refresh-game', text: t('refreshGame'), onclick: () => this.refresh() })),
          this.moveList.root,
          r.result ? this.renderShare() : null,
          r.result ? this.renderNotation() : null,
        ),
      ),
    );
    this.drawReview();
    this.update();
  }

  async refresh() {
    this.status = 'loading';
    this.record = null;
    await this.load();
  }

  /** "Share this game": the permalink, with no token in it. */
  renderShare() {
    const link = this.permalink();
    const input = h('input', { id: 'permalink', type: 'text', readonly: true, value: link, onfocus: (e) => /** @type {HTMLInputElement} */ (e.target).select() });
    const status = h('span', { class: 'copy-status', role: 'status' });
    return h(
      'section',
      { class: 'card share links' },
      h('h2', { text: t('shareHeading') }),
      h(
        'div',
        { class: 'link-row' },
        h('label', { for: 'permalink', text: t('permalinkLabel') }),
        h(
          'div',
          { class: 'link-field' },
          input,
          h('button', {
            type: 'button',
            id: 'share-game',
            text: t('shareGame'),
            onclick: async () => {
              status.textContent = (await copyText(link, input)) ? t('copied') : t('copyFailed');
            },
          }),
          h('button', {
            type: 'button',
            id: 'share-game-link',
            text: t('share'),
            'aria-label': t('shareGameLink'),
            onclick: async () => {
              if (await shareSheet(link)) return;
              status.textContent = (await copyText(link, input)) ? t('copied') : t('copyFailed');
            },
          }),
        ),
        status,
      ),
      h('p', { class: 'hint', text: t('permalinkHint') }),
    );
  }

  /** The game in each notation: download, copy, or open on the analysis board. */
  renderNotation() {
    const status = h('p', { class: 'copy-status', role: 'status', id: 'notation-status' });
    return h(
      'section',
      { class: 'card notation' },
      h('h2', { text: t('notationHeading') }),
      h(
        'ul',
        { class: 'notation-list' },
        ...NOTATIONS.map(([format, label, ext]) => {
          const href = this.api(`/notation/${format}`);
          return h(
            'li',
            { 'data-format': format },
            h('span', { class: 'notation-name', text: t(label) }),
            h('a', { class: 'button', href, download: `baghchal-${this.table}-${this.game}.${ext}`, 'aria-label': t('downloadNotation', { format: t(label) }), text: t('download') }),
            h('button', {
              type: 'button',
              class: 'copy-notation',
              'data-format': format,
              'aria-label': t('copyNotation', { format: t(label) }),
              text: t('copy'),
              onclick: async () => {
                // A second copy is announced afresh, and never read as the first one's outcome.
                status.textContent = '';
                try {
                  const res = await fetch(href);
                  if (!res.ok) {
                    // 422: the game cannot be written in that notation (the server says why).
                    const body = await res.json().catch(() => null);
                    status.textContent = body && body.message ? t('notationRefused', { message: body.message }) : t('notationUnavailable');
                    return;
                  }
                  const text = await res.text();
                  status.textContent = (await copyText(text, null)) ? t('notationCopied', { format: t(label) }) : t('notationCopyFailed');
                } catch {
                  status.textContent = t('notationUnavailable');
                }
              },
            }),
          );
        }),
      ),
      status,
      h('p', {}, h('a', { href: `/analysis?table=${encodeURIComponent(this.table)}&game=${this.game}`, id: 'open-analysis', text: t('openInAnalysis') })),
    );
  }

  /** The review card: progress, then the graph, the summary and the sentence. */
  drawReview() {
    const e = this.el;
    if (!e || !this.record?.result) return;
    const heading = h('h2', { id: 'review-heading', text: t('reviewHeading') });
    if (this.reviewStatus === 'loading' || this.reviewStatus === 'idle') {
      e.review.replaceChildren(
        heading,
        h('div', { class: 'review-progress', role: 'status' }, h('progress', { 'aria-label': t('reviewProgress') }), h('p', { text: t('reviewProgress') })),
      );
      return;
    }
    const a = this.analysis;
    if (this.reviewStatus === 'failed' || !a) {
      e.review.replaceChildren(heading, h('p', { class: 'error', role: 'alert', text: t('reviewFailed') }), h('button', { type: 'button', id: 'review-again', text: t('tryAgain'), onclick: () => this.review() }));
      return;
    }
    const inHand = Number((this.positions[0] ?? '').split(' ')[2] ?? 0);
    this.graph = evaluationGraph(a, (cursor) => this.moveList.go(cursor), movementFrom(this.record.moves, inHand));
    e.review.replaceChildren(
      heading,
      h('p', { class: 'turning', id: 'turning', text: turningSentence(a) }),
      this.graph.root,
      graphTable(a),
      summaryTable(a),
      h('p', { class: 'hint', text: t('marksExplained') }),
      this.mistakeLinks(a),
    );
  }

  /**
   * Links to each side's marked moves as exercises, where it has some.
   * @param {GameAnalysis} a
   */
  mistakeLinks(a) {
    const sum = summary(a.actions);
    /** @type {import('./wire.js').Side[]} */
    const sides = ['goats', 'tigers'];
    const links = sides
      .map((side) => ({ side, n: sum[side].inaccuracy + sum[side].mistake + sum[side].blunder }))
      .filter(({ n }) => n > 0)
      .map(({ side, n }) => {
        const q = new URLSearchParams({ table: this.table, game: String(this.game), side });
        if (this.query) q.set('board', '2');
        return h('a', { href: `/mistakes?${q}`, class: 'mistakes-link', 'data-side': side, text: t('mistakesLink', { side: sideName(side), n: num(n) }) });
      });
    return links.length ? h('p', { class: 'mistakes-links' }, ...links) : '';
  }

  update() {
    const e = this.el;
    const r = this.record;
    if (!e || !r || !this.board) return;
    const n = r.moves.length;
    if (this.cursor !== null && this.cursor >= n) this.cursor = null;
    const shown = this.cursor ?? n;
    const position = this.positions[shown] || this.positions[this.positions.length - 1] || startPosition(r.variant);
    this.board.update({ position, legal: [], lastAction: r.moves[shown - 1] ?? null, mode: 'watch', hints: false }, false);
    const a = this.analysis;
    const best = a?.actions[shown]?.best;
    this.board.setArrows(best ? [{ action: best, kind: 'best' }] : []);
    this.moveList.update(r.moves, this.cursor, a ? marks(a.actions) : undefined);
    this.graph?.setCursor(shown);
    e.comment.textContent = a ? plyComment(a.actions, shown) : '';

    const [, side, inHand, eaten] = position.split(' ');
    const target = goatsToWin(r.variant);
    if (r.result) e.headline.textContent = resultText(r.result, { goatsToWin: target, plyLimit: r.variant.ply_limit ?? 400 });
    else e.headline.textContent = t('turnOf', { side: sideName(side === 't' ? 'tigers' : 'goats') });
    e.headline.classList.toggle('finished', Boolean(r.result));
    const phase = Number(inHand) > 0 ? t('phasePlacement') : t('phaseMovement');
    /** @type {[string, string, string][]} */
    const rows = [
      ['phase', t('phase'), phase],
      ['in-hand', t('inHand'), num(Number(inHand))],
      ['eaten', t('eaten'), `${num(Number(eaten))}/${num(target)}`],
      ['ply', t('ply'), `${num(shown)}/${num(n)}`],
    ];
    e.counters.replaceChildren(...rows.map(([id, label, value]) => h('div', { class: `counter ${id}` }, h('dt', { text: label }), h('dd', { id: `counter-${id}`, text: value }))));
  }
}
