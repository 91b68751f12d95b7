//! OBX 2.0, the notation of baghchal.net: a position a line, with the
//! move that led to it, as the current README of the `bhu1st/obx`
//! repository defines it (revision 4bbecca, 2024-12-24).
//!
//! A line is `BOARD TURN CAPTURED LAST MOVE_NUMBER`, e.g.
//! `TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 #g1`: the rows separated by
//! `/`, `T` tiger, `G` goat, `X` empty; `g` or `t` to move; `c` and the
//! goats captured; `m` and the last move (`mC3` a placement, `mA1B2` a
//! step, `mA1C1(B1)` a jump from A1 to C1 that captures the goat on B1),
//! or `-`; the move number: `#`, then the side that made the last move and
//! how many moves that side has made (`#g1` the goats' first, `#t3` the
//! tigers' third); the start's is a bare `#`. A line may begin with
//! `OBX:`, as the README's own lines do.
//!
//! The README's earlier revision of 2.0 (504686d, 2024-12-23) counted the
//! move number in half moves from 0 (`TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0
//! mC3 1`) and wrote a capture like a step (`mA1C1`). Reading accepts that
//! syntax too; writing follows the current one.
//!
//! OBX names the columns `A` to `E` from the left like this project, but
//! counts the rows from the top: OBX `A1` is this project's `a5`, `E5` is
//! `e1`, `C3` is `c3`. The board text lists the top row first, as the
//! position text does. OBX does not say how many goats are still in hand:
//! they are the rules' goats less those on the board and those captured.
//!
//! A game is its positions, one a line: the first is the start, and each
//! next line's move must be legal from the line before and lead to the
//! board, turn, captures and move number it shows.

use std::fmt::Write as _;

use super::{action_between, check_start, next_ply, play, Format, NotationError, WriteError};
use crate::{board, Action, Bitboard, Game, IllegalAction, Position, Rules, Setup, Side, Square};

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

/// The last move of a line, as written.
#[derive(Clone, Copy)]
enum Last {
    /// `mC3`: a goat placed.
    Place(Square),
    /// `mA1B2`, a step; `mA1C1(B1)`, a jump with the point it passes over
    /// (`over`); `mA1C1`, a jump in the earlier revision's syntax.
    Between {
        from: Square,
        to: Square,
        over: Option<Square>,
    },
}

/// The move number of a line, as written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Number {
    /// `#` or `-`: not recorded.
    Unrecorded,
    /// `#g1`, `#t3`: the side that made the last move and how many moves
    /// it has made.
    Move(Side, u16),
    /// A bare number, the earlier revision's: half moves from 0.
    Ply(u16),
}

/// The move number of the position `position`, written the current way:
/// `#` at ply 0, else the side that made the last move and its count.
fn number_of(position: &Position) -> String {
    let ply = position.ply();
    if ply == 0 {
        return "#".into();
    }
    let mover = position.side_to_move().other();
    let count = if mover == position.rules().first() {
        ply.div_ceil(2)
    } else {
        ply / 2
    };
    format!("#{}{count}", mover.char())
}

/// One line, as written.
struct Line {
    tigers: Bitboard,
    goats: Bitboard,
    side: Side,
    captured: u8,
    last: Option<Last>,
    number: Number,
}

/// The text of `line` without an `OBX:` label before it.
fn unlabelled(line: &str) -> &str {
    line.strip_prefix("OBX:").unwrap_or(line).trim()
}

fn read_line(text: &str, line: usize) -> Result<Line, NotationError> {
    let syntax = |reason: String| NotationError::Syntax { line, reason };
    let fields: Vec<&str> = unlabelled(text).split_whitespace().collect();
    let (board, side, captured, last, number) = match fields[..] {
        [b, s, c, l] => (b, s, c, l, "-"),
        [b, s, c, l, n] => (b, s, c, l, n),
        _ => {
            return Err(syntax(
                "an OBX line is BOARD TURN CAPTURED LAST MOVE_NUMBER, as in \
                 TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #"
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
        m => Some(read_last(m).ok_or_else(|| {
            syntax(format!(
                "{m} is not a move: write mC3, mA1B2, mA1C1(B1) or -"
            ))
        })?),
    };
    let number = read_number(number).ok_or_else(|| {
        syntax(format!(
            "the move number is # and the side that moved with its count, \
             as in #g1 or #t3, or # or -; not {number}"
        ))
    })?;
    Ok(Line {
        tigers,
        goats,
        side,
        captured,
        last,
        number,
    })
}

/// `mC3`, `mA1B2`, `mA1C1(B1)` or `mA1C1`.
fn read_last(text: &str) -> Option<Last> {
    let points = text.strip_prefix('m').filter(|p| p.is_ascii())?;
    let (points, over) = match points.split_once('(') {
        Some((points, over)) => (points, Some(square(over.strip_suffix(')')?)?)),
        None => (points, None),
    };
    match points.len() {
        2 if over.is_none() => Some(Last::Place(square(points)?)),
        4 => Some(Last::Between {
            from: square(&points[..2])?,
            to: square(&points[2..])?,
            over,
        }),
        _ => None,
    }
}

/// `#`, `-`, `#g1`, `#t3`, or the earlier revision's `12`.
fn read_number(text: &str) -> Option<Number> {
    match text {
        "#" | "-" => Some(Number::Unrecorded),
        _ => match text.strip_prefix('#') {
            Some(rest) => {
                let side = Side::from_char(rest.chars().next()?)?;
                let count: u16 = rest.get(1..)?.parse().ok()?;
                (count > 0 && rest.as_bytes().get(1)?.is_ascii_digit())
                    .then_some(Number::Move(side, count))
            }
            None => text
                .as_bytes()
                .iter()
                .all(u8::is_ascii_digit)
                .then(|| text.parse().ok().map(Number::Ply))?,
        },
    }
}

/// The position of a line (line `n` of the text) under `rules`. Without a
/// move number, the ply is the least the counters allow.
fn position_of(line: &Line, rules: Rules, n: usize) -> Result<Position, NotationError> {
    let start = |reason: String| NotationError::Start { line: n, reason };
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
    let ply = match line.number {
        Number::Ply(ply) => ply,
        Number::Move(mover, _) if mover == line.side => {
            return Err(start(format!(
                "the move number counts the {mover}' moves, so the {}' turn comes next, not the {mover}'",
                mover.other()
            )))
        }
        Number::Move(mover, count) => {
            let ply = if mover == rules.first() {
                2 * u32::from(count) - 1
            } else {
                2 * u32::from(count)
            };
            u16::try_from(ply).map_err(|_| start(format!("move {count} is beyond any game")))?
        }
        Number::Unrecorded if line.side == rules.first() => 2 * placed,
        Number::Unrecorded if rules.first() == Side::Goat => (2 * placed).saturating_sub(1),
        Number::Unrecorded => 2 * placed + 1,
    };
    let setup = Setup {
        tigers: line.tigers,
        goats: line.goats,
        side: line.side,
        in_hand,
        eaten: line.captured,
        ply,
    };
    let position = Position::from_setup(setup, rules).map_err(|e| start(e.to_string()))?;
    check_start(&position, n)?;
    Ok(position)
}

/// The OBX line of `position`, reached by `last` (`None` for a start).
/// A position that no game reaches (its ply count contradicts its side to
/// move) has no move number and is refused.
///
/// ```
/// use baghchal_rules::{notation::obx, Position, Rules};
/// let line = obx::write_position(&Position::default(), None).unwrap();
/// assert_eq!(line, "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #");
/// let rules = Rules::default();
/// let after = Position::from_text("TG..T/...../...../...../T...T t 19 0 1", rules).unwrap();
/// let jump = "a5xc5".parse().unwrap();
/// let line = obx::write_position(&after.play(jump).unwrap(), Some(&jump)).unwrap();
/// assert_eq!(line, "XXTXT/XXXXX/XXXXX/XXXXX/TXXXT g c1 mA1C1(B1) #t1");
/// ```
pub fn write_position(position: &Position, last: Option<&Action>) -> Result<String, WriteError> {
    position.check_turn().map_err(|e| WriteError {
        format: Format::Obx,
        reason: format!("has no move number for a position no game reaches: {e}"),
    })?;
    let text = position.setup().to_string();
    let board = text.split(' ').next().unwrap_or_default().replace('.', "X");
    let last = match last {
        None => "-".to_owned(),
        Some(Action::Place(to)) => format!("m{}", point(*to)),
        Some(Action::Step { from, to }) => format!("m{}{}", point(*from), point(*to)),
        Some(Action::Jump(j)) if j.len() == 1 => {
            let over = j.captures().next().expect("a jump captures");
            format!("m{}{}({})", point(j.from()), point(j.to()), point(over))
        }
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
        number_of(position)
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
/// game from the first. Empty lines are skipped, and so is a line equal to
/// the one before it (the same position shown again); the lines a refusal
/// names count them.
///
/// ```
/// use baghchal_rules::{notation::obx, Rules};
/// let text = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #\nTXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 #g1\n";
/// let game = obx::read(text, Rules::default()).unwrap();
/// assert_eq!(game.actions()[0].to_string(), "c3");
/// let wrong = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #\nTXXXT/XXXXX/XXXXX/XXGXX/TXXXT t c0 mC3 #g1\n";
/// assert_eq!(
///     obx::read(wrong, Rules::default()).unwrap_err().to_string(),
///     "line 2, ply 1: after mC3 the board is TXXXT/XXXXX/XXGXX/XXXXX/TXXXT, not TXXXT/XXXXX/XXXXX/XXGXX/TXXXT",
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
    let mut game = Game::from_position(position_of(&read_line(first, n)?, rules, n)?);
    let mut before = unlabelled(first);
    for (n, text) in lines {
        // The same position shown again, as the README's example sequence
        // shows each step's first line again.
        if unlabelled(text) == before {
            continue;
        }
        before = unlabelled(text);
        let line = read_line(text, n)?;
        let written = unlabelled(text)
            .split_whitespace()
            .nth(3)
            .unwrap_or_default();
        let ply = next_ply(&game);
        let illegal = |reason: String| NotationError::Illegal {
            line: n,
            ply,
            action: written.to_owned(),
            reason,
        };
        let Some(last) = line.last else {
            return Err(NotationError::Inconsistent {
                line: n,
                ply,
                reason: "a line after the start has no move (-)".into(),
            });
        };
        let action = match last {
            Last::Place(to) => Action::Place(to),
            Last::Between { from, to, over } => {
                let action = action_between(from, to)
                    .ok_or_else(|| illegal(IllegalAction::NotALine.to_string()))?;
                match (over, board::jump_over(from, to)) {
                    (Some(_), None) => {
                        return Err(illegal(format!(
                            "{} to {} is a step, which captures nothing",
                            point(from),
                            point(to)
                        )))
                    }
                    (Some(over), Some(passed)) if over != passed => {
                        return Err(illegal(format!(
                            "the jump from {} to {} passes over {}, not {}",
                            point(from),
                            point(to),
                            point(passed),
                            point(over)
                        )))
                    }
                    _ => action,
                }
            }
        };
        play(&mut game, action, written, n)?;
        check_line(&game, &line, written, n)?;
    }
    Ok(game)
}

/// Checks that line `n` shows the position its move led to.
fn check_line(game: &Game, line: &Line, written: &str, n: usize) -> Result<(), NotationError> {
    let position = game.position();
    let ply = u32::from(position.ply());
    let mismatch = |reason: String| NotationError::Inconsistent {
        line: n,
        ply,
        reason,
    };
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
    match line.number {
        Number::Unrecorded => {}
        Number::Ply(number) if number != position.ply() => {
            return Err(mismatch(format!(
                "after {written} the move number is {}, not {number}",
                position.ply()
            )))
        }
        Number::Move(side, count) => {
            let want = number_of(position);
            let found = format!("#{}{count}", side.char());
            if want != found {
                return Err(mismatch(format!(
                    "after {written} the move number is {want}, not {found}"
                )));
            }
        }
        Number::Ply(_) => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's lines that agree with its rules and with each other,
    /// as games of one or more lines: each reads and writes back the same.
    #[test]
    fn the_readmes_consistent_examples_round_trip() {
        let start = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #";
        let games = [
            // "Baghchal game start position" and "Example Notation".
            vec![start],
            // "Baghchal board with a goat at the center position (C3)".
            vec![start, "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 #g1"],
            // "Example Sequence of Moves", its steps 1 and 2.
            vec![start, "TXXXT/XGXXX/XXXXX/XXXXX/TXXXT t c0 mB2 #g1"],
            // The API's request, after the start.
            vec![start, "TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 #g1"],
            // The API's request followed by the README's own capture
            // example, mA1C1(B1): the tiger on A1 takes the goat on B1.
            vec![
                start,
                "TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 #g1",
                "XXTXT/XXXXX/XXXXX/XXXXX/TXXXT g c1 mA1C1(B1) #t1",
            ],
        ];
        for lines in games {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let game = read(&text, Rules::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(write(&game).unwrap(), text);
        }
        // The API's request alone is a position: the tigers to move at ply 1.
        let game = read(
            "TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 #g1",
            Rules::default(),
        )
        .unwrap();
        assert_eq!(
            game.start().to_string(),
            "TG..T/...../...../...../T...T t 19 0 1"
        );
        // The README writes its first lines with a label: it is read too.
        let game = read(
            &format!("OBX: {start}\nOBX: TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 #g1"),
            Rules::default(),
        )
        .unwrap();
        assert_eq!(game.actions()[0].to_string(), "c3");
    }

    /// The README's examples that its rules contradict are refused with
    /// the line and the reason.
    #[test]
    fn the_readmes_inconsistent_examples_are_refused_with_the_line_and_the_reason() {
        // "Example Sequence of Moves", each position once: its third step
        // moves the tiger on A1 onto the goat just placed on B2.
        let sequence = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #\n\
                        TXXXT/XGXXX/XXXXX/XXXXX/TXXXT t c0 mB2 #g1\n\
                        TXTXT/TXXXX/XXXXX/XXXXX/TXXXT g c0 mA1B2 #t1\n\
                        TXTXT/TGXXX/XXXXX/XXXXX/TXXXT t c0 mC2 #g2\n";
        assert_eq!(
            read(sequence, Rules::default()).unwrap_err().to_string(),
            "line 3, ply 2: mA1B2: that point is occupied",
        );
        // As the README writes it, each step's first line repeating the
        // line before: the repeated lines are the same positions again.
        let lines: Vec<&str> = sequence.lines().collect();
        let verbatim = [
            lines[0], lines[0], lines[1], lines[1], lines[2], lines[2], lines[3],
        ]
        .join("\n");
        assert_eq!(
            read(&verbatim, Rules::default()).unwrap_err().to_string(),
            "line 5, ply 2: mA1B2: that point is occupied",
        );
        // The API's response: A1 to C3 passes over B2, not B1.
        let api = "TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 #g1\n\
                   XXTXT/XXXXX/XXGXX/XXXXX/TXXXX g c1 mA1C3(B1) #t1\n";
        assert_eq!(
            read(api, Rules::default()).unwrap_err().to_string(),
            "line 2, ply 2: mA1C3(B1): the jump from A1 to C3 passes over B2, not B1",
        );
    }

    /// The earlier revision's syntax, a ply as the move number and a
    /// capture written like a step, is still read.
    #[test]
    fn the_earlier_revisions_syntax_is_read_too() {
        let old = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0\n\
                   TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 1\n\
                   XXTXT/XXXXX/XXXXX/XXXXX/TXXXT g c1 mA1C1 2\n";
        let game = read(old, Rules::default()).unwrap();
        let actions: Vec<String> = game.actions().iter().map(Action::to_string).collect();
        assert_eq!(actions, ["b5", "a5xc5"]);
        assert_eq!(
            write(&game).unwrap(),
            "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #\n\
             TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 #g1\n\
             XXTXT/XXXXX/XXXXX/XXXXX/TXXXT g c1 mA1C1(B1) #t1\n"
        );
        // The earlier revision's example 2, a position alone: ply 12.
        let game = read(
            "GGGGG/GTTTG/GXTXG/GXXXG/GGGGG g c2 mA3B3 12",
            Rules::default(),
        );
        assert_eq!(
            game.unwrap().start().to_string(),
            "GGGGG/GTTTG/G.T.G/G...G/GGGGG g 2 2 12"
        );
    }

    /// What a line gets wrong about its move and its move number.
    #[test]
    fn a_wrong_capture_or_move_number_is_refused_with_the_line_and_the_reason() {
        let placed = "TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 #g1\n";
        let cases = [
            (
                "TGXXT/XXXXX/XXXXX/XXXXX/XTXXT g c0 mA5B5(A4) #t1",
                "line 2, ply 2: mA5B5(A4): A5 to B5 is a step, which captures nothing",
            ),
            (
                "XXTXT/XXXXX/XXXXX/XXXXX/TXXXT g c1 mA1C1(B2) #t1",
                "line 2, ply 2: mA1C1(B2): the jump from A1 to C1 passes over B1, not B2",
            ),
            (
                "XXTXT/XXXXX/XXXXX/XXXXX/TXXXT g c1 mA1C1(B1) #t2",
                "line 2, ply 2: after mA1C1(B1) the move number is #t1, not #t2",
            ),
            (
                "XXTXT/XXXXX/XXXXX/XXXXX/TXXXT g c1 mA1C1(B1) #g2",
                "line 2, ply 2: after mA1C1(B1) the move number is #t1, not #g2",
            ),
        ];
        for (line, message) in cases {
            let text = format!("{placed}{line}\n");
            assert_eq!(
                read(&text, Rules::default()).unwrap_err().to_string(),
                message
            );
        }
        let syntax = [
            ("#g0", "line 1: the move number is # and the side that moved with its count, as in #g1 or #t3, or # or -; not #g0"),
            ("#x1", "line 1: the move number is # and the side that moved with its count, as in #g1 or #t3, or # or -; not #x1"),
            ("#g+1", "line 1: the move number is # and the side that moved with its count, as in #g1 or #t3, or # or -; not #g+1"),
        ];
        for (number, message) in syntax {
            let text = format!("TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 {number}");
            assert_eq!(
                read(&text, Rules::default()).unwrap_err().to_string(),
                message
            );
        }
        let text = "TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1(A1) #g1";
        assert_eq!(
            read(text, Rules::default()).unwrap_err().to_string(),
            "line 1: mB1(A1) is not a move: write mC3, mA1B2, mA1C1(B1) or -"
        );
    }

    /// A first line whose move number or ply contradicts its turn is a
    /// start no game reaches.
    #[test]
    fn a_start_whose_count_contradicts_its_turn_is_refused() {
        let cases = [
            (
                "TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 #t1",
                "line 1: start: the move number counts the tigers' moves, so the goats' turn comes next, not the tigers'",
            ),
            (
                "TGXXT/XXXXX/XXXXX/XXXXX/TXXXT t c0 mB1 2",
                "line 1: start: at ply 2 it is the goats' turn, not the tigers': the goats move first, at the even plies",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(
                read(text, Rules::default()).unwrap_err().to_string(),
                message
            );
        }
        // With the tigers first, #t1 is ply 1 and the goats are to move.
        let rules = Rules::new(crate::RulesOptions {
            first: Side::Tiger,
            ..crate::RulesOptions::default()
        })
        .unwrap();
        let game = read("TXXXT/XXXXX/XXXXX/XXXXX/XTXXT g c0 mA5B5 #t1", rules).unwrap();
        assert_eq!(
            game.start().to_string(),
            "T...T/...../...../...../.T..T g 20 0 1"
        );
        assert_eq!(
            write(&game).unwrap(),
            "TXXXT/XXXXX/XXXXX/XXXXX/XTXXT g c0 - #t1\n"
        );
    }
}
