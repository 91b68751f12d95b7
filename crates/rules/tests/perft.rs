//! Data-driven perft: every `tests/*.perft` file lists positions with their
//! perft counts. Each count is checked against the library and against the
//! naive generator in `tests/naive`.
//!
//! The file format, one block per position, blocks separated by blank
//! lines, `#` starting a comment line:
//!
//! ```text
//! id      a-name-for-failures
//! rules   multi-jump goats-to-win=3        (optional: the house rules)
//! position T...T/...../...../...../T...T g 20 0 0   (or `startpos`)
//! actions c3 a1-b2                          (optional: played first)
//! perft 1 21
//! perft 2 252
//! ```

mod naive;

use std::fs;
use std::path::Path;

use baghchal_rules::{perft, perft_divide, Action, Position, Rules};
use naive::{NaivePosition, NaiveRules};

/// The naive generator is asked for every count in the files; this bound
/// only guards the test run against a deep count added by mistake.
const NAIVE_LEAVES: u64 = 20_000_000;

#[derive(Debug, Default)]
struct Entry {
    file: String,
    id: String,
    rules: String,
    position: String,
    actions: Vec<String>,
    counts: Vec<(u32, u64)>,
}

fn entries() -> Vec<Entry> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("the tests folder")
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "perft"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(&path).expect("a readable perft file");
        let mut entry: Option<Entry> = None;
        for line in text.lines().chain(std::iter::once("")) {
            let line = line.trim();
            if line.starts_with('#') {
                continue;
            }
            if line.is_empty() {
                out.extend(entry.take());
                continue;
            }
            let e = entry.get_or_insert_with(|| Entry {
                file: file.clone(),
                rules: "standard".to_owned(),
                ..Entry::default()
            });
            let (key, value) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let value = value.trim();
            match key {
                "id" => e.id = value.to_owned(),
                "rules" => e.rules = value.to_owned(),
                "position" => e.position = value.to_owned(),
                "actions" => e.actions = value.split_whitespace().map(str::to_owned).collect(),
                "perft" => {
                    let (depth, count) = value.split_once(' ').expect("perft DEPTH COUNT");
                    e.counts.push((
                        depth.parse().expect("a depth"),
                        count.trim().parse().expect("a count"),
                    ));
                }
                _ => panic!("{file}: unknown line {line:?}"),
            }
        }
    }
    out
}

fn library_position(e: &Entry) -> Position {
    let rules: Rules = e.rules.parse().expect("rules");
    let mut pos = if e.position == "startpos" {
        Position::new(rules)
    } else {
        Position::from_text(&e.position, rules)
            .unwrap_or_else(|err| panic!("{}/{}: {err}", e.file, e.id))
    };
    for text in &e.actions {
        let action: Action = text.parse().expect("an action");
        pos = pos
            .play(action)
            .unwrap_or_else(|err| panic!("{}/{}: {text}: {err}", e.file, e.id));
    }
    pos
}

fn naive_position(e: &Entry) -> NaivePosition {
    let rules = NaiveRules::parse(&e.rules);
    let text = if e.position == "startpos" {
        rules.start_text()
    } else {
        e.position.clone()
    };
    let mut pos = NaivePosition::from_text(&text, rules);
    for action in &e.actions {
        pos = pos.play(action);
    }
    pos
}

#[test]
fn there_are_enough_perft_positions() {
    let entries = entries();
    assert!(entries.len() >= 12, "only {} positions", entries.len());
    for e in &entries {
        assert!(!e.id.is_empty() && !e.position.is_empty(), "{e:?}");
        assert!(!e.counts.is_empty(), "{}/{}: no counts", e.file, e.id);
    }
}

#[test]
fn the_library_gives_every_listed_count() {
    for e in entries() {
        let pos = library_position(&e);
        for &(depth, expected) in &e.counts {
            assert_eq!(
                perft(&pos, depth),
                expected,
                "{}/{} depth {depth}",
                e.file,
                e.id
            );
        }
    }
}

/// Checks the counts of one file with the naive generator.
fn naive_counts_in(file: &str) {
    let entries: Vec<Entry> = entries().into_iter().filter(|e| e.file == file).collect();
    assert!(!entries.is_empty(), "no positions in {file}");
    for e in entries {
        let pos = naive_position(&e);
        for &(depth, expected) in &e.counts {
            assert!(
                expected <= NAIVE_LEAVES,
                "{}/{} depth {depth}: too deep for the naive generator",
                e.file,
                e.id
            );
            assert_eq!(
                pos.perft(depth),
                expected,
                "{}/{} depth {depth}",
                e.file,
                e.id
            );
        }
    }
}

#[test]
fn the_naive_generator_gives_the_start_counts() {
    naive_counts_in("start.perft");
}

#[test]
fn the_naive_generator_gives_the_endings_counts() {
    naive_counts_in("endings.perft");
}

#[test]
fn the_naive_generator_gives_the_jumps_counts() {
    naive_counts_in("jumps.perft");
}

#[test]
fn the_naive_generator_gives_the_variants_counts() {
    naive_counts_in("variants.perft");
}

#[test]
fn every_perft_file_is_checked_by_the_naive_generator() {
    let mut files: Vec<String> = entries().into_iter().map(|e| e.file).collect();
    files.dedup();
    assert_eq!(
        files,
        [
            "endings.perft",
            "jumps.perft",
            "start.perft",
            "variants.perft"
        ]
    );
}

#[test]
fn both_generators_agree_on_the_position_and_its_legal_actions() {
    for e in entries() {
        let lib = library_position(&e);
        let naive = naive_position(&e);
        assert_eq!(lib.to_string(), naive.to_text(), "{}/{}", e.file, e.id);
        let mut actions: Vec<String> = lib.legal_actions().iter().map(Action::to_string).collect();
        actions.sort();
        assert_eq!(actions, naive.legal_names(), "{}/{}", e.file, e.id);
        assert_eq!(lib.count_legal(), actions.len(), "{}/{}", e.file, e.id);
    }
}

#[test]
fn perft_divide_splits_the_count_by_first_action() {
    for e in entries() {
        let pos = library_position(&e);
        let Some(&(depth, expected)) = e.counts.iter().filter(|(d, _)| *d >= 1).min() else {
            continue;
        };
        let split = perft_divide(&pos, depth);
        if pos.is_finished() {
            assert!(split.is_empty(), "{}/{}", e.file, e.id);
            continue;
        }
        assert_eq!(split.len(), pos.count_legal(), "{}/{}", e.file, e.id);
        assert_eq!(
            split.iter().map(|(_, n)| n).sum::<u64>(),
            expected,
            "{}/{}",
            e.file,
            e.id
        );
    }
}

/// Walks both trees together, comparing the legal actions and the outcome
/// at every node; returns the number of nodes visited.
fn walk(lib: &Position, naive: &NaivePosition, depth: u32, path: &mut Vec<String>) -> u64 {
    let mut actions: Vec<String> = lib.legal_actions().iter().map(Action::to_string).collect();
    actions.sort();
    let at = || format!("{} after {:?}", naive.to_text(), path);
    assert_eq!(actions, naive.legal_names(), "{}", at());
    let outcome = lib.outcome().map(|o| {
        let who = match o.winner() {
            Some(side) => side.char(),
            None => '-',
        };
        (who, o.reason().as_str())
    });
    assert_eq!(outcome, naive.outcome(), "{}", at());
    if depth == 0 {
        return 1;
    }
    let mut nodes = 1;
    for (action, next) in naive.legal() {
        let child = lib
            .clone()
            .play(action.parse().expect("notation"))
            .expect("legal");
        path.push(action);
        nodes += walk(&child, &next, depth - 1, path);
        path.pop();
    }
    nodes
}

#[test]
fn both_generators_agree_at_every_node_of_the_first_plies() {
    for e in entries() {
        let lib = library_position(&e);
        let naive = naive_position(&e);
        // The deepest listed depth whose tree stays small.
        let depth = e
            .counts
            .iter()
            .filter(|(_, n)| *n <= 5_000)
            .map(|(d, _)| *d)
            .max()
            .unwrap_or(0);
        walk(&lib, &naive, depth, &mut Vec::new());
    }
}
