//! The integration tests of toolwire-journal.
//!
//! One test binary for the crate: each file of this folder is a module of it, so the
//! dependency graph is linked once, not once per file. The crash tests and the throwaway
//! server's test start this binary again as their child processes, naming the test to run by
//! its path in it (`crash::worker_process`, `pg_server::server_process`).

// A test fails by panicking: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[macro_use]
mod common;

mod audit;
mod bad_input;
mod crash;
mod exactly_once;
mod media;
mod pg_server;
mod postgres_tls;
mod runs;
mod spent;
mod suspensions;
mod tasks;
mod traces;
