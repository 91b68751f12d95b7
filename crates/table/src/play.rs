//! The state of a table's games, without I/O: what a player may do, the
//! events that change the state, and the public view of it. The table's
//! actor stores an event with its timestamp before it applies it; start-up
//! replays the stored events through the same code, so that the clocks and
//! the offer limits come out the same.

use std::time::Duration;

use baghchal_protocol as wire;
use baghchal_rules::{Action, Game, IllegalAction, Outcome, Reason, Side};
use serde::{Deserialize, Serialize};

use crate::clock::Clocks;
use crate::names::{action_name, result_to_wire, side_to_wire};
use crate::options::{Format, Opponent, TableOptions};
use crate::seat::Player;
use crate::series::Standing;
use crate::time::Timestamp;

/// Draw offers, and rematch requests, a player may make in one game.
pub const OFFERS_PER_GAME: u8 = 3;
/// The least time between two offers of one kind by one player.
pub const OFFER_SPACING: Duration = Duration::from_secs(10);
/// Finished games a table keeps in memory besides the current one (and,
/// at a series table, the counted games of the current series, at most
/// six): older ones are read from their stored rows.
pub const KEPT_GAMES: usize = 8;
/// Games a table between people (or against the computer) plays at most:
/// a rematch after the last is refused, and a table's load, which replays
/// its events, stays bounded. A bots table plays on while it is watched.
pub const MAX_GAMES: u32 = 1000;

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
    /// `side`'s time ran out.
    Flagged {
        /// Whose.
        side: Side,
    },
    /// `side`'s player claimed the game of an absent opponent.
    Claimed {
        /// Who claimed.
        side: Side,
        /// What.
        claim: Claim,
    },
    /// `side` aborted the game before each side had played.
    Aborted {
        /// Who.
        side: Side,
    },
    /// `side` declined the pending rematch request.
    RematchDeclined {
        /// Who.
        side: Side,
    },
    /// `side`'s rematch request lapsed: its player left.
    RematchWithdrawn {
        /// Whose request.
        side: Side,
    },
    /// `side`'s draw offer lapsed: its player left.
    DrawWithdrawn {
        /// Whose offer.
        side: Side,
    },
    /// The game had no event for long with `side` to move: `side` left
    /// it and loses (see [`crate::abandon`]).
    Abandoned {
        /// Who left it on their turn.
        side: Side,
    },
    /// The server stopped with `side`'s clock running: it stops too (see
    /// [`crate::restart`]).
    ClockPaused {
        /// Whose clock.
        side: Side,
    },
    /// The server is back: `side`'s paused clock runs again, charged only
    /// what of the downtime passes [`crate::clock::RESTART_CREDIT`].
    ClockResumed {
        /// Whose clock.
        side: Side,
    },
}

/// What the present player claims against an absent one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Claim {
    /// The win.
    Victory,
    /// A draw.
    Draw,
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
    /// When the table accepted it: the clocks are computed from these.
    pub at: Timestamp,
    /// The board it happened on: 1, or 2 at a two-board table.
    pub board: u8,
}

/// What a player asks for. It crosses between the nodes of a cluster as
/// JSON: its name in snake case, and an action in notation
/// (`{"play":"c3"}`, `"resign"`, `"claim_victory"`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(into = "IntentForm", try_from = "IntentForm")]
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
    /// Decline the opponent's rematch request.
    DeclineRematch,
    /// Abort the game before each side has played.
    Abort,
    /// Claim the game of an absent opponent.
    Claim(Claim),
}

/// An [`Intent`] as it is written between nodes.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum IntentForm {
    Play(String),
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Rematch,
    DeclineRematch,
    Abort,
    ClaimVictory,
    ClaimDraw,
}

impl From<Intent> for IntentForm {
    fn from(intent: Intent) -> IntentForm {
        match intent {
            Intent::Play(action) => IntentForm::Play(action.to_string()),
            Intent::Resign => IntentForm::Resign,
            Intent::OfferDraw => IntentForm::OfferDraw,
            Intent::AcceptDraw => IntentForm::AcceptDraw,
            Intent::DeclineDraw => IntentForm::DeclineDraw,
            Intent::Rematch => IntentForm::Rematch,
            Intent::DeclineRematch => IntentForm::DeclineRematch,
            Intent::Abort => IntentForm::Abort,
            Intent::Claim(Claim::Victory) => IntentForm::ClaimVictory,
            Intent::Claim(Claim::Draw) => IntentForm::ClaimDraw,
        }
    }
}

impl TryFrom<IntentForm> for Intent {
    type Error = String;

    fn try_from(form: IntentForm) -> Result<Intent, String> {
        Ok(match form {
            IntentForm::Play(action) => Intent::Play(
                action
                    .parse()
                    .map_err(|e| format!("{action:?} is not an action in notation: {e}"))?,
            ),
            IntentForm::Resign => Intent::Resign,
            IntentForm::OfferDraw => Intent::OfferDraw,
            IntentForm::AcceptDraw => Intent::AcceptDraw,
            IntentForm::DeclineDraw => Intent::DeclineDraw,
            IntentForm::Rematch => Intent::Rematch,
            IntentForm::DeclineRematch => Intent::DeclineRematch,
            IntentForm::Abort => Intent::Abort,
            IntentForm::ClaimVictory => Intent::Claim(Claim::Victory),
            IntentForm::ClaimDraw => Intent::Claim(Claim::Draw),
        })
    }
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
    /// Each side has played, or the game is over: no abort.
    NotAbortable,
    /// Nobody may claim: a computer table, a game still abortable, or an
    /// opponent who is not away long enough.
    NotClaimable,
    /// Too many offers of this kind in this game, or too soon after the
    /// last.
    TooManyOffers,
    /// The table has played its [`MAX_GAMES`] games: no rematch.
    LastGame,
}

impl Refusal {
    /// The wire code and the rules' reason, if any.
    pub fn code(self) -> (wire::ErrorCode, Option<wire::IllegalReason>) {
        use wire::IllegalReason as R;
        let illegal = |reason| (wire::ErrorCode::IllegalAction, Some(reason));
        match self {
            Refusal::NotYourTurn => (wire::ErrorCode::NotYourTurn, None),
            Refusal::Illegal(IllegalAction::GameOver) | Refusal::GameOver | Refusal::LastGame => {
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
            Refusal::NotAbortable => (wire::ErrorCode::NotAbortable, None),
            Refusal::NotClaimable => (wire::ErrorCode::NotClaimable, None),
            Refusal::TooManyOffers => (wire::ErrorCode::TooManyOffers, None),
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
            Refusal::NotAbortable => {
                "each side has played: the game can no longer be aborted".into()
            }
            Refusal::NotClaimable => {
                "there is nothing to claim: your opponent is here, or may still come back".into()
            }
            Refusal::TooManyOffers => format!(
                "at most {OFFERS_PER_GAME} offers a game, one every {} seconds",
                OFFER_SPACING.as_secs()
            ),
            Refusal::LastGame => {
                format!("this table has played its {MAX_GAMES} games: start a new table")
            }
        }
    }
}

/// The offers one side made in the current game, for the limits.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct Offers {
    /// How many, of each kind: draw, rematch.
    made: [u8; 2],
    /// When the last of each kind was made.
    last: [Option<Timestamp>; 2],
}

/// A kind of offer, for the limits.
#[derive(Clone, Copy)]
enum OfferKind {
    Draw = 0,
    Rematch = 1,
}

/// The games of one table, the tally and the pending offers.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Play {
    options: TableOptions,
    /// The games kept in memory (see [`KEPT_GAMES`]); the last is the
    /// current one.
    games: Vec<Game>,
    /// The legal actions in the current game's position (none once the
    /// position is over), listed once for each position: an action is
    /// decided and applied by looking it up here, and the state sent after
    /// it lists them.
    legal: Vec<Action>,
    /// The host's side in each game kept.
    host_sides: Vec<Side>,
    /// The number (from 1) of each game kept.
    numbers: Vec<u32>,
    tally: wire::Tally,
    draw_offer: Option<Side>,
    rematch_offer: Option<Side>,
    /// The current game's clocks, at a table with a time control.
    clocks: Option<Clocks>,
    /// Offers made in the current game: goats, tigers.
    offers: [Offers; 2],
    /// At a series table: the index in `games` of the current series'
    /// first game.
    series_start: usize,
    /// At a series table: which series the current one is, from 1.
    series_number: u32,
    version: u64,
    /// When the current game started: the time of its first event (the
    /// table's first, or the rematch that started it).
    started: Option<Timestamp>,
    /// When the current game's last action was played.
    last_action_at: Option<Timestamp>,
}

/// A game that has just ended: what the table stores as its row of
/// `games`, with the table's own facts added.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GameEnded {
    /// The game's number at its table, from 1.
    pub game: u32,
    /// The host's side in it.
    pub host_side: Side,
    /// How it ended.
    pub outcome: Outcome,
    /// Half moves played.
    pub plies: u16,
    /// When it started (see [`Play`]'s `started`).
    pub started: Timestamp,
    /// When the event that ended it was accepted.
    pub ended: Timestamp,
    /// The game in the rules' record format.
    pub record: baghchal_rules::Record,
    /// The side that aborted it (by its word, or by never moving), for an
    /// aborted game.
    pub aborted_by: Option<Side>,
}

fn index(side: Side) -> usize {
    match side {
        Side::Goat => 0,
        Side::Tiger => 1,
    }
}

impl Play {
    /// A table before its first event.
    pub fn new(options: TableOptions) -> Play {
        let game = Game::new(options.rules);
        Play {
            legal: game.position().legal_actions(),
            games: vec![game],
            host_sides: vec![options.host_side],
            numbers: vec![1],
            options,
            tally: wire::Tally::default(),
            draw_offer: None,
            rematch_offer: None,
            clocks: options.clock.map(Clocks::new),
            offers: [Offers::default(); 2],
            series_start: 0,
            series_number: 1,
            version: 0,
            started: None,
            last_action_at: None,
        }
    }

    /// The current series' standing and the current game's place in it
    /// (from 1), at a series table. A game counts once it is over, unless
    /// it was aborted.
    pub fn series(&self) -> Option<(Standing, u8)> {
        let Format::Series(games) = self.options.format else {
            return None;
        };
        let mut standing = Standing::new(games);
        let mut place = 1u8;
        let current = self.games.len() - 1;
        for (i, game) in self.games.iter().enumerate().skip(self.series_start) {
            let Some(outcome) = game.outcome() else {
                continue;
            };
            if outcome.reason() == Reason::Aborted {
                continue;
            }
            standing.count(outcome.winner().map(|side| self.player_in(i, side)));
            if i < current {
                place = place.saturating_add(1);
            }
        }
        Some((standing, place.min(games)))
    }

    /// Whether a series is under way and not yet decided: the next game
    /// starts on either player's word, with no offer to answer.
    fn series_goes_on(&self) -> bool {
        self.series()
            .is_some_and(|(standing, _)| !standing.is_decided())
    }

    /// The player who held `side` in game index `i`.
    fn player_in(&self, i: usize, side: Side) -> Player {
        if self.host_sides.get(i) == Some(&side) {
            Player::Host
        } else {
            Player::Guest
        }
    }

    /// What the table was created with.
    pub fn options(&self) -> &TableOptions {
        &self.options
    }

    /// The current game's clocks, at a table with a time control.
    pub fn clocks(&self) -> Option<&Clocks> {
        self.clocks.as_ref()
    }

    /// Whether the current game may be aborted: it goes on and each side
    /// has yet to make its first action.
    pub fn abortable(&self) -> bool {
        let game = self.game();
        !game.is_finished() && game.before_both_moved()
    }

    /// When the side to move loses the game to the first-move timer, if it
    /// has yet to make its first action: `grace` after the game started
    /// (the goats) or after the other side's first action (the tigers). A
    /// game with no event yet started at `opened`.
    pub fn first_move_due(&self, grace: Duration, opened: Timestamp) -> Option<(Side, Timestamp)> {
        if !self.abortable() {
            return None;
        }
        let position = self.game().position();
        let since = match position.ply() {
            0 => self.started.unwrap_or(opened),
            _ => self.last_action_at?,
        };
        Some((position.side_to_move(), since.after(grace)))
    }

    /// Whether the table is between two people.
    pub fn is_friend_table(&self) -> bool {
        self.options.opponent == Opponent::Friend
    }

    /// The events that let `side`'s pending offers lapse (a draw offer
    /// in the game, a rematch request after it): its player left.
    pub fn withdraw_offers(&self, side: Side) -> impl Iterator<Item = Event> {
        let draw = (self.draw_offer == Some(side)).then_some(Event::DrawWithdrawn { side });
        let rematch =
            (self.rematch_offer == Some(side)).then_some(Event::RematchWithdrawn { side });
        draw.into_iter().chain(rematch)
    }

    /// Refuses a new offer of `kind` by `side` at `now` beyond the limits.
    fn check_offer(&self, side: Side, kind: OfferKind, now: Timestamp) -> Result<(), Refusal> {
        let offers = &self.offers[index(side)];
        let k = kind as usize;
        let too_soon = offers.last[k].is_some_and(|last| now.since(last) < OFFER_SPACING);
        if offers.made[k] >= OFFERS_PER_GAME || too_soon {
            return Err(Refusal::TooManyOffers);
        }
        Ok(())
    }

    fn count_offer(&mut self, side: Side, kind: OfferKind, at: Timestamp) {
        let offers = &mut self.offers[index(side)];
        let k = kind as usize;
        offers.made[k] = offers.made[k].saturating_add(1);
        offers.last[k] = Some(at);
    }

    /// Games won and drawn so far.
    pub fn tally(&self) -> wire::Tally {
        self.tally
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
        *self.numbers.last().expect("a table always has a game")
    }

    /// Game `n` (from 1) and the host's side in it, if it is kept in
    /// memory (see [`KEPT_GAMES`]).
    pub fn game_at(&self, n: u32) -> Option<(&Game, Side)> {
        let i = self.numbers.iter().rposition(|&kept| kept == n)?;
        Some((self.games.get(i)?, *self.host_sides.get(i)?))
    }

    /// How many games are kept in memory, the current one included.
    pub fn games_in_memory(&self) -> usize {
        self.games.len()
    }

    /// Forgets the oldest finished games beyond [`KEPT_GAMES`], but for
    /// the counted games of the current series, which its standing needs
    /// (an aborted game counts for nothing and does not move the place).
    fn forget_old_games(&mut self) {
        let series = matches!(self.options.format, Format::Series(_));
        while self.games.len() > KEPT_GAMES + 1 {
            let current = self.games.len() - 1;
            let Some(i) = (0..current).find(|&i| {
                !series
                    || i < self.series_start
                    || self.games[i]
                        .outcome()
                        .is_some_and(|o| o.reason() == Reason::Aborted)
            }) else {
                break;
            };
            self.games.remove(i);
            self.host_sides.remove(i);
            self.numbers.remove(i);
            if i < self.series_start {
                self.series_start -= 1;
            }
        }
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

    /// The event `side` asks for at `now`, or why not. Changes nothing.
    /// A claim is refused here only for what the game says (a computer
    /// table, a game over or still abortable); whether the opponent is
    /// away long enough is the table's to check.
    pub fn decide(&self, side: Side, intent: Intent, now: Timestamp) -> Result<Event, Refusal> {
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
                self.check_legal(action)?;
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
                    None => {
                        self.check_offer(side, OfferKind::Draw, now)?;
                        Ok(Event::DrawOffered { side })
                    }
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
                if self.game_number() >= MAX_GAMES {
                    return Err(Refusal::LastGame);
                }
                if !friend || self.series_goes_on() {
                    return Ok(Event::RematchStarted);
                }
                match self.rematch_offer {
                    Some(by) if by == side => Err(Refusal::NoOffer),
                    Some(_) => Ok(Event::RematchStarted),
                    None => {
                        self.check_offer(side, OfferKind::Rematch, now)?;
                        Ok(Event::RematchOffered { side })
                    }
                }
            }
            Intent::DeclineRematch => {
                if !over {
                    return Err(Refusal::GameNotOver);
                }
                match self.rematch_offer {
                    Some(by) if by != side => Ok(Event::RematchDeclined { side }),
                    _ => Err(Refusal::NoOffer),
                }
            }
            Intent::Abort => {
                if !self.abortable() {
                    return Err(Refusal::NotAbortable);
                }
                Ok(Event::Aborted { side })
            }
            Intent::Claim(claim) => {
                if over {
                    return Err(Refusal::GameOver);
                }
                if !friend || self.abortable() {
                    return Err(Refusal::NotClaimable);
                }
                Ok(Event::Claimed { side, claim })
            }
        }
    }

    /// Refuses `action` unless it is one of the current position's legal
    /// actions; the rules then say why.
    fn check_legal(&self, action: Action) -> Result<(), Refusal> {
        if self.legal.contains(&action) {
            return Ok(());
        }
        Err(match self.game().position().check(&action) {
            Err(reason) => Refusal::Illegal(reason),
            Ok(()) => Refusal::NotLegal,
        })
    }

    /// Whether the current game is over once `event` is applied.
    pub fn ends_game(&self, event: &Event) -> bool {
        match *event {
            Event::Played { action, .. } => {
                if self.game().is_finished() || !self.legal.contains(&action) {
                    return false;
                }
                let mut position = self.game().position().clone();
                position.play_unchecked(action);
                position.is_finished()
            }
            Event::Resigned { .. }
            | Event::DrawAgreed
            | Event::Flagged { .. }
            | Event::Claimed { .. }
            | Event::Abandoned { .. }
            | Event::Aborted { .. } => true,
            Event::RematchStarted => false,
            _ => self.game().is_finished(),
        }
    }

    /// Applies `event`, accepted at `at`, which [`Play::decide`] produced
    /// (or the log holds). An event that does not fit is refused and
    /// changes nothing.
    ///
    /// Returns the game the event ended, if it ended one.
    pub fn apply(&mut self, event: Event, at: Timestamp) -> Result<Option<GameEnded>, Refusal> {
        let started = self.started.unwrap_or(at);
        if let Event::Played { side, action } = event {
            if self.game().position().side_to_move() != side {
                return Err(Refusal::NotYourTurn);
            }
            if self.game().is_finished() {
                return Err(Refusal::Illegal(IllegalAction::GameOver));
            }
            self.check_legal(action)?;
        }
        let game = self.games.last_mut().expect("a table always has a game");
        let was_over = game.is_finished();
        match event {
            Event::Played { side, action } => {
                // Its side and its legality are checked above.
                game.play_unchecked(action);
                if self.draw_offer.is_some_and(|by| by != side) {
                    // Moving instead of answering declines the offer.
                    self.draw_offer = None;
                }
                let next = (!game.is_finished() && !game.before_both_moved())
                    .then(|| game.position().side_to_move());
                if let Some(clocks) = &mut self.clocks {
                    clocks.acted(side, at, next);
                }
                self.last_action_at = Some(at);
            }
            Event::Resigned { side } => game.resign(side).map_err(Refusal::Illegal)?,
            Event::DrawAgreed => {
                if self.draw_offer.is_none() {
                    return Err(Refusal::NoOffer);
                }
                game.agree_draw().map_err(Refusal::Illegal)?;
            }
            Event::Flagged { side } => {
                if self
                    .clocks
                    .and_then(|c| c.running())
                    .is_none_or(|(running, _)| running != side)
                {
                    return Err(Refusal::NotYourTurn);
                }
                game.time_out(side).map_err(Refusal::Illegal)?;
                if let Some(clocks) = &mut self.clocks {
                    clocks.flag(side);
                }
            }
            Event::Claimed { side, claim } => {
                if game.before_both_moved() {
                    return Err(Refusal::NotClaimable);
                }
                game.claim(side, claim == Claim::Victory)
                    .map_err(Refusal::Illegal)?;
            }
            Event::Abandoned { side } => {
                if game.before_both_moved() || game.position().side_to_move() != side {
                    return Err(Refusal::NotClaimable);
                }
                game.claim(side.other(), true).map_err(Refusal::Illegal)?;
            }
            Event::ClockPaused { side } => {
                let clocks = self.clocks.as_mut().ok_or(Refusal::NotLegal)?;
                if clocks.running().is_none_or(|(running, _)| running != side) {
                    return Err(Refusal::NotLegal);
                }
                clocks.pause(at);
            }
            Event::ClockResumed { side } => {
                let clocks = self.clocks.as_mut().ok_or(Refusal::NotLegal)?;
                if clocks.paused().is_none_or(|(paused, _)| paused != side) {
                    return Err(Refusal::NotLegal);
                }
                clocks.resume(at);
            }
            Event::Aborted { .. } => {
                if !game.before_both_moved() {
                    return Err(Refusal::NotAbortable);
                }
                game.abort().map_err(Refusal::Illegal)?;
            }
            Event::DrawOffered { side } => {
                if game.is_finished() {
                    return Err(Refusal::GameOver);
                }
                self.draw_offer = Some(side);
                self.count_offer(side, OfferKind::Draw, at);
            }
            Event::DrawDeclined { .. } => {
                if self.draw_offer.is_none() {
                    return Err(Refusal::NoOffer);
                }
                self.draw_offer = None;
            }
            Event::DrawWithdrawn { side } => {
                if self.draw_offer != Some(side) {
                    return Err(Refusal::NoOffer);
                }
                self.draw_offer = None;
            }
            Event::RematchOffered { side } => {
                if !game.is_finished() {
                    return Err(Refusal::GameNotOver);
                }
                self.rematch_offer = Some(side);
                self.count_offer(side, OfferKind::Rematch, at);
            }
            Event::RematchDeclined { .. } | Event::RematchWithdrawn { .. } => {
                if self.rematch_offer.is_none() {
                    return Err(Refusal::NoOffer);
                }
                self.rematch_offer = None;
            }
            Event::RematchStarted => {
                if !game.is_finished() {
                    return Err(Refusal::GameNotOver);
                }
                let aborted = game
                    .outcome()
                    .is_some_and(|o| o.reason() == Reason::Aborted);
                // An aborted game of a series is played again with the same
                // sides; a decided series is followed by a new one.
                let decided = self.series().map(|(standing, _)| standing.is_decided());
                let replay = aborted && decided == Some(false);
                if decided == Some(true) {
                    self.series_start = self.games.len();
                    self.series_number = self.series_number.saturating_add(1);
                }
                // A two-board match's next pair keeps the sides: each player
                // already had both.
                let keep = replay || self.options.format == Format::TwoBoards;
                let host_side = if keep {
                    self.host_side()
                } else {
                    self.host_side().other()
                };
                let number = self.game_number().saturating_add(1);
                self.games.push(Game::new(self.options.rules));
                self.host_sides.push(host_side);
                self.numbers.push(number);
                self.forget_old_games();
                self.rematch_offer = None;
                self.draw_offer = None;
                self.clocks = self.options.clock.map(Clocks::new);
                self.offers = [Offers::default(); 2];
                self.started = Some(at);
                self.last_action_at = None;
            }
        }
        if matches!(event, Event::Played { .. } | Event::RematchStarted) {
            // A new position: its legal actions, once.
            self.legal = self.game().position().legal_actions();
        }
        self.version += 1;
        self.started.get_or_insert(at);
        if was_over {
            return Ok(None);
        }
        let Some(outcome) = self.game().outcome() else {
            return Ok(None);
        };
        self.count(outcome);
        self.draw_offer = None;
        if let Some(clocks) = &mut self.clocks {
            clocks.stop(at);
        }
        let game = self.game();
        Ok(Some(GameEnded {
            game: self.game_number(),
            host_side: self.host_side(),
            outcome,
            plies: game.position().ply(),
            started,
            ended: at,
            record: game.record(),
            aborted_by: match event {
                Event::Aborted { side } => Some(side),
                _ => None,
            },
        }))
    }

    fn count(&mut self, outcome: Outcome) {
        if outcome.reason() == Reason::Aborted {
            // An aborted game has no result.
            return;
        }
        match outcome.winner() {
            None => self.tally.draws += 1,
            Some(side) => match self.player_of(side) {
                Player::Host => self.tally.host += 1,
                Player::Guest => self.tally.guest += 1,
            },
        }
    }

    /// The public state of the current game, sent at `now`.
    pub fn state(&self, now: Timestamp) -> wire::GameState {
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
                self.legal.iter().map(action_name).collect()
            },
            last_action: game.actions().last().map(action_name),
            result: outcome.map(result_to_wire),
            draw_offer: self.draw_offer.map(side_to_wire),
            rematch_offer: self.rematch_offer.map(side_to_wire),
            host_side: side_to_wire(self.host_side()),
            tally: self.tally,
            clock: self.clocks.map(|clocks| clock_to_wire(&clocks, now)),
            abortable: self.abortable(),
            series: self
                .series()
                .map(|(standing, place)| standing.to_wire(self.series_number, place)),
            board: None,
            match_state: None,
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

/// The clocks on the wire.
fn clock_to_wire(clocks: &Clocks, now: Timestamp) -> wire::ClockState {
    let ms = |side| u64::try_from(clocks.left(side).as_millis()).unwrap_or(u64::MAX);
    wire::ClockState {
        goats_ms: ms(Side::Goat),
        tigers_ms: ms(Side::Tiger),
        running: clocks.running().map(|(side, _)| side_to_wire(side)),
        turn_started_at: clocks.running().map(|(_, since)| since.rfc3339()),
        now: now.rfc3339(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_intent_crosses_between_nodes_as_it_always_has() {
        let intents = [
            (Intent::Play("c3".parse().unwrap()), r#"{"play":"c3"}"#),
            (
                Intent::Play("b3-c3".parse().unwrap()),
                r#"{"play":"b3-c3"}"#,
            ),
            (Intent::Resign, r#""resign""#),
            (Intent::OfferDraw, r#""offer_draw""#),
            (Intent::AcceptDraw, r#""accept_draw""#),
            (Intent::DeclineDraw, r#""decline_draw""#),
            (Intent::Rematch, r#""rematch""#),
            (Intent::DeclineRematch, r#""decline_rematch""#),
            (Intent::Abort, r#""abort""#),
            (Intent::Claim(Claim::Victory), r#""claim_victory""#),
            (Intent::Claim(Claim::Draw), r#""claim_draw""#),
        ];
        for (intent, json) in intents {
            assert_eq!(serde_json::to_string(&intent).unwrap(), json);
            assert_eq!(serde_json::from_str::<Intent>(json).unwrap(), intent);
        }
        assert!(serde_json::from_str::<Intent>(r#"{"play":"z9"}"#).is_err());
    }
    use baghchal_rules::Rules;

    fn friend_table() -> Play {
        Play::new(TableOptions {
            opponent: Opponent::Friend,
            host_side: Side::Goat,
            level: None,
            spectator_seats: 0,
            rules: Rules::default(),
            clock: None,
            format: Format::Single,
        })
    }

    const T0: Timestamp = Timestamp::from_millis(1_796_160_000_000);

    /// The time of the next event: events 11 s apart, past the offers'
    /// spacing.
    fn next_at(play: &Play) -> Timestamp {
        T0.after(Duration::from_secs(11) * u32::try_from(play.version()).unwrap())
    }

    fn act(play: &mut Play, side: Side, intent: Intent) -> Result<Event, Refusal> {
        let at = next_at(play);
        let event = play.decide(side, intent, at)?;
        play.apply(event, at).unwrap();
        Ok(event)
    }

    #[test]
    fn a_refused_intent_changes_nothing() {
        let play = friend_table();
        let before = play.state(T0);
        assert_eq!(
            play.decide(Side::Tiger, Intent::Play("a1-a2".parse().unwrap()), T0),
            Err(Refusal::NotYourTurn)
        );
        assert_eq!(
            play.decide(Side::Goat, Intent::Play("a1".parse().unwrap()), T0),
            Err(Refusal::Illegal(IllegalAction::Occupied))
        );
        assert_eq!(
            play.decide(Side::Goat, Intent::Rematch, T0),
            Err(Refusal::GameNotOver)
        );
        assert_eq!(
            play.decide(Side::Goat, Intent::AcceptDraw, T0),
            Err(Refusal::NoOffer)
        );
        assert_eq!(play.state(T0), before);
        assert_eq!(play.version(), 0);
    }

    #[test]
    fn a_draw_offer_is_answered_by_the_other_side_only() {
        let mut play = friend_table();
        act(&mut play, Side::Goat, Intent::OfferDraw).unwrap();
        assert_eq!(
            play.decide(Side::Goat, Intent::AcceptDraw, T0),
            Err(Refusal::NoOffer)
        );
        assert_eq!(
            play.decide(Side::Goat, Intent::OfferDraw, T0),
            Err(Refusal::NoOffer)
        );
        act(&mut play, Side::Tiger, Intent::AcceptDraw).unwrap();
        let state = play.state(T0);
        assert_eq!(state.result.unwrap().reason, wire::EndReason::Agreement);
        assert_eq!(state.tally.draws, 1);
        assert!(state.legal.is_empty());
        assert_eq!(play.version(), 2);
    }

    #[test]
    fn a_rematch_swaps_sides_and_the_tally_follows_the_players() {
        let mut play = friend_table();
        act(&mut play, Side::Tiger, Intent::Resign).unwrap();
        assert_eq!(play.state(T0).tally.host, 1);
        act(&mut play, Side::Tiger, Intent::Rematch).unwrap();
        assert_eq!(play.state(T0).rematch_offer, Some(wire::Side::Tigers));
        assert_eq!(
            act(&mut play, Side::Goat, Intent::Rematch),
            Ok(Event::RematchStarted)
        );
        assert_eq!(play.game_number(), 2);
        assert_eq!(play.host_side(), Side::Tiger);
        // The host, now the tigers, resigns: the guest scores.
        act(&mut play, Side::Tiger, Intent::Resign).unwrap();
        let tally = play.state(T0).tally;
        assert_eq!((tally.host, tally.guest, tally.draws), (1, 1, 0));
    }

    #[test]
    fn the_computer_table_refuses_draws_and_rematches_at_once() {
        let mut play = Play::new(TableOptions {
            opponent: Opponent::Computer,
            ..friend_table().options
        });
        assert_eq!(
            play.decide(Side::Goat, Intent::OfferDraw, T0),
            Err(Refusal::NoDrawOffers)
        );
        act(&mut play, Side::Goat, Intent::Resign).unwrap();
        assert_eq!(
            play.decide(Side::Goat, Intent::Rematch, T0),
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
        assert_eq!(play.state(T0).draw_offer, None);
    }

    fn play_at(play: &mut Play, side: Side, action: &str, at: Timestamp) {
        let event = play
            .decide(side, Intent::Play(action.parse().unwrap()), at)
            .unwrap();
        play.apply(event, at).unwrap();
    }

    #[test]
    fn a_game_may_be_aborted_until_each_side_has_played_and_then_counts_for_nobody() {
        let mut play = friend_table();
        assert!(play.state(T0).abortable);
        act(&mut play, Side::Goat, Intent::Play("c3".parse().unwrap())).unwrap();
        assert!(play.abortable());
        act(&mut play, Side::Tiger, Intent::Abort).unwrap();
        let state = play.state(T0);
        assert_eq!(state.result.unwrap().reason, wire::EndReason::Aborted);
        assert_eq!(state.result.unwrap().winner, None);
        assert_eq!(state.tally, wire::Tally::default());
        assert!(!state.abortable);
        assert_eq!(
            play.decide(Side::Goat, Intent::Abort, T0),
            Err(Refusal::NotAbortable)
        );
        act(&mut play, Side::Goat, Intent::Rematch).unwrap();
        act(&mut play, Side::Tiger, Intent::Rematch).unwrap();
        act(&mut play, Side::Goat, Intent::Play("c3".parse().unwrap())).unwrap();
        act(
            &mut play,
            Side::Tiger,
            Intent::Play("a1-a2".parse().unwrap()),
        )
        .unwrap();
        assert!(!play.abortable());
        assert_eq!(
            play.decide(Side::Tiger, Intent::Abort, T0),
            Err(Refusal::NotAbortable)
        );
    }

    #[test]
    fn a_rematch_request_can_be_declined_by_the_other_side_only() {
        let mut play = friend_table();
        act(&mut play, Side::Goat, Intent::Resign).unwrap();
        act(&mut play, Side::Goat, Intent::Rematch).unwrap();
        assert_eq!(
            play.decide(Side::Goat, Intent::DeclineRematch, T0),
            Err(Refusal::NoOffer)
        );
        assert_eq!(
            act(&mut play, Side::Tiger, Intent::DeclineRematch),
            Ok(Event::RematchDeclined { side: Side::Tiger })
        );
        assert_eq!(play.state(T0).rematch_offer, None);
        assert_eq!(play.withdraw_offers(Side::Goat).next(), None);
        act(&mut play, Side::Goat, Intent::Rematch).unwrap();
        let lapsed: Vec<_> = play.withdraw_offers(Side::Goat).collect();
        assert_eq!(lapsed, [Event::RematchWithdrawn { side: Side::Goat }]);
        assert_eq!(play.withdraw_offers(Side::Tiger).next(), None);
        play.apply(lapsed[0], next_at(&play)).unwrap();
        assert_eq!(play.state(T0).rematch_offer, None);
    }

    #[test]
    fn a_draw_offer_lapses_when_its_maker_leaves_and_only_then() {
        let mut play = friend_table();
        act(&mut play, Side::Goat, Intent::OfferDraw).unwrap();
        // The other side leaving takes nothing away: the offer is not theirs.
        assert_eq!(play.withdraw_offers(Side::Tiger).next(), None);
        let lapsed: Vec<_> = play.withdraw_offers(Side::Goat).collect();
        assert_eq!(lapsed, [Event::DrawWithdrawn { side: Side::Goat }]);
        play.apply(lapsed[0], next_at(&play)).unwrap();
        assert_eq!(play.state(T0).draw_offer, None);
        // Gone: it cannot be accepted, and a second lapse is refused.
        assert_eq!(
            play.decide(Side::Tiger, Intent::AcceptDraw, T0),
            Err(Refusal::NoOffer)
        );
        assert_eq!(
            play.apply(Event::DrawWithdrawn { side: Side::Goat }, next_at(&play)),
            Err(Refusal::NoOffer)
        );
        assert_eq!(play.version(), 2);
    }

    #[test]
    fn offers_are_limited_to_three_a_game_ten_seconds_apart() {
        let mut play = friend_table();
        let mut at = T0;
        for n in 0..OFFERS_PER_GAME {
            let event = play.decide(Side::Goat, Intent::OfferDraw, at).unwrap();
            play.apply(event, at).unwrap();
            let decline = play.decide(Side::Tiger, Intent::DeclineDraw, at).unwrap();
            play.apply(decline, at).unwrap();
            let soon = at.after(OFFER_SPACING - Duration::from_millis(1));
            assert_eq!(
                play.decide(Side::Goat, Intent::OfferDraw, soon),
                Err(Refusal::TooManyOffers),
                "offer {n}"
            );
            at = at.after(OFFER_SPACING);
        }
        assert_eq!(
            play.decide(Side::Goat, Intent::OfferDraw, at),
            Err(Refusal::TooManyOffers)
        );
        // The other side has its own count; a new game starts afresh.
        assert!(play.decide(Side::Tiger, Intent::OfferDraw, at).is_ok());
        play.apply(Event::Resigned { side: Side::Tiger }, at)
            .unwrap();
        play.apply(Event::RematchStarted, at).unwrap();
        assert!(play.decide(Side::Tiger, Intent::OfferDraw, at).is_ok());
    }

    #[test]
    fn the_clocks_follow_the_timestamps_and_a_flag_loses_on_time() {
        let mut play = Play::new(TableOptions {
            clock: Some(crate::clock::TimeControl::Fischer {
                initial: Duration::from_secs(5),
                increment: Duration::from_secs(2),
            }),
            ..friend_table().options
        });
        let ms = |n: u64| T0.after(Duration::from_millis(n));
        play_at(&mut play, Side::Goat, "c3", ms(0));
        play_at(&mut play, Side::Tiger, "a1-a2", ms(60_000));
        let clock = play.state(ms(61_000)).clock.unwrap();
        assert_eq!((clock.goats_ms, clock.tigers_ms), (5_000, 5_000));
        assert_eq!(clock.running, Some(wire::Side::Goats));
        assert_eq!(clock.turn_started_at, Some(ms(60_000).rfc3339()));
        assert_eq!(clock.now, ms(61_000).rfc3339());
        play_at(&mut play, Side::Goat, "c4", ms(63_500));
        let clock = play.state(ms(63_500)).clock.unwrap();
        assert_eq!((clock.goats_ms, clock.tigers_ms), (3_500, 5_000));
        assert_eq!(
            play.clocks().unwrap().deadline(),
            Some((Side::Tiger, ms(68_500)))
        );
        assert_eq!(
            play.apply(Event::Flagged { side: Side::Goat }, ms(68_500)),
            Err(Refusal::NotYourTurn)
        );
        play.apply(Event::Flagged { side: Side::Tiger }, ms(68_500))
            .unwrap();
        let state = play.state(ms(70_000));
        let result = state.result.unwrap();
        assert_eq!(
            (result.winner, result.reason),
            (Some(wire::Side::Goats), wire::EndReason::Timeout)
        );
        assert_eq!(state.tally.host, 1);
        let clock = state.clock.unwrap();
        assert_eq!((clock.tigers_ms, clock.running), (0, None));
    }

    #[test]
    fn abort_and_rematch_loops_keep_at_most_eight_finished_games_in_memory_and_end_at_the_last_game(
    ) {
        let mut play = friend_table();
        for _ in 1..MAX_GAMES {
            let side = play.side_of(Player::Host);
            act(&mut play, side, Intent::Abort).unwrap();
            act(&mut play, side, Intent::Rematch).unwrap();
            act(&mut play, side.other(), Intent::Rematch).unwrap();
            assert!(play.games_in_memory() <= KEPT_GAMES + 1);
        }
        assert_eq!(play.game_number(), 1000);
        assert_eq!(play.games_in_memory(), KEPT_GAMES + 1);
        assert!(play.game_at(1).is_none());
        assert!(play.game_at(991).is_none());
        assert!(play.game_at(992).is_some());
        let (current, host_side) = play.game_at(1000).unwrap();
        assert!(!current.is_finished());
        assert_eq!(host_side, play.host_side());
        // The sides still swap at each rematch: game 1000 is even.
        assert_eq!(play.host_side(), Side::Tiger);
        // The last game: no rematch after it.
        act(&mut play, Side::Tiger, Intent::Abort).unwrap();
        assert_eq!(
            play.decide(Side::Tiger, Intent::Rematch, next_at(&play)),
            Err(Refusal::LastGame)
        );
        assert_eq!(Refusal::LastGame.code().0, wire::ErrorCode::GameOver);
    }

    #[test]
    fn a_series_keeps_its_counted_games_however_many_aborts_come_between() {
        let mut play = Play::new(TableOptions {
            format: Format::Series(4),
            ..friend_table().options
        });
        // Game 1: the guest resigns; then 30 aborted games, each played
        // again with the same sides.
        act(&mut play, Side::Tiger, Intent::Resign).unwrap();
        act(&mut play, Side::Goat, Intent::Rematch).unwrap();
        for _ in 0..30 {
            act(&mut play, Side::Goat, Intent::Abort).unwrap();
            act(&mut play, Side::Goat, Intent::Rematch).unwrap();
        }
        assert!(play.games_in_memory() <= KEPT_GAMES + 1);
        let (standing, place) = play.series().unwrap();
        assert_eq!(place, 2);
        let wire = standing.to_wire(1, place);
        assert_eq!((wire.host_wins, wire.guest_wins, wire.draws), (1, 0, 0));
        assert!(
            play.game_at(1).is_some(),
            "a counted game of the series is kept"
        );
    }

    #[test]
    fn a_claim_needs_a_game_between_two_people_past_its_first_actions() {
        let mut play = friend_table();
        assert_eq!(
            play.decide(Side::Goat, Intent::Claim(Claim::Victory), T0),
            Err(Refusal::NotClaimable)
        );
        act(&mut play, Side::Goat, Intent::Play("c3".parse().unwrap())).unwrap();
        act(
            &mut play,
            Side::Tiger,
            Intent::Play("a1-a2".parse().unwrap()),
        )
        .unwrap();
        act(&mut play, Side::Tiger, Intent::Claim(Claim::Draw)).unwrap();
        let state = play.state(T0);
        assert_eq!(
            state.result,
            Some(wire::GameResult {
                winner: None,
                reason: wire::EndReason::Abandoned
            })
        );
        assert_eq!(state.tally.draws, 1);
        let computer = Play::new(TableOptions {
            opponent: Opponent::Computer,
            ..friend_table().options
        });
        assert_eq!(
            computer.decide(Side::Goat, Intent::Claim(Claim::Victory), T0),
            Err(Refusal::NotClaimable)
        );
    }
}
