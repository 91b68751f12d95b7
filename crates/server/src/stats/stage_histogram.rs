//! The histograms of an action's stages, kept as rows of atomic counters.
//!
//! An action records eight or more stage samples. Through the `metrics`
//! facade each sample was pushed onto a queue that `/metrics` and the
//! upkeep then drained into the buckets: some 500 instructions a sample,
//! 5 % of an action's path, and a scrape or an upkeep that drained 800,000
//! samples at once held a runtime thread meanwhile. Here a sample is a
//! bucket found among [`BOUNDS`] and two atomic additions, and rendering
//! reads the counters.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The buckets' upper bounds, in seconds: most stages take microseconds,
/// so they start finer than the other histograms' and go up to the worst
/// tail worth telling apart.
pub(super) const BOUNDS: [f64; 22] = [
    0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.000_75, 0.001, 0.001_5, 0.002,
    0.003, 0.005, 0.007_5, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// One stage's histogram.
pub(super) struct StageHistogram {
    /// The samples in each bucket alone (not cumulative): at most
    /// `BOUNDS[i]` and above the bound before it; the last holds those
    /// above every bound.
    buckets: [AtomicU64; BOUNDS.len() + 1],
    /// The samples' sum, in nanoseconds.
    sum_nanos: AtomicU64,
}

impl StageHistogram {
    pub(super) const fn new() -> Self {
        Self {
            buckets: [const { AtomicU64::new(0) }; BOUNDS.len() + 1],
            sum_nanos: AtomicU64::new(0),
        }
    }

    /// Records `count` samples of `took`.
    pub(super) fn record(&self, took: Duration, count: u64) {
        let seconds = took.as_secs_f64();
        let bucket = BOUNDS.partition_point(|&bound| bound < seconds);
        self.buckets[bucket].fetch_add(count, Ordering::Relaxed);
        let nanos = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        self.sum_nanos
            .fetch_add(nanos.saturating_mul(count), Ordering::Relaxed);
    }

    /// Appends the histogram to `out` in the Prometheus text format, as
    /// `name` with the label `stage="label"`: its cumulative buckets, its
    /// sum in seconds and its count.
    pub(super) fn render(&self, name: &str, label: &str, out: &mut String) {
        let mut seen = 0;
        for (bucket, count) in self.buckets.iter().enumerate() {
            seen += count.load(Ordering::Relaxed);
            let _ = match BOUNDS.get(bucket) {
                Some(bound) => writeln!(
                    out,
                    "{name}_bucket{{stage=\"{label}\",le=\"{bound}\"}} {seen}"
                ),
                None => writeln!(out, "{name}_bucket{{stage=\"{label}\",le=\"+Inf\"}} {seen}"),
            };
        }
        let sum = self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let _ = writeln!(out, "{name}_sum{{stage=\"{label}\"}} {sum}");
        let _ = writeln!(out, "{name}_count{{stage=\"{label}\"}} {seen}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rendered lines of `histogram`, as (line start, value).
    fn rendered(histogram: &StageHistogram) -> Vec<(String, f64)> {
        let mut out = String::new();
        histogram.render("m", "s", &mut out);
        out.lines()
            .map(|line| {
                let (name, value) = line.rsplit_once(' ').expect("a value");
                (name.to_owned(), value.parse().expect("a number"))
            })
            .collect()
    }

    #[test]
    fn samples_land_in_the_first_bucket_whose_bound_holds_them() {
        let histogram = StageHistogram::new();
        histogram.record(Duration::from_micros(10), 1); // on a bound: that bucket
        histogram.record(Duration::from_micros(11), 2);
        histogram.record(Duration::from_millis(2), 3);
        histogram.record(Duration::from_secs(6), 1); // above every bound
        let lines = rendered(&histogram);
        let bucket = |le: &str| {
            lines
                .iter()
                .find(|(name, _)| name == &format!("m_bucket{{stage=\"s\",le=\"{le}\"}}"))
                .map(|&(_, value)| value)
                .unwrap_or_else(|| panic!("no bucket {le} in {lines:?}"))
        };
        assert_eq!(bucket("0.00001"), 1.0);
        assert_eq!(bucket("0.000025"), 3.0);
        assert_eq!(bucket("0.0015"), 3.0);
        assert_eq!(bucket("0.002"), 6.0);
        assert_eq!(bucket("5"), 6.0);
        assert_eq!(bucket("+Inf"), 7.0);
        assert_eq!(lines.len(), BOUNDS.len() + 3);
        let (count, sum) = (&lines[lines.len() - 1], &lines[lines.len() - 2]);
        assert_eq!(count, &("m_count{stage=\"s\"}".to_owned(), 7.0));
        assert_eq!(sum.0, "m_sum{stage=\"s\"}");
        assert!((sum.1 - (0.000_01 + 0.000_022 + 0.006 + 6.0)).abs() < 1e-9);
    }
}
