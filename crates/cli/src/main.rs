//! `baghchal`: one binary for the server and the tools around the game.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod perft;

/// Bagh-Chal: the table server and its tools.
#[derive(Parser, Debug)]
#[command(name = "baghchal", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count action sequences from a position (perft).
    Perft(perft::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Perft(args)) => perft::run(args),
        None => Ok(()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
