//! `baghchal placement`: how many goats the goats lose by the end of the
//! placement phase, and where they give them away.
//!
//! Goats lost in placement decide most games between strong players, and
//! a placement costs about a tenth of a whole game to play, so this plays
//! only the placement phase: every pair of a goats' player and a tigers'
//! player (levels of the ladder or bots of the reference pool) plays the
//! same seeded sound openings as the tournament draws them, and each game
//! stops when the last goat is placed (or the game ends before). The
//! report counts the goats lost per game.
//!
//! With `--audit NODES`, every game in which a level lost a goat is
//! searched again, backwards from its first capture: at each placement of
//! the goats before it, a search of `NODES` nodes scores the best action
//! and the action played. The latest placement at which the best action
//! keeps every goat in the deeper search's view while the one played
//! falls short by more than half a goat is where the goat was given away.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{anyhow, bail, Context};
use baghchal_engine::{Engine, Level};
use baghchal_rules::{Action, Game, Position, Record, Rules, Side};

use super::pool::Bot;
use super::{command_line, Book, Player};

/// Options of `baghchal placement`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The goats' players, comma-separated: levels (400 ... 2400) and pool
    /// bots (random, greedy, abN).
    #[arg(long, default_value = "2400")]
    goats: String,
    /// The tigers' players, as for --goats.
    #[arg(long, default_value = "ab9,ab10,2300,2200")]
    tigers: String,
    /// Openings per pair; every pair plays the same ones.
    #[arg(long, default_value_t = 10)]
    games: usize,
    /// Plies of each opening, each drawn at random (seeded per opening)
    /// among the sound actions.
    #[arg(long, default_value_t = 4)]
    opening: u16,
    /// An opening action is sound when the opening search scores it within
    /// this many thousandths of a goat of the best action.
    #[arg(long, default_value_t = 150)]
    opening_margin: i32,
    /// Nodes of the opening search.
    #[arg(long, default_value_t = 2_000_000)]
    opening_nodes: u64,
    /// Search every game in which a level lost a goat again with this many
    /// nodes per position, to find the placement that gave it away.
    #[arg(long)]
    audit: Option<u64>,
    /// How many of the goats' placements before the first capture the
    /// audit searches, latest first.
    #[arg(long, default_value_t = 6)]
    audit_depth: usize,
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// The seed of the openings: the same seed plays the same openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the report as Markdown to this file.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Write every placement's record (unfinished) to this directory, named
    /// `NNNN-GOATS-TIGERS.txt`.
    #[arg(long)]
    records: Option<PathBuf>,
    /// Play nothing: report (and audit) the placements recorded in this
    /// directory by an earlier run with the same players and --records.
    #[arg(long)]
    from_records: Option<PathBuf>,
    /// The top level searches every placement instead of playing the
    /// goats' placement book (to measure what the book changes).
    #[arg(long)]
    no_book: bool,
    /// The top level places its goats without the guard, choosing among
    /// every placement (to measure what the guard changes).
    #[arg(long)]
    no_guard: bool,
    /// The movement-phase tablebase the levels probe, found where the
    /// server keeps it; played without when it is not there.
    #[command(flatten)]
    location: crate::tablebase::Location,
}

/// Reads `2400,ab9,greedy`: levels and pool bots, in the order given,
/// once each.
fn parse_players(text: &str) -> anyhow::Result<Vec<Player>> {
    let mut players = Vec::new();
    for t in text.split(',') {
        let t = t.trim();
        let player = match t.parse::<u16>() {
            Ok(label) => Player::Level(
                Level::new(label).ok_or_else(|| anyhow!("{t:?} is not a level (400 ... 2400)"))?,
            ),
            Err(_) => Player::Pool(Bot::parse(t)?),
        };
        if !players.contains(&player) {
            players.push(player);
        }
    }
    Ok(players)
}

/// The seed of the `round`th opening: the same for every pair.
fn opening_seed(seed: u64, round: usize) -> u64 {
    seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(0x5a5a_0000 | round as u64)
}

/// One placement phase to play.
#[derive(Clone, Copy, Debug)]
struct Fixture {
    goats: Player,
    tigers: Player,
    round: usize,
    opening_seed: u64,
}

/// A played placement phase.
#[derive(Clone, Debug)]
struct Placed {
    fixture: Fixture,
    /// The record, unfinished unless the game ended in placement.
    record: Record,
    /// The plies of the opening.
    opening: usize,
}

impl Placed {
    /// The position at the end (the last goat placed, or the game over).
    fn end(&self) -> Position {
        self.positions().pop().expect("a game has a start")
    }

    /// Every position of the game, from the start.
    fn positions(&self) -> Vec<Position> {
        let mut position = Position::new(self.record.rules);
        let mut out = vec![position.clone()];
        for &action in &self.record.actions {
            position.play_unchecked(action);
            out.push(position.clone());
        }
        out
    }

    fn lost(&self) -> u8 {
        self.end().eaten()
    }
}

/// Plays the placement phase of `fixture`: the opening, then the players
/// until the last goat is placed.
fn play(engine: &Engine, book: &Book, fixture: Fixture, opening: u16) -> Placed {
    let mut game = Game::new(Rules::default());
    let line = book.opening(fixture.opening_seed, opening);
    for &action in &line {
        game.play(action).expect("the book plays legal actions");
    }
    while !game.is_finished() && game.position().in_hand() > 0 {
        let position = game.position();
        let player = match position.side_to_move() {
            Side::Goat => fixture.goats,
            Side::Tiger => fixture.tigers,
        };
        // The tournament's seeds, so that a placement here is the start
        // of the same game there.
        let seed =
            fixture.opening_seed ^ (position.ply() as u64).wrapping_mul(0xff51_afd7_ed55_8ccd);
        let action = player.act(engine, position, seed);
        game.play(action).expect("the players play legal actions");
    }
    Placed {
        fixture,
        record: game.record(),
        opening: line.len(),
    }
}

/// Where a game's first goat was given away, by the audit's search.
#[derive(Clone, Debug)]
struct GivenAway {
    /// The position before the placement, as text.
    position: String,
    /// The ply of the placement.
    ply: u16,
    /// The action played and its value for the goats.
    played: (Action, i32),
    /// The deeper search's best action and its value for the goats.
    best: (Action, i32),
}

/// How far below the best the played action must score to have given a
/// goat away, in thousandths of a goat.
const GIVE_AWAY: i32 = 500;
/// The best action keeps every goat when it scores at least this.
const KEEPS: i32 = -GIVE_AWAY;

/// Searches the goats' placements before the first capture of `placed`,
/// latest first, for the one that gave the goat away.
fn audit(engine: &Engine, placed: &Placed, nodes: u64, depth: usize) -> Option<GivenAway> {
    let positions = placed.positions();
    let first_capture = positions.iter().position(|p| p.eaten() > 0)?;
    let mut searched = 0;
    for ply in (placed.opening..first_capture.saturating_sub(1)).rev() {
        let before = &positions[ply];
        if before.side_to_move() != Side::Goat || before.in_hand() == 0 {
            continue;
        }
        if searched == depth {
            break;
        }
        searched += 1;
        let played = placed.record.actions[ply];
        let best = engine.best(before, nodes)?;
        let after = &positions[ply + 1];
        let reply = engine.best(after, nodes)?;
        let played_value = -reply.value.score();
        let best_value = best.value.score();
        if best_value >= KEEPS && best_value - played_value > GIVE_AWAY {
            return Some(GivenAway {
                position: before.to_string(),
                ply: ply as u16,
                played: (played, played_value),
                best: (best.action, best_value),
            });
        }
    }
    None
}

/// The placements recorded in `dir` (file names as `play_all` writes
/// them), in the order of their numbers, for the players named.
fn read_placed(dir: &Path, players: &[Player], opening: u16) -> anyhow::Result<Vec<Placed>> {
    let mut placed = Vec::new();
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        let Some(stem) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".txt"))
        else {
            continue;
        };
        let (index, rest) = stem
            .split_once('-')
            .and_then(|(i, rest)| Some((i.parse::<usize>().ok()?, rest)))
            .with_context(|| format!("{} is not named NNNN-GOATS-TIGERS.txt", path.display()))?;
        let pair = players.iter().find_map(|&g| {
            let tigers = rest.strip_prefix(&g.slug())?.strip_prefix('-')?;
            players.iter().find(|t| t.slug() == tigers).map(|&t| (g, t))
        });
        let Some((goats, tigers)) = pair else {
            bail!("{}: its players are not among those named", path.display());
        };
        let record: Record = std::fs::read_to_string(&path)?
            .parse()
            .with_context(|| format!("{} is not a record", path.display()))?;
        if record.actions.len() < opening as usize {
            bail!("{} is shorter than its opening", path.display());
        }
        placed.push((
            index,
            Placed {
                fixture: Fixture {
                    goats,
                    tigers,
                    round: 0,
                    opening_seed: 0,
                },
                record,
                opening: opening as usize,
            },
        ));
    }
    if placed.is_empty() {
        bail!("no records in {}", dir.display());
    }
    placed.sort_by_key(|(i, _)| *i);
    Ok(placed.into_iter().map(|(_, p)| p).collect())
}

/// Plays every fixture on the threads, writing records as games end.
fn play_all(
    args: &Args,
    engine: &Engine,
    fixtures: &[Fixture],
) -> anyhow::Result<(Vec<Placed>, f64)> {
    let book = Book::new(engine, args.opening_nodes, args.opening_margin);
    if let Some(dir) = &args.records {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(fixtures.len()));
    let written = Mutex::new(Ok(()));
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..args.threads.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&fixture) = fixtures.get(i) else {
                    break;
                };
                let placed = play(engine, &book, fixture, args.opening);
                eprintln!(
                    "{}/{} {} vs {}, opening {}: {} lost",
                    i + 1,
                    fixtures.len(),
                    fixture.goats,
                    fixture.tigers,
                    fixture.round,
                    placed.lost()
                );
                if let Some(dir) = &args.records {
                    let name = format!(
                        "{i:04}-{}-{}.txt",
                        fixture.goats.slug(),
                        fixture.tigers.slug()
                    );
                    let path = dir.join(name);
                    let outcome = std::fs::write(&path, placed.record.to_string())
                        .with_context(|| format!("cannot write {}", path.display()));
                    let mut first = written.lock().expect("no worker panicked");
                    if first.is_ok() {
                        *first = outcome;
                    }
                }
                done.lock().expect("no worker panicked").push((i, placed));
            });
        }
    });
    written.into_inner().expect("no worker panicked")?;
    let mut done = done.into_inner().expect("no worker panicked");
    done.sort_by_key(|(i, _)| *i);
    Ok((
        done.into_iter().map(|(_, p)| p).collect(),
        start.elapsed().as_secs_f64(),
    ))
}

/// The counts of one pair: games, goats lost, and games by goats lost
/// (0, 1, 2, 3 or more).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Count {
    games: usize,
    lost: usize,
    by_lost: [usize; 4],
}

impl Count {
    fn add(&mut self, lost: u8) {
        self.games += 1;
        self.lost += lost as usize;
        self.by_lost[(lost as usize).min(3)] += 1;
    }

    fn mean(&self) -> f64 {
        self.lost as f64 / self.games.max(1) as f64
    }
}

/// The counts of every pair, in the order of `goats` then `tigers`.
fn counts(goats: &[Player], tigers: &[Player], placed: &[Placed]) -> Vec<(Player, Player, Count)> {
    let mut out = Vec::new();
    for &g in goats {
        for &t in tigers {
            let mut count = Count::default();
            for p in placed
                .iter()
                .filter(|p| p.fixture.goats == g && p.fixture.tigers == t)
            {
                count.add(p.lost());
            }
            out.push((g, t, count));
        }
    }
    out
}

/// The Markdown report.
fn report(
    args: &Args,
    goats: &[Player],
    tigers: &[Player],
    placed: &[Placed],
    audits: &[(usize, GivenAway)],
    seconds: Option<f64>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Goats lost in placement\n");
    let _ = writeln!(
        out,
        "Every goats' player played every tigers' player from the same {} \
         seeded openings ({} plies, each drawn at random among the actions \
         that a search of {} nodes scores within {:.2} goats of the best), \
         up to the last goat placed.\n",
        args.games,
        args.opening,
        args.opening_nodes,
        args.opening_margin as f64 / 1000.0
    );
    let _ = writeln!(out, "```\n{}\n```\n", command_line());
    let _ = writeln!(
        out,
        "{} placements {}.\n",
        placed.len(),
        super::timing(seconds, args.threads)
    );
    let _ = writeln!(
        out,
        "| goats | tigers | games | goats lost per game | none lost | 1 | 2 | 3 or more |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|");
    for (g, t, c) in counts(goats, tigers, placed) {
        let _ = writeln!(
            out,
            "| {g} | {t} | {} | {:.2} | {} | {} | {} | {} |",
            c.games,
            c.mean(),
            c.by_lost[0],
            c.by_lost[1],
            c.by_lost[2],
            c.by_lost[3]
        );
    }
    let _ = writeln!(out, "\n| game | goats | tigers | opening | goats lost |");
    let _ = writeln!(out, "|---:|---|---|---|---:|");
    for (i, p) in placed.iter().enumerate() {
        let line: Vec<String> = p.record.actions[..p.opening]
            .iter()
            .map(Action::to_string)
            .collect();
        let _ = writeln!(
            out,
            "| {i:04} | {} | {} | {} | {} |",
            p.fixture.goats,
            p.fixture.tigers,
            line.join(" "),
            p.lost()
        );
    }
    if let Some(nodes) = args.audit {
        let _ = writeln!(
            out,
            "\n## Where the goats gave a goat away\n\n\
             Searched again with {nodes} nodes per position: the latest of the \
             goats' placements before the first capture (up to {} searched) at \
             which the best action keeps every goat (scores at least {:+.2}) and \
             the action played scores more than {:.2} goats below it. Values \
             are for the goats.\n",
            args.audit_depth,
            KEEPS as f64 / 1000.0,
            GIVE_AWAY as f64 / 1000.0
        );
        let _ = writeln!(out, "| game | ply | position | played | best |");
        let _ = writeln!(out, "|---:|---:|---|---|---|");
        for (i, g) in audits {
            let _ = writeln!(
                out,
                "| {i:04} | {} | `{}` | {} ({:+.2}) | {} ({:+.2}) |",
                g.ply,
                g.position,
                g.played.0,
                g.played.1 as f64 / 1000.0,
                g.best.0,
                g.best.1 as f64 / 1000.0
            );
        }
        let with_loss = placed
            .iter()
            .filter(|p| p.lost() > 0 && matches!(p.fixture.goats, Player::Level(_)))
            .count();
        let _ = writeln!(
            out,
            "\n{} of the {with_loss} placements in which a level lost a goat show \
             a placement that gave it away.",
            audits.len()
        );
    }
    out
}

/// Runs `baghchal placement`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let goats = parse_players(&args.goats)?;
    let tigers = parse_players(&args.tigers)?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let mut fixtures = Vec::new();
    for round in 0..args.games {
        for &g in &goats {
            for &t in &tigers {
                fixtures.push(Fixture {
                    goats: g,
                    tigers: t,
                    round,
                    opening_seed: opening_seed(args.seed, round),
                });
            }
        }
    }
    let engine = args.location.engine()?;
    let engine = if args.no_book {
        engine.with_book(baghchal_engine::PlacementBook::new())
    } else {
        engine
    };
    let engine = if args.no_guard {
        engine.without_guard()
    } else {
        engine
    };
    let (placed, seconds) = match &args.from_records {
        Some(dir) => {
            let players: Vec<Player> = goats.iter().chain(&tigers).copied().collect();
            (read_placed(dir, &players, args.opening)?, None)
        }
        None => {
            let (placed, seconds) = play_all(&args, &engine, &fixtures)?;
            (placed, Some(seconds))
        }
    };
    let mut audits = Vec::new();
    if let Some(nodes) = args.audit {
        for (i, p) in placed.iter().enumerate() {
            if p.lost() == 0 || !matches!(p.fixture.goats, Player::Level(_)) {
                continue;
            }
            if let Some(given) = audit(&engine, p, nodes, args.audit_depth) {
                eprintln!("{i:04}: {given:?}");
                audits.push((i, given));
            }
        }
    }
    let text = report(&args, &goats, &tigers, &placed, &audits, seconds);
    print!("{text}");
    if let Some(path) = &args.output {
        std::fs::write(path, &text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_read_as_levels_and_bots_in_order_once_each() {
        let players = parse_players("2400, ab9,greedy,2400").unwrap();
        assert_eq!(
            players,
            vec![
                Player::Level(Level::MAX),
                Player::Pool(Bot::AlphaBeta(9)),
                Player::Pool(Bot::Greedy)
            ]
        );
        for bad in ["2450", "ab13", "x", ""] {
            assert!(parse_players(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn every_pair_plays_the_same_openings() {
        assert_eq!(opening_seed(7, 3), opening_seed(7, 3));
        assert_ne!(opening_seed(7, 3), opening_seed(7, 4));
        assert_ne!(opening_seed(7, 3), opening_seed(8, 3));
    }

    #[test]
    fn a_placement_stops_with_the_last_goat_placed_and_counts_the_goats_lost() {
        let engine = Engine::new();
        let book = Book::new(&engine, 2_000, 150);
        let fixture = Fixture {
            goats: Player::Pool(Bot::Random),
            tigers: Player::Pool(Bot::Greedy),
            round: 0,
            opening_seed: opening_seed(1, 0),
        };
        let placed = play(&engine, &book, fixture, 2);
        let end = placed.end();
        assert!(end.in_hand() == 0 || end.is_finished(), "{end}");
        assert!(placed.record.result.is_none() || end.is_finished());
        assert_eq!(placed.opening, 2);
        // Random goats against a capturer lose goats in placement.
        let mut count = Count::default();
        count.add(placed.lost());
        assert_eq!(count.games, 1);
        assert_eq!(count.lost, end.eaten() as usize);
        assert!(end.eaten() > 0, "{}", placed.record);
    }

    #[test]
    fn counts_bucket_three_or_more_goats_together() {
        let mut count = Count::default();
        for lost in [0, 1, 1, 3, 5] {
            count.add(lost);
        }
        assert_eq!(count.by_lost, [1, 2, 0, 2]);
        assert_eq!(count.lost, 10);
        assert!((count.mean() - 2.0).abs() < 1e-9);
    }
}
