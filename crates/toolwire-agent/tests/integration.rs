//! The integration tests of toolwire-agent.
//!
//! One test binary for the crate: each file of this folder is a module of it, so the
//! dependency graph is linked once, not once per file.

// A test fails by panicking: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod agent;
mod catalog;
mod failures;
mod journal_store;
mod media;
mod providers;
mod traces;
