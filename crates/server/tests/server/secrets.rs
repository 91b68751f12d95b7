//! No one is sent a secret that is not theirs: over a whole game, with a
//! rematch and a reconnect, the spectator's frames hold no seat secret and
//! no link token, each player's hold neither the other's secret nor the
//! links' tokens (the guest's own secret comes once, in its welcome), and
//! a finished game's record and review hold none.

use baghchal_protocol::{ClientMessage, Opponent};

use crate::common::{opponent_token, request, spectator_token, Client, Seated, TestDb, TestServer};
use crate::on_both;

/// Every frame `client` received, as text, after a last exchange.
async fn frames(mut client: Client) -> Vec<String> {
    client.sync().await;
    std::mem::take(&mut client.frames)
}

fn holding<'a>(frames: &'a [String], secret: &str) -> Vec<&'a String> {
    frames.iter().filter(|f| f.contains(secret)).collect()
}

async fn no_one_is_sent_a_secret_that_is_not_theirs(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut seated = Seated::new(&server, &request(Opponent::Friend, 1)).await;
    let table = seated.table().to_owned();
    let host_secret = seated.created.secret.clone().expect("the host's secret");
    let guest_secret = seated.guest_secret.clone();
    let invite = opponent_token(&seated.created);
    let watch = spectator_token(&seated.created);
    let mut spectator = server.connect().await;
    spectator.hello(&table, &watch, None).await;

    seated.play_out(&["c3", "a1-b2", "c4"]).await;
    // The guest reconnects, then resigns; a rematch starts.
    let mut guest = server.connect().await;
    guest.continue_ids(&seated.guest);
    guest.hello(&table, &guest_secret, Some(2)).await;
    guest
        .send(&ClientMessage::Resign {
            id: None,
            board: None,
        })
        .await;
    guest.sync().await;
    for client in [&mut seated.host, &mut guest] {
        client.send(&ClientMessage::Rematch { id: None }).await;
        client.sync().await;
    }

    // The guest's first socket was replaced: what it had received.
    let old_guest = std::mem::take(&mut seated.guest.frames);
    let watched = frames(spectator).await;
    let hosted = frames(seated.host).await;
    let guested = frames(guest).await;
    assert!(watched.len() > 5 && hosted.len() > 5, "play was seen");
    for secret in [&host_secret, &guest_secret, &invite, &watch] {
        assert_eq!(holding(&watched, secret), Vec::<&String>::new());
    }
    for secret in [&guest_secret, &invite, &watch] {
        assert_eq!(holding(&hosted, secret), Vec::<&String>::new());
    }
    for frames in [&old_guest, &guested] {
        for secret in [&host_secret, &invite, &watch] {
            assert_eq!(holding(frames, secret), Vec::<&String>::new());
        }
    }
    // The guest's own secret: in the welcome of the claim only.
    let claimed = holding(&old_guest, &guest_secret);
    assert_eq!(claimed.len(), 1, "{claimed:?}");
    assert!(claimed[0].contains("\"welcome\""));
    assert_eq!(holding(&guested, &guest_secret), Vec::<&String>::new());

    for path in ["", "/analysis", "/notation/record"] {
        let (status, body) = server
            .get(&format!("/api/tables/{table}/games/1{path}"))
            .await;
        assert_eq!(status, 200, "{path}: {body}");
        for secret in [&host_secret, &guest_secret, &invite, &watch] {
            assert!(!body.contains(secret.as_str()), "{path} holds a secret");
        }
    }
    server.stop().await;
}
on_both!(no_one_is_sent_a_secret_that_is_not_theirs);
