//! This project's game record ([`Record`]) as a notation: the errors of
//! reading it, with lines and plies.

use super::{check_start, NotationError};
use crate::{Game, ParseRecordError, Position, Record, ReplayError, Setup};

/// Reads and replays a record.
pub(super) fn read(text: &str) -> Result<Game, NotationError> {
    let record: Record = text.parse().map_err(|e| syntax(text, e))?;
    let start = record.start.unwrap_or_else(|| Setup::start(&record.rules));
    let start_ply = u32::from(start.ply);
    let start_line = if record.start.is_some() {
        line_of(text, "start")
    } else {
        line_of(text, "rules")
    };
    if let Ok(position) = Position::from_setup(start, record.rules) {
        check_start(&position, start_line)?;
    }
    record.replay().map_err(|e| match e {
        ReplayError::Start(e) => NotationError::Start {
            line: start_line,
            reason: e.to_string(),
        },
        ReplayError::Action { index, reason } => NotationError::Illegal {
            line: line_of(text, "actions"),
            ply: start_ply + index as u32 + 1,
            action: record.actions[index].to_string(),
            reason: reason.to_string(),
        },
        ReplayError::Result => NotationError::Inconsistent {
            line: line_of(text, "result"),
            ply: start_ply + record.actions.len() as u32,
            reason: "the result does not follow from the actions".into(),
        },
    })
}

/// The line (from 1) that starts with `key`; 1 when none does.
fn line_of(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| l.split_whitespace().next() == Some(key))
        .map_or(1, |n| n + 1)
}

/// A record's parse error with the line it is on.
fn syntax(text: &str, error: ParseRecordError) -> NotationError {
    let line_of = |key: &str| line_of(text, key);
    let (line, reason) = match &error {
        ParseRecordError::Line(n) => (*n, "expected rules, start, actions or result".into()),
        ParseRecordError::Rules(_) => (line_of("rules"), error.to_string()),
        ParseRecordError::Start(_) => (line_of("start"), error.to_string()),
        ParseRecordError::Action { .. } => (line_of("actions"), error.to_string()),
        ParseRecordError::Result => (line_of("result"), error.to_string()),
    };
    NotationError::Syntax { line, reason }
}
