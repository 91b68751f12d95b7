//! The goats' placement book: placements chosen offline by a search far
//! deeper than any level's, for positions of the placement phase that
//! the top level reaches as the goats under the house rules.
//!
//! A level's search sees some 11 plies in the placement phase; some of
//! its placements give a goat away to a plan of the tigers that only a
//! deeper search sees (after a3 a1-b1 a4 b1-c1, the placement b2). The
//! book holds, for each of its positions, the action of a search with ten
//! times the top level's nodes, and the top level plays it instead of
//! searching. It is made by `baghchal book` from recorded games and
//! shipped in the engine (`data/placement.book`).
//!
//! Positions are stored up to the board's eight symmetries: an entry
//! covers its position turned and mirrored. The text format, one position
//! a line, is
//!
//! ```text
//! baghchal-placement-book 1 ENTRIES
//! BOARD IN_HAND EATEN ACTION VALUE
//! ...
//! end CHECKSUM
//! ```
//!
//! where `BOARD` is the position's board in the setup text's notation
//! (the goats to move, in its canonical orientation), `ACTION` the
//! placement, `VALUE` the deep search's score of it for the goats in
//! thousandths of a goat, and `CHECKSUM` the FNV-1a hash (64 bits, hex)
//! of every entry line and its newline. Lines starting with `#` are
//! comments. A file that fails any check is refused whole.

use std::fmt;

use baghchal_rules::{Action, Bitboard, Position, Rules, Setup, Side, Square};
// The tablebase's symmetries (`SYMMETRIES[s][sq]`), so that both reduce
// positions the same way.
use baghchal_tablebase::symmetry::{transform, SQUARES as SYMMETRIES};

/// The first line's first word, and the format's version.
const MAGIC: &str = "baghchal-placement-book";
const VERSION: u32 = 1;

/// The point that symmetry `s` sends to `sq` (its inverse's image).
fn preimage(sq: u8, s: usize) -> u8 {
    SYMMETRIES[s]
        .iter()
        .position(|&to| to == sq)
        .map_or(sq, |from| from as u8)
}

/// A position of the goats' placement, as the book keys it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
struct Key(u64);

impl Key {
    fn of(tigers: u32, goats: u32, in_hand: u8, eaten: u8) -> Key {
        Key(tigers as u64 | (goats as u64) << 25 | (in_hand as u64) << 50 | (eaten as u64) << 55)
    }
}

/// The canonical key of a placement position and the symmetry that takes
/// the position to it (the first of the smallest image).
fn canonical(tigers: u32, goats: u32, in_hand: u8, eaten: u8) -> (Key, usize) {
    (0..8)
        .map(|s| {
            (
                Key::of(transform(tigers, s), transform(goats, s), in_hand, eaten),
                s,
            )
        })
        .min()
        .unwrap_or((Key::of(tigers, goats, in_hand, eaten), 0))
}

/// Whether the book can speak for `position`: the house rules, the
/// goats to move with goats in hand, and the game not over.
fn covers(position: &Position) -> bool {
    *position.rules() == Rules::default()
        && position.side_to_move() == Side::Goat
        && position.in_hand() > 0
        && !position.is_finished()
}

/// One position of the book, in its canonical orientation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Entry {
    key: Key,
    /// The placement's point, in the canonical orientation.
    to: u8,
    /// The deep search's score of the placement for the goats.
    value: i32,
}

/// A placement the book holds for a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BookMove {
    /// The placement, in the position's own orientation.
    pub action: Action,
    /// The deep search's score of it for the goats, in thousandths of a
    /// goat.
    pub value: i32,
}

/// The goats' placement book (see the module's documentation).
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct PlacementBook {
    /// Sorted by key, one entry a key.
    entries: Vec<Entry>,
}

/// Why a book's text was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum BookError {
    /// The first line is not `baghchal-placement-book 1 ENTRIES`.
    Header,
    /// An entry line that cannot be read (line number from 1).
    Line(usize),
    /// An entry whose position is not a goats' placement position of the
    /// house rules, or whose action is not legal in it.
    Illegal(usize),
    /// A position given twice (up to symmetry), or out of the order of
    /// the keys.
    Duplicate(usize),
    /// A position not in its canonical orientation.
    NotCanonical(usize),
    /// The `end` line is missing or not the last.
    End,
    /// The number of entries differs from the header's.
    Count {
        /// The header's number.
        expected: usize,
        /// The entries read.
        found: usize,
    },
    /// The entries do not hash to the `end` line's checksum.
    Checksum,
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Header => write!(f, "the first line is not `{MAGIC} {VERSION} ENTRIES`"),
            BookError::Line(n) => write!(f, "line {n} is not `BOARD IN_HAND EATEN ACTION VALUE`"),
            BookError::Illegal(n) => {
                write!(f, "line {n} is not a legal placement of the goats")
            }
            BookError::Duplicate(n) => {
                write!(f, "line {n} repeats a position or is out of order")
            }
            BookError::NotCanonical(n) => {
                write!(f, "line {n} is not in its canonical orientation")
            }
            BookError::End => write!(f, "the last line is not `end CHECKSUM`"),
            BookError::Count { expected, found } => {
                write!(f, "{found} entries where the header says {expected}")
            }
            BookError::Checksum => write!(f, "the entries do not match the checksum"),
        }
    }
}

impl std::error::Error for BookError {}

/// FNV-1a, 64 bits.
fn fnv(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

impl PlacementBook {
    /// An empty book.
    pub fn new() -> PlacementBook {
        PlacementBook::default()
    }

    /// The book shipped with the engine.
    pub fn shipped() -> &'static PlacementBook {
        static SHIPPED: std::sync::OnceLock<PlacementBook> = std::sync::OnceLock::new();
        // The shipped file is checked by a test; were it ever refused,
        // the levels would search instead.
        SHIPPED.get_or_init(|| {
            include_str!("../data/placement.book")
                .parse()
                .unwrap_or_default()
        })
    }

    /// The number of positions (up to symmetry).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The book's placement for `position`, if it holds the position (or
    /// one of its turned or mirrored images).
    ///
    /// ```
    /// use baghchal_engine::PlacementBook;
    /// use baghchal_rules::Position;
    /// let after = |line: &str| {
    ///     let mut position = Position::default();
    ///     for action in line.split(' ') {
    ///         position.play_mut(action.parse().unwrap()).unwrap();
    ///     }
    ///     position
    /// };
    /// let mut book = PlacementBook::new();
    /// book.insert(&after("a3 a1-b1"), "a4".parse().unwrap(), -1900);
    /// // The same line mirrored, on the opposite edge.
    /// let mirrored = book.get(&after("e3 e1-d1")).unwrap();
    /// assert_eq!(mirrored.action.to_string(), "e4");
    /// ```
    pub fn get(&self, position: &Position) -> Option<BookMove> {
        if !covers(position) {
            return None;
        }
        let (key, s) = canonical(
            position.tigers().0,
            position.goats().0,
            position.in_hand(),
            position.eaten(),
        );
        let i = self.entries.binary_search_by_key(&key, |e| e.key).ok()?;
        let entry = self.entries[i];
        let to = Square::new(preimage(entry.to, s))?;
        let action = Action::Place(to);
        position.is_legal(&action).then_some(BookMove {
            action,
            value: entry.value,
        })
    }

    /// `position` turned into the book's canonical orientation, if the
    /// book covers it: positions that are turned or mirrored images of
    /// each other have the same one.
    ///
    /// ```
    /// use baghchal_engine::PlacementBook;
    /// use baghchal_rules::Position;
    /// let mut left = Position::default();
    /// left.play_mut("a3".parse().unwrap()).unwrap();
    /// left.play_mut("a1-b1".parse().unwrap()).unwrap();
    /// let mut right = Position::default();
    /// right.play_mut("e3".parse().unwrap()).unwrap();
    /// right.play_mut("e1-d1".parse().unwrap()).unwrap();
    /// assert_eq!(PlacementBook::canonical(&left), PlacementBook::canonical(&right));
    /// ```
    pub fn canonical(position: &Position) -> Option<Position> {
        if !covers(position) {
            return None;
        }
        let (key, _) = canonical(
            position.tigers().0,
            position.goats().0,
            position.in_hand(),
            position.eaten(),
        );
        PlacementBook::position_of(key)
    }

    /// Puts `action` (a legal placement of the goats) into the book for
    /// `position` and its symmetric images, replacing what the book held
    /// for it; returns whether it was taken (not when the book does not
    /// cover the position or the action is not a legal placement).
    pub fn insert(&mut self, position: &Position, action: Action, value: i32) -> bool {
        let Action::Place(to) = action else {
            return false;
        };
        if !covers(position) || !position.is_legal(&action) {
            return false;
        }
        let (key, s) = canonical(
            position.tigers().0,
            position.goats().0,
            position.in_hand(),
            position.eaten(),
        );
        let entry = Entry {
            key,
            to: SYMMETRIES[s][to.index()],
            value,
        };
        match self.entries.binary_search_by_key(&key, |e| e.key) {
            Ok(i) => self.entries[i] = entry,
            Err(i) => self.entries.insert(i, entry),
        }
        true
    }

    /// The position of an entry, in its canonical orientation.
    fn position_of(key: Key) -> Option<Position> {
        let in_hand = (key.0 >> 50 & 0x1f) as u8;
        let eaten = (key.0 >> 55 & 0x7) as u8;
        let total = Rules::default().total_goats();
        let placed = total.checked_sub(in_hand)?;
        let setup = Setup {
            tigers: Bitboard((key.0 & 0x1ff_ffff) as u32),
            goats: Bitboard((key.0 >> 25 & 0x1ff_ffff) as u32),
            side: Side::Goat,
            in_hand,
            eaten,
            ply: 2 * placed as u16,
        };
        Position::from_setup(setup, Rules::default()).ok()
    }
}

impl fmt::Display for PlacementBook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{MAGIC} {VERSION} {}", self.entries.len())?;
        let mut hash = FNV_START;
        for entry in &self.entries {
            let Some(position) = PlacementBook::position_of(entry.key) else {
                continue;
            };
            let setup = position.setup();
            let board = setup.to_string();
            let board = board.split(' ').next().unwrap_or_default();
            let to = Square::new(entry.to).ok_or(fmt::Error)?;
            let line = format!(
                "{board} {} {} {to} {}\n",
                setup.in_hand, setup.eaten, entry.value
            );
            hash = fnv(hash, line.as_bytes());
            f.write_str(&line)?;
        }
        writeln!(f, "end {hash:016x}")
    }
}

impl std::str::FromStr for PlacementBook {
    type Err = BookError;

    fn from_str(text: &str) -> Result<PlacementBook, BookError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(n, l)| (n + 1, l.trim_end_matches('\r')))
            .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty());
        let (_, header) = lines.next().ok_or(BookError::Header)?;
        let expected = match header.split(' ').collect::<Vec<_>>().as_slice() {
            [MAGIC, version, count] if version.parse() == Ok(VERSION) => {
                count.parse::<usize>().map_err(|_| BookError::Header)?
            }
            _ => return Err(BookError::Header),
        };
        let mut entries: Vec<Entry> = Vec::new();
        let mut hash = FNV_START;
        let mut end = None;
        for (n, line) in lines {
            if end.is_some() {
                return Err(BookError::End);
            }
            if let Some(sum) = line.strip_prefix("end ") {
                end = Some(u64::from_str_radix(sum, 16).map_err(|_| BookError::End)?);
                continue;
            }
            let entry = parse_entry(line, n)?;
            if entries.last().is_some_and(|last| last.key >= entry.key) {
                return Err(BookError::Duplicate(n));
            }
            entries.push(entry);
            hash = fnv(hash, line.as_bytes());
            hash = fnv(hash, b"\n");
        }
        let sum = end.ok_or(BookError::End)?;
        if entries.len() != expected {
            return Err(BookError::Count {
                expected,
                found: entries.len(),
            });
        }
        if sum != hash {
            return Err(BookError::Checksum);
        }
        Ok(PlacementBook { entries })
    }
}

/// Reads one entry line (line `n`), in its canonical orientation.
fn parse_entry(line: &str, n: usize) -> Result<Entry, BookError> {
    let fields: Vec<&str> = line.split(' ').collect();
    let [board, in_hand, eaten, action, value] = fields.as_slice() else {
        return Err(BookError::Line(n));
    };
    let in_hand: u8 = in_hand.parse().map_err(|_| BookError::Line(n))?;
    let eaten: u8 = eaten.parse().map_err(|_| BookError::Line(n))?;
    let value: i32 = value.parse().map_err(|_| BookError::Line(n))?;
    let action: Action = action.parse().map_err(|_| BookError::Line(n))?;
    let placed = Rules::default()
        .total_goats()
        .checked_sub(in_hand)
        .ok_or(BookError::Illegal(n))?;
    let text = format!("{board} g {in_hand} {eaten} {}", 2 * placed as u16);
    let position =
        Position::from_text(&text, Rules::default()).map_err(|_| BookError::Illegal(n))?;
    let Action::Place(to) = action else {
        return Err(BookError::Illegal(n));
    };
    if !covers(&position) || !position.is_legal(&action) {
        return Err(BookError::Illegal(n));
    }
    let (key, s) = canonical(position.tigers().0, position.goats().0, in_hand, eaten);
    if s != 0 {
        return Err(BookError::NotCanonical(n));
    }
    Ok(Entry {
        key,
        to: to.index() as u8,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(line: &str) -> Position {
        let mut position = Position::default();
        for action in line.split_whitespace() {
            position.play_mut(action.parse().unwrap()).unwrap();
        }
        position
    }

    fn place(text: &str) -> Action {
        text.parse().unwrap()
    }

    #[test]
    fn every_symmetry_keeps_the_board_lines() {
        for (s, map) in SYMMETRIES.iter().enumerate() {
            let mut seen = [false; 25];
            for (sq, &to) in map.iter().enumerate() {
                let to = to as usize;
                assert!(!seen[to]);
                seen[to] = true;
                // Points with diagonals go to points with diagonals.
                assert_eq!((sq % 5 + sq / 5) % 2, (to % 5 + to / 5) % 2);
                assert_eq!(preimage(to as u8, s) as usize, sq);
            }
        }
    }

    #[test]
    fn an_entry_covers_its_position_turned_and_mirrored() {
        let mut book = PlacementBook::new();
        let position = after("a3 a1-b1 a4 b1-c1");
        assert!(book.insert(&position, place("a1"), 204));
        // The same line played on the opposite edge.
        let mirrored = after("e3 e1-d1 e4 d1-c1");
        assert_eq!(
            book.get(&mirrored),
            Some(BookMove {
                action: place("e1"),
                value: 204
            })
        );
        // Turned a quarter: the line on the bottom edge.
        let turned = after("c1 a1-a2 d1 a2-a3");
        assert_eq!(book.get(&turned).map(|m| m.action), Some(place("a1")));
        assert_eq!(book.get(&after("a3 a1-b1 a4 b1-b2")), None);
    }

    #[test]
    fn the_book_speaks_only_for_the_goats_placements_of_the_house_rules() {
        let mut book = PlacementBook::new();
        let tigers_to_move = after("a3");
        assert!(!book.insert(&tigers_to_move, place("a4"), 0));
        let start = Position::default();
        assert!(!book.insert(&start, "a1-a2".parse().unwrap(), 0));
        // A point already taken is not a legal placement.
        assert!(!book.insert(&start, place("a1"), 0));
        assert!(book.is_empty());
        let three = Rules::new(baghchal_rules::RulesOptions {
            three_tigers: true,
            ..Default::default()
        })
        .unwrap();
        assert!(!book.insert(&Position::new(three), place("c3"), 0));
    }

    fn sample() -> PlacementBook {
        let mut book = PlacementBook::new();
        assert!(book.insert(&Position::default(), place("a3"), -1800));
        assert!(book.insert(&after("a3 a1-b1 a4 b1-c1"), place("a1"), -1600));
        assert!(book.insert(&after("c1 a5-b5"), place("d1"), -1900));
        book
    }

    #[test]
    fn a_book_reads_back_what_it_writes() {
        let book = sample();
        let text = book.to_string();
        assert!(text.starts_with("baghchal-placement-book 1 3\n"), "{text}");
        let read: PlacementBook = text.parse().unwrap();
        assert_eq!(read, book);
        assert_eq!(read.to_string(), text);
        // Comments and blank lines are skipped.
        let commented = text.replacen('\n', "\n# a comment\n\n", 1);
        assert_eq!(commented.parse::<PlacementBook>().unwrap(), book);
    }

    #[test]
    fn a_corrupt_book_is_refused() {
        let text = sample().to_string();
        let lines: Vec<&str> = text.lines().collect();
        let join = |ls: &[&str]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
        let parse = |t: &str| t.parse::<PlacementBook>();
        assert_eq!(parse(""), Err(BookError::Header));
        assert_eq!(
            parse(&text.replacen("book 1", "book 2", 1)),
            Err(BookError::Header)
        );
        // A changed value no longer matches the checksum.
        let changed = text.replacen("-1600", "-1601", 1);
        assert_eq!(parse(&changed), Err(BookError::Checksum));
        // A lost entry: the count and the checksum disagree.
        let mut short = lines.clone();
        short.remove(2);
        assert_eq!(
            parse(&join(&short)),
            Err(BookError::Count {
                expected: 3,
                found: 2
            })
        );
        // Cut off before its end.
        assert_eq!(parse(&join(&lines[..3])), Err(BookError::End));
        // An entry given twice.
        let mut twice = lines.clone();
        twice.insert(2, lines[1]);
        assert_eq!(parse(&join(&twice)), Err(BookError::Duplicate(3)));
        // A placement on a tiger, a step, and a line with a field missing.
        for bad in [
            "T...T/...../...../...../T...T 20 0 a1 0",
            "T...T/...../...../...../T...T 20 0 a1-a2 0",
        ] {
            let mut illegal = lines.clone();
            illegal[1] = bad;
            assert_eq!(parse(&join(&illegal)), Err(BookError::Illegal(2)), "{bad}");
        }
        let mut missing = lines.clone();
        missing[1] = "T...T/...../...../...../T...T 20 0 a3";
        assert_eq!(parse(&join(&missing)), Err(BookError::Line(2)));
    }

    #[test]
    fn an_entry_is_read_only_in_its_canonical_orientation() {
        // One position in its eight orientations.
        let images = [
            "a3 a1-b1", "e3 e1-d1", "c1 a1-a2", "c5 a5-a4", "c1 e1-e2", "c5 e5-e4", "e3 e5-d5",
            "a3 a5-b5",
        ];
        let mut canonical = 0;
        for line in images {
            let text = after(line).to_string();
            let board = text.split(' ').next().unwrap();
            match parse_entry(&format!("{board} 19 0 b3 0"), 1) {
                Ok(_) => canonical += 1,
                Err(e) => assert_eq!(e, BookError::NotCanonical(1), "{line}"),
            }
        }
        assert_eq!(canonical, 1);
    }

    #[test]
    fn the_shipped_book_is_read() {
        let text = include_str!("../data/placement.book");
        let book: PlacementBook = text.parse().expect("the shipped book reads");
        assert_eq!(PlacementBook::shipped(), &book);
        assert!(!book.is_empty());
    }
}
