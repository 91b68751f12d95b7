// The page's sounds, synthesised with the Web Audio API (no recordings:
// each sound is a few notes made here for this project): a placement or
// step, a capture, your turn and the end of a game, each distinct and
// short. Nothing plays before the person's first click, tap or key on the
// page (the browsers' autoplay rule; the audio context is only made then),
// and nothing at all while the switch, kept in this browser, is off.

import { soundOn, saveSound } from './storage.js';

/** @typedef {'move' | 'capture' | 'turn' | 'end'} SoundKind */

/**
 * One note: an oscillator gliding from `f` to `f * glide` hertz, `at`
 * seconds after the sound starts, fading out over `dur` seconds.
 * @typedef {object} Note
 * @property {number} f
 * @property {OscillatorType} wave
 * @property {number} at
 * @property {number} dur
 * @property {number} gain
 * @property {number} [glide]
 */

/** @type {Record<SoundKind, Note[]>} each sound's notes; their first frequencies differ */
export const RECIPES = {
  // A short wooden tap.
  move: [{ f: 520, wave: 'triangle', at: 0, dur: 0.08, gain: 0.4, glide: 0.7 }],
  // A low falling snap with a buzz under it.
  capture: [
    { f: 300, wave: 'sawtooth', at: 0, dur: 0.2, gain: 0.22, glide: 0.45 },
    { f: 150, wave: 'square', at: 0.02, dur: 0.16, gain: 0.12, glide: 0.6 },
  ],
  // Two rising bell notes.
  turn: [
    { f: 660, wave: 'sine', at: 0, dur: 0.14, gain: 0.3 },
    { f: 990, wave: 'sine', at: 0.11, dur: 0.22, gain: 0.3 },
  ],
  // Three notes of a falling chord.
  end: [
    { f: 784, wave: 'triangle', at: 0, dur: 0.22, gain: 0.3 },
    { f: 659, wave: 'triangle', at: 0.16, dur: 0.22, gain: 0.3 },
    { f: 523, wave: 'triangle', at: 0.32, dur: 0.5, gain: 0.32 },
  ],
};

/** Seconds between two sounds played together (an action, then your turn). */
const GAP = 0.04;

/** @type {AudioContext | null} */
let context = null;
/** Whether the person has touched the page yet. */
let touched = false;

/** The first interaction unlocks the sounds; the listeners then go. */
function unlock() {
  touched = true;
  for (const type of ['pointerdown', 'keydown']) document.removeEventListener(type, unlock, true);
}
for (const type of ['pointerdown', 'keydown']) document.addEventListener(type, unlock, true);

/** Whether the switch is on. */
export function enabled() {
  return soundOn();
}

/**
 * Turns the sounds on or off, for this browser.
 * @param {boolean} on
 */
export function setEnabled(on) {
  saveSound(on);
}

/**
 * Plays sounds one after the other, if the person has touched the page and
 * the switch is on; otherwise does nothing.
 * @param {SoundKind[]} kinds
 */
export function play(kinds) {
  if (!kinds.length || !touched || !soundOn()) return;
  try {
    if (!context) context = new AudioContext();
    if (context.state === 'suspended') void context.resume();
    let start = context.currentTime + 0.01;
    for (const kind of kinds) {
      let end = start;
      for (const note of RECIPES[kind]) end = Math.max(end, tone(context, note, start));
      start = end + GAP;
    }
  } catch {
    // No audio on this device: the page goes on silently.
  }
}

/**
 * Schedules one note; returns when it ends.
 * @param {AudioContext} ctx
 * @param {Note} note
 * @param {number} start
 */
function tone(ctx, note, start) {
  const t0 = start + note.at;
  const t1 = t0 + note.dur;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = note.wave;
  osc.frequency.setValueAtTime(note.f, t0);
  if (note.glide) osc.frequency.exponentialRampToValueAtTime(note.f * note.glide, t1);
  gain.gain.setValueAtTime(0.0001, t0);
  gain.gain.exponentialRampToValueAtTime(note.gain, t0 + 0.006);
  gain.gain.exponentialRampToValueAtTime(0.0001, t1);
  osc.connect(gain).connect(ctx.destination);
  osc.start(t0);
  osc.stop(t1 + 0.02);
  return t1;
}
