//! The engine line protocol (see `docs/engine-protocol.md`): one command
//! a line in, zero or more answer lines out.
//!
//! ```
//! use baghchal_engine::protocol::Session;
//! use baghchal_engine::Engine;
//!
//! let mut session = Session::new(Engine::new());
//! assert_eq!(session.handle("isready"), Some(vec!["readyok".to_owned()]));
//! assert_eq!(session.handle("level 400"), Some(vec![]));
//! assert_eq!(session.handle("position text T...T/...../...../.G.../T...T g 14 5 10"), Some(vec![]));
//! assert_eq!(session.handle("go"), Some(vec!["bestmove none".to_owned()]));
//! assert_eq!(session.handle("eval"), Some(vec!["value over loss".to_owned()]));
//! assert_eq!(session.handle("quit"), None);
//! ```

use std::io::{self, BufRead, Write};

use baghchal_rules::{Action, Position, Rules, Side};

use crate::chance::goats_percent;
use crate::{Engine, Level, Source, Value};

/// One conversation with the engine: the rules, position, level and seed
/// set so far.
pub struct Session {
    engine: Engine,
    rules: Rules,
    position: Position,
    /// The positions before `position` since its start, oldest first:
    /// what its repetition record was made of.
    history: Vec<Position>,
    level: Level,
    seed: u64,
}

/// Search nodes of an `eval`: as many as a review spends on a position.
const EVAL_NODES: u64 = 20_000;

impl Session {
    /// A session at the start of the house rules, at the top level, seed 0.
    pub fn new(engine: Engine) -> Session {
        Session {
            engine,
            rules: Rules::default(),
            position: Position::default(),
            history: Vec::new(),
            level: Level::MAX,
            seed: 0,
        }
    }

    /// Answers one line: the lines to write back, or `None` for `quit`.
    /// A malformed command answers `error <reason>` and changes nothing.
    pub fn handle(&mut self, line: &str) -> Option<Vec<String>> {
        let line = line.trim();
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        let answer = match command {
            "" => Ok(vec![]),
            "quit" => return None,
            "isready" => Ok(vec!["readyok".to_owned()]),
            "level" => self.level(rest),
            "seed" => self.seed(rest),
            "rules" => self.rules(rest),
            "position" => self.position(rest),
            "go" if rest.is_empty() => Ok(vec![self.go()]),
            "go" => Err("go takes no arguments".to_owned()),
            "eval" if rest.is_empty() => Ok(vec![self.eval()]),
            "eval" => Err("eval takes no arguments".to_owned()),
            other => Err(format!("unknown command {other:?}")),
        };
        Some(answer.unwrap_or_else(|reason| vec![format!("error {reason}")]))
    }

    fn level(&mut self, rest: &str) -> Result<Vec<String>, String> {
        self.level = rest
            .parse()
            .ok()
            .and_then(Level::new)
            .ok_or_else(|| format!("level {rest:?} is not one of 400, 500, ..., 2400"))?;
        Ok(vec![])
    }

    fn seed(&mut self, rest: &str) -> Result<Vec<String>, String> {
        self.seed = rest
            .parse()
            .map_err(|_| format!("seed {rest:?} is not a whole number"))?;
        Ok(vec![])
    }

    fn rules(&mut self, rest: &str) -> Result<Vec<String>, String> {
        self.rules = rest
            .parse()
            .map_err(|e| format!("invalid rules {rest:?}: {e}"))?;
        self.position = Position::new(self.rules);
        self.history.clear();
        Ok(vec![])
    }

    fn position(&mut self, rest: &str) -> Result<Vec<String>, String> {
        let words: Vec<&str> = rest.split_whitespace().collect();
        let (mut position, tail) = match words.first() {
            Some(&"startpos") => (Position::new(self.rules), &words[1..]),
            Some(&"text") => {
                if words.len() < 6 {
                    return Err("position text needs BOARD SIDE IN_HAND EATEN PLY".to_owned());
                }
                let text = words[1..6].join(" ");
                let position = Position::from_text(&text, self.rules)
                    .map_err(|e| format!("invalid position {text:?}: {e}"))?;
                (position, &words[6..])
            }
            _ => return Err("position needs startpos or text".to_owned()),
        };
        let actions = match tail.split_first() {
            None => &[][..],
            Some((&"moves", actions)) => actions,
            Some((word, _)) => return Err(format!("expected moves, found {word:?}")),
        };
        let mut history = Vec::with_capacity(actions.len());
        for text in actions {
            let action: Action = text
                .parse()
                .map_err(|e| format!("invalid action {text:?}: {e}"))?;
            let before = position.clone();
            position
                .play_mut(action)
                .map_err(|e| format!("illegal action {text:?}: {e}"))?;
            history.push(before);
        }
        self.position = position;
        self.history = history;
        Ok(vec![])
    }

    /// `value KIND ...`: what the position is worth to the side to move
    /// (see `docs/engine-protocol.md`).
    fn eval(&self) -> String {
        let judged = self.engine.judge(&self.position, &self.history, EVAL_NODES);
        let (result, plies) = match judged.value {
            Value::Win { plies } => ("win", plies),
            Value::Loss { plies } => ("loss", plies),
            Value::Draw => ("draw", 0),
            Value::Score(score) => {
                let goats = match self.position.side_to_move() {
                    Side::Goat => score,
                    Side::Tiger => -score,
                };
                return format!(
                    "value estimate goats {} score {score}",
                    goats_percent(goats)
                );
            }
        };
        let kind = match judged.source {
            Source::Rules => return format!("value over {result}"),
            Source::Solved => "solved",
            Source::Proved => "proved",
            Source::Search => "estimate",
        };
        if judged.value == Value::Draw {
            return format!("value {kind} draw");
        }
        match judged.solved {
            Some(Value::Win { plies: solved }) => {
                format!("value {kind} {result} {plies} solved win {solved}")
            }
            Some(Value::Loss { plies: solved }) => {
                format!("value {kind} {result} {plies} solved loss {solved}")
            }
            Some(Value::Draw) => format!("value {kind} {result} {plies} solved draw"),
            Some(Value::Score(_)) | None => format!("value {kind} {result} {plies}"),
        }
    }

    fn go(&self) -> String {
        let seed = self.seed ^ (self.position.ply() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        match self.engine.choose(&self.position, self.level, seed) {
            Some(action) => format!("bestmove {action}"),
            None => "bestmove none".to_owned(),
        }
    }
}

/// Runs a session over `input` and `output` until `quit` or the end of
/// the input, flushing after every answer.
pub fn run(engine: Engine, input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut session = Session::new(engine);
    for line in input.lines() {
        let Some(answer) = session.handle(&line?) else {
            break;
        };
        for text in answer {
            writeln!(output, "{text}")?;
        }
        output.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(session: &mut Session, line: &str) -> Vec<String> {
        session.handle(line).expect("not quit")
    }

    #[test]
    fn malformed_lines_get_an_error_and_change_nothing() {
        let mut s = Session::new(Engine::new());
        answer(&mut s, "position startpos moves c3");
        for line in [
            "hello",
            "level 450",
            "level x",
            "position",
            "position startpos moves z9",
            "position startpos moves a1-a2",
            "position text T...T/...../..... g 20 0 0",
            "position startpos c3",
            "rules four-tigers",
            "go now",
            "seed -1",
        ] {
            let out = answer(&mut s, line);
            assert_eq!(out.len(), 1, "{line}");
            assert!(out[0].starts_with("error "), "{line}: {out:?}");
        }
        assert_eq!(
            s.position.to_string(),
            "T...T/...../..G../...../T...T t 19 0 1"
        );
        assert_eq!(s.level, Level::MAX);
    }

    #[test]
    fn eval_names_the_kind_of_each_value() {
        let mut s = Session::new(Engine::new());
        answer(
            &mut s,
            "position text T...T/GGGGG/GG.GG/GGGGG/TG.GT t 0 4 100",
        );
        assert_eq!(answer(&mut s, "eval"), vec!["value proved win 1"]);
        answer(&mut s, "position startpos moves c3 a1-b2");
        let out = answer(&mut s, "eval");
        let words: Vec<&str> = out[0].split(' ').collect();
        assert_eq!(words[..3], ["value", "estimate", "goats"], "{out:?}");
        let percent: u8 = words[3].parse().unwrap();
        assert!(percent <= 100);
        assert_eq!(words[4], "score");
        assert!(words[5].parse::<i32>().is_ok());
        assert_eq!(
            answer(&mut s, "eval now")[0],
            "error eval takes no arguments"
        );
    }

    #[test]
    fn a_variant_applies_to_the_next_positions() {
        let mut s = Session::new(Engine::new());
        assert!(answer(&mut s, "rules three-tigers").is_empty());
        answer(&mut s, "position startpos");
        assert_eq!(s.position.in_hand(), 16);
        answer(&mut s, "level 600");
        let out = answer(&mut s, "go");
        let action: Action = out[0]["bestmove ".len()..].parse().unwrap();
        assert!(s.position.is_legal(&action));
    }
}
