//! The legal actions grouped as a board shows them.

use crate::{Action, Bitboard, Square};

/// The legal actions of the side to move, grouped as a board shows them:
/// the points where a goat can be placed, and each movable piece with its
/// actions.
///
/// ```
/// use baghchal_rules::Position;
/// let dests = Position::default().destinations();
/// assert_eq!(dests.placements().count(), 21);
/// assert!(dests.pieces().next().is_none());
/// ```
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Destinations {
    placements: Bitboard,
    pieces: Vec<(Square, Vec<Action>)>,
}

impl Destinations {
    /// The empty points where a goat can be placed.
    pub fn placements(&self) -> Bitboard {
        self.placements
    }

    /// Each piece that can move, with its legal actions.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, &[Action])> {
        self.pieces.iter().map(|(sq, a)| (*sq, a.as_slice()))
    }

    /// The points the piece on `from` can end on.
    pub fn targets(&self, from: Square) -> Bitboard {
        self.pieces
            .iter()
            .filter(|(sq, _)| *sq == from)
            .flat_map(|(_, actions)| actions.iter().map(Action::to))
            .fold(Bitboard::EMPTY, Bitboard::with)
    }

    /// Whether there is no legal action at all.
    pub fn is_empty(&self) -> bool {
        self.placements.is_empty() && self.pieces.is_empty()
    }

    /// Groups `actions`, in which each piece's actions come together.
    pub(crate) fn from_actions(actions: Vec<Action>) -> Destinations {
        let mut dests = Destinations::default();
        for action in actions {
            match action {
                Action::Place(to) => dests.placements = dests.placements.with(to),
                _ => {
                    let from = action.from().expect("a move has an origin");
                    match dests.pieces.last_mut() {
                        Some((sq, list)) if *sq == from => list.push(action),
                        _ => dests.pieces.push((from, vec![action])),
                    }
                }
            }
        }
        dests
    }
}
