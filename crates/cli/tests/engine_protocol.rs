//! `baghchal engine` as a process: the line protocol over real pipes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use baghchal_rules::{Action, Position, Rules};

/// A running `baghchal engine` with its pipes.
struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl EngineProcess {
    fn start() -> EngineProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_baghchal"))
            .arg("engine")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        EngineProcess {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the engine reads");
        self.stdin.flush().expect("the engine reads");
    }

    fn read(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("the engine writes");
        line.trim_end().to_owned()
    }

    /// Sends a line and reads the one answer it must produce.
    fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.read()
    }

    /// Quits and checks that the process exits cleanly.
    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().expect("the engine exits");
        assert!(status.success(), "{status}");
    }
}

fn bestmove(answer: &str) -> Action {
    let text = answer
        .strip_prefix("bestmove ")
        .unwrap_or_else(|| panic!("not a bestmove: {answer:?}"));
    text.parse().expect("an action in notation")
}

#[test]
fn the_engine_answers_isready_and_plays_a_legal_action_from_the_start() {
    let mut engine = EngineProcess::start();
    assert_eq!(engine.ask("isready"), "readyok");
    engine.send("level 800");
    engine.send("position startpos");
    let action = bestmove(&engine.ask("go"));
    assert!(Position::default().is_legal(&action));
    engine.quit();
}

#[test]
fn a_position_with_moves_is_played_before_the_engine_chooses() {
    let mut engine = EngineProcess::start();
    engine.send("level 1200");
    engine.send("position startpos moves c3 a1-b2 b4");
    let action = bestmove(&engine.ask("go"));
    let mut position = Position::default();
    for text in ["c3", "a1-b2", "b4"] {
        position.play_mut(text.parse().unwrap()).unwrap();
    }
    assert!(position.is_legal(&action), "{action} in {position}");
    engine.quit();
}

#[test]
fn a_position_text_is_read_and_a_hanging_fifth_goat_is_taken() {
    let mut engine = EngineProcess::start();
    engine.send("level 2000");
    engine.send("position text T...T/...../...../.G.../T...T t 15 4 9");
    assert_eq!(engine.ask("go"), "bestmove a1xc3");
    engine.send("position text T...T/...../...../.G.../T...T t 15 4 9 moves a1xc3");
    assert_eq!(engine.ask("go"), "bestmove none");
    engine.quit();
}

#[test]
fn malformed_lines_get_an_error_and_the_engine_keeps_running() {
    let mut engine = EngineProcess::start();
    for line in [
        "fly",
        "level 2500",
        "level",
        "position sideways",
        "position startpos moves c3 c3",
        "position text T...T/...../...../...../T...T x 20 0 0",
        "go fast",
    ] {
        let answer = engine.ask(line);
        assert!(answer.starts_with("error "), "{line:?} gave {answer:?}");
    }
    assert_eq!(engine.ask("isready"), "readyok");
    // The position is still the start after the failed commands.
    engine.send("level 400");
    let action = bestmove(&engine.ask("go"));
    assert!(Position::new(Rules::default()).is_legal(&action));
    engine.quit();
}

#[test]
fn the_engine_plays_a_whole_game_against_itself_to_a_result() {
    let mut engine = EngineProcess::start();
    engine.send("level 600");
    let mut position = Position::default();
    let mut moves: Vec<String> = Vec::new();
    loop {
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        let answer = engine.ask("go");
        if answer == "bestmove none" {
            break;
        }
        let action = bestmove(&answer);
        position
            .play_mut(action)
            .unwrap_or_else(|e| panic!("{action} is illegal in {position}: {e}"));
        moves.push(action.to_string());
    }
    assert!(
        position.is_finished(),
        "bestmove none before the end: {position}"
    );
    engine.quit();
}

#[test]
fn the_end_of_the_input_ends_the_engine() {
    let mut engine = EngineProcess::start();
    assert_eq!(engine.ask("isready"), "readyok");
    let EngineProcess {
        mut child, stdin, ..
    } = engine;
    drop(stdin);
    assert!(child.wait().expect("the engine exits").success());
}
