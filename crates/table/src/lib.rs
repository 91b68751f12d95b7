//! A Bagh-Chal table's play without I/O: the core that the server's table
//! actor wraps. No async, no database, no clock of its own: every moment is
//! an argument ([`time::Timestamp`]).
//!
//! - [`options`]: what a table is created with, checked from the wire;
//! - [`seat`]: its two players; [`seats`]: who may sit where (the keys),
//!   who is away and what that allows; [`command`]: a player's message
//!   read as what it asks for;
//! - [`play`]: one board's games, what a player may do ([`play::Play::decide`]),
//!   the events that change the state ([`play::Play::apply`]) and the
//!   public view; [`boards`]: the one or two boards of a table;
//!   [`abandon`]: how a game nobody plays on ends;
//! - [`clock`], [`series`]: time controls and series standings;
//!   [`restart`]: the clocks stopped while a single server restarts;
//! - [`finished`]: a finished game as the server stores it;
//! - [`recent_ids`]: the client ids a table remembers, to apply a resent
//!   action once;
//! - [`stored`]: an event's stored form, encoded and decoded in one place;
//! - [`names`] and [`view`]: the conversions to and from the wire.

pub mod abandon;
pub mod boards;
pub mod clock;
pub mod command;
pub mod finished;
pub mod names;
pub mod options;
pub mod play;
pub mod recent_ids;
pub mod restart;
pub mod seat;
pub mod seats;
pub mod series;
pub mod stored;
pub mod time;
pub mod view;
