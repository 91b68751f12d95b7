//! Players: the anonymous player every browser gets, accounts, sessions,
//! and seats that belong to players.

use std::net::SocketAddr;

use baghchal_protocol::{
    ApiError, ApiErrorCode, ClientMessage, ErrorCode, Me, Opponent, Player, ServerMessage,
    TableCreated,
};

use crate::common::{http_with, opponent_token, request, Client, TestDb, TestServer};
use crate::on_both;

/// A browser: it keeps the session cookie the server hands it.
pub(crate) struct Browser {
    addr: SocketAddr,
    cookie: Option<String>,
}

impl Browser {
    pub(crate) fn new(server: &TestServer) -> Browser {
        Browser {
            addr: server.addr,
            cookie: None,
        }
    }

    /// One request; the cookie is sent, and replaced or cleared as the
    /// answer says. Returns the status, the lowercased head and the body.
    pub(crate) async fn send(
        &mut self,
        method: &str,
        path: &str,
        body: &str,
    ) -> (u16, String, String) {
        let mut headers = vec![("Content-Type", "application/json")];
        let cookie = self.cookie.clone();
        if let Some(cookie) = &cookie {
            headers.push(("Cookie", cookie.as_str()));
        }
        let (status, head, body) = http_with(self.addr, method, path, &headers, body).await;
        if let Some(line) = head
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        {
            let pair = line["set-cookie:".len()..]
                .trim()
                .split(';')
                .next()
                .unwrap();
            self.cookie = match pair.split_once('=') {
                Some((_, "")) => None,
                _ => Some(pair.to_owned()),
            };
        }
        (status, head.to_ascii_lowercase(), body)
    }

    pub(crate) async fn me(&mut self) -> Me {
        let (status, _, body) = self.send("GET", "/api/me", "").await;
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    pub(crate) async fn account(
        &mut self,
        method: &str,
        path: &str,
        name: &str,
        password: &str,
    ) -> (u16, String) {
        let body = serde_json::json!({ "name": name, "password": password }).to_string();
        let (status, _, body) = self.send(method, path, &body).await;
        (status, body)
    }

    pub(crate) async fn sign_up(&mut self, name: &str, password: &str) -> (u16, String) {
        self.account("POST", "/api/account", name, password).await
    }

    pub(crate) async fn log_in(&mut self, name: &str, password: &str) -> (u16, String) {
        self.account("POST", "/api/session", name, password).await
    }

    pub(crate) async fn create(&mut self, opponent: Opponent) -> TableCreated {
        let body = serde_json::to_string(&request(opponent, 1)).unwrap();
        let (status, _, body) = self.send("POST", "/api/tables", &body).await;
        assert_eq!(status, 201, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    pub(crate) async fn socket(&self) -> Client {
        Client::connect_with_cookie(self.addr, self.cookie.as_deref().unwrap()).await
    }
}

fn error_of(body: &str) -> ApiErrorCode {
    serde_json::from_str::<ApiError>(body).unwrap().error
}

/// Says hello without a token and returns the welcome, or the refusal.
async fn hello_by_session(client: &mut Client, table: &str) -> Result<ServerMessage, ErrorCode> {
    client
        .send(&ClientMessage::Hello {
            table: table.into(),
            token: None,
            since: None,
        })
        .await;
    match client.recv().await {
        ServerMessage::Error { code, .. } => Err(code),
        welcome => Ok(welcome),
    }
}

fn player_of(welcome: &ServerMessage) -> Option<Player> {
    match welcome {
        ServerMessage::Welcome { player, .. } => *player,
        other => panic!("expected welcome, got {other:?}"),
    }
}

async fn a_first_visit_gets_an_anonymous_player_and_a_cookie_that_keeps_it(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut browser = Browser::new(&server);
    let (status, head, body) = browser.send("GET", "/api/me", "").await;
    assert_eq!(status, 200, "{body}");
    assert!(head.contains("set-cookie: baghchal_session="), "{head}");
    assert!(
        head.contains("httponly") && head.contains("samesite=lax"),
        "{head}"
    );
    let first: Me = serde_json::from_str(&body).unwrap();
    assert_eq!(first.name, None);
    assert!(first.playing.is_empty() && first.ratings.is_empty());

    let (_, head, body) = browser.send("GET", "/api/me", "").await;
    assert!(!head.contains("set-cookie"), "{head}");
    let again: Me = serde_json::from_str(&body).unwrap();
    assert_eq!(again.id, first.id);

    // Another browser is another player.
    assert_ne!(Browser::new(&server).me().await.id, first.id);
    server.stop().await;
}
on_both!(a_first_visit_gets_an_anonymous_player_and_a_cookie_that_keeps_it);

async fn an_account_keeps_its_anonymous_seats_and_a_second_device_finds_them(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut phone = Browser::new(&server);
    let anonymous = phone.me().await;
    let created = phone.create(Opponent::Friend).await;
    let me = phone.me().await;
    assert_eq!(me.playing.len(), 1, "{me:?}");
    assert_eq!(me.playing[0].table, created.table);
    assert!(me.playing[0]
        .url
        .ends_with(&format!("/t/{}", created.table)));

    let (status, body) = phone.sign_up("GoatHerd", "correct horse battery").await;
    assert_eq!(status, 200, "{body}");
    let account: Me = serde_json::from_str(&body).unwrap();
    assert_eq!(account.id, anonymous.id);
    assert_eq!(account.name.as_deref(), Some("GoatHerd"));
    assert_eq!(account.playing, me.playing);

    // On a second device, logging in (the name in any case) finds the
    // games, and the session opens the seat without its secret.
    let mut laptop = Browser::new(&server);
    laptop.me().await;
    let (status, body) = laptop.log_in("goatherd", "correct horse battery").await;
    assert_eq!(status, 200, "{body}");
    let there: Me = serde_json::from_str(&body).unwrap();
    assert_eq!(there.id, anonymous.id);
    assert_eq!(there.playing, me.playing);
    let mut socket = laptop.socket().await;
    let welcome = hello_by_session(&mut socket, &created.table).await.unwrap();
    assert_eq!(player_of(&welcome), Some(Player::Host));
    server.stop().await;
}
on_both!(an_account_keeps_its_anonymous_seats_and_a_second_device_finds_them);

async fn a_guest_who_claims_the_link_with_a_session_owns_the_seat(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut host = Browser::new(&server);
    host.me().await;
    let created = host.create(Opponent::Friend).await;
    let mut guest = Browser::new(&server);
    guest.me().await;
    let mut first = guest.socket().await;
    let joined = first
        .hello(&created.table, &opponent_token(&created), None)
        .await;
    assert_eq!(player_of(&joined.welcome), Some(Player::Guest));
    assert_eq!(guest.me().await.playing[0].table, created.table);

    // The guest's session, without the new secret, opens the guest seat;
    // a stranger's session opens nothing at a friend table.
    let mut second = guest.socket().await;
    let welcome = hello_by_session(&mut second, &created.table).await.unwrap();
    assert_eq!(player_of(&welcome), Some(Player::Guest));
    let mut stranger = Browser::new(&server);
    stranger.me().await;
    let mut socket = stranger.socket().await;
    assert_eq!(
        hello_by_session(&mut socket, &created.table)
            .await
            .unwrap_err(),
        ErrorCode::InvalidToken
    );
    // Nor does the spent opponent link with the stranger's session.
    let mut late = stranger.socket().await;
    late.send(&ClientMessage::Hello {
        table: created.table.clone(),
        token: Some(opponent_token(&created)),
        since: None,
    })
    .await;
    assert!(matches!(
        late.recv().await,
        ServerMessage::Error {
            code: ErrorCode::SeatTaken,
            ..
        }
    ));
    server.stop().await;
}
on_both!(a_guest_who_claims_the_link_with_a_session_owns_the_seat);

async fn names_are_checked_unique_without_regard_to_case_and_some_are_reserved(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut first = Browser::new(&server);
    first.me().await;
    assert_eq!(first.sign_up("TigerLily", "long enough").await.0, 200);
    let (status, body) = first.sign_up("Another", "long enough").await;
    assert_eq!(
        (status, error_of(&body)),
        (409, ApiErrorCode::AlreadyAccount)
    );

    let mut second = Browser::new(&server);
    second.me().await;
    let (status, body) = second.sign_up("tigerlily", "long enough").await;
    assert_eq!((status, error_of(&body)), (409, ApiErrorCode::NameTaken));
    for (name, password) in [
        ("ab", "long enough"),
        ("admin", "long enough"),
        ("Computer2400", "long enough"),
        ("has space", "long enough"),
        ("Fine_Name", "short"),
    ] {
        let (status, body) = second.sign_up(name, password).await;
        assert_eq!(
            (status, error_of(&body)),
            (422, ApiErrorCode::InvalidField),
            "{name}"
        );
    }
    // Without a session there is nobody to name.
    let mut bare = Browser::new(&server);
    let (status, body) = bare.sign_up("Nobody", "long enough").await;
    assert_eq!((status, error_of(&body)), (401, ApiErrorCode::NotSignedIn));
    server.stop().await;
}
on_both!(names_are_checked_unique_without_regard_to_case_and_some_are_reserved);

async fn wrong_passwords_and_unknown_names_are_told_apart_by_nothing(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut owner = Browser::new(&server);
    owner.me().await;
    assert_eq!(owner.sign_up("Shepherd", "right password").await.0, 200);

    let mut other = Browser::new(&server);
    let (status, wrong) = other.log_in("Shepherd", "wrong password").await;
    let (status_unknown, unknown) = other.log_in("Nobody42", "wrong password").await;
    assert_eq!((status, status_unknown), (401, 401));
    assert_eq!(wrong, unknown);
    assert_eq!(other.cookie, None);

    // A name tried too often is refused whatever the password, for a
    // while: ten attempts, then 429 (the address's own budget is ten too,
    // so a second address would see the same).
    let mut refused = 0;
    for _ in 0..12 {
        let (status, _) = other.log_in("Shepherd", "wrong password").await;
        if status == 429 {
            refused += 1;
        }
    }
    assert!(refused >= 2, "{refused}");
    server.stop().await;
}
on_both!(wrong_passwords_and_unknown_names_are_told_apart_by_nothing);

async fn logging_out_and_a_new_password_close_sessions(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut phone = Browser::new(&server);
    let id = phone.me().await.id;
    assert_eq!(phone.sign_up("Herder", "first password").await.0, 200);
    let mut laptop = Browser::new(&server);
    assert_eq!(laptop.log_in("Herder", "first password").await.0, 200);
    let laptop_cookie = laptop.cookie.clone();

    // A new password closes every other session.
    let change =
        serde_json::json!({"password": "first password", "new_password": "second password"});
    let (status, _, body) = phone
        .send("PUT", "/api/account/password", &change.to_string())
        .await;
    assert_eq!(status, 204, "{body}");
    assert_eq!(phone.me().await.id, id);
    laptop.cookie = laptop_cookie;
    assert_ne!(laptop.me().await.id, id, "the laptop's session was closed");
    assert_eq!(laptop.log_in("Herder", "first password").await.0, 401);
    assert_eq!(laptop.log_in("Herder", "second password").await.0, 200);

    // Logging out forgets the session: the next visit is a new player.
    let (status, head, _) = phone.send("DELETE", "/api/session", "").await;
    assert_eq!(status, 204);
    assert!(head.contains("max-age=0"), "{head}");
    assert_eq!(phone.cookie, None);
    assert_ne!(phone.me().await.id, id);
    server.stop().await;
}
on_both!(logging_out_and_a_new_password_close_sessions);

async fn a_closed_account_keeps_its_games_and_its_name_stays_reserved(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut browser = Browser::new(&server);
    browser.me().await;
    assert_eq!(browser.sign_up("Leaving", "my password").await.0, 200);
    let wrong = serde_json::json!({"password": "not my password"}).to_string();
    let (status, _, body) = browser.send("DELETE", "/api/account", &wrong).await;
    assert_eq!(
        (status, error_of(&body)),
        (401, ApiErrorCode::WrongPassword)
    );
    let right = serde_json::json!({"password": "my password"}).to_string();
    let (status, _, _) = browser.send("DELETE", "/api/account", &right).await;
    assert_eq!(status, 204);
    assert_eq!(browser.cookie, None);

    let mut other = Browser::new(&server);
    assert_eq!(other.log_in("Leaving", "my password").await.0, 401);
    other.me().await;
    let (status, body) = other.sign_up("leaving", "my password").await;
    assert_eq!((status, error_of(&body)), (409, ApiErrorCode::NameTaken));
    server.stop().await;
}
on_both!(a_closed_account_keeps_its_games_and_its_name_stays_reserved);

#[tokio::test]
async fn a_page_of_another_site_cannot_sign_up_or_log_out() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let mut browser = Browser::new(&server);
    browser.me().await;
    let cookie = browser.cookie.clone().unwrap();
    let body = serde_json::json!({"name": "Victim", "password": "long enough"}).to_string();
    for (method, path, body) in [
        ("POST", "/api/account", body.as_str()),
        ("DELETE", "/api/session", ""),
    ] {
        let (status, _, answer) = http_with(
            server.addr,
            method,
            path,
            &[
                ("Content-Type", "application/json"),
                ("Origin", "https://evil.example"),
                ("Cookie", &cookie),
            ],
            body,
        )
        .await;
        assert_eq!(status, 403, "{method} {path}: {answer}");
    }
    assert_eq!(browser.me().await.name, None);
    server.stop().await;
}

#[tokio::test]
async fn a_hello_with_neither_token_nor_session_is_refused() {
    let db = TestDb::sqlite();
    let server = TestServer::start(&db).await;
    let created = server.create(&request(Opponent::Friend, 1)).await;
    let mut client = server.connect().await;
    assert_eq!(
        hello_by_session(&mut client, &created.table)
            .await
            .unwrap_err(),
        ErrorCode::InvalidToken
    );
    server.stop().await;
}
