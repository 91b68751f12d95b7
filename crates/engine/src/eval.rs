//! The static evaluation: what a position is worth to the side to move
//! when the search stops, in thousandths of a goat.

use baghchal_rules::Side;

use crate::board::{bits, neighbours, Board};

/// One goat eaten.
pub(crate) const GOAT: i32 = 1000;

/// The weights of the evaluation's terms, from the tigers' point of view.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Weights {
    /// Per tiger move (step or jump) available.
    pub mobility: i32,
    /// Per tiger with no move at all.
    pub trapped: i32,
    /// Per tiger with exactly one move.
    pub cornered: i32,
    /// Per goat that a tiger could capture now.
    pub threat: i32,
    /// Per goat threatened beyond the first, when the goats are to move
    /// (they can save only one).
    pub fork: i32,
    /// Per goat standing on the board's edge (safe from most jumps).
    pub edge_goat: i32,
    /// Per goat with no goat or edge behind it in any line from a tiger.
    pub empty_near_tiger: i32,
    /// Per goat a tiger could capture after one step.
    pub latent: i32,
}

/// The tuned weights.
pub(crate) const WEIGHTS: Weights = Weights {
    mobility: 25,
    trapped: -260,
    cornered: -70,
    threat: 160,
    fork: 450,
    edge_goat: -12,
    empty_near_tiger: 8,
    latent: 40,
};

/// The edge of the board: rows 1 and 5, columns a and e.
const EDGE: u32 = 0b11111_10001_10001_10001_11111;

/// The value of `board` for the side to move.
pub(crate) fn evaluate(board: &Board, w: &Weights) -> i32 {
    let (moves, trapped, cornered) = board.tiger_mobility();
    let capturable = board.capturable();
    let threats = capturable.count_ones() as i32;
    let mut tiger = GOAT * board.eaten as i32
        + w.mobility * moves as i32
        + w.trapped * trapped as i32
        + w.cornered * cornered as i32
        + w.threat * threats
        + w.edge_goat * (board.goats & EDGE).count_ones() as i32
        + w.latent * (board.latent() & !capturable).count_ones() as i32;
    if board.side == Side::Goat && threats > 1 {
        tiger += w.fork * (threats - 1);
    }
    let mut near = 0;
    for t in bits(board.tigers) {
        near |= neighbours(t);
    }
    tiger += w.empty_near_tiger * (near & board.empty()).count_ones() as i32;
    match board.side {
        Side::Tiger => tiger,
        Side::Goat => -tiger,
    }
}
