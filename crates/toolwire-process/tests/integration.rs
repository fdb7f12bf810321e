//! The integration tests of toolwire-process: escapes the sandbox must stop.
//!
//! One test binary for the crate: each file of this folder is a module of it, so the
//! dependency graph is linked once, not once per file.

// A test fails by panicking: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod escape_files;
mod escape_limits;
mod escape_network;
mod no_landlock;
