//! Puzzle ratings: a player's first try of a puzzle is rated (the
//! player's puzzle rating, and the puzzle's for established accounts), a
//! later try changes nothing, the next puzzle is one not tried, and tries
//! at once lose no update.

use baghchal_protocol::{PuzzleAnswer, PuzzleVerdict, PuzzleView};

use crate::common::{http, TestDb, TestServer};
use crate::on_both;
use crate::players::Browser;

impl Browser {
    async fn next_puzzle(&mut self) -> PuzzleView {
        let (status, _, body) = self.send("GET", "/api/puzzles/next", "").await;
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    async fn puzzle_moves(&mut self, id: &str, moves: &[String]) -> PuzzleAnswer {
        let body = serde_json::json!({ "moves": moves }).to_string();
        let (status, _, body) = self
            .send("POST", &format!("/api/puzzles/{id}/moves"), &body)
            .await;
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Plays the whole line of `puzzle`: the last answer.
    async fn solve(&mut self, puzzle: &PuzzleView) -> PuzzleAnswer {
        self.puzzle_moves(&puzzle.id, &puzzle.solution).await
    }

    /// Answers `puzzle` with a legal move that is not its first.
    async fn fail(&mut self, puzzle: &PuzzleView) -> PuzzleAnswer {
        let wrong = puzzle
            .legal
            .iter()
            .find(|a| **a != puzzle.solution[0])
            .expect("another legal move");
        self.puzzle_moves(&puzzle.id, std::slice::from_ref(wrong))
            .await
    }
}

/// The puzzle a request without a session gets at `rating`: the nearest,
/// the smallest id among equals.
async fn anonymous_next(server: &TestServer, rating: u16) -> PuzzleView {
    let (status, body) = http(
        server.addr,
        "GET",
        &format!("/api/puzzles/next?rating={rating}"),
        "",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

async fn a_first_try_is_rated_a_later_one_changes_nothing_and_the_next_is_new(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut browser = Browser::new(&server);
    browser.me().await;
    let first = browser.next_puzzle().await;
    let me = first.player.expect("a player's own puzzle rating");
    assert_eq!((me.rating, me.tries, me.provisional), (1500, 0, true));

    let solved = browser.solve(&first).await;
    assert_eq!(solved.verdict, PuzzleVerdict::Solved);
    let rated = solved.rated.expect("the first try is rated");
    assert!(rated.change > 0, "{rated:?}");
    assert_eq!(rated.player.tries, 1);
    assert_eq!(
        i64::from(rated.player.rating) - 1500,
        i64::from(rated.change)
    );
    // An anonymous player leaves the puzzle's rating as it was.
    assert_eq!(rated.puzzle_rating, u32::from(first.rating));

    // The same puzzle again: answered, not rated.
    let again = browser.solve(&first).await;
    assert_eq!(again.verdict, PuzzleVerdict::Solved);
    assert_eq!(again.rated, None);
    let wrong_again = browser.fail(&first).await;
    assert_eq!(wrong_again.verdict, PuzzleVerdict::Wrong);
    assert_eq!(wrong_again.rated, None);

    // The next puzzle is another, at the new rating; failing it costs.
    let second = browser.next_puzzle().await;
    assert_ne!(second.id, first.id);
    assert_eq!(second.player, Some(rated.player));
    let failed = browser.fail(&second).await;
    assert_eq!(failed.verdict, PuzzleVerdict::Wrong);
    let lost = failed.rated.expect("a failed first try is rated");
    assert!(lost.change < 0, "{lost:?}");
    assert_eq!(lost.player.tries, 2);

    // No puzzle tried comes back while untried ones are near.
    let mut seen = vec![first.id.clone(), second.id.clone()];
    for _ in 0..4 {
        let next = browser.next_puzzle().await;
        assert!(!seen.contains(&next.id), "{} came back", next.id);
        browser.solve(&next).await.rated.expect("rated");
        seen.push(next.id);
    }

    // Without a session nothing is rated.
    let (status, body) = http(
        server.addr,
        "POST",
        &format!("/api/puzzles/{}/moves", first.id),
        &serde_json::json!({ "moves": first.solution }).to_string(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let answer: PuzzleAnswer = serde_json::from_str(&body).unwrap();
    assert_eq!(answer.rated, None);
    server.stop().await;
}
on_both!(a_first_try_is_rated_a_later_one_changes_nothing_and_the_next_is_new);

async fn an_established_account_moves_the_puzzles_rating(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut browser = Browser::new(&server);
    browser.me().await;
    let (status, body) = browser.sign_up("Solver", "correct horse battery").await;
    assert_eq!(status, 200, "{body}");
    // A new account is "clueless" (deviation 230 or more): its first
    // tries leave the puzzles alone, then they move. The deviation shown
    // is rounded, so a try at a shown 230 may go either way.
    let mut moved = None;
    for _ in 0..30 {
        let puzzle = browser.next_puzzle().await;
        let deviation = puzzle.player.unwrap().deviation;
        let rated = browser.solve(&puzzle).await.rated.expect("rated");
        if deviation > 230 {
            assert_eq!(rated.puzzle_rating, u32::from(puzzle.rating), "{rated:?}");
        } else if deviation < 230 {
            moved = Some((puzzle, rated));
            break;
        }
    }
    let (puzzle, rated) = moved.expect("the account's deviation fell below 230");
    assert!(
        rated.puzzle_rating < u32::from(puzzle.rating),
        "a solve lowers the puzzle's rating: {rated:?} from {}",
        puzzle.rating
    );
    server.stop().await;
}
on_both!(an_established_account_moves_the_puzzles_rating);

async fn tries_at_once_lose_no_update(db: &TestDb) {
    let server = TestServer::start(db).await;
    // Many players try one puzzle at once: each play counts.
    let target = anonymous_next(&server, 1100).await;
    assert_eq!(target.plays, 0);
    let mut players = Vec::new();
    for _ in 0..6 {
        let mut browser = Browser::new(&server);
        browser.me().await;
        players.push(browser);
    }
    let answers = futures_util::future::join_all(
        players
            .iter_mut()
            .map(|browser| browser.puzzle_moves(&target.id, &target.solution)),
    )
    .await;
    assert!(answers.iter().all(|a| a.rated.is_some()), "{answers:?}");
    let after = anonymous_next(&server, 1100).await;
    assert_eq!(after.id, target.id);
    assert_eq!(after.plays, 6);

    // One player sends the same last move several times at once: one is
    // rated. Several puzzles at once: every change adds up.
    let mut solver = Browser::new(&server);
    solver.me().await;
    let one = solver.next_puzzle().await;
    let cookie = solver.cookie.clone();
    let mut copies: Vec<Browser> = (0..4)
        .map(|_| Browser {
            addr: server.addr,
            cookie: cookie.clone(),
        })
        .collect();
    let answers = futures_util::future::join_all(
        copies
            .iter_mut()
            .map(|browser| browser.puzzle_moves(&one.id, &one.solution)),
    )
    .await;
    assert_eq!(
        answers.iter().filter(|a| a.rated.is_some()).count(),
        1,
        "{answers:?}"
    );
    let first_change = answers.iter().find_map(|a| a.rated).unwrap().change;

    let mut distinct = Vec::new();
    let mut after = None;
    while distinct.len() < 5 {
        let mut q = String::from("/api/puzzles/next?rating=1300");
        if let Some(id) = &after {
            q.push_str(&format!("&after={id}"));
        }
        let (_, body) = http(server.addr, "GET", &q, "").await;
        let p: PuzzleView = serde_json::from_str(&body).unwrap();
        after = Some(p.id.clone());
        if p.id != one.id && !distinct.iter().any(|d: &PuzzleView| d.id == p.id) {
            distinct.push(p);
        }
    }
    let answers = futures_util::future::join_all(distinct.iter().enumerate().map(|(i, p)| {
        let mut copy = Browser {
            addr: server.addr,
            cookie: cookie.clone(),
        };
        let p = p.clone();
        async move {
            if i % 2 == 0 {
                copy.solve(&p).await
            } else {
                copy.fail(&p).await
            }
        }
    }))
    .await;
    let changes: i64 = answers
        .iter()
        .map(|a| i64::from(a.rated.expect("each a first try").change))
        .sum();
    let me = solver.next_puzzle().await.player.unwrap();
    assert_eq!(me.tries, 6);
    assert_eq!(
        i64::from(me.rating) - 1500,
        i64::from(first_change) + changes,
        "the changes shown add up to the rating: none was lost"
    );
    server.stop().await;

    // A restart writes the shipped set again and keeps what tries did.
    let server = TestServer::start(db).await;
    let again = anonymous_next(&server, 1100).await;
    assert_eq!((again.id, again.plays), (target.id, 6));
    server.stop().await;
}
on_both!(tries_at_once_lose_no_update);

async fn once_every_puzzle_near_is_tried_a_tried_one_comes_back_unrated(db: &TestDb) {
    let server = TestServer::start(db).await;
    let mut browser = Browser::new(&server);
    browser.me().await;
    let path = "/api/puzzles/next?theme=last_tiger";
    let mut tried = Vec::new();
    loop {
        let (status, _, body) = browser.send("GET", path, "").await;
        assert_eq!(status, 200, "{body}");
        let puzzle: PuzzleView = serde_json::from_str(&body).unwrap();
        assert!(puzzle.themes.contains(&"last_tiger".to_owned()));
        if tried.contains(&puzzle.id) {
            // All of the theme tried: this one again, not rated again.
            assert!(browser.solve(&puzzle).await.rated.is_none());
            break;
        }
        assert!(browser.solve(&puzzle).await.rated.is_some());
        tried.push(puzzle.id);
        assert!(tried.len() <= 24, "the theme has few puzzles");
    }
    assert!(tried.len() > 1, "{tried:?}");
    server.stop().await;
}
on_both!(once_every_puzzle_near_is_tried_a_tried_one_comes_back_unrated);
