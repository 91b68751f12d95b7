//! What the HTTP handlers share: the server's parts, handed to every
//! request.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::bot::Computer;
use crate::identity::budgets::{Accounts, NameBudget};
use crate::lobby::Lobby;
use crate::single_flight::SingleFlight;
use crate::storage::Storage;
use crate::tablebase::TablebaseSlot;
use crate::tables::Tables;
use crate::{client_limit, connections, origin, ws};

/// What the HTTP handlers share.
#[derive(Clone)]
pub struct AppState {
    /// The tables.
    pub tables: Tables,
    /// The database.
    pub storage: Storage,
    /// The base of links, without a trailing slash.
    pub public_url: Arc<str>,
    /// Cancelled when the server shuts down.
    pub shutdown: CancellationToken,
    /// The websocket tasks, awaited at shutdown.
    pub sockets: TaskTracker,
    /// The per-connection message budget.
    pub rate: ws::RateLimit,
    /// When a silent socket is pinged, and when it is given up.
    pub liveness: ws::Liveness,
    /// The origins whose pages may create tables and open sockets.
    pub origins: Arc<origin::Origins>,
    /// Tables created per client address.
    pub creation_limit: client_limit::CreationLimit,
    /// Bots tables created per client address.
    pub bots_by_address: connections::AddressBudget,
    /// Whether to take the client's address from `X-Forwarded-For`.
    pub trusted_proxies: crate::client_limit::TrustedProxies,
    /// The websockets open, overall and per address.
    pub websockets: connections::Gate,
    /// The `hello` budget of each address.
    pub hellos: connections::AddressBudget,
    /// The caps and deadlines of connections.
    pub limits: connections::Limits,
    /// The analysis-board requests each address has in flight.
    pub boards_by_address: connections::Gate,
    /// The post-game analyses each address may have computed.
    pub analyses: connections::AddressBudget,
    /// The API reads each address may make.
    pub reads: connections::AddressBudget,
    /// The post-game analyses being computed, by table, game and board,
    /// each once however many ask (their JSON).
    pub reviews: SingleFlight<(String, u32, u8), Arc<str>>,
    /// The computer, for post-game analysis.
    pub computer: Computer,
    /// The tablebase, for `/readyz`.
    pub tablebase: TablebaseSlot,
    /// The password pool and the identity budgets.
    pub accounts: Accounts,
    /// The lobby of this node.
    pub lobby: Lobby,
    /// The lobby's live channels, overall and per address.
    pub lobby_channels: connections::Gate,
    /// Lobby actions per player.
    pub lobby_actions: NameBudget,
}
