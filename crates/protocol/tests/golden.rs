//! Golden-JSON tests: every message of the protocol has one example file in
//! `tests/fixtures/protocol/` (shared with the page's tests and quoted in
//! `docs/protocol.md`). Each example must serialize to exactly its file and
//! parse back to itself, and every file must belong to an example.
//!
//! After a deliberate change of the wire format, rewrite the files with
//! `BLESS=1 cargo test -p baghchal-protocol --test golden` and review the diff.

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::path::PathBuf;

use baghchal_protocol::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// The goats' chance of the review's first example before and after its
/// action (`baghchal_engine::chance::goats_percent` of -250 and -2310).
const GOATS_BEFORE: u8 = 89;
const GOATS_AFTER: u8 = 84;

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/protocol")
}

/// Parses a golden file and checks it equals the example.
type Roundtrip = Box<dyn Fn(&str) -> Result<(), String>>;

/// One example message and the name of its file.
struct Example {
    name: &'static str,
    json: Value,
    roundtrip: Roundtrip,
}

fn example<T>(name: &'static str, value: T) -> Example
where
    T: Serialize + DeserializeOwned + PartialEq + Debug + 'static,
{
    let json = serde_json::to_value(&value).expect("examples serialize");
    Example {
        name,
        json,
        roundtrip: Box::new(move |text| {
            let parsed: T = serde_json::from_str(text).map_err(|e| e.to_string())?;
            if parsed == value {
                Ok(())
            } else {
                Err(format!("parsed {parsed:?}, expected {value:?}"))
            }
        }),
    }
}

fn lobby_challenge() -> Challenge {
    Challenge {
        id: "Wm4tQ8zLr2NcVb6Xp0JaKd".into(),
        player: LobbyPlayer {
            id: "Jq3vX9mKp2LwTz8RbN4cYe".into(),
            name: Some("GoatHerd".into()),
            rating: 1623,
            provisional: false,
        },
        side: SideChoice::Random,
        clock: Some(TimeControl {
            initial: Some(180),
            increment: Some(2),
            days_per_action: None,
        }),
        speed: "blitz".into(),
        rated: true,
        min_rating: Some(1300),
        max_rating: Some(1900),
    }
}

fn lobby_state() -> LobbyState {
    LobbyState {
        challenges: vec![lobby_challenge()],
        pools: ["1+1", "3+2", "5+3", "10+5", "15+10", "1d"]
            .iter()
            .zip([
                "bullet",
                "blitz",
                "blitz",
                "rapid",
                "rapid",
                "correspondence",
            ])
            .zip([0, 3, 1, 0, 0, 2])
            .map(|((id, speed), waiting)| PoolView {
                id: (*id).into(),
                speed: speed.into(),
                waiting,
            })
            .collect(),
        players_online: 42,
        games_in_play: 17,
    }
}

fn state() -> GameState {
    GameState {
        game: 1,
        position: "T...T/...../..G../...../T...T t 19 0 1".into(),
        side_to_move: Side::Tigers,
        phase: Phase::Placement,
        in_hand: 19,
        eaten: 0,
        goats_to_win: 5,
        trapped_tigers: 0,
        tigers: 4,
        ply: 1,
        ply_limit: 400,
        legal: vec![
            "a1-a2".into(),
            "a1-b1".into(),
            "a1-b2".into(),
            "a5-a4".into(),
            "a5-b4".into(),
            "a5-b5".into(),
            "e1-d1".into(),
            "e1-d2".into(),
            "e1-e2".into(),
            "e5-d4".into(),
            "e5-d5".into(),
            "e5-e4".into(),
        ],
        last_action: Some("c3".into()),
        result: None,
        draw_offer: None,
        rematch_offer: None,
        host_side: Side::Goats,
        tally: Tally::default(),
        clock: None,
        abortable: true,
        series: None,
        board: None,
        match_state: None,
    }
}

/// A state at a clocked table (3 minutes + 2 seconds), goats to move
/// after each side's first action: the goats' time runs.
fn clocked_state() -> GameState {
    GameState {
        position: "T..../...T./..G../...../T...T g 19 0 2".into(),
        side_to_move: Side::Goats,
        ply: 2,
        legal: vec![
            "a2", "a3", "a4", "b1", "b2", "b3", "b4", "b5", "c1", "c2", "c4", "c5", "d1", "d2",
            "d3", "d5", "e2", "e3", "e4", "e5",
        ]
        .into_iter()
        .map(Into::into)
        .collect(),
        last_action: Some("e5-d4".into()),
        clock: Some(ClockState {
            goats_ms: 180_000,
            tigers_ms: 180_000,
            running: Some(Side::Goats),
            turn_started_at: Some("2026-12-01T21:30:04.250Z".into()),
            now: "2026-12-01T21:30:05.012Z".into(),
        }),
        abortable: false,
        ..state()
    }
}

/// A clocked game that ended on time.
fn flagged_state() -> GameState {
    GameState {
        legal: vec![],
        result: Some(GameResult {
            winner: Some(Side::Tigers),
            reason: EndReason::Timeout,
        }),
        clock: Some(ClockState {
            goats_ms: 0,
            tigers_ms: 180_000,
            running: None,
            turn_started_at: None,
            now: "2026-12-01T21:33:05.250Z".into(),
        }),
        tally: Tally {
            host: 0,
            guest: 1,
            draws: 0,
        },
        ..clocked_state()
    }
}

fn finished_state() -> GameState {
    GameState {
        legal: vec![],
        result: Some(GameResult {
            winner: Some(Side::Goats),
            reason: EndReason::Resignation,
        }),
        abortable: false,
        ..state()
    }
}

/// `state` as board `board` of a two-board match that has just begun.
fn match_state(board: u8, state: GameState) -> GameState {
    GameState {
        board: Some(board),
        match_state: Some(MatchState {
            number: 1,
            host_wins: 0,
            guest_wins: 0,
            draws: 0,
            result: None,
        }),
        ..state
    }
}

/// Board 2 of a two-board match before its first action: the host has
/// the tigers, the guest's goats are to place.
fn board_two_start() -> GameState {
    GameState {
        position: "T...T/...../...../...../T...T g 20 0 0".into(),
        side_to_move: Side::Goats,
        in_hand: 20,
        ply: 0,
        legal: [
            "b1", "c1", "d1", "a2", "b2", "c2", "d2", "e2", "a3", "b3", "c3", "d3", "e3", "a4",
            "b4", "c4", "d4", "e4", "b5", "c5", "d5",
        ]
        .map(Into::into)
        .to_vec(),
        last_action: None,
        host_side: Side::Tigers,
        ..state()
    }
}

fn table_info() -> TableInfo {
    TableInfo {
        id: "q7Xc2LmN0pRsTuVwYz1A3b".into(),
        opponent: Opponent::Friend,
        level: None,
        variant: Variant::default(),
        clock: None,
        format: Format::Single,
        series_games: None,
    }
}

fn event(version: u64, event: TableEvent, state: GameState) -> ServerMessage {
    ServerMessage::Event {
        version,
        board: None,
        event,
        state,
    }
}

fn examples() -> Vec<Example> {
    let secret = "Zq3v9K2mXbT7yLp0Wn5cR8dF1hJ4sA6e";
    let public = "https://baghchal.example";
    let table = "q7Xc2LmN0pRsTuVwYz1A3b";
    vec![
        // HTTP
        example(
            "http.create_table.friend",
            CreateTable {
                opponent: Opponent::Friend,
                side: Side::Goats,
                level: None,
                spectators: 2,
                variant: Variant::default(),
                clock: None,
                format: Format::Single,
                series_games: None,
            },
        ),
        example(
            "http.create_table.computer",
            CreateTable {
                opponent: Opponent::Computer,
                side: Side::Tigers,
                level: Some(1600),
                spectators: 0,
                variant: Variant {
                    goats_to_win: Some(4),
                    multi_jump: true,
                    repetition: Repetition::ThreefoldDraw,
                    ..Variant::default()
                },
                clock: None,
                format: Format::Single,
                series_games: None,
            },
        ),
        example(
            "http.create_table.clock",
            CreateTable {
                opponent: Opponent::Friend,
                side: Side::Goats,
                level: None,
                spectators: 0,
                variant: Variant::default(),
                clock: Some(TimeControl {
                    initial: Some(180),
                    increment: Some(2),
                    days_per_action: None,
                }),
                format: Format::Single,
                series_games: None,
            },
        ),
        example(
            "http.create_table.correspondence",
            CreateTable {
                opponent: Opponent::Computer,
                side: Side::Tigers,
                level: Some(1200),
                spectators: 0,
                variant: Variant::default(),
                clock: Some(TimeControl {
                    initial: None,
                    increment: None,
                    days_per_action: Some(2),
                }),
                format: Format::Single,
                series_games: None,
            },
        ),
        example(
            "http.create_table.bots",
            CreateTable {
                opponent: Opponent::Bots,
                side: Side::Goats,
                level: Some(2400),
                spectators: 12,
                variant: Variant::default(),
                clock: None,
                format: Format::Single,
                series_games: None,
            },
        ),
        example(
            "http.create_table.series",
            CreateTable {
                opponent: Opponent::Friend,
                side: Side::Goats,
                level: None,
                spectators: 1,
                variant: Variant::default(),
                clock: None,
                format: Format::Series,
                series_games: Some(4),
            },
        ),
        example(
            "http.create_table.two_boards",
            CreateTable {
                opponent: Opponent::Computer,
                side: Side::Goats,
                level: Some(1600),
                spectators: 1,
                variant: Variant::default(),
                clock: None,
                format: Format::TwoBoards,
                series_games: None,
            },
        ),
        example(
            "http.table_created.friend",
            TableCreated {
                table: table.into(),
                secret: Some(secret.into()),
                side: Some(Side::Goats),
                seat_link: Some(format!("{public}/t/{table}#seat={secret}")),
                opponent_link: Some(format!(
                    "{public}/t/{table}#invite=b4Nf8Qw2Er6Ty0Ui3Op7As1Df5Gh9Jk2"
                )),
                spectator_link: Some(format!(
                    "{public}/t/{table}#watch=Lz4Xc8Vb2Nm6Qw0Er3Ty7Ui1Op5As9Df"
                )),
            },
        ),
        example(
            "http.table_created.bots",
            TableCreated {
                table: table.into(),
                secret: None,
                side: None,
                seat_link: None,
                opponent_link: None,
                spectator_link: Some(format!(
                    "{public}/t/{table}#watch=Lz4Xc8Vb2Nm6Qw0Er3Ty7Ui1Op5As9Df"
                )),
            },
        ),
        example(
            "http.me",
            Me {
                id: "Jq3vX9mKp2LwTz8RbN4cYe".into(),
                name: Some("GoatHerd".into()),
                ratings: vec![RatingView {
                    speed: "blitz".into(),
                    rating: 1623,
                    deviation: 74,
                    provisional: false,
                    games: 31,
                }],
                playing: vec![PlayingGame {
                    table: table.into(),
                    url: format!("{public}/t/{table}"),
                    lobby: true,
                }],
            },
        ),
        example(
            "http.me.anonymous",
            Me {
                id: "Jq3vX9mKp2LwTz8RbN4cYe".into(),
                name: None,
                ratings: vec![],
                playing: vec![],
            },
        ),
        example(
            "http.blocks",
            BlockList {
                players: vec![
                    BlockedPlayer {
                        id: "Hb7nR2xQk9VmLp4TzW1cUe".into(),
                        name: Some("Tigress".into()),
                    },
                    BlockedPlayer {
                        id: "Xv5pL0wQe3RtYu8IoPa2Sd".into(),
                        name: None,
                    },
                ],
            },
        ),
        example(
            "http.account_credentials",
            AccountCredentials {
                name: "GoatHerd".into(),
                password: "correct horse battery".into(),
            },
        ),
        example(
            "http.password_change",
            PasswordChange {
                password: "correct horse battery".into(),
                new_password: "staple tiger meadow".into(),
            },
        ),
        example(
            "http.account_closing",
            AccountClosing {
                password: "correct horse battery".into(),
            },
        ),
        example(
            "http.create_challenge",
            CreateChallenge {
                side: SideChoice::Random,
                clock: Some(TimeControl {
                    initial: Some(180),
                    increment: Some(2),
                    days_per_action: None,
                }),
                rated: true,
                min_rating: Some(1300),
                max_rating: Some(1900),
            },
        ),
        example("http.challenge", lobby_challenge()),
        example("http.lobby_state", lobby_state()),
        example(
            "http.paired",
            Paired {
                table: table.into(),
                url: format!("{public}/t/{table}"),
            },
        ),
        example(
            "http.pool_joined",
            PoolJoined {
                pool: "3+2".into(),
                rated: true,
            },
        ),
        example("http.lobby_event.state", LobbyEvent::State(lobby_state())),
        example(
            "http.live_games",
            LiveGames {
                games: vec![LiveGame {
                    table: table.into(),
                    url: format!("{public}/t/{table}"),
                    speed: "blitz".into(),
                    clock: Some(TimeControl {
                        initial: Some(300),
                        increment: Some(3),
                        days_per_action: None,
                    }),
                    rated: true,
                    goats: LobbyPlayer {
                        id: "Jq3vX9mKp2LwTz8RbN4cYe".into(),
                        name: Some("GoatHerd".into()),
                        rating: 1623,
                        provisional: false,
                    },
                    tigers: LobbyPlayer {
                        id: "Hb7nR2xQk9VmLp4TzW1cUe".into(),
                        name: Some("Tigress".into()),
                        rating: 1580,
                        provisional: true,
                    },
                }],
            },
        ),
        example(
            "http.lobby_event.paired",
            LobbyEvent::Paired(Paired {
                table: table.into(),
                url: format!("{public}/t/{table}"),
            }),
        ),
        example(
            "http.api_error",
            ApiError {
                error: ApiErrorCode::InvalidField,
                field: Some("level".into()),
                message: "level must be 400 to 2400 in steps of 100, not 1250".into(),
            },
        ),
        example(
            "http.game_record",
            GameRecord {
                table: table.into(),
                game: 1,
                board: None,
                variant: Variant::default(),
                host_side: Side::Goats,
                moves: vec!["c3".into(), "a1-b2".into()],
                result: Some(GameResult {
                    winner: Some(Side::Tigers),
                    reason: EndReason::Resignation,
                }),
                record: "rules standard\nactions c3 a1-b2\nresult tigers resignation\n".into(),
                ratings: None,
            },
        ),
        example(
            "http.game_record.rated",
            GameRecord {
                table: table.into(),
                game: 1,
                board: None,
                variant: Variant::default(),
                host_side: Side::Goats,
                moves: vec!["c3".into(), "a1-b2".into()],
                result: Some(GameResult {
                    winner: Some(Side::Tigers),
                    reason: EndReason::Resignation,
                }),
                record: "rules standard\nactions c3 a1-b2\nresult tigers resignation\n".into(),
                ratings: Some(GameRatings {
                    goats: RatingChange {
                        before: 1623,
                        after: 1611,
                        change: -12,
                    },
                    tigers: RatingChange {
                        before: 1580,
                        after: 1587,
                        change: 7,
                    },
                }),
            },
        ),
        example(
            "http.game_analysis",
            GameAnalysis {
                version: ANALYSIS_VERSION,
                table: table.into(),
                game: 1,
                actions: vec![
                    ActionReview {
                        ply: 0,
                        side: Side::Goats,
                        action: "c3".into(),
                        before: Evaluation::Estimate {
                            goats_percent: GOATS_BEFORE,
                            score: -250,
                        },
                        after: Evaluation::Estimate {
                            goats_percent: GOATS_AFTER,
                            score: -2310,
                        },
                        best: "a3".into(),
                        lost: GOATS_BEFORE - GOATS_AFTER,
                    },
                    ActionReview {
                        ply: 38,
                        side: Side::Goats,
                        action: "d1".into(),
                        before: Evaluation::Solved {
                            result: Outcome::Draw,
                            plies: 0,
                        },
                        after: Evaluation::Proved {
                            result: Outcome::Loss,
                            plies: 22,
                            solved: Some(SolvedValue {
                                result: Outcome::Loss,
                                plies: 28,
                            }),
                        },
                        best: "e2".into(),
                        lost: 50,
                    },
                    ActionReview {
                        ply: 61,
                        side: Side::Tigers,
                        action: "b2-c3".into(),
                        before: Evaluation::Proved {
                            result: Outcome::Win,
                            plies: 7,
                            solved: None,
                        },
                        after: Evaluation::Solved {
                            result: Outcome::Draw,
                            plies: 0,
                        },
                        best: "a1xc1".into(),
                        lost: 50,
                    },
                    ActionReview {
                        ply: 62,
                        side: Side::Goats,
                        action: "c1-d1".into(),
                        before: Evaluation::Solved {
                            result: Outcome::Draw,
                            plies: 0,
                        },
                        after: Evaluation::Solved {
                            result: Outcome::Loss,
                            plies: 40,
                        },
                        best: "c1-b1".into(),
                        lost: 50,
                    },
                ],
            },
        ),
        example(
            "http.analysis_request.line",
            AnalysisRequest {
                actions: vec!["c3".into(), "a1-b2".into()],
                ..AnalysisRequest::default()
            },
        ),
        example(
            "http.analysis_request.start",
            AnalysisRequest {
                variant: Some(Variant {
                    repetition: Repetition::ThreefoldDraw,
                    ..Variant::default()
                }),
                start: Some("T...T/GGGGG/GGGGG/GG.GG/TG.GT g 0 4 100".into()),
                actions: vec!["c3-c2".into()],
                game: None,
            },
        ),
        example(
            "http.analysis_request.game",
            AnalysisRequest {
                game: Some(PastedGame {
                    format: Some(NotationFormat::Pypi),
                    text: "1. G33 B1122 2. G44".into(),
                }),
                ..AnalysisRequest::default()
            },
        ),
        example(
            "http.analysis_request.detected",
            AnalysisRequest {
                game: Some(PastedGame {
                    format: None,
                    text: "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #\n\
                           TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 #g1\n\
                           TXXXT/XXXXX/XXGXX/XTXXX/XXXXT g c0 mA5B4 #t1\n"
                        .into(),
                }),
                ..AnalysisRequest::default()
            },
        ),
        example(
            "http.analysis_board",
            AnalysisBoard {
                variant: Variant {
                    goats_to_win: Some(5),
                    ..Variant::default()
                },
                start: "T...T/GGGGG/GGGGG/GG.GG/TG.GT g 0 4 100".into(),
                actions: vec!["c3-c2".into()],
                position: "T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 101".into(),
                side_to_move: Side::Tigers,
                phase: Phase::Movement,
                in_hand: 0,
                eaten: 4,
                goats_to_win: 5,
                ply: 101,
                ply_limit: 400,
                result: None,
                legal: [
                    (
                        "a1xc1",
                        Evaluation::Over {
                            result: Outcome::Win,
                        },
                    ),
                    (
                        "a1xc3",
                        Evaluation::Over {
                            result: Outcome::Win,
                        },
                    ),
                    (
                        "a5xc3",
                        Evaluation::Over {
                            result: Outcome::Win,
                        },
                    ),
                    (
                        "e1xc1",
                        Evaluation::Over {
                            result: Outcome::Win,
                        },
                    ),
                    (
                        "e1xc3",
                        Evaluation::Over {
                            result: Outcome::Win,
                        },
                    ),
                    (
                        "e5xc3",
                        Evaluation::Over {
                            result: Outcome::Win,
                        },
                    ),
                    (
                        "a5-b5",
                        Evaluation::Solved {
                            result: Outcome::Win,
                            plies: 3,
                        },
                    ),
                    (
                        "e5-d5",
                        Evaluation::Solved {
                            result: Outcome::Win,
                            plies: 3,
                        },
                    ),
                ]
                .into_iter()
                .map(|(action, evaluation)| ActionValue {
                    action: action.into(),
                    evaluation,
                })
                .collect(),
                best: Some("a1xc1".into()),
                game_format: None,
            },
        ),
        example(
            "http.analysis_board.finished",
            AnalysisBoard {
                variant: Variant {
                    goats_to_win: Some(5),
                    ..Variant::default()
                },
                start: "T...T/GGGGG/GGGGG/GG.GG/TG.GT g 0 4 100".into(),
                actions: vec!["c3-c2".into(), "a1xc3".into()],
                position: "T...T/GGGGG/GGTGG/G.GGG/.G.GT g 0 5 102".into(),
                side_to_move: Side::Goats,
                phase: Phase::Movement,
                in_hand: 0,
                eaten: 5,
                goats_to_win: 5,
                ply: 102,
                ply_limit: 400,
                result: Some(GameResult {
                    winner: Some(Side::Tigers),
                    reason: EndReason::CaptureTarget,
                }),
                legal: vec![],
                best: None,
                game_format: None,
            },
        ),
        example(
            "http.puzzle",
            PuzzleView {
                id: "00044befaf8a0000".into(),
                position: ".G.TT/GGTGT/G.GGG/.GGGG/GGG.G t 0 4 65".into(),
                side_to_move: Side::Tigers,
                themes: vec!["capture".into(), "endgame".into()],
                rating: 1100,
                rating_deviation: 350,
                plays: 0,
                solution: vec!["c4-c5".into(), "b5-a5".into(), "e4xc4".into()],
                legal: vec!["c4-c5".into(), "d5-c5".into()],
                player: Some(PuzzleRating {
                    rating: 1500,
                    deviation: 500,
                    provisional: true,
                    tries: 0,
                }),
            },
        ),
        example(
            "http.puzzle_moves",
            PuzzleMoves {
                moves: vec!["c4-c5".into()],
            },
        ),
        example(
            "http.puzzle_answer.correct",
            PuzzleAnswer {
                verdict: PuzzleVerdict::Correct,
                reply: Some("b5-a5".into()),
                position: "G.TTT/GG.GT/G.GGG/.GGGG/GGG.G t 0 4 67".into(),
                legal: vec!["e4xc4".into(), "c5-c4".into(), "c5-b5".into()],
                solution: None,
                rated: None,
            },
        ),
        example(
            "http.puzzle_answer.solved",
            PuzzleAnswer {
                verdict: PuzzleVerdict::Solved,
                reply: None,
                position: "G.TTT/GGT../G.GGG/.GGGG/GGG.G g 0 5 68".into(),
                legal: vec![],
                solution: Some(vec!["c4-c5".into(), "b5-a5".into(), "e4xc4".into()]),
                rated: Some(PuzzleRated {
                    player: PuzzleRating {
                        rating: 1588,
                        deviation: 423,
                        provisional: true,
                        tries: 1,
                    },
                    change: 88,
                    puzzle_rating: 1100,
                }),
            },
        ),
        example(
            "http.puzzle_answer.wrong",
            PuzzleAnswer {
                verdict: PuzzleVerdict::Wrong,
                reply: None,
                position: ".GT.T/GGTGT/G.GGG/.GGGG/GGG.G g 0 4 66".into(),
                legal: vec![],
                solution: Some(vec!["c4-c5".into(), "b5-a5".into(), "e4xc4".into()]),
                rated: None,
            },
        ),
        example(
            "http.api_error.format",
            ApiError {
                error: ApiErrorCode::InvalidField,
                field: Some("format".into()),
                message: "a two-board match is for a friend or the computer, not bots".into(),
            },
        ),
        example(
            "http.api_error.illegal_action",
            ApiError {
                error: ApiErrorCode::IllegalAction,
                field: Some("actions".into()),
                message: "ply 7: b2-c3: goats must be placed while any are in hand".into(),
            },
        ),
        example(
            "http.api_error.blocked",
            ApiError {
                error: ApiErrorCode::Blocked,
                field: None,
                message: "you cannot play this player: one of you blocks the other".into(),
            },
        ),
        example(
            "http.api_error.invalid_notation",
            ApiError {
                error: ApiErrorCode::InvalidNotation,
                field: Some("game".into()),
                message: "pypi: line 1: G3 is not a move: write G33, G3334, B1122 or Bx1133".into(),
            },
        ),
        // Client to server
        example(
            "client.hello",
            ClientMessage::Hello {
                table: table.into(),
                token: Some(secret.into()),
                since: None,
            },
        ),
        example(
            "client.hello.since",
            ClientMessage::Hello {
                table: table.into(),
                token: Some(secret.into()),
                since: Some(12),
            },
        ),
        example(
            "client.hello.session",
            ClientMessage::Hello {
                table: table.into(),
                token: None,
                since: None,
            },
        ),
        example(
            "client.action",
            ClientMessage::Action {
                id: "7".into(),
                action: "b2-c3".into(),
                board: None,
            },
        ),
        example(
            "client.action.two_boards",
            ClientMessage::Action {
                id: "8".into(),
                action: "c3".into(),
                board: Some(2),
            },
        ),
        example(
            "client.resign",
            ClientMessage::Resign {
                id: Some("8".into()),
                board: None,
            },
        ),
        example(
            "client.offer_draw",
            ClientMessage::OfferDraw {
                id: None,
                board: None,
            },
        ),
        example(
            "client.accept_draw",
            ClientMessage::AcceptDraw {
                id: None,
                board: None,
            },
        ),
        example(
            "client.decline_draw",
            ClientMessage::DeclineDraw {
                id: None,
                board: None,
            },
        ),
        example("client.rematch", ClientMessage::Rematch { id: None }),
        example(
            "client.decline_rematch",
            ClientMessage::DeclineRematch { id: None },
        ),
        example(
            "client.abort",
            ClientMessage::Abort {
                id: Some("9".into()),
                board: None,
            },
        ),
        example(
            "client.claim_victory",
            ClientMessage::ClaimVictory {
                id: None,
                board: None,
            },
        ),
        example(
            "client.claim_draw",
            ClientMessage::ClaimDraw {
                id: None,
                board: None,
            },
        ),
        example("client.ping", ClientMessage::Ping),
        // Server to client
        example(
            "server.welcome.host",
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                table: table_info(),
                role: Role::Player,
                player: Some(Player::Host),
                secret: None,
            },
        ),
        example(
            "server.welcome.claimed",
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                table: table_info(),
                role: Role::Player,
                player: Some(Player::Guest),
                secret: Some("Hn2Bv6Cx0Zl4Kj8Gf3Ds7Aq1Wp5Eo9Ir".into()),
            },
        ),
        example(
            "server.welcome.clock",
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                table: TableInfo {
                    clock: Some(TimeControl {
                        initial: Some(180),
                        increment: Some(2),
                        days_per_action: None,
                    }),
                    ..table_info()
                },
                role: Role::Player,
                player: Some(Player::Host),
                secret: None,
            },
        ),
        example(
            "server.welcome.series",
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                table: TableInfo {
                    format: Format::Series,
                    series_games: Some(4),
                    ..table_info()
                },
                role: Role::Player,
                player: Some(Player::Host),
                secret: None,
            },
        ),
        example(
            "server.welcome.two_boards",
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                table: TableInfo {
                    format: Format::TwoBoards,
                    ..table_info()
                },
                role: Role::Player,
                player: Some(Player::Guest),
                secret: None,
            },
        ),
        example(
            "server.welcome.spectator",
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                table: TableInfo {
                    opponent: Opponent::Computer,
                    level: Some(1200),
                    ..table_info()
                },
                role: Role::Spectator,
                player: None,
                secret: None,
            },
        ),
        example(
            "server.snapshot",
            ServerMessage::Snapshot {
                version: 1,
                moves: vec!["c3".into()],
                state: state(),
                boards: Vec::new(),
            },
        ),
        example(
            "server.snapshot.clock",
            ServerMessage::Snapshot {
                version: 2,
                moves: vec!["c3".into(), "e5-d4".into()],
                state: clocked_state(),
                boards: Vec::new(),
            },
        ),
        example(
            "server.snapshot.series",
            ServerMessage::Snapshot {
                version: 9,
                moves: vec!["c3".into()],
                state: GameState {
                    game: 3,
                    tally: Tally {
                        host: 1,
                        guest: 0,
                        draws: 1,
                    },
                    series: Some(SeriesState {
                        number: 1,
                        games: 4,
                        game: 3,
                        host_wins: 1,
                        guest_wins: 0,
                        draws: 1,
                        result: None,
                    }),
                    ..state()
                },
                boards: Vec::new(),
            },
        ),
        example(
            "server.snapshot.two_boards",
            ServerMessage::Snapshot {
                version: 1,
                moves: vec!["c3".into()],
                state: match_state(1, state()),
                boards: vec![
                    BoardSnapshot {
                        moves: vec!["c3".into()],
                        state: match_state(1, state()),
                    },
                    BoardSnapshot {
                        moves: vec![],
                        state: match_state(2, board_two_start()),
                    },
                ],
            },
        ),
        example(
            "server.event.played.two_boards",
            ServerMessage::Event {
                version: 2,
                board: Some(2),
                event: TableEvent::Played {
                    side: Side::Goats,
                    action: "c3".into(),
                },
                state: match_state(
                    2,
                    GameState {
                        host_side: Side::Tigers,
                        ..state()
                    },
                ),
            },
        ),
        example(
            "server.event.resigned.match_decided",
            ServerMessage::Event {
                version: 40,
                board: Some(2),
                event: TableEvent::Resigned { side: Side::Tigers },
                state: GameState {
                    host_side: Side::Tigers,
                    tally: Tally {
                        host: 1,
                        guest: 0,
                        draws: 1,
                    },
                    board: Some(2),
                    match_state: Some(MatchState {
                        number: 1,
                        host_wins: 1,
                        guest_wins: 0,
                        draws: 1,
                        result: Some(MatchResult {
                            winner: Some(Player::Host),
                        }),
                    }),
                    ..finished_state()
                },
            },
        ),
        example(
            "server.event.resigned.series_decided",
            event(
                21,
                TableEvent::Resigned { side: Side::Tigers },
                GameState {
                    game: 3,
                    tally: Tally {
                        host: 3,
                        guest: 0,
                        draws: 0,
                    },
                    series: Some(SeriesState {
                        number: 1,
                        games: 4,
                        game: 3,
                        host_wins: 3,
                        guest_wins: 0,
                        draws: 0,
                        result: Some(SeriesResult {
                            winner: Some(Player::Host),
                        }),
                    }),
                    ..finished_state()
                },
            ),
        ),
        example(
            "server.event.played",
            event(
                1,
                TableEvent::Played {
                    side: Side::Goats,
                    action: "c3".into(),
                },
                state(),
            ),
        ),
        example(
            "server.event.resigned",
            event(
                2,
                TableEvent::Resigned { side: Side::Tigers },
                finished_state(),
            ),
        ),
        example(
            "server.event.draw_offered",
            event(
                2,
                TableEvent::DrawOffered { side: Side::Goats },
                GameState {
                    draw_offer: Some(Side::Goats),
                    ..state()
                },
            ),
        ),
        example(
            "server.event.draw_declined",
            event(3, TableEvent::DrawDeclined { side: Side::Tigers }, state()),
        ),
        example(
            "server.event.draw_withdrawn",
            event(3, TableEvent::DrawWithdrawn { side: Side::Goats }, state()),
        ),
        example(
            "server.event.draw_agreed",
            event(
                3,
                TableEvent::DrawAgreed,
                GameState {
                    legal: vec![],
                    result: Some(GameResult {
                        winner: None,
                        reason: EndReason::Agreement,
                    }),
                    tally: Tally {
                        host: 0,
                        guest: 0,
                        draws: 1,
                    },
                    ..state()
                },
            ),
        ),
        example(
            "server.event.rematch_offered",
            event(
                3,
                TableEvent::RematchOffered { side: Side::Goats },
                GameState {
                    rematch_offer: Some(Side::Goats),
                    tally: Tally {
                        host: 1,
                        guest: 0,
                        draws: 0,
                    },
                    ..finished_state()
                },
            ),
        ),
        example(
            "server.event.rematch_started",
            event(
                4,
                TableEvent::RematchStarted { game: 2 },
                GameState {
                    game: 2,
                    position: "T...T/...../...../...../T...T g 20 0 0".into(),
                    side_to_move: Side::Goats,
                    in_hand: 20,
                    ply: 0,
                    legal: vec![
                        "a2", "a3", "a4", "b1", "b2", "b3", "b4", "b5", "c1", "c2", "c3", "c4",
                        "c5", "d1", "d2", "d3", "d4", "d5", "e2", "e3", "e4",
                    ]
                    .into_iter()
                    .map(Into::into)
                    .collect(),
                    last_action: None,
                    host_side: Side::Tigers,
                    tally: Tally {
                        host: 1,
                        guest: 0,
                        draws: 0,
                    },
                    ..state()
                },
            ),
        ),
        example(
            "server.event.flagged",
            event(
                5,
                TableEvent::Flagged { side: Side::Goats },
                flagged_state(),
            ),
        ),
        example(
            "server.event.claimed",
            event(
                5,
                TableEvent::Claimed {
                    side: Side::Tigers,
                    result: ClaimResult::Win,
                },
                GameState {
                    result: Some(GameResult {
                        winner: Some(Side::Tigers),
                        reason: EndReason::Abandoned,
                    }),
                    clock: None,
                    ..flagged_state()
                },
            ),
        ),
        example(
            "server.event.aborted",
            event(
                2,
                TableEvent::Aborted { side: Side::Tigers },
                GameState {
                    legal: vec![],
                    result: Some(GameResult {
                        winner: None,
                        reason: EndReason::Aborted,
                    }),
                    abortable: false,
                    ..state()
                },
            ),
        ),
        example(
            "server.event.abandoned",
            event(
                3,
                TableEvent::Abandoned { side: Side::Goats },
                GameState {
                    result: Some(GameResult {
                        winner: Some(Side::Tigers),
                        reason: EndReason::Abandoned,
                    }),
                    clock: None,
                    ..flagged_state()
                },
            ),
        ),
        example(
            "server.event.clock_paused",
            event(
                3,
                TableEvent::ClockPaused { side: Side::Goats },
                GameState {
                    clock: Some(ClockState {
                        goats_ms: 179_238,
                        tigers_ms: 180_000,
                        running: None,
                        turn_started_at: None,
                        now: "2026-12-01T21:30:05.012Z".into(),
                    }),
                    ..clocked_state()
                },
            ),
        ),
        example(
            "server.event.clock_resumed",
            event(
                4,
                TableEvent::ClockResumed { side: Side::Goats },
                GameState {
                    clock: Some(ClockState {
                        goats_ms: 179_238,
                        tigers_ms: 180_000,
                        running: Some(Side::Goats),
                        turn_started_at: Some("2026-12-01T21:31:12.500Z".into()),
                        now: "2026-12-01T21:31:12.500Z".into(),
                    }),
                    ..clocked_state()
                },
            ),
        ),
        example(
            "server.event.rematch_declined",
            event(
                4,
                TableEvent::RematchDeclined { side: Side::Tigers },
                finished_state(),
            ),
        ),
        example(
            "server.event.rematch_withdrawn",
            event(
                4,
                TableEvent::RematchWithdrawn { side: Side::Goats },
                finished_state(),
            ),
        ),
        example(
            "server.presence",
            ServerMessage::Presence(Presence {
                goats: SeatView {
                    player: Player::Host,
                    computer: false,
                    level: None,
                    connected: true,
                },
                tigers: SeatView {
                    player: Player::Guest,
                    computer: true,
                    level: Some(1200),
                    connected: true,
                },
                spectators: 1,
                spectator_seats: 2,
                absent: None,
            }),
        ),
        example(
            "server.presence.absent",
            ServerMessage::Presence(Presence {
                goats: SeatView {
                    player: Player::Host,
                    computer: false,
                    level: None,
                    connected: true,
                },
                tigers: SeatView {
                    player: Player::Guest,
                    computer: false,
                    level: None,
                    connected: false,
                },
                spectators: 0,
                spectator_seats: 0,
                absent: Some(Absence {
                    side: Side::Tigers,
                    board: None,
                    since: "2026-12-01T21:31:10.400Z".into(),
                    claimable_at: "2026-12-01T21:31:25.400Z".into(),
                    now: "2026-12-01T21:31:10.401Z".into(),
                }),
            }),
        ),
        example("server.ack", ServerMessage::Ack { id: "7".into() }),
        example(
            "server.error.illegal_action",
            ServerMessage::Error {
                id: Some("7".into()),
                code: ErrorCode::IllegalAction,
                reason: Some(IllegalReason::Occupied),
                message: "that point is occupied".into(),
            },
        ),
        example(
            "server.error.unknown_board",
            ServerMessage::Error {
                id: Some("8".into()),
                code: ErrorCode::UnknownBoard,
                reason: None,
                message: "this table has two boards: name board 1 or 2".into(),
            },
        ),
        example(
            "server.error.seat_taken",
            ServerMessage::Error {
                id: None,
                code: ErrorCode::SeatTaken,
                reason: None,
                message: "the opponent's seat is already taken".into(),
            },
        ),
        example(
            "server.error.not_claimable",
            ServerMessage::Error {
                id: None,
                code: ErrorCode::NotClaimable,
                reason: None,
                message: "there is nothing to claim: your opponent is here, or may still come back"
                    .into(),
            },
        ),
        example(
            "server.error.not_abortable",
            ServerMessage::Error {
                id: Some("9".into()),
                code: ErrorCode::NotAbortable,
                reason: None,
                message: "each side has played: the game can no longer be aborted".into(),
            },
        ),
        example(
            "server.error.too_many_offers",
            ServerMessage::Error {
                id: None,
                code: ErrorCode::TooManyOffers,
                reason: None,
                message: "at most 3 offers a game, one every 10 seconds".into(),
            },
        ),
        example("server.pong", ServerMessage::Pong),
    ]
    .into_iter()
    .chain(profile_examples(public, table))
    .collect()
}

/// Profiles, a player's games and the leaderboard.
fn profile_examples(public: &str, table: &str) -> Vec<Example> {
    let player = "Jq3vX9mKp2LwTz8RbN4cYe";
    let opponent = "Vb8nT2xQw5RyKp3LmZc7Hd";
    vec![
        example(
            "http.profile",
            Profile {
                id: player.into(),
                name: Some("GoatHerd".into()),
                created: 1_796_428_800_000,
                closed: false,
                ratings: vec![RatingView {
                    speed: "blitz".into(),
                    rating: 1623,
                    deviation: 74,
                    provisional: false,
                    games: 31,
                }],
                record: vec![
                    SideRecord {
                        side: Side::Goats,
                        won: 9,
                        drawn: 4,
                        lost: 6,
                    },
                    SideRecord {
                        side: Side::Tigers,
                        won: 8,
                        drawn: 1,
                        lost: 3,
                    },
                ],
                history: vec![RatingHistory {
                    speed: "blitz".into(),
                    points: vec![
                        RatingPoint {
                            at: 1_796_515_200_000,
                            rating: 1611,
                        },
                        RatingPoint {
                            at: 1_796_601_600_000,
                            rating: 1623,
                        },
                    ],
                }],
            },
        ),
        example(
            "http.profile.closed",
            Profile {
                id: player.into(),
                name: None,
                created: 1_796_428_800_000,
                closed: true,
                ratings: vec![],
                record: vec![
                    SideRecord {
                        side: Side::Goats,
                        won: 0,
                        drawn: 0,
                        lost: 1,
                    },
                    SideRecord {
                        side: Side::Tigers,
                        won: 0,
                        drawn: 0,
                        lost: 0,
                    },
                ],
                history: vec![],
            },
        ),
        example(
            "http.player_games",
            PlayerGames {
                games: vec![
                    PlayerGame {
                        table: table.into(),
                        game: 2,
                        board: None,
                        side: Side::Tigers,
                        opponent: GameOpponent::Player {
                            id: opponent.into(),
                            name: Some("TigerTail".into()),
                        },
                        result: PlayerResult::Won,
                        reason: EndReason::CaptureTarget,
                        plies: 57,
                        speed: "blitz".into(),
                        rated: true,
                        rating: Some(1623),
                        rating_change: Some(12),
                        ended: 1_796_601_600_000,
                        url: format!("{public}/t/{table}/games/2"),
                    },
                    PlayerGame {
                        table: "Hk4mW8pZ2sQx6tRv0nYb3c".into(),
                        game: 1,
                        board: Some(2),
                        side: Side::Goats,
                        opponent: GameOpponent::Computer { level: Some(1200) },
                        result: PlayerResult::Drawn,
                        reason: EndReason::PlyLimit,
                        plies: 400,
                        speed: "correspondence".into(),
                        rated: false,
                        rating: None,
                        rating_change: None,
                        ended: 1_796_515_200_000,
                        url: format!("{public}/t/Hk4mW8pZ2sQx6tRv0nYb3c/games/1?board=2"),
                    },
                    PlayerGame {
                        table: "Pw2xN7kR4mTz9sLc1vBq8d".into(),
                        game: 1,
                        board: None,
                        side: Side::Goats,
                        opponent: GameOpponent::Link,
                        result: PlayerResult::Aborted,
                        reason: EndReason::Aborted,
                        plies: 0,
                        speed: "correspondence".into(),
                        rated: false,
                        rating: None,
                        rating_change: None,
                        ended: 1_796_428_900_000,
                        url: format!("{public}/t/Pw2xN7kR4mTz9sLc1vBq8d/games/1"),
                    },
                ],
                next: Some("1796428900000.Pw2xN7kR4mTz9sLc1vBq8d.1.1".into()),
            },
        ),
        example(
            "http.leaderboard",
            Leaderboard {
                speed: "blitz".into(),
                players: vec![
                    LeaderboardEntry {
                        rank: 1,
                        id: opponent.into(),
                        name: "TigerTail".into(),
                        rating: 1874,
                        deviation: 61,
                        games: 140,
                    },
                    LeaderboardEntry {
                        rank: 2,
                        id: player.into(),
                        name: "GoatHerd".into(),
                        rating: 1623,
                        deviation: 74,
                        games: 31,
                    },
                ],
            },
        ),
    ]
}

#[test]
fn every_example_matches_its_golden_file() {
    let dir = fixtures_dir();
    let bless = std::env::var_os("BLESS").is_some();
    let mut failures = Vec::new();
    for ex in examples() {
        let path = dir.join(format!("{}.json", ex.name));
        let pretty = serde_json::to_string_pretty(&ex.json).unwrap() + "\n";
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &pretty).unwrap();
        }
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let on_disk: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{}: not JSON: {e}", ex.name));
                continue;
            }
        };
        if on_disk != ex.json {
            failures.push(format!(
                "{}: serializes to\n{pretty}but the file says\n{text}",
                ex.name
            ));
        }
        if let Err(e) = (ex.roundtrip)(&text) {
            failures.push(format!("{}: {e}", ex.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_golden_file_has_an_example() {
    let names: BTreeSet<String> = examples()
        .iter()
        .map(|ex| format!("{}.json", ex.name))
        .collect();
    let files: BTreeSet<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    let orphans: Vec<_> = files.difference(&names).collect();
    assert!(orphans.is_empty(), "files without an example: {orphans:?}");
}

#[test]
fn every_client_message_type_has_an_example() {
    let kinds: BTreeSet<String> = examples()
        .iter()
        .filter(|ex| ex.name.starts_with("client."))
        .map(|ex| ex.json["type"].as_str().unwrap().to_owned())
        .collect();
    for kind in [
        "hello",
        "action",
        "resign",
        "offer_draw",
        "accept_draw",
        "decline_draw",
        "rematch",
        "decline_rematch",
        "abort",
        "claim_victory",
        "claim_draw",
        "ping",
    ] {
        assert!(kinds.contains(kind), "no example of {kind}");
    }
}

#[test]
fn every_server_message_type_and_event_kind_has_an_example() {
    let server: Vec<Value> = examples()
        .into_iter()
        .filter(|ex| ex.name.starts_with("server."))
        .map(|ex| ex.json)
        .collect();
    let kinds: BTreeSet<&str> = server.iter().filter_map(|v| v["type"].as_str()).collect();
    for kind in [
        "welcome", "snapshot", "event", "presence", "ack", "error", "pong",
    ] {
        assert!(kinds.contains(kind), "no example of {kind}");
    }
    let events: BTreeSet<&str> = server
        .iter()
        .filter_map(|v| v["event"]["kind"].as_str())
        .collect();
    for kind in [
        "played",
        "resigned",
        "draw_offered",
        "draw_declined",
        "draw_agreed",
        "rematch_offered",
        "rematch_started",
        "flagged",
        "claimed",
        "aborted",
        "rematch_declined",
        "rematch_withdrawn",
        "draw_withdrawn",
        "abandoned",
        "clock_paused",
        "clock_resumed",
    ] {
        assert!(events.contains(kind), "no example of event {kind}");
    }
}

#[test]
fn unknown_types_and_missing_fields_are_refused() {
    for bad in [
        r#"{"type":"fly"}"#,
        r#"{"type":"action","action":"c3"}"#,
        r#"{"type":"action","id":7,"action":"c3"}"#,
        r#"{"type":"hello","token":"y"}"#,
        r#"{"type":"hello","table":"x","token":7}"#,
        r#"{"table":"x","token":"y"}"#,
        r#"[]"#,
    ] {
        assert!(
            serde_json::from_str::<ClientMessage>(bad).is_err(),
            "accepted {bad}"
        );
    }
}

#[test]
fn commands_without_an_id_parse() {
    let msg: ClientMessage = serde_json::from_str(r#"{"type":"resign"}"#).unwrap();
    assert_eq!(
        msg,
        ClientMessage::Resign {
            id: None,
            board: None
        }
    );
}

#[test]
fn unknown_create_table_fields_are_refused() {
    let bad = r#"{"opponent":"friend","colour":"red"}"#;
    assert!(serde_json::from_str::<CreateTable>(bad).is_err());
    let bad = r#"{"opponent":"friend","variant":{"tigers":5}}"#;
    assert!(serde_json::from_str::<CreateTable>(bad).is_err());
    let minimal: CreateTable = serde_json::from_str(r#"{"opponent":"computer"}"#).unwrap();
    assert_eq!(minimal.side, Side::Goats);
    assert_eq!(minimal.spectators, 0);
    assert_eq!(minimal.variant, Variant::default());
    assert_eq!(minimal.clock, None);
    let null: CreateTable =
        serde_json::from_str(r#"{"opponent":"computer","clock":null}"#).unwrap();
    assert_eq!(null.clock, None);
    let bad = r#"{"opponent":"friend","clock":{"initial":60,"moves":40}}"#;
    assert!(serde_json::from_str::<CreateTable>(bad).is_err());
}

/// The JSON examples of `docs/protocol.md`: each fenced `json` block and
/// the fixture named in the `*(`...`)*` line right after it.
fn documented_examples() -> Vec<(String, Option<String>)> {
    let doc = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.md");
    let text = std::fs::read_to_string(doc).unwrap();
    let mut examples = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "```json" {
            continue;
        }
        let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        let cited = lines
            .by_ref()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.trim().strip_prefix("*(`"))
            .and_then(|l| l.strip_suffix("`)*"))
            .map(str::to_owned);
        examples.push((block.join("\n"), cited));
    }
    examples
}

#[test]
fn every_json_example_in_the_protocol_doc_equals_the_fixture_it_cites() {
    let examples = documented_examples();
    assert!(
        examples.len() >= 30,
        "only {} examples found",
        examples.len()
    );
    let mut failures = Vec::new();
    for (block, cited) in &examples {
        let Some(cited) = cited else {
            failures.push(format!("an example cites no fixture:\n{block}"));
            continue;
        };
        let Some(name) = cited.strip_prefix("tests/fixtures/protocol/") else {
            failures.push(format!("{cited}: not a protocol fixture"));
            continue;
        };
        let shown: Value = match serde_json::from_str(block) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("the example citing {name} is not JSON: {e}"));
                continue;
            }
        };
        let file: Value = serde_json::from_str(
            &std::fs::read_to_string(fixtures_dir().join(name)).unwrap_or_default(),
        )
        .unwrap_or(Value::Null);
        if shown != file {
            failures.push(format!(
                "{name}: the doc shows\n{block}\nbut the file says\n{file:#}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_fixture_is_shown_in_the_protocol_doc() {
    let cited: BTreeSet<String> = documented_examples()
        .into_iter()
        .filter_map(|(_, cited)| cited)
        .filter_map(|c| {
            c.strip_prefix("tests/fixtures/protocol/")
                .map(str::to_owned)
        })
        .collect();
    let names: BTreeSet<String> = examples()
        .iter()
        .map(|ex| format!("{}.json", ex.name))
        .collect();
    let missing: Vec<_> = names.difference(&cited).collect();
    assert!(
        missing.is_empty(),
        "fixtures the doc does not show: {missing:?}"
    );
}

#[test]
fn the_page_knows_every_close_code_by_the_same_number() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../static/close-codes.js");
    let text = std::fs::read_to_string(file).unwrap();
    // Lines of the form `export const NAME = 4000;`.
    let page: BTreeSet<(String, u16)> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("export const "))
        .filter_map(|l| {
            let (name, value) = l.split_once('=')?;
            let value = value.trim().strip_suffix(';')?.parse().ok()?;
            Some((name.trim().to_owned(), value))
        })
        .collect();
    let server: BTreeSet<(String, u16)> = CloseCode::ALL
        .iter()
        .map(|c| (c.name().to_owned(), c.code()))
        .collect();
    assert_eq!(page, server);
}

#[test]
fn every_api_error_code_has_an_error_status_and_a_snake_case_name() {
    let codes = [
        (ApiErrorCode::InvalidJson, 400, "invalid_json"),
        (ApiErrorCode::ForbiddenOrigin, 403, "forbidden_origin"),
        (ApiErrorCode::NotFound, 404, "not_found"),
        (ApiErrorCode::GameNotOver, 409, "game_not_over"),
        (ApiErrorCode::TooLarge, 413, "too_large"),
        (
            ApiErrorCode::UnsupportedMediaType,
            415,
            "unsupported_media_type",
        ),
        (ApiErrorCode::InvalidField, 422, "invalid_field"),
        (ApiErrorCode::IllegalAction, 422, "illegal_action"),
        (ApiErrorCode::InvalidNotation, 422, "invalid_notation"),
        (ApiErrorCode::RateLimited, 429, "rate_limited"),
        (ApiErrorCode::Unavailable, 503, "unavailable"),
        (ApiErrorCode::NotSignedIn, 401, "not_signed_in"),
        (ApiErrorCode::WrongPassword, 401, "wrong_password"),
        (ApiErrorCode::NameTaken, 409, "name_taken"),
        (ApiErrorCode::AlreadyAccount, 409, "already_account"),
        (ApiErrorCode::AccountNeeded, 403, "account_needed"),
        (ApiErrorCode::Taken, 409, "taken"),
        (ApiErrorCode::Busy, 409, "busy"),
        (ApiErrorCode::Blocked, 403, "blocked"),
    ];
    for (code, status, name) in codes {
        assert_eq!(code.status(), status, "{code:?}");
        assert_eq!(serde_json::to_value(code).unwrap(), Value::from(name));
        assert_eq!(code.as_str(), name);
    }
}

#[test]
fn an_empty_analysis_request_is_the_house_start_and_unknown_fields_are_refused() {
    let empty: AnalysisRequest = serde_json::from_str("{}").unwrap();
    assert_eq!(empty, AnalysisRequest::default());
    assert!(serde_json::from_str::<AnalysisRequest>(r#"{"moves":["c3"]}"#).is_err());
    let bad = r#"{"game":{"format":"sgf","text":""}}"#;
    assert!(serde_json::from_str::<AnalysisRequest>(bad).is_err());
}

#[test]
fn every_server_message_fixture_is_written_by_write_json_as_serde_json_writes_it() {
    let mut events = 0;
    for entry in std::fs::read_dir(fixtures_dir()).expect("the fixtures") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if !name.starts_with("server.") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        let message: ServerMessage = serde_json::from_str(&text).expect(name);
        events += usize::from(matches!(message, ServerMessage::Event { .. }));
        let mut written = Vec::new();
        message.write_json(&mut written).expect("written");
        let serde = serde_json::to_vec(&message).expect("serialized");
        assert_eq!(
            String::from_utf8(written),
            String::from_utf8(serde),
            "{name}"
        );
    }
    assert!(events > 10, "only {events} event fixtures");
}
