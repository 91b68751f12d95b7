//! The lobby: open challenges, quick-pairing pools, and the live channel
//! that tells each player in it the lobby's state and their pairing.
//!
//! The database is the truth every node shares ([`crate::storage`]'s
//! lobby rows and its pairing transaction); each node's [`Lobby`] holds
//! only its own players' live channels. Its task, every second (and at
//! once after a change made here, or one another node of its cluster
//! announced), reads the lobby's state and the lobby tables of the
//! players it serves and tells them what changed; every two
//! seconds it runs a wave of each pool that has players waiting; it keeps
//! its players' challenges and pool places alive and drops those whose
//! makers left without saying so (their node died). Two players where
//! either blocks the other are never paired, and neither sees the other's
//! challenges. See `docs/scaling.md` for the design across nodes and its
//! failure cases.

mod blocks;
mod live;
pub mod pools;
mod task;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use baghchal_protocol::{self as wire, LobbyEvent, LobbyState, Paired};
use baghchal_rating::{Rating, Speed};
use tokio::sync::{mpsc, Notify};

use crate::cluster::Node;
use crate::storage::{
    ChallengeRow, ClockColumns, Consumes, Pairing, PoolEntry, Storage, StorageError, TableRow,
};
use baghchal_table::clock::TimeControl;
use baghchal_table::options::TableOptions;
use pools::{match_wave, Apart, POOLS};

/// The most live games listed.
pub const LIVE_GAMES: i64 = 50;
/// The most open challenges the lobby shows.
pub const SHOWN_CHALLENGES: i64 = 100;
/// How often the lobby's state is read and sent when it changed, unless
/// a change wakes it sooner.
pub const TICK: Duration = Duration::from_secs(1);
/// How often each pool runs a wave.
const WAVE_EVERY: u32 = 2;
/// How often this node marks its players present and sweeps the absent.
const PRESENCE_EVERY: u32 = 10;
/// A challenge or pool place not refreshed for this long is dropped.
pub const GONE_AFTER_MS: i64 = 30_000;
/// Events a live channel may have unread before it is dropped.
const CHANNEL_LEN: usize = 16;
/// Spectator seats of a lobby table, whose gallery is open to anyone.
pub const LOBBY_GALLERY: u8 = 12;

/// The lobby of this node. Cheap to clone.
#[derive(Clone)]
pub struct Lobby {
    inner: Arc<Inner>,
}

struct Inner {
    storage: Storage,
    public_url: Arc<str>,
    /// The live channels of the players in the lobby on this node.
    channels: Mutex<Channels>,
    /// Wakes the lobby's task at once (after a pairing made here, or
    /// another node's word of a change).
    poke: Notify,
    /// Wakes the lobby's task to tell the other nodes that the lobby
    /// changed here.
    announce: Notify,
    /// How often the task reads the lobby's state unasked.
    tick: Duration,
    /// The cluster this node belongs to, if any: how other nodes hear of
    /// a change made here at once, rather than at their next tick.
    node: Option<Node>,
    next_channel: AtomicU64,
    /// The players whose last channel closed, to take out of the lobby.
    left: mpsc::UnboundedSender<String>,
    left_rx: Mutex<Option<mpsc::UnboundedReceiver<String>>>,
}

#[derive(Default)]
struct Channels {
    by_player: HashMap<String, Vec<(u64, mpsc::Sender<LobbyEvent>)>>,
    /// The table each player was last told of.
    announced: HashMap<String, String>,
    /// The lobby's state last read, and how many times it changed.
    state: Option<LobbyState>,
    version: u64,
    /// What each player was last sent: the state's version, and the
    /// challenges hidden from them (blocks, either way, with the maker).
    sent: HashMap<String, (u64, Vec<String>)>,
}

/// The ids of `state`'s challenges whose makers `apart` keeps from
/// `player`.
fn hidden_from(state: &LobbyState, player: &str, apart: &Apart) -> Vec<String> {
    state
        .challenges
        .iter()
        .filter(|c| apart.between(player, &c.player.id))
        .map(|c| c.id.clone())
        .collect()
}

/// `state` without the challenges `hidden`.
fn without(state: &LobbyState, hidden: &[String]) -> LobbyState {
    let mut state = state.clone();
    if !hidden.is_empty() {
        state.challenges.retain(|c| !hidden.contains(&c.id));
    }
    state
}

/// A player's live channel: its events, and its place among the
/// channels, given back when it is dropped.
pub struct Channel {
    /// The events, the lobby's state first.
    pub events: mpsc::Receiver<LobbyEvent>,
    lobby: Lobby,
    player: String,
    id: u64,
}

impl Drop for Channel {
    fn drop(&mut self) {
        let mut channels = self.lobby.lock();
        let last = match channels.by_player.get_mut(&self.player) {
            Some(list) => {
                list.retain(|(id, _)| *id != self.id);
                list.is_empty()
            }
            None => false,
        };
        if last {
            channels.by_player.remove(&self.player);
            channels.announced.remove(&self.player);
            channels.sent.remove(&self.player);
            let _ = self.lobby.inner.left.send(self.player.clone());
        }
    }
}

/// Why a lobby request was refused.
#[derive(Debug, thiserror::Error)]
pub enum LobbyError {
    /// The database failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A field is out of range.
    #[error("{message}")]
    Field {
        /// The field.
        field: &'static str,
        /// Why.
        message: String,
    },
    /// Only accounts may play rated games.
    #[error("rated games are for accounts")]
    AccountNeeded,
    /// The challenge is gone.
    #[error("taken")]
    Taken,
    /// The player is in a lobby game already.
    #[error("busy")]
    Busy,
    /// One of the two players blocks the other.
    #[error("blocked")]
    Blocked,
    /// No such player.
    #[error("no such player")]
    UnknownPlayer,
    /// The player blocks the most players already.
    #[error("too many blocks")]
    TooManyBlocks,
    /// The player has the most open challenges already.
    #[error("too many challenges")]
    TooManyChallenges,
    /// No such pool or challenge.
    #[error("not found")]
    NotFound,
    /// The system's random source failed.
    #[error("no random bytes")]
    Random,
}

/// A challenge's terms, checked.
#[derive(Clone, Debug)]
pub struct Terms {
    /// The table's options for the game.
    pub options: TableOptions,
    /// `goats`, `tigers` or `random`.
    pub side: wire::SideChoice,
    /// Rated.
    pub rated: bool,
    /// The rating range of an opponent.
    pub range: (Option<u32>, Option<u32>),
}

/// The options of a lobby table with `clock`, the host with `host_side`.
fn lobby_options(
    clock: Option<wire::TimeControl>,
    host_side: wire::Side,
) -> Result<TableOptions, baghchal_table::options::FieldError> {
    TableOptions::parse(&wire::CreateTable {
        opponent: wire::Opponent::Friend,
        side: host_side,
        level: None,
        spectators: LOBBY_GALLERY,
        variant: wire::Variant::default(),
        clock,
        format: wire::Format::Single,
        series_games: None,
    })
}

/// The speed class of a table's clock.
pub fn speed_of(options: &TableOptions) -> Speed {
    speed_of_columns(ClockColumns::encode(options.clock))
}

/// The speed class of a clock as its columns hold it.
fn speed_of_columns(columns: ClockColumns) -> Speed {
    let ms = |n: Option<i64>| n.and_then(|n| u64::try_from(n).ok());
    Speed::of(
        ms(columns.initial_ms),
        ms(columns.increment_ms),
        ms(columns.days),
    )
}

impl Terms {
    /// Checks a challenge request.
    pub fn parse(raw: &wire::CreateChallenge) -> Result<Terms, LobbyError> {
        let options =
            lobby_options(raw.clock, wire::Side::Goats).map_err(|e| LobbyError::Field {
                field: e.field,
                message: e.message,
            })?;
        if let (Some(low), Some(high)) = (raw.min_rating, raw.max_rating) {
            if low > high {
                return Err(LobbyError::Field {
                    field: "min_rating",
                    message: "min_rating is above max_rating".into(),
                });
            }
        }
        for (field, value) in [
            ("min_rating", raw.min_rating),
            ("max_rating", raw.max_rating),
        ] {
            if value.is_some_and(|v| v > 4000) {
                return Err(LobbyError::Field {
                    field,
                    message: format!("{field} is at most 4000"),
                });
            }
        }
        Ok(Terms {
            options,
            side: raw.side,
            rated: raw.rated,
            range: (raw.min_rating, raw.max_rating),
        })
    }
}

fn side_name(side: wire::SideChoice) -> &'static str {
    match side {
        wire::SideChoice::Goats => "goats",
        wire::SideChoice::Tigers => "tigers",
        wire::SideChoice::Random => "random",
    }
}

fn random_id() -> Result<String, LobbyError> {
    crate::token::table_id().map_err(|_| LobbyError::Random)
}

fn coin() -> bool {
    let mut byte = [0u8; 1];
    getrandom::fill(&mut byte).is_ok_and(|()| byte[0] & 1 == 1)
}

impl Lobby {
    /// The lobby of a node whose links start with `public_url`, which
    /// reads the lobby's state every `tick` unasked, and hears of the
    /// changes made on the other nodes of `node`'s cluster.
    pub fn new(
        storage: Storage,
        public_url: Arc<str>,
        tick: Duration,
        node: Option<Node>,
    ) -> Lobby {
        let (left, left_rx) = mpsc::unbounded_channel();
        Lobby {
            inner: Arc::new(Inner {
                storage,
                public_url,
                channels: Mutex::new(Channels::default()),
                poke: Notify::new(),
                announce: Notify::new(),
                tick,
                node,
                next_channel: AtomicU64::new(1),
                left,
                left_rx: Mutex::new(Some(left_rx)),
            }),
        }
    }

    /// The lobby changed here: this node's task reads it at once, and
    /// tells the other nodes to.
    fn changed(&self) {
        self.inner.poke.notify_one();
        if self.inner.node.is_some() {
            self.inner.announce.notify_one();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Channels> {
        self.inner
            .channels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The address of a table's page.
    fn url(&self, table: &str) -> String {
        format!("{}/t/{table}", self.inner.public_url)
    }

    /// Opens a live channel for `player`: the lobby's state comes first.
    pub fn open(&self, player: &str) -> Channel {
        let (tx, rx) = mpsc::channel(CHANNEL_LEN);
        let id = self.inner.next_channel.fetch_add(1, Ordering::Relaxed);
        {
            let mut channels = self.lock();
            // A player already in the lobby here gets the state they were
            // last sent; a newcomer's comes with the step this wakes, once
            // their blocks are read.
            if let (Some(state), Some((_, hidden))) =
                (channels.state.as_ref(), channels.sent.get(player))
            {
                let _ = tx.try_send(LobbyEvent::State(without(state, hidden)));
            }
            channels
                .by_player
                .entry(player.to_owned())
                .or_default()
                .push((id, tx));
        }
        self.inner.poke.notify_one();
        Channel {
            events: rx,
            lobby: self.clone(),
            player: player.to_owned(),
            id,
        }
    }

    /// The lobby's state, read now.
    pub async fn state(&self) -> Result<LobbyState, StorageError> {
        let storage = &self.inner.storage;
        let challenges = storage
            .open_challenges(SHOWN_CHALLENGES)
            .await?
            .iter()
            .filter_map(challenge_to_wire)
            .collect();
        let counts: HashMap<String, i64> = storage.pool_counts().await?.into_iter().collect();
        let pools = POOLS
            .iter()
            .map(|p| wire::PoolView {
                id: p.id.to_owned(),
                speed: p.speed().name().to_owned(),
                waiting: counts
                    .get(p.id)
                    .map_or(0, |&n| u32::try_from(n).unwrap_or(u32::MAX)),
            })
            .collect();
        let since = crate::storage::now_millis() - GONE_AFTER_MS;
        let (online, games) = storage.lobby_counts(since).await?;
        Ok(LobbyState {
            challenges,
            pools,
            players_online: u32::try_from(online).unwrap_or(u32::MAX),
            games_in_play: u32::try_from(games).unwrap_or(u32::MAX),
        })
    }

    /// The lobby's state as `player` sees it: without the challenges of
    /// players where either blocks the other.
    pub async fn state_for(&self, player: &str) -> Result<LobbyState, StorageError> {
        let state = self.state().await?;
        let apart = self.apart(&state, &[player.to_owned()]).await?;
        Ok(without(&state, &hidden_from(&state, player, &apart)))
    }

    /// The blocks, either way, between the makers of `state`'s challenges
    /// and `players`.
    async fn apart(&self, state: &LobbyState, players: &[String]) -> Result<Apart, StorageError> {
        let mut makers: Vec<String> = state
            .challenges
            .iter()
            .map(|c| c.player.id.clone())
            .collect();
        makers.sort_unstable();
        makers.dedup();
        Ok(Apart::new(
            self.inner.storage.blocks_among(&makers, players).await?,
        ))
    }

    /// `player`'s rating in `speed`, as stored or a newcomer's.
    pub async fn rating_of(&self, player: &str, speed: Speed) -> Result<Rating, StorageError> {
        Ok(self
            .inner
            .storage
            .ratings(player)
            .await?
            .into_iter()
            .find(|r| r.speed == speed.name())
            .map(|r| Rating {
                rating: r.rating,
                deviation: r.deviation,
                volatility: r.volatility,
            })
            .unwrap_or_default())
    }

    /// Opens a challenge of `player` (`account`: whether they have one).
    pub async fn challenge(
        &self,
        player: &str,
        account: bool,
        terms: &Terms,
    ) -> Result<wire::Challenge, LobbyError> {
        if terms.rated && !account {
            return Err(LobbyError::AccountNeeded);
        }
        let rating = self.rating_of(player, speed_of(&terms.options)).await?;
        let row = ChallengeRow {
            id: random_id()?,
            player: player.to_owned(),
            name: None,
            side: side_name(terms.side).to_owned(),
            clock: ClockColumns::encode(terms.options.clock),
            rated: terms.rated,
            rating: i64::from(rating.shown().max(0)),
            provisional: rating.is_provisional(),
            min_rating: terms.range.0.map(i64::from),
            max_rating: terms.range.1.map(i64::from),
            created_at: crate::storage::now_millis(),
        };
        if !self.inner.storage.create_challenge(&row).await? {
            return Err(LobbyError::TooManyChallenges);
        }
        self.changed();
        let stored = self
            .inner
            .storage
            .challenge(&row.id)
            .await?
            .ok_or(LobbyError::Taken)?;
        challenge_to_wire(&stored).ok_or(LobbyError::Taken)
    }

    /// Withdraws `player`'s challenge.
    pub async fn withdraw(&self, player: &str, id: &str) -> Result<(), LobbyError> {
        if self.inner.storage.withdraw_challenge(id, player).await? {
            self.changed();
            Ok(())
        } else {
            Err(LobbyError::NotFound)
        }
    }

    /// `player` accepts challenge `id`: the table is made and both are
    /// seated, or the answer says why not.
    pub async fn accept(
        &self,
        player: &str,
        account: bool,
        id: &str,
    ) -> Result<Paired, LobbyError> {
        let storage = &self.inner.storage;
        let challenge = storage.challenge(id).await?.ok_or(LobbyError::Taken)?;
        if challenge.player == player {
            return Err(LobbyError::Field {
                field: "challenge",
                message: "this is your own challenge".into(),
            });
        }
        if challenge.rated && !account {
            return Err(LobbyError::AccountNeeded);
        }
        if storage.blocked_between(&challenge.player, player).await? {
            return Err(LobbyError::Blocked);
        }
        let clock = challenge.clock.decode().ok_or(LobbyError::Taken)?;
        let rating = self
            .rating_of(player, speed_of_columns(challenge.clock))
            .await?;
        let shown = i64::from(rating.shown());
        if challenge.min_rating.is_some_and(|low| shown < low)
            || challenge.max_rating.is_some_and(|high| shown > high)
        {
            return Err(LobbyError::Field {
                field: "rating",
                message: format!("your rating {shown} is outside this challenge's range"),
            });
        }
        let maker_goats = match challenge.side.as_str() {
            "goats" => true,
            "tigers" => false,
            _ => coin(),
        };
        let host_side = if maker_goats {
            wire::Side::Goats
        } else {
            wire::Side::Tigers
        };
        let options = lobby_options(clock.map(TimeControl::to_wire), host_side)
            .map_err(|_| LobbyError::Taken)?;
        let table = table_row(
            random_id()?,
            options,
            [&challenge.player, player],
            challenge.rated,
        );
        match storage
            .pair(
                &table,
                [&challenge.player, player],
                &Consumes::Challenge(id.to_owned()),
            )
            .await?
        {
            Pairing::Paired => {}
            Pairing::Taken => return Err(LobbyError::Taken),
            Pairing::Busy => return Err(LobbyError::Busy),
            Pairing::Blocked => return Err(LobbyError::Blocked),
        }
        tracing::info!(table_id = %table.id, challenge = id, "challenge accepted");
        self.changed();
        Ok(Paired {
            url: self.url(&table.id),
            table: table.id,
        })
    }

    /// Puts `player` in pool `id`.
    pub async fn join_pool(
        &self,
        player: &str,
        account: bool,
        id: &str,
    ) -> Result<wire::PoolJoined, LobbyError> {
        let pool = pools::pool(id).ok_or(LobbyError::NotFound)?;
        let rating = self.rating_of(player, pool.speed()).await?;
        let storage = &self.inner.storage;
        storage
            .join_pool(&PoolEntry {
                player: player.to_owned(),
                pool: pool.id.to_owned(),
                rated: account,
                rating: i64::from(rating.shown()),
                last_side: storage.last_side(player).await?,
                aborts: 0,
                joined_at: crate::storage::now_millis(),
            })
            .await?;
        self.changed();
        Ok(wire::PoolJoined {
            pool: pool.id.to_owned(),
            rated: account,
        })
    }

    /// Takes `player` out of pool `id`.
    pub async fn leave_pool(&self, player: &str, id: &str) -> Result<(), LobbyError> {
        let pool = pools::pool(id).ok_or(LobbyError::NotFound)?;
        self.inner.storage.leave_pool(player, pool.id).await?;
        self.changed();
        Ok(())
    }

    /// One wave of every pool with players waiting; the pairings made.
    pub async fn wave(&self) -> Result<usize, StorageError> {
        let storage = &self.inner.storage;
        let mut paired = 0;
        for (pool_id, waiting) in storage.pool_counts().await? {
            let Some(pool) = pools::pool(&pool_id) else {
                continue;
            };
            if waiting < 2 {
                continue;
            }
            let entries = storage.pool_entries(pool.id).await?;
            let apart = Apart::new(storage.blocks_in_pool(pool.id).await?);
            let now = crate::storage::now_millis();
            let mut matches = match_wave(&entries, now, &apart, coin);
            // Every node computes much the same pairings from the same
            // rows: each begins at a random one of them, so that the nodes
            // work apart instead of queueing behind each other's locks to
            // find each pairing made.
            if !matches.is_empty() {
                let mut bytes = [0u8; 8];
                let start = getrandom::fill(&mut bytes)
                    .map_or(0, |()| u64::from_le_bytes(bytes) % matches.len() as u64);
                matches.rotate_left(usize::try_from(start).unwrap_or(0));
            }
            for m in matches {
                let (goats, tigers) = (&entries[m.goats], &entries[m.tigers]);
                let options = match lobby_options(Some(pool.clock()), wire::Side::Goats) {
                    Ok(options) => options,
                    Err(e) => {
                        tracing::error!(pool = pool.id, error = %e, "a pool's clock is refused");
                        break;
                    }
                };
                let Ok(id) = random_id() else { break };
                let table = table_row(id, options, [&goats.player, &tigers.player], goats.rated);
                match storage
                    .pair(
                        &table,
                        [&goats.player, &tigers.player],
                        &Consumes::Pool {
                            pool: pool.id.to_owned(),
                        },
                    )
                    .await?
                {
                    Pairing::Paired => {
                        paired += 1;
                        tracing::info!(table_id = %table.id, pool = pool.id, "pool pairing");
                    }
                    Pairing::Taken | Pairing::Busy | Pairing::Blocked => {}
                }
            }
        }
        Ok(paired)
    }
}

/// A challenge as the lobby shows it (`None` for a row this server would
/// not write).
fn challenge_to_wire(row: &ChallengeRow) -> Option<wire::Challenge> {
    let clock = row.clock.decode()?;
    Some(wire::Challenge {
        id: row.id.clone(),
        player: wire::LobbyPlayer {
            id: row.player.clone(),
            name: row.name.clone(),
            rating: u32::try_from(row.rating).unwrap_or(0),
            provisional: row.provisional,
        },
        side: match row.side.as_str() {
            "goats" => wire::SideChoice::Goats,
            "tigers" => wire::SideChoice::Tigers,
            _ => wire::SideChoice::Random,
        },
        clock: clock.map(TimeControl::to_wire),
        speed: speed_of_columns(row.clock).name().to_owned(),
        rated: row.rated,
        min_rating: row.min_rating.and_then(|n| u32::try_from(n).ok()),
        max_rating: row.max_rating.and_then(|n| u32::try_from(n).ok()),
    })
}

/// A lobby table: both seats by identity (host first), no links, its
/// gallery open to anyone.
fn table_row(id: String, options: TableOptions, players: [&str; 2], rated: bool) -> TableRow {
    TableRow {
        id,
        options,
        host_secret: None,
        guest_secret: None,
        invite_token: None,
        watch_token: None,
        players: [Some(players[0].to_owned()), Some(players[1].to_owned())],
        lobby: true,
        rated,
    }
}
