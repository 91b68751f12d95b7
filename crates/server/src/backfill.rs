//! The rows of the games that ended before `games` existed: each table the
//! migration listed is replayed once, its finished games written and the
//! table taken off the list in one transaction, so that a crash part of
//! the way leaves the rest to the next start.

use crate::storage::{Storage, StorageError};
use baghchal_table::boards::Boards;
use baghchal_table::finished::FinishedGame;
use baghchal_table::seats::Seats;
use baghchal_table::time::Timestamp;

/// Tables looked at per round.
const ROUND: usize = 256;

/// Writes the missing rows of every listed table; returns how many games
/// it stored. A table whose events do not replay is logged and left out
/// of history (it does not load either).
pub async fn backfill_games(storage: &Storage) -> Result<usize, StorageError> {
    let mut stored = 0;
    loop {
        let tables = storage.tables_to_backfill(ROUND).await?;
        if tables.is_empty() {
            return Ok(stored);
        }
        for table in tables {
            let games = match storage.table(&table).await? {
                Some(row) => {
                    let events = storage.events(&table).await?;
                    // The seats as the row has them (only who, not the
                    // links' hashes or the times, reach a game's row).
                    let seats = Seats::new(None, None, None, None, Timestamp::from_millis(0))
                        .with_players(row.players.clone(), row.lobby);
                    match Boards::replay(row.options, &events) {
                        Ok((_, ended)) => ended
                            .into_iter()
                            .map(|(board, version, game)| {
                                FinishedGame::new(
                                    &table,
                                    &row.options,
                                    &seats,
                                    row.rated,
                                    board,
                                    version,
                                    game,
                                )
                            })
                            .collect(),
                        Err((version, what)) => {
                            tracing::error!(table_id = %table, version, what, "a table's events do not replay; its games are left out of history");
                            Vec::new()
                        }
                    }
                }
                None => Vec::new(),
            };
            stored += games.len();
            storage.backfill(&table, &games).await?;
        }
    }
}
