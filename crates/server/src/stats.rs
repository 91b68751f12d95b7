//! The server's metrics in the Prometheus text format: every name is
//! defined here, recorded through the `metrics` facade at the place where
//! the thing happens, and rendered by `GET /metrics`.
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | `baghchal_tables_open` | gauge | |
//! | `baghchal_sockets` | gauge | `role`: `unjoined`, `player`, `spectator` |
//! | `baghchal_actions_total` | counter | `outcome`: `accepted` or an error code |
//! | `baghchal_commit_seconds` | histogram | |
//! | `baghchal_commit_batch_size` | histogram | |
//! | `baghchal_action_stage_seconds` | histogram | `stage`: see [`ActionStage`] |
//! | `baghchal_engine_think_seconds` | histogram | `level` |
//! | `baghchal_socket_closes_total` | counter | `code` (1001, 1008, 1009, 1012, 4000, 4001, 4002, 4003) |
//! | `baghchal_connections_refused_total` | counter | `reason`: `total` or `address` (the cap that was full) |
//! | `baghchal_header_timeouts_total` | counter | (connections closed for slow headers or idleness) |
//! | `baghchal_websockets_refused_total` | counter | `reason`: `total` or `address` |
//! | `baghchal_hellos_rate_limited_total` | counter | |
//! | `baghchal_control_frames_refused_total` | counter | (sockets closed for too many pings or pongs) |
//! | `baghchal_tables_rate_limited_total` | counter | |
//! | `baghchal_bots_tables_refused_total` | counter | `reason`: `address` (429: the address's bots budget spent) or `total` (503: as many bots tables open as allowed) |
//! | `baghchal_analyses_rate_limited_total` | counter | (post-game analyses refused for an address's budget) |
//! | `baghchal_reads_rate_limited_total` | counter | (API reads refused for an address's budget) |
//! | `baghchal_analysis_board_refused_total` | counter | `reason`: `busy` (503: every place in flight taken) or `address` (429: the address's share taken) |
//! | `baghchal_relay_frames_lost_total` | counter | (frames from a table's owner that never arrived) |
//! | `baghchal_relay_messages_total` | counter | (messages a table's owner relayed to the nodes holding its sockets) |
//! | `baghchal_relay_frames_total` | counter | (the frames in those messages: one each, or a batch's) |
//! | `baghchal_tablebase_ready` | gauge | (1 when the computer plays with the tablebase) |
//! | `baghchal_tablebase_build_progress` | gauge | (0 to 1 while it is built; 1 once ready) |

mod stage_histogram;

use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::Duration;

use baghchal_protocol::{CloseCode, ErrorCode};
use metrics::{counter, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use stage_histogram::StageHistogram;

/// The process's recorder, installed on first use. One process may run
/// several servers (tests do); they share it.
pub fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let seconds = [
            0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
        ];
        let sizes = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];
        let builder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &seconds)
            .and_then(|b| b.set_buckets_for_metric(Matcher::Suffix("_size".into()), &sizes));
        let builder = match builder {
            Ok(builder) => builder,
            Err(e) => {
                tracing::warn!(error = %e, "metrics without histogram buckets");
                PrometheusBuilder::new()
            }
        };
        let recorder = builder.build_recorder();
        // The exporter stamps each histogram sample with quanta's clock,
        // which calibrates itself against the monotonic clock the first
        // time it is read: a busy loop of at least half a millisecond and
        // up to 200 ms. Read it here, before the server serves anyone, so
        // that the first action's stage sample does not wait on it.
        let _ = quanta::Instant::now();
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("another metrics recorder is installed; /metrics shows nothing");
        }
        handle
    })
}

/// The text of `GET /metrics`, with the gauges of what is read at a
/// glance taken now: the open tables, and the tablebase as
/// [`TablebaseGauges`] reads it. They are written straight into this
/// answer, not set in the process's recorder first: a process that runs
/// several servers (tests do) would otherwise answer one server's scrape
/// with whichever server set them last.
pub fn render(tables_open: usize, tablebase: TablebaseGauges) -> String {
    let mut text = handle().render();
    for (name, value) in [
        ("baghchal_tables_open", tables_open as f64),
        (
            "baghchal_tablebase_ready",
            if tablebase.ready { 1.0 } else { 0.0 },
        ),
        ("baghchal_tablebase_build_progress", tablebase.progress),
    ] {
        let _ = writeln!(text, "# TYPE {name} gauge\n{name} {value}");
    }
    let _ = writeln!(text, "# TYPE {STAGE_METRIC} histogram");
    for stage in ActionStage::ALL {
        STAGES[stage as usize].render(STAGE_METRIC, stage.label(), &mut text);
    }
    text
}

/// The tablebase's gauges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TablebaseGauges {
    /// Whether the computer plays with it.
    pub ready: bool,
    /// 0 to 1 while it is built; 1 once ready.
    pub progress: f64,
}

/// Drains the histograms' pending samples into their buckets, so that
/// memory stays bounded between scrapes.
pub fn upkeep() {
    handle().run_upkeep();
}

/// How often [`upkeep`] runs.
pub const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// What a socket is, for the `baghchal_sockets` gauge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SocketRole {
    /// Connected, no table yet.
    Unjoined,
    /// In a seat.
    Player,
    /// In the gallery.
    Spectator,
}

impl SocketRole {
    fn label(self) -> &'static str {
        match self {
            SocketRole::Unjoined => "unjoined",
            SocketRole::Player => "player",
            SocketRole::Spectator => "spectator",
        }
    }
}

/// A socket took a role (`Some`) or left one (`from`).
pub fn socket_moved(from: Option<SocketRole>, to: Option<SocketRole>) {
    if let Some(from) = from {
        gauge!("baghchal_sockets", "role" => from.label()).decrement(1.0);
    }
    if let Some(to) = to {
        gauge!("baghchal_sockets", "role" => to.label()).increment(1.0);
    }
}

/// A player's action or command was accepted and stored.
pub fn action_accepted() {
    // The handle is looked up in the registry once, not for every action.
    static ACCEPTED: OnceLock<metrics::Counter> = OnceLock::new();
    ACCEPTED
        .get_or_init(|| {
            handle();
            counter!("baghchal_actions_total", "outcome" => "accepted")
        })
        .increment(1);
}

/// A player's action or command was refused with `code`.
pub fn action_refused(code: ErrorCode) {
    let label = serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into());
    counter!("baghchal_actions_total", "outcome" => label).increment(1);
}

/// The storage writer committed `events` in one transaction.
pub fn committed(events: usize, took: Duration) {
    static HISTOGRAMS: OnceLock<[metrics::Histogram; 2]> = OnceLock::new();
    let [seconds, size] = HISTOGRAMS.get_or_init(|| {
        handle();
        [
            histogram!("baghchal_commit_seconds"),
            histogram!("baghchal_commit_batch_size"),
        ]
    });
    seconds.record(took.as_secs_f64());
    size.record(events as f64);
}

/// The histogram of the stages of an action's path.
const STAGE_METRIC: &str = "baghchal_action_stage_seconds";

/// Each stage's histogram, indexed by the stage: outside the `metrics`
/// recorder, because they are recorded several times an action
/// (`stage_histogram`).
static STAGES: [StageHistogram; ActionStage::ALL.len()] =
    [const { StageHistogram::new() }; ActionStage::ALL.len()];

/// A stage of a player's action's path through a table owned here, in the
/// order an accepted action goes through them. Their sum is the time from
/// the socket's task handing the action to its table until the last
/// subscriber's socket has the event.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ActionStage {
    /// From the socket's task sending the action until the table's task
    /// takes it up: the table's queue and the wait for a thread.
    ToTable,
    /// The rules deciding the action, up to handing it to the writer.
    Decide,
    /// In the writer's queue, until its batch starts to commit.
    StorageQueue,
    /// Its batch's commit, on disk (one sample per action of the batch).
    Commit,
    /// From the commit's end until the table's task runs again.
    Wake,
    /// From handing it to the writer until the table's task runs again
    /// with the commit done: the queue, the commit and the wake-up.
    Store,
    /// Applying the event and putting its frame in every subscriber's
    /// outbox.
    Broadcast,
    /// From a subscriber's outbox until its socket has written the frame:
    /// the wait for the socket's task and the write. One sample per
    /// subscriber.
    ToSocket,
}

impl ActionStage {
    /// Every stage, in path order (and in the order of their values).
    const ALL: [ActionStage; 8] = [
        ActionStage::ToTable,
        ActionStage::Decide,
        ActionStage::StorageQueue,
        ActionStage::Commit,
        ActionStage::Wake,
        ActionStage::Store,
        ActionStage::Broadcast,
        ActionStage::ToSocket,
    ];

    fn label(self) -> &'static str {
        match self {
            ActionStage::ToTable => "to_table",
            ActionStage::Decide => "decide",
            ActionStage::StorageQueue => "storage_queue",
            ActionStage::Commit => "commit",
            ActionStage::Wake => "wake",
            ActionStage::Store => "store",
            ActionStage::Broadcast => "broadcast",
            ActionStage::ToSocket => "to_socket",
        }
    }
}

/// An action spent `took` in `stage`.
pub fn stage(stage: ActionStage, took: Duration) {
    STAGES[stage as usize].record(took, 1);
}

/// The same as [`stage`] `count` times over, in one record.
pub fn stages(stage: ActionStage, took: Duration, count: usize) {
    if count > 0 {
        STAGES[stage as usize].record(took, u64::try_from(count).unwrap_or(u64::MAX));
    }
}

/// The computer chose an action at `level`.
pub fn thought(level: u16, took: Duration) {
    histogram!("baghchal_engine_think_seconds", "level" => level.to_string())
        .record(took.as_secs_f64());
}

/// A socket was closed by the server.
pub fn closed(code: CloseCode) {
    counter!("baghchal_socket_closes_total", "code" => code.code().to_string()).increment(1);
}

/// A connection was closed as soon as it was accepted: a cap was full.
pub fn connection_refused(refusal: crate::connections::Refusal) {
    counter!("baghchal_connections_refused_total", "reason" => refusal.label()).increment(1);
}

/// A connection was closed for taking too long over a request's headers,
/// or for staying idle too long between requests.
pub fn header_timeout() {
    counter!("baghchal_header_timeouts_total").increment(1);
}

/// A websocket upgrade was refused: a cap was full.
pub fn websocket_refused(refusal: crate::connections::Refusal) {
    counter!("baghchal_websockets_refused_total", "reason" => refusal.label()).increment(1);
}

/// A `hello` was refused for its address's budget.
pub fn hello_rate_limited() {
    counter!("baghchal_hellos_rate_limited_total").increment(1);
}

/// A socket was closed for sending too many control frames.
pub fn control_frames_refused() {
    counter!("baghchal_control_frames_refused_total").increment(1);
}

/// A table request was refused for its address's budget.
pub fn tables_rate_limited() {
    counter!("baghchal_tables_rate_limited_total").increment(1);
}

/// An API read was refused for its address's budget.
pub fn reads_rate_limited() {
    counter!("baghchal_reads_rate_limited_total").increment(1);
}

/// A bots table was refused: `address` or `total`.
pub fn bots_tables_refused(reason: &'static str) {
    counter!("baghchal_bots_tables_refused_total", "reason" => reason).increment(1);
}

/// A post-game analysis was refused for its address's budget.
pub fn analyses_rate_limited() {
    counter!("baghchal_analyses_rate_limited_total").increment(1);
}

/// An analysis-board request was refused for load: `busy` or `address`.
pub fn analysis_board_refused(reason: &'static str) {
    counter!("baghchal_analysis_board_refused_total", "reason" => reason).increment(1);
}

/// A frame relayed from a table's owner to a socket held here went
/// missing (NATS dropped it); the socket is closed so that its client
/// reconnects with `since`.
pub fn relay_frame_lost() {
    counter!("baghchal_relay_frames_lost_total").increment(1);
}

/// A table's owner relayed a message of `frames` frames.
pub fn relayed(frames: usize) {
    // Looked up once, not for every message.
    static COUNTERS: OnceLock<[metrics::Counter; 2]> = OnceLock::new();
    let [messages, frames_in_them] = COUNTERS.get_or_init(|| {
        handle();
        [
            counter!("baghchal_relay_messages_total"),
            counter!("baghchal_relay_frames_total"),
        ]
    });
    messages.increment(1);
    frames_in_them.increment(frames as u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_indexes_its_own_histogram() {
        for (i, stage) in ActionStage::ALL.into_iter().enumerate() {
            assert_eq!(stage as usize, i, "{stage:?}");
        }
        let labels: std::collections::BTreeSet<_> =
            ActionStage::ALL.iter().map(|s| s.label()).collect();
        assert_eq!(labels.len(), ActionStage::ALL.len());
    }
}
