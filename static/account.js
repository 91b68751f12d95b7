// The account area in the page's header, on every view: who the browser
// plays as (a name, or "anonymous"), and a panel to sign up, log in, log
// out, change the password or close the account. It asks `GET /api/me`
// when the page loads, which also gives a first visit its player and its
// session cookie. Other parts of the page follow the current player with
// `onPlayer`.

import { t } from './i18n.js';
import { h } from './dom.js';

/** @typedef {import('./wire.js').Me} Me */
/** @typedef {import('./wire.js').ApiError} ApiError */
/** @typedef {import('./i18n.js').StringKey} StringKey */

/** @type {Me | null} the current player, once known */
let me = null;

/** @type {Set<(me: Me | null) => void>} */
const listeners = new Set();

/** The current player, once the server said who it is. */
export function currentPlayer() {
  return me;
}

/**
 * Calls `listener` now and whenever the current player changes; returns
 * the way to stop.
 * @param {(me: Me | null) => void} listener
 */
export function onPlayer(listener) {
  listeners.add(listener);
  listener(me);
  return () => listeners.delete(listener);
}

/** @param {Me | null} next */
function setPlayer(next) {
  // The same answer again changes nothing (and redraws nothing).
  if (JSON.stringify(next) === JSON.stringify(me)) return;
  me = next;
  for (const listener of listeners) listener(me);
}

/** What the server's refusals mean to a person, by code. */
/** @type {Partial<Record<import('./wire.js').ApiErrorCode, StringKey>>} */
const REFUSALS = {
  name_taken: 'accountNameTaken',
  wrong_password: 'accountWrongPassword',
  rate_limited: 'accountRateLimited',
  unavailable: 'accountBusy',
  already_account: 'accountAlready',
  not_signed_in: 'accountNoSession',
  account_needed: 'accountNoSession',
};

/** The rules of each field the server checks, said when it refuses one. */
/** @type {Record<string, StringKey>} */
const FIELD_RULES = {
  name: 'accountNameRule',
  password: 'accountPasswordRule',
  new_password: 'accountPasswordRule',
};

/**
 * A refusal as the form shows it: the field at fault (or none) and what
 * to say.
 * @typedef {{field: string | null, text: string}} Refusal
 */

/**
 * Sends a JSON request; the answer's body, or the refusal.
 * @param {string} method
 * @param {string} path
 * @param {object} [body]
 * @returns {Promise<{ok: true, body: any} | {ok: false, refusal: Refusal}>}
 */
async function call(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    return { ok: false, refusal: { field: null, text: t('networkError') } };
  }
  if (res.ok) return { ok: true, body: res.status === 204 ? null : await res.json().catch(() => null) };
  /** @type {ApiError | null} */
  const error = await res.json().catch(() => null);
  if (error?.error === 'invalid_field' && error.field) {
    const rule = FIELD_RULES[error.field];
    return { ok: false, refusal: { field: error.field, text: rule ? t(rule) : error.message } };
  }
  const key = error ? REFUSALS[error.error] : undefined;
  return { ok: false, refusal: { field: null, text: key ? t(key) : t('accountFailed') } };
}

/** @type {() => void} */
let answered = () => {};

/**
 * Settles once the page's first `GET /api/me` was answered (or failed):
 * a table created after it belongs to the browser's player.
 * @type {Promise<void>}
 */
export const playerAsked = new Promise((resolve) => {
  answered = resolve;
});

/** Asks the server who this browser plays as. */
export async function loadPlayer() {
  const answer = await call('GET', '/api/me');
  if (answer.ok) setPlayer(answer.body);
  answered();
}

/**
 * The forms the panel can show.
 * @typedef {'sign_up' | 'log_in' | 'password' | 'close' | null} Form
 */

/**
 * The header's account area: a disclosure button with the player's name,
 * and its panel.
 */
export class AccountArea {
  /** @param {HTMLElement} root the header's element for it */
  constructor(root) {
    this.root = root;
    /** Whether the panel is open. */
    this.open = false;
    /** @type {Form} */
    this.form = null;
    /** @type {Refusal | null} */
    this.refusal = null;
    /** Whether a request is on its way. */
    this.busy = false;
    /** @type {StringKey | null} what the last change did, said in the panel */
    this.done = null;
    /** @type {Record<string, string>} what the person typed, kept across redraws */
    this.values = {};
    onPlayer(() => this.render());
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.open) this.toggle(false);
    });
  }

  /** @param {boolean} open */
  toggle(open) {
    this.open = open;
    // What the player is playing may have changed since the page loaded.
    if (open) loadPlayer();
    this.refusal = null;
    this.done = null;
    if (open && !this.form) this.form = me?.name ? null : 'sign_up';
    this.render();
    if (open) /** @type {HTMLElement | null} */ (this.root.querySelector('.account-panel input, .account-panel a, .account-panel button'))?.focus();
    else /** @type {HTMLElement | null} */ (this.root.querySelector('#account-toggle'))?.focus();
  }

  render() {
    const label = me?.name ?? t('accountAnonymous');
    const toggle = h('button', {
      type: 'button',
      id: 'account-toggle',
      class: 'account-toggle',
      'aria-expanded': this.open ? 'true' : 'false',
      'aria-controls': 'account-panel',
      'aria-label': t('accountToggleLabel', { name: label }),
      onclick: () => this.toggle(!this.open),
    }, h('span', { class: 'account-name', text: label }));
    // A redraw keeps the focus where it was.
    const focused = this.root.contains(document.activeElement) ? document.activeElement?.id : null;
    if (this.open) this.root.replaceChildren(toggle, this.panel());
    else this.root.replaceChildren(toggle);
    if (focused) document.getElementById(focused)?.focus();
  }

  /** The open panel. */
  panel() {
    const links = h(
      'p',
      { class: 'account-links' },
      me ? h('a', { href: me.name ? `/@/${encodeURIComponent(me.name)}` : `/player/${encodeURIComponent(me.id)}`, id: 'account-profile', text: t('accountProfile'), onclick: () => this.toggle(false) }) : null,
      h('a', { href: '/leaderboard', id: 'account-leaderboard', text: t('leaderboardHeading'), onclick: () => this.toggle(false) }),
    );
    const said = this.done ? h('p', { class: 'account-done', role: 'status', text: t(this.done) }) : null;
    // The tables where the player has a seat and a game goes on: the
    // session opens the seat there, on any device.
    const playing = me?.playing.length
      ? h(
          'nav',
          { class: 'account-playing', 'aria-label': t('accountPlaying') },
          h('p', { text: t('accountPlaying') }),
          h('ul', {}, ...me.playing.map((g, i) => h('li', {}, h('a', { href: `/t/${encodeURIComponent(g.table)}`, class: 'playing-link', text: t('accountPlayingTable', { n: i + 1 }), onclick: () => this.toggle(false) })))),
        )
      : null;
    if (me?.name) {
      const actions = h(
        'p',
        { class: 'account-actions' },
        h('button', { type: 'button', id: 'log-out', text: t('accountLogOut'), disabled: this.busy, onclick: () => this.logOut() }),
        h('button', { type: 'button', id: 'change-password', text: t('accountChangePassword'), 'aria-expanded': this.form === 'password' ? 'true' : 'false', onclick: () => this.show('password') }),
        h('button', { type: 'button', id: 'close-account', text: t('accountClose'), 'aria-expanded': this.form === 'close' ? 'true' : 'false', onclick: () => this.show('close') }),
      );
      return h(
        'div',
        { class: 'account-panel', id: 'account-panel' },
        h('p', { class: 'account-who', text: t('accountSignedInAs', { name: me.name }) }),
        links,
        playing,
        actions,
        said,
        this.form === 'password' ? this.passwordForm() : null,
        this.form === 'close' ? this.closeForm() : null,
      );
    }
    const signUp = this.form !== 'log_in';
    return h(
      'div',
      { class: 'account-panel', id: 'account-panel' },
      h('p', { class: 'account-who', text: t('accountAnonymousText') }),
      links,
      playing,
      said,
      this.credentialsForm(signUp),
      h('button', {
        type: 'button',
        class: 'link-button',
        id: signUp ? 'show-log-in' : 'show-sign-up',
        text: signUp ? t('accountHaveOne') : t('accountNeedOne'),
        onclick: () => this.show(signUp ? 'log_in' : 'sign_up'),
      }),
    );
  }

  /** @param {Form} form */
  show(form) {
    this.form = this.form === form && me?.name ? null : form;
    this.values = {};
    this.refusal = null;
    this.done = null;
    this.render();
    /** @type {HTMLElement | null} */ (this.root.querySelector('.account-panel form input'))?.focus();
  }

  /**
   * A labelled field, with the server's refusal of it next to it.
   * @param {string} name the field's name on the wire
   * @param {string} id
   * @param {StringKey} label
   * @param {string} autocomplete
   */
  field(name, id, label, autocomplete) {
    const wrong = this.refusal?.field === name;
    const input = h('input', {
      id,
      name,
      type: name === 'name' ? 'text' : 'password',
      autocomplete,
      required: true,
      value: this.values[name] ?? '',
      // What is typed survives a redraw (the player's answer arriving, say).
      oninput: (e) => {
        this.values[name] = /** @type {HTMLInputElement} */ (e.target).value;
      },
      'aria-invalid': wrong ? 'true' : false,
      'aria-describedby': wrong ? `${id}-error` : false,
      ...(name === 'name' ? { maxlength: 20, minlength: 3, spellcheck: 'false', autocapitalize: 'none' } : { minlength: 8 }),
    });
    return h(
      'div',
      { class: 'account-field' },
      h('label', { for: id, text: t(label) }),
      input,
      wrong ? h('p', { class: 'field-error', id: `${id}-error`, text: this.refusal?.text ?? '' }) : null,
    );
  }

  /** The refusal that names no field, under the form. */
  formError() {
    return this.refusal && !this.refusal.field ? h('p', { class: 'field-error', role: 'alert', text: this.refusal.text }) : null;
  }

  /** @param {boolean} signUp */
  credentialsForm(signUp) {
    const form = h(
      'form',
      { class: 'account-form', id: signUp ? 'sign-up-form' : 'log-in-form', 'aria-label': signUp ? t('accountSignUp') : t('accountLogIn') },
      h('h2', { text: signUp ? t('accountSignUp') : t('accountLogIn') }),
      this.field('name', 'account-name', 'accountNameLabel', 'username'),
      this.field('password', 'account-password', 'accountPasswordLabel', signUp ? 'new-password' : 'current-password'),
      signUp ? h('p', { class: 'hint', text: t('accountSignUpHint') }) : null,
      this.formError(),
      h('button', { type: 'submit', class: 'primary', disabled: this.busy, text: signUp ? t('accountSignUp') : t('accountLogIn') }),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const body = { name: String(data.get('name') ?? ''), password: String(data.get('password') ?? '') };
      this.submit('POST', signUp ? '/api/account' : '/api/session', body, signUp ? 'accountSignedUp' : 'accountLoggedIn');
    });
    return form;
  }

  passwordForm() {
    const form = h(
      'form',
      { class: 'account-form', id: 'password-form', 'aria-label': t('accountChangePassword') },
      this.field('password', 'current-password', 'accountCurrentPassword', 'current-password'),
      this.field('new_password', 'new-password', 'accountNewPassword', 'new-password'),
      this.formError(),
      h('button', { type: 'submit', class: 'primary', disabled: this.busy, text: t('accountChangePassword') }),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const data = new FormData(form);
      this.submit('PUT', '/api/account/password', { password: String(data.get('password') ?? ''), new_password: String(data.get('new_password') ?? '') }, 'accountPasswordChanged');
    });
    return form;
  }

  closeForm() {
    const form = h(
      'form',
      { class: 'account-form', id: 'close-form', 'aria-label': t('accountClose') },
      h('p', { class: 'hint', text: t('accountCloseText') }),
      this.field('password', 'close-password', 'accountCurrentPassword', 'current-password'),
      this.formError(),
      h('button', { type: 'submit', class: 'danger', disabled: this.busy, text: t('accountCloseConfirm') }),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const data = new FormData(form);
      this.submit('DELETE', '/api/account', { password: String(data.get('password') ?? '') }, 'accountClosed');
    });
    return form;
  }

  /**
   * Sends a form; on success, the server's answer is the new player (or,
   * for the answers without a body, the player is asked again).
   * @param {string} method
   * @param {string} path
   * @param {object} body
   * @param {StringKey} done
   */
  async submit(method, path, body, done) {
    this.values = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)]));
    this.busy = true;
    this.refusal = null;
    this.render();
    const answer = await call(method, path, body);
    this.busy = false;
    if (!answer.ok) {
      this.refusal = answer.refusal;
      this.render();
      const wrong = answer.refusal.field ? this.root.querySelector('[aria-invalid="true"]') : this.root.querySelector('.account-form button[type="submit"]');
      /** @type {HTMLElement | null} */ (wrong)?.focus();
      return;
    }
    this.form = null;
    this.values = {};
    this.done = done;
    if (answer.body) setPlayer(answer.body);
    else await loadPlayer();
    /** @type {HTMLElement | null} */ (this.root.querySelector('#account-toggle'))?.focus();
  }

  async logOut() {
    this.busy = true;
    this.render();
    const answer = await call('DELETE', '/api/session');
    this.busy = false;
    this.form = null;
    this.done = answer.ok ? 'accountLoggedOut' : null;
    if (!answer.ok) this.refusal = answer.refusal;
    // The next visit makes this browser a new anonymous player.
    await loadPlayer();
    /** @type {HTMLElement | null} */ (this.root.querySelector('#account-toggle'))?.focus();
  }
}
