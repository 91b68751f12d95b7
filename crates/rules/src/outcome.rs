//! How a game ends.

use std::fmt;

use crate::Side;

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Reason {
    /// The tigers captured their target number of goats.
    CaptureTarget,
    /// The tigers had no legal action on their turn.
    TigersTrapped,
    /// The goats had no legal action on their turn (the repetition rule
    /// included).
    GoatsBlocked,
    /// The ply limit was reached with no winner.
    PlyLimit,
    /// The same movement-phase position came for the third time (threefold
    /// variant only).
    Threefold,
    /// A player resigned.
    Resignation,
    /// Both players agreed a draw.
    Agreement,
    /// A side's time ran out: the other side wins, or it is a draw when
    /// the other side could not possibly win.
    Timeout,
    /// A player left the game and the other claimed it: a win, or a draw
    /// if that is what the present player claimed.
    Abandoned,
    /// The game was called off before each side had played: no result.
    Aborted,
}

impl Reason {
    /// Every reason, in the order of the endings checks then the players'.
    pub const ALL: [Reason; 10] = [
        Reason::CaptureTarget,
        Reason::TigersTrapped,
        Reason::GoatsBlocked,
        Reason::PlyLimit,
        Reason::Threefold,
        Reason::Resignation,
        Reason::Agreement,
        Reason::Timeout,
        Reason::Abandoned,
        Reason::Aborted,
    ];

    /// A stable snake_case name, used in records and on the wire.
    ///
    /// ```
    /// use baghchal_rules::Reason;
    /// assert_eq!(Reason::TigersTrapped.as_str(), "tigers_trapped");
    /// assert_eq!("ply_limit".parse::<Reason>(), Ok(Reason::PlyLimit));
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::CaptureTarget => "capture_target",
            Reason::TigersTrapped => "tigers_trapped",
            Reason::GoatsBlocked => "goats_blocked",
            Reason::PlyLimit => "ply_limit",
            Reason::Threefold => "threefold",
            Reason::Resignation => "resignation",
            Reason::Agreement => "agreement",
            Reason::Timeout => "timeout",
            Reason::Abandoned => "abandoned",
            Reason::Aborted => "aborted",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a [`Reason`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ParseReasonError;

impl fmt::Display for ParseReasonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown result reason")
    }
}

impl std::error::Error for ParseReasonError {}

impl std::str::FromStr for Reason {
    type Err = ParseReasonError;
    fn from_str(s: &str) -> Result<Reason, ParseReasonError> {
        Reason::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or(ParseReasonError)
    }
}

/// The result of a finished game.
///
/// ```
/// use baghchal_rules::{Outcome, Reason, Side};
/// let o = Outcome::win(Side::Tiger, Reason::CaptureTarget);
/// assert_eq!(o.winner(), Some(Side::Tiger));
/// assert_eq!(o.to_string(), "tigers win: capture_target");
/// assert_eq!(Outcome::draw(Reason::PlyLimit).to_string(), "draw: ply_limit");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    winner: Option<Side>,
    reason: Reason,
}

impl Outcome {
    /// `winner` won for `reason`.
    pub const fn win(winner: Side, reason: Reason) -> Outcome {
        Outcome {
            winner: Some(winner),
            reason,
        }
    }

    /// A draw for `reason`.
    pub const fn draw(reason: Reason) -> Outcome {
        Outcome {
            winner: None,
            reason,
        }
    }

    /// The winner; `None` for a draw.
    pub const fn winner(&self) -> Option<Side> {
        self.winner
    }

    /// Why the game ended.
    pub const fn reason(&self) -> Reason {
        self.reason
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(side) => write!(f, "{side} win: {}", self.reason),
            None => write!(f, "draw: {}", self.reason),
        }
    }
}
