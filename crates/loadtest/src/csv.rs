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
    let rows: Vec<String> = outcomes
        .iter()
        .map(|outcome| row(args, sockets, outcome))
        .collect();
    append_rows(path, HEADER, &rows)
}

/// The columns of the memory trace, in order.
pub const MEMORY_HEADER: &str = "target,seed,seconds,rss_mib";

/// Appends each outcome's memory trace to `path`, one row a sample.
pub fn append_memory(path: &Path, args: &Args, outcomes: &[Outcome]) -> anyhow::Result<()> {
    let rows: Vec<String> = outcomes
        .iter()
        .flat_map(|outcome| {
            outcome.rss_trace.iter().map(|&(seconds, kib)| {
                format!(
                    "{},{},{seconds:.1},{:.1}",
                    outcome.label,
                    args.seed,
                    kib as f64 / 1024.0
                )
            })
        })
        .collect();
    append_rows(path, MEMORY_HEADER, &rows)
}

/// Appends `rows` to the CSV file at `path`, with `header` first when the
/// file is new or empty.
fn append_rows(path: &Path, header: &str, rows: &[String]) -> anyhow::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    let empty = file.metadata().map(|m| m.len() == 0).unwrap_or(true);
    let mut text = String::new();
    if empty {
        text.push_str(header);
        text.push('\n');
    }
    for row in rows {
        text.push_str(row);
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

    fn outcome() -> Outcome {
        let mut delivered = hdrhistogram::Histogram::new(3).unwrap();
        delivered.record(1500).unwrap();
        Outcome {
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
            rss_trace: vec![(0.0, 2048), (0.5, 3072)],
            cpu: Default::default(),
            stages: None,
        }
    }

    #[test]
    fn a_row_has_a_cell_for_every_column_of_the_header() {
        let args = Args::parse_from(["baghchal-load", "--tables", "3", "--rate", "0"]);
        let row = row(&args, 12, &outcome());
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

    #[test]
    fn the_memory_trace_has_one_row_a_sample_under_one_header() {
        let args = Args::parse_from(["baghchal-load", "--seed", "7"]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.csv");
        append_memory(&path, &args, &[outcome()]).unwrap();
        append_memory(&path, &args, &[outcome()]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                MEMORY_HEADER,
                "ceiling,7,0.0,2.0",
                "ceiling,7,0.5,3.0",
                "ceiling,7,0.0,2.0",
                "ceiling,7,0.5,3.0"
            ]
        );
    }
}
