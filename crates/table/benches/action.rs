//! The table core's share of one accepted action, as the table's task
//! spends it: the rules deciding a player's action, the check of whether
//! it ends the game, applying it, the public state after it, and that
//! state's event encoded as the frame every subscriber gets. Measured on a
//! friend table in the placement phase (the opening, 21 placements) and in
//! the movement phase (goats stepping, the repetition rule at work).
//!
//!     cargo bench -p baghchal-table --bench action
//!
//! `cargo test -p baghchal-table --benches` runs each once, as a smoke
//! test: no figure is asserted.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

use baghchal_protocol::ServerMessage;
use baghchal_rules::{Rules, Side};
use baghchal_table::boards::{Board, Boards, Target};
use baghchal_table::options::{Format, Opponent, TableOptions};
use baghchal_table::play::{Event, Intent};
use baghchal_table::seat::Player;
use baghchal_table::time::Timestamp;
use baghchal_table::view::event_to_wire;

const BOARD: Board = 1;
const NOW: Timestamp = Timestamp::from_millis(1_796_160_000_000);

fn friend_table() -> Boards {
    Boards::new(TableOptions {
        opponent: Opponent::Friend,
        host_side: Side::Goat,
        level: None,
        spectator_seats: 2,
        rules: Rules::default(),
        clock: None,
        format: Format::Single,
    })
}

/// The player to move on the only board.
fn to_move(boards: &Boards) -> Player {
    let play = boards.first();
    play.player_of(play.game().position().side_to_move())
}

/// A table whose game has left the placement phase: every goat placed,
/// the goats to move, actions chosen by a fixed rule from the legal list.
fn movement_table() -> Boards {
    let mut boards = friend_table();
    let mut ply = 0usize;
    loop {
        let position = boards.first().game().position();
        if position.in_hand() == 0 && position.side_to_move() == Side::Goat {
            return boards;
        }
        let legal = position.legal_actions();
        let action = legal[ply * 7 % legal.len()];
        let player = to_move(&boards);
        act(&mut boards, player, Intent::Play(action));
        ply += 1;
        assert!(
            !boards.first().game().is_finished(),
            "the fixed rule keeps the game going"
        );
    }
}

/// The first legal action on the only board.
fn first_legal(boards: &Boards) -> Intent {
    Intent::Play(boards.first().game().position().legal_actions()[0])
}

/// Decides and applies `intent` by `player`, as the table's task does
/// once the events are stored: returns the events.
fn act(boards: &mut Boards, player: Player, intent: Intent) -> Vec<(Board, Event)> {
    let events = boards
        .decide(player, Target::One(BOARD), intent, NOW)
        .expect("a legal action");
    let ending = boards.ending(&events);
    let _active = boards.active_after(&events, &ending);
    for &(board, event) in &events {
        boards
            .apply(board, event, NOW)
            .expect("a decided event applies");
    }
    events
}

/// The frame of `event` on `board` with the state after it.
fn frame(boards: &Boards, version: u64, event: &Event) -> String {
    let play = boards.first();
    let message = ServerMessage::Event {
        version,
        board: None,
        event: event_to_wire(event, play.game_number()),
        state: boards.state(BOARD, NOW).expect("the only board"),
    };
    serde_json::to_string(&message).expect("a message encodes")
}

fn bench(c: &mut Criterion) {
    for (phase, boards) in [
        ("placement", friend_table()),
        ("movement", movement_table()),
    ] {
        let mut group = c.benchmark_group(format!("action, {phase}"));
        let player = to_move(&boards);
        let intent = first_legal(&boards);
        group.bench_function("decide and apply", |b| {
            b.iter_batched_ref(
                || boards.clone(),
                |boards| act(boards, player, intent),
                BatchSize::SmallInput,
            )
        });
        let mut after = boards.clone();
        let events = act(&mut after, player, intent);
        let (_, event) = events[0];
        group.bench_function("state after it", |b| b.iter(|| after.state(BOARD, NOW)));
        group.bench_function("state and event encoded", |b| {
            b.iter(|| frame(&after, after.version(), &event))
        });
        group.bench_function("the whole: decide, apply, state, encode", |b| {
            b.iter_batched_ref(
                || boards.clone(),
                |boards| {
                    let events = act(boards, player, intent);
                    frame(boards, boards.version(), &events[0].1)
                },
                BatchSize::SmallInput,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
