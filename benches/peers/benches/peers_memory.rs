//! Workload (c)'s peak memory: 10,000 concurrent calls of a tool that sleeps 10 ms, on each
//! runtime, each run in a fresh process.
//!
//! Run with `cargo bench -p peers --bench peers_memory`. The bench starts itself once per
//! runtime and run; each child builds its tools, resets the peak resident set (`VmHWM`, via
//! Linux's `/proc/self/clear_refs`), runs the calls on a multi-thread Tokio runtime, and
//! reports the peak's growth over the resident set it had before the calls started, and the
//! wall time. The runtimes take turns, round after round, so a change in the machine's load
//! falls on all of them; the parent prints the median of each and its ratio to toolwire's
//! dispatch.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

use peers::concurrent::{self, RUNTIMES};
use peers::workload::CONCURRENT_CALLS;

const CHILD: &str = "PEERS_MEMORY_CHILD";
const ROUNDS: usize = 11;

fn main() {
    match std::env::var(CHILD) {
        Ok(which) => child(&which),
        Err(_) => parent(),
    }
}

fn child(which: &str) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let mut before = None;
    let wall = concurrent::run(&rt, which, CONCURRENT_CALLS, || {
        before = read_kib("VmRSS:");
        // Resets VmHWM to the current resident set.
        std::fs::write("/proc/self/clear_refs", "5").expect("/proc/self/clear_refs is writable");
    });
    let peak = read_kib("VmHWM:").expect("/proc/self/status has VmHWM");
    let growth = peak.saturating_sub(before.expect("the calls started"));
    println!("{} {}", growth, wall.as_micros());
}

fn parent() {
    let exe = std::env::current_exe().expect("the bench's own path");
    println!(
        "workload (c): {CONCURRENT_CALLS} concurrent calls sleeping 10 ms; {ROUNDS} rounds, \
         each running every runtime once, in a fresh process, in a rotating order"
    );
    let mut growths = vec![Vec::new(); RUNTIMES.len()];
    let mut walls = vec![Vec::new(); RUNTIMES.len()];
    for round in 0..ROUNDS {
        for step in 0..RUNTIMES.len() {
            let index = (round + step) % RUNTIMES.len();
            let which = RUNTIMES[index];
            let out = Command::new(&exe).env(CHILD, which).output().expect("the bench runs");
            assert!(out.status.success(), "{which}: {}", String::from_utf8_lossy(&out.stderr));
            let text = String::from_utf8_lossy(&out.stdout);
            let mut fields = text.split_whitespace().map(|f| f.parse::<u64>().expect("numbers"));
            growths[index].push(fields.next().expect("growth"));
            walls[index].push(fields.next().expect("wall time"));
        }
    }
    println!(
        "{:<34} {:>16} {:>10} {:>14} {:>10}",
        "runtime", "peak RSS growth", "ratio", "wall time", "ratio"
    );
    let (base_growth, base_wall) = (median(&mut growths[0]), median(&mut walls[0]));
    for (index, which) in RUNTIMES.iter().enumerate() {
        let (growth, wall) = (median(&mut growths[index]), median(&mut walls[index]));
        println!(
            "{which:<34} {:>12.1} MiB {:>9.2}× {:>11.1} ms {:>9.2}×",
            growth as f64 / 1024.0,
            growth as f64 / base_growth as f64,
            wall as f64 / 1000.0,
            wall as f64 / base_wall as f64,
        );
    }
}

fn median(values: &mut [u64]) -> u64 {
    values.sort_unstable();
    values[values.len() / 2]
}

fn read_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
