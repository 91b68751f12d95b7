//! `baghchal tournament`: the levels play each other on both sides, and
//! their ratings are fitted by maximum likelihood.
//!
//! Pairs of levels play games in twos: the same seeded opening with the
//! sides swapped, so that neither level profits from the side it drew.
//! Openings are sound: each of their plies is drawn at random among the
//! actions that a fixed search scores close to the best, so that no game
//! starts with a goat given away (17 of the 21 first placements lose one
//! by force) and the result measures the levels, not the opening.
//! The schedule is every adjacent pair of the chosen levels plus pairs
//! `--span` steps apart; games run on `--threads` threads. Ratings come
//! from a Bradley-Terry (Elo) fit with draws as half points, anchored so
//! that the ratings' mean equals the labels' mean; the error bars are 95%
//! intervals from the fit's Fisher information.
//!
//! With `--strengths`, points of the levels' path play instead of the
//! labels, and `--place` fits a curve through their ratings and reports
//! where the labels stand 100 Elo apart on it: that is how the labels
//! were placed (docs/strength.md), and how they are placed again after
//! the engine changes.
//!
//! With `--pool`, every level (or point) plays every bot of the frozen
//! reference pool (`pool.rs`) on both sides instead of the other levels,
//! and the ratings are anchored to the pool, so that they stay comparable
//! from one version of the engine to the next.
//!
//! The game is asymmetric, so besides the fit with one strength per
//! player and a side term, every report fits a strength per player and
//! side and publishes both with their mean (`fit::sided`).

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{anyhow, bail, Context};
use baghchal_engine::{Engine, Level, Skill};
use baghchal_rules::{Action, Game, Outcome, Position, Reason, Record, Rules, Setup, Side};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use self::fit::{place, Fit, Sided};
use self::pool::Bot;

mod fit;
pub mod placement;
mod pool;
pub mod squeeze;

/// Options of `baghchal tournament`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The levels that play, as a comma-separated list or a range
    /// `FROM-TO` (steps of 100). Default: the whole ladder.
    #[arg(long, default_value = "400-2400")]
    levels: String,
    /// Play points of the levels' path instead of the labels: a
    /// comma-separated list of strengths (for example 0,2,4,...,20), each
    /// between -10 and 30 (below 0 the search shrinks to a few nodes and
    /// the error grows towards random play). Used to place the labels on
    /// the path.
    #[arg(long, conflicts_with = "levels", allow_hyphen_values = true)]
    strengths: Option<String>,
    /// With --strengths: place the labels 400..2400 on the path, 100 Elo
    /// apart with 2400 at the strongest point played, by a cubic through
    /// the points' ratings, and report where they land.
    #[arg(long)]
    place: bool,
    /// Games per pair of levels (rounded up to an even number: each
    /// opening is played twice, sides swapped).
    #[arg(long, default_value_t = 8)]
    games: usize,
    /// Besides adjacent levels, pair levels this many steps apart
    /// (repeatable; 0 pairs adjacent levels only).
    #[arg(long, default_value = "3")]
    span: Vec<usize>,
    /// Plies of each opening, played from the start before the levels
    /// take over: each drawn at random (seeded per opening) among the
    /// sound actions.
    #[arg(long, default_value_t = 4)]
    opening: u16,
    /// An opening action is sound when the opening search scores it within
    /// this many thousandths of a goat of the best action.
    #[arg(long, default_value_t = 150)]
    opening_margin: i32,
    /// Nodes of the opening search, which scores every action of an
    /// opening position.
    #[arg(long, default_value_t = 2_000_000)]
    opening_nodes: u64,
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// The tournament's seed: the same seed plays the same games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the rating table as Markdown to this file (for example
    /// docs/strength.md).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Write every game's record to this directory, one file a game,
    /// named by its place in the schedule and the players
    /// (`0007-2400-2300.txt`: goats first), in the rules crate's record
    /// format.
    #[arg(long)]
    records: Option<PathBuf>,
    /// Play the levels (or the points) against the frozen reference pool
    /// instead of each other, and anchor the ratings to the pool.
    #[arg(long)]
    pool: bool,
    /// With --pool: the bots that play, comma-separated (random, greedy,
    /// abN for fixed-depth alpha-beta to N plies). Default:
    /// random,greedy,ab2,ab4,ab6,ab9,ab10.
    #[arg(long, requires = "pool")]
    bots: Option<String>,
    /// With --pool: the levels play this side only (`goats` or `tigers`),
    /// each of the --games games from an opening of its own, and the bots
    /// the other. Without it every opening is played twice, sides swapped.
    #[arg(long, requires = "pool", value_parser = parse_side)]
    side: Option<Side>,
    /// Play nothing: fit and report the games recorded in this directory
    /// (by an earlier run with the same players and --records, finished
    /// or stopped).
    #[arg(long)]
    from_records: Option<PathBuf>,
    /// Hide the progress bar.
    #[arg(long)]
    quiet: bool,
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

/// Who plays: a level of the ladder, a point of the levels' path, or a
/// bot of the reference pool.
#[derive(Clone, Copy, PartialEq, PartialOrd, Debug)]
enum Player {
    Level(Level),
    Point(f64),
    Pool(Bot),
}

/// With `--pool`, the pool's anchor: the mean of its alpha-beta bots'
/// two sides (of all its bots when it has none) is this rating.
const POOL_ANCHOR: f64 = 1000.0;

impl Player {
    /// The engine's skill, for levels and points of the path.
    fn skill(self) -> Option<Skill> {
        match self {
            Player::Level(level) => Some(level.skill()),
            Player::Point(strength) => Some(Skill::at(strength)),
            Player::Pool(_) => None,
        }
    }

    /// How long the player thinks, roughly (strongest first in the
    /// schedule).
    fn weight(self) -> f64 {
        match self {
            Player::Pool(Bot::AlphaBeta(depth)) => 2.0 * depth as f64,
            Player::Pool(_) => 0.0,
            player => player.skill().map_or(0.0, |s| s.strength),
        }
    }

    /// The rating the fit anchors on: the label, or 100 Elo per unit of
    /// strength (the path's slope where the labels sit); the pool's
    /// anchor for a bot.
    fn nominal(self) -> f64 {
        match self {
            Player::Level(level) => level.get() as f64,
            Player::Point(strength) => 100.0 * strength,
            Player::Pool(_) => POOL_ANCHOR,
        }
    }

    /// A 16-bit number that tells players apart in the openings' seeds.
    fn key(self) -> u64 {
        match self {
            Player::Level(level) => level.get() as u64,
            // Two's complement keeps negative strengths apart.
            Player::Point(strength) => (strength * 100.0).round() as i64 as u64 & 0xffff,
            Player::Pool(bot) => 0xf000 | bot.id(),
        }
    }

    /// The player's name in a record's file name.
    fn slug(self) -> String {
        match self {
            Player::Level(level) => level.to_string(),
            Player::Point(strength) => format!("s{strength:.2}"),
            Player::Pool(bot) => bot.to_string(),
        }
    }

    /// The player's action in an unfinished `position`.
    fn act(self, engine: &Engine, position: &Position, seed: u64) -> Action {
        let action = match (self, self.skill()) {
            (Player::Pool(bot), _) => bot.act(position, seed),
            (_, Some(skill)) => engine.think_at(position, &skill, seed).map(|t| t.action),
            (_, None) => unreachable!("every player but a bot has a skill"),
        };
        action.expect("an unfinished game has an action")
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Level(level) => level.fmt(f),
            Player::Point(strength) => write!(f, "s = {strength:.2}"),
            Player::Pool(bot) => write!(f, "pool {bot}"),
        }
    }
}

/// One game to play: who holds which side, and the opening.
#[derive(Clone, Copy, Debug)]
struct Fixture {
    goats: Player,
    tigers: Player,
    opening_seed: u64,
}

/// A played game.
#[derive(Clone, Debug)]
struct Played {
    fixture: Fixture,
    /// Its place in the schedule.
    index: usize,
    /// The finished game's record (its actions and result).
    record: Record,
}

impl Played {
    fn outcome(&self) -> Outcome {
        self.record.result.expect("a played game is finished")
    }

    fn winner(&self) -> Option<Side> {
        self.outcome().winner()
    }

    fn plies(&self) -> usize {
        self.record.actions.len()
    }

    /// Goats captured by the end of the placement phase (or by the end of
    /// the game, if it ended before).
    fn placement_losses(&self) -> u8 {
        let start = self
            .record
            .start
            .unwrap_or_else(|| Setup::start(&self.record.rules));
        let Ok(mut position) = Position::from_setup(start, self.record.rules) else {
            return 0;
        };
        for &action in &self.record.actions {
            if position.in_hand() == 0 {
                break;
            }
            position.play_unchecked(action);
        }
        position.eaten()
    }
}

/// Reads `400-2400` or `400,800,1200`: at least `least` levels.
fn parse_levels(text: &str, least: usize) -> anyhow::Result<Vec<Player>> {
    let level = |t: &str| -> anyhow::Result<Level> {
        t.trim()
            .parse()
            .ok()
            .and_then(Level::new)
            .ok_or_else(|| anyhow!("{t:?} is not a level (400, 500, ..., 2400)"))
    };
    let mut levels: Vec<Level> = match text.split_once('-') {
        Some((from, to)) => {
            let (from, to) = (level(from)?, level(to)?);
            Level::all().filter(|l| (from..=to).contains(l)).collect()
        }
        None => text.split(',').map(level).collect::<anyhow::Result<_>>()?,
    };
    levels.sort();
    levels.dedup();
    if levels.len() < least {
        bail!("a tournament needs at least two levels, or one against the pool");
    }
    Ok(levels.into_iter().map(Player::Level).collect())
}

/// Reads `0,2.5,5`: at least `least` points of the levels' path.
fn parse_strengths(text: &str, least: usize) -> anyhow::Result<Vec<Player>> {
    let mut points = text
        .split(',')
        .map(|t| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|s| (-10.0..=30.0).contains(s))
                .ok_or_else(|| anyhow!("{t:?} is not a strength (a number from -10 to 30)"))
        })
        .collect::<anyhow::Result<Vec<f64>>>()?;
    points.sort_by(f64::total_cmp);
    points.dedup();
    if points.len() < least {
        bail!("a tournament needs at least two strengths, or one against the pool");
    }
    Ok(points.into_iter().map(Player::Point).collect())
}

/// The steps between paired levels: 1 (adjacent) and every `--span`
/// above 0, in order, once each.
fn steps(spans: &[usize]) -> Vec<usize> {
    let mut steps: Vec<usize> = spans.iter().copied().filter(|&s| s > 0).collect();
    steps.push(1);
    steps.sort_unstable();
    steps.dedup();
    steps
}

/// Every adjacent pair, plus pairs `span` steps apart.
fn pairs(levels: &[Player], spans: &[usize]) -> Vec<(Player, Player)> {
    let mut pairs = Vec::new();
    for step in steps(spans) {
        for i in 0..levels.len().saturating_sub(step) {
            pairs.push((levels[i], levels[i + step]));
        }
    }
    pairs
}

/// Every player of `players` against every bot of `bots`.
fn pool_pairs(players: &[Player], bots: &[Player]) -> Vec<(Player, Player)> {
    players
        .iter()
        .flat_map(|&p| bots.iter().map(move |&b| (p, b)))
        .collect()
}

/// The games of the schedule, strongest pairs first (they take longest,
/// which balances the threads).
fn schedule(pairs: &[(Player, Player)], games: usize, seed: u64) -> Vec<Fixture> {
    let mut fixtures = Vec::new();
    for &(a, b) in pairs {
        for round in 0..games.div_ceil(2) {
            let opening_seed = seed
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(a.key() << 32 | b.key() << 16 | round as u64);
            fixtures.push(Fixture {
                goats: a,
                tigers: b,
                opening_seed,
            });
            fixtures.push(Fixture {
                goats: b,
                tigers: a,
                opening_seed,
            });
        }
    }
    fixtures.sort_by(|f, g| {
        let strength = |x: &Fixture| x.goats.weight() + x.tigers.weight();
        strength(g).total_cmp(&strength(f))
    });
    fixtures
}

/// The fixtures of `fixtures` in which the player that is not a bot of
/// the pool holds `side`: one of each pair played from an opening.
fn one_side(fixtures: Vec<Fixture>, side: Side) -> Vec<Fixture> {
    fixtures
        .into_iter()
        .filter(|f| {
            let player = match side {
                Side::Goat => f.goats,
                Side::Tiger => f.tigers,
            };
            !matches!(player, Player::Pool(_))
        })
        .collect()
}

/// Reads `goats` or `tigers`.
fn parse_side(text: &str) -> Result<Side, String> {
    match text {
        "goats" => Ok(Side::Goat),
        "tigers" => Ok(Side::Tiger),
        _ => Err(format!("{text:?} is not a side (goats or tigers)")),
    }
}

/// The sound actions of opening positions, scored once per line and
/// shared by every game that opens with it.
struct Book<'a> {
    engine: &'a Engine,
    nodes: u64,
    margin: i32,
    sound: Mutex<HashMap<Vec<Action>, Arc<[Action]>>>,
}

impl<'a> Book<'a> {
    fn new(engine: &'a Engine, nodes: u64, margin: i32) -> Book<'a> {
        Book {
            engine,
            nodes,
            margin,
            sound: Mutex::new(HashMap::new()),
        }
    }

    /// The actions of `position`, reached from the start by `line`, that
    /// the opening search scores within the margin of the best, best
    /// first.
    fn sound(&self, line: &[Action], position: &Position) -> Arc<[Action]> {
        if let Some(known) = self.sound.lock().expect("no worker panicked").get(line) {
            return known.clone();
        }
        // Scored outside the lock: a line that two threads reach at once
        // is scored twice, to the same result.
        let scored = self.engine.score_actions(position, self.nodes);
        let best = scored.first().map_or(0, |s| s.value.score());
        let sound: Arc<[Action]> = scored
            .iter()
            .filter(|s| s.value.score() >= best.saturating_sub(self.margin))
            .map(|s| s.action)
            .collect();
        self.sound
            .lock()
            .expect("no worker panicked")
            .insert(line.to_vec(), sound.clone());
        sound
    }

    /// The opening of `seed`: up to `plies` actions from the start, each
    /// drawn among the sound ones.
    fn opening(&self, seed: u64, plies: u16) -> Vec<Action> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut position = Position::new(Rules::default());
        let mut line = Vec::with_capacity(plies as usize);
        while line.len() < plies as usize && !position.is_finished() {
            let sound = self.sound(&line, &position);
            let action = sound[rng.random_range(0..sound.len())];
            position.play_unchecked(action);
            line.push(action);
        }
        line
    }
}

/// Plays one game: the seeded opening, then the levels.
fn play(engine: &Engine, book: &Book, fixture: Fixture, index: usize, opening: u16) -> Played {
    let mut game = Game::new(Rules::default());
    for action in book.opening(fixture.opening_seed, opening) {
        game.play(action).expect("the book plays legal actions");
    }
    while !game.is_finished() {
        let position = game.position();
        let player = match position.side_to_move() {
            Side::Goat => fixture.goats,
            Side::Tiger => fixture.tigers,
        };
        let seed =
            fixture.opening_seed ^ (position.ply() as u64).wrapping_mul(0xff51_afd7_ed55_8ccd);
        let action = player.act(engine, position, seed);
        game.play(action).expect("the engine plays legal actions");
    }
    Played {
        fixture,
        index,
        record: game.record(),
    }
}

/// The games played as (goats, tigers, the goats' score) by place in
/// `levels`.
fn scores(levels: &[Player], played: &[Played]) -> Vec<(usize, usize, f64)> {
    let index = |l: Player| {
        levels
            .iter()
            .position(|&x| x == l)
            .expect("a playing level")
    };
    played
        .iter()
        .map(|p| {
            let score = match p.winner() {
                Some(Side::Goat) => 1.0,
                Some(Side::Tiger) => 0.0,
                None => 0.5,
            };
            (index(p.fixture.goats), index(p.fixture.tigers), score)
        })
        .collect()
}

/// The fit with one strength per player and a side term.
fn fit(levels: &[Player], played: &[Played]) -> Fit {
    let nominal: Vec<f64> = levels.iter().map(|l| l.nominal()).collect();
    fit::ratings(&nominal, &scores(levels, played))
}

/// The fit with a strength per player and side, anchored to the pool's
/// alpha-beta bots (or the whole pool) when a pool plays, else so that
/// the mean of the players' means is the mean of their labels.
fn fit_sided(players: &[Player], played: &[Played]) -> Sided {
    let searchers: Vec<usize> = (0..players.len())
        .filter(|&k| matches!(players[k], Player::Pool(Bot::AlphaBeta(_))))
        .collect();
    let bots: Vec<usize> = (0..players.len())
        .filter(|&k| matches!(players[k], Player::Pool(_)))
        .collect();
    let anchor = match (searchers.is_empty(), bots.is_empty()) {
        (false, _) => searchers,
        (true, false) => bots,
        (true, true) => (0..players.len()).collect(),
    };
    let value = anchor.iter().map(|&k| players[k].nominal()).sum::<f64>() / anchor.len() as f64;
    fit::sided(players.len(), &scores(players, played), &anchor, value)
}

/// Wins, draws and losses of one level on one side.
#[derive(Clone, Copy, Default)]
struct Tally {
    wins: usize,
    draws: usize,
    losses: usize,
}

impl Tally {
    fn add(&mut self, winner: Option<Side>, side: Side) {
        match winner {
            None => self.draws += 1,
            Some(w) if w == side => self.wins += 1,
            Some(_) => self.losses += 1,
        }
    }

    fn games(&self) -> usize {
        self.wins + self.draws + self.losses
    }

    fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }
}

/// ", and the pairs 2 and 3 steps apart" for `--span 2 --span 3`.
fn spans_text(spans: &[usize]) -> String {
    let words: Vec<String> = steps(spans)
        .into_iter()
        .filter(|&s| s > 1)
        .map(|s| s.to_string())
        .collect();
    match words.as_slice() {
        [] => String::new(),
        [one] => format!(" and the pairs {one} steps apart"),
        [rest @ .., last] => format!(" and the pairs {} and {last} steps apart", rest.join(", ")),
    }
}

/// The Markdown report.
fn report(
    args: &Args,
    tablebase: bool,
    levels: &[Player],
    played: &[Played],
    fit: &Fit,
    seconds: Option<f64>,
) -> String {
    let mut out = String::new();
    let command = command_line();
    let _ = writeln!(out, "# Strength of the levels\n");
    let _ = writeln!(
        out,
        "Measured by self-play under the house rules{}: every adjacent pair of \
         levels{} played {} games each, in twos \
         from the same seeded opening with the sides swapped: {} plies, each \
         drawn at random among the actions that a search of {} nodes scores \
         within {:.2} goats of the best. \
         Ratings are a maximum-likelihood Bradley-Terry (Elo) fit with draws as \
         half points, a term for the side played, and one virtual draw between \
         adjacent levels, anchored so \
         that their mean is the labels' mean; ± is a 95% interval.\n",
        if tablebase {
            ", with the movement-phase tablebase"
        } else {
            ", without a tablebase"
        },
        spans_text(&args.span),
        args.games.div_ceil(2) * 2,
        args.opening,
        args.opening_nodes,
        args.opening_margin as f64 / 1000.0
    );
    let _ = writeln!(out, "```\n{command}\n```\n");
    let draws = played.iter().filter(|p| p.winner().is_none()).count();
    let mean_plies = played.iter().map(|p| p.plies() as f64).sum::<f64>() / played.len() as f64;
    let _ = writeln!(
        out,
        "{} games ({} drawn, {:.0} plies on average) {}. \
         At equal levels the goats' side is worth {:+.0} Elo.\n",
        played.len(),
        draws,
        mean_plies,
        timing(seconds, args.threads),
        fit.goat_edge
    );
    let _ = writeln!(
        out,
        "| level | rating | ± | games | score | as goats (W-D-L) | as tigers (W-D-L) |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|:---:|:---:|");
    for (k, &level) in levels.iter().enumerate() {
        let mut goats = Tally::default();
        let mut tigers = Tally::default();
        for p in played {
            if p.fixture.goats == level {
                goats.add(p.winner(), Side::Goat);
            }
            if p.fixture.tigers == level {
                tigers.add(p.winner(), Side::Tiger);
            }
        }
        let games = goats.games() + tigers.games();
        let score = (goats.points() + tigers.points()) / games.max(1) as f64;
        let _ = writeln!(
            out,
            "| {level} | {:.0} | {:.0} | {games} | {:.0}% | {}-{}-{} | {}-{}-{} |",
            fit.ratings[k],
            fit.errors[k],
            score * 100.0,
            goats.wins,
            goats.draws,
            goats.losses,
            tigers.wins,
            tigers.draws,
            tigers.losses
        );
    }
    let _ = writeln!(out, "\nGaps between adjacent levels (target 100 ± 50):\n");
    let _ = writeln!(out, "| pair | measured gap | ± |");
    let _ = writeln!(out, "|---|---:|---:|");
    for k in 1..levels.len() {
        let _ = writeln!(
            out,
            "| {}–{} | {:.0} | {:.0} |",
            levels[k - 1],
            levels[k],
            fit.ratings[k] - fit.ratings[k - 1],
            fit.gap_errors[k]
        );
    }
    let top = *levels.last().expect("levels");
    let top_losses = played
        .iter()
        .filter(|p| {
            (p.fixture.goats == top && p.winner() == Some(Side::Tiger))
                || (p.fixture.tigers == top && p.winner() == Some(Side::Goat))
        })
        .count();
    let _ = writeln!(out, "\nGames lost by the top level ({top}): {top_losses}.");
    let _ = writeln!(out, "{}", endings(played));
    out
}

/// Each player's wins, draws and losses on each side, and the goats it
/// lost in placement as the goats (a total).
fn tallies(player: Player, played: &[Played]) -> (Tally, Tally, usize) {
    let mut goats = Tally::default();
    let mut tigers = Tally::default();
    let mut lost = 0;
    for p in played {
        if p.fixture.goats == player {
            goats.add(p.winner(), Side::Goat);
            lost += p.placement_losses() as usize;
        }
        if p.fixture.tigers == player {
            tigers.add(p.winner(), Side::Tiger);
        }
    }
    (goats, tigers, lost)
}

/// The report's section on ratings per side.
fn sided_section(players: &[Player], played: &[Played], sided: &Sided, anchor: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## Ratings per side\n\n\
         A strength per player and side, fitted by maximum likelihood (a \
         Bradley-Terry model in which the goats' expected score is \
         1 / (1 + 10^((tigers - goats) / 400)), draws as half points, a weak \
         prior of ± {:.0} on every rating), anchored so that {anchor}; ± is a \
         95% interval relative to the anchor. The mean of the two sides is \
         where a label belongs. \"Placement\" is the goats lost by the end of \
         the placement phase per game as the goats.\n",
        2000.0
    );
    let _ = writeln!(
        out,
        "| player | as goats | ± | as tigers | ± | mean | ± | games | as goats (W-D-L) | as tigers (W-D-L) | placement |"
    );
    let _ = writeln!(
        out,
        "|---|---:|---:|---:|---:|---:|---:|---:|:---:|:---:|---:|"
    );
    for (k, &player) in players.iter().enumerate() {
        let (goats, tigers, lost) = tallies(player, played);
        let placement = if goats.games() == 0 {
            "–".to_string()
        } else {
            format!("{:.2}", lost as f64 / goats.games() as f64)
        };
        let _ = writeln!(
            out,
            "| {player} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {} | {}-{}-{} | {}-{}-{} | {placement} |",
            sided.goats[k],
            sided.goats_errors[k],
            sided.tigers[k],
            sided.tigers_errors[k],
            sided.mean[k],
            sided.mean_errors[k],
            goats.games() + tigers.games(),
            goats.wins,
            goats.draws,
            goats.losses,
            tigers.wins,
            tigers.draws,
            tigers.losses
        );
    }
    let ranked: Vec<usize> = (0..players.len())
        .filter(|&k| !matches!(players[k], Player::Pool(_)))
        .collect();
    if ranked.len() >= 2 {
        let _ = writeln!(
            out,
            "\nGaps between the means of adjacent levels (target 100 ± 50):\n"
        );
        let _ = writeln!(out, "| pair | gap | ± | goats' gap | tigers' gap |");
        let _ = writeln!(out, "|---|---:|---:|---:|---:|");
        for w in ranked.windows(2) {
            let (a, b) = (w[0], w[1]);
            // Adjacent players in the fit's order share the gap's error bar.
            let error = if b == a + 1 {
                format!("{:.0}", sided.gap_errors[b])
            } else {
                "–".to_string()
            };
            let _ = writeln!(
                out,
                "| {}–{} | {:.0} | {error} | {:.0} | {:.0} |",
                players[a],
                players[b],
                sided.mean[b] - sided.mean[a],
                sided.goats[b] - sided.goats[a],
                sided.tigers[b] - sided.tigers[a]
            );
        }
    }
    out
}

/// The endings of the games, by reason.
fn endings(played: &[Played]) -> String {
    let mut reasons: Vec<(Reason, usize)> = Vec::new();
    for p in played {
        let reason = p.outcome().reason();
        match reasons.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => reasons.push((reason, 1)),
        }
    }
    format!(
        "Endings: {}.",
        reasons
            .iter()
            .map(|(r, n)| format!("{} {n}", r.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// "in 120 s on 2 threads", or where the games came from.
fn timing(seconds: Option<f64>, threads: usize) -> String {
    match seconds {
        Some(seconds) => format!("in {seconds:.0} s on {threads} threads"),
        None => "read from the records of an earlier run".to_string(),
    }
}

/// The games recorded in `dir` by a run of `players` (file names as
/// [`write_record`] makes them), in schedule order.
fn read_played(dir: &Path, players: &[Player]) -> anyhow::Result<Vec<Played>> {
    let mut played = Vec::new();
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
        let mut fields = stem.splitn(2, '-');
        let index: usize = fields
            .next()
            .and_then(|i| i.parse().ok())
            .with_context(|| format!("{} is not named NNNN-GOATS-TIGERS.txt", path.display()))?;
        let rest = fields.next().unwrap_or("");
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
        if record.result.is_none() {
            bail!("{} is an unfinished game", path.display());
        }
        played.push(Played {
            fixture: Fixture {
                goats,
                tigers,
                opening_seed: 0,
            },
            index,
            record,
        });
    }
    played.sort_by_key(|p| p.index);
    if played.is_empty() {
        bail!("no records in {}", dir.display());
    }
    Ok(played)
}

/// Plays the fixtures on `--threads` threads, writing each record as its
/// game ends; returns the games in schedule order and the seconds taken.
fn play_all(
    args: &Args,
    engine: &Engine,
    fixtures: &[Fixture],
) -> anyhow::Result<(Vec<Played>, f64)> {
    let progress = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(fixtures.len() as u64)
    };
    progress.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} games, eta {eta} {msg}",
        )
        .context("progress template")?
        .progress_chars("=> "),
    );
    let book = Book::new(engine, args.opening_nodes, args.opening_margin);
    let next = AtomicUsize::new(0);
    let played = Mutex::new(Vec::with_capacity(fixtures.len()));
    if let Some(dir) = &args.records {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    // Records are written as the games end, so that a long run that is
    // stopped keeps the games it played.
    let written = Mutex::new(Ok(()));
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..args.threads.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&fixture) = fixtures.get(i) else {
                    break;
                };
                let result = play(engine, &book, fixture, i, args.opening);
                progress.set_message(format!(
                    "{} vs {}: {}",
                    fixture.goats,
                    fixture.tigers,
                    match result.winner() {
                        Some(side) => side.name(),
                        None => "draw",
                    }
                ));
                progress.inc(1);
                if let Some(dir) = &args.records {
                    let outcome = write_record(dir, &result);
                    let mut first = written.lock().expect("no worker panicked");
                    if first.is_ok() {
                        *first = outcome;
                    }
                }
                played.lock().expect("no worker panicked").push(result);
            });
        }
    });
    progress.finish();
    let seconds = start.elapsed().as_secs_f64();
    let mut played = played.into_inner().expect("no worker panicked");
    played.sort_by_key(|p| p.index);
    written.into_inner().expect("no worker panicked")?;
    Ok((played, seconds))
}

/// The command line as run, from `baghchal` on.
fn command_line() -> String {
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    command
        .rsplit_once("baghchal ")
        .map_or(command.clone(), |(_, rest)| format!("baghchal {rest}"))
}

/// The Markdown report of a tournament against the pool.
fn pool_report(
    args: &Args,
    tablebase: bool,
    players: &[Player],
    played: &[Played],
    sided: &Sided,
    seconds: Option<f64>,
) -> String {
    let mut out = String::new();
    let bots: Vec<String> = players
        .iter()
        .filter_map(|p| match p {
            Player::Pool(bot) => Some(bot.to_string()),
            _ => None,
        })
        .collect();
    let _ = writeln!(out, "# Strength against the reference pool\n");
    let _ = writeln!(
        out,
        "Measured under the house rules{}: every player played every bot of \
         the reference pool ({}) {} games, {}: {} plies, each drawn at random \
         among the actions that a search of {} nodes scores within {:.2} goats \
         of the best.\n",
        if tablebase {
            ", the levels with the movement-phase tablebase"
        } else {
            ", without a tablebase"
        },
        bots.join(", "),
        match args.side {
            Some(_) => args.games,
            None => args.games.div_ceil(2) * 2,
        },
        match args.side {
            Some(Side::Goat) =>
                "the levels as the goats, each game from a seeded opening of its own",
            Some(Side::Tiger) =>
                "the levels as the tigers, each game from a seeded opening of its own",
            None => "in twos from the same seeded opening with the sides swapped",
        },
        args.opening,
        args.opening_nodes,
        args.opening_margin as f64 / 1000.0
    );
    let _ = writeln!(out, "```\n{}\n```\n", command_line());
    let draws = played.iter().filter(|p| p.winner().is_none()).count();
    let _ = writeln!(
        out,
        "{} games ({} drawn) {}. {}",
        played.len(),
        draws,
        timing(seconds, args.threads),
        endings(played)
    );
    out.push_str(&sided_section(
        players,
        played,
        sided,
        &format!("the pool's alpha-beta bots average {POOL_ANCHOR:.0} on the mean of their sides"),
    ));
    out
}

/// The report's section on placing the labels on the path (points of the
/// path only).
fn placement(points: &[Player], fit: &Fit) -> String {
    let strengths: Vec<f64> = points
        .iter()
        .map(|p| p.skill().map_or(0.0, |s| s.strength))
        .collect();
    let labels: Vec<Level> = Level::all().collect();
    let mut out = String::from("\n## Placing the labels\n\n");
    let (curve, placed) = match place(&strengths, fit, labels.len(), 100.0) {
        Ok(placed) => placed,
        Err(e) => {
            let _ = writeln!(out, "The labels could not be placed: {e}.");
            return out;
        }
    };
    let _ = writeln!(
        out,
        "A cubic through these ratings, weighted by their error bars, puts the \
         labels 100 Elo apart with {} at the strongest point played:\n",
        Level::MAX
    );
    let _ = writeln!(out, "| label | strength | nodes | noise | curve |");
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|");
    for (level, &s) in labels.iter().zip(&placed) {
        let skill = Skill::at(s);
        let _ = writeln!(
            out,
            "| {level} | {s:.2} | {} | {} | {:.0} |",
            skill.nodes,
            skill.noise,
            curve.at(s)
        );
    }
    let values: Vec<String> = placed.iter().map(|s| format!("{s:.2}")).collect();
    let _ = writeln!(
        out,
        "\nIn `crates/engine/src/skill.rs`:\n\n```rust\nconst LADDER: [f64; {}] = [{}];\n```",
        placed.len(),
        values.join(", ")
    );
    out
}

/// Writes a game's record to its own file in `dir` (which exists).
fn write_record(dir: &Path, p: &Played) -> anyhow::Result<()> {
    let name = format!(
        "{:04}-{}-{}.txt",
        p.index,
        p.fixture.goats.slug(),
        p.fixture.tigers.slug()
    );
    let path = dir.join(name);
    std::fs::write(&path, p.record.to_string())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Runs `baghchal tournament`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let least = if args.pool { 1 } else { 2 };
    let levels = match &args.strengths {
        Some(points) => parse_strengths(points, least)?,
        None => parse_levels(&args.levels, least)?,
    };
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.place && args.strengths.is_none() {
        bail!("--place needs --strengths: it places the labels on points of the path");
    }
    let bots: Vec<Player> = if args.pool {
        match &args.bots {
            Some(list) => Bot::parse_list(list)?,
            None => pool::DEFAULT.to_vec(),
        }
        .into_iter()
        .map(Player::Pool)
        .collect()
    } else {
        Vec::new()
    };
    let pairs = if args.pool {
        pool_pairs(&levels, &bots)
    } else {
        pairs(&levels, &args.span)
    };
    let players: Vec<Player> = levels.iter().chain(&bots).copied().collect();
    let fixtures = match args.side {
        Some(side) => one_side(schedule(&pairs, args.games * 2, args.seed), side),
        None => schedule(&pairs, args.games, args.seed),
    };
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
    let (played, seconds) = match &args.from_records {
        Some(dir) => (read_played(dir, &players)?, None),
        None => {
            let (played, seconds) = play_all(&args, &engine, &fixtures)?;
            (played, Some(seconds))
        }
    };
    let sided = fit_sided(&players, &played);
    let tablebase = engine.tablebase().is_some();
    let mut text = if args.pool {
        pool_report(&args, tablebase, &players, &played, &sided, seconds)
    } else {
        let fit = fit(&levels, &played);
        let mut text = report(&args, tablebase, &levels, &played, &fit, seconds);
        text.push_str(&sided_section(
            &players,
            &played,
            &sided,
            "the mean of the players' means is the mean of their labels",
        ));
        text
    };
    if args.place {
        // The labels belong on the mean of the two sides.
        let n = levels.len();
        let fit = Fit {
            ratings: sided.mean[..n].to_vec(),
            errors: sided.mean_errors[..n].to_vec(),
            gap_errors: sided.gap_errors[..n].to_vec(),
            goat_edge: 0.0,
        };
        text.push_str(&placement(&levels, &fit));
    }
    print!("{text}");
    if let Some(path) = &args.output {
        std::fs::write(path, &text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(n: u16) -> Player {
        Player::Level(Level::new(n).unwrap())
    }

    fn played(goats: u16, tigers: u16, winner: Option<Side>) -> Played {
        played_by(level(goats), level(tigers), winner)
    }

    fn played_by(goats: Player, tigers: Player, winner: Option<Side>) -> Played {
        Played {
            fixture: Fixture {
                goats,
                tigers,
                opening_seed: 0,
            },
            index: 0,
            record: Record {
                result: Some(match winner {
                    Some(side) => Outcome::win(side, Reason::CaptureTarget),
                    None => Outcome::draw(Reason::PlyLimit),
                }),
                ..Game::new(Rules::default()).record()
            },
        }
    }

    #[test]
    fn the_schedule_plays_every_opening_with_sides_swapped() {
        let levels = parse_levels("400-800", 2).unwrap();
        let pairs = pairs(&levels, &[2]);
        assert_eq!(pairs.len(), 4 + 3);
        let fixtures = schedule(&pairs, 3, 9);
        assert_eq!(fixtures.len(), 7 * 4);
        for f in &fixtures {
            assert!(fixtures.iter().any(|g| g.opening_seed == f.opening_seed
                && g.goats == f.tigers
                && g.tigers == f.goats));
        }
    }

    #[test]
    fn a_stronger_record_fits_a_higher_rating_and_the_mean_is_anchored() {
        let levels = vec![level(400), level(500), level(600)];
        let mut games = Vec::new();
        for _ in 0..5 {
            // The higher level scores 3 of 4 on each side.
            for (low, high) in [(400, 500), (500, 600)] {
                for _ in 0..3 {
                    games.push(played(high, low, Some(Side::Goat)));
                    games.push(played(low, high, Some(Side::Tiger)));
                }
                games.push(played(high, low, Some(Side::Tiger)));
                games.push(played(low, high, Some(Side::Goat)));
            }
        }
        let fit = fit(&levels, &games);
        let mean = fit.ratings.iter().sum::<f64>() / 3.0;
        assert!((mean - 500.0).abs() < 1e-6);
        let gap = fit.ratings[1] - fit.ratings[0];
        // A 75% score is 191 Elo; the virtual draw pulls it in a little.
        assert!((170.0..191.0).contains(&gap), "{gap}");
        assert!((fit.ratings[2] - fit.ratings[1] - gap).abs() < 1.0);
        assert!(fit.errors.iter().all(|&e| e > 0.0 && e < 200.0));
        // Neighbours that played each other are known relative to each
        // other better than either is known alone.
        assert!(fit.gap_errors[1] > 0.0 && fit.gap_errors[1] < fit.errors[0] + fit.errors[1]);
        assert!(fit.goat_edge.abs() < 1.0, "{}", fit.goat_edge);
    }

    #[test]
    fn the_side_term_takes_up_a_side_that_wins_more() {
        let levels = vec![level(400), level(500)];
        let mut games = Vec::new();
        for _ in 0..10 {
            // Equal levels; the tigers win 3 of 4.
            for (g, t) in [(400, 500), (500, 400)] {
                games.push(played(g, t, Some(Side::Tiger)));
                games.push(played(g, t, Some(Side::Tiger)));
                games.push(played(g, t, Some(Side::Tiger)));
                games.push(played(g, t, Some(Side::Goat)));
            }
        }
        let fit = fit(&levels, &games);
        assert!((fit.ratings[0] - fit.ratings[1]).abs() < 1.0);
        assert!((fit.goat_edge + 191.0).abs() < 2.0, "{}", fit.goat_edge);
    }

    #[test]
    fn a_level_that_wins_everything_gets_a_finite_rating() {
        let levels = vec![level(400), level(500)];
        let games: Vec<Played> = (0..6)
            .map(|i| {
                if i % 2 == 0 {
                    played(500, 400, Some(Side::Goat))
                } else {
                    played(400, 500, Some(Side::Tiger))
                }
            })
            .collect();
        let fit = fit(&levels, &games);
        assert!(fit.ratings[1].is_finite() && fit.ratings[1] > fit.ratings[0] + 200.0);
    }

    #[test]
    fn points_of_the_path_play_in_order_and_anchor_at_100_per_unit() {
        let points = parse_strengths("4, 0,2.5", 2).unwrap();
        assert_eq!(
            points,
            vec![Player::Point(0.0), Player::Point(2.5), Player::Point(4.0)]
        );
        assert_eq!(points[1].to_string(), "s = 2.50");
        assert_eq!(points[1].skill(), Some(Skill::at(2.5)));
        assert_eq!(points[2].nominal(), 400.0);
        assert_eq!(parse_strengths("-2,1", 2).unwrap()[0], Player::Point(-2.0));
        for bad in ["1", "1,x", "-11,2", "1,31", "1,NaN"] {
            assert!(parse_strengths(bad, 2).is_err(), "{bad}");
        }
        // Distinct points get distinct openings, below 0 too.
        let fixtures = schedule(&pairs(&points, &[0]), 2, 5);
        assert_ne!(fixtures[0].opening_seed, fixtures[2].opening_seed);
        let below = parse_strengths("-3,-2,-1", 2).unwrap();
        let fixtures = schedule(&pairs(&below, &[0]), 2, 5);
        assert_ne!(fixtures[0].opening_seed, fixtures[2].opening_seed);
    }

    #[test]
    fn the_book_never_opens_by_giving_a_goat_away() {
        // Only the middles of the edges keep the first goat out of reach.
        let engine = Engine::new();
        let book = Book::new(&engine, 2_000_000, 150);
        let mut first: Vec<String> = book
            .sound(&[], &Position::default())
            .iter()
            .map(Action::to_string)
            .collect();
        first.sort();
        assert_eq!(first, ["a3", "c1", "c5", "e3"]);
    }

    #[test]
    fn an_opening_follows_its_seed_and_the_seeds_vary_it() {
        let engine = Engine::new();
        let book = Book::new(&engine, 20_000, 150);
        let lines: Vec<Vec<Action>> = (0..6).map(|seed| book.opening(seed, 4)).collect();
        for (seed, line) in lines.iter().enumerate() {
            assert_eq!(line.len(), 4);
            assert_eq!(*line, book.opening(seed as u64, 4));
            let mut game = Game::new(Rules::default());
            for &action in line {
                game.play(action).unwrap();
            }
            assert_eq!(game.position().eaten(), 0, "{}", game.record());
        }
        let distinct: std::collections::HashSet<&Vec<Action>> = lines.iter().collect();
        assert!(distinct.len() >= 4, "{lines:?}");
    }

    #[test]
    fn the_sided_fit_rates_each_side_and_anchors_on_the_pool() {
        let a = level(400);
        let bot = Player::Pool(Bot::AlphaBeta(2));
        let players = vec![a, bot];
        let mut games = Vec::new();
        for _ in 0..40 {
            // As goats, 400 scores 1 of 2 against the bot's tigers; as
            // tigers, 3 of 4 against its goats.
            let goats = |winner| played_by(a, bot, winner);
            games.push(goats(Some(Side::Goat)));
            games.push(goats(Some(Side::Tiger)));
            for winner in [Side::Tiger, Side::Tiger, Side::Tiger, Side::Goat] {
                games.push(played_by(bot, a, Some(winner)));
            }
        }
        let sided = fit_sided(&players, &games);
        assert!(((sided.goats[1] + sided.tigers[1]) / 2.0 - POOL_ANCHOR).abs() < 1e-6);
        assert!((sided.mean[1] - POOL_ANCHOR).abs() < 1e-6);
        // Equal as goats against the bot's tigers, 191 above as tigers.
        assert!(
            (sided.goats[0] - sided.tigers[1]).abs() < 5.0,
            "{:?}",
            sided.goats
        );
        assert!((sided.tigers[0] - sided.goats[1] - 191.0).abs() < 10.0);
        assert!(sided.mean_errors[0] > 0.0 && sided.mean_errors[0] < 200.0);
        assert_eq!(sided.mean_errors[1], 0.0);
    }

    #[test]
    fn a_pool_tournament_plays_every_player_against_every_bot_on_both_sides() {
        let levels = parse_levels("400,2400", 2).unwrap();
        let bots: Vec<Player> = Bot::parse_list("random,ab9")
            .unwrap()
            .into_iter()
            .map(Player::Pool)
            .collect();
        let fixtures = schedule(&pool_pairs(&levels, &bots), 2, 3);
        assert_eq!(fixtures.len(), 2 * 2 * 2);
        for &l in &levels {
            for &b in &bots {
                assert!(fixtures.iter().any(|f| f.goats == l && f.tigers == b));
                assert!(fixtures.iter().any(|f| f.goats == b && f.tigers == l));
            }
        }
        // The slowest games come first.
        assert_eq!(
            fixtures[0].goats.weight() + fixtures[0].tigers.weight(),
            22.3 + 18.0
        );
    }

    #[test]
    fn one_side_keeps_the_levels_on_that_side_each_from_its_own_opening() {
        let levels = parse_levels("2400", 1).unwrap();
        let bots: Vec<Player> = Bot::parse_list("ab9,ab10")
            .unwrap()
            .into_iter()
            .map(Player::Pool)
            .collect();
        let fixtures = one_side(schedule(&pool_pairs(&levels, &bots), 6, 3), Side::Goat);
        assert_eq!(fixtures.len(), 2 * 3);
        assert!(fixtures.iter().all(|f| f.goats == levels[0]));
        let mut openings: Vec<u64> = fixtures.iter().map(|f| f.opening_seed).collect();
        openings.sort_unstable();
        openings.dedup();
        assert_eq!(openings.len(), 6);
        let tigers = one_side(schedule(&pool_pairs(&levels, &bots), 6, 3), Side::Tiger);
        assert!(tigers.iter().all(|f| f.tigers == levels[0]));
        assert_eq!(parse_side("goats"), Ok(Side::Goat));
        assert!(parse_side("goat").is_err());
    }

    #[test]
    fn placement_losses_count_the_goats_taken_while_goats_were_in_hand() {
        let mut p = played(400, 500, None);
        let mut game = Game::new(Rules::default());
        for text in ["b2", "a1xc3", "a2"] {
            game.play(text.parse().unwrap()).unwrap();
        }
        p.record.actions = game.record().actions;
        assert_eq!(p.placement_losses(), 1);
        p.record.actions.truncate(1);
        assert_eq!(p.placement_losses(), 0);
    }

    #[test]
    fn the_report_names_the_spans_played() {
        assert_eq!(spans_text(&[0]), "");
        assert_eq!(spans_text(&[3]), " and the pairs 3 steps apart");
        assert_eq!(spans_text(&[3, 2, 1]), " and the pairs 2 and 3 steps apart");
    }

    #[test]
    fn levels_read_as_ranges_or_lists() {
        assert_eq!(parse_levels("2200-2400", 2).unwrap().len(), 3);
        assert_eq!(
            parse_levels("800,400", 2).unwrap(),
            vec![level(400), level(800)]
        );
        assert!(parse_levels("400", 2).is_err());
        assert_eq!(parse_levels("400", 1).unwrap(), vec![level(400)]);
        assert!(parse_levels("450-600", 2).is_err());
    }
}
