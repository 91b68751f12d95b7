//! Any bytes, as the body of `POST /api/tables`: reading never panics, a
//! refusal becomes an HTTP answer, and accepted options written back as a
//! request read as the same options.
#![no_main]

use axum::response::IntoResponse;
use baghchal_engine::Level;
use baghchal_protocol::CreateTable;
use baghchal_server::http::parse_request;
use baghchal_table::names::side_to_wire;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| {
    let options = match parse_request(body) {
        Ok(options) => options,
        Err(refusal) => {
            let answer = refusal.into_response();
            assert!(answer.status().is_client_error(), "{:?}", answer.status());
            return;
        }
    };
    let again = CreateTable {
        opponent: options.opponent.to_wire(),
        side: side_to_wire(options.host_side),
        level: options.level.map(Level::get),
        spectators: options.spectator_seats,
        variant: options.variant(),
        clock: options.clock_to_wire(),
        format: options.format.to_wire(),
        series_games: options.format.series_games(),
    };
    let json = serde_json::to_vec(&again).expect("a request encodes");
    assert_eq!(parse_request(&json).ok(), Some(options));
});
