//! Clocks: the flag, the increment, the computer's thinking time and a
//! restart in the middle of a clocked game, under a manual wall clock.

use std::sync::Arc;
use std::time::Duration;

use baghchal_engine::Level;
use baghchal_protocol::{
    ClientMessage, CreateTable, EndReason, ErrorCode, GameState, Opponent, ServerMessage, Side,
    TableEvent, TimeControl,
};
use baghchal_rules::{Action, Position};
use baghchal_server::bot::Bot;
use baghchal_server::table::LOAD_GRACE;
use baghchal_server::time::ManualClock;
use baghchal_table::clock::RESTART_CREDIT;

use crate::common::{manual_clock, request, Client, Joined, Seated, TestDb, TestServer};
use crate::on_both;

fn clocked(opponent: Opponent, initial: u32, increment: u32) -> CreateTable {
    CreateTable {
        clock: Some(TimeControl {
            initial: Some(initial),
            increment: Some(increment),
            days_per_action: None,
        }),
        ..request(opponent, 0)
    }
}

fn clock_of(state: &GameState) -> (u64, u64, Option<Side>) {
    let clock = state.clock.as_ref().expect("a clocked state");
    (clock.goats_ms, clock.tigers_ms, clock.running)
}

async fn a_flag_ends_the_game_on_time_and_the_other_side_wins(db: &TestDb) {
    let clock = manual_clock();
    let server = TestServer::start_with(TestServer::config_with_clock(db, &clock)).await;
    let mut seated = Seated::new(&server, &clocked(Opponent::Friend, 5, 0)).await;
    // The first action of each side costs nothing.
    seated.host.play_acked("c3").await;
    clock.advance(Duration::from_secs(30));
    let state = seated.play_out_from(1, &["a1-a2"]).await;
    assert_eq!(clock_of(&state), (5_000, 5_000, Some(Side::Goats)));
    let started = state.clock.clone().unwrap().turn_started_at.unwrap();
    assert_eq!(started, state_now(&state));

    seated.host.event_at(2).await;
    clock.advance(Duration::from_millis(4_999));
    let seen = seated.host.sync().await;
    assert!(seen.is_empty(), "{seen:?}");
    clock.advance(Duration::from_millis(1));
    let (event, state) = seated
        .guest
        .until(|m| match m {
            ServerMessage::Event { event, state, .. } => Some((event.clone(), state.clone())),
            _ => None,
        })
        .await;
    assert_eq!(event, TableEvent::Flagged { side: Side::Goats });
    let result = state.result.unwrap();
    assert_eq!(
        (result.winner, result.reason),
        (Some(Side::Tigers), EndReason::Timeout)
    );
    assert_eq!(clock_of(&state), (0, 5_000, None));
    assert_eq!(state.tally.guest, 1);
    let late = ClientMessage::Action {
        id: "late".into(),
        action: "c4".into(),
        board: None,
    };
    assert!(matches!(
        seated.host.refused(&late).await,
        Some(ServerMessage::Error {
            code: ErrorCode::GameOver,
            ..
        })
    ));
    server.stop().await;
}
on_both!(a_flag_ends_the_game_on_time_and_the_other_side_wins);

fn state_now(state: &GameState) -> String {
    state.clock.as_ref().unwrap().now.clone()
}

#[tokio::test]
async fn an_action_deducts_its_time_and_adds_the_increment() {
    let db = TestDb::sqlite();
    let clock = manual_clock();
    let server = TestServer::start_with(TestServer::config_with_clock(&db, &clock)).await;
    let mut seated = Seated::new(&server, &clocked(Opponent::Friend, 60, 3)).await;
    assert_eq!(
        seated.welcome_clock(),
        Some(TimeControl {
            initial: Some(60),
            increment: Some(3),
            days_per_action: None
        })
    );
    seated.play_out(&["c3", "a1-a2"]).await;
    clock.advance(Duration::from_millis(2_500));
    let state = seated.play_out_from(2, &["c4"]).await;
    assert_eq!(clock_of(&state), (60_500, 60_000, Some(Side::Tigers)));
    clock.advance(Duration::from_secs(10));
    let state = seated.play_out_from(3, &["a2-a1"]).await;
    assert_eq!(clock_of(&state), (60_500, 53_000, Some(Side::Goats)));
    server.stop().await;
}

/// The state once a restarted table has run its paused clock again (the
/// event of version `resumed`): in the snapshot, or in the event when the
/// table resumes after the join.
async fn after_restart(client: &mut Client, joined: &Joined, resumed: u64) -> GameState {
    let (version, _, state) = joined.snapshot().expect("a snapshot");
    if version >= resumed {
        state
    } else {
        client.event_at(resumed).await
    }
}

async fn a_restart_in_the_middle_of_a_clocked_game_charges_only_the_downtime_past_the_credit(
    db: &TestDb,
) {
    let clock = manual_clock();
    let server = TestServer::start_with(TestServer::config_with_clock(db, &clock)).await;
    let mut seated = Seated::new(&server, &clocked(Opponent::Friend, 60, 0)).await;
    let table = seated.table().to_owned();
    let host_secret = seated.created.secret.clone().unwrap();
    seated.play_out(&["c3", "a1-a2"]).await;
    clock.advance(Duration::from_secs(5));
    // The stop pauses the goats' clock (version 3) after 5 s of their turn.
    server.stop().await;
    clock.advance(Duration::from_secs(3));
    let server = TestServer::start_with(TestServer::config_with_clock(db, &clock)).await;
    let mut host = server.connect().await;
    let joined = host.hello(&table, &host_secret, None).await;
    // The load runs it again (version 4): the 3 s down are not charged.
    let state = after_restart(&mut host, &joined, 4).await;
    assert_eq!(clock_of(&state), (55_000, 60_000, Some(Side::Goats)));
    let resumed = state.clock.clone().unwrap();
    assert_eq!(resumed.turn_started_at, Some(resumed.now));
    // (A fresh client's ids would repeat the first session's.)
    host.send(&ClientMessage::Action {
        id: "after-the-restart".into(),
        action: "c4".into(),
        board: None,
    })
    .await;
    let state = host.event_at(5).await;
    assert_eq!(clock_of(&state), (55_000, 60_000, Some(Side::Tigers)));

    // Down 70 s past the credit: the tigers are charged 70 s, more than
    // they had; their flag waits for the grace after loading, then falls.
    server.stop().await;
    clock.advance(RESTART_CREDIT + Duration::from_secs(70));
    let server = TestServer::start_with(TestServer::config_with_clock(db, &clock)).await;
    let mut guest = server.connect().await;
    let joined = guest.hello(&table, &seated.guest_secret, None).await;
    let state = after_restart(&mut guest, &joined, 7).await;
    assert_eq!(clock_of(&state), (55_000, 0, Some(Side::Tigers)));
    assert!(state.result.is_none());
    clock.advance(LOAD_GRACE - Duration::from_millis(1));
    assert!(guest.sync().await.is_empty());
    clock.advance(Duration::from_millis(1));
    let state = guest.event_at(8).await;
    let result = state.result.unwrap();
    assert_eq!(
        (result.winner, result.reason),
        (Some(Side::Goats), EndReason::Timeout)
    );
    assert_eq!(clock_of(&state), (55_000, 0, None));
    server.stop().await;
}
on_both!(a_restart_in_the_middle_of_a_clocked_game_charges_only_the_downtime_past_the_credit);

/// A computer that thinks for three seconds of the manual clock, then
/// plays its first legal action.
struct Slow(ManualClock);

impl Bot for Slow {
    fn choose(&self, position: &Position, _: Level, _: u64) -> Option<Action> {
        self.0.advance(Duration::from_secs(3));
        position.legal_actions().first().copied()
    }
}

#[tokio::test]
async fn the_computers_thinking_counts_against_its_clock() {
    let db = TestDb::sqlite();
    let clock = manual_clock();
    let mut config = TestServer::config_with_clock(&db, &clock);
    config.bot = Arc::new(Slow(clock.clone()));
    let server = TestServer::start_with(config).await;
    let mut req = clocked(Opponent::Computer, 60, 0);
    req.level = Some(400);
    let created = server.create(&req).await;
    let mut host = server.connect().await;
    host.hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await;
    host.play_acked("c3").await;
    let state = host.event_at(2).await;
    assert_eq!(clock_of(&state), (60_000, 60_000, Some(Side::Goats)));
    host.play_acked(&state.legal[0]).await;
    let state = host.event_at(4).await;
    assert_eq!(clock_of(&state), (60_000, 57_000, Some(Side::Goats)));
    server.stop().await;
}
