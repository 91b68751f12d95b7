//! OBX 2.0, the notation of baghchal.net: a position a line, with the
//! move that led to it.
//!
//! A line is `BOARD TURN CAPTURED LAST MOVE_NUMBER`, e.g.
//! `TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 1`: the rows separated by `/`,
//! `T` tiger, `G` goat, `X` empty; `g` or `t` to move; `c` and the goats
//! captured; `m` and the last move (`mC3` a placement, `mA1B2` a step or,
//! two points apart on a line, a jump), or `-`; the move number, or `-`.
//!
//! OBX names the columns `A` to `E` from the left like this project, but
//! counts the rows from the top: OBX `A1` is this project's `a5`, `E5` is
//! `e1`, `C3` is `c3`. The board text lists the top row first, as the
//! position text does. The move number counts half moves from 0, like the
//! position text's ply. OBX does not say how many goats are still in hand:
//! they are the rules' goats less those on the board and those captured.
//!
//! A game is its positions, one a line: the first is the start, and each
//! next line's move must be legal from the line before and lead to the
//! board, turn, captures and move number it shows.

use std::fmt::Write as _;

use super::{action_between, next_ply, play, Format, NotationError, WriteError};
use crate::{Action, Bitboard, Game, Position, Rules, Setup, Side, Square};

/// The OBX name of a point.
///
/// ```
/// use baghchal_rules::{notation::obx, Square};
/// assert_eq!(obx::point(Square::A5), "A1");
/// assert_eq!(obx::point(Square::E1), "E5");
/// assert_eq!(obx::point(Square::B4), "B2");
/// ```
pub fn point(square: Square) -> String {
    format!("{}{}", (b'A' + square.column()) as char, 5 - square.row())
}

/// The point of an OBX name.
fn square(text: &str) -> Option<Square> {
    let &[column, row] = text.as_bytes() else {
        return None;
    };
    let column = column.to_ascii_uppercase().checked_sub(b'A')?;
    let row = row.checked_sub(b'1')?;
    if column < 5 && row < 5 {
        Square::from_coords(column, 4 - row)
    } else {
        None
    }
}

/// The last move of a line: one point for a placement, two for a step or
/// a jump.
type Move = (Square, Option<Square>);

/// One line, as written.
struct Line {
    tigers: Bitboard,
    goats: Bitboard,
    side: Side,
    captured: u8,
    last: Option<Move>,
    number: Option<u16>,
}

fn read_line(text: &str, line: usize) -> Result<Line, NotationError> {
    let syntax = |reason: String| NotationError::Syntax { line, reason };
    let fields: Vec<&str> = text.split_whitespace().collect();
    let (board, side, captured, last, number) = match fields[..] {
        [b, s, c, l] => (b, s, c, l, "-"),
        [b, s, c, l, n] => (b, s, c, l, n),
        _ => {
            return Err(syntax(
                "an OBX line is BOARD TURN CAPTURED LAST MOVE_NUMBER, as in \
                 TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0"
                    .into(),
            ))
        }
    };
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != 5 {
        return Err(syntax("the board has five rows separated by '/'".into()));
    }
    let mut tigers = Bitboard::EMPTY;
    let mut goats = Bitboard::EMPTY;
    for (i, row) in rows.iter().enumerate() {
        if row.len() != 5 || !row.is_ascii() {
            return Err(syntax(format!(
                "row {} of the board is not five points",
                i + 1
            )));
        }
        for (column, c) in row.bytes().enumerate() {
            let sq = Square::from_coords(column as u8, 4 - i as u8).expect("on the board");
            match c {
                b'T' => tigers = tigers.with(sq),
                b'G' => goats = goats.with(sq),
                b'X' => {}
                _ => {
                    return Err(syntax(format!(
                        "{} holds {:?}: use T, G or X",
                        point(sq),
                        c as char
                    )))
                }
            }
        }
    }
    let side = match side {
        "g" => Side::Goat,
        "t" => Side::Tiger,
        _ => return Err(syntax(format!("the turn is g or t, not {side}"))),
    };
    let captured = captured
        .strip_prefix('c')
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            syntax(format!(
                "the goats captured are c and a number, not {captured}"
            ))
        })?;
    let last = match last {
        "-" => None,
        m => {
            let bad = || syntax(format!("{m} is not a move: write mC3, mA1B2 or -"));
            let points = m
                .strip_prefix('m')
                .filter(|p| p.is_ascii())
                .ok_or_else(bad)?;
            match points.len() {
                2 => Some((square(points).ok_or_else(bad)?, None)),
                4 => Some((
                    square(&points[..2]).ok_or_else(bad)?,
                    Some(square(&points[2..]).ok_or_else(bad)?),
                )),
                _ => return Err(bad()),
            }
        }
    };
    let number = match number {
        "-" => None,
        n => Some(
            n.parse()
                .map_err(|_| syntax(format!("the move number is a number or -, not {n}")))?,
        ),
    };
    Ok(Line {
        tigers,
        goats,
        side,
        captured,
        last,
        number,
    })
}

/// The position of a line under `rules`. Without a move number, the ply
/// is the least the counters allow.
fn position_of(line: &Line, rules: Rules) -> Result<Position, NotationError> {
    let start = |reason: String| NotationError::Start { reason };
    let on_board = line.goats.count() as u16 + u16::from(line.captured);
    let in_hand = u16::from(rules.total_goats())
        .checked_sub(on_board)
        .ok_or_else(|| {
            start(format!(
                "{on_board} goats on the board and captured, more than the {} of the rules",
                rules.total_goats()
            ))
        })? as u8;
    let placed = u16::from(rules.total_goats() - in_hand);
    let ply = line.number.unwrap_or(if line.side == rules.first() {
        2 * placed
    } else if rules.first() == Side::Goat {
        (2 * placed).saturating_sub(1)
    } else {
        2 * placed + 1
    });
    let setup = Setup {
        tigers: line.tigers,
        goats: line.goats,
        side: line.side,
        in_hand,
        eaten: line.captured,
        ply,
    };
    Position::from_setup(setup, rules).map_err(|e| start(e.to_string()))
}

/// The OBX line of `position`, reached by `last` (`None` for a start).
///
/// ```
/// use baghchal_rules::{notation::obx, Position};
/// let line = obx::write_position(&Position::default(), None).unwrap();
/// assert_eq!(line, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0");
/// ```
pub fn write_position(position: &Position, last: Option<&Action>) -> Result<String, WriteError> {
    let text = position.setup().to_string();
    let board = text.split(' ').next().unwrap_or_default().replace('.', "X");
    let last = match last {
        None => "-".to_owned(),
        Some(Action::Place(to)) => format!("m{}", point(*to)),
        Some(Action::Step { from, to }) => format!("m{}{}", point(*from), point(*to)),
        Some(Action::Jump(j)) if j.len() == 1 => format!("m{}{}", point(j.from()), point(j.to())),
        Some(Action::Jump(_)) => {
            return Err(WriteError {
                format: Format::Obx,
                reason: "has no chains of jumps".into(),
            })
        }
    };
    let side = position.side_to_move().char();
    Ok(format!(
        "{board} {side} c{} {last} {}",
        position.eaten(),
        position.ply()
    ))
}

/// Writes `game` as OBX lines: its start, then the position after each
/// action.
pub fn write(game: &Game) -> Result<String, WriteError> {
    let mut position = game.start().clone();
    let mut text = write_position(&position, None)?;
    text.push('\n');
    for action in game.actions() {
        position.play_unchecked(*action);
        let _ = writeln!(text, "{}", write_position(&position, Some(action))?);
    }
    Ok(text)
}

/// Reads OBX lines under `rules`: one line is a position, several are a
/// game from the first.
///
/// ```
/// use baghchal_rules::{notation::obx, Rules};
/// let text = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0\nTXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 1\n";
/// let game = obx::read(text, Rules::default()).unwrap();
/// assert_eq!(game.actions()[0].to_string(), "c3");
/// let wrong = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0\nTXXXT/XXXXX/XXXXX/XXGXX/TXXXT t c0 mC3 1\n";
/// assert_eq!(
///     obx::read(wrong, Rules::default()).unwrap_err().to_string(),
///     "ply 1: after mC3 the board is TXXXT/XXXXX/XXGXX/XXXXX/TXXXT, not TXXXT/XXXXX/XXXXX/XXGXX/TXXXT",
/// );
/// ```
pub fn read(text: &str, rules: Rules) -> Result<Game, NotationError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let Some((n, first)) = lines.next() else {
        return Err(NotationError::Syntax {
            line: 1,
            reason: "no OBX line".into(),
        });
    };
    let mut game = Game::from_position(position_of(&read_line(first, n)?, rules)?);
    for (n, text) in lines {
        let line = read_line(text, n)?;
        let written = text.split_whitespace().nth(3).unwrap_or_default();
        let ply = next_ply(&game);
        let Some(last) = line.last else {
            return Err(NotationError::Inconsistent {
                ply,
                reason: format!("line {n} has no move (-) after the start"),
            });
        };
        let action = match last {
            (to, None) => Action::Place(to),
            (from, Some(to)) => action_between(from, to).ok_or_else(|| NotationError::Illegal {
                ply,
                action: written.to_owned(),
                reason: crate::IllegalAction::NotALine.to_string(),
            })?,
        };
        play(&mut game, action, written)?;
        check_line(&game, &line, written)?;
    }
    Ok(game)
}

/// Checks that a line shows the position its move led to.
fn check_line(game: &Game, line: &Line, written: &str) -> Result<(), NotationError> {
    let position = game.position();
    let ply = u32::from(position.ply());
    let mismatch = |reason: String| NotationError::Inconsistent { ply, reason };
    let board = |tigers: Bitboard, goats: Bitboard| {
        let setup = Setup {
            tigers,
            goats,
            ..position.setup()
        };
        let text = setup.to_string();
        text.split(' ').next().unwrap_or_default().replace('.', "X")
    };
    if (line.tigers, line.goats) != (position.tigers(), position.goats()) {
        return Err(mismatch(format!(
            "after {written} the board is {}, not {}",
            board(position.tigers(), position.goats()),
            board(line.tigers, line.goats)
        )));
    }
    if line.side != position.side_to_move() {
        return Err(mismatch(format!(
            "after {written} it is the {}' turn",
            position.side_to_move()
        )));
    }
    if line.captured != position.eaten() {
        return Err(mismatch(format!(
            "after {written} {} goats are captured, not {}",
            position.eaten(),
            line.captured
        )));
    }
    if let Some(number) = line.number {
        if number != position.ply() {
            return Err(mismatch(format!(
                "after {written} the move number is {}, not {number}",
                position.ply()
            )));
        }
    }
    Ok(())
}
