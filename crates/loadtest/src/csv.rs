//! The benchmark's figures as CSV rows, one a run, for plotting
//! (`crates/loadtest/plot.py`).

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use crate::{figures, Args, Outcome};

/// The columns, in order.
pub const HEADER: &str = "target,tables,sockets,rate,seed,seconds,actions_per_s,p50_ms,p99_ms,p999_ms,max_ms,errors,cpu_cores,cpu_us_per_action,peak_rss_mib";

/// Appends one row per outcome to `path`, writing the header first when
/// the file is new or empty.
pub fn append(path: &Path, args: &Args, sockets: u64, outcomes: &[Outcome]) -> anyhow::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    let empty = file.metadata().map(|m| m.len() == 0).unwrap_or(true);
    let mut text = String::new();
    if empty {
        text.push_str(HEADER);
        text.push('\n');
    }
    for outcome in outcomes {
        text.push_str(&row(args, sockets, outcome));
        text.push('\n');
    }
    file.write_all(text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

/// One run's row.
fn row(args: &Args, sockets: u64, outcome: &Outcome) -> String {
    let mut cells = vec![
        outcome.label.to_owned(),
        args.tables.to_string(),
        sockets.to_string(),
        args.rate.to_string(),
        args.seed.to_string(),
        format!("{:.3}", outcome.seconds),
    ];
    // Accepted actions/s, the four latencies, errors, CPU, CPU per action,
    // memory: the comparison's figures in its order.
    cells.extend(
        figures(outcome)
            .into_iter()
            .map(|(_, value)| value.map_or_else(String::new, |v| format!("{v:.3}"))),
    );
    cells.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn a_row_has_a_cell_for_every_column_of_the_header() {
        let args = Args::parse_from(["baghchal-load", "--tables", "3", "--rate", "0"]);
        let mut delivered = hdrhistogram::Histogram::new(3).unwrap();
        delivered.record(1500).unwrap();
        let outcome = Outcome {
            label: "ceiling",
            seconds: 2.0,
            actions: 10,
            settled: 10,
            games: 0,
            delivered: delivered.clone(),
            acked: delivered,
            connect_errors: 0,
            play_errors: 1,
            errors: Default::default(),
            memory: [None; 3],
            cpu: Default::default(),
            stages: None,
        };
        let row = row(&args, 12, &outcome);
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), HEADER.split(',').count(), "{row}");
        assert_eq!(
            &cells[..7],
            ["ceiling", "3", "12", "0", "1", "2.000", "5.000"]
        );
        assert_eq!(cells[7], "1.500", "p50 in milliseconds");
        assert_eq!(cells[11], "1.000", "errors");
        assert_eq!(cells[12], "", "no CPU figure without a process");
    }
}
