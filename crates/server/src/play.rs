//! The state of a table's games, without I/O: what a player may do, the
//! events that change the state, and the public view of it. The table's
//! actor stores an event before it applies it; start-up replays the stored
//! events through the same code.

use baghchal_protocol as wire;
use baghchal_rules::{Action, Game, IllegalAction, Outcome, Side};

use crate::names::{result_to_wire, side_to_wire};
use crate::options::{Opponent, TableOptions};

/// Which player: the creator or the one who joined (or the computer).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Player {
    /// The creator.
    Host,
    /// The opponent.
    Guest,
}

/// Something that happened at a table: the unit of storage and of the
/// version count.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Event {
    /// `side` played `action`.
    Played {
        /// Who played.
        side: Side,
        /// What.
        action: Action,
    },
    /// `side` resigned.
    Resigned {
        /// Who.
        side: Side,
    },
    /// `side` offered a draw.
    DrawOffered {
        /// Who.
        side: Side,
    },
    /// `side` declined the pending offer.
    DrawDeclined {
        /// Who.
        side: Side,
    },
    /// The offer was accepted.
    DrawAgreed,
    /// `side` (of the finished game) asked for a rematch.
    RematchOffered {
        /// Who.
        side: Side,
    },
    /// A new game, sides swapped.
    RematchStarted,
}

/// An event as a table's log holds it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Logged {
    /// The table's version after it.
    pub version: u64,
    /// What happened.
    pub event: Event,
    /// The player who asked for it, or `None` for the computer's own.
    pub player: Option<Player>,
    /// The client's id for it, if any.
    pub client_id: Option<String>,
}

/// What a player asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Intent {
    /// Play an action.
    Play(Action),
    /// Resign.
    Resign,
    /// Offer a draw.
    OfferDraw,
    /// Accept the pending offer.
    AcceptDraw,
    /// Decline the pending offer.
    DeclineDraw,
    /// Ask for (or agree to) a rematch.
    Rematch,
}

/// Why a player's intent is refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Refusal {
    /// The other side is to move.
    NotYourTurn,
    /// The rules refuse the action.
    Illegal(IllegalAction),
    /// The action is well formed but not legal here (e.g. a repetition
    /// under another rule, or a tiger step onto a goat).
    NotLegal,
    /// The game is over.
    GameOver,
    /// The game is not over.
    GameNotOver,
    /// No draw offers with the computer.
    NoDrawOffers,
    /// Nothing to answer, or the pending offer is one's own.
    NoOffer,
}

impl Refusal {
    /// The wire code and the rules' reason, if any.
    pub fn code(self) -> (wire::ErrorCode, Option<wire::IllegalReason>) {
        use wire::IllegalReason as R;
        let illegal = |reason| (wire::ErrorCode::IllegalAction, Some(reason));
        match self {
            Refusal::NotYourTurn => (wire::ErrorCode::NotYourTurn, None),
            Refusal::Illegal(IllegalAction::GameOver) | Refusal::GameOver => {
                (wire::ErrorCode::GameOver, None)
            }
            Refusal::Illegal(IllegalAction::MustPlace) => illegal(R::MustPlace),
            Refusal::Illegal(IllegalAction::CannotPlace) => illegal(R::CannotPlace),
            Refusal::Illegal(IllegalAction::NotYourPiece) => illegal(R::NotYourPiece),
            Refusal::Illegal(IllegalAction::NotALine) => illegal(R::NotALine),
            Refusal::Illegal(IllegalAction::Occupied) => illegal(R::Occupied),
            Refusal::Illegal(IllegalAction::GoatsCannotJump) => illegal(R::GoatsCannotJump),
            Refusal::Illegal(IllegalAction::NothingToCapture) => illegal(R::NothingToCapture),
            Refusal::Illegal(IllegalAction::ChainNotAllowed) => illegal(R::ChainNotAllowed),
            Refusal::Illegal(IllegalAction::ChainPastTarget) => illegal(R::ChainPastTarget),
            Refusal::Illegal(IllegalAction::Repetition) => illegal(R::Repetition),
            Refusal::NotLegal => illegal(R::NotLegal),
            Refusal::GameNotOver => (wire::ErrorCode::GameNotOver, None),
            Refusal::NoDrawOffers => (wire::ErrorCode::NoDrawOffers, None),
            Refusal::NoOffer => (wire::ErrorCode::NoOffer, None),
        }
    }

    /// A sentence for people.
    pub fn message(self) -> String {
        match self {
            Refusal::NotYourTurn => "it is not your turn".into(),
            Refusal::Illegal(IllegalAction::GameOver) | Refusal::GameOver => {
                "the game is over".into()
            }
            Refusal::Illegal(reason) => reason.to_string(),
            Refusal::NotLegal => "that action is not legal here".into(),
            Refusal::GameNotOver => "the game is not over yet".into(),
            Refusal::NoDrawOffers => "there are no draw offers against the computer".into(),
            Refusal::NoOffer => "there is no offer from your opponent to answer".into(),
        }
    }
}

/// The games of one table, the tally and the pending offers.
#[derive(Clone, Debug)]
pub struct Play {
    options: TableOptions,
    /// Every game so far; the last is the current one.
    games: Vec<Game>,
    /// The host's side in each game.
    host_sides: Vec<Side>,
    tally: wire::Tally,
    draw_offer: Option<Side>,
    rematch_offer: Option<Side>,
    version: u64,
}

impl Play {
    /// A table before its first event.
    pub fn new(options: TableOptions) -> Play {
        Play {
            games: vec![Game::new(options.rules)],
            host_sides: vec![options.host_side],
            options,
            tally: wire::Tally::default(),
            draw_offer: None,
            rematch_offer: None,
            version: 0,
        }
    }

    /// The table's version: the number of events so far.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        self.games.last().expect("a table always has a game")
    }

    /// The current game's number, from 1.
    pub fn game_number(&self) -> u32 {
        u32::try_from(self.games.len()).unwrap_or(u32::MAX)
    }

    /// Game `n` (from 1) and the host's side in it.
    pub fn game_at(&self, n: u32) -> Option<(&Game, Side)> {
        let i = usize::try_from(n.checked_sub(1)?).ok()?;
        Some((self.games.get(i)?, *self.host_sides.get(i)?))
    }

    /// The host's side in the current game.
    pub fn host_side(&self) -> Side {
        *self.host_sides.last().expect("a table always has a game")
    }

    /// The side `player` holds in the current game.
    pub fn side_of(&self, player: Player) -> Side {
        match player {
            Player::Host => self.host_side(),
            Player::Guest => self.host_side().other(),
        }
    }

    /// The player holding `side` in the current game.
    pub fn player_of(&self, side: Side) -> Player {
        if side == self.host_side() {
            Player::Host
        } else {
            Player::Guest
        }
    }

    /// Whether the computer holds `side` in the current game.
    pub fn is_computer(&self, side: Side) -> bool {
        match self.options.opponent {
            Opponent::Friend => false,
            Opponent::Computer => self.player_of(side) == Player::Guest,
            Opponent::Bots => true,
        }
    }

    /// The event `side` (`None` for the computer's own decisions) asks for,
    /// or why not. Changes nothing.
    pub fn decide(&self, side: Side, intent: Intent) -> Result<Event, Refusal> {
        let game = self.game();
        let over = game.is_finished();
        let friend = self.options.opponent == Opponent::Friend;
        match intent {
            Intent::Play(action) => {
                if over {
                    return Err(Refusal::GameOver);
                }
                if game.position().side_to_move() != side {
                    return Err(Refusal::NotYourTurn);
                }
                game.position().check(&action).map_err(Refusal::Illegal)?;
                if !game.position().is_legal(&action) {
                    return Err(Refusal::NotLegal);
                }
                Ok(Event::Played { side, action })
            }
            Intent::Resign => {
                if over {
                    return Err(Refusal::GameOver);
                }
                Ok(Event::Resigned { side })
            }
            Intent::OfferDraw => {
                if !friend {
                    return Err(Refusal::NoDrawOffers);
                }
                if over {
                    return Err(Refusal::GameOver);
                }
                match self.draw_offer {
                    Some(by) if by == side => Err(Refusal::NoOffer),
                    Some(_) => Ok(Event::DrawAgreed),
                    None => Ok(Event::DrawOffered { side }),
                }
            }
            Intent::AcceptDraw | Intent::DeclineDraw => {
                if !friend {
                    return Err(Refusal::NoDrawOffers);
                }
                if over {
                    return Err(Refusal::GameOver);
                }
                match self.draw_offer {
                    Some(by) if by != side => Ok(if intent == Intent::AcceptDraw {
                        Event::DrawAgreed
                    } else {
                        Event::DrawDeclined { side }
                    }),
                    _ => Err(Refusal::NoOffer),
                }
            }
            Intent::Rematch => {
                if !over {
                    return Err(Refusal::GameNotOver);
                }
                if !friend {
                    return Ok(Event::RematchStarted);
                }
                match self.rematch_offer {
                    Some(by) if by == side => Err(Refusal::NoOffer),
                    Some(_) => Ok(Event::RematchStarted),
                    None => Ok(Event::RematchOffered { side }),
                }
            }
        }
    }

    /// Whether the current game is over once `event` is applied.
    pub fn ends_game(&self, event: &Event) -> bool {
        match *event {
            Event::Played { action, .. } => {
                let mut position = self.game().position().clone();
                position.play_mut(action).is_ok() && position.is_finished()
            }
            Event::Resigned { .. } | Event::DrawAgreed => true,
            Event::RematchStarted => false,
            _ => self.game().is_finished(),
        }
    }

    /// Applies `event`, which [`Play::decide`] produced (or the log holds).
    /// An event that does not fit is refused and changes nothing.
    pub fn apply(&mut self, event: Event) -> Result<(), Refusal> {
        let game = self.games.last_mut().expect("a table always has a game");
        match event {
            Event::Played { side, action } => {
                if game.position().side_to_move() != side {
                    return Err(Refusal::NotYourTurn);
                }
                game.play(action).map_err(Refusal::Illegal)?;
                if self.draw_offer.is_some_and(|by| by != side) {
                    // Moving instead of answering declines the offer.
                    self.draw_offer = None;
                }
            }
            Event::Resigned { side } => game.resign(side).map_err(Refusal::Illegal)?,
            Event::DrawAgreed => {
                if self.draw_offer.is_none() {
                    return Err(Refusal::NoOffer);
                }
                game.agree_draw().map_err(Refusal::Illegal)?;
            }
            Event::DrawOffered { side } => {
                if game.is_finished() {
                    return Err(Refusal::GameOver);
                }
                self.draw_offer = Some(side);
            }
            Event::DrawDeclined { .. } => {
                if self.draw_offer.is_none() {
                    return Err(Refusal::NoOffer);
                }
                self.draw_offer = None;
            }
            Event::RematchOffered { side } => {
                if !game.is_finished() {
                    return Err(Refusal::GameNotOver);
                }
                self.rematch_offer = Some(side);
            }
            Event::RematchStarted => {
                if !game.is_finished() {
                    return Err(Refusal::GameNotOver);
                }
                let host_side = self.host_side().other();
                self.games.push(Game::new(self.options.rules));
                self.host_sides.push(host_side);
                self.rematch_offer = None;
                self.draw_offer = None;
            }
        }
        self.version += 1;
        if matches!(
            event,
            Event::Played { .. } | Event::Resigned { .. } | Event::DrawAgreed
        ) {
            if let Some(outcome) = self.game().outcome() {
                self.count(outcome);
                self.draw_offer = None;
            }
        }
        Ok(())
    }

    fn count(&mut self, outcome: Outcome) {
        match outcome.winner() {
            None => self.tally.draws += 1,
            Some(side) => match self.player_of(side) {
                Player::Host => self.tally.host += 1,
                Player::Guest => self.tally.guest += 1,
            },
        }
    }

    /// The public state of the current game.
    pub fn state(&self) -> wire::GameState {
        let game = self.game();
        let position = game.position();
        let rules = position.rules();
        let outcome = game.outcome();
        wire::GameState {
            game: self.game_number(),
            position: position.to_string(),
            side_to_move: side_to_wire(position.side_to_move()),
            phase: crate::names::phase_to_wire(position.phase()),
            in_hand: position.in_hand(),
            eaten: position.eaten(),
            goats_to_win: rules.goats_to_win(),
            trapped_tigers: position.trapped_tigers(),
            tigers: rules.tigers(),
            ply: position.ply(),
            ply_limit: rules.ply_limit(),
            legal: if outcome.is_some() {
                Vec::new()
            } else {
                position
                    .legal_actions()
                    .iter()
                    .map(ToString::to_string)
                    .collect()
            },
            last_action: game.actions().last().map(ToString::to_string),
            result: outcome.map(result_to_wire),
            draw_offer: self.draw_offer.map(side_to_wire),
            rematch_offer: self.rematch_offer.map(side_to_wire),
            host_side: side_to_wire(self.host_side()),
            tally: self.tally,
        }
    }

    /// The current game's actions in notation.
    pub fn moves(&self) -> Vec<String> {
        self.game()
            .actions()
            .iter()
            .map(ToString::to_string)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baghchal_rules::Rules;

    fn friend_table() -> Play {
        Play::new(TableOptions {
            opponent: Opponent::Friend,
            host_side: Side::Goat,
            level: None,
            spectator_seats: 0,
            rules: Rules::default(),
        })
    }

    fn act(play: &mut Play, side: Side, intent: Intent) -> Result<Event, Refusal> {
        let event = play.decide(side, intent)?;
        play.apply(event).unwrap();
        Ok(event)
    }

    #[test]
    fn a_refused_intent_changes_nothing() {
        let play = friend_table();
        let before = play.state();
        assert_eq!(
            play.decide(Side::Tiger, Intent::Play("a1-a2".parse().unwrap())),
            Err(Refusal::NotYourTurn)
        );
        assert_eq!(
            play.decide(Side::Goat, Intent::Play("a1".parse().unwrap())),
            Err(Refusal::Illegal(IllegalAction::Occupied))
        );
        assert_eq!(
            play.decide(Side::Goat, Intent::Rematch),
            Err(Refusal::GameNotOver)
        );
        assert_eq!(
            play.decide(Side::Goat, Intent::AcceptDraw),
            Err(Refusal::NoOffer)
        );
        assert_eq!(play.state(), before);
        assert_eq!(play.version(), 0);
    }

    #[test]
    fn a_draw_offer_is_answered_by_the_other_side_only() {
        let mut play = friend_table();
        act(&mut play, Side::Goat, Intent::OfferDraw).unwrap();
        assert_eq!(
            play.decide(Side::Goat, Intent::AcceptDraw),
            Err(Refusal::NoOffer)
        );
        assert_eq!(
            play.decide(Side::Goat, Intent::OfferDraw),
            Err(Refusal::NoOffer)
        );
        act(&mut play, Side::Tiger, Intent::AcceptDraw).unwrap();
        let state = play.state();
        assert_eq!(state.result.unwrap().reason, wire::EndReason::Agreement);
        assert_eq!(state.tally.draws, 1);
        assert!(state.legal.is_empty());
        assert_eq!(play.version(), 2);
    }

    #[test]
    fn a_rematch_swaps_sides_and_the_tally_follows_the_players() {
        let mut play = friend_table();
        act(&mut play, Side::Tiger, Intent::Resign).unwrap();
        assert_eq!(play.state().tally.host, 1);
        act(&mut play, Side::Tiger, Intent::Rematch).unwrap();
        assert_eq!(play.state().rematch_offer, Some(wire::Side::Tigers));
        assert_eq!(
            act(&mut play, Side::Goat, Intent::Rematch),
            Ok(Event::RematchStarted)
        );
        assert_eq!(play.game_number(), 2);
        assert_eq!(play.host_side(), Side::Tiger);
        // The host, now the tigers, resigns: the guest scores.
        act(&mut play, Side::Tiger, Intent::Resign).unwrap();
        let tally = play.state().tally;
        assert_eq!((tally.host, tally.guest, tally.draws), (1, 1, 0));
    }

    #[test]
    fn the_computer_table_refuses_draws_and_rematches_at_once() {
        let mut play = Play::new(TableOptions {
            opponent: Opponent::Computer,
            ..friend_table().options
        });
        assert_eq!(
            play.decide(Side::Goat, Intent::OfferDraw),
            Err(Refusal::NoDrawOffers)
        );
        act(&mut play, Side::Goat, Intent::Resign).unwrap();
        assert_eq!(
            play.decide(Side::Goat, Intent::Rematch),
            Ok(Event::RematchStarted)
        );
        assert!(play.is_computer(Side::Tiger));
        assert!(!play.is_computer(Side::Goat));
    }

    #[test]
    fn a_move_declines_the_opponents_draw_offer() {
        let mut play = friend_table();
        act(&mut play, Side::Tiger, Intent::OfferDraw).unwrap();
        act(&mut play, Side::Goat, Intent::Play("c3".parse().unwrap())).unwrap();
        assert_eq!(play.state().draw_offer, None);
    }
}
