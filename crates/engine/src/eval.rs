//! The static evaluation: what a position is worth to the side to move
//! when the search stops, in thousandths of a goat.
//!
//! A sum of counted terms, weighted from the tigers' point of view, with
//! one set of weights for the placement and one for the movement phase.
//! The weights were fitted by logistic regression of self-play results on
//! the terms (`baghchal tune`, docs/strength.md), each set scaled so that
//! a goat eaten is worth [`GOAT`].

use baghchal_rules::Side;

use crate::board::{bits, neighbours, Board};

/// One goat eaten.
pub(crate) const GOAT: i32 = 1000;

/// The weights of the evaluation's terms, from the tigers' point of view.
#[derive(Clone, Copy, Debug, PartialEq)]
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
    /// Per goat standing on the board's edge.
    pub edge_goat: i32,
    /// Per empty point next to a tiger.
    pub near_tiger: i32,
    /// Per goat a tiger could capture after one step, and not now.
    pub latent: i32,
}

/// The weights while goats are still to be placed.
pub(crate) const PLACEMENT: Weights = Weights {
    mobility: -100,
    trapped: -550,
    cornered: -67,
    threat: 311,
    fork: 412,
    edge_goat: 281,
    near_tiger: 119,
    latent: 14,
};

/// The weights once every goat is placed.
pub(crate) const MOVEMENT: Weights = Weights {
    mobility: 80,
    trapped: -897,
    cornered: -343,
    threat: 242,
    fork: 800,
    edge_goat: 620,
    near_tiger: 219,
    latent: 569,
};

impl Weights {
    /// The weights in the order of [`TERMS`].
    pub(crate) fn to_array(self) -> [i32; TERMS.len()] {
        [
            self.mobility,
            self.trapped,
            self.cornered,
            self.threat,
            self.fork,
            self.edge_goat,
            self.near_tiger,
            self.latent,
        ]
    }

    /// The weights from an array in the order of [`TERMS`].
    pub(crate) fn from_array(w: [i32; TERMS.len()]) -> Weights {
        Weights {
            mobility: w[0],
            trapped: w[1],
            cornered: w[2],
            threat: w[3],
            fork: w[4],
            edge_goat: w[5],
            near_tiger: w[6],
            latent: w[7],
        }
    }
}

/// The names of the weighted terms, in the order of [`Weights`]' fields.
pub(crate) const TERMS: [&str; 8] = [
    "mobility",
    "trapped",
    "cornered",
    "threat",
    "fork",
    "edge_goat",
    "near_tiger",
    "latent",
];

/// The edge of the board: rows 1 and 5, columns a and e.
const EDGE: u32 = 0b11111_10001_10001_10001_11111;

/// What the evaluation counts on `board`: the goats eaten, then each
/// term in the order of [`TERMS`].
#[inline]
pub(crate) fn terms(board: &Board) -> (i32, [i32; TERMS.len()]) {
    let (moves, trapped, cornered) = board.tiger_mobility();
    let capturable = board.capturable();
    let threats = capturable.count_ones() as i32;
    let fork = if board.side == Side::Goat && threats > 1 {
        threats - 1
    } else {
        0
    };
    let mut near = 0;
    for t in bits(board.tigers) {
        near |= neighbours(t);
    }
    (
        board.eaten as i32,
        [
            moves as i32,
            trapped as i32,
            cornered as i32,
            threats,
            fork,
            (board.goats & EDGE).count_ones() as i32,
            (near & board.empty()).count_ones() as i32,
            (board.latent() & !capturable).count_ones() as i32,
        ],
    )
}

/// The weights of the placement phase or of the movement phase.
#[inline]
pub(crate) fn phase_weights(placement: bool) -> &'static Weights {
    if placement {
        &PLACEMENT
    } else {
        &MOVEMENT
    }
}

/// The weights of the phase of `board`.
#[inline]
pub(crate) fn weights(board: &Board) -> &'static Weights {
    phase_weights(board.in_hand > 0)
}

/// The value of `board` for the side to move.
pub(crate) fn evaluate(board: &Board) -> i32 {
    let (eaten, counts) = terms(board);
    let w = weights(board).to_array();
    let tiger = GOAT * eaten + counts.iter().zip(w).map(|(c, w)| c * w).sum::<i32>();
    match board.side {
        Side::Tiger => tiger,
        Side::Goat => -tiger,
    }
}
