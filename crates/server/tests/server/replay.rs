//! The replay bound: a client that reconnects with `since` anywhere inside
//! the events a table keeps gets exactly the ones it missed, in order and
//! once, then `presence`; one beyond gets a snapshot. Played with frames
//! the size of a real game's, on one board and on two.

use baghchal_protocol::{ClientMessage, CreateTable, Format, Opponent, ServerMessage, Side};
use baghchal_server::table::conn::{EVENT_LOG_BYTES, EVENT_LOG_LEN};

use crate::common::{request, spectator_token, Seated, TestDb, TestServer};
use crate::on_both;

/// A table's events as a spectator saw them live: each one's version and
/// the length of its frame.
struct Played {
    seated: Seated,
    watch: String,
    frames: Vec<(u64, usize)>,
}

/// Plays `plies` actions on each board of the table `request` makes (or
/// until its games end), choosing among the legal actions by the ply so
/// that the game is varied, and records the events a live spectator saw.
async fn play(server: &TestServer, request: &CreateTable, plies: u16) -> Played {
    let mut seated = Seated::new(server, request).await;
    let watch = spectator_token(&seated.created);
    let table = seated.table().to_owned();
    let mut spectator = server.connect().await;
    let joined = spectator.hello(&table, &watch, None).await;
    let mut states: Vec<_> = match joined.replay.as_slice() {
        [ServerMessage::Snapshot { boards, state, .. }] if boards.is_empty() => {
            vec![state.clone()]
        }
        [ServerMessage::Snapshot { boards, .. }] => {
            boards.iter().map(|b| b.state.clone()).collect()
        }
        other => panic!("expected a snapshot, got {other:?}"),
    };
    while let Some(index) = states
        .iter()
        .position(|s| s.result.is_none() && s.ply < plies && !s.legal.is_empty())
    {
        let state = &states[index];
        let action = state.legal[usize::from(state.ply) * 7 % state.legal.len()].clone();
        let mover = if state.side_to_move == state.host_side {
            &mut seated.host
        } else {
            &mut seated.guest
        };
        mover.play_acked_on(state.board, &action).await;
        let after = spectator
            .until(|m| match m {
                ServerMessage::Event { state, .. } if state.board == states[index].board => {
                    Some(state.clone())
                }
                _ => None,
            })
            .await;
        states[index] = after;
    }
    spectator.sync().await;
    let frames = std::mem::take(&mut spectator.frames)
        .iter()
        .filter_map(|text| match serde_json::from_str(text) {
            Ok(ServerMessage::Event { version, .. }) => Some((version, text.len())),
            _ => None,
        })
        .collect();
    spectator.close().await;
    Played {
        seated,
        watch,
        frames,
    }
}

/// How many of the last events the table keeps, by the log's bounds.
fn kept(frames: &[(u64, usize)]) -> usize {
    let mut bytes = 0;
    let mut kept = 0;
    for (_, len) in frames.iter().rev() {
        bytes += len;
        if kept == EVENT_LOG_LEN || (bytes > EVENT_LOG_BYTES && kept > 0) {
            break;
        }
        kept += 1;
    }
    kept
}

/// Reconnects with `since` = v − k for every k from 1 to one past the
/// bound, as `token`, and reads each whole reply (up to the answer to a
/// ping sent after the hello).
async fn reconnect_at_every_depth(server: &TestServer, played: &Played, token: &str) {
    let table = played.seated.table();
    let version = played.frames.last().expect("events were played").0;
    let bound = kept(&played.frames);
    assert!(
        bound < played.frames.len(),
        "the game is longer than the replay bound ({bound} of {} events)",
        played.frames.len()
    );
    assert!(bound >= 8, "a replay takes more than one write ({bound})");
    for k in 1..=bound as u64 + 1 {
        let mut client = server.connect().await;
        client
            .send(&ClientMessage::Hello {
                table: table.into(),
                token: Some(token.into()),
                since: Some(version - k),
            })
            .await;
        let reply = client.sync().await;
        let (first, rest) = reply.split_first().expect("a reply");
        assert!(matches!(first, ServerMessage::Welcome { .. }), "{first:?}");
        let (last, middle) = rest.split_last().expect("more than a welcome");
        assert!(
            matches!(last, ServerMessage::Presence(_)),
            "since v-{k}: the reply ends with {last:?}"
        );
        if k <= bound as u64 {
            let versions: Vec<u64> = middle
                .iter()
                .map(|m| match m {
                    ServerMessage::Event { version, .. } => *version,
                    other => panic!("since v-{k}: expected events, got {other:?}"),
                })
                .collect();
            assert_eq!(
                versions,
                (version - k + 1..=version).collect::<Vec<_>>(),
                "since v-{k}"
            );
        } else {
            assert!(
                matches!(middle, [ServerMessage::Snapshot { version: v, .. }] if *v == version),
                "since v-{k}, beyond the bound: {middle:?}"
            );
        }
        client.close().await;
    }
}

async fn every_reconnect_inside_the_bound_gets_exactly_what_it_missed(db: &TestDb) {
    let server = TestServer::start(db).await;
    let played = play(&server, &request(Opponent::Friend, 4), 60).await;
    reconnect_at_every_depth(&server, &played, &played.watch).await;
    let host = played.seated.created.secret.clone().expect("a host secret");
    reconnect_at_every_depth(&server, &played, &host).await;
    server.stop().await;
}
on_both!(every_reconnect_inside_the_bound_gets_exactly_what_it_missed);

async fn every_reconnect_to_two_boards_gets_exactly_what_it_missed(db: &TestDb) {
    let server = TestServer::start(db).await;
    let request = CreateTable {
        format: Format::TwoBoards,
        side: Side::Goats,
        ..request(Opponent::Friend, 4)
    };
    let played = play(&server, &request, 30).await;
    reconnect_at_every_depth(&server, &played, &played.watch).await;
    reconnect_at_every_depth(&server, &played, &played.seated.guest_secret).await;
    server.stop().await;
}
on_both!(every_reconnect_to_two_boards_gets_exactly_what_it_missed);
