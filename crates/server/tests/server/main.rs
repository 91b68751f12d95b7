//! The table server end to end: a real server on port 0 with a fresh
//! database, driven by real websocket clients. Every scenario runs on
//! SQLite, and on PostgreSQL when `BAGHCHAL_TEST_POSTGRES` is set.

#![allow(dead_code)]

mod common;

mod absence;
mod analysis;
mod analysis_board;
mod bad_input;
mod blocks;
mod clocks;
mod cluster_lobby;
mod computer;
mod connections;
mod endings;
mod expiry;
mod first_moves;
mod friend;
mod history;
mod leases;
mod limits;
mod lobby;
mod metrics;
mod notation;
mod offers;
mod page;
mod players;
mod profiles;
mod puzzles;
mod reconnect;
mod replay;
mod secrets;
mod security;
mod series;
mod spectators;
mod storage;
mod tablebase;
mod two_boards;
