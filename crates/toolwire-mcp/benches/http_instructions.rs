//! `N` calls of one kind through one server's HTTP router, in process, to be counted by
//! callgrind: instructions per call do not swing with the machine's load, as time does on a
//! shared machine, so they show where a few percent went. They are a guide, not a verdict:
//! callgrind counts every byte that `rep movsb` copies as an instruction, and a change that
//! trades copies for an allocation can count far fewer instructions and run no faster. Time
//! such a change too (`/usr/bin/time` of this binary with many calls, runs interleaved).
//!
//! `scripts/http-instructions.sh` runs it under `valgrind --tool=callgrind` for each server
//! and revision, twice (200 and 1,200 calls), and prints the instructions of one call: the
//! difference of the two runs over 1,000, so the set-up (the tool's schema compiled, the
//! session opened) drops out.
//!
//! Usage: `http_instructions <toolwire|rmcp> <2025-11-25|2026-07-28> <calls>`. Run without
//! them (as `cargo bench` does) it makes one call of each kind, as a check that they work.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "load/inprocess.rs"]
mod inprocess;
#[path = "load/servers.rs"]
#[allow(dead_code, reason = "the load benchmark's servers; this one uses their routers only")]
mod servers;

const USAGE: &str = "usage: http_instructions <toolwire|rmcp> <2025-11-25|2026-07-28> <calls>";

/// Makes `calls` calls on `server`'s router, on `revision`.
async fn run(server: &str, revision: &str, calls: usize) {
    let router = match server {
        "toolwire" => toolwire_mcp::server::router(
            servers::toolwire_server(),
            toolwire_mcp::server::HttpOptions::default(),
        ),
        "rmcp" => servers::rmcp_router(),
        _ => panic!("{USAGE}"),
    };
    match revision {
        "2025-11-25" => {
            let session = inprocess::open_session(&router).await;
            for _ in 0..calls {
                inprocess::once_in_session(&router, &session).await;
            }
        }
        "2026-07-28" => {
            for _ in 0..calls {
                inprocess::once(&router).await;
            }
        }
        _ => panic!("{USAGE}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
    match args.as_slice() {
        [server, revision, calls] => {
            let calls = calls.parse().unwrap_or_else(|_| panic!("{USAGE}"));
            runtime.block_on(run(server, revision, calls));
        }
        // `cargo bench` passes `--bench`: one call of each kind.
        _ => runtime.block_on(async {
            for server in ["toolwire", "rmcp"] {
                for revision in ["2025-11-25", "2026-07-28"] {
                    run(server, revision, 1).await;
                }
            }
            println!("{USAGE} (under callgrind: scripts/http-instructions.sh)");
        }),
    }
}
