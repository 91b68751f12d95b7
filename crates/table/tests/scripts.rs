//! A table's rules from script files, one scenario a file in
//! `tests/scripts/`: each line a moment (milliseconds from the table's
//! start), who acts and what, and what must come of it: the events the
//! core decides, or its refusal. Before each line the flags due at its
//! moment fall (and at a lobby table, the first-move timer's aborts), or
//! with none due the games nobody played on for long end as abandoned,
//! as the server's table does before it decides anything.
//!
//! ```text
//! # A comment.
//! table friend goats clock 60+0          (or computer, series 4, two-boards;
//!                                          `lobby A B`: the lobby seated players
//!                                          A and B, no links, the gallery open)
//! 0 host c3 => played goats c3
//! 500 guest offer-draw => refused not_your_turn?   (see `expect` below)
//! 61000 tick => flagged tigers
//! 61000 result => goats timeout
//! ```
//!
//! Commands: an action in notation, `resign`, `offer-draw`,
//! `accept-draw`, `decline-draw`, `rematch`, `decline-rematch`, `abort`,
//! `claim-win`, `claim-draw`, each optionally followed by `board N`;
//! `tick` (only the flags and the abandonments); `result [board N]` (the game's result:
//! `none`, `WINNER REASON` or `draw REASON`); `join KEY [KEY]`, with the
//! key of a link (`host`, `guest`, `invite`, `watch` or any other) and/or
//! a player's identity (`@NAME`), answered `seated PLAYER`, `claims
//! guest`, `watches` or a refusal (a guest claiming with an identity
//! gets the seat for that player too); `leave
//! PLAYER` (its last socket closes); `absence` (`none`, or `SIDE since
//! MS`, the moment the absent player left). A table starts with nobody
//! connected; a claim is decided by the core, then allowed only against
//! an absence as the server's table does. Events are written
//! `KIND [SIDE] [ACTION]`, prefixed with `@N ` at a two-board table, and
//! separated by `, `; `nothing` when there are none. A refusal is
//! `refused CODE` or `refused illegal_action/REASON`, as the wire names
//! them.

use std::path::Path;

use baghchal_protocol as wire;
use baghchal_table::boards::{Board, Boards};
use baghchal_table::names::side_name;
use baghchal_table::options::TableOptions;
use baghchal_table::play::{Claim, Event, Intent};
use baghchal_table::seat::Player;
use baghchal_table::seats::{Admission, Key, Seats};
use baghchal_table::time::Timestamp;

/// The start of every script's table: 2026-12-01, midnight.
const START: i64 = 1_796_083_200_000;

fn event_text(board: Board, event: &Event, is_match: bool) -> String {
    let text = match *event {
        Event::Played { side: s, action } => format!("played {} {action}", side_name(s)),
        Event::Resigned { side: s } => format!("resigned {}", side_name(s)),
        Event::DrawOffered { side: s } => format!("draw-offered {}", side_name(s)),
        Event::DrawDeclined { side: s } => format!("draw-declined {}", side_name(s)),
        Event::DrawAgreed => "draw-agreed".into(),
        Event::RematchOffered { side: s } => format!("rematch-offered {}", side_name(s)),
        Event::RematchStarted => "rematch-started".into(),
        Event::Flagged { side: s } => format!("flagged {}", side_name(s)),
        Event::Claimed {
            side: s,
            claim: Claim::Victory,
        } => format!("claimed-win {}", side_name(s)),
        Event::Claimed {
            side: s,
            claim: Claim::Draw,
        } => format!("claimed-draw {}", side_name(s)),
        Event::Aborted { side: s } => format!("aborted {}", side_name(s)),
        Event::RematchDeclined { side: s } => format!("rematch-declined {}", side_name(s)),
        Event::RematchWithdrawn { side: s } => format!("rematch-withdrawn {}", side_name(s)),
        Event::DrawWithdrawn { side: s } => format!("draw-withdrawn {}", side_name(s)),
        Event::Abandoned { side: s } => format!("abandoned {}", side_name(s)),
        Event::ClockPaused { side: s } => format!("clock-paused {}", side_name(s)),
        Event::ClockResumed { side: s } => format!("clock-resumed {}", side_name(s)),
    };
    if is_match {
        format!("@{board} {text}")
    } else {
        text
    }
}

fn events_text(events: &[(Board, Event)], is_match: bool) -> String {
    if events.is_empty() {
        return "nothing".into();
    }
    events
        .iter()
        .map(|(board, event)| event_text(*board, event, is_match))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The wire's name of a serde enum value.
fn wire_name(value: impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => panic!("not a name: {other:?}"),
    }
}

/// The table a `table ...` line describes.
fn table_options(words: &[&str]) -> TableOptions {
    let mut request = wire::CreateTable {
        opponent: wire::Opponent::Friend,
        side: wire::Side::Goats,
        level: None,
        spectators: 0,
        variant: wire::Variant::default(),
        clock: None,
        format: wire::Format::Single,
        series_games: None,
    };
    let mut words = words.iter();
    while let Some(word) = words.next() {
        match *word {
            "friend" => request.opponent = wire::Opponent::Friend,
            "computer" => request.opponent = wire::Opponent::Computer,
            "goats" => request.side = wire::Side::Goats,
            "tigers" => request.side = wire::Side::Tigers,
            "two-boards" => request.format = wire::Format::TwoBoards,
            "series" => {
                request.format = wire::Format::Series;
                request.series_games = words.next().and_then(|n| n.parse().ok());
            }
            "clock" => {
                let pace = words.next().expect("clock INITIAL+INCREMENT");
                let (initial, increment) = pace.split_once('+').expect("INITIAL+INCREMENT");
                request.clock = Some(wire::TimeControl {
                    initial: initial.parse().ok(),
                    increment: increment.parse().ok(),
                    days_per_action: None,
                });
            }
            other => panic!("unknown table word {other:?}"),
        }
    }
    TableOptions::parse(&request).expect("a table the server would create")
}

fn intent(word: &str) -> Intent {
    match word {
        "resign" => Intent::Resign,
        "offer-draw" => Intent::OfferDraw,
        "accept-draw" => Intent::AcceptDraw,
        "decline-draw" => Intent::DeclineDraw,
        "rematch" => Intent::Rematch,
        "decline-rematch" => Intent::DeclineRematch,
        "abort" => Intent::Abort,
        "claim-win" => Intent::Claim(Claim::Victory),
        "claim-draw" => Intent::Claim(Claim::Draw),
        action => Intent::Play(
            action
                .parse()
                .unwrap_or_else(|e| panic!("{action:?} is not a command or an action: {e}")),
        ),
    }
}

/// `board N` at the end of a line's words, if there.
fn board_of(words: &[&str]) -> (Option<Board>, usize) {
    match words {
        [.., "board", n] => (Some(n.parse().expect("a board number")), words.len() - 2),
        _ => (None, words.len()),
    }
}

fn result_text(boards: &Boards, board: Board) -> String {
    let play = boards.get(board).expect("the board");
    match play.game().outcome() {
        None => "none".into(),
        Some(outcome) => format!(
            "{} {}",
            outcome.winner().map_or("draw", side_name),
            outcome.reason()
        ),
    }
}

/// Plays one script; panics with the file, line and difference.
fn run(path: &Path) {
    let text = std::fs::read_to_string(path).expect("a readable script");
    let mut boards: Option<Boards> = None;
    let mut options: Option<TableOptions> = None;
    let link = |name: &str| Key::Link(name.to_owned());
    let fresh_seats = || {
        Seats::new(
            Some(link("host")),
            None,
            Some(link("invite")),
            Some(link("watch")),
            Timestamp::from_millis(START),
        )
    };
    let lobby_seats = |host: &str, guest: &str| {
        Seats::new(None, None, None, None, Timestamp::from_millis(START))
            .with_players([Some(host.to_owned()), Some(guest.to_owned())], true)
    };
    let mut seats = fresh_seats();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{}:{}", path.display(), number + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "table" {
            let lobby = words.iter().position(|w| *w == "lobby");
            let made = table_options(&words[1..lobby.unwrap_or(words.len())]);
            boards = Some(Boards::new(made));
            options = Some(made);
            seats = match lobby {
                Some(i) => lobby_seats(words[i + 1], words[i + 2]),
                None => fresh_seats(),
            };
            continue;
        }
        let table = boards
            .as_mut()
            .unwrap_or_else(|| panic!("{}: no table yet", at()));
        let (command, expected) = line
            .split_once("=>")
            .unwrap_or_else(|| panic!("{}: no `=>`", at()));
        let expected = expected.trim();
        let words: Vec<&str> = command.split_whitespace().collect();
        let ms: i64 = words[0].parse().expect("a moment in milliseconds");
        let now = Timestamp::from_millis(START + ms);
        let is_match = table.is_match();

        // The flags due fall first.
        let mut flags = table.flags_due(now, Timestamp::from_millis(START));
        // At a lobby table, the first-move timer too.
        if let Some(grace) = seats.first_move_grace() {
            let start = Timestamp::from_millis(START);
            flags.extend(table.first_moves_due(now, grace, start, start));
        }
        // With nothing else due, the games nobody played on for long.
        if flags.is_empty() {
            flags = table.abandoned_at(now);
        }
        for &(board, event) in &flags {
            table.apply(board, event, now).expect("a flag applies");
        }
        let got = match words[1] {
            "tick" => events_text(&flags, is_match),
            "result" => {
                let (board, _) = board_of(&words);
                result_text(table, board.unwrap_or(1))
            }
            "join" => {
                let options = options.as_ref().expect("a table");
                let keys: Vec<Key> = words[2..]
                    .iter()
                    .map(|w| match w.strip_prefix('@') {
                        Some(name) => Key::Player(name.to_owned()),
                        None => link(w),
                    })
                    .collect();
                let identity = keys.iter().find_map(|k| match k {
                    Key::Player(name) => Some(name.clone()),
                    Key::Link(_) => None,
                });
                match seats.admit(&keys, options, table) {
                    Ok(Admission::Seated(player)) => {
                        seats.arrived(player);
                        format!("seated {}", player.as_str())
                    }
                    Ok(Admission::ClaimsGuest) => {
                        seats.seat_guest(link("guest"), identity);
                        seats.arrived(Player::Guest);
                        "claims guest".into()
                    }
                    Ok(Admission::Watches) => "watches".into(),
                    Err(code) => format!("refused {}", wire_name(code)),
                }
            }
            "leave" => {
                let player = Player::parse(words[2]).expect("host or guest");
                seats.left(player, now);
                "nothing".into()
            }
            "absence" => match seats.absence(table) {
                None => "none".into(),
                Some((board, absent, since)) => {
                    let text = format!("{} since {}", side_name(absent), since.as_millis() - START);
                    if is_match {
                        format!("@{board} {text}")
                    } else {
                        text
                    }
                }
            },
            who => {
                assert!(flags.is_empty(), "{}: a flag fell first: {flags:?}", at());
                let player = match who {
                    "host" => Player::Host,
                    "guest" => Player::Guest,
                    other => panic!("{}: who is {other:?}?", at()),
                };
                let (board, end) = board_of(&words);
                let intent = intent(words[2..end].join(" ").as_str());
                let target = table
                    .target(board, &intent)
                    .unwrap_or_else(|_| panic!("{}: no such board", at()));
                let decided = table
                    .decide(player, target, intent, now)
                    .and_then(|events| {
                        // A claim needs the opponent's absence, as the table
                        // checks it.
                        let absent = matches!(intent, Intent::Claim(_))
                            && !seats.may_claim(table, player, target, now);
                        if absent {
                            Err(baghchal_table::play::Refusal::NotClaimable)
                        } else {
                            Ok(events)
                        }
                    });
                match decided {
                    Ok(events) => {
                        let before = table.version();
                        for &(board, event) in &events {
                            table.apply(board, event, now).unwrap_or_else(|refusal| {
                                panic!("{}: a decided event did not apply: {refusal:?}", at())
                            });
                        }
                        assert_eq!(table.version(), before + events.len() as u64);
                        events_text(&events, is_match)
                    }
                    Err(refusal) => match refusal.code() {
                        (code, None) => format!("refused {}", wire_name(code)),
                        (code, Some(reason)) => {
                            format!("refused {}/{}", wire_name(code), wire_name(reason))
                        }
                    },
                }
            }
        };
        assert_eq!(got, expected, "{}: {line}", at());
    }
}

#[test]
fn every_script_plays_as_written() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts");
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .expect("the scripts folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "script"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 8, "the scripts are there: {scripts:?}");
    for script in &scripts {
        run(script);
    }
}
