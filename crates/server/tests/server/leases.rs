//! Ownership of tables in PostgreSQL, as nodes of a cluster use it: two
//! nodes racing for one table, and a stale owner's writes refused.
//! PostgreSQL only (leases run on its clock).

use std::time::Duration;

use baghchal_rules::{Rules, Side};
use baghchal_server::storage::{Storage, StorageError, TableRow};
use baghchal_table::options::{Opponent, TableOptions};
use baghchal_table::play::{Event, Logged};
use baghchal_table::seat::Player;

use crate::common::{TestDb, PATIENCE};

fn row(id: &str) -> TableRow {
    TableRow {
        id: id.into(),
        options: TableOptions {
            opponent: Opponent::Friend,
            host_side: Side::Goat,
            level: None,
            spectator_seats: 0,
            rules: Rules::default(),
            clock: None,
            format: baghchal_table::options::Format::Single,
        },
        host_secret: None,
        guest_secret: None,
        invite_token: None,
        watch_token: None,
        players: [None, None],
        lobby: false,
        rated: false,
    }
}

/// The `version`th move of a game, `side`'s `action`, a second after
/// the one before it.
fn a_move(version: u64, side: Side, action: &str) -> Logged {
    let player = match side {
        Side::Goat => Player::Host,
        Side::Tiger => Player::Guest,
    };
    Logged {
        version,
        event: Event::Played {
            side,
            action: action.parse().unwrap(),
        },
        player: Some(player),
        client_id: Some(version.to_string()),
        at: baghchal_table::time::Timestamp::from_millis(
            1_796_160_600_000 + i64::try_from(version).unwrap() * 1_000,
        ),
        board: 1,
    }
}

fn first_move() -> Logged {
    a_move(1, Side::Goat, "c3")
}

/// Waits until the database says `table`'s lease has run out.
async fn until_lease_runs_out(storage: &Storage, table: &str) {
    tokio::time::timeout(PATIENCE, async {
        while !storage
            .owner(table)
            .await
            .unwrap()
            .unwrap()
            .remaining
            .is_zero()
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the lease runs out");
}

#[tokio::test]
async fn two_nodes_racing_to_load_a_table_give_it_one_owner() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let a = Storage::connect(&db.url).await.unwrap();
    let b = Storage::connect(&db.url).await.unwrap();
    for n in 0..20 {
        let id = format!("race{n:018}");
        a.create_table(&row(&id), None).await.unwrap();
        let lease = Duration::from_secs(30);
        let (won_a, won_b) = tokio::join!(a.acquire(&id, "a", lease), b.acquire(&id, "b", lease));
        let (won_a, won_b) = (won_a.unwrap(), won_b.unwrap());
        assert!(won_a.is_some() != won_b.is_some(), "{won_a:?} {won_b:?}");
        let owner = a.owner(&id).await.unwrap().unwrap().owner.unwrap();
        assert_eq!(owner, if won_a.is_some() { "a" } else { "b" });
    }
    a.close().await;
    b.close().await;
    db.cleanup().await;
}

#[tokio::test]
async fn a_stale_owner_can_no_longer_write_after_a_takeover() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let a = Storage::connect(&db.url).await.unwrap();
    let b = Storage::connect(&db.url).await.unwrap();
    let id = "stale0000000000000000a";
    let old = a
        .create_table(&row(id), Some(("a", Duration::from_millis(200))))
        .await
        .unwrap()
        .unwrap();
    // Node a is paused past its lease; node b takes the table.
    until_lease_runs_out(&b, id).await;
    let new = b
        .acquire(id, "b", Duration::from_secs(30))
        .await
        .unwrap()
        .expect("an expired lease can be taken");
    assert!(new > old);
    // The paused node wakes up and tries to write: refused, whether the
    // append sets the table's `active` flag (a transaction) or not (one
    // statement).
    let other = sqlx::PgPool::connect(&db.url).await.unwrap();
    for active in [Some(true), None] {
        assert!(matches!(
            a.append_event(id, &first_move(), active, Some(old)).await,
            Err(StorageError::Fenced)
        ));
        // The refused append's transaction is over, not left open on the
        // connection node a's writer keeps: the table's row is free for
        // another node to lock at once.
        sqlx::query("SELECT id FROM tables WHERE id = $1 FOR UPDATE NOWAIT")
            .bind(id)
            .execute(&other)
            .await
            .expect("no lock is left on the table's row");
    }
    other.close().await;
    assert!(a
        .renew("a", Duration::from_secs(30), &[id.to_owned()])
        .await
        .unwrap()
        .is_empty());
    // The new owner writes; the log is one line, written at its epoch.
    b.append_event(id, &first_move(), Some(true), Some(new))
        .await
        .unwrap();
    b.append_event(id, &a_move(2, Side::Tiger, "a1-a2"), None, Some(new))
        .await
        .unwrap();
    assert_eq!(b.event_epochs(id).await.unwrap(), vec![(1, new), (2, new)]);
    // A live lease cannot be taken.
    assert_eq!(
        a.acquire(id, "a", Duration::from_secs(30)).await.unwrap(),
        None
    );
    a.close().await;
    b.close().await;
    db.cleanup().await;
}

#[tokio::test]
async fn appends_committed_together_are_each_fenced_on_their_own_lease() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let a = Storage::connect(&db.url).await.unwrap();
    let b = Storage::connect(&db.url).await.unwrap();
    // Appends that set the tables' `active` flag are committed in a
    // transaction, the others in one statement: both are fenced alike.
    for (n, active) in [Some(true), None].into_iter().enumerate() {
        let kept = format!("fenced00000000000kept{n}");
        let lost = format!("fenced00000000000lost{n}");
        let kept_epoch = a
            .create_table(&row(&kept), Some(("a", Duration::from_secs(30))))
            .await
            .unwrap()
            .unwrap();
        let lost_epoch = a
            .create_table(&row(&lost), Some(("a", Duration::from_millis(200))))
            .await
            .unwrap()
            .unwrap();
        until_lease_runs_out(&b, &lost).await;
        b.acquire(&lost, "b", Duration::from_secs(30))
            .await
            .unwrap()
            .expect("an expired lease can be taken");
        // Both appends reach node a's writer at once: whether they share a
        // batch or not, the table it still owns is written and the other
        // is refused.
        let event = first_move();
        let (stored, refused) = tokio::join!(
            a.append_event(&kept, &event, active, Some(kept_epoch)),
            a.append_event(&lost, &event, active, Some(lost_epoch)),
        );
        stored.unwrap();
        assert!(matches!(refused, Err(StorageError::Fenced)), "{refused:?}");
        assert_eq!(a.event_epochs(&kept).await.unwrap(), vec![(1, kept_epoch)]);
        assert_eq!(a.event_epochs(&lost).await.unwrap(), vec![]);
    }
    a.close().await;
    b.close().await;
    db.cleanup().await;
}
