//! `baghchal perft`: count action sequences from a position.

use anyhow::{anyhow, Context};
use baghchal_rules::{
    perft, perft_divide, Action, Position, Repetition, Rules, RulesOptions, Side,
};

/// Options of `baghchal perft`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The position text (`BOARD SIDE IN_HAND EATEN PLY`), or `startpos`.
    position: String,
    /// How many actions deep to count.
    #[arg(allow_hyphen_values = true)]
    depth: String,
    /// Actions played from the position first, in notation.
    actions: Vec<String>,
    /// Print the count below each first action too.
    #[arg(long)]
    divide: bool,
    /// Goats the tigers must capture to win (3..7).
    #[arg(long)]
    goats_to_win: Option<u8>,
    /// The tigers move first.
    #[arg(long)]
    tigers_first: bool,
    /// Successive capture jumps in one turn.
    #[arg(long)]
    multi_jump: bool,
    /// The three-tiger game (3 tigers, 16 goats, target 4).
    #[arg(long)]
    three_tigers: bool,
    /// A threefold repetition draws instead of being forbidden.
    #[arg(long)]
    threefold: bool,
    /// Plies after which the game is drawn.
    #[arg(long, default_value_t = 400)]
    ply_limit: u16,
}

impl Args {
    fn rules(&self) -> anyhow::Result<Rules> {
        let opts = RulesOptions {
            goats_to_win: self.goats_to_win,
            first: if self.tigers_first {
                Side::Tiger
            } else {
                Side::Goat
            },
            multi_jump: self.multi_jump,
            three_tigers: self.three_tigers,
            repetition: if self.threefold {
                Repetition::ThreefoldDraw
            } else {
                Repetition::Forbid
            },
            ply_limit: self.ply_limit,
        };
        Rules::new(opts).map_err(|e| anyhow!("invalid rules: {e}"))
    }
}

/// Plays the actions, then prints the perft count as the last line.
pub fn run(args: Args) -> anyhow::Result<()> {
    let rules = args.rules()?;
    let depth: u32 = args
        .depth
        .parse()
        .map_err(|_| anyhow!("invalid depth {:?}: expected a whole number", args.depth))?;
    let mut position = if args.position == "startpos" {
        Position::new(rules)
    } else {
        Position::from_text(&args.position, rules)
            .map_err(|e| anyhow!("invalid position {:?}: {e}", args.position))?
    };
    for text in &args.actions {
        let action: Action = text
            .parse()
            .with_context(|| format!("invalid action {text:?}"))?;
        position = position
            .play(action)
            .map_err(|e| anyhow!("illegal action {text:?} in {}: {e}", e.position))?;
    }
    if args.divide {
        for (action, n) in perft_divide(&position, depth) {
            println!("{action} {n}");
        }
    }
    println!("{}", perft(&position, depth));
    Ok(())
}
