//! The computer opponent.
