//! The server's log: lines on standard error, filtered as `--log` says.
//!
//! A filter of targets and levels (`info`, `warn,baghchal_server=debug`)
//! is read as [`Targets`], which decides once for each place that logs or
//! opens a span. Only a filter that needs more (a span's name or fields,
//! `[table]=debug`) is read as an [`EnvFilter`], which also follows every
//! span as it is entered and left: a lock and a lookup each time a
//! table's or a socket's task runs, some 700 instructions an action
//! (docs/performance.md, the seventh step).

use anyhow::Context;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::EnvFilter;

/// `filter` read as one of the two filters: the other is `None`.
fn filters(filter: &str) -> anyhow::Result<(Option<Targets>, Option<EnvFilter>)> {
    // A span's directive is in brackets. (`Targets` would read one as a
    // target's name, which no target has.)
    Ok(if filter.contains('[') {
        (None, Some(EnvFilter::try_new(filter).context("--log")?))
    } else {
        (Some(filter.parse::<Targets>().context("--log")?), None)
    })
}

/// Installs the process's log with `filter`.
pub fn init(filter: &str) -> anyhow::Result<()> {
    let (targets, env) = filters(filter)?;
    tracing_subscriber::registry()
        .with(targets)
        .with(env)
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())),
        )
        .try_init()
        .context("installing the log")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which of a few places, each a target and a level, a subscriber
    /// filtered by `filter` logs.
    fn enabled<L>(filter: L) -> Vec<bool>
    where
        L: tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync + 'static,
    {
        use tracing::Level;
        let subscriber = tracing_subscriber::registry().with(filter);
        tracing::subscriber::with_default(subscriber, || {
            vec![
                tracing::enabled!(target: "baghchal_server::ws", Level::TRACE),
                tracing::enabled!(target: "baghchal_server::ws", Level::DEBUG),
                tracing::enabled!(target: "baghchal_server::table", Level::DEBUG),
                tracing::enabled!(target: "baghchal_server::table", Level::INFO),
                tracing::enabled!(target: "sqlx::query", Level::INFO),
                tracing::enabled!(target: "sqlx::query", Level::WARN),
            ]
        })
    }

    #[test]
    fn a_plain_filter_reads_as_targets_as_it_did_as_an_env_filter() {
        for filter in [
            "info",
            "warn,baghchal_server=debug",
            "baghchal_server::ws=trace",
        ] {
            let (Some(targets), None) = filters(filter).unwrap() else {
                panic!("{filter}: not read as targets");
            };
            let by_targets = enabled(targets);
            assert_eq!(
                by_targets,
                enabled(EnvFilter::try_new(filter).unwrap()),
                "{filter}"
            );
            assert!(
                by_targets.contains(&true) && by_targets.contains(&false),
                "{filter}"
            );
        }
    }

    #[test]
    fn a_span_filter_is_read_as_an_env_filter() {
        for filter in ["[table]=debug", "baghchal_server[conn{conn_id=3}]=trace"] {
            assert!(
                matches!(filters(filter).unwrap(), (None, Some(_))),
                "{filter}"
            );
        }
    }

    #[test]
    fn a_filter_neither_reads_is_refused() {
        for filter in ["foo=bar", "[table]=loud"] {
            assert!(filters(filter).is_err(), "{filter}");
        }
    }
}
