// A game's positions ply by ply, drawn from its actions. This is not the
// rules: it never decides what is legal (the server does). It only moves
// the pieces an action names, the way the move list is read: a placement
// puts a goat on its point, a step moves the piece, a jump moves the tiger
// and takes the goat between each two of its points.

/** @typedef {import('./wire.js').Variant} Variant */

const FILES = 'abcde';

/**
 * The start position's text for a table's variant: four tigers on the
 * corners and 20 goats in hand, or three tigers (a1, a5, e5) and 16 goats.
 * @param {Variant | undefined} variant
 */
export function startPosition(variant) {
  const side = variant?.first === 'tigers' ? 't' : 'g';
  if (variant?.three_tigers) return `T...T/...../...../...../T.... ${side} 16 0 0`;
  return `T...T/...../...../...../T...T ${side} 20 0 0`;
}

/**
 * @param {string} sq
 * @returns {[number, number]} row index from the top (0 = row 5), column index
 */
function cell(sq) {
  return [5 - Number(sq[1]), FILES.indexOf(sq[0])];
}

/**
 * The position text after each ply: element `k` is the position after the
 * first `k` actions, element 0 the start.
 * @param {string} start position text
 * @param {string[]} actions
 * @returns {string[]}
 */
export function positions(start, actions) {
  const [board, side0, hand0, eaten0, ply0] = start.split(' ');
  const grid = board.split('/').map((row) => [...row]);
  let side = side0;
  let inHand = Number(hand0);
  let eaten = Number(eaten0);
  let ply = Number(ply0);
  const text = () => `${grid.map((r) => r.join('')).join('/')} ${side} ${inHand} ${eaten} ${ply}`;
  const out = [text()];
  for (const action of actions) {
    if (action.includes('x') || action.includes('-')) {
      const points = action.split(/[-x]/);
      const [fr, fc] = cell(points[0]);
      const piece = grid[fr]?.[fc] ?? '.';
      if (grid[fr]) grid[fr][fc] = '.';
      for (let i = 1; i < points.length; i++) {
        const [ar, ac] = cell(points[i - 1]);
        const [br, bc] = cell(points[i]);
        if (Math.abs(ar - br) === 2 || Math.abs(ac - bc) === 2) {
          const row = grid[(ar + br) / 2];
          if (row && row[(ac + bc) / 2] === 'G') {
            row[(ac + bc) / 2] = '.';
            eaten += 1;
          }
        }
      }
      const [tr, tc] = cell(points[points.length - 1]);
      if (grid[tr]) grid[tr][tc] = piece;
    } else {
      const [r, c] = cell(action);
      if (grid[r]) grid[r][c] = 'G';
      inHand = Math.max(0, inHand - 1);
    }
    side = side === 'g' ? 't' : 'g';
    ply += 1;
    out.push(text());
  }
  return out;
}
