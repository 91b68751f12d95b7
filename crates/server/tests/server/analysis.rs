//! Post-game analysis over HTTP.

use baghchal_protocol::{
    ApiError, ClientMessage, Evaluation, GameAnalysis, Opponent, Outcome, Side, ANALYSIS_VERSION,
};

use crate::common::{request, Seated, TestDb, TestServer};
use crate::on_both;

/// The same value seen by the other side.
fn flip(value: Evaluation) -> Evaluation {
    let other = |result| match result {
        Outcome::Win => Outcome::Loss,
        Outcome::Loss => Outcome::Win,
        Outcome::Draw => Outcome::Draw,
    };
    match value {
        Evaluation::Over { result } => Evaluation::Over {
            result: other(result),
        },
        Evaluation::Solved { result, plies } => Evaluation::Solved {
            result: other(result),
            plies,
        },
        Evaluation::Proved {
            result,
            plies,
            solved,
        } => Evaluation::Proved {
            result: other(result),
            plies,
            solved: solved.map(|s| baghchal_protocol::SolvedValue {
                result: other(s.result),
                plies: s.plies,
            }),
        },
        Evaluation::Estimate {
            goats_percent,
            score,
        } => Evaluation::Estimate {
            goats_percent,
            score: -score,
        },
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
    assert_eq!(analysis.version, ANALYSIS_VERSION);
    for (ply, review) in analysis.actions.iter().enumerate() {
        assert_eq!(usize::from(review.ply), ply);
        assert!(review.lost <= 100);
        // The placement phase without a tablebase: estimates, or what a
        // search proves.
        assert!(
            matches!(
                review.before,
                Evaluation::Estimate { .. } | Evaluation::Proved { .. }
            ),
            "{review:?}"
        );
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

/// The engine, counting its post-game analyses and taking a while over
/// each (as a long game does), so that requests overlap.
struct CountingEngine {
    engine: baghchal_engine::Engine,
    analyses: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl baghchal_server::bot::Bot for CountingEngine {
    fn choose(
        &self,
        position: &baghchal_rules::Position,
        level: baghchal_engine::Level,
        seed: u64,
    ) -> Option<baghchal_rules::Action> {
        self.engine.choose(position, level, seed)
    }

    fn analyse(&self, game: &baghchal_rules::Game) -> Option<Vec<baghchal_protocol::ActionReview>> {
        self.analyses
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(300));
        baghchal_server::bot::Bot::analyse(&self.engine, game)
    }
}

/// A server whose engine counts its analyses, with a finished game at a
/// table; the game's analysis path and the count.
async fn finished_game_on_counting_server(
    db: &TestDb,
    configure: impl FnOnce(&mut baghchal_server::Config),
) -> (
    TestServer,
    String,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    let analyses = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut config = TestServer::config(db);
    config.bot = std::sync::Arc::new(CountingEngine {
        engine: baghchal_engine::Engine::new(),
        analyses: analyses.clone(),
    });
    configure(&mut config);
    let server = TestServer::start_with(config).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let table = seated.table().to_owned();
    seated.play_out(&["c3", "a1-b2"]).await;
    seated
        .host
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    seated.guest.event_at(3).await;
    (
        server,
        format!("/api/tables/{table}/games/1/analysis"),
        analyses,
    )
}

async fn concurrent_requests_for_one_game_cost_one_analysis(db: &TestDb) {
    let (server, path, analyses) = finished_game_on_counting_server(db, |_| {}).await;
    let requests: Vec<_> = (0..12)
        .map(|_| {
            let addr = server.addr;
            let path = path.clone();
            tokio::spawn(async move { crate::common::http(addr, "GET", &path, "").await })
        })
        .collect();
    let mut bodies = std::collections::BTreeSet::new();
    for request in requests {
        let (status, body) = request.await.unwrap();
        assert_eq!(status, 200, "{body}");
        bodies.insert(body);
    }
    assert_eq!(bodies.len(), 1, "every request gets the same analysis");
    assert_eq!(
        analyses.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "12 requests, one computation"
    );
    server.stop().await;
}
on_both!(concurrent_requests_for_one_game_cost_one_analysis);

async fn an_address_past_its_analysis_budget_gets_429_but_stored_ones_still(db: &TestDb) {
    let (server, path, analyses) = finished_game_on_counting_server(db, |config| {
        config.analysis_limit = baghchal_server::client_limit::AnalysisLimit {
            burst: std::num::NonZeroU32::new(1).unwrap(),
            per_hour: std::num::NonZeroU32::new(1).unwrap(),
            ..Default::default()
        };
    })
    .await;
    let (status, first) = server.get(&path).await;
    assert_eq!(status, 200, "{first}");
    // A second finished game at another table: its analysis would be
    // computed, and the address has spent its budget.
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 0)).await;
    let table = seated.table().to_owned();
    seated
        .host
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    seated.guest.event_at(1).await;
    let (status, head, body) = crate::common::http_with(
        server.addr,
        "GET",
        &format!("/api/tables/{table}/games/1/analysis"),
        &[],
        "",
    )
    .await;
    assert_eq!(status, 429, "{body}");
    let error: ApiError = serde_json::from_str(&body).unwrap();
    assert_eq!(error.error, baghchal_protocol::ApiErrorCode::RateLimited);
    assert!(head.to_ascii_lowercase().contains("retry-after:"), "{head}");
    // The stored analysis costs nothing.
    let (status, again) = server.get(&path).await;
    assert_eq!((status, again), (200, first));
    assert_eq!(analyses.load(std::sync::atomic::Ordering::SeqCst), 1);
    server.stop().await;
}
on_both!(an_address_past_its_analysis_budget_gets_429_but_stored_ones_still);

async fn a_review_stored_in_the_earlier_shape_is_computed_again(db: &TestDb) {
    let (server, path, analyses) = finished_game_on_counting_server(db, |_| {}).await;
    let table = path.split('/').nth(3).unwrap().to_owned();
    let old = format!(
        r#"{{"actions":[{{"action":"c3","after":{{"kind":"score","score":-310}},"after_source":"search","before":{{"kind":"score","score":-250}},"before_source":"search","best":"a3","cost":60,"ply":0,"side":"goats"}}],"game":1,"table":"{table}"}}"#
    );
    let storage = baghchal_server::storage::Storage::connect(&db.url)
        .await
        .unwrap();
    storage.store_analysis(&table, 1, 1, &old).await.unwrap();
    let (status, body) = server.get(&path).await;
    assert_eq!(status, 200, "{body}");
    let analysis: GameAnalysis = serde_json::from_str(&body).unwrap();
    assert_eq!(analysis.version, ANALYSIS_VERSION);
    assert_eq!(analysis.actions.len(), 2);
    assert_eq!(analyses.load(std::sync::atomic::Ordering::SeqCst), 1);
    // Computed again, it is stored in the current shape and served from
    // there.
    let (status, again) = server.get(&path).await;
    assert_eq!((status, again), (200, body));
    assert_eq!(analyses.load(std::sync::atomic::Ordering::SeqCst), 1);
    server.stop().await;
}
on_both!(a_review_stored_in_the_earlier_shape_is_computed_again);
