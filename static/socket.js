// The websocket to the table server, kept alive: it says hello (with the
// last version seen) on every open, pings while idle, declares a silent
// connection dead, and reconnects with backoff until stopped. It knows
// nothing of tables beyond that: messages go to `onMessage` as they come.

import { REPLACED } from './close-codes.js';

/** @typedef {import('./wire.js').ServerMessage} ServerMessage */
/** @typedef {import('./wire.js').ClientMessage} ClientMessage */

/** The close code the server sends when the same seat joined elsewhere. */
export const CLOSE_REPLACED = REPLACED;
/** Milliseconds between two pings. */
const PING_MS = 15000;
/** Milliseconds of silence after which the connection is taken for dead. */
const DEAD_MS = 40000;

/**
 * @typedef {object} SocketHandlers
 * @property {() => ClientMessage} hello the first message of each connection
 * @property {(msg: ServerMessage) => void} onMessage
 * @property {() => void} onLost the connection dropped; a retry is scheduled
 * @property {() => void} onReplaced the server closed it because the seat joined elsewhere; no retry
 */

export class TableSocket {
  /** @param {SocketHandlers} handlers */
  constructor(handlers) {
    this.handlers = handlers;
    /** @type {WebSocket | null} */
    this.ws = null;
    /** Failed attempts since the last message heard, for the backoff. */
    this.attempts = 0;
    /** @type {number | undefined} */
    this.retryTimer = undefined;
    /** @type {number | undefined} */
    this.pingTimer = undefined;
    this.lastHeard = Date.now();
    this.stopped = true;
    this.onOnline = () => this.reconnectNow();
    // Going offline drops the socket at once rather than when pings fail.
    this.onOffline = () => {
      const ws = this.ws;
      if (!ws) return;
      ws.onclose = null;
      ws.close();
      this.lost(ws, 1006);
    };
  }

  /** Connects, and keeps connecting until `stop`. */
  start() {
    if (!this.stopped) return;
    this.stopped = false;
    window.addEventListener('online', this.onOnline);
    window.addEventListener('offline', this.onOffline);
    this.connect();
  }

  /** Closes the connection for good. */
  stop() {
    this.stopped = true;
    window.clearTimeout(this.retryTimer);
    window.clearInterval(this.pingTimer);
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('offline', this.onOffline);
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
      this.ws = null;
    }
  }

  connect() {
    if (this.stopped) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/ws`);
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify(this.handlers.hello()));
      this.lastHeard = Date.now();
      window.clearInterval(this.pingTimer);
      this.pingTimer = window.setInterval(() => this.keepAlive(), PING_MS);
    };
    ws.onmessage = (e) => {
      this.lastHeard = Date.now();
      this.attempts = 0;
      /** @type {ServerMessage} */
      let msg;
      try {
        msg = JSON.parse(String(e.data));
      } catch {
        return;
      }
      this.handlers.onMessage(msg);
    };
    ws.onclose = (e) => this.lost(ws, e.code);
  }

  /**
   * The socket is gone: retry with backoff, unless the seat moved elsewhere.
   * @param {WebSocket} ws
   * @param {number} code the close code
   */
  lost(ws, code) {
    window.clearInterval(this.pingTimer);
    if (this.ws !== ws) return;
    this.ws = null;
    if (this.stopped) return;
    if (code === CLOSE_REPLACED) {
      this.stop();
      this.handlers.onReplaced();
      return;
    }
    // Exponential backoff with jitter: 0.5 s, 1 s, 2 s ... up to 10 s.
    const delay = Math.min(10000, 500 * 2 ** this.attempts) * (0.75 + Math.random() / 2);
    this.attempts += 1;
    this.retryTimer = window.setTimeout(() => this.connect(), delay);
    this.handlers.onLost();
  }

  reconnectNow() {
    if (this.ws || this.stopped) return;
    window.clearTimeout(this.retryTimer);
    this.connect();
  }

  keepAlive() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastHeard > DEAD_MS) {
      // Nothing heard for too long: the connection is dead.
      this.ws.close();
      return;
    }
    this.send({ type: 'ping' });
  }

  /**
   * Sends a message if the connection is open; otherwise it is dropped
   * (a pending action goes again after the reconnect).
   * @param {ClientMessage} msg
   */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }
}
