//! The HTTP API: create a table, read or analyse a game, health.

pub mod account;
pub mod analysis;
pub mod blocks;
pub mod error;
pub mod lobby;
pub mod notation;
pub mod profiles;
pub mod puzzles;
pub mod reads;
pub mod request;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use baghchal_protocol::{CreateTable, GameAnalysis, GameRecord, TableCreated, MAX_FRAME_BYTES};

use crate::client_limit::client_address;
use crate::state::AppState;
use crate::tablebase::TablebaseState;
use crate::tables::TablesError;
use baghchal_table::names::side_to_wire;
use baghchal_table::options::{Opponent, TableOptions};
use error::HttpError;
use request::{read_json_post, read_object};

/// Reads the body of `POST /api/tables` as checked options, naming the
/// field at fault when it is not one (public for the fuzz target
/// `table_options`). Anything that is not one JSON object is
/// `invalid_json`; see [`request`].
pub fn parse_request(body: &[u8]) -> Result<TableOptions, HttpError> {
    options_of(&read_object(body)?)
}

/// A request's options, checked.
fn options_of(raw: &CreateTable) -> Result<TableOptions, HttpError> {
    TableOptions::parse(raw).map_err(|e| HttpError::InvalidField {
        field: e.field.to_owned(),
        message: e.message,
    })
}

/// `POST /api/tables`.
pub async fn create_table(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<TableCreated>), HttpError> {
    let raw = read_json_post(&state.origins, &headers, body, MAX_FRAME_BYTES)?;
    let options = options_of(&raw)?;
    let client = client_address(peer, &headers, &state.trusted_proxies);
    if options.opponent == Opponent::Bots {
        state.bots_by_address.check(client).map_err(|wait| {
            crate::stats::bots_tables_refused("address");
            HttpError::TooManyTables(wait)
        })?;
    }
    state.creation_limit.check(client).map_err(|wait| {
        crate::stats::tables_rate_limited();
        HttpError::TooManyTables(wait)
    })?;
    // The creator's seat belongs to their player too, when they have a
    // session: their games list it, and they find the seat on any device.
    let host_player = match options.opponent {
        Opponent::Bots => None,
        _ => crate::identity::identify(&state.storage, &headers)
            .await
            .map_err(HttpError::storage)?
            .map(|identity| identity.player.id),
    };
    let created = state.tables.create(options, host_player).await?;
    let base = format!("{}/t/{}", state.public_url, created.id);
    let link = |kind: &str, token: &Option<crate::token::Token>| {
        token
            .as_ref()
            .map(|t| format!("{base}#{kind}={}", t.as_str()))
    };
    Ok((
        StatusCode::CREATED,
        Json(TableCreated {
            seat_link: link("seat", &created.host_secret),
            opponent_link: link("invite", &created.invite),
            spectator_link: link("watch", &created.watch),
            secret: created.host_secret.as_ref().map(|t| t.as_str().to_owned()),
            side: (options.opponent != Opponent::Bots).then(|| side_to_wire(options.host_side)),
            table: created.id,
        }),
    ))
}

/// The `?board=` of a game's address: board 2 of a two-board table's
/// game; absent, board 1.
#[derive(Debug, Default, serde::Deserialize)]
pub struct BoardQuery {
    board: Option<String>,
}

impl BoardQuery {
    /// The board named, or `None` when it is not a board number.
    fn board(&self) -> Option<u8> {
        match &self.board {
            None => Some(1),
            Some(text) => text.parse().ok().filter(|b| (1..=2).contains(b)),
        }
    }
}

/// `GET /api/tables/{table}/games/{game}[?board=2]`.
pub async fn game_record(
    State(state): State<AppState>,
    Path((table, game)): Path<(String, String)>,
    Query(board): Query<BoardQuery>,
) -> Result<Json<GameRecord>, HttpError> {
    find_record(&state, &table, &game, &board).await.map(Json)
}

/// `GET /api/tables/{table}/games/{game}/analysis`: every action of a
/// finished game with its value before and after, from the tablebase where
/// it covers the position and from a search elsewhere. Computed once, then
/// stored with the game and served from there; requests for a game whose
/// analysis is being computed wait for that computation, and the one that
/// starts it spends its address's budget.
pub async fn game_analysis(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path((table, game)): Path<(String, String)>,
    Query(board): Query<BoardQuery>,
) -> Result<Response, HttpError> {
    let (number, board) = game_key(&game, &board)?;
    let Some(stored) = state
        .storage
        .finished_game(&table, number, board)
        .await
        .map_err(TablesError::from)?
    else {
        // No finished game of that number: one in progress, or none.
        record_of(&state, &table, number, board).await?;
        return Err(HttpError::GameNotOver);
    };
    let json: Arc<str> = match stored.analysis.filter(|a| analysis::is_current(a)) {
        Some(analysis) => analysis.into(),
        None => {
            let client = client_address(peer, &headers, &state.trusted_proxies);
            let flights = state.reviews.clone();
            flights
                .run((table.clone(), number, board), || {
                    review(&state, &table, number, board, client)
                })
                .await?
        }
    };
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        json.to_string(),
    )
        .into_response())
}

/// Computes and stores a finished game's analysis, unless an earlier
/// computation stored it meanwhile; spends one of `client`'s budget.
async fn review(
    state: &AppState,
    table: &str,
    number: u32,
    board: u8,
    client: IpAddr,
) -> Result<Arc<str>, HttpError> {
    let stored = state
        .storage
        .finished_game(table, number, board)
        .await
        .map_err(TablesError::from)?
        .ok_or(HttpError::NotFound)?;
    if let Some(analysis) = stored.analysis.filter(|a| analysis::is_current(a)) {
        return Ok(analysis.into());
    }
    state.analyses.check(client).map_err(|wait| {
        crate::stats::analyses_rate_limited();
        HttpError::TooManyAnalyses(wait)
    })?;
    let game = stored.game;
    let replayed = game.record.replay().map_err(|e| {
        tracing::error!(table = %game.table, game = game.game, error = %e, "a stored game does not replay");
        HttpError::AnalysisFailed
    })?;
    let actions = state
        .computer
        .analyse(replayed)
        .await
        .ok_or(HttpError::AnalysisFailed)?;
    let analysis = GameAnalysis {
        version: baghchal_protocol::ANALYSIS_VERSION,
        table: game.table,
        game: game.game,
        actions,
    };
    let json = serde_json::to_string(&analysis).map_err(|e| {
        tracing::error!(error = %e, "a review does not serialize");
        HttpError::AnalysisFailed
    })?;
    if let Err(e) = state
        .storage
        .store_analysis(&analysis.table, analysis.game, board, &json)
        .await
    {
        tracing::warn!(error = %e, "storing a game's review failed; it is computed again next time");
    }
    Ok(json.into())
}

/// A game's number and board as a request names them.
fn game_key(game: &str, board: &BoardQuery) -> Result<(u32, u8), HttpError> {
    let game: u32 = game.parse().map_err(|_| HttpError::NotFound)?;
    let board = board.board().ok_or(HttpError::NotFound)?;
    Ok((game, board))
}

/// One game of a table: a finished one from its stored row, without
/// loading the table; the game in progress through the table's actor.
pub(crate) async fn find_record(
    state: &AppState,
    table: &str,
    game: &str,
    board: &BoardQuery,
) -> Result<GameRecord, HttpError> {
    let (game, board) = game_key(game, board)?;
    record_of(state, table, game, board).await
}

/// Game `game` of `table` on `board` (see [`find_record`]).
async fn record_of(
    state: &AppState,
    table: &str,
    game: u32,
    board: u8,
) -> Result<GameRecord, HttpError> {
    if let Some(stored) = state
        .storage
        .finished_game(table, game, board)
        .await
        .map_err(TablesError::from)?
    {
        return Ok(stored.to_wire());
    }
    // A table unloaded while idle is looked up again, once.
    for _ in 0..2 {
        let handle = state.tables.get(table).await?.ok_or(HttpError::NotFound)?;
        if let Ok(record) = handle.record(game, board).await {
            return record.ok_or(HttpError::NotFound);
        }
    }
    Err(HttpError::NotFound)
}

/// `GET /healthz`.
pub async fn healthz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    match state.storage.ping().await {
        Ok(()) => (StatusCode::OK, "ok"),
        Err(e) => {
            tracing::error!(error = %e, "health check failed");
            (StatusCode::SERVICE_UNAVAILABLE, "database unavailable")
        }
    }
}

/// `GET /metrics`: the Prometheus text format.
pub async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        crate::stats::render(state.tables.open_count(), state.tablebase.state().gauges()),
    )
        .into_response()
}

/// The body of `GET /readyz`.
#[derive(serde::Serialize)]
pub struct Readiness {
    /// `ok`, or `unavailable` (with status 503).
    pub database: &'static str,
    /// Where the tablebase stands; the server serves in every state.
    pub tablebase: TablebaseState,
}

/// `GET /readyz`: the database, and the tablebase's state in detail.
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Readiness>) {
    let (status, database) = match state.storage.ping().await {
        Ok(()) => (StatusCode::OK, "ok"),
        Err(e) => {
            tracing::error!(error = %e, "readiness check failed");
            (StatusCode::SERVICE_UNAVAILABLE, "unavailable")
        }
    };
    let tablebase = state.tablebase.state();
    (
        status,
        Json(Readiness {
            database,
            tablebase,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(body: &str) -> String {
        match parse_request(body.as_bytes()) {
            Err(HttpError::InvalidField { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn each_bad_field_is_named() {
        assert_eq!(field_of("{}"), "opponent");
        assert_eq!(field_of(r#"{"opponent":"alien"}"#), "opponent");
        assert_eq!(field_of(r#"{"opponent":"friend","colour":1}"#), "colour");
        assert_eq!(
            field_of(r#"{"opponent":"friend","spectators":"many"}"#),
            "spectators"
        );
        assert_eq!(
            field_of(r#"{"opponent":"friend","spectators":300}"#),
            "spectators"
        );
        assert_eq!(
            field_of(r#"{"opponent":"friend","variant":{"ply_limit":-1}}"#),
            "variant.ply_limit"
        );
        assert_eq!(
            field_of(r#"{"opponent":"friend","variant":{"tigers":3}}"#),
            "variant.tigers"
        );
        assert_eq!(field_of(r#"{"opponent":"computer","level":450}"#), "level");
    }

    #[test]
    fn a_null_field_is_named_like_any_field_of_the_wrong_type() {
        assert_eq!(field_of(r#"{"opponent":null}"#), "opponent");
        assert_eq!(field_of(r#"{"opponent":"friend","side":null}"#), "side");
        assert_eq!(
            field_of(r#"{"opponent":"friend","spectators":null}"#),
            "spectators"
        );
        assert_eq!(
            field_of(r#"{"opponent":"friend","variant":{"first":null}}"#),
            "variant.first"
        );
    }

    #[test]
    fn anything_but_one_json_object_is_not_a_request() {
        for body in [
            &br#"{"opponent":"friend"} trailing"#[..],
            br#"{"opponent":"friend"}{}"#,
            b"[1,2]",
            br#"["friend"]"#,
            br#""friend""#,
            b"null",
            b"12",
        ] {
            assert!(
                matches!(parse_request(body), Err(HttpError::InvalidJson(_))),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn a_body_that_is_not_json_is_told_so() {
        assert!(matches!(
            parse_request(b"opponent=friend"),
            Err(HttpError::InvalidJson(_))
        ));
        assert!(matches!(
            parse_request(b"{\"opponent\":"),
            Err(HttpError::InvalidJson(_))
        ));
    }
}
