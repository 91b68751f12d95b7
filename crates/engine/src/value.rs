//! What a position is worth to one side: a win or a loss in so many
//! plies, a draw, or the search's estimate.

use std::cmp::Ordering;
use std::fmt;

use crate::search::{WIN, WON};

/// What a position is worth to one side.
///
/// Ordered from that side's point of view: any win beats any score, a
/// shorter win beats a longer one, a longer loss beats a shorter one.
///
/// ```
/// use baghchal_engine::Value;
/// assert!(Value::Win { plies: 3 } > Value::Win { plies: 9 });
/// assert!(Value::Win { plies: 99 } > Value::Score(5_000));
/// assert!(Value::Score(-5_000) > Value::Loss { plies: 40 });
/// assert!(Value::Draw == Value::Score(0).max(Value::Draw).min(Value::Draw));
/// assert_eq!(Value::Win { plies: 4 }.flip(), Value::Loss { plies: 4 });
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Value {
    /// The side wins in this many plies with best play (0: it has won).
    Win {
        /// Plies to the win, counted from the position.
        plies: u16,
    },
    /// The side loses in this many plies against best play (0: it has lost).
    Loss {
        /// Plies to the loss, counted from the position.
        plies: u16,
    },
    /// The game is drawn: by the rules, or by the tablebase's best play
    /// (endless play; a search gives a `Score`).
    Draw,
    /// The search's estimate, in thousandths of a goat (a captured goat is
    /// worth 1000); positive is good for the side.
    Score(i32),
}

impl Value {
    /// The value for the other side.
    pub fn flip(self) -> Value {
        match self {
            Value::Win { plies } => Value::Loss { plies },
            Value::Loss { plies } => Value::Win { plies },
            Value::Draw => Value::Draw,
            Value::Score(s) => Value::Score(-s),
        }
    }

    /// One number on the search's scale, for comparing and plotting: wins
    /// are near +30000, losses near -30000, a draw is 0.
    pub fn score(self) -> i32 {
        match self {
            Value::Win { plies } => WIN - plies as i32,
            Value::Loss { plies } => -WIN + plies as i32,
            Value::Draw => 0,
            Value::Score(s) => s,
        }
    }

    /// A search score read back as a value.
    pub(crate) fn from_score(score: i32) -> Value {
        if score > WON {
            Value::Win {
                plies: (WIN - score) as u16,
            }
        } else if score < -WON {
            Value::Loss {
                plies: (WIN + score) as u16,
            }
        } else {
            Value::Score(score)
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        self.score().cmp(&other.score())
    }
}

impl fmt::Display for Value {
    /// `win 12`, `loss 3`, `draw`, or a score in goats such as `+1.25`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win { plies } => write!(f, "win {plies}"),
            Value::Loss { plies } => write!(f, "loss {plies}"),
            Value::Draw => f.write_str("draw"),
            Value::Score(s) => write!(f, "{:+.2}", *s as f64 / 1000.0),
        }
    }
}
