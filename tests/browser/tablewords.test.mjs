// Unit tests of what the table view says (static/tablewords.js), for a
// table of one board and for two, fed with the protocol's golden fixtures
// through the page's reducer: the same path the view takes.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apply, initial } from '../../static/state.js';
import { setLang, t } from '../../static/i18n.js';
import {
  points,
  seriesText,
  matchText,
  tallyText,
  turnText,
  counterRows,
  pageTitle,
  eventMoment,
  eventSaid,
  eventSounds,
  joinSaid,
  presenceSaid,
} from '../../static/tablewords.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'protocol');

/**
 * A golden fixture of the protocol, with `changes` laid over it.
 * @param {string} name a fixture's file name without `.json`
 * @param {object} [changes]
 * @returns {any}
 */
function fixture(name, changes = {}) {
  return { ...JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')), ...changes };
}

/**
 * The page's state after these messages.
 * @param {...any} messages
 */
function run(...messages) {
  return messages.reduce((s, m) => apply(s, m), initial(true));
}

/** The host of a table of one board, holding the goats, waiting for the tigers after c3. */
const oneBoard = () => run(fixture('server.welcome.host'), fixture('server.snapshot'));

/**
 * A two-board table's state after the snapshot (board 1: the host holds
 * the goats and waits; board 2: the host holds the tigers, the goats to move).
 * @param {'host' | 'guest'} player
 */
const twoBoards = (player) => run(fixture('server.welcome.two_boards', { player }), fixture('server.snapshot.two_boards'));

/**
 * What the live region says of an event after `before`, and the sounds.
 * @param {any} before
 * @param {any} msg
 */
function said(before, msg) {
  const after = apply(before, msg);
  const m = eventMoment(before, after, msg);
  return { m, words: eventSaid(msg, m, after.player, Boolean(after.boards)), sounds: eventSounds(msg.event, msg.state, m) };
}

afterEach(() => setLang('en'));

test('a score counts half a point for each draw, in the page digits', () => {
  assert.equal(points(2, 1), '2½');
  assert.equal(points(0, 1), '½');
  assert.equal(points(1, 2), '2');
  setLang('ne');
  assert.equal(points(12, 0), '१२');
});

test('the turn line names the board only at a two-board table', () => {
  const s = oneBoard();
  assert.equal(turnText(s, null), `${t('opponentTurn', { side: t('tigers') })} · ${t('phasePlacement')}`);
  const mine = { ...s, game: { ...s.game, side_to_move: 'goats' } };
  assert.equal(turnText(mine, null), `${t('yourTurn', { side: t('goats') })} · ${t('phasePlacement')}`);
  assert.equal(turnText(mine, 2), `${t('yourTurnOnBoard', { n: 2, side: t('goats') })} · ${t('phasePlacement')}`);
  const watcher = run(fixture('server.welcome.spectator'), fixture('server.snapshot'));
  assert.equal(turnText(watcher, null), `${t('turnOf', { side: t('tigers') })} · ${t('phasePlacement')}`);
  const over = apply(s, fixture('server.event.resigned', { version: 2 }));
  assert.match(turnText(over, null), /^You (won|lost): /);
});

test('the counters of the only board begin with the phase, a board of two leaves it to its title', () => {
  const g = oneBoard().game;
  assert.deepEqual(counterRows(g, null).map((r) => r[0]), ['phase', 'in-hand', 'eaten', 'trapped', 'ply']);
  assert.deepEqual(counterRows(g, 1).map((r) => r[0]), ['in-hand', 'eaten', 'trapped', 'ply']);
  assert.deepEqual(counterRows(g, 1).find((r) => r[0] === 'ply'), ['ply', t('ply'), `1/${g.ply_limit}`]);
});

test('the tally follows the game number at a table of one board, and the seat sees it as its own', () => {
  const s = oneBoard();
  assert.equal(tallyText(s, false), `${t('game', { n: 1 })} · ${t('tally', { mine: 0, theirs: 0, draws: 0 })}`);
  const won = apply(s, fixture('server.event.resigned.series_decided', { version: 2 }));
  assert.equal(tallyText(won, true), t('tally', { mine: 3, theirs: 0, draws: 0 }));
  const watcher = run(fixture('server.welcome.spectator'), fixture('server.snapshot'));
  assert.equal(tallyText(watcher, true), t('tallyNeutral', { host: 0, guest: 0, draws: 0 }));
});

test('a series and a match are scored from the seat, and named by host and guest for a spectator', () => {
  const series = fixture('server.snapshot.series').state.series;
  assert.equal(seriesText(series, 'host'), t('seriesLine', { games: 4, n: 3, mine: '1½', theirs: '½' }));
  assert.equal(seriesText(series, null), t('seriesLineNeutral', { games: 4, n: 3, host: '1½', guest: '½' }));
  const match = fixture('server.event.resigned.match_decided').state.match;
  assert.equal(matchText(match, 'host'), t('matchWon', { n: 1, mine: '1½', theirs: '½' }));
  assert.equal(matchText(match, null), t('matchWonByHost', { n: 1, host: '1½', guest: '½' }));
});

test('an action at a table of one board is one message that ends with the turn it gives', () => {
  // The tigers reply to c3: the host's turn again.
  const before = oneBoard();
  const msg = fixture('server.event.played', {
    version: 2,
    event: { kind: 'played', side: 'tigers', action: 'a1-b2' },
    state: { ...fixture('server.event.played').state, ply: 2, side_to_move: 'goats' },
  });
  const { m, words, sounds } = said(before, msg);
  assert.equal(m.n, 1);
  assert.equal(m.playing, true);
  assert.equal(words.length, 1);
  assert.match(words[0], /^Tigers/);
  assert.match(words[0], new RegExp(`${t('announceYourTurn').replace('.', '\\.')}$`));
  assert.deepEqual(sounds, ['move', 'turn']);
});

test('an action on a board of two names that board, and its turn', () => {
  const msg = fixture('server.event.played.two_boards');
  // The guest holds the goats on board 2 and placed c3: the host's turn there.
  const guest = said(twoBoards('guest'), msg);
  assert.equal(guest.m.n, 2);
  assert.deepEqual(guest.words, [t('announceOnBoard', { n: 2, text: 'Goats: goat placed on c3.' })]);
  assert.deepEqual(guest.sounds, ['move']);
  const host = said(twoBoards('host'), msg);
  assert.equal(host.m.playing, true);
  assert.deepEqual(host.words, [t('announceOnBoard', { n: 2, text: `Goats: goat placed on c3. ${t('announceYourTurnOnBoard', { n: 2 })}` })]);
  assert.deepEqual(host.sounds, ['move', 'turn']);
});

test('the game that decides a series or a match says so after its result, and sounds the end only', () => {
  const series = said(oneBoard(), fixture('server.event.resigned.series_decided', { version: 2 }));
  assert.equal(series.words.length, 1);
  assert.ok(series.words[0].endsWith(t('seriesWon', { mine: '3', theirs: '0' })), series.words[0]);
  assert.deepEqual(series.sounds, ['end']);
  const msg = fixture('server.event.resigned.match_decided');
  const match = said(twoBoards('guest'), msg);
  assert.equal(match.words.length, 2);
  assert.match(match.words[0], /^Board 2: Tigers resigned\. You won: Goats win/);
  assert.equal(match.words[1], matchText(msg.state.match, 'guest'));
  assert.deepEqual(match.sounds, ['end']);
});

test('a game left on a side\'s turn is said as lost by that side, in both languages', () => {
  const msg = fixture('server.event.abandoned', { version: 2 });
  const english = said(oneBoard(), msg);
  assert.ok(english.words[0].startsWith('Goats made no move for too long and lost the game'), english.words[0]);
  assert.deepEqual(english.sounds, ['end']);
  setLang('ne');
  const nepali = said(oneBoard(), msg);
  assert.ok(nepali.words[0].startsWith(t('announceAbandoned', { side: t('goats') })), nepali.words[0]);
  assert.notEqual(nepali.words[0], english.words[0]);
});

test('a rematch is said at a table of one board, and a new match once, for board 1 only', () => {
  const over = apply(oneBoard(), fixture('server.event.resigned', { version: 2 }));
  const one = said(over, fixture('server.event.rematch_started', { version: 5 }));
  assert.deepEqual(one.words, [`${t('announceRematchStarted', { n: 2, side: t('tigers') })}`]);
  const started = fixture('server.event.rematch_started', { version: 50, state: { ...fixture('server.event.rematch_started').state, match: { draws: 0, guest_wins: 0, host_wins: 0, number: 2, result: null } } });
  const two = twoBoards('host');
  assert.deepEqual(said(two, { ...started, board: 1 }).words.slice(0, 1), [t('announceNewMatchStarted', { n: 2 })]);
  assert.ok(!said(two, { ...started, board: 2 }).words.includes(t('announceNewMatchStarted', { n: 2 })), 'said once for the pair');
  // Once board 1 is over, a new match asked by the host is said to the guest, not back to the host.
  const ended = { ...fixture('server.event.resigned', { version: 59 }), board: 1 };
  const asked = { ...fixture('server.event.rematch_offered', { version: 60 }), board: 1 };
  assert.deepEqual(said(apply(twoBoards('guest'), ended), asked).words, [t('announceNewMatchOffered')]);
  assert.deepEqual(said(apply(twoBoards('host'), ended), asked).words, []);
});

test('on joining, the viewer hears where it is their turn', () => {
  assert.equal(joinSaid(oneBoard(), [1]), '', 'the host waits for the tigers');
  const mine = oneBoard();
  assert.equal(joinSaid({ ...mine, game: { ...mine.game, side_to_move: 'goats' } }, [1]), t('announceYourTurn'));
  // The guest holds the tigers on board 1 and the goats on board 2: both are to move.
  assert.equal(joinSaid(twoBoards('guest'), [1, 2]), `${t('announceYourTurnOnBoard', { n: 1 })} ${t('announceYourTurnOnBoard', { n: 2 })}`);
  assert.equal(joinSaid(twoBoards('host'), [1, 2]), '');
});

test('a player hears the opponent leave and come back, a spectator hears neither', () => {
  const absent = fixture('server.presence.absent');
  const at = Date.parse(absent.absent.now);
  const host = oneBoard();
  const away = apply(host, absent, at);
  assert.equal(presenceSaid(host, away, at), t('announceAbsent'));
  assert.equal(presenceSaid(away, away, at + 1000), null, 'said once');
  const back = apply(away, fixture('server.presence'), at + 2000);
  assert.equal(presenceSaid(away, back, at + 2000), t('announceReturned'));
  const watcher = run(fixture('server.welcome.spectator'), fixture('server.snapshot'));
  assert.equal(presenceSaid(watcher, apply(watcher, absent, at), at), null);
});

test('the page title marks the viewer turn, naming the board at a two-board table', () => {
  assert.equal(pageTitle([], false), t('title'));
  assert.equal(pageTitle([1], false), `● ${t('announceYourTurn')} ${t('title')}`);
  assert.equal(pageTitle([2, 1], true), `● ${t('announceYourTurnOnBoard', { n: 2 })} ${t('title')}`);
});

test('in Nepali every message ends with the danda', () => {
  setLang('ne');
  const msg = fixture('server.event.played.two_boards');
  for (const text of [...said(twoBoards('host'), msg).words, ...said(oneBoard(), fixture('server.event.resigned', { version: 2 })).words]) {
    assert.match(text, /।$/);
    assert.doesNotMatch(text, /\./);
  }
});
