// The page: it routes itself and switches the language. `/` is home,
// `/t/{id}` a table, with the capability in the fragment (`#seat=`,
// `#invite=`, `#watch=`), `/t/{id}/games/{n}` one game and its review,
// `/analysis` the analysis board, `/learn` the rules. Each view lives in its own module and fills
// `<main>`; the board component (board.js) is the one place that draws a
// board.

import { t, setLang, lang } from './i18n.js';
import { savedLang, saveLang } from './storage.js';
import { HomeView } from './home.js';
import { TableView } from './table.js';
import { GameView } from './game.js';
import { LearnView } from './learn.js';
import { AnalysisView } from './analysis.js';

/** @typedef {import('./i18n.js').Lang} Lang */

/**
 * What every view offers the router.
 * @typedef {{destroy(): void, render(): void}} View
 */

const langButton = /** @type {HTMLButtonElement} */ (document.getElementById('lang'));

/** @type {View | null} */
let view = null;

/** The view for the current address. */
function route() {
  view?.destroy();
  view = null;
  const path = location.pathname;
  const table = path.match(/^\/t\/([^/]+)\/?$/);
  const game = path.match(/^\/t\/([^/]+)\/games\/([0-9]{1,9})\/?$/);
  if (table) view = new TableView(decodeURIComponent(table[1]), navigate);
  else if (game) view = new GameView(decodeURIComponent(game[1]), Number(game[2]), navigate);
  else if (path === '/learn') view = new LearnView(navigate);
  else if (path === '/analysis') view = new AnalysisView(navigate);
  else view = new HomeView(navigate);
  view.render();
}

/** @param {string} path */
function navigate(path) {
  history.pushState(null, '', path);
  route();
}

window.addEventListener('popstate', route);
// Only a table's address carries something in its fragment (the capability).
window.addEventListener('hashchange', () => {
  if (/^\/t\/[^/]+\/?$/.test(location.pathname)) route();
});

/** @param {Lang} l */
function applyLang(l) {
  setLang(l);
  document.documentElement.lang = l;
  document.title = t('title');
  langButton.textContent = t('switchLanguage');
  langButton.setAttribute('aria-label', t('switchLanguageLabel'));
  langButton.lang = l === 'en' ? 'ne' : 'en';
  const title = document.getElementById('site-title');
  if (title) title.textContent = t('title');
  const tagline = document.getElementById('tagline');
  if (tagline) tagline.textContent = t('tagline');
  const skip = document.getElementById('skip');
  if (skip) skip.textContent = t('skipToBoard');
}

langButton.addEventListener('click', () => {
  const next = lang() === 'en' ? 'ne' : 'en';
  saveLang(next);
  applyLang(next);
  view?.render();
});

/** @returns {Lang} */
function initialLang() {
  return savedLang() ?? (navigator.language.startsWith('ne') ? 'ne' : 'en');
}

applyLang(initialLang());
route();
