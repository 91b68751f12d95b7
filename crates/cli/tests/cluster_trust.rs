//! The cluster's trust boundary: nodes on a NATS server that requires
//! credentials, each with a user limited to its own subjects as
//! `docs/scaling.md` gives them, play; NATS refuses a client without
//! credentials and a node with the wrong ones fails to start; no seat,
//! invitation or spectator token (nor the secret of a seat claimed
//! through another node) crosses NATS; a socket's acts and pings go to
//! the owner without asking for an answer, and an act under a guessed
//! holder key is refused when it asks and dropped when it does not.
//! Nodes that trust the CA of a NATS server speaking only TLS play
//! through it, and a node that does not trust it fails to start.
//! The NATS servers are private ones the tests start on free loopback
//! ports (the TLS test makes its certificates with `openssl`). Run when
//! `BAGHCHAL_TEST_POSTGRES` and `BAGHCHAL_TEST_NATS` are set.

mod support;

use baghchal_protocol::{ClientMessage, ServerMessage};
use futures_util::StreamExt;
use support::cluster::{exchange, friend, services, Setup, LEASE_TIME};
use support::services::Nats;
use support::{claim, connect, recv, send, token_of, unique, Server, Ws, PATIENCE};

/// The NATS user of node `node` of cluster `cluster`, exactly as
/// `docs/scaling.md` gives it: requests to any table, frames to any node's
/// sockets, the word of the lobby's changes, answers to what it was asked;
/// it reads the tables' requests, its own sockets' frames, the lobby's
/// word and its own replies.
fn node_user(cluster: &str, node: &str, password: &str) -> String {
    format!(
        r#"{{ user: "{node}", password: "{password}", permissions: {{
      publish: {{ allow: ["{cluster}.table.*", "{cluster}.node.*.conn.*", "{cluster}.lobby"] }},
      subscribe: {{ allow: ["{cluster}.table.*", "{cluster}.node.{node}.conn.*", "{cluster}.lobby", "_INBOX.{cluster}.{node}.>"] }},
      allow_responses: true
    }} }}"#
    )
}

/// A message as NATS routed it: its subject, whether it asked for an
/// answer, and its payload.
type Routed = (String, bool, Vec<u8>);

/// Everything published on NATS as a user allowed to read it all sees
/// it, in the order NATS routed it.
type Seen = tokio::sync::mpsc::UnboundedReceiver<Routed>;

async fn record_everything(nats: &async_nats::Client) -> Seen {
    let (keep, seen) = tokio::sync::mpsc::unbounded_channel();
    let mut all = nats.subscribe(">").await.unwrap();
    nats.flush().await.unwrap();
    tokio::spawn(async move {
        while let Some(message) = all.next().await {
            let asks = message.reply.is_some();
            let _ = keep.send((message.subject.to_string(), asks, message.payload.to_vec()));
        }
    });
    seen
}

/// What was recorded up to now: publishes a marker and reads up to it.
/// Whatever NATS routed before the marker, the recorder has had first.
async fn recorded(nats: &async_nats::Client, seen: &mut Seen) -> Vec<Routed> {
    let marker = unique("marker.");
    nats.publish(marker.clone(), "".into()).await.unwrap();
    nats.flush().await.unwrap();
    let mut all = Vec::new();
    loop {
        let next = tokio::time::timeout(PATIENCE, seen.recv()).await;
        let routed = next.expect("the marker").expect("the recorder");
        if routed.0 == marker {
            return all;
        }
        all.push(routed);
    }
}

/// Says `hello` with `token` and reads up to the state; returns the
/// welcome and the first legal action.
async fn hello(addr: &str, table: &str, token: &str) -> (Ws, ServerMessage, Option<String>) {
    let mut ws = connect(addr).await.expect("a socket");
    let message = ClientMessage::Hello {
        table: table.to_owned(),
        token: Some(token.to_owned()),
        since: None,
    };
    assert!(send(&mut ws, &message).await);
    let welcome = recv(&mut ws).await.expect("a welcome");
    assert!(
        matches!(welcome, ServerMessage::Welcome { .. }),
        "{welcome:?}"
    );
    match recv(&mut ws).await {
        Some(ServerMessage::Snapshot { state, .. }) => {
            (ws, welcome, state.legal.first().map(|a| a.to_string()))
        }
        other => panic!("a snapshot, not {other:?}"),
    }
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn nodes_with_users_limited_to_their_subjects_play_and_no_token_crosses_nats() {
    let (admin_url, _) = services();
    let cluster = unique("trust");
    let (pass_a, pass_b, pass_watch) = (unique("a"), unique("b"), unique("w"));
    let settings = format!(
        "authorization {{\n  users = [\n    {}\n    {}\n    {{ user: \"watcher\", password: \"{pass_watch}\" }}\n  ]\n}}\n",
        node_user(&cluster, "a", &pass_a),
        node_user(&cluster, "b", &pass_b),
    );
    let nats = Nats::start_with(&settings).await;
    let mut setup = Setup::on(&admin_url, &nats.url()).await;
    setup.cluster = cluster.clone();

    // NATS refuses a client without credentials, and a node with the
    // wrong password does not start.
    assert!(async_nats::connect(nats.url()).await.is_err());
    let mut wrong = setup.command(
        "c",
        &nats.url(),
        &["--nats-user", "a", "--nats-password", "no"],
    );
    let status = tokio::time::timeout(
        PATIENCE,
        wrong
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status(),
    )
    .await
    .expect("the node with the wrong password gives up")
    .unwrap();
    assert!(!status.success());

    let watcher = async_nats::ConnectOptions::with_user_and_password("watcher".into(), pass_watch)
        .connect(nats.url())
        .await
        .expect("the watcher's credentials are taken");
    let mut seen = record_everything(&watcher).await;
    let node = |id: &str, password: &str| {
        let mut command = setup.command(id, &nats.url(), &["--nats-user", id]);
        command.env("BAGHCHAL_NATS_PASSWORD", password);
        Server::spawn(command)
    };
    let a = node("a", &pass_a).await;
    let b = node("b", &pass_b).await;

    // The table is node a's; every socket below is held by node b.
    let created = a.create(&friend(40)).await;
    let table = created.table.clone();
    let host_secret = created.secret.clone().unwrap();
    let invitation = token_of(created.opponent_link.as_deref().unwrap());
    let spectator_token = token_of(created.spectator_link.as_deref().unwrap());
    let (mut host, _, first) = hello(&b.addr, &table, &host_secret).await;
    let guest_secret = claim(&b.addr, &created).await;
    // The secret the guest got through node b is its seat's, on either
    // node.
    for node in [&b, &a] {
        let (_, welcome, _) = hello(&node.addr, &table, &guest_secret).await;
        assert!(
            matches!(
                welcome,
                ServerMessage::Welcome {
                    player: Some(_),
                    ..
                }
            ),
            "{welcome:?}"
        );
    }
    let (_watching, _, _) = hello(&b.addr, &table, &spectator_token).await;
    // The host plays through node b: the owner takes the relayed act.
    let action = ClientMessage::Action {
        id: "1".into(),
        action: first.expect("a legal first action"),
        board: None,
    };
    assert!(send(&mut host, &action).await);
    loop {
        match tokio::time::timeout(PATIENCE, recv(&mut host)).await {
            Ok(Some(ServerMessage::Ack { id })) if id == "1" => break,
            Ok(Some(ServerMessage::Error { code, message, .. })) => {
                panic!("the act was refused: {code:?} {message}")
            }
            Ok(Some(_)) => continue,
            other => panic!("no ack: {other:?}"),
        }
    }

    // An act under a guessed holder key (node b's, counted from 1) is
    // refused: the owner answers `closed` and never hands it to the table.
    let subject = format!("{cluster}.table.{table}");
    for key in 1..=64u64 {
        let forged = serde_json::json!({
            "type": "act", "holder": { "node": "b", "key": key },
            "id": "forged", "intent": { "Err": "forged" },
        });
        let reply = watcher
            .request(subject.clone(), forged.to_string().into())
            .await
            .expect("the owner answers");
        let reply: serde_json::Value = serde_json::from_slice(&reply.payload).unwrap();
        assert_eq!(reply["type"], "closed", "key {key}: {reply}");
    }
    // The same acts published without asking for an answer, as a holder
    // the owner told so sends them, go nowhere: the owner handles them in
    // order, so once it has answered a request sent after them, it has
    // dropped them all, and the host's ping is answered with no error
    // before its `pong`.
    for key in 1..=64u64 {
        let forged = serde_json::json!({
            "type": "act", "holder": { "node": "b", "key": key },
            "id": "forged", "intent": { "Err": "forged" },
        });
        watcher
            .publish(subject.clone(), forged.to_string().into())
            .await
            .unwrap();
    }
    let probe = serde_json::json!({ "type": "probe" });
    watcher
        .request(subject.clone(), probe.to_string().into())
        .await
        .expect("the owner answers");
    assert!(send(&mut host, &ClientMessage::Ping).await);
    loop {
        match tokio::time::timeout(PATIENCE, recv(&mut host)).await {
            Ok(Some(ServerMessage::Pong)) => break,
            Ok(Some(ServerMessage::Error { id, message, .. })) => {
                panic!("an error before the pong: {id:?} {message}")
            }
            // The event of the host's act.
            Ok(Some(_)) => continue,
            other => panic!("no pong: {other:?}"),
        }
    }

    // A challenge made through node a: the word of the lobby's change
    // reaches node b.
    let (status, cookie, body) = exchange(&a.addr, "GET", "/api/me", None, "").await;
    assert_eq!(status, 200, "{body}");
    let terms = r#"{"rated": false, "clock": {"initial": 300, "increment": 3}}"#;
    let (status, _, body) =
        exchange(&a.addr, "POST", "/api/challenges", cookie.as_deref(), terms).await;
    assert_eq!(status, 201, "{body}");
    // Node b's watch of its sockets at node a: a question every half
    // lease.
    tokio::time::sleep(LEASE_TIME).await;

    let seen = recorded(&watcher, &mut seen).await;
    let lobby_word = format!("{cluster}.lobby");
    assert!(
        seen.iter()
            .any(|(subject, _, word)| *subject == lobby_word && word == b"a"),
        "no word of the lobby's change crossed NATS"
    );
    let watch = format!("{cluster}.node.a.conn.watch");
    assert!(
        seen.iter().any(|(subject, _, question)| *subject == watch
            && String::from_utf8_lossy(question).contains("\"node\":\"b\"")),
        "node b did not ask node a after its sockets"
    );
    // The host's act and ping went to the owner without asking for an
    // answer: what they lead to comes in the relayed frames.
    let from_b = |kind: &str| {
        seen.iter()
            .filter(|(subject, _, payload)| {
                let payload = String::from_utf8_lossy(payload);
                *subject == format!("{cluster}.table.{table}")
                    && payload.contains(&format!("\"type\":\"{kind}\""))
                    && !payload.contains("forged")
            })
            .map(|(_, asks, _)| *asks)
            .collect::<Vec<_>>()
    };
    assert_eq!(from_b("act"), [false], "node b's acts");
    assert_eq!(from_b("ping"), [false], "node b's pings");
    let joins = seen
        .iter()
        .filter(|(subject, _, payload)| {
            subject.starts_with(&format!("{cluster}.table."))
                && String::from_utf8_lossy(payload).contains("\"join\"")
        })
        .count();
    // Host, claim, the guest through b, spectator: four relayed joins.
    assert!(joins >= 4, "{joins} joins crossed NATS");
    for (name, secret) in [
        ("the host's secret", &host_secret),
        ("the invitation", &invitation),
        ("the spectator link's token", &spectator_token),
        ("the claimed seat's secret", &guest_secret),
    ] {
        for (subject, _, payload) in seen.iter() {
            assert!(
                !String::from_utf8_lossy(payload).contains(secret.as_str()),
                "{name} crossed NATS on {subject}"
            );
        }
    }
    setup.cleanup().await;
}

/// Runs `openssl` with `args` in `dir`; it must succeed.
async fn openssl(dir: &std::path::Path, args: &[&str]) {
    let output = tokio::process::Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .await
        .expect("openssl runs");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A CA (`ca.pem`) and a certificate for 127.0.0.1 it signed
/// (`server.pem`, `server.key`), made in `dir`.
async fn certificates(dir: &std::path::Path) {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let mut ca = vec!["req", "-x509"];
    ca.extend(ec);
    ca.extend([
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "1",
        "-subj",
        "/CN=test ca",
    ]);
    openssl(dir, &ca).await;
    let mut request = vec!["req"];
    request.extend(ec);
    request.extend([
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    openssl(dir, &request).await;
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n\
         extendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "1",
            "-extfile",
            "server.ext",
        ],
    )
    .await;
}

#[cfg_attr(
    not(test_cluster),
    ignore = "BAGHCHAL_TEST_POSTGRES and BAGHCHAL_TEST_NATS were not set when the tests were built"
)]
#[tokio::test]
async fn nodes_that_trust_the_ca_of_a_nats_speaking_only_tls_play_and_others_do_not_start() {
    let (admin_url, _) = services();
    let dir = std::env::temp_dir().join(unique("baghchal-tls-"));
    std::fs::create_dir(&dir).unwrap();
    certificates(&dir).await;
    let settings = format!(
        "tls {{\n  cert_file: \"{}\"\n  key_file: \"{}\"\n}}\n",
        dir.join("server.pem").display(),
        dir.join("server.key").display()
    );
    let nats = Nats::start_with(&settings).await;
    let setup = Setup::on(&admin_url, &nats.url()).await;
    let ca = dir.join("ca.pem").display().to_string();

    // Without the CA the node cannot check NATS's certificate.
    let mut untrusting = setup.command("c", &nats.url(), &["--nats-tls"]);
    let status = tokio::time::timeout(
        PATIENCE,
        untrusting
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status(),
    )
    .await
    .expect("the node that cannot check NATS gives up")
    .unwrap();
    assert!(!status.success());

    let a = Server::spawn(setup.command("a", &nats.url(), &["--nats-tls-ca", &ca])).await;
    let b = Server::spawn(setup.command("b", &nats.url(), &["--nats-tls-ca", &ca])).await;
    // A table of node a, its guest seated through node b: over NATS.
    let created = a.create(&friend(40)).await;
    let guest_secret = claim(&b.addr, &created).await;
    let (_, welcome, _) = hello(&b.addr, &created.table, &guest_secret).await;
    assert!(
        matches!(
            welcome,
            ServerMessage::Welcome {
                player: Some(_),
                ..
            }
        ),
        "{welcome:?}"
    );
    drop((a, b));
    setup.cleanup().await;
    let _ = std::fs::remove_dir_all(&dir);
}
