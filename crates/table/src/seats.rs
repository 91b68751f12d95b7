//! Who may sit where, and who is away: a table's two seats and its
//! gallery, the claim of the opponent's seat through its link, the absence
//! that lets the present player claim a game, and a table its host
//! cancelled.

use std::time::Duration;

use baghchal_protocol as wire;
use baghchal_rules::{Reason, Side};

use crate::boards::{Board, Boards, Target};
use crate::options::{Opponent, TableOptions};
use crate::seat::Player;
use crate::time::Timestamp;

/// How long a player of a game in progress between two people must be
/// away (no socket open) before the other may claim the game.
pub const ABSENCE_GRACE: Duration = Duration::from_secs(15);

/// How long each side of a game at a lobby table has for its first action
/// before the game is aborted, counted against that side's player.
pub const FIRST_MOVE_GRACE: Duration = Duration::from_secs(30);

/// What admits someone to a seat or to the gallery: a link (the hash of
/// its token, compared and stored, never the token itself), or a player's
/// identity (their session's player id). Keys travel between a cluster's
/// nodes; a link's token never does, only its hash.
#[derive(Clone, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub enum Key {
    /// A link's token, hashed.
    Link(String),
    /// A player, by id.
    Player(String),
}

/// What a key admits its bearer to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Admission {
    /// A seat that is theirs.
    Seated(Player),
    /// The opponent's seat, free until now: the bearer of the opponent
    /// link takes it (and gets a key of their own, [`Seats::seat_guest`]).
    ClaimsGuest,
    /// The gallery.
    Watches,
}

/// A table's keys, and since when each player has been away.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Seats {
    host: Option<Key>,
    guest: Option<Key>,
    invite: Option<Key>,
    watch: Option<Key>,
    /// The players the host's and the guest's seats belong to, if any.
    players: [Option<String>; 2],
    /// Whether anyone may watch without a link (the lobby's tables).
    open_gallery: bool,
    /// Since when the host and the guest have had no socket open.
    away: [Option<Timestamp>; 2],
}

impl Seats {
    /// A table's link keys as stored, no seat belonging to a player,
    /// nobody connected since `now`.
    pub fn new(
        host: Option<Key>,
        guest: Option<Key>,
        invite: Option<Key>,
        watch: Option<Key>,
        now: Timestamp,
    ) -> Seats {
        Seats {
            host,
            guest,
            invite,
            watch,
            players: [None, None],
            open_gallery: false,
            away: [Some(now); 2],
        }
    }

    /// These seats, the host's and the guest's belonging to `players`
    /// where named, and the gallery open to anyone when `open_gallery`.
    pub fn with_players(mut self, players: [Option<String>; 2], open_gallery: bool) -> Seats {
        self.players = players;
        self.open_gallery = open_gallery;
        self
    }

    /// The players the host's and the guest's seats belong to.
    pub fn players(&self) -> &[Option<String>; 2] {
        &self.players
    }

    /// Whether anyone may watch without a link.
    pub fn open_gallery(&self) -> bool {
        self.open_gallery
    }

    /// The first-move timer's grace, at a table the lobby made (its
    /// players are strangers); none elsewhere.
    pub fn first_move_grace(&self) -> Option<Duration> {
        self.open_gallery.then_some(FIRST_MOVE_GRACE)
    }

    /// What `keys` admit to at this table, or why nothing: the opponent
    /// link once its seat is taken, or at a table its host cancelled. A
    /// link decides first (it names one role), then a player's identity
    /// (their own seat), then an open gallery admits anyone.
    pub fn admit(
        &self,
        keys: &[Key],
        options: &TableOptions,
        boards: &Boards,
    ) -> Result<Admission, wire::ErrorCode> {
        let mut refusal = wire::ErrorCode::InvalidToken;
        for key in keys {
            match self.admit_one(key, options, boards) {
                Ok(admission) => return Ok(admission),
                Err(wire::ErrorCode::InvalidToken) => {}
                Err(code) => refusal = code,
            }
        }
        if self.open_gallery && refusal == wire::ErrorCode::InvalidToken {
            Ok(Admission::Watches)
        } else {
            Err(refusal)
        }
    }

    fn admit_one(
        &self,
        key: &Key,
        options: &TableOptions,
        boards: &Boards,
    ) -> Result<Admission, wire::ErrorCode> {
        if let Key::Player(id) = key {
            return match self.players.iter().position(|p| p.as_ref() == Some(id)) {
                Some(0) => Ok(Admission::Seated(Player::Host)),
                Some(_) => Ok(Admission::Seated(Player::Guest)),
                None => Err(wire::ErrorCode::InvalidToken),
            };
        }
        let is = |held: &Option<Key>| held.as_ref() == Some(key);
        if is(&self.host) {
            Ok(Admission::Seated(Player::Host))
        } else if is(&self.guest) {
            Ok(Admission::Seated(Player::Guest))
        } else if is(&self.invite) {
            if self.guest.is_some() || self.players[1].is_some() {
                Err(wire::ErrorCode::SeatTaken)
            } else if self.cancelled(options, boards) {
                Err(wire::ErrorCode::InvalidToken)
            } else {
                Ok(Admission::ClaimsGuest)
            }
        } else if is(&self.watch) {
            Ok(Admission::Watches)
        } else {
            Err(wire::ErrorCode::InvalidToken)
        }
    }

    /// The guest's seat is `key`'s from now on, and `player`'s when the
    /// claim came with an identity.
    pub fn seat_guest(&mut self, key: Key, player: Option<String>) {
        self.guest = Some(key);
        if player.is_some() {
            self.players[1] = player;
        }
    }

    /// `player` has a socket open again.
    pub fn arrived(&mut self, player: Player) {
        self.away[player.index()] = None;
    }

    /// `player`'s last socket closed at `now`.
    pub fn left(&mut self, player: Player, now: Timestamp) {
        self.away[player.index()] = Some(now);
    }

    /// Whether the host cancelled this friend table before its guest
    /// arrived: a first game aborted with the guest's seat never taken.
    pub fn cancelled(&self, options: &TableOptions, boards: &Boards) -> bool {
        options.opponent == Opponent::Friend
            && self.guest.is_none()
            && self.players[1].is_none()
            && boards.iter().any(|(_, play)| {
                play.game_at(1)
                    .and_then(|(game, _)| game.outcome())
                    .is_some_and(|o| o.reason() == Reason::Aborted)
            })
    }

    /// The player away from a game in progress between two people (the
    /// one away longer if both are), and since when, with the first board
    /// where that game is and the absent player's side there. Nobody is
    /// absent while the game may still be aborted.
    pub fn absence(&self, boards: &Boards) -> Option<(Board, Side, Timestamp)> {
        let (board, play) = boards.iter().find(|(_, play)| {
            play.is_friend_table() && !play.game().is_finished() && !play.abortable()
        })?;
        [Player::Host, Player::Guest]
            .into_iter()
            .filter_map(|p| self.away[p.index()].map(|since| (board, play.side_of(p), since)))
            .min_by_key(|&(_, _, since)| since)
    }

    /// Whether `player` may claim the game on `target` at `now`: the game
    /// the absence names, of the opponent, away for the grace at least.
    pub fn may_claim(
        &self,
        boards: &Boards,
        player: Player,
        target: Target,
        now: Timestamp,
    ) -> bool {
        self.absence(boards).is_some_and(|(board, absent, since)| {
            target == Target::One(board)
                && boards
                    .get(board)
                    .is_some_and(|play| play.side_of(player) != absent)
                && now >= since.after(ABSENCE_GRACE)
        })
    }
}
