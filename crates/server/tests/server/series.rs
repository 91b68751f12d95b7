//! Series tables: games one after another with sides swapped, the score
//! in every state, the result as soon as the series is decided, a rematch
//! that starts a new series; durable across a restart.

use baghchal_protocol::{
    ClientMessage, CreateTable, ErrorCode, Format, GameState, Opponent, Player, SeriesResult,
    SeriesState, ServerMessage, Side, TableEvent,
};

use crate::common::{request, spectator_token, Client, Seated, TestDb, TestServer};
use crate::on_both;

/// A series table of `games` games.
fn series(opponent: Opponent, games: u8, spectators: u8) -> CreateTable {
    CreateTable {
        format: Format::Series,
        series_games: Some(games),
        ..request(opponent, spectators)
    }
}

/// The series of a state, which a series table always has.
fn standing(state: &GameState) -> SeriesState {
    state.series.expect("a series table's state has its series")
}

/// The next event and the state after it.
async fn next_event(client: &mut Client) -> (TableEvent, GameState) {
    client
        .until(|m| match m {
            ServerMessage::Event { event, state, .. } => Some((event.clone(), state.clone())),
            _ => None,
        })
        .await
}

/// The score as (host wins, guest wins, draws).
fn score(series: &SeriesState) -> (u8, u8, u8) {
    (series.host_wins, series.guest_wins, series.draws)
}

impl Seated {
    /// The seat of `player`.
    fn client(&mut self, player: Player) -> &mut Client {
        match player {
            Player::Host => &mut self.host,
            Player::Guest => &mut self.guest,
        }
    }

    /// Plays one game of a series where the host holds `host_side`:
    /// whoever holds the goats places on c3, then `ender` resigns (or,
    /// with `None`, the goats offer a draw and the tigers accept). Returns
    /// the final state, as the host saw it.
    async fn one_game(&mut self, host_side: Side, ender: Option<Player>) -> GameState {
        let goats = if host_side == Side::Goats {
            Player::Host
        } else {
            Player::Guest
        };
        let tigers = match goats {
            Player::Host => Player::Guest,
            Player::Guest => Player::Host,
        };
        self.client(goats).play_acked("c3").await;
        next_event(&mut self.host).await;
        next_event(&mut self.guest).await;
        match ender {
            Some(player) => {
                self.client(player)
                    .send(&ClientMessage::Resign {
                        id: None,
                        board: None,
                    })
                    .await;
            }
            None => {
                self.client(goats)
                    .send(&ClientMessage::OfferDraw {
                        id: None,
                        board: None,
                    })
                    .await;
                next_event(&mut self.host).await;
                next_event(&mut self.guest).await;
                self.client(tigers)
                    .send(&ClientMessage::AcceptDraw {
                        id: None,
                        board: None,
                    })
                    .await;
            }
        }
        next_event(&mut self.guest).await;
        let (_, end) = next_event(&mut self.host).await;
        assert!(end.result.is_some(), "the game is over: {end:?}");
        end
    }

    /// `player` asks for the next game; returns the new game's state as
    /// both seats saw it (they must agree).
    async fn next_game(&mut self, player: Player) -> GameState {
        self.client(player)
            .send(&ClientMessage::Rematch { id: None })
            .await;
        let (event, state) = next_event(&mut self.host).await;
        assert!(
            matches!(event, TableEvent::RematchStarted { .. }),
            "a series goes on without an offer to answer: {event:?}"
        );
        let (_, seen) = next_event(&mut self.guest).await;
        assert_eq!(seen, state);
        state
    }
}

async fn a_series_of_four_is_played_to_the_end_with_sides_swapped_and_watched(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &series(Opponent::Friend, 4, 1)).await;
    let ServerMessage::Welcome { table, .. } = &seated.host_welcome else {
        unreachable!()
    };
    assert_eq!(
        (table.format, table.series_games),
        (Format::Series, Some(4))
    );
    let mut spectator = server.connect().await;
    let watching = spectator
        .hello(seated.table(), &spectator_token(&seated.created), None)
        .await;
    let (_, _, mut state) = watching.snapshot().unwrap();
    assert_eq!(
        standing(&state),
        SeriesState {
            number: 1,
            games: 4,
            game: 1,
            host_wins: 0,
            guest_wins: 0,
            draws: 0,
            result: None
        }
    );
    // Host wins, guest wins, a draw, host wins: 2½ to 1½ for the host
    // (each pair: who resigns, or a draw; the score after).
    let plan = [
        (Some(Player::Guest), (1, 0, 0)),
        (Some(Player::Host), (1, 1, 0)),
        (None, (1, 1, 1)),
        (Some(Player::Guest), (2, 1, 1)),
    ];
    let mut sides = Vec::new();
    for (n, (ender, after)) in plan.into_iter().enumerate() {
        let place = u8::try_from(n + 1).unwrap();
        assert_eq!(standing(&state).game, place);
        sides.push(state.host_side);
        let end = seated.one_game(state.host_side, ender).await;
        let series = standing(&end);
        assert_eq!(score(&series), after, "after game {place}");
        assert_eq!(series.game, place);
        if place < 4 {
            assert_eq!(series.result, None, "after game {place}");
            // Either player starts the next game, at once.
            let by = if place % 2 == 1 {
                Player::Guest
            } else {
                Player::Host
            };
            state = seated.next_game(by).await;
            assert_eq!(state.game, u32::from(place) + 1);
            assert_ne!(state.host_side, end.host_side, "sides swapped");
            assert_eq!(score(&standing(&state)), after);
        } else {
            assert_eq!(
                series.result,
                Some(SeriesResult {
                    winner: Some(Player::Host)
                })
            );
            state = end;
        }
    }
    assert_eq!(
        sides,
        [Side::Goats, Side::Tigers, Side::Goats, Side::Tigers]
    );
    assert_eq!(
        (state.tally.host, state.tally.guest, state.tally.draws),
        (2, 1, 1)
    );
    // The spectator saw the same series end.
    let seen = spectator
        .until(|m| match m {
            ServerMessage::Event { state: s, .. } if s == &state => Some(s.clone()),
            _ => None,
        })
        .await;
    assert_eq!(standing(&seen).result, state.series.unwrap().result);
    // The spectator cannot start anything.
    assert_eq!(
        spectator
            .refusal(&ClientMessage::Rematch { id: None })
            .await,
        Some(ErrorCode::Spectator)
    );

    // After a decided series a rematch is offered and answered as at any
    // table between two people, and starts a new series.
    seated
        .guest
        .send(&ClientMessage::Rematch { id: None })
        .await;
    let (event, _) = next_event(&mut seated.host).await;
    assert_eq!(event, TableEvent::RematchOffered { side: Side::Goats });
    next_event(&mut seated.guest).await;
    let fresh = seated.next_game(Player::Host).await;
    assert_eq!(fresh.game, 5);
    assert_eq!(fresh.host_side, Side::Goats);
    assert_eq!(
        standing(&fresh),
        SeriesState {
            number: 2,
            games: 4,
            game: 1,
            host_wins: 0,
            guest_wins: 0,
            draws: 0,
            result: None
        }
    );
    server.stop().await;
}
on_both!(a_series_of_four_is_played_to_the_end_with_sides_swapped_and_watched);

async fn a_series_ends_once_one_player_can_no_longer_be_caught_and_survives_a_restart(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &series(Opponent::Friend, 4, 0)).await;
    // The guest loses the first two games.
    let mut host_side = Side::Goats;
    let mut state = None;
    for place in 1..=2u8 {
        let end = seated.one_game(host_side, Some(Player::Guest)).await;
        assert_eq!(score(&standing(&end)), (place, 0, 0));
        let next = seated.next_game(Player::Host).await;
        host_side = next.host_side;
        state = Some(next);
    }
    let state = state.unwrap();
    let before = state.clone();
    server.stop().await;

    // A new server (or another node) loads the table from the store: the
    // same series, at the same game.
    let server = TestServer::start(db).await;
    let table = seated.table().to_owned();
    let mut host = server.connect().await;
    let (_, _, reloaded) = host
        .hello(&table, seated.created.secret.as_deref().unwrap(), None)
        .await
        .snapshot()
        .unwrap();
    assert_eq!(reloaded.series, before.series);
    assert_eq!(reloaded.host_side, before.host_side);
    assert_eq!(reloaded.game, 3);
    let mut guest = server.connect().await;
    guest.hello(&table, &seated.guest_secret, None).await;
    // The new sockets go on with the seats' action ids: an id already
    // accepted would only be acknowledged again.
    host.continue_ids(&seated.host);
    guest.continue_ids(&seated.guest);
    seated.host = host;
    seated.guest = guest;

    // A third loss leaves the guest 3 to 0 down with one game left: the
    // series is over.
    let end = seated
        .one_game(reloaded.host_side, Some(Player::Guest))
        .await;
    let series = standing(&end);
    assert_eq!(score(&series), (3, 0, 0));
    assert_eq!((series.game, series.games), (3, 4));
    assert_eq!(
        series.result,
        Some(SeriesResult {
            winner: Some(Player::Host)
        })
    );
    // No fourth game: asking is now a rematch request, for a new series.
    seated.host.send(&ClientMessage::Rematch { id: None }).await;
    let (event, _) = next_event(&mut seated.guest).await;
    assert!(
        matches!(event, TableEvent::RematchOffered { .. }),
        "{event:?}"
    );
    server.stop().await;
}
on_both!(a_series_ends_once_one_player_can_no_longer_be_caught_and_survives_a_restart);

async fn an_aborted_game_of_a_series_is_played_again_with_the_same_sides(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &series(Opponent::Friend, 2, 0)).await;
    seated
        .host
        .send(&ClientMessage::Abort {
            id: None,
            board: None,
        })
        .await;
    let (_, aborted) = next_event(&mut seated.host).await;
    next_event(&mut seated.guest).await;
    assert_eq!(score(&standing(&aborted)), (0, 0, 0));
    let again = seated.next_game(Player::Guest).await;
    assert_eq!(again.game, 2);
    assert_eq!(again.host_side, Side::Goats, "the same sides again");
    assert_eq!(standing(&again).game, 1, "still the series' first game");
    let end = seated.one_game(again.host_side, Some(Player::Host)).await;
    assert_eq!(score(&standing(&end)), (0, 1, 0));
    let second = seated.next_game(Player::Host).await;
    assert_eq!(second.host_side, Side::Tigers);
    assert_eq!(standing(&second).game, 2);
    server.stop().await;
}
on_both!(an_aborted_game_of_a_series_is_played_again_with_the_same_sides);

async fn a_series_against_the_computer_goes_game_after_game(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut req = series(Opponent::Computer, 2, 0);
    req.level = Some(400);
    let created = server.create(&req).await;
    let mut host = server.connect().await;
    let (_, _, state) = host
        .hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await
        .snapshot()
        .unwrap();
    assert_eq!(state.host_side, Side::Goats);
    host.send(&ClientMessage::Resign {
        id: None,
        board: None,
    })
    .await;
    let (_, end) = next_event(&mut host).await;
    assert_eq!(score(&standing(&end)), (0, 1, 0));
    assert_eq!(standing(&end).result, None);
    host.send(&ClientMessage::Rematch { id: None }).await;
    let (event, second) = next_event(&mut host).await;
    assert!(matches!(event, TableEvent::RematchStarted { game: 2 }));
    assert_eq!(second.host_side, Side::Tigers);
    // The computer holds the goats now and opens the game.
    let (event, _) = next_event(&mut host).await;
    assert!(
        matches!(
            event,
            TableEvent::Played {
                side: Side::Goats,
                ..
            }
        ),
        "{event:?}"
    );
    host.send(&ClientMessage::Resign {
        id: None,
        board: None,
    })
    .await;
    let (_, end) = next_event(&mut host).await;
    let series = standing(&end);
    assert_eq!(score(&series), (0, 2, 0));
    assert_eq!(
        series.result,
        Some(SeriesResult {
            winner: Some(Player::Guest)
        })
    );
    // A rematch against the computer starts a new series at once.
    host.send(&ClientMessage::Rematch { id: None }).await;
    let (_, fresh) = next_event(&mut host).await;
    assert_eq!(standing(&fresh).number, 2);
    assert_eq!(score(&standing(&fresh)), (0, 0, 0));
    server.stop().await;
}
on_both!(a_series_against_the_computer_goes_game_after_game);

async fn series_requests_out_of_range_are_refused_naming_the_field(db: &TestDb) {
    let server = TestServer::start(db).await;
    for (body, field) in [
        (r#"{"opponent":"friend","format":"series"}"#, "series_games"),
        (
            r#"{"opponent":"friend","format":"series","series_games":3}"#,
            "series_games",
        ),
        (
            r#"{"opponent":"friend","format":"series","series_games":0}"#,
            "series_games",
        ),
        (
            r#"{"opponent":"friend","format":"series","series_games":300}"#,
            "series_games",
        ),
        (r#"{"opponent":"friend","series_games":4}"#, "series_games"),
        (
            r#"{"opponent":"friend","format":"two_boards","series_games":2}"#,
            "series_games",
        ),
        (r#"{"opponent":"bots","format":"two_boards"}"#, "format"),
        (r#"{"opponent":"friend","format":"match"}"#, "format"),
    ] {
        let (status, answer) = server.post("/api/tables", body).await;
        assert_eq!(status, 422, "{body}: {answer}");
        let error: baghchal_protocol::ApiError = serde_json::from_str(&answer).unwrap();
        assert_eq!(error.field.as_deref(), Some(field), "{body}");
    }
    server.stop().await;
}
on_both!(series_requests_out_of_range_are_refused_naming_the_field);

async fn a_single_game_table_says_nothing_of_formats_on_the_wire(db: &TestDb) {
    let server = TestServer::start(db).await;
    for body in [
        r#"{"opponent":"friend"}"#,
        r#"{"opponent":"friend","format":"single"}"#,
    ] {
        let (status, answer) = server.post("/api/tables", body).await;
        assert_eq!(status, 201, "{answer}");
        let created: baghchal_protocol::TableCreated = serde_json::from_str(&answer).unwrap();
        let mut host = server.connect().await;
        host.hello(&created.table, created.secret.as_deref().unwrap(), None)
            .await;
        for frame in &host.frames {
            assert!(
                !frame.contains("series") && !frame.contains("format"),
                "{frame}"
            );
        }
    }
    server.stop().await;
}
on_both!(a_single_game_table_says_nothing_of_formats_on_the_wire);
