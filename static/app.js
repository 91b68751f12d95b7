// The page: it routes itself and switches the language. `/` is home,
// `/t/{id}` a table, with the capability in the fragment (`#seat=`,
// `#invite=`, `#watch=`), `/t/{id}/games/{n}` one game and its review,
// `/analysis` the analysis board, `/puzzles` the puzzles, `/mistakes` a
// reviewed game's marked moves as exercises, `/learn` the rules, `/tv` the
// best lobby game in play, `/@/{name}` and `/player/{id}` a player's
// profile, `/leaderboard/{speed}` the best players. The header's account
// area (account.js) is on every view. Each view lives in its own module and
// fills `<main>`; the board component (board.js) is the one place that
// draws a board. The home view comes with the page and is drawn at once;
// every other view's module is loaded when the view is first opened
// (`import()`), so the home page downloads only what it draws.

import { t, setLang, lang } from './i18n.js';
import { savedLang, saveLang } from './storage.js';
import { HomeView } from './home.js';
import { AccountArea, loadPlayer } from './account.js';

/** @typedef {import('./i18n.js').Lang} Lang */

/**
 * What every view offers the router; `takeFocus`, where a view has it,
 * places the focus on its first sensible control once it is drawn.
 * @typedef {{destroy(): void, render(): void, takeFocus?(): void}} View
 */

const langButton = /** @type {HTMLButtonElement} */ (document.getElementById('lang'));

/** @type {View | null} */
let view = null;

/** Counts the routings, so that a view whose module arrives after the next routing is dropped. */
let routing = 0;

/**
 * What makes the view of an address: at once for the home page, else once
 * the view's module is loaded.
 * @param {string} path
 * @returns {(() => View) | Promise<() => View>}
 */
function viewFor(path) {
  const home = !/^\/(t\/|learn$|analysis$|tv$|puzzles$|mistakes$|@\/|player\/|leaderboard)/.test(path);
  return home ? () => new HomeView(navigate) : loadView(path);
}

/**
 * What makes the view of an address other than home, once its module is loaded.
 * @param {string} path
 * @returns {Promise<() => View>}
 */
async function loadView(path) {
  const table = path.match(/^\/t\/([^/]+)\/?$/);
  const game = path.match(/^\/t\/([^/]+)\/games\/([0-9]{1,9})\/?$/);
  if (table) {
    const { TableView } = await import('./table.js');
    return () => new TableView(decodeURIComponent(table[1]), navigate);
  }
  if (game) {
    const { GameView } = await import('./game.js');
    return () => new GameView(decodeURIComponent(game[1]), Number(game[2]), navigate);
  }
  // Profiles and the leaderboard.
  const named = path.match(/^\/@\/([^/]+)\/?$/);
  const player = path.match(/^\/player\/([^/]+)\/?$/);
  if (named || player) {
    const { ProfileView } = await import('./profile.js');
    const who = named ? { name: decodeURIComponent(named[1]) } : { id: decodeURIComponent(/** @type {RegExpMatchArray} */ (player)[1]) };
    return () => new ProfileView(who, navigate);
  }
  const board = path.match(/^\/leaderboard(?:\/([a-z]+))?\/?$/);
  if (board) {
    const { LeaderboardView } = await import('./leaderboard.js');
    return () => new LeaderboardView(board[1] ?? 'blitz', navigate);
  }
  if (path === '/learn') {
    const { LearnView } = await import('./learn.js');
    return () => new LearnView(navigate);
  }
  if (path === '/tv') {
    const { TvView } = await import('./tv.js');
    return () => new TvView(navigate);
  }
  if (path === '/analysis') {
    const { AnalysisView } = await import('./analysis.js');
    return () => new AnalysisView(navigate);
  }
  if (path === '/mistakes') {
    const { MistakesView } = await import('./mistakes.js');
    return () => new MistakesView(navigate);
  }
  if (path === '/puzzles') {
    const { PuzzlesView } = await import('./puzzles.js');
    return () => new PuzzlesView(navigate);
  }
  return () => new HomeView(navigate);
}

/**
 * The view for the current address.
 * @param {boolean} [moved] the page moved here by itself: the element that
 *   held the focus is gone, so the new view places it
 */
async function route(moved = false) {
  const mine = ++routing;
  view?.destroy();
  view = null;
  let make = viewFor(location.pathname);
  try {
    // The home view is drawn at once, with the page; another waits for its module.
    if (make instanceof Promise) make = await make;
  } catch {
    // The module could not be loaded (offline): say so; a reload tries again.
    if (mine === routing) document.getElementById('main')?.replaceChildren(t('networkError'));
    return;
  }
  // Another address was opened while this one's module loaded.
  if (mine !== routing) return;
  view = make();
  view.render();
  if (!moved) return;
  if (view.takeFocus) view.takeFocus();
  else if (!document.activeElement || document.activeElement === document.body) document.getElementById('main')?.focus();
}

/** @param {string} path */
function navigate(path) {
  history.pushState(null, '', path);
  route(true);
}

window.addEventListener('popstate', () => route());
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

const accountRoot = document.getElementById('account');
const account = accountRoot ? new AccountArea(accountRoot) : null;

langButton.addEventListener('click', () => {
  const next = lang() === 'en' ? 'ne' : 'en';
  saveLang(next);
  applyLang(next);
  account?.render();
  view?.render();
});

/** @returns {Lang} */
function initialLang() {
  return savedLang() ?? (navigator.language.startsWith('ne') ? 'ne' : 'en');
}

applyLang(initialLang());
// Who this browser plays as; a first visit gets its player and cookie here.
loadPlayer();
route();
