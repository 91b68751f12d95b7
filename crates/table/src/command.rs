//! A player's command as the socket receives it: the client's message
//! read as an [`Intent`], with the client's id for it and the board it
//! names.

use baghchal_protocol::ClientMessage;

use crate::play::{Claim, Intent};

/// A command from a player's socket.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Command {
    /// The client's id for it, echoed in the acknowledgement.
    pub id: Option<String>,
    /// The board the client named, if any.
    pub board: Option<u8>,
    /// What it asks for, or why its action is not one in notation.
    pub intent: Result<Intent, String>,
}

impl Command {
    /// The command a client message carries; `None` for the messages that
    /// are not commands (`hello`, `ping`).
    pub fn of(message: ClientMessage) -> Option<Command> {
        let command = |id, board, intent| Command {
            id,
            board,
            intent: Ok(intent),
        };
        Some(match message {
            ClientMessage::Hello { .. } | ClientMessage::Ping => return None,
            ClientMessage::Action { id, action, board } => Command {
                id: Some(id),
                board,
                intent: action
                    .parse()
                    .map(Intent::Play)
                    .map_err(|e| format!("{action:?} is not an action in notation: {e}")),
            },
            ClientMessage::Resign { id, board } => command(id, board, Intent::Resign),
            ClientMessage::OfferDraw { id, board } => command(id, board, Intent::OfferDraw),
            ClientMessage::AcceptDraw { id, board } => command(id, board, Intent::AcceptDraw),
            ClientMessage::DeclineDraw { id, board } => command(id, board, Intent::DeclineDraw),
            ClientMessage::Rematch { id } => command(id, None, Intent::Rematch),
            ClientMessage::DeclineRematch { id } => command(id, None, Intent::DeclineRematch),
            ClientMessage::Abort { id, board } => command(id, board, Intent::Abort),
            ClientMessage::ClaimVictory { id, board } => {
                command(id, board, Intent::Claim(Claim::Victory))
            }
            ClientMessage::ClaimDraw { id, board } => {
                command(id, board, Intent::Claim(Claim::Draw))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_message_reads_as_its_command() {
        let read = |json: &str| Command::of(ClientMessage::decode(json).unwrap());
        assert_eq!(
            read(r#"{"type":"action","id":"7","action":"c3","board":2}"#),
            Some(Command {
                id: Some("7".into()),
                board: Some(2),
                intent: Ok(Intent::Play("c3".parse().unwrap())),
            })
        );
        assert_eq!(
            read(r#"{"type":"claim_victory"}"#).map(|c| c.intent),
            Some(Ok(Intent::Claim(Claim::Victory)))
        );
        assert!(matches!(
            read(r#"{"type":"action","id":"8","action":"z9"}"#).map(|c| c.intent),
            Some(Err(_))
        ));
        assert_eq!(read(r#"{"type":"ping"}"#), None);
    }
}
