//! What the tables measure, shared by all of them.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use hdrhistogram::Histogram;

/// The longest latency the histograms hold; longer ones are clamped.
const MAX_LATENCY_MICROS: u64 = 60_000_000;

/// Counters and latency histograms, updated by every table as it plays.
/// The mutexes are held only to record one value, never across `.await`.
pub struct Stats {
    /// From sending an action until every subscriber of its table has
    /// received the event, in microseconds.
    delivered: Mutex<Histogram<u64>>,
    /// From sending an action until its `ack`, in microseconds.
    acked: Mutex<Histogram<u64>>,
    /// Actions acknowledged (accepted and stored) by the server.
    actions: AtomicU64,
    /// Acknowledged actions whose event reached every subscriber.
    settled: AtomicU64,
    /// Games played to their end.
    games: AtomicU64,
    /// Failures by kind.
    errors: Mutex<BTreeMap<String, u64>>,
}

impl Stats {
    /// Empty statistics.
    pub fn new() -> Stats {
        let histogram = || {
            Histogram::new_with_bounds(1, MAX_LATENCY_MICROS, 3).expect("valid histogram bounds")
        };
        Stats {
            delivered: Mutex::new(histogram()),
            acked: Mutex::new(histogram()),
            actions: AtomicU64::new(0),
            settled: AtomicU64::new(0),
            games: AtomicU64::new(0),
            errors: Mutex::new(BTreeMap::new()),
        }
    }

    /// An action's event reached every subscriber `latency` after it was
    /// sent.
    pub fn record_delivered(&self, latency: Duration) {
        record(&self.delivered, latency);
    }

    /// An action was acknowledged `latency` after it was sent.
    pub fn record_acked(&self, latency: Duration) {
        record(&self.acked, latency);
        self.actions.fetch_add(1, Ordering::Relaxed);
    }

    /// An acknowledged action's event has reached every subscriber.
    pub fn record_settled(&self) {
        self.settled.fetch_add(1, Ordering::Relaxed);
    }

    /// A game ended.
    pub fn record_game(&self) {
        self.games.fetch_add(1, Ordering::Relaxed);
    }

    /// Something failed; `kind` says what, e.g. `timeout` or a server error
    /// code.
    pub fn record_error(&self, kind: impl Into<String>) {
        *lock(&self.errors).entry(kind.into()).or_default() += 1;
    }

    /// Actions acknowledged so far.
    pub fn actions(&self) -> u64 {
        self.actions.load(Ordering::Relaxed)
    }

    /// Acknowledged actions delivered to every subscriber so far.
    pub fn settled(&self) -> u64 {
        self.settled.load(Ordering::Relaxed)
    }

    /// Games ended so far.
    pub fn games(&self) -> u64 {
        self.games.load(Ordering::Relaxed)
    }

    /// Failures so far, in all.
    pub fn error_count(&self) -> u64 {
        lock(&self.errors).values().sum()
    }

    /// Failures so far, by kind.
    pub fn errors(&self) -> BTreeMap<String, u64> {
        lock(&self.errors).clone()
    }

    /// A copy of the delivery latencies.
    pub fn delivered(&self) -> Histogram<u64> {
        lock(&self.delivered).clone()
    }

    /// A copy of the acknowledgement latencies.
    pub fn acked(&self) -> Histogram<u64> {
        lock(&self.acked).clone()
    }
}

fn record(histogram: &Mutex<Histogram<u64>>, latency: Duration) {
    let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
    lock(histogram).saturating_record(micros.max(1));
}

/// Locks a mutex, ignoring poisoning: a panicking recorder leaves a
/// histogram that is still valid.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A latency histogram's quantiles for people, in milliseconds.
pub fn summary(histogram: &Histogram<u64>) -> String {
    if histogram.is_empty() {
        return "no samples".to_owned();
    }
    format!(
        "p50 {}  p90 {}  p99 {}  p99.9 {}  max {}  (n = {})",
        millis(histogram.value_at_quantile(0.50)),
        millis(histogram.value_at_quantile(0.90)),
        millis(histogram.value_at_quantile(0.99)),
        millis(histogram.value_at_quantile(0.999)),
        millis(histogram.max()),
        histogram.len()
    )
}

/// Microseconds as milliseconds with a precision that fits.
pub fn millis(micros: u64) -> String {
    let ms = micros as f64 / 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 100.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_are_kept_in_microseconds_and_shown_in_milliseconds() {
        let stats = Stats::new();
        stats.record_delivered(Duration::from_micros(1_500));
        stats.record_delivered(Duration::from_micros(2_500));
        stats.record_acked(Duration::from_micros(900));
        assert_eq!(stats.actions(), 1);
        assert_eq!(stats.settled(), 0);
        stats.record_settled();
        assert_eq!(stats.settled(), 1);
        let delivered = stats.delivered();
        assert_eq!(delivered.len(), 2);
        assert_eq!(millis(delivered.max()), "2.50 ms");
        assert!(summary(&delivered).starts_with("p50 1.50 ms"));
        assert_eq!(summary(&Histogram::new(3).unwrap()), "no samples");
    }

    #[test]
    fn errors_are_counted_by_kind() {
        let stats = Stats::new();
        stats.record_error("timeout");
        stats.record_error("timeout");
        stats.record_error("not_your_turn");
        assert_eq!(stats.error_count(), 3);
        assert_eq!(stats.errors()["timeout"], 2);
    }
}
