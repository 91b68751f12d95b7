//! The unchecked [`Setup`]: a position as text says it, before the rules
//! check it. Its text form lives in `text.rs`.

#[cfg(doc)]
use crate::Position;
use crate::{Bitboard, Rules, Side};

/// A position as text says it, unchecked: every field is public. It
/// becomes a [`Position`] through [`Position::from_setup`].
///
/// Its text form is `BOARD SIDE IN_HAND EATEN PLY`: the rows from 5 down to
/// 1 separated by `/`, five characters each (`T` tiger, `G` goat, `.`
/// empty), then `g` or `t`, then three numbers.
///
/// ```
/// use baghchal_rules::Setup;
/// let start = "T...T/...../...../...../T...T g 20 0 0";
/// let setup: Setup = start.parse().unwrap();
/// assert_eq!(setup.in_hand, 20);
/// assert_eq!(setup.to_string(), start);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Setup {
    /// Where the tigers stand.
    pub tigers: Bitboard,
    /// Where the goats stand.
    pub goats: Bitboard,
    /// The side to move.
    pub side: Side,
    /// Goats not yet placed.
    pub in_hand: u8,
    /// Goats captured.
    pub eaten: u8,
    /// Half moves played so far.
    pub ply: u16,
}

impl Setup {
    /// The starting setup of `rules`.
    pub fn start(rules: &Rules) -> Setup {
        Setup {
            tigers: rules.tiger_start(),
            goats: Bitboard::EMPTY,
            side: rules.first(),
            in_hand: rules.total_goats(),
            eaten: 0,
            ply: 0,
        }
    }
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::start(&Rules::default())
    }
}
