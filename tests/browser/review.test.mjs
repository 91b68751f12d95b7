// Unit tests of the review's pure part (static/review.js) and of the
// replay of a move list (static/replay.js), from the protocol's golden
// fixtures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markOf, marks, graph, summary, turningPoint, score } from '../../static/review.js';
import { positions, startPosition } from '../../static/replay.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'protocol');
/** @param {string} name */
const fixture = (name) => JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8'));

test('each mark starts at its documented cost', () => {
  assert.equal(markOf(0), null);
  assert.equal(markOf(299), null);
  assert.equal(markOf(300), 'inaccuracy');
  assert.equal(markOf(999), 'inaccuracy');
  assert.equal(markOf(1000), 'mistake');
  assert.equal(markOf(2999), 'mistake');
  assert.equal(markOf(3000), 'blunder');
  assert.equal(markOf(29993), 'blunder');
});

test('the fixture game turns where the tablebase win became a draw', () => {
  const { actions } = fixture('http.game_analysis');
  assert.deepEqual([...marks(actions)], [[61, 'blunder']]);
  assert.deepEqual(summary(actions).tigers, { inaccuracy: 0, mistake: 0, blunder: 1 });
  assert.deepEqual(summary(actions).goats, { inaccuracy: 0, mistake: 0, blunder: 0 });
  assert.equal(turningPoint(actions)?.action, 'b2-c3');
});

test('the graph has one point per action, for the goats, exact where the tablebase speaks', () => {
  const { actions } = fixture('http.game_analysis');
  const points = graph(actions);
  assert.equal(points.length, actions.length);
  // The goats' placement left them 0.31 goats down: a search's estimate.
  assert.ok(points[0].y < 0 && points[0].y > -1);
  assert.equal(points[0].exact, false);
  // The tigers' step gave a drawn position: exact, at the middle.
  assert.equal(points[1].y, 0);
  assert.equal(points[1].exact, true);
  assert.ok(score({ kind: 'win', plies: 3 }) > score({ kind: 'win', plies: 9 }));
});

test('a replayed move list ends where the server says', () => {
  const snap = fixture('server.snapshot');
  const list = positions(startPosition({}), snap.moves);
  assert.equal(list.length, snap.moves.length + 1);
  assert.equal(list[list.length - 1], snap.state.position);
  // Jumps take the goat between, and the counters follow.
  const game = positions(startPosition({}), ['b2', 'a1xc3', 'b3', 'c3xa3', 'd4', 'e5xc3']);
  assert.equal(game[6], 'T..../...../T.T../...../....T g 17 3 6');
  assert.equal(startPosition({ three_tigers: true, first: 'tigers' }), 'T...T/...../...../...../T.... t 16 0 0');
  // A chain of jumps (the multi-jump variant) takes every goat it passes.
  const chain = positions('T..../...G./...../.G.../T...T t 0 0 40', ['a1xc3xe5']);
  assert.equal(chain[1], 'T...T/...../...../...../....T g 0 2 41');
});
