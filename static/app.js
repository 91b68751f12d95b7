// The page: it routes itself and switches the language. `/` is home, and
// `/t/{id}` a table, with the capability in the fragment (`#seat=`,
// `#invite=`, `#watch=`). Each view lives in its own module and fills
// `<main>`; the board component (board.js) is the one place that draws a
// board.

import { t, setLang, lang } from './i18n.js';
import { savedLang, saveLang } from './storage.js';
import { HomeView } from './home.js';
import { TableView } from './table.js';

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
  if (table) view = new TableView(decodeURIComponent(table[1]), navigate);
  else view = new HomeView(navigate);
  view.render();
}

/** @param {string} path */
function navigate(path) {
  history.pushState(null, '', path);
  route();
}

window.addEventListener('popstate', route);
window.addEventListener('hashchange', route);

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
