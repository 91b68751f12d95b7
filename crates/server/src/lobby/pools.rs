//! The quick-pairing pools and their matchmaking: in each wave, the
//! players waiting in a pool are paired by closeness of rating, with a
//! bonus for the time waited that widens the range a pair may span, and
//! the sides given so that a player who had the goats last gets the
//! tigers (lila's pool waves are the model). Two players where either
//! blocks the other never meet.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use baghchal_rating::Speed;

use crate::storage::PoolEntry;

/// A pool: its id and its time control.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PoolSpec {
    /// The id in URLs: `3+2` is 3 minutes and 2 seconds a move.
    pub id: &'static str,
    /// Initial minutes, for a clocked pool.
    pub minutes: u32,
    /// Seconds added a move.
    pub increment: u32,
    /// Days an action, for the correspondence pool.
    pub days: u8,
}

impl PoolSpec {
    /// Its speed class.
    pub fn speed(&self) -> Speed {
        if self.days > 0 {
            Speed::Correspondence
        } else {
            Speed::of(
                Some(u64::from(self.minutes) * 60_000),
                Some(u64::from(self.increment) * 1_000),
                None,
            )
        }
    }

    /// The table request's clock.
    pub fn clock(&self) -> baghchal_protocol::TimeControl {
        if self.days > 0 {
            baghchal_protocol::TimeControl {
                initial: None,
                increment: None,
                days_per_action: Some(self.days),
            }
        } else {
            baghchal_protocol::TimeControl {
                initial: Some(self.minutes * 60),
                increment: Some(self.increment),
                days_per_action: None,
            }
        }
    }
}

/// The pools.
pub const POOLS: [PoolSpec; 6] = [
    PoolSpec {
        id: "1+1",
        minutes: 1,
        increment: 1,
        days: 0,
    },
    PoolSpec {
        id: "3+2",
        minutes: 3,
        increment: 2,
        days: 0,
    },
    PoolSpec {
        id: "5+3",
        minutes: 5,
        increment: 3,
        days: 0,
    },
    PoolSpec {
        id: "10+5",
        minutes: 10,
        increment: 5,
        days: 0,
    },
    PoolSpec {
        id: "15+10",
        minutes: 15,
        increment: 10,
        days: 0,
    },
    PoolSpec {
        id: "1d",
        minutes: 0,
        increment: 0,
        days: 1,
    },
];

/// The pool with this id.
pub fn pool(id: &str) -> Option<&'static PoolSpec> {
    POOLS.iter().find(|p| p.id == id)
}

/// How far apart two ratings may be when neither player has waited.
pub const BASE_RANGE: i64 = 250;
/// How much wider the range grows for each second the shorter waiter has
/// waited.
pub const RANGE_PER_SECOND: i64 = 25;
/// From this long a wait on, any two players of the pool may meet.
pub const ANY_OPPONENT_AFTER: Duration = Duration::from_secs(30);
/// Each lobby game a player let abort counts as this many rating points
/// of distance: such players are paired last.
pub const ABORT_PENALTY: i64 = 100;
/// How many neighbours by rating each player is weighed against.
const NEIGHBOURS: usize = 16;

/// The players who may not meet: either blocks the other.
#[derive(Clone, Default, Debug)]
pub struct Apart(HashMap<String, HashSet<String>>);

impl Apart {
    /// From blocks as (blocker, blocked): each keeps both apart.
    pub fn new(blocks: impl IntoIterator<Item = (String, String)>) -> Apart {
        let mut apart = Apart::default();
        for (a, b) in blocks {
            apart.0.entry(a.clone()).or_default().insert(b.clone());
            apart.0.entry(b).or_default().insert(a);
        }
        apart
    }

    /// Whether `a` and `b` may not meet.
    pub fn between(&self, a: &str, b: &str) -> bool {
        self.0.get(a).is_some_and(|others| others.contains(b))
    }
}

/// A pairing of one wave: the indices of its two players in the entries
/// given, the first to have the goats.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Match {
    /// Who has the goats.
    pub goats: usize,
    /// Who has the tigers.
    pub tigers: usize,
}

/// Pairs the players of one pool's wave at `now` (milliseconds): rated
/// players (accounts) only with rated players, anonymous ones only with
/// anonymous ones, never two players `apart`; each pair within its range,
/// the closest first. `coin` gives the sides where neither player's last
/// side decides.
pub fn match_wave(
    entries: &[PoolEntry],
    now: i64,
    apart: &Apart,
    mut coin: impl FnMut() -> bool,
) -> Vec<Match> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| (entries[i].rated, entries[i].rating));
    // Whether two players may meet now, and at what cost (lower first).
    let cost = |a: usize, b: usize| -> Option<i64> {
        let (x, y) = (&entries[a], &entries[b]);
        if x.rated != y.rated || x.player == y.player || apart.between(&x.player, &y.player) {
            return None;
        }
        let waited_ms = (now - x.joined_at.max(y.joined_at)).max(0);
        let distance = (x.rating - y.rating).abs();
        let range = if waited_ms >= ANY_OPPONENT_AFTER.as_millis() as i64 {
            i64::MAX
        } else {
            BASE_RANGE + RANGE_PER_SECOND * waited_ms / 1000
        };
        if distance > range {
            return None;
        }
        let waited_both_s = ((now - x.joined_at).max(0) + (now - y.joined_at).max(0)) / 1000;
        Some(distance + ABORT_PENALTY * (x.aborts + y.aborts) - 10 * waited_both_s)
    };
    let mut candidates: Vec<(i64, usize, usize)> = Vec::new();
    for (k, &a) in order.iter().enumerate() {
        for &b in order.iter().skip(k + 1).take(NEIGHBOURS) {
            if let Some(c) = cost(a, b) {
                candidates.push((c, a, b));
            }
        }
    }
    candidates.sort_unstable();
    let mut taken = vec![false; entries.len()];
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (_, a, b) in candidates {
        if taken[a] || taken[b] {
            continue;
        }
        taken[a] = true;
        taken[b] = true;
        pairs.push((a, b));
    }
    // Those left over, whose near neighbours were all taken, meet the next
    // one left over in rating order where they may.
    let left: Vec<usize> = order.iter().copied().filter(|&i| !taken[i]).collect();
    let mut k = 0;
    while k + 1 < left.len() {
        if cost(left[k], left[k + 1]).is_some() {
            pairs.push((left[k], left[k + 1]));
            k += 2;
        } else {
            k += 1;
        }
    }
    let mut matches = Vec::with_capacity(pairs.len());
    for (a, b) in pairs {
        let last = |i: usize| entries[i].last_side.as_deref();
        let a_goats = match (last(a), last(b)) {
            (Some("tigers"), Some(lb)) if lb != "tigers" => true,
            (Some("goats"), Some(lb)) if lb != "goats" => false,
            (Some("tigers"), None) | (None, Some("goats")) => true,
            (Some("goats"), None) | (None, Some("tigers")) => false,
            _ => coin(),
        };
        matches.push(if a_goats {
            Match {
                goats: a,
                tigers: b,
            }
        } else {
            Match {
                goats: b,
                tigers: a,
            }
        });
    }
    matches
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(player: &str, rating: i64, joined_at: i64) -> PoolEntry {
        PoolEntry {
            player: player.into(),
            pool: "3+2".into(),
            rated: true,
            rating,
            last_side: None,
            aborts: 0,
            joined_at,
        }
    }

    fn pairs(entries: &[PoolEntry], now: i64) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = match_wave(entries, now, &Apart::default(), || true)
            .iter()
            .map(|m| {
                let mut pair = [
                    entries[m.goats].player.clone(),
                    entries[m.tigers].player.clone(),
                ];
                pair.sort();
                (pair[0].clone(), pair[1].clone())
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn the_closest_ratings_meet_and_nobody_is_paired_twice() {
        let entries = [
            entry("a", 1500, 0),
            entry("b", 1510, 0),
            entry("c", 1700, 0),
            entry("d", 1690, 0),
            entry("e", 1600, 0),
        ];
        assert_eq!(
            pairs(&entries, 0),
            [("a".into(), "b".into()), ("c".into(), "d".into())]
        );
    }

    #[test]
    fn a_wide_gap_closes_as_the_players_wait() {
        let entries = [entry("a", 1200, 0), entry("b", 1900, 0)];
        assert!(pairs(&entries, 1_000).is_empty());
        assert!(pairs(&entries, 10_000).is_empty());
        assert_eq!(pairs(&entries, 30_000).len(), 1);
    }

    #[test]
    fn accounts_and_anonymous_players_never_meet() {
        let mut anonymous = entry("b", 1500, 0);
        anonymous.rated = false;
        let entries = [entry("a", 1500, 0), anonymous];
        assert!(pairs(&entries, 60_000).is_empty());
    }

    #[test]
    fn a_player_who_had_the_goats_gets_the_tigers() {
        let mut a = entry("a", 1500, 0);
        a.last_side = Some("goats".into());
        let b = entry("b", 1500, 0);
        let wave = match_wave(&[a.clone(), b.clone()], 0, &Apart::default(), || true);
        assert_eq!(
            wave,
            [Match {
                goats: 1,
                tigers: 0
            }]
        );
        let mut b_goats = b;
        b_goats.last_side = Some("tigers".into());
        let wave = match_wave(&[a, b_goats], 0, &Apart::default(), || false);
        assert_eq!(
            wave,
            [Match {
                goats: 1,
                tigers: 0
            }]
        );
    }

    #[test]
    fn frequent_aborters_are_paired_last() {
        let mut aborter = entry("x", 1500, 0);
        aborter.aborts = 5;
        let entries = [aborter, entry("a", 1500, 0), entry("b", 1560, 0)];
        assert_eq!(pairs(&entries, 0), [("a".into(), "b".into())]);
    }

    #[test]
    fn players_where_one_blocks_the_other_never_meet_and_meet_others() {
        let entries = [
            entry("a", 1500, 0),
            entry("b", 1500, 0),
            entry("c", 1900, 0),
            entry("d", 1100, 0),
        ];
        // Alone, a and b are each other's closest.
        assert_eq!(pairs(&entries[..2], 0), [("a".into(), "b".into())]);
        // b blocks a: they never meet, however long they wait; each meets
        // someone else once the range allows.
        let apart = Apart::new([("b".to_owned(), "a".to_owned())]);
        assert!(apart.between("a", "b") && apart.between("b", "a"));
        assert!(match_wave(&entries[..2], 600_000, &apart, || true).is_empty());
        let wave = match_wave(&entries, 60_000, &apart, || true);
        assert_eq!(wave.len(), 2);
        for m in wave {
            let pair = [&entries[m.goats].player, &entries[m.tigers].player];
            assert!(!(pair.contains(&&"a".to_owned()) && pair.contains(&&"b".to_owned())));
        }
    }

    #[test]
    fn every_pool_has_a_clock_and_a_class() {
        let classes: Vec<&str> = POOLS.iter().map(|p| p.speed().name()).collect();
        assert_eq!(
            classes,
            [
                "bullet",
                "blitz",
                "blitz",
                "rapid",
                "rapid",
                "correspondence"
            ]
        );
        assert_eq!(pool("10+5").unwrap().clock().initial, Some(600));
        assert!(pool("2+1").is_none());
    }

    #[test]
    fn a_large_wave_pairs_everyone_it_can_once() {
        let entries: Vec<PoolEntry> = (0..2000)
            .map(|i| entry(&format!("p{i}"), 1000 + (i * 7919 % 1500), i % 5_000))
            .collect();
        let wave = match_wave(&entries, 40_000, &Apart::default(), || true);
        let mut seen = std::collections::HashSet::new();
        for m in &wave {
            assert!(seen.insert(m.goats) && seen.insert(m.tigers));
        }
        // Anyone may meet anyone after 30 s: everyone is paired.
        assert_eq!(wave.len(), 1000);
    }
}
