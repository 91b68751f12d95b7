//! The analysis board over HTTP: `POST /api/analysis` with a line, a start
//! or a pasted game in each notation.

use std::collections::BTreeSet;
use std::path::PathBuf;

use baghchal_protocol::{
    AnalysisBoard, ApiError, Evaluation, NotationFormat, Outcome, Phase, Side,
};

use crate::common::{TestDb, TestServer};

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/protocol")
        .join(format!("{name}.json"));
    std::fs::read_to_string(path).unwrap()
}

async fn analyse(server: &TestServer, body: &str) -> AnalysisBoard {
    let (status, answer) = server.post("/api/analysis", body).await;
    assert_eq!(status, 200, "{body}: {answer}");
    serde_json::from_str(&answer).unwrap()
}

async fn refused(server: &TestServer, body: &str) -> (u16, ApiError) {
    let (status, answer) = server.post("/api/analysis", body).await;
    let error = serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{answer}: {e}"));
    (status, error)
}

#[tokio::test]
async fn the_empty_request_values_every_placement_of_the_house_start() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let board = analyse(&server, "{}").await;
    assert_eq!(board.start, "T...T/...../...../...../T...T g 20 0 0");
    assert_eq!(board.position, board.start);
    assert_eq!(
        (board.side_to_move, board.phase),
        (Side::Goats, Phase::Placement)
    );
    assert_eq!((board.in_hand, board.eaten, board.ply), (20, 0, 0));
    assert_eq!((board.goats_to_win, board.ply_limit), (5, 400));
    assert_eq!(board.legal.len(), 21);
    assert!(board
        .legal
        .iter()
        .all(|v| matches!(v.evaluation, Evaluation::Estimate { .. })));
    assert_eq!(board.best.as_deref(), Some(board.legal[0].action.as_str()));
    assert_eq!(board.result, None);
    server.stop().await;
}

#[tokio::test]
async fn the_fixtures_line_gives_the_fixtures_position_and_legal_actions() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let expected: AnalysisBoard = serde_json::from_str(&fixture("http.analysis_board")).unwrap();
    let request = format!(r#"{{"start":"{}","actions":["c3-c2"]}}"#, expected.start);
    let board = analyse(&server, &request).await;
    assert_eq!(board.position, expected.position);
    assert_eq!(board.actions, expected.actions);
    assert_eq!(board.variant, expected.variant);
    let names = |b: &AnalysisBoard| -> BTreeSet<String> {
        b.legal.iter().map(|v| v.action.clone()).collect()
    };
    assert_eq!(names(&board), names(&expected));
    // Every jump takes the fifth goat: a win by the rules, listed first.
    for value in &board.legal {
        if value.action.contains('x') {
            assert_eq!(
                value.evaluation,
                Evaluation::Over {
                    result: Outcome::Win
                }
            );
        } else {
            // No tablebase here: a search's estimate or proof.
            assert!(
                matches!(
                    value.evaluation,
                    Evaluation::Estimate { .. } | Evaluation::Proved { .. }
                ),
                "{value:?}"
            );
        }
    }
    assert!(board.legal[0].action.contains('x'));

    let finished: AnalysisBoard =
        serde_json::from_str(&fixture("http.analysis_board.finished")).unwrap();
    let request = format!(
        r#"{{"start":"{}","actions":["c3-c2","a1xc3"]}}"#,
        finished.start
    );
    assert_eq!(analyse(&server, &request).await, finished);
    server.stop().await;
}

#[tokio::test]
async fn an_illegal_line_is_refused_with_its_ply_and_reason() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let (status, error) = refused(&server, r#"{"actions":["c3","a1-b2","a1","b2-c3"]}"#).await;
    assert_eq!(status, 422);
    assert_eq!(error.error.as_str(), "illegal_action");
    assert_eq!(error.field.as_deref(), Some("actions"));
    assert_eq!(error.message, "ply 4: b2-c3: that point is occupied");
    let (status, error) = refused(&server, r#"{"actions":["c3","c3-c4"]}"#).await;
    assert_eq!((status, error.error.as_str()), (422, "illegal_action"));
    assert_eq!(
        error.message,
        "ply 2: c3-c4: no piece of the side to move stands there"
    );
    let (status, error) = refused(&server, r#"{"actions":["c3"],"start":"nonsense"}"#).await;
    assert_eq!((status, error.field.as_deref()), (422, Some("start")));
    let (status, error) = refused(&server, "actions=c3").await;
    assert_eq!((status, error.error.as_str()), (400, "invalid_json"));
    let many = format!(r#"{{"actions":[{}]}}"#, vec!["\"c3\""; 1001].join(","));
    let (status, error) = refused(&server, &many).await;
    assert_eq!((status, error.field.as_deref()), (422, Some("actions")));
    server.stop().await;
}

#[tokio::test]
async fn a_pasted_game_is_read_in_each_notation() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let line = ["c3", "a1-b2", "d4", "b2-a1"];
    let texts = [
        (
            "record",
            "rules standard\nactions c3 a1-b2 d4 b2-a1\n".to_owned(),
        ),
        ("pypi", "1. G33 B5142 2. G24 B4251".to_owned()),
        (
            "obx",
            [
                "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - 0",
                "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 1",
                "TXXXT/XXXXX/XXGXX/XTXXX/XXXXT g c0 mA5B4 2",
                "TXXXT/XXXGX/XXGXX/XTXXX/XXXXT t c0 mD2 3",
                "TXXXT/XXXGX/XXGXX/XXXXX/TXXXT g c0 mB4A5 4",
            ]
            .join("\n"),
        ),
    ];
    for (format, text) in texts {
        let body = serde_json::json!({"game": {"format": format, "text": text}}).to_string();
        let board = analyse(&server, &body).await;
        assert_eq!(board.actions, line, "{format}");
        assert_eq!(
            board.position, "T...T/...G./..G../...../T...T g 18 0 4",
            "{format}"
        );
        assert_eq!(board.legal.len(), 19, "{format}");
        assert_eq!(
            board.game_format.map(|f| serde_json::to_value(f).unwrap()),
            Some(serde_json::json!(format))
        );
    }
    let body = serde_json::json!({"game": {"format": "pypi", "text": "1. G33 B5142 2. G42"}});
    let (status, error) = refused(&server, &body.to_string()).await;
    assert_eq!((status, error.error.as_str()), (422, "illegal_action"));
    assert_eq!(error.field.as_deref(), Some("game"));
    assert_eq!(
        error.message,
        "pypi: line 1, ply 3: G42: that point is occupied"
    );
    let body = serde_json::json!({"game": {"format": "pypi", "text": "1. G3"}});
    let (status, error) = refused(&server, &body.to_string()).await;
    assert_eq!((status, error.error.as_str()), (422, "invalid_notation"));
    assert_eq!(
        error.message,
        "pypi: line 1: G3 is not a move: write G33, G3334, B1122 or Bx1133"
    );
    let body = serde_json::json!({"game": {"format": "record", "text": "rules standard\nactions c3 c3\n"}});
    let (status, error) = refused(&server, &body.to_string()).await;
    assert_eq!(
        (status, error.message.as_str()),
        (422, "record: line 2, ply 2: c3: no goat can be placed now")
    );
    server.stop().await;
}

#[tokio::test]
async fn a_body_may_be_larger_than_a_table_request_but_is_bounded() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    // 40 KiB of JSON whitespace around a short line: above the 16 KiB of
    // the other endpoints, below the analysis board's 64 KiB.
    let padded = format!(r#"{{"actions":["c3"]{}}}"#, " ".repeat(40 * 1024));
    let board = analyse(&server, &padded).await;
    assert_eq!(board.actions, ["c3"]);
    let oversized = format!(r#"{{"actions":["c3"]{}}}"#, " ".repeat(70 * 1024));
    let (status, error) = refused(&server, &oversized).await;
    assert_eq!((status, error.error.as_str()), (413, "too_large"));
    assert_eq!(error.message, "the body is limited to 64 KiB");
    server.stop().await;
}

#[tokio::test]
async fn a_pasted_game_without_its_format_is_read_in_the_notation_it_shows() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let line = ["c3", "a1-b2", "a1", "b2xd4"];
    let texts = [
        (
            NotationFormat::Record,
            "rules standard\nactions c3 a1-b2 a1 b2xd4\n",
        ),
        (NotationFormat::Pypi, "1. G33 B5142 2. G51 Bx4224"),
        (
            NotationFormat::Obx,
            "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #\n\
             TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 #g1\n\
             TXXXT/XXXXX/XXGXX/XTXXX/XXXXT g c0 mA5B4 #t1\n\
             TXXXT/XXXXX/XXGXX/XTXXX/GXXXT t c0 mA5 #g2\n\
             TXXXT/XXXTX/XXXXX/XXXXX/GXXXT g c1 mB4D2(C3) #t2\n",
        ),
    ];
    for (format, text) in texts {
        let body = serde_json::json!({"game": {"text": text}}).to_string();
        let board = analyse(&server, &body).await;
        assert_eq!(board.game_format, Some(format));
        assert_eq!(board.actions, line, "{format:?}");
        assert_eq!(board.eaten, 1, "{format:?}");
    }
    // A line played from a start names no notation.
    assert_eq!(
        analyse(&server, r#"{"actions":["c3"]}"#).await.game_format,
        None
    );
    // The README's "Example Sequence of Moves": the tiger moves onto the
    // goat just placed.
    let sequence = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #\n\
                    TXXXT/XGXXX/XXXXX/XXXXX/TXXXT t c0 mB2 #g1\n\
                    TXTXT/TXXXX/XXXXX/XXXXX/TXXXT g c0 mA1B2 #t1\n";
    let body = serde_json::json!({"game": {"text": sequence}}).to_string();
    let (status, error) = refused(&server, &body).await;
    assert_eq!((status, error.error.as_str()), (422, "illegal_action"));
    assert_eq!(error.field.as_deref(), Some("game"));
    assert_eq!(
        error.message,
        "obx: line 3, ply 2: mA1B2: that point is occupied"
    );
    let body = serde_json::json!({"game": {"text": "c3 a1-b2"}}).to_string();
    let (status, error) = refused(&server, &body).await;
    assert_eq!((status, error.error.as_str()), (422, "invalid_notation"));
    assert!(
        error
            .message
            .starts_with("line 1: c3 starts no game of a notation read here"),
        "{}",
        error.message
    );
    server.stop().await;
}

#[tokio::test]
async fn a_start_whose_ply_contradicts_its_side_to_move_is_refused_with_the_reason() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let body = r#"{"start":"T...T/...../..G../...../T...T g 19 0 1"}"#;
    let (status, error) = refused(&server, body).await;
    assert_eq!((status, error.error.as_str()), (422, "invalid_field"));
    assert_eq!(error.field.as_deref(), Some("start"));
    assert_eq!(
        error.message,
        "\"T...T/...../..G../...../T...T g 19 0 1\": at ply 1 it is the tigers' turn, \
         not the goats': the goats move first, at the even plies"
    );
    // With the tigers first, the goats move at the odd plies.
    let body = r#"{"start":"T...T/...../..G../...../T...T g 19 0 1","variant":{"first":"tigers"}}"#;
    assert_eq!(analyse(&server, body).await.ply, 1);
    let record = "rules standard\nstart T...T/...../..G../...../T...T g 19 0 1\nactions c4\n";
    let body = serde_json::json!({"game": {"text": record}}).to_string();
    let (status, error) = refused(&server, &body).await;
    assert_eq!((status, error.error.as_str()), (422, "invalid_notation"));
    assert_eq!(
        error.message,
        "record: line 2: start: at ply 1 it is the tigers' turn, not the goats': \
         the goats move first, at the even plies"
    );
    server.stop().await;
}

/// A computer whose analysis board tells the test when it starts on a
/// position and waits until the test lets it answer.
struct HeldBoard {
    started: std::sync::Mutex<std::sync::mpsc::Sender<()>>,
    gate: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
}

impl baghchal_server::bot::Bot for HeldBoard {
    fn choose(
        &self,
        _: &baghchal_rules::Position,
        _: baghchal_engine::Level,
        _: u64,
    ) -> Option<baghchal_rules::Action> {
        None
    }

    fn value_actions(
        &self,
        _: &baghchal_rules::Game,
    ) -> Option<Vec<baghchal_protocol::ActionValue>> {
        let _ = self.started.lock().ok()?.send(());
        let _ = self.gate.lock().ok()?.recv();
        Some(Vec::new())
    }
}

#[tokio::test]
async fn one_address_holds_only_its_share_of_the_analysis_board() {
    let db = crate::common::TestDb::sqlite();
    let mut config = crate::common::TestServer::config(&db);
    let (started, started_rx) = std::sync::mpsc::channel();
    let (open, gate) = std::sync::mpsc::channel();
    config.bot = std::sync::Arc::new(HeldBoard {
        started: std::sync::Mutex::new(started),
        gate: std::sync::Mutex::new(gate),
    });
    config.bot_threads = 2;
    config.analysis_limit.board_per_address = 2;
    let server = crate::common::TestServer::start_with(config).await;
    let held: Vec<_> = (0..2)
        .map(|_| {
            let addr = server.addr;
            tokio::spawn(
                async move { crate::common::http(addr, "POST", "/api/analysis", "{}").await },
            )
        })
        .collect();
    // Both are being thought about.
    let started_rx = tokio::task::spawn_blocking(move || {
        for _ in 0..2 {
            started_rx
                .recv_timeout(crate::common::PATIENCE)
                .expect("a request in flight");
        }
    });
    started_rx.await.unwrap();
    let (status, body) = server.post("/api/analysis", "{}").await;
    assert_eq!(status, 429, "{body}");
    let error: ApiError = serde_json::from_str(&body).unwrap();
    assert_eq!(error.error, baghchal_protocol::ApiErrorCode::RateLimited);
    for _ in 0..2 {
        open.send(()).unwrap();
    }
    for request in held {
        assert_eq!(request.await.unwrap().0, 200);
    }
    // Answered, the address has its share again.
    open.send(()).unwrap();
    let (status, body) = server.post("/api/analysis", "{}").await;
    assert_eq!(status, 200, "{body}");
    server.stop().await;
}
