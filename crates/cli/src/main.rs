//! `baghchal`: one binary for the server and the tools around the game.
//! With no subcommand it serves.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod book;
mod engine;
mod logging;
mod perft;
mod puzzles;
mod serve;
mod tablebase;
mod tournament;
mod tune;

/// Bagh-Chal: the table server and its tools.
#[derive(Parser, Debug)]
#[command(
    name = "baghchal",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: serve::Args,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the table server (the default).
    Serve(Box<serve::Args>),
    /// Count action sequences from a position (perft).
    Perft(perft::Args),
    /// Speak the engine line protocol on stdin/stdout.
    Engine(engine::Args),
    /// Build or inspect the movement-phase tablebase.
    Tablebase(tablebase::Args),
    /// Play the levels against each other and fit their ratings.
    Tournament(tournament::Args),
    /// Fit the evaluation's weights to the results of recorded games.
    Tune(tune::Args),
    /// Search the positions right after placement of recorded games under
    /// the house rules, where the tablebase calls them drawn.
    Squeeze(tournament::squeeze::Args),
    /// Play only the placement phase between levels and pool bots and
    /// count the goats lost in it.
    Placement(tournament::placement::Args),
    /// Build the goats' placement book from recorded games by a deep
    /// search of their placement positions.
    Book(book::Args),
    /// Build the puzzle set from the tablebase and recorded games.
    Puzzles(puzzles::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => serve::run(cli.serve),
        Some(Command::Serve(args)) => serve::run(*args),
        Some(Command::Perft(args)) => perft::run(args),
        Some(Command::Engine(args)) => engine::run(args),
        Some(Command::Tablebase(args)) => tablebase::run(args),
        Some(Command::Tournament(args)) => tournament::run(args),
        Some(Command::Tune(args)) => tune::run(args),
        Some(Command::Squeeze(args)) => tournament::squeeze::run(args),
        Some(Command::Placement(args)) => tournament::placement::run(args),
        Some(Command::Book(args)) => book::run(args),
        Some(Command::Puzzles(args)) => puzzles::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
