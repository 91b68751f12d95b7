// Unit tests of the page's pure table state (static/state.js), fed with the
// protocol's golden fixtures: the messages exactly as the server sends them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apply, initial, mySide, mode, FATAL } from '../../static/state.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'protocol');

/** @param {string} name a fixture's file name without `.json` */
function fixture(name) {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8'));
}

/**
 * Applies messages in turn, checking that no state given is ever changed.
 * @param {any} state
 * @param {...any} messages
 */
function run(state, ...messages) {
  for (const m of messages) {
    const frozen = JSON.stringify(state);
    const next = apply(state, m);
    assert.equal(JSON.stringify(state), frozen, `apply changed the state it was given (${m.type})`);
    state = next;
  }
  return state;
}

test('a page without a token has no seat and a page with one connects', () => {
  assert.equal(initial(false).fatal, 'no_seat');
  const s = initial(true);
  assert.equal(s.fatal, null);
  assert.equal(s.conn, 'connecting');
});

test('a welcome makes the page online with the table, role and player', () => {
  const s = run(initial(true), fixture('server.welcome.host'));
  assert.equal(s.conn, 'online');
  assert.equal(s.role, 'player');
  assert.equal(s.player, 'host');
  assert.equal(s.info?.id, 'q7Xc2LmN0pRsTuVwYz1A3b');
  const watcher = run(initial(true), fixture('server.welcome.spectator'));
  assert.equal(watcher.role, 'spectator');
  assert.equal(watcher.player, null);
  assert.equal(mode(watcher), 'watch');
});

test('a snapshot gives the game, its moves and the version', () => {
  const s = run(initial(true), fixture('server.welcome.host'), fixture('server.snapshot'));
  assert.deepEqual(s.moves, ['c3']);
  assert.equal(s.version, 1);
  assert.equal(s.game?.position, 'T...T/...../..G../...../T...T t 19 0 1');
  // The host holds the goats and the tigers are to move: the host waits.
  assert.equal(mySide(s), 'goats');
  assert.equal(mode(s), 'wait');
});

test('a played event adds its action once, and a replayed one is ignored', () => {
  const played = fixture('server.event.played');
  const s = run(initial(true), fixture('server.welcome.host'), played);
  assert.deepEqual(s.moves, ['c3']);
  assert.equal(s.version, 1);
  assert.equal(run(s, played), s, 'an event of a version already seen changes nothing');
});

test('a rematch empties the move list and swaps the sides', () => {
  const s = run(initial(true), fixture('server.welcome.host'), fixture('server.snapshot'), fixture('server.event.rematch_started'));
  assert.deepEqual(s.moves, []);
  assert.equal(s.game?.game, 2);
  assert.equal(mySide(s), 'tigers');
});

test('an action awaiting its answer blocks the board until the ack or the event', () => {
  let s = run(initial(true), fixture('server.welcome.claimed'), fixture('server.snapshot'));
  // The guest holds the tigers, whose turn it is.
  assert.equal(mode(s), 'play');
  s = run(s, { type: 'sent', id: '7', action: 'a1-b2' });
  assert.equal(mode(s), 'wait');
  assert.equal(s.pendingAction, 'a1-b2');
  assert.equal(run(s, { type: 'ack', id: '8' }).pending, '7', 'an ack of another id leaves it pending');
  assert.equal(run(s, fixture('server.ack')).pending, null);
  // A refusal of that action frees the board again.
  const refused = run(s, fixture('server.error.illegal_action'));
  assert.equal(refused.pending, null);
  assert.equal(refused.fatal, null);
  assert.equal(mode(refused), 'play');
});

test('presence is kept without its type tag', () => {
  const s = run(initial(true), fixture('server.presence'));
  const { type: _type, ...want } = fixture('server.presence');
  assert.deepEqual(s.presence, want);
});

test('an error no reconnect can help is fatal, and only those', () => {
  assert.equal(run(initial(true), fixture('server.error.seat_taken')).fatal, 'seat_taken');
  for (const code of FATAL) assert.equal(run(initial(true), { type: 'error', code, message: '' }).fatal, code);
  assert.equal(run(initial(true), { type: 'error', code: 'not_your_turn', message: '' }).fatal, null);
});

test('a lost connection reconnects unless the seat moved to another tab', () => {
  const online = run(initial(true), fixture('server.welcome.host'));
  assert.equal(run(online, { type: 'lost' }).conn, 'reconnecting');
  assert.equal(mode(run(online, fixture('server.snapshot'), { type: 'lost' })), 'wait');
  const replaced = run(online, { type: 'replaced' });
  assert.equal(replaced.fatal, 'replaced');
  assert.equal(run(replaced, { type: 'lost' }).conn, 'online', 'a replaced seat does not reconnect');
  assert.equal(run(replaced, { type: 'retry' }).fatal, null);
});
