//! A played game exported in each notation, and read back by the
//! analysis board.

use baghchal_protocol::{AnalysisBoard, ApiError, ClientMessage, Opponent};

use crate::common::{http_with_head, request, Seated, TestDb, TestServer};
use crate::on_both;

async fn a_played_game_is_exported_in_each_notation(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let table = seated.table().to_owned();
    let moves = ["c3", "a1-b2", "a1", "b2xd4"];
    seated.play_out(&moves).await;
    seated
        .host
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    seated.guest.event_at(5).await;

    let expected = [
        (
            "record",
            "rules standard\nactions c3 a1-b2 a1 b2xd4\nresult tigers resignation\n",
        ),
        ("pypi", "1. G33 B5142 2. G51 Bx4224"),
        (
            "obx",
            "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g c0 - #\n\
             TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t c0 mC3 #g1\n\
             TXXXT/XXXXX/XXGXX/XTXXX/XXXXT g c0 mA5B4 #t1\n\
             TXXXT/XXXXX/XXGXX/XTXXX/GXXXT t c0 mA5 #g2\n\
             TXXXT/XXXTX/XXXXX/XXXXX/GXXXT g c1 mB4D2(C3) #t2\n",
        ),
    ];
    for (format, text) in expected {
        let path = format!("/api/tables/{table}/games/1/notation/{format}");
        let (status, head, body) = http_with_head(server.addr, "GET", &path, "").await;
        assert_eq!(status, 200, "{format}: {body}");
        assert!(
            head.contains("content-type: text/plain; charset=utf-8"),
            "{head}"
        );
        assert_eq!(body, text, "{format}");
        let pasted = serde_json::json!({"game": {"format": format, "text": body}}).to_string();
        let (status, answer) = server.post("/api/analysis", &pasted).await;
        assert_eq!(status, 200, "{format}: {answer}");
        let board: AnalysisBoard = serde_json::from_str(&answer).unwrap();
        assert_eq!(board.actions, moves, "{format}");
        assert_eq!(board.eaten, 1);
    }
    for path in [
        format!("/api/tables/{table}/games/1/notation/sgf"),
        format!("/api/tables/{table}/games/2/notation/record"),
        "/api/tables/nosuchtable/games/1/notation/obx".to_owned(),
    ] {
        let (status, body) = server.get(&path).await;
        assert_eq!(status, 404, "{path}: {body}");
        let error: ApiError = serde_json::from_str(&body).unwrap();
        assert_eq!(error.error.as_str(), "not_found");
    }
    server.stop().await;
}
on_both!(a_played_game_is_exported_in_each_notation);

async fn a_game_a_notation_cannot_express_is_refused_with_the_reason(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut table = request(Opponent::Friend, 0);
    table.variant.three_tigers = true;
    let mut seated = Seated::new(&server, &table).await;
    seated.play_out(&["c3"]).await;
    let path = format!("/api/tables/{}/games/1/notation/pypi", seated.table());
    let (status, body) = server.get(&path).await;
    assert_eq!(status, 422, "{body}");
    let error: ApiError = serde_json::from_str(&body).unwrap();
    assert_eq!(error.error.as_str(), "invalid_notation");
    assert_eq!(error.field.as_deref(), Some("format"));
    assert_eq!(error.message, "the pypi notation has no three-tiger game");
    let path = format!("/api/tables/{}/games/1/notation/obx", seated.table());
    let (status, body) = server.get(&path).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.starts_with("TXXXT/XXXXX/XXXXX/XXXXX/TXXXX g c0 - #\n"),
        "{body}"
    );
    server.stop().await;
}
on_both!(a_game_a_notation_cannot_express_is_refused_with_the_reason);
