//! Games against the computer, on each side.

use baghchal_protocol::{
    ClientMessage, ErrorCode, GameState, Opponent, ServerMessage, Side, TableEvent,
};

use crate::common::{request, Client, TestDb, TestServer};
use crate::on_both;

/// Plays the first legal action whenever it is `side`'s turn, until the
/// game ends; returns the final state.
async fn play_to_the_end(client: &mut Client, side: Side, mut state: GameState) -> GameState {
    loop {
        if state.result.is_some() {
            return state;
        }
        if state.side_to_move == side {
            let action = state.legal.first().expect("a legal action").clone();
            client.play_acked(&action).await;
        }
        state = client
            .until(|m| match m {
                ServerMessage::Event { state, .. } => Some(state.clone()),
                _ => None,
            })
            .await;
    }
}

async fn computer_game(db: &TestDb, side: Side) {
    let server = TestServer::start(db).await;
    let mut req = request(Opponent::Computer, 0);
    req.side = side;
    req.level = Some(400);
    let created = server.create(&req).await;
    assert_eq!(created.side, Some(side));
    assert_eq!(created.opponent_link, None);
    let mut host = server.connect().await;
    let joined = host
        .hello(&created.table, created.secret.as_deref().unwrap(), None)
        .await;
    let (_, _, mut state) = joined.snapshot().unwrap();

    // No draw offers against the computer; nothing changes.
    host.send(&ClientMessage::OfferDraw {
        id: None,
        board: None,
    })
    .await;
    let mut refused = false;
    for message in host.sync().await {
        match message {
            ServerMessage::Error { code, .. } => {
                assert_eq!(code, ErrorCode::NoDrawOffers);
                refused = true;
            }
            ServerMessage::Event { state: s, .. } => state = s,
            _ => {}
        }
    }
    assert!(refused);

    let end = play_to_the_end(&mut host, side, state).await;
    assert!(end.result.is_some());
    let tally = end.tally;
    assert_eq!(tally.host + tally.guest + tally.draws, 1);

    // A rematch starts at once, sides swapped.
    host.send(&ClientMessage::Rematch { id: None }).await;
    let state = host
        .until(|m| match m {
            ServerMessage::Event {
                event: TableEvent::RematchStarted { game },
                state,
                ..
            } => Some((*game, state.clone())),
            _ => None,
        })
        .await;
    assert_eq!(state.0, 2);
    let other = match side {
        Side::Goats => Side::Tigers,
        Side::Tigers => Side::Goats,
    };
    assert_eq!(state.1.host_side, other);
    let end = play_to_the_end(&mut host, other, state.1).await;
    assert_eq!(end.tally.host + end.tally.guest + end.tally.draws, 2);
    server.stop().await;
}

async fn a_computer_game_with_the_goats(db: &TestDb) {
    computer_game(db, Side::Goats).await;
}
on_both!(a_computer_game_with_the_goats);

async fn a_computer_game_with_the_tigers(db: &TestDb) {
    computer_game(db, Side::Tigers).await;
}
on_both!(a_computer_game_with_the_tigers);
