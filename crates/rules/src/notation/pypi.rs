//! The notation of the PyPI `baghchal` package (version 1.0.1): its
//! PGN-like move list and its FEN-like position.
//!
//! The package names a point by two digits, the row counted from the top
//! and then the column from the left: `11` is `a5`, `15` is `e5`, `51` is
//! `a1`, `33` the centre. A move is the piece's letter (`G` goat, `B` bagh,
//! the tiger) and the points: `G33` places a goat on `c3`, `G3334` steps a
//! goat from `c3` to `d3`, `B1122` steps a tiger from `a5` to `b4`, and
//! `Bx1133` jumps from `a5` to `c3`. The move list numbers the goats'
//! moves, each followed by the tigers' answer: `1. G33 B5142 2. G44`; the
//! package marks the end with `#` and `1-0` (goats win), `0-1` (tigers
//! win) or `1/2-1/2`.
//!
//! The position is `BOARD SIDE GOAT_MOVES`: the rows from the top, `B`,
//! `G`, or a digit for that many empty points, `G` or `B` to move, and the
//! goats' moves made (placements included): the start is
//! `B3B/5/5/5/B3B G 0`. It does not say how many goats were captured: that
//! follows from the goats placed and those on the board.
//!
//! The package's rules are the house board and moves with goats first,
//! five captures to win, single jumps, no ply limit, and its own endings:
//! the same board three times once all goats are placed is a draw
//! (whoever is to move), and the game ends as soon as all four tigers are
//! stuck (also when the goats are to move). A game is read under
//! [`rules`], this crate's closest profile, and refused where the package
//! would refuse it.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{next_ply, play, Format, NotationError, WriteError};
use crate::{board, Bitboard, Square};
use crate::{Action, Game, Jump, Position, Reason, Repetition, Rules, RulesOptions, Setup, Side};

/// The goats of the package's game.
const GOATS: u8 = 20;

/// The rules a game of the package is read under: the house rules with
/// the threefold draw and the longest ply limit (the package has none).
///
/// ```
/// assert_eq!(baghchal_rules::notation::pypi::rules().to_string(), "threefold-draw ply-limit=10000");
/// ```
pub fn rules() -> Rules {
    Rules::new(RulesOptions {
        repetition: Repetition::ThreefoldDraw,
        ply_limit: *crate::PLY_LIMIT.end(),
        ..RulesOptions::default()
    })
    .expect("a valid profile")
}

/// The package's name of a point.
///
/// ```
/// use baghchal_rules::{notation::pypi, Square};
/// assert_eq!(pypi::point(Square::A5), "11");
/// assert_eq!(pypi::point(Square::A1), "51");
/// assert_eq!(pypi::point(Square::D2), "44");
/// ```
pub fn point(square: Square) -> String {
    format!("{}{}", 5 - square.row(), square.column() + 1)
}

/// The point the package names by these two digits.
fn square(row: u8, column: u8) -> Option<Square> {
    if (1..=5).contains(&row) && (1..=5).contains(&column) {
        Square::from_coords(column - 1, 5 - row)
    } else {
        None
    }
}

/// An action in the package's notation, played by `side`; `None` for a
/// chain of jumps, which the package does not have.
///
/// ```
/// use baghchal_rules::{notation::pypi, Side};
/// assert_eq!(pypi::write_move(&"c3".parse().unwrap(), Side::Goat).unwrap(), "G33");
/// assert_eq!(pypi::write_move(&"a1xc3".parse().unwrap(), Side::Tiger).unwrap(), "Bx5133");
/// ```
pub fn write_move(action: &Action, side: Side) -> Option<String> {
    let letter = match side {
        Side::Goat => 'G',
        Side::Tiger => 'B',
    };
    match action {
        Action::Place(to) => Some(format!("G{}", point(*to))),
        Action::Step { from, to } => Some(format!("{letter}{}{}", point(*from), point(*to))),
        Action::Jump(j) if j.len() == 1 => Some(format!("Bx{}{}", point(j.from()), point(j.to()))),
        Action::Jump(_) => None,
    }
}

/// A move of the package's notation: the side it names and the action.
fn read_move(text: &str) -> Option<(Side, Action)> {
    let (side, rest) = match text.as_bytes().first()? {
        b'G' => (Side::Goat, &text[1..]),
        b'B' => (
            Side::Tiger,
            text[1..].strip_prefix('x').unwrap_or(&text[1..]),
        ),
        _ => return None,
    };
    let capture = side == Side::Tiger && text[1..].starts_with('x');
    let digits: Vec<u8> = rest.bytes().map(|b| b.wrapping_sub(b'0')).collect();
    let squares = digits
        .chunks(2)
        .map(|pair| match pair {
            [row, column] => square(*row, *column),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    match (side, capture, &squares[..]) {
        (Side::Goat, false, &[to]) => Some((side, Action::Place(to))),
        (_, false, &[from, to]) => Some((side, Action::Step { from, to })),
        (Side::Tiger, true, &[from, to]) => Some((side, Action::Jump(Jump::single(from, to)))),
        _ => None,
    }
}

/// The package's own view of a game: the boards seen since the last
/// placement, to tell when the package ends the game.
#[derive(Default)]
struct Referee {
    boards: HashMap<(Bitboard, Bitboard), u8>,
}

impl Referee {
    /// Notes the position reached by an action.
    fn see(&mut self, position: &Position) {
        if position.in_hand() == 0 {
            *self
                .boards
                .entry((position.tigers(), position.goats()))
                .or_default() += 1;
        }
    }

    /// Whether the package holds the game over in `position`, with the
    /// winner (`None` for a draw) and why.
    fn ending(&self, position: &Position) -> Option<(Option<Side>, &'static str)> {
        let goats_blocked = position.outcome().map(|o| o.reason()) == Some(Reason::GoatsBlocked);
        if position.eaten() >= 5 {
            Some((Some(Side::Tiger), "five goats captured"))
        } else if goats_blocked {
            Some((Some(Side::Tiger), "the goats cannot move"))
        } else if position.trapped_tigers() == 4 {
            Some((Some(Side::Goat), "all four tigers are stuck"))
        } else if self.boards.values().any(|&n| n >= 3) {
            Some((None, "the same board for the third time"))
        } else {
            None
        }
    }
}

/// The package's result mark.
fn mark(winner: Option<Side>) -> &'static str {
    match winner {
        Some(Side::Goat) => "1-0",
        Some(Side::Tiger) => "0-1",
        None => "1/2-1/2",
    }
}

/// Whether the package can hold a game of `rules`: its variant.
fn check_expressible(rules: &Rules) -> Result<(), WriteError> {
    let fail = |reason: &str| {
        Err(WriteError {
            format: Format::Pypi,
            reason: reason.to_owned(),
        })
    };
    if rules.tigers() != 4 {
        return fail("has no three-tiger game");
    }
    if rules.first() != Side::Goat {
        return fail("always starts with the goats");
    }
    if rules.goats_to_win() != 5 {
        return fail("always plays to five captures");
    }
    if rules.multi_jump() {
        return fail("has no multi-jump variant");
    }
    Ok(())
}

/// Writes `game` as the package's move list.
///
/// ```
/// use baghchal_rules::{notation::pypi, Game, Rules};
/// let mut game = Game::new(Rules::default());
/// for a in ["c3", "a1-b2", "d4"] {
///     game.play(a.parse().unwrap()).unwrap();
/// }
/// assert_eq!(pypi::write(&game).unwrap(), "1. G33 B5142 2. G24");
/// ```
pub fn write(game: &Game) -> Result<String, WriteError> {
    check_expressible(game.rules())?;
    if game.start().setup() != Setup::start(game.rules()) {
        return Err(WriteError {
            format: Format::Pypi,
            reason: "has move lists from the start position only".into(),
        });
    }
    let mut referee = Referee::default();
    let mut position = game.start().clone();
    let mut text = String::new();
    let mut goat_moves = 0;
    for action in game.actions() {
        if let Some((_, why)) = referee.ending(&position) {
            return Err(WriteError {
                format: Format::Pypi,
                reason: format!(
                    "ends this game at ply {} ({why}), before its last actions",
                    position.ply()
                ),
            });
        }
        let side = position.side_to_move();
        let written = write_move(action, side).ok_or_else(|| WriteError {
            format: Format::Pypi,
            reason: "has no chains of jumps".into(),
        })?;
        if !text.is_empty() {
            text.push(' ');
        }
        if side == Side::Goat {
            goat_moves += 1;
            let _ = write!(text, "{goat_moves}. ");
        }
        text.push_str(&written);
        position.play_unchecked(*action);
        referee.see(&position);
    }
    if let Some((winner, _)) = referee.ending(&position) {
        let _ = write!(text, "# {}", mark(winner));
    }
    Ok(text)
}

/// Reads a game of the package: a move list from the start, or a single
/// position (see [`read_fen`]). Each action is checked under [`rules`] and
/// the package's own endings; a result mark must be the package's.
///
/// ```
/// use baghchal_rules::notation::pypi;
/// let game = pypi::read("1. G33 B5142 2. G24").unwrap();
/// assert_eq!(game.actions().len(), 3);
/// let err = pypi::read("1. G33 B5142 2. B4233").unwrap_err();
/// assert_eq!(err.to_string(), "line 1, ply 3: B4233: it is the goats' turn");
/// ```
pub fn read(text: &str) -> Result<Game, NotationError> {
    // A position's board has rows separated by '/'; a move list's first
    // word is a move number.
    if text
        .split_whitespace()
        .next()
        .is_some_and(|w| w.contains('/'))
    {
        return read_fen(text).map(Game::from_position);
    }
    let mut game = Game::new(rules());
    let mut referee = Referee::default();
    let mut goat_moves = 0u32;
    let mut numbered = false;
    let mut result: Option<&str> = None;
    let mut result_line = 1;
    let mut ended = false;
    for (line, token) in tokens(text) {
        let syntax = |reason: String| NotationError::Syntax { line, reason };
        if let Some(found) = result {
            return Err(syntax(format!("nothing may follow the result {found}")));
        }
        if ended {
            match token {
                "1-0" | "0-1" | "1/2-1/2" => {
                    result = Some(token);
                    result_line = line;
                    continue;
                }
                _ => return Err(syntax(format!("{token} after the end mark #"))),
            }
        }
        if token == "#" {
            ended = true;
            continue;
        }
        if let Some(number) = token.strip_suffix('.') {
            let expected = goat_moves + 1;
            if numbered || number.parse::<u32>().ok() != Some(expected) {
                return Err(syntax(format!(
                    "expected the goats' move number {expected}., found {token}"
                )));
            }
            numbered = true;
            continue;
        }
        let Some((side, action)) = read_move(token) else {
            return Err(syntax(format!(
                "{token} is not a move: write G33, G3334, B1122 or Bx1133"
            )));
        };
        let ply = next_ply(&game);
        let illegal = |reason: String| NotationError::Illegal {
            line,
            ply,
            action: token.to_owned(),
            reason,
        };
        if let Some((_, why)) = referee.ending(game.position()) {
            return Err(illegal(format!(
                "the package ends the game before it: {why}"
            )));
        }
        let to_move = game.position().side_to_move();
        if side != to_move && !game.is_finished() {
            return Err(illegal(format!("it is the {to_move}' turn")));
        }
        if side == Side::Goat {
            if !numbered {
                return Err(syntax(format!(
                    "the goats' move {token} needs its number {}. before it",
                    goat_moves + 1
                )));
            }
            goat_moves += 1;
            numbered = false;
        }
        check_line(&action).map_err(illegal)?;
        play(&mut game, action, token, line)?;
        referee.see(game.position());
    }
    if numbered {
        return Err(NotationError::Syntax {
            line: text.lines().count().max(1),
            reason: format!("move number {}. has no move", goat_moves + 1),
        });
    }
    if let Some(found) = result {
        let ending = referee.ending(game.position());
        if ending.map(|(w, _)| mark(w)) != Some(found) {
            return Err(NotationError::Inconsistent {
                line: result_line,
                ply: u32::from(game.position().ply()),
                reason: format!("the result {found} does not follow from the moves"),
            });
        }
    }
    Ok(game)
}

/// Refuses a step or a jump that no line of the board makes.
fn check_line(action: &Action) -> Result<(), String> {
    let fits = match action {
        Action::Place(_) => true,
        Action::Step { from, to } => board::is_line(*from, *to),
        Action::Jump(j) => board::jump_over(j.from(), j.to()).is_some(),
    };
    if fits {
        Ok(())
    } else {
        Err(crate::IllegalAction::NotALine.to_string())
    }
}

/// The tokens of a move list with their lines: move numbers (`3.`),
/// moves, the end mark `#` and results, however they are spaced.
fn tokens(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for word in line.split_whitespace() {
            let mut rest = word;
            while !rest.is_empty() {
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 && rest.as_bytes().get(digits) == Some(&b'.') {
                    out.push((n + 1, &rest[..=digits]));
                    rest = &rest[digits + 1..];
                } else if let Some(at) = rest.find('#') {
                    if at > 0 {
                        out.push((n + 1, &rest[..at]));
                    }
                    out.push((n + 1, "#"));
                    rest = &rest[at + 1..];
                } else {
                    out.push((n + 1, rest));
                    rest = "";
                }
            }
        }
    }
    out
}

/// Writes `position` as the package's position text. The package counts
/// goat moves rather than plies: a position read from elsewhere is given
/// the count its placements and ply say.
///
/// ```
/// use baghchal_rules::{notation::pypi, Position};
/// assert_eq!(pypi::write_fen(&Position::default()).unwrap(), "B3B/5/5/5/B3B G 0");
/// ```
pub fn write_fen(position: &Position) -> Result<String, WriteError> {
    check_expressible(position.rules())?;
    let mut text = String::new();
    for row in (0..5).rev() {
        let mut empty = 0;
        for column in 0..5 {
            let square = Square::from_coords(column, row).expect("on the board");
            let piece = match position.piece_at(square) {
                Some(Side::Tiger) => 'B',
                Some(Side::Goat) => 'G',
                None => {
                    empty += 1;
                    continue;
                }
            };
            if empty > 0 {
                let _ = write!(text, "{empty}");
                empty = 0;
            }
            text.push(piece);
        }
        if empty > 0 {
            let _ = write!(text, "{empty}");
        }
        if row > 0 {
            text.push('/');
        }
    }
    let (side, by_ply) = match position.side_to_move() {
        Side::Goat => ('G', position.ply() / 2),
        Side::Tiger => ('B', position.ply().div_ceil(2)),
    };
    let placed = u16::from(GOATS - position.in_hand());
    let goat_moves = if position.in_hand() > 0 {
        placed
    } else {
        by_ply.max(placed)
    };
    let _ = write!(text, " {side} {goat_moves}");
    Ok(text)
}

/// Reads the package's position text under [`rules`]. Goats captured
/// follow from the goats placed and those on the board; the ply from the
/// goats' moves and the side to move.
///
/// ```
/// use baghchal_rules::notation::pypi;
/// let p = pypi::read_fen("B3B/5/2G2/5/B3B B 1").unwrap();
/// assert_eq!(p.to_string(), "T...T/...../..G../...../T...T t 19 0 1");
/// ```
pub fn read_fen(text: &str) -> Result<Position, NotationError> {
    let syntax = |reason: &str| NotationError::Syntax {
        line: 1,
        reason: reason.to_owned(),
    };
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [board, side, moves] = fields[..] else {
        return Err(syntax(
            "a position is BOARD SIDE GOAT_MOVES, as in B3B/5/5/5/B3B G 0",
        ));
    };
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != 5 {
        return Err(syntax("the board has five rows separated by '/'"));
    }
    let mut tigers = Bitboard::EMPTY;
    let mut goats = Bitboard::EMPTY;
    for (i, row) in rows.iter().enumerate() {
        let mut column = 0u8;
        for c in row.chars() {
            let at = Square::from_coords(column, 4 - i as u8);
            match (c, at) {
                ('B', Some(sq)) => tigers = tigers.with(sq),
                ('G', Some(sq)) => goats = goats.with(sq),
                ('1'..='5', _) => column += c as u8 - b'1',
                _ => {
                    return Err(syntax(&format!(
                        "row {} of the board is not five points of B, G and digits",
                        i + 1
                    )))
                }
            }
            column += 1;
            if column > 5 {
                break;
            }
        }
        if column != 5 {
            return Err(syntax(&format!(
                "row {} of the board is not five points long",
                i + 1
            )));
        }
    }
    let side = match side {
        "G" => Side::Goat,
        "B" => Side::Tiger,
        _ => return Err(syntax("the side to move is G or B")),
    };
    let goat_moves: u16 = moves
        .parse()
        .map_err(|_| syntax("the goats' moves made is not a number"))?;
    let placed = goat_moves.min(u16::from(GOATS));
    let in_hand = GOATS - placed as u8;
    let on_board = goats.count() as u16;
    let eaten = u16::from(GOATS) - u16::from(in_hand) - on_board.min(placed);
    if on_board > placed {
        return Err(NotationError::Start {
            line: 1,
            reason: format!("{on_board} goats on the board but only {placed} placed"),
        });
    }
    if side == Side::Tiger && goat_moves == 0 {
        return Err(NotationError::Start {
            line: 1,
            reason: "the tigers move only after the goats' first move".into(),
        });
    }
    let ply = match side {
        Side::Goat => 2 * u32::from(goat_moves),
        Side::Tiger => 2 * u32::from(goat_moves) - 1,
    };
    let ply = u16::try_from(ply).map_err(|_| syntax("the goats' moves made is too large"))?;
    let setup = Setup {
        tigers,
        goats,
        side,
        in_hand,
        eaten: u8::try_from(eaten).unwrap_or(u8::MAX),
        ply,
    };
    Position::from_setup(setup, rules()).map_err(|e| NotationError::Start {
        line: 1,
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(text: &str) -> Position {
        Position::from_text(text, rules()).unwrap()
    }

    #[test]
    fn the_package_ends_the_game_when_all_four_tigers_are_stuck_whoever_is_to_move() {
        let stuck = position("TGGGT/GGGGG/GGGGG/GG.GG/TGGGT g 0 0 100");
        assert!(
            !stuck.is_finished(),
            "the goats still move under these rules"
        );
        assert_eq!(
            Referee::default().ending(&stuck),
            Some((Some(Side::Goat), "all four tigers are stuck"))
        );
    }

    #[test]
    fn a_board_seen_three_times_is_the_packages_draw_whoever_is_to_move() {
        let goats = position("T...T/GGGGG/GG.GG/GGGGG/TG.GT g 0 4 100");
        let tigers = position("T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 101");
        let mut referee = Referee::default();
        for seen in [&goats, &tigers] {
            referee.see(seen);
            assert_eq!(referee.ending(&goats), None);
        }
        referee.see(&goats);
        assert_eq!(
            referee.ending(&goats),
            Some((None, "the same board for the third time"))
        );
    }
}
