// Unit tests of the page's pure table state (static/state.js), fed with the
// protocol's golden fixtures: the messages exactly as the server sends them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apply, initial, mySide, mode, timeLeft, absence, mayClaim, onlyBoard, matchOf, waitingForFriend, FATAL } from '../../static/state.js';

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

test('a draw offer that lapses with its maker leaves nothing to accept', () => {
  const offered = run(initial(true), fixture('server.welcome.host'), fixture('server.snapshot'), fixture('server.event.draw_offered'));
  assert.equal(offered.game?.draw_offer, 'goats');
  const lapsed = run(offered, fixture('server.event.draw_withdrawn'));
  assert.equal(lapsed.game?.draw_offer, null);
  assert.equal(lapsed.version, 3);
  assert.deepEqual(lapsed.moves, offered.moves);
});

test('a rematch empties the move list and swaps the sides', () => {
  const s = run(initial(true), fixture('server.welcome.host'), fixture('server.snapshot'), fixture('server.event.rematch_started'));
  assert.deepEqual(s.moves, []);
  assert.equal(s.game?.game, 2);
  assert.equal(mySide(s), 'tigers');
});

test('an action locks the board until the next state, even once it is acknowledged', () => {
  let s = run(initial(true), fixture('server.welcome.claimed'), fixture('server.snapshot'));
  // The guest holds the tigers, whose turn it is.
  assert.equal(mode(s), 'play');
  s = run(s, { type: 'sent', id: '7', action: 'a1-b2' });
  assert.equal(mode(s), 'wait');
  assert.equal(s.pendingAction, 'a1-b2');
  assert.equal(run(s, { type: 'ack', id: '8' }).pending, '7', 'an ack of another id leaves it pending');
  // The ack comes before the event: the action is stored, not to be sent
  // again, but the state still says it is the tigers' turn.
  const acked = run(s, fixture('server.ack'));
  assert.equal(acked.pending, null);
  assert.equal(mode(acked), 'wait');
  // The next state frees it: a snapshot after a reconnect, or the event.
  const next = run(acked, fixture('server.snapshot'));
  assert.equal(next.locked, false);
  assert.equal(mode(next), 'play');
  const played = run(initial(true), fixture('server.welcome.claimed'), { type: 'sent', id: '7', action: 'a1-b2' }, fixture('server.ack'));
  assert.equal(mode(played), 'wait');
  assert.equal(mode(run(played, fixture('server.event.played'))), 'play');
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

/**
 * A message of the live-play contract: the protocol's golden fixture where
 * the server side has added it, else the page's own in the contract's
 * exact shape (tests/browser/fixtures). The tests below read their
 * expectations from the fixture, so either serves.
 * @param {string} name
 */
function pageFixture(name) {
  const golden = join(FIXTURES, `${name}.json`);
  const own = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', `${name}.json`);
  return JSON.parse(readFileSync(existsSync(golden) ? golden : own, 'utf8'));
}

test('the running clock counts down from the turn start on the server clock, whatever the page clock says', () => {
  const snap = pageFixture('server.snapshot.clock');
  const clock = snap.state.clock;
  const serverNow = Date.parse(clock.now);
  const running = clock.running;
  const idle = running === 'goats' ? 'tigers' : 'goats';
  const ran = serverNow - Date.parse(clock.turn_started_at);
  // The page's clock is an hour ahead of the server's.
  const at = serverNow + 3600000;
  const s = apply(apply(initial(true), fixture('server.welcome.host')), snap, at);
  assert.equal(s.clockSkew, -3600000);
  assert.equal(s.game?.abortable, snap.state.abortable);
  // What had run when the state was sent, and one second more since.
  assert.equal(timeLeft(s, running, at + 1000), clock[`${running}_ms`] - ran - 1000);
  assert.equal(timeLeft(s, idle, at + 1000), clock[`${idle}_ms`], 'the side not to move keeps its time');
  assert.equal(timeLeft(s, running, at + 24 * 3600000), 0, 'a clock never reads below zero');
  assert.equal(timeLeft(run(initial(true), fixture('server.snapshot')), 'goats', at), null, 'no clock, no time');
});

test('a flag, a claim and an abort end the game with their reasons, and stop the clock', () => {
  const base = run(initial(true), fixture('server.welcome.host'), { ...pageFixture('server.snapshot.clock'), version: 1 });
  const flag = { ...pageFixture('server.event.flagged'), version: 2 };
  const flagged = run(base, flag);
  assert.equal(flagged.game?.result?.reason, 'timeout');
  assert.equal(timeLeft(flagged, flag.event.side, Date.now() + 3600000), flag.state.clock[`${flag.event.side}_ms`], 'a finished game\'s clock stands still');
  assert.equal(mode(flagged), 'wait');
  const claimed = run(base, { ...pageFixture('server.event.claimed'), version: 2 });
  assert.equal(claimed.game?.result?.reason, 'abandoned');
  assert.equal(run(base, { ...pageFixture('server.event.claimed.draw'), version: 2 }).game?.result?.winner ?? null, null);
  const aborted = run(base, { ...pageFixture('server.event.aborted'), version: 2 });
  assert.deepEqual(aborted.game?.result, { winner: null, reason: 'aborted' });
  assert.equal(aborted.game?.abortable, false);
  // A declined or lapsed rematch leaves the finished game as it was.
  assert.deepEqual(run(flagged, { ...pageFixture('server.event.rematch_declined'), version: 3 }).moves, flagged.moves);
  assert.equal(run(flagged, { ...pageFixture('server.event.rematch_withdrawn'), version: 3 }).game?.rematch_offer, null);
});

test('an absent opponent counts down to claimable_at on the server clock, and a return clears it', () => {
  const absent = pageFixture('server.presence.absent');
  const serverNow = Date.parse(absent.absent.now);
  const grace = Date.parse(absent.absent.claimable_at) - serverNow;
  // The page's clock is five seconds behind the server's.
  const at = serverNow - 5000;
  let s = run(initial(true), fixture('server.welcome.host'), fixture('server.snapshot'));
  assert.equal(mySide(s), 'goats');
  s = apply(s, absent, at);
  assert.equal(s.absentSkew, 5000);
  assert.deepEqual(absence(s, at), { side: absent.absent.side, claimableIn: grace });
  assert.equal(mayClaim(s, at), false, 'not before the grace period is over');
  assert.equal(mayClaim(s, at + grace), absent.absent.side !== 'goats');
  assert.equal(absence(s, at + grace + 5000)?.claimableIn, 0);
  // A spectator sees the absence but has nothing to claim.
  const watcher = apply(run(initial(true), fixture('server.welcome.spectator'), fixture('server.snapshot')), absent, at);
  assert.equal(absence(watcher, at)?.side, absent.absent.side);
  assert.equal(mayClaim(watcher, at + grace), false);
  // The absent player is back.
  const back = run(s, pageFixture('server.presence.present'));
  assert.equal(absence(back, at + grace), null);
  // No absence counts once the game is over.
  assert.equal(absence(run(s, { ...pageFixture('server.event.flagged'), version: 9 }), at), null);
});

test('refusals of the new commands are not fatal', () => {
  for (const code of ['not_claimable', 'not_abortable', 'too_many_offers']) {
    const s = run(initial(true), fixture('server.welcome.host'), pageFixture(`server.error.${code}`));
    assert.equal(s.fatal, null);
    assert.equal(s.conn, 'online');
  }
});

test('a two-board snapshot keeps both boards, and board 1 stands in for the table', () => {
  const snap = fixture('server.snapshot.two_boards');
  const s = run(initial(true), fixture('server.welcome.two_boards'), snap);
  assert.equal(s.info?.format, 'two_boards');
  assert.equal(s.boards?.[1].game.board, 1);
  assert.equal(s.boards?.[2].game.board, 2);
  assert.deepEqual(s.boards?.[1].moves, ['c3']);
  assert.deepEqual(s.boards?.[2].moves, []);
  assert.deepEqual(s.game, snap.boards[0].state);
  assert.deepEqual(s.moves, ['c3']);
  // The guest holds the tigers on board 1 and the goats on board 2: both to move.
  assert.equal(mySide(onlyBoard(s, 1)), 'tigers');
  assert.equal(mySide(onlyBoard(s, 2)), 'goats');
  assert.equal(mode(onlyBoard(s, 1)), 'play');
  assert.equal(mode(onlyBoard(s, 2)), 'play');
  assert.deepEqual(matchOf(s), { number: 1, host_wins: 0, guest_wins: 0, draws: 0, result: null });
  // A table of one board has no boards, and `onlyBoard` is the table itself.
  const single = run(initial(true), fixture('server.welcome.claimed'), fixture('server.snapshot'));
  assert.equal(single.boards, null);
  assert.equal(onlyBoard(single, 1), single);
  assert.equal(matchOf(single), null);
});

test('an event moves the board it names and leaves the other as it was', () => {
  const s = run(initial(true), fixture('server.welcome.two_boards'), fixture('server.snapshot.two_boards'));
  const played = fixture('server.event.played.two_boards');
  const next = run(s, played);
  assert.equal(next.version, played.version);
  assert.deepEqual(next.boards?.[2].moves, ['c3']);
  assert.deepEqual(next.boards?.[2].game, played.state);
  assert.equal(next.boards?.[1], s.boards?.[1]);
  assert.equal(next.game, s.game, 'board 1 stands in for the table, untouched');
  assert.equal(mode(onlyBoard(next, 2)), 'wait');
  assert.equal(mode(onlyBoard(next, 1)), 'play');
  // Replayed after a reconnect with `since`: already held, changes nothing.
  assert.equal(run(next, played), next);
  // An event of board 1 moves `game` and `moves` with it.
  const one = run(next, { ...played, board: 1, version: 3, state: { ...played.state, board: 1, host_side: 'goats' } });
  assert.deepEqual(one.boards?.[1].moves, ['c3', 'c3']);
  assert.deepEqual(one.moves, ['c3', 'c3']);
  assert.equal(one.game?.board, 1);
});

test('an action pending on one board remembers it and locks only that board', () => {
  let s = run(initial(true), fixture('server.welcome.two_boards'), fixture('server.snapshot.two_boards'));
  s = run(s, { type: 'sent', id: '8', action: 'c3', board: 2 });
  assert.equal(s.pendingBoard, 2);
  assert.equal(mode(onlyBoard(s, 2)), 'wait');
  assert.equal(mode(onlyBoard(s, 1)), 'play', 'board 1 stays playable');
  assert.equal(onlyBoard(s, 1).pending, null);
  assert.equal(onlyBoard(s, 2).pending, '8');
  // An event of board 1 (say, the opponent's) leaves board 2's action pending.
  const played = fixture('server.event.played.two_boards');
  const other = run(s, { ...played, board: 1, state: { ...played.state, board: 1, host_side: 'goats' } });
  assert.equal(other.pending, '8');
  assert.equal(other.pendingBoard, 2);
  assert.equal(mode(onlyBoard(other, 2)), 'wait');
  // Acknowledged: not to be sent again, but locked until board 2's state.
  const acked = run(s, { type: 'ack', id: '8' });
  assert.equal(acked.pending, null);
  assert.equal(acked.pendingBoard, null);
  assert.equal(acked.boards?.[2].locked, true);
  const after = run(acked, played);
  assert.equal(after.boards?.[2].locked, false);
  assert.equal(after.locked, false);
  // A refusal frees the board it was sent on.
  const refused = run(s, fixture('server.error.unknown_board'));
  assert.equal(refused.pending, null);
  assert.equal(refused.fatal, null);
  assert.equal(refused.boards?.[2].locked, false);
  assert.equal(mode(onlyBoard(refused, 2)), 'play');
});

test('the board that decides the match carries the score and the result', () => {
  const s = run(initial(true), fixture('server.welcome.two_boards'), fixture('server.snapshot.two_boards'));
  const decided = run(s, fixture('server.event.resigned.match_decided'));
  assert.equal(decided.boards?.[2].game.result?.reason, 'resignation');
  // Board 1's state still has the count of before: the latest state's is taken.
  assert.deepEqual(matchOf(decided), { number: 1, host_wins: 1, guest_wins: 0, draws: 1, result: { winner: 'host' } });
  assert.equal(mode(onlyBoard(decided, 2)), 'wait');
});

test('a rematch empties both boards\' move lists, one event each', () => {
  let s = run(initial(true), fixture('server.welcome.two_boards'), fixture('server.snapshot.two_boards'), fixture('server.event.played.two_boards'));
  const started = fixture('server.event.rematch_started');
  const fresh = { ...fixture('server.snapshot.two_boards').boards[0].state, game: 2, ply: 0, legal: [], last_action: null };
  s = run(s, { ...started, version: 10, board: 1, state: { ...fresh, board: 1 } }, { ...started, version: 11, board: 2, state: { ...fresh, board: 2, host_side: 'tigers' } });
  assert.deepEqual(s.boards?.[1].moves, []);
  assert.deepEqual(s.boards?.[2].moves, []);
  assert.deepEqual(s.moves, []);
  assert.equal(s.version, 11);
});

test('the match is the latest state\'s, even when the other board\'s last state counts an older pair', () => {
  const s = run(initial(true), fixture('server.welcome.two_boards'), fixture('server.snapshot.two_boards'));
  const started = fixture('server.event.rematch_started');
  const fresh = { ...fixture('server.snapshot.two_boards').boards[0].state, game: 2, ply: 0, legal: [], last_action: null };
  // Board 1 begins again while board 2 still holds the old pair's draw; then board 2 begins.
  const half = run(s, { ...started, version: 10, board: 1, state: { ...fresh, board: 1, match: { number: 2, host_wins: 0, guest_wins: 0, draws: 1, result: null } } });
  const both = run(half, { ...started, version: 11, board: 2, state: { ...fresh, board: 2, host_side: 'tigers', match: { number: 2, host_wins: 0, guest_wins: 0, draws: 0, result: null } } });
  assert.deepEqual(matchOf(both), { number: 2, host_wins: 0, guest_wins: 0, draws: 0, result: null });
});

test('the host of a friend table waits, with nothing to play, until the friend is seated', () => {
  const start = { ...fixture('server.snapshot') };
  start.state = { ...start.state, ply: 0, side_to_move: 'goats', position: 'T...T/...../...../...../T...T g 20 0 0', legal: ['c3'] };
  const presence = fixture('server.presence');
  const alone = { ...presence, tigers: { ...presence.tigers, connected: false } };
  const s = run(initial(true), fixture('server.welcome.host'), start, alone);
  assert.equal(s.info?.opponent, 'friend');
  assert.equal(waitingForFriend(s), true);
  assert.equal(mode(s), 'wait');
  const seated = run(s, presence);
  assert.equal(waitingForFriend(seated), false);
  assert.equal(mode(seated), 'play');
});
