// Small helpers every view shares: making elements, the live region, and
// the names of the sides.

import { t } from './i18n.js';

/** @typedef {import('./wire.js').Side} Side */

/**
 * Creates an element.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | boolean | number | ((e: Event) => void)>} [attrs]
 *   attributes; `on*` keys add listeners, `text` sets the text
 * @param {(Node | string | null | false | undefined)[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = String(v);
    else if (v === true) el.setAttribute(k, '');
    else if (v !== false) el.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null && c !== false && c !== undefined) el.append(c);
  return el;
}

/**
 * Creates an SVG element.
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @returns {SVGElement}
 */
export function s(tag, attrs = {}) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return /** @type {SVGElement} */ (el);
}

/** The page's main element, which each view fills. */
export function mainElement() {
  return /** @type {HTMLElement} */ (document.getElementById('main'));
}

/**
 * Says `text` through the live region.
 * @param {string} text
 */
export function announce(text) {
  const live = document.getElementById('live');
  if (!live) return;
  // Replacing the text makes screen readers read the new message.
  live.textContent = '';
  window.setTimeout(() => {
    live.textContent = text;
  }, 30);
}

/**
 * @param {Side} side
 * @returns {Side}
 */
export function other(side) {
  return side === 'goats' ? 'tigers' : 'goats';
}

/** @param {Side} side */
export function sideName(side) {
  return side === 'goats' ? t('goats') : t('tigers');
}

/**
 * A link from the server, made relative to this page's origin so that the
 * page stays on the address it was opened with.
 * @param {string} link
 */
export function localPath(link) {
  const u = new URL(link, location.href);
  return u.pathname + u.hash;
}

/**
 * Hands a link to the device's share sheet (the Web Share API), where the
 * browser has one.
 * @param {string} url
 * @returns {Promise<boolean>} whether the share sheet took it (or the
 *   person closed it); `false`: no share sheet, copy the link instead
 */
export async function shareSheet(url) {
  if (typeof navigator.share !== 'function') return false;
  try {
    await navigator.share({ title: t('title'), url });
    return true;
  } catch (err) {
    return err instanceof DOMException && err.name === 'AbortError';
  }
}

/**
 * Copies `text` to the clipboard; where that is refused, selects `fallback`
 * so that the person can copy it by hand.
 * @param {string} text
 * @param {HTMLInputElement | HTMLTextAreaElement | null} fallback
 * @returns {Promise<boolean>} whether the clipboard took it
 */
export async function copyText(text, fallback) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    fallback?.focus();
    fallback?.select();
    return false;
  }
}
