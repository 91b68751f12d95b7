//! The wire types of the table server.
