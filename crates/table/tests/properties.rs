//! Properties of a table's play over random games: replaying the stored
//! events rebuilds the same state (what loading a table after a restart
//! or a takeover relies on), an event that is refused changes nothing, the
//! games a replay finds ended are the ones that ended in play, and the
//! legal actions the core keeps with each position are the rules' own.

use baghchal_protocol as wire;
use baghchal_rules::Side;
use baghchal_table::boards::{Board, Boards, Ended, Target};
use baghchal_table::options::TableOptions;
use baghchal_table::play::{Claim, Event, Intent, Logged, Refusal};
use baghchal_table::seat::Player;
use baghchal_table::time::Timestamp;
use proptest::prelude::*;

const START: i64 = 1_796_083_200_000;

/// A table of one of the kinds the server creates.
fn table(kind: u8, host: bool) -> TableOptions {
    let (opponent, format, series_games, clock) = match kind % 5 {
        0 => (wire::Opponent::Friend, wire::Format::Single, None, None),
        1 => (wire::Opponent::Computer, wire::Format::Single, None, None),
        2 => (wire::Opponent::Friend, wire::Format::Series, Some(2), None),
        3 => (wire::Opponent::Friend, wire::Format::TwoBoards, None, None),
        _ => (
            wire::Opponent::Friend,
            wire::Format::Single,
            None,
            Some(wire::TimeControl {
                initial: Some(30),
                increment: Some(2),
                days_per_action: None,
            }),
        ),
    };
    TableOptions::parse(&wire::CreateTable {
        opponent,
        side: if host {
            wire::Side::Goats
        } else {
            wire::Side::Tigers
        },
        level: None,
        spectators: 0,
        variant: wire::Variant::default(),
        clock,
        format,
        series_games,
    })
    .expect("a table the server creates")
}

/// What someone asks for, chosen by `pick` among the legal actions on
/// `board` and the other commands.
fn intent(boards: &Boards, board: Board, pick: u16) -> Intent {
    let legal = boards
        .get(board)
        .map(|play| play.game().position().legal_actions())
        .unwrap_or_default();
    match pick % 64 {
        0..=53 if !legal.is_empty() => Intent::Play(legal[usize::from(pick / 64) % legal.len()]),
        54 | 55 => Intent::OfferDraw,
        56 => Intent::AcceptDraw,
        57 => Intent::DeclineDraw,
        58..=60 => Intent::Rematch,
        61 => Intent::Abort,
        62 => Intent::Claim(Claim::Draw),
        _ => Intent::Resign,
    }
}

/// Every board's public state, the version and the match's standing.
fn view(boards: &Boards, now: Timestamp) -> (u64, Vec<wire::GameState>, Option<wire::MatchState>) {
    (
        boards.version(),
        (1..=boards.count())
            .filter_map(|board| boards.state(board, now))
            .collect(),
        boards.is_match().then(|| boards.match_state()),
    )
}

/// Plays `steps` (who, what, on which board, how much later) and returns
/// the boards, the stored log and the games that ended in play.
fn play(
    options: TableOptions,
    steps: &[(bool, u16, bool, u32)],
) -> (Boards, Vec<Logged>, Vec<Ended>, Timestamp) {
    let mut boards = Boards::new(options);
    let mut log = Vec::new();
    let mut ended = Vec::new();
    let mut now = Timestamp::from_millis(START);
    for &(host, pick, second, pause) in steps {
        now = now.after(std::time::Duration::from_millis(u64::from(pause)));
        let record = |boards: &mut Boards,
                      log: &mut Vec<Logged>,
                      ended: &mut Vec<_>,
                      events: Vec<(Board, Event)>,
                      player| {
            for (board, event) in events {
                let game = boards
                    .apply(board, event, now)
                    .expect("a decided event applies");
                log.push(Logged {
                    version: boards.version(),
                    event,
                    player,
                    client_id: None,
                    at: now,
                    board,
                });
                if let Some(game) = game {
                    ended.push((board, boards.version(), game));
                }
            }
        };
        let flags = boards.flags_due(now, Timestamp::from_millis(START));
        record(&mut boards, &mut log, &mut ended, flags, None);
        let board = if second && boards.is_match() { 2 } else { 1 };
        // Mostly the side to move, so that games run long.
        let to_move = boards
            .get(board)
            .map(|play| play.player_of(play.game().position().side_to_move()));
        let player = match (host, to_move) {
            (true, Some(player)) if pick % 5 != 0 => player,
            (true, _) => Player::Host,
            (false, _) => Player::Guest,
        };
        let intent = intent(&boards, board, pick);
        let target = boards
            .target(Some(board), &intent)
            .unwrap_or(Target::One(1));
        if let Ok(events) = boards.decide(player, target, intent, now) {
            record(&mut boards, &mut log, &mut ended, events, Some(player));
        }
    }
    (boards, log, ended, now)
}

fn steps() -> impl Strategy<Value = Vec<(bool, u16, bool, u32)>> {
    prop::collection::vec(
        (any::<bool>(), any::<u16>(), any::<bool>(), 0u32..6_000),
        0..240,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn replaying_the_stored_events_rebuilds_the_same_table(
        kind in 0u8..5,
        host in any::<bool>(),
        steps in steps(),
    ) {
        let options = table(kind, host);
        let (boards, log, ended, now) = play(options, &steps);
        let (replayed, found) = Boards::replay(options, &log).expect("the log replays");
        prop_assert_eq!(view(&replayed, now), view(&boards, now));
        prop_assert_eq!(&replayed, &boards);
        prop_assert_eq!(found, ended);
    }

    #[test]
    fn an_event_that_is_refused_changes_nothing(
        kind in 0u8..5,
        host in any::<bool>(),
        steps in steps(),
        tries in prop::collection::vec((any::<u16>(), any::<bool>(), any::<bool>()), 1..20),
    ) {
        let (mut boards, _, _, now) = play(table(kind, host), &steps);
        for (pick, goats, second) in tries {
            let side = if goats { Side::Goat } else { Side::Tiger };
            let board = if second && boards.is_match() { 2 } else { 1 };
            let event = match intent(&boards, board, pick) {
                Intent::Play(action) => Event::Played { side, action },
                Intent::OfferDraw => Event::DrawOffered { side },
                Intent::AcceptDraw => Event::DrawAgreed,
                Intent::DeclineDraw => Event::DrawDeclined { side },
                Intent::Rematch => Event::RematchStarted,
                Intent::Abort => Event::Aborted { side },
                Intent::Claim(claim) => Event::Claimed { side, claim },
                _ => Event::Flagged { side },
            };
            let mut tried = boards.clone();
            if tried.apply(board, event, now).is_err() {
                prop_assert_eq!(&tried, &boards);
            } else {
                boards = tried;
            }
        }
    }
}

/// Every action the notation can name on this board: each placement,
/// and each step and single jump between two points.
fn every_action() -> Vec<baghchal_rules::Action> {
    let points: Vec<String> = ('a'..='e')
        .flat_map(|file| (1..=5).map(move |rank| format!("{file}{rank}")))
        .collect();
    let mut texts = points.clone();
    for from in &points {
        for to in &points {
            texts.push(format!("{from}-{to}"));
            texts.push(format!("{from}x{to}"));
        }
    }
    texts.iter().filter_map(|text| text.parse().ok()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn the_core_finds_an_action_legal_exactly_when_the_rules_do(
        kind in 0u8..5,
        host in any::<bool>(),
        steps in steps(),
    ) {
        let (boards, _, _, now) = play(table(kind, host), &steps);
        let actions = every_action();
        for board in 1..=boards.count() {
            let Some(play) = boards.get(board) else { continue };
            let game = play.game();
            let position = game.position();
            let side = position.side_to_move();
            let state = boards.state(board, now).expect("the board exists");
            let listed: Vec<String> = if game.is_finished() {
                Vec::new()
            } else {
                position.legal_actions().iter().map(ToString::to_string).collect()
            };
            prop_assert_eq!(&state.legal, &listed);
            for &action in &actions {
                let decided = play.decide(side, Intent::Play(action), now);
                if game.is_finished() {
                    prop_assert!(decided.is_err());
                    continue;
                }
                match position.check(&action) {
                    Ok(()) => prop_assert_eq!(decided, Ok(Event::Played { side, action })),
                    Err(reason) => prop_assert_eq!(decided, Err(Refusal::Illegal(reason))),
                }
            }
        }
    }
}
