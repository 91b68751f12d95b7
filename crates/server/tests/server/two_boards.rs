//! Two-board matches: two games at once with the sides crossed, one
//! socket and one version stream for both, commands addressed per board,
//! the match score in every state, a rematch that starts a new pair with
//! the same sides; watched, refused where it must be, durable.

use std::collections::HashMap;

use baghchal_protocol::{
    ClientMessage, CreateTable, ErrorCode, Format, GameRecord, GameState, MatchResult, Opponent,
    Player, ServerMessage, Side, TableEvent,
};

use crate::common::{request, spectator_token, Client, Seated, TestDb, TestServer};
use crate::on_both;

/// A two-board table.
fn two_boards(opponent: Opponent, spectators: u8) -> CreateTable {
    CreateTable {
        format: Format::TwoBoards,
        ..request(opponent, spectators)
    }
}

/// The next event: its board, the event and the state after it.
async fn next_event(client: &mut Client) -> (u8, TableEvent, GameState) {
    client
        .until(|m| match m {
            ServerMessage::Event {
                board,
                event,
                state,
                ..
            } => Some((
                board.expect("a two-board table's events name their board"),
                event.clone(),
                state.clone(),
            )),
            _ => None,
        })
        .await
}

/// The boards of a snapshot, by number.
fn snapshot_boards(replay: &[ServerMessage]) -> HashMap<u8, (Vec<String>, GameState)> {
    replay
        .iter()
        .find_map(|m| match m {
            ServerMessage::Snapshot { boards, .. } => Some(
                boards
                    .iter()
                    .map(|b| (b.state.board.unwrap(), (b.moves.clone(), b.state.clone())))
                    .collect(),
            ),
            _ => None,
        })
        .expect("a snapshot")
}

/// How one board's game ends.
#[derive(Clone, Copy, Debug)]
enum Ending {
    /// This player wins: the other resigns.
    Win(Player),
    /// Agreed: the host offers, the guest accepts.
    Draw,
}

impl Seated {
    fn seat(&mut self, player: Player) -> &mut Client {
        match player {
            Player::Host => &mut self.host,
            Player::Guest => &mut self.guest,
        }
    }

    /// Sends `message` from `player` and reads the events it causes
    /// (`events` of them) on both seats; returns the last as the host saw
    /// it.
    async fn command(
        &mut self,
        player: Player,
        message: ClientMessage,
        events: usize,
    ) -> (u8, TableEvent, GameState) {
        self.seat(player).send(&message).await;
        let mut last = None;
        for _ in 0..events {
            let seen = next_event(&mut self.host).await;
            assert_eq!(next_event(&mut self.guest).await, seen);
            last = Some(seen);
        }
        last.expect("at least one event")
    }

    /// Ends `board`'s game as `ending` says; returns the last state.
    async fn end(&mut self, board: u8, ending: Ending) -> GameState {
        let on = Some(board);
        let (_, _, state) = match ending {
            Ending::Win(winner) => {
                let loser = match winner {
                    Player::Host => Player::Guest,
                    Player::Guest => Player::Host,
                };
                let resign = ClientMessage::Resign {
                    id: None,
                    board: on,
                };
                self.command(loser, resign, 1).await
            }
            Ending::Draw => {
                let offer = ClientMessage::OfferDraw {
                    id: None,
                    board: on,
                };
                self.command(Player::Host, offer, 1).await;
                let accept = ClientMessage::AcceptDraw {
                    id: None,
                    board: on,
                };
                self.command(Player::Guest, accept, 1).await
            }
        };
        assert_eq!(state.board, on);
        assert!(state.result.is_some(), "board {board} is over: {state:?}");
        state
    }
}

async fn a_match_is_played_on_both_boards_scored_for_every_ending_and_watched(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &two_boards(Opponent::Friend, 1)).await;
    let ServerMessage::Welcome { table, .. } = &seated.host_welcome else {
        unreachable!()
    };
    assert_eq!(table.format, Format::TwoBoards);
    let mut spectator = server.connect().await;
    let watching = spectator
        .hello(seated.table(), &spectator_token(&seated.created), None)
        .await;
    let boards = snapshot_boards(&watching.replay);
    assert_eq!(boards.len(), 2);
    assert_eq!(boards[&1].1.host_side, Side::Goats);
    assert_eq!(boards[&2].1.host_side, Side::Tigers);
    for (_, state) in boards.values() {
        assert_eq!(state.side_to_move, Side::Goats);
        let score = state.match_state.unwrap();
        assert_eq!((score.number, score.host_wins, score.result), (1, 0, None));
    }

    // Both boards are played at once: the host's goats on board 1, the
    // guest's on board 2, each with its own turn.
    seated.host.play_acked_on(Some(1), "c3").await;
    seated.guest.play_acked_on(Some(2), "c3").await;
    // (The guest's wait for its ack passed over the host's event.)
    seated.guest.sync().await;
    let mut seen: Vec<(u8, TableEvent, GameState)> = seated
        .host
        .sync()
        .await
        .into_iter()
        .filter_map(|m| match m {
            ServerMessage::Event {
                board: Some(board),
                event,
                state,
                ..
            } => Some((board, event, state)),
            _ => None,
        })
        .collect();
    seen.sort_by_key(|(board, _, _)| *board);
    assert_eq!(seen.len(), 2);
    for (board, event, state) in &seen {
        assert_eq!(
            event,
            &TableEvent::Played {
                side: Side::Goats,
                action: "c3".into()
            }
        );
        assert_eq!((state.board, state.ply), (Some(*board), 1));
        assert_eq!(state.side_to_move, Side::Tigers);
    }

    // Every combination of endings, one match after another.
    use Ending::{Draw, Win};
    let host = Win(Player::Host);
    let guest = Win(Player::Guest);
    let cases = [
        (host, host, (2, 0, 0), Some(Player::Host)),
        (host, guest, (1, 1, 0), None),
        (guest, Draw, (0, 1, 1), Some(Player::Guest)),
        (Draw, host, (1, 0, 1), Some(Player::Host)),
        (Draw, Draw, (0, 0, 2), None),
        (guest, guest, (0, 2, 0), Some(Player::Guest)),
    ];
    let mut tally = (0, 0, 0);
    for (number, &(first, second, score, winner)) in (1..).zip(&cases) {
        let after_first = seated.end(1, first).await;
        let standing = after_first.match_state.unwrap();
        assert_eq!(standing.number, number);
        assert_eq!(standing.result, None, "one board is still being played");
        let end = seated.end(2, second).await;
        let standing = end.match_state.unwrap();
        assert_eq!(
            (standing.host_wins, standing.guest_wins, standing.draws),
            score,
            "{first:?} {second:?}"
        );
        assert_eq!(standing.result, Some(MatchResult { winner }));
        tally.0 += u32::from(score.0);
        tally.1 += u32::from(score.1);
        tally.2 += u32::from(score.2);
        assert_eq!((end.tally.host, end.tally.guest, end.tally.draws), tally);

        // The rematch is the match's: asked once, an offer on each board;
        // agreed once, a new game on each board with the sides kept.
        let ask = ClientMessage::Rematch { id: None };
        let (board, event, _) = seated.command(Player::Guest, ask.clone(), 2).await;
        assert_eq!(board, 2);
        assert_eq!(event, TableEvent::RematchOffered { side: Side::Goats });
        seated.host.send(&ask).await;
        let mut started = Vec::new();
        for _ in 0..2 {
            let seen = next_event(&mut seated.host).await;
            assert_eq!(next_event(&mut seated.guest).await, seen);
            started.push(seen);
        }
        for (board, (b, event, state)) in (1..).zip(started) {
            assert_eq!(b, board, "board 1's event comes first");
            assert!(
                matches!(event, TableEvent::RematchStarted { .. }),
                "{event:?}"
            );
            let expected = if board == 1 {
                Side::Goats
            } else {
                Side::Tigers
            };
            assert_eq!(state.host_side, expected);
            assert_eq!(state.result, None);
            assert_eq!(state.match_state.unwrap().number, number + 1);
        }
    }

    // The spectator saw every event of both boards, in version order.
    let mut watched = Vec::new();
    for m in spectator.sync().await {
        if let ServerMessage::Event { version, board, .. } = m {
            watched.push((version, board));
        }
    }
    assert_eq!(watched.len() as u64, seated.host.version);
    assert!(watched.windows(2).all(|w| w[1].0 == w[0].0 + 1));
    assert!(
        watched.iter().any(|(_, b)| *b == Some(1)) && watched.iter().any(|(_, b)| *b == Some(2))
    );
    let secret = seated.created.secret.clone().unwrap();
    assert!(
        spectator
            .frames
            .iter()
            .all(|f| !f.contains(&secret) && !f.contains(&seated.guest_secret)),
        "a spectator never sees a seat secret"
    );

    // Each board's games have their own records.
    let (status, body) = server
        .get(&format!("/api/tables/{}/games/1?board=2", seated.table()))
        .await;
    assert_eq!(status, 200, "{body}");
    let record: GameRecord = serde_json::from_str(&body).unwrap();
    assert_eq!((record.board, record.host_side), (Some(2), Side::Tigers));
    assert_eq!(record.moves, ["c3"]);
    for path in ["1?board=3", "1?board=x", "99?board=2"] {
        let (status, _) = server
            .get(&format!("/api/tables/{}/games/{path}", seated.table()))
            .await;
        assert_eq!(status, 404, "{path}");
    }
    server.stop().await;
}
on_both!(a_match_is_played_on_both_boards_scored_for_every_ending_and_watched);

async fn commands_on_no_board_a_missing_board_or_a_finished_one_are_refused(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &two_boards(Opponent::Friend, 1)).await;
    let action = |board: Option<u8>, action: &str| ClientMessage::Action {
        id: format!("x{}", board.unwrap_or(0)),
        action: action.into(),
        board,
    };
    for board in [None, Some(0), Some(3), Some(255)] {
        assert_eq!(
            seated.host.refusal(&action(board, "c3")).await,
            Some(ErrorCode::UnknownBoard),
            "{board:?}"
        );
    }
    let resign = ClientMessage::Resign {
        id: None,
        board: None,
    };
    assert_eq!(
        seated.host.refusal(&resign).await,
        Some(ErrorCode::UnknownBoard)
    );
    // Board 2's goats are the guest's.
    assert_eq!(
        seated.host.refusal(&action(Some(2), "c3")).await,
        Some(ErrorCode::NotYourTurn)
    );
    // No rematch while a board is being played.
    seated
        .command(
            Player::Host,
            ClientMessage::Resign {
                id: None,
                board: Some(1),
            },
            1,
        )
        .await;
    let rematch = ClientMessage::Rematch { id: None };
    assert_eq!(
        seated.guest.refusal(&rematch).await,
        Some(ErrorCode::GameNotOver)
    );
    // Board 1 is over; board 2 goes on.
    assert_eq!(
        seated.guest.refusal(&action(Some(1), "a1-b1")).await,
        Some(ErrorCode::GameOver)
    );
    seated.guest.play_acked_on(Some(2), "c3").await;
    // A spectator acts on no board.
    let mut spectator = server.connect().await;
    spectator
        .hello(seated.table(), &spectator_token(&seated.created), None)
        .await;
    assert_eq!(
        spectator.refusal(&action(Some(2), "a1-b1")).await,
        Some(ErrorCode::Spectator)
    );
    // Nothing refused changed anything: two events in all.
    seated.host.sync().await;
    assert_eq!(seated.host.version, 2);

    // At a single-game table, board 1 is the only one.
    let mut single = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    assert_eq!(
        single.host.refusal(&action(Some(2), "c3")).await,
        Some(ErrorCode::UnknownBoard)
    );
    single.host.play_acked_on(Some(1), "c3").await;
    let state = single.host.event_at(1).await;
    assert_eq!((state.board, state.match_state), (None, None));
    server.stop().await;
}
on_both!(commands_on_no_board_a_missing_board_or_a_finished_one_are_refused);

async fn a_reconnect_gets_both_boards_events_and_a_restart_keeps_both(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &two_boards(Opponent::Friend, 0)).await;
    seated.host.play_acked_on(Some(1), "c3").await;
    seated.guest.play_acked_on(Some(2), "b2").await;
    seated.host.sync().await;
    let seen = seated.host.version;
    assert_eq!(seen, 2);
    let host = std::mem::replace(&mut seated.host, server.connect().await);
    host.close().await;
    // While the host is away, the guest acts on both boards: a move on
    // board 1, a draw offer on board 2.
    seated.guest.play_acked_on(Some(1), "a1-b1").await;
    seated
        .guest
        .send(&ClientMessage::OfferDraw {
            id: None,
            board: Some(2),
        })
        .await;
    seated.guest.sync().await;
    let secret = seated.created.secret.clone().unwrap();
    let table = seated.table().to_owned();
    let joined = seated.host.hello(&table, &secret, Some(seen)).await;
    let missed: Vec<(u64, Option<u8>)> = joined
        .replay
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Event { version, board, .. } => Some((*version, *board)),
            _ => None,
        })
        .collect();
    assert_eq!(missed, [(3, Some(1)), (4, Some(2))]);

    // After a restart, the snapshot holds both boards as they were.
    let before = {
        let mut client = server.connect().await;
        snapshot_boards(&client.hello(seated.table(), &secret, None).await.replay)
    };
    server.stop().await;
    let server = TestServer::start(db).await;
    let mut client = server.connect().await;
    let after = snapshot_boards(&client.hello(seated.table(), &secret, None).await.replay);
    assert_eq!(after[&1].0, ["c3", "a1-b1"]);
    assert_eq!(after[&2].0, ["b2"]);
    for board in [1, 2] {
        assert_eq!(after[&board].0, before[&board].0);
        assert_eq!(after[&board].1.position, before[&board].1.position);
    }
    server.stop().await;
}
on_both!(a_reconnect_gets_both_boards_events_and_a_restart_keeps_both);

async fn the_computer_plays_both_boards_of_a_match_at_once(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut req = two_boards(Opponent::Computer, 0);
    req.level = Some(400);
    let created = server.create(&req).await;
    let mut host = server.connect().await;
    let joined = host
        .hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await;
    let mut states: HashMap<u8, GameState> = snapshot_boards(&joined.replay)
        .into_iter()
        .map(|(board, (_, state))| (board, state))
        .collect();
    // The host plays the first legal action on each board whenever it is
    // its turn there, until both games are over.
    let mut computer_moved = [false; 2];
    let mut pending = [false; 2];
    let mut last = None;
    while states.values().any(|s| s.result.is_none()) {
        for board in [1u8, 2] {
            let state = &states[&board];
            let i = usize::from(board) - 1;
            if !pending[i] && state.result.is_none() && state.side_to_move == state.host_side {
                let action = state.legal.first().expect("a legal action").clone();
                host.play_on(Some(board), &action).await;
                pending[i] = true;
            }
        }
        match host.recv().await {
            ServerMessage::Event {
                board: Some(board),
                event,
                state,
                ..
            } => {
                if let TableEvent::Played { side, .. } = event {
                    let i = usize::from(board) - 1;
                    if side == state.host_side {
                        pending[i] = false;
                    } else {
                        computer_moved[i] = true;
                    }
                }
                last = Some(state.clone());
                states.insert(board, state);
            }
            error @ ServerMessage::Error { .. } => panic!("refused: {error:?}"),
            _ => {}
        }
    }
    assert_eq!(
        computer_moved,
        [true, true],
        "the computer moved on both boards"
    );
    // The board that ended last carries the match's result.
    let standing = last.expect("events came").match_state.unwrap();
    assert_eq!(standing.host_wins + standing.guest_wins + standing.draws, 2);
    assert!(standing.result.is_some());
    // Against the computer the next pair starts at once.
    host.send(&ClientMessage::Rematch { id: None }).await;
    for board in [1, 2] {
        let (b, event, state) = next_event(&mut host).await;
        assert_eq!(b, board);
        assert!(
            matches!(event, TableEvent::RematchStarted { .. }),
            "{event:?}"
        );
        assert_eq!(state.match_state.unwrap().number, 2);
    }
    server.stop().await;
}
on_both!(the_computer_plays_both_boards_of_a_match_at_once);

async fn each_board_has_its_own_clock_and_flag(db: &TestDb) {
    use std::time::Duration;
    let clock = crate::common::manual_clock();
    let server = TestServer::start_with(TestServer::config_with_clock(db, &clock)).await;
    let mut req = two_boards(Opponent::Friend, 0);
    req.clock = Some(baghchal_protocol::TimeControl {
        initial: Some(5),
        increment: Some(0),
        days_per_action: None,
    });
    let mut seated = Seated::new(&server, &req).await;
    // Board 1: each side's first action; the host's goats' time runs.
    seated.host.play_acked_on(Some(1), "c3").await;
    seated.guest.play_acked_on(Some(1), "a1-a2").await;
    clock.advance(Duration::from_secs(2));
    // Board 2, two seconds later: the guest's goats' time runs.
    seated.guest.play_acked_on(Some(2), "c3").await;
    seated.host.play_acked_on(Some(2), "a1-a2").await;
    seated.guest.sync().await;
    let flagged = |m: &ServerMessage| match m {
        ServerMessage::Event {
            board: Some(board),
            event: TableEvent::Flagged { side },
            state,
            ..
        } => Some((*board, *side, state.clone())),
        _ => None,
    };
    // Five seconds on board 1's clock: only board 1 falls.
    clock.advance(Duration::from_secs(3));
    let (board, side, state) = seated.guest.until(flagged).await;
    assert_eq!((board, side), (1, Side::Goats));
    assert_eq!(state.result.unwrap().winner, Some(Side::Tigers));
    assert_eq!(state.match_state.unwrap().result, None);
    let seen = seated.guest.sync().await;
    assert!(seen.iter().all(|m| flagged(m).is_none()), "{seen:?}");
    // Board 2 goes on, and its guest's goats fall two seconds later.
    clock.advance(Duration::from_secs(2));
    let (board, side, state) = seated.guest.until(flagged).await;
    assert_eq!((board, side), (2, Side::Goats));
    let standing = state.match_state.unwrap();
    assert_eq!((standing.host_wins, standing.guest_wins), (1, 1));
    assert_eq!(standing.result, Some(MatchResult { winner: None }));
    server.stop().await;
}
on_both!(each_board_has_its_own_clock_and_flag);
