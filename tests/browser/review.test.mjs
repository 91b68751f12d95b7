// Unit tests of the review's pure part (static/review.js) and of the
// replay of a move list (static/replay.js), from the protocol's golden
// fixtures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markOf, marks, graph, summary, turningPoint, goatsPercent, movementFrom } from '../../static/review.js';
import { positions, startPosition } from '../../static/replay.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'protocol');
/** @param {string} name */
const fixture = (name) => JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8'));

test('each mark starts at its documented share of the game given away', () => {
  assert.equal(markOf(0), null);
  assert.equal(markOf(4), null);
  assert.equal(markOf(5), 'inaccuracy');
  assert.equal(markOf(9), 'inaccuracy');
  assert.equal(markOf(10), 'mistake');
  assert.equal(markOf(14), 'mistake');
  assert.equal(markOf(15), 'blunder');
  assert.equal(markOf(50), 'blunder');
});

test('the fixture game turns where a solved draw became a proved loss', () => {
  const { actions } = fixture('http.game_analysis');
  assert.deepEqual([...marks(actions)], [[0, 'inaccuracy'], [38, 'blunder'], [61, 'blunder'], [62, 'blunder']]);
  assert.deepEqual(summary(actions).tigers, { inaccuracy: 0, mistake: 0, blunder: 1 });
  assert.deepEqual(summary(actions).goats, { inaccuracy: 1, mistake: 0, blunder: 2 });
  // The first action that turned a solved or proved result: the goats'
  // last placement, from a solved draw into a proved loss.
  assert.equal(turningPoint(actions)?.action, 'd1');
  // An estimate that loses a little is no turn.
  assert.equal(turningPoint(actions.slice(0, 1)), null);
});

test('the graph shows the goats\' share of the game, with the kind of each value', () => {
  const { actions } = fixture('http.game_analysis');
  const points = graph(actions);
  assert.equal(points.length, actions.length);
  // The goats' placement: an estimate, their winning chance.
  assert.equal(points[0].kind, 'estimate');
  assert.equal(points[0].y, actions[0].after.goats_percent / 50 - 1);
  // The goats' last placement lost, proved: a tigers' win at the bottom.
  assert.equal(points[1].kind, 'proved');
  assert.equal(points[1].y, -1);
  // The tigers' step gave a solved draw: on the draw line.
  assert.equal(points[2].kind, 'solved');
  assert.equal(points[2].y, 0);
  assert.equal(goatsPercent({ kind: 'solved', result: 'loss', plies: 40 }, 'goats'), 0);
  assert.equal(goatsPercent({ kind: 'proved', result: 'loss', plies: 9 }, 'tigers'), 100);
});

test('the movement phase begins after the goats\' last placement', () => {
  assert.equal(movementFrom(['c3', 'a1-b2', 'b4'], 20), null);
  assert.equal(movementFrom(['c3', 'a1-b2', 'b4', 'b2xd4', 'e3'], 3), 5);
  assert.equal(movementFrom(['c3', 'a1-b2', 'b4', 'b2xd4', 'e3', 'e5-e4', 'e3-d3'], 3), 5);
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

test('learn from your mistakes takes a side\'s marked moves and judges an answer against the best value', async () => {
  const { exercises, judge } = await import('../../static/mistakes.js');
  const { actions } = fixture('http.game_analysis');
  assert.deepEqual(exercises(actions, 'goats').map((/** @type {any} */ a) => a.ply), [0, 38, 62]);
  assert.deepEqual(exercises(actions, 'tigers').map((/** @type {any} */ a) => a.ply), [61]);
  assert.equal(exercises(actions, null).length, 4);
  /** @type {import('../../static/wire.js').ActionValue[]} */
  const legal = [
    { action: 'c1-b1', evaluation: { kind: 'solved', result: 'draw', plies: 0 } },
    { action: 'e2-e3', evaluation: { kind: 'estimate', goats_percent: 47, score: -400 } },
    { action: 'c1-d1', evaluation: { kind: 'proved', result: 'loss', plies: 40 } },
  ];
  assert.equal(judge(legal, 'c1-b1', 'c1-d1', 'goats').verdict, 'good');
  assert.equal(judge(legal, 'e2-e3', 'c1-d1', 'goats').verdict, 'good', 'within 5 points of the draw');
  assert.equal(judge(legal, 'c1-d1', 'c1-d1', 'goats').verdict, 'played');
  assert.equal(judge(legal.slice(0, 1).concat(legal.slice(2)), 'c1-d1', 'b2-b1', 'goats').verdict, 'worse');
});

test('a proved value that differs from the tablebase\'s names both', async () => {
  const { valueText } = await import('../../static/words.js');
  const { flip } = await import('../../static/review.js');
  const { setLang } = await import('../../static/i18n.js');
  const { actions } = fixture('http.game_analysis');
  const d1 = actions.find((/** @type {{action: string}} */ a) => a.action === 'd1');
  assert.equal(
    valueText(d1.after, 'goats'),
    'a loss within 22 plies, proved under the house rules (the tablebase says a loss in 28 plies for this board; the repetition rule makes it sooner)',
  );
  // Seen from the tigers: both values turn over.
  assert.equal(
    valueText(flip(d1.after), 'tigers'),
    'a win within 22 plies, proved under the house rules (the tablebase says a win in 28 plies for this board; the repetition rule makes it sooner)',
  );
  // A proved value like the tablebase's says nothing more.
  assert.equal(valueText({ kind: 'proved', result: 'win', plies: 7 }, 'tigers'), 'a win within 7 plies, proved under the house rules');
  setLang('ne');
  try {
    assert.match(valueText(d1.after, 'goats'), /तालिका/);
  } finally {
    setLang('en');
  }
});
