//! The table server.
