//! The client ids each player used lately, so that an action or command
//! resent with an id already accepted from the same seat (after a
//! reconnect) is acknowledged again instead of applied twice.
//!
//! A table keeps them for as long as it is loaded, and a busy table
//! accepts an id a second, so what each one costs is what a server's
//! memory grows by while its tables play: an id is kept as a 64-bit keyed
//! hash, never as the client's string, and only the latest
//! [`RECENT_IDS`] of each player are kept, in a ring. A resend carries
//! one of the few ids that were in flight when the connection dropped.

use std::collections::VecDeque;
use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;

use crate::seat::Player;

/// Client ids remembered per player.
pub const RECENT_IDS: usize = 256;

/// The latest ids of each player (the host's, then the guest's), as
/// hashes, oldest first.
#[derive(Default)]
pub struct RecentIds {
    rings: [VecDeque<u64>; 2],
}

/// A client id's keyed hash, the form in which a table remembers it.
/// The key is random per process, so that no client can choose two ids
/// that collide. The ids are rebuilt from the stored events whenever a
/// table is loaded, so the key need not outlive the process.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IdHash(u64);

impl IdHash {
    /// The hash of `id`.
    pub fn of(id: &str) -> IdHash {
        static KEY: OnceLock<RandomState> = OnceLock::new();
        IdHash(KEY.get_or_init(RandomState::new).hash_one(id))
    }
}

/// A client's id for a request, with its hash worked out once: looked up
/// when the request comes, remembered once it is stored.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ClientId {
    text: String,
    hash: IdHash,
}

impl ClientId {
    /// The id `text`, hashed.
    pub fn new(text: String) -> ClientId {
        let hash = IdHash::of(&text);
        ClientId { text, hash }
    }

    /// The id as the client sent it.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its hash.
    pub fn hash(&self) -> IdHash {
        self.hash
    }
}

impl RecentIds {
    /// Whether `player` used the id of `hash` lately.
    pub fn contains(&self, player: Player, hash: IdHash) -> bool {
        self.rings[player.index()].contains(&hash.0)
    }

    /// Remembers that `player` used the id of `hash`, forgetting its
    /// oldest id when it already has [`RECENT_IDS`].
    pub fn insert(&mut self, player: Player, hash: IdHash) {
        let ring = &mut self.rings[player.index()];
        if ring.contains(&hash.0) {
            return;
        }
        if ring.len() == RECENT_IDS {
            ring.pop_front();
        }
        ring.push_back(hash.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_remembered_for_its_player_only() {
        let mut recent = RecentIds::default();
        assert!(!recent.contains(Player::Host, IdHash::of("7")));
        recent.insert(Player::Host, IdHash::of("7"));
        assert!(recent.contains(Player::Host, IdHash::of("7")));
        assert!(!recent.contains(Player::Guest, IdHash::of("7")));
        assert!(!recent.contains(Player::Host, IdHash::of("8")));
    }

    #[test]
    fn a_client_id_carries_the_hash_of_its_text() {
        let id = ClientId::new("a-7".into());
        assert_eq!(id.hash(), IdHash::of("a-7"));
        assert_eq!(id.as_str(), "a-7");
        assert_ne!(id.hash(), IdHash::of("a-8"));
    }

    #[test]
    fn the_oldest_id_goes_when_the_ring_is_full() {
        let mut recent = RecentIds::default();
        for i in 0..RECENT_IDS {
            recent.insert(Player::Guest, IdHash::of(&i.to_string()));
        }
        // Inserting a remembered id again changes nothing.
        recent.insert(Player::Guest, IdHash::of("0"));
        assert!(recent.contains(Player::Guest, IdHash::of("0")));
        recent.insert(Player::Guest, IdHash::of("new"));
        assert!(!recent.contains(Player::Guest, IdHash::of("0")));
        assert!(recent.contains(Player::Guest, IdHash::of("1")));
        assert!(recent.contains(Player::Guest, IdHash::of("new")));
        assert_eq!(recent.rings[Player::Guest.index()].len(), RECENT_IDS);
    }
}
