// The learn page, `/learn`: the game's essentials and this site's house
// rules, in the page's language, with small diagrams drawn by the board
// component itself (board.js, in its picture mode).

import { Board } from './board.js';
import { t } from './i18n.js';
import { h, mainElement } from './dom.js';

/** @typedef {import('./i18n.js').StringKey} StringKey */
/** @typedef {import('./board.js').Arrow} Arrow */

/**
 * A diagram: a position, the action to highlight and the arrows to draw.
 * @typedef {object} Diagram
 * @property {string} position
 * @property {string | null} [last]
 * @property {Arrow[]} [arrows]
 * @property {StringKey} caption
 */

/**
 * The sections, in order: heading, paragraphs, diagram.
 * @type {{id: string, heading: StringKey, text: StringKey[], diagram?: Diagram, list?: boolean}[]}
 */
const SECTIONS = [
  {
    id: 'board',
    heading: 'learnBoardHeading',
    text: ['learnBoardText'],
    diagram: { position: 'T...T/...../...../...../T...T g 20 0 0', caption: 'learnBoardCaption' },
  },
  {
    id: 'placement',
    heading: 'learnPlacementHeading',
    text: ['learnPlacementText'],
    diagram: { position: 'T...T/...../..G../.G.../T...T t 18 0 2', last: 'b2', caption: 'learnPlacementCaption' },
  },
  {
    id: 'jumps',
    heading: 'learnStepsHeading',
    text: ['learnStepsText'],
    diagram: { position: 'T...T/...../...../.G.../T...T t 19 0 1', arrows: [{ action: 'a1xc3', kind: 'hint' }], caption: 'learnStepsCaption' },
  },
  {
    id: 'movement',
    heading: 'learnMovementHeading',
    text: ['learnMovementText'],
    diagram: { position: 'TGGGT/GG.GG/GGGGG/GG.GG/T.G.T g 0 3 60', arrows: [{ action: 'c3-c4', kind: 'hint' }], caption: 'learnMovementCaption' },
  },
  {
    id: 'winning',
    heading: 'learnWinHeading',
    text: ['learnWinText'],
    diagram: { position: 'TGGGT/GG.GG/G.G.G/GG.GG/TGGGT t 0 3 80', caption: 'learnWinCaption' },
  },
  {
    id: 'house',
    heading: 'learnHouseHeading',
    text: ['learnHouse1', 'learnHouse2', 'learnHouse3', 'learnHouse4', 'learnHouse5'],
    list: true,
  },
  { id: 'variants', heading: 'learnVariantsHeading', text: ['learnVariantsText'] },
  { id: 'start', heading: 'learnStartHeading', text: ['learnStartText'] },
];

export class LearnView {
  /** @param {(path: string) => void} navigate opens another view of the page */
  constructor(navigate) {
    this.navigate = navigate;
    /** @type {Board[]} */
    this.boards = [];
  }

  destroy() {
    for (const b of this.boards) b.destroy();
  }

  render() {
    this.destroy();
    this.boards = [];
    document.title = `${t('learnTitle')} · ${t('title')}`;
    const sections = SECTIONS.map((sec) => {
      const body = sec.list ? [h('ul', {}, ...sec.text.map((k) => h('li', { text: t(k) })))] : sec.text.map((k) => h('p', { text: t(k) }));
      let figure = null;
      if (sec.diagram) {
        const d = sec.diagram;
        const root = h('div', { class: 'board-root' });
        const board = new Board(root, () => {}, { interactive: false, label: t(d.caption) });
        board.update({ position: d.position, legal: [], lastAction: d.last ?? null, mode: 'watch', hints: false }, false);
        board.setArrows(d.arrows ?? []);
        this.boards.push(board);
        figure = h('figure', { class: 'diagram-figure' }, root, h('figcaption', { 'aria-hidden': 'true', text: t(d.caption) }));
      }
      return h('section', { class: 'learn-section', id: `learn-${sec.id}`, 'aria-labelledby': `learn-${sec.id}-h` }, h('h2', { id: `learn-${sec.id}-h`, text: t(sec.heading) }), h('div', { class: 'learn-body' }, h('div', {}, ...body), figure));
    });
    mainElement().replaceChildren(
      h(
        'article',
        { class: 'learn' },
        h('h2', { class: 'learn-title', text: t('learnTitle') }),
        h('p', { class: 'learn-intro', text: t('learnIntro') }),
        h(
          'nav',
          { 'aria-label': t('learnContents') },
          h('ul', { class: 'learn-contents' }, ...SECTIONS.map((sec) => h('li', {}, h('a', { href: `#learn-${sec.id}`, text: t(sec.heading) })))),
        ),
        ...sections,
        h(
          'p',
          {},
          h('a', {
            class: 'button primary',
            href: '/',
            text: t('learnStartLink'),
            onclick: (e) => {
              e.preventDefault();
              this.navigate('/');
            },
          }),
        ),
      ),
    );
  }
}
