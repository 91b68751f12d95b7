//! Post-game analysis over HTTP.

use baghchal_protocol::{
    ApiError, ClientMessage, Evaluation, EvaluationSource, GameAnalysis, Opponent, Side,
};

use crate::common::{request, Seated, TestDb, TestServer};
use crate::on_both;

/// The same value seen by the other side.
fn flip(value: Evaluation) -> Evaluation {
    match value {
        Evaluation::Win { plies } => Evaluation::Loss { plies },
        Evaluation::Loss { plies } => Evaluation::Win { plies },
        Evaluation::Draw => Evaluation::Draw,
        Evaluation::Score { score } => Evaluation::Score { score: -score },
    }
}

async fn a_finished_game_is_analysed_action_by_action(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let table = seated.table().to_owned();
    let moves = ["c3", "a1-b2", "a1", "b2xd4"];
    seated.play_out(&moves).await;
    let path = format!("/api/tables/{table}/games/1/analysis");

    let (status, body) = server.get(&path).await;
    assert_eq!(status, 409, "{body}");
    let error: ApiError = serde_json::from_str(&body).unwrap();
    assert_eq!(error.error, baghchal_protocol::ApiErrorCode::GameNotOver);

    seated
        .host
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    seated.guest.event_at(5).await;
    let (status, body) = server.get(&path).await;
    assert_eq!(status, 200, "{body}");
    let analysis: GameAnalysis = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (analysis.table.as_str(), analysis.game),
        (table.as_str(), 1)
    );
    let played: Vec<&str> = analysis.actions.iter().map(|a| a.action.as_str()).collect();
    assert_eq!(played, moves);
    let sides: Vec<Side> = analysis.actions.iter().map(|a| a.side).collect();
    assert_eq!(
        sides,
        [Side::Goats, Side::Tigers, Side::Goats, Side::Tigers]
    );
    for (ply, review) in analysis.actions.iter().enumerate() {
        assert_eq!(usize::from(review.ply), ply);
        assert!(review.cost >= 0);
        assert_eq!(review.before_source, EvaluationSource::Search);
        assert!(!review.best.is_empty());
    }
    // Each action's "after" is the next mover's "before", seen from the
    // other side.
    for pair in analysis.actions.windows(2) {
        assert_eq!(pair[0].after, flip(pair[1].before));
    }

    let (status, again) = server.get(&path).await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<GameAnalysis>(&again).unwrap(),
        analysis
    );
    let (status, _) = server
        .get(&format!("/api/tables/{table}/games/2/analysis"))
        .await;
    assert_eq!(status, 404);
    server.stop().await;
}
on_both!(a_finished_game_is_analysed_action_by_action);
