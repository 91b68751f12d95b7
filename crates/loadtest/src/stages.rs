//! The table server's own account of where an action's time goes: the
//! `baghchal_action_stage_seconds` histograms of its `/metrics`, scraped
//! when the play starts and when it ends, so that the difference covers
//! the measured play only (not the connecting, nor an earlier run).
//!
//! A quantile is read from the buckets by linear interpolation inside the
//! bucket it falls in, as Prometheus's `histogram_quantile` does, so it is
//! only as fine as the buckets (the server's are documented in its
//! `stats.rs`).

use std::collections::BTreeMap;

/// The histogram's name in the server's text format.
const METRIC: &str = "baghchal_action_stage_seconds";

/// The stages in the order an action passes through them.
const ORDER: [&str; 8] = [
    "to_table",
    "decide",
    "storage_queue",
    "commit",
    "wake",
    "store",
    "broadcast",
    "to_socket",
];

/// Every stage's cumulative buckets: upper bound in seconds (`+Inf` last)
/// and the count of samples at or under it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stages(BTreeMap<String, Vec<(f64, u64)>>);

impl Stages {
    /// Reads the stage buckets out of a `/metrics` text; `None` when it
    /// has none (a server that does not record them, or the ceiling).
    pub fn parse(text: &str) -> Option<Stages> {
        let prefix = format!("{METRIC}_bucket{{");
        let mut stages: BTreeMap<String, Vec<(f64, u64)>> = BTreeMap::new();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix(&prefix) else {
                continue;
            };
            let Some((labels, count)) = rest.split_once("} ") else {
                continue;
            };
            let (Some(stage), Some(le)) = (label(labels, "stage"), label(labels, "le")) else {
                continue;
            };
            let bound = match le {
                "+Inf" => f64::INFINITY,
                le => match le.parse() {
                    Ok(bound) => bound,
                    Err(_) => continue,
                },
            };
            let Ok(count) = count.trim().parse::<f64>() else {
                continue;
            };
            stages
                .entry(stage.to_owned())
                .or_default()
                .push((bound, count as u64));
        }
        for buckets in stages.values_mut() {
            buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        (!stages.is_empty()).then_some(Stages(stages))
    }

    /// What was recorded after `before`: the counts of `self` less those
    /// of `before`, bucket by bucket.
    pub fn since(&self, before: &Stages) -> Stages {
        let stages = self
            .0
            .iter()
            .map(|(stage, buckets)| {
                let earlier = before.0.get(stage);
                let delta = buckets
                    .iter()
                    .map(|&(bound, count)| {
                        let was = earlier
                            .and_then(|e| e.iter().find(|(b, _)| *b == bound))
                            .map_or(0, |&(_, c)| c);
                        (bound, count.saturating_sub(was))
                    })
                    .collect();
                (stage.clone(), delta)
            })
            .collect();
        Stages(stages)
    }

    /// `self` and `other` together: the nodes of a cluster as one.
    pub fn plus(mut self, other: Stages) -> Stages {
        for (stage, buckets) in other.0 {
            let mine = self.0.entry(stage).or_default();
            for (bound, count) in buckets {
                match mine.iter_mut().find(|(b, _)| *b == bound) {
                    Some((_, c)) => *c += count,
                    None => mine.push((bound, count)),
                }
            }
            mine.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        self
    }

    /// The samples of `stage`.
    pub fn count(&self, stage: &str) -> u64 {
        self.0
            .get(stage)
            .and_then(|b| b.last())
            .map_or(0, |&(_, count)| count)
    }

    /// Quantile `q` of `stage` in seconds, interpolated inside its bucket;
    /// `None` with no sample. Past the last finite bound it is that bound.
    pub fn quantile(&self, stage: &str, q: f64) -> Option<f64> {
        let buckets = self.0.get(stage)?;
        let total = buckets.last()?.1;
        if total == 0 {
            return None;
        }
        let rank = q.clamp(0.0, 1.0) * total as f64;
        let mut lower = (0.0, 0u64);
        for &(bound, count) in buckets {
            if count as f64 >= rank {
                if bound.is_infinite() {
                    return Some(lower.0);
                }
                let within = (count - lower.1) as f64;
                let share = if within > 0.0 {
                    (rank - lower.1 as f64) / within
                } else {
                    1.0
                };
                return Some(lower.0 + (bound - lower.0) * share);
            }
            lower = (bound, count);
        }
        Some(lower.0)
    }

    /// The stages known here first, in path order, then any others.
    fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = ORDER
            .iter()
            .copied()
            .filter(|s| self.0.contains_key(*s))
            .collect();
        names.extend(
            self.0
                .keys()
                .map(String::as_str)
                .filter(|s| !ORDER.contains(s)),
        );
        names
    }

    /// The report's lines: each stage's samples, p50, p99 and p99.9 in
    /// milliseconds.
    pub fn lines(&self) -> Vec<String> {
        let ms = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{:.3}", v * 1e3));
        let mut lines = vec![format!(
            "{:<14} {:>9} {:>9} {:>9} {:>9}",
            "stage", "samples", "p50 ms", "p99 ms", "p99.9 ms"
        )];
        for stage in self.names() {
            lines.push(format!(
                "{stage:<14} {:>9} {:>9} {:>9} {:>9}",
                self.count(stage),
                ms(self.quantile(stage, 0.5)),
                ms(self.quantile(stage, 0.99)),
                ms(self.quantile(stage, 0.999)),
            ));
        }
        lines
    }
}

/// The value of label `name` in `a="x",b="y"`.
fn label<'a>(labels: &'a str, name: &str) -> Option<&'a str> {
    labels.split(',').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key.trim() == name).then(|| value.trim().trim_matches('"'))
    })
}

/// The stage buckets of the servers at `urls` together, or `None` when
/// none has a `/metrics` that records stages.
pub async fn scrape(http: &reqwest::Client, urls: &[&str]) -> Option<Stages> {
    let mut all: Option<Stages> = None;
    for url in urls {
        let Ok(response) = http.get(format!("{url}/metrics")).send().await else {
            continue;
        };
        if !response.status().is_success() {
            continue;
        }
        let Some(stages) = response
            .text()
            .await
            .ok()
            .as_deref()
            .and_then(Stages::parse)
        else {
            continue;
        };
        all = Some(match all {
            Some(all) => all.plus(stages),
            None => stages,
        });
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRAPE: &str = "\
# TYPE baghchal_action_stage_seconds histogram
baghchal_action_stage_seconds_bucket{stage=\"decide\",le=\"0.001\"} 50
baghchal_action_stage_seconds_bucket{stage=\"decide\",le=\"0.002\"} 90
baghchal_action_stage_seconds_bucket{stage=\"decide\",le=\"+Inf\"} 100
baghchal_action_stage_seconds_sum{stage=\"decide\"} 0.1
baghchal_action_stage_seconds_count{stage=\"decide\"} 100
baghchal_action_stage_seconds_bucket{stage=\"store\",le=\"0.001\"} 0
baghchal_action_stage_seconds_bucket{stage=\"store\",le=\"+Inf\"} 0
baghchal_commit_seconds_bucket{le=\"0.001\"} 7
";

    #[test]
    fn the_buckets_of_each_stage_are_read_and_others_ignored() {
        let stages = Stages::parse(SCRAPE).expect("stages");
        assert_eq!(stages.count("decide"), 100);
        assert_eq!(stages.count("store"), 0);
        assert_eq!(stages.names(), ["decide", "store"]);
        assert_eq!(Stages::parse("baghchal_commit_seconds_count 3\n"), None);
    }

    #[test]
    fn a_quantile_is_interpolated_inside_its_bucket() {
        let stages = Stages::parse(SCRAPE).expect("stages");
        let p50 = stages.quantile("decide", 0.5).expect("p50");
        assert!((p50 - 0.001).abs() < 1e-12, "{p50}");
        let p70 = stages.quantile("decide", 0.7).expect("p70");
        assert!((p70 - 0.0015).abs() < 1e-12, "{p70}");
        // Past the last finite bound: that bound.
        assert_eq!(stages.quantile("decide", 0.99), Some(0.002));
        assert_eq!(stages.quantile("store", 0.5), None);
        assert_eq!(stages.quantile("absent", 0.5), None);
    }

    #[test]
    fn the_play_is_what_was_recorded_after_the_first_scrape() {
        let before = Stages::parse(SCRAPE).expect("stages");
        let after = Stages::parse(&SCRAPE.replace("} 100", "} 130").replace("} 90", "} 120"))
            .expect("stages");
        let play = after.since(&before);
        assert_eq!(play.count("decide"), 30);
        // All 30 new samples fell between 1 and 2 ms.
        assert_eq!(play.quantile("decide", 0.0), Some(0.001));
        assert_eq!(play.quantile("decide", 1.0), Some(0.002));
    }

    #[test]
    fn two_nodes_add_up_bucket_by_bucket() {
        let one = Stages::parse(SCRAPE).expect("stages");
        let both = one.clone().plus(one);
        assert_eq!(both.count("decide"), 200);
        assert_eq!(both.quantile("decide", 0.5), Some(0.001));
    }
}
