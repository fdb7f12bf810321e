//! CLI start-up: `toolwire call` of a trivial command tool on a small manifest, against
//! running `true` the same way (spawn and wait), interleaved so both see the same machine.
//!
//! `cargo bench -p toolwire-cli --bench startup` prints the medians, the ratio and the
//! overhead; `TOOLWIRE_BENCH_RUNS` sets the number of runs of each (default 200).

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The target for one `toolwire call` of a trivial tool, start to exit.
const TARGET: Duration = Duration::from_millis(20);

const MANIFEST: &str = r#"
[[tool]]
name = "noop"
description = "Does nothing"
read_only = true
parameters = { type = "object", properties = { message = { type = "string" } } }
[tool.command]
argv = ["true", "{message}"]

[[tool]]
name = "echo"
parameters = { type = "object", properties = { message = { type = "string" } }, required = ["message"] }
[tool.command]
argv = ["echo", "{message}"]
"#;

fn main() {
    let runs = std::env::var("TOOLWIRE_BENCH_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(200usize);
    let manifest =
        std::env::temp_dir().join(format!("toolwire-startup-{}.toml", std::process::id()));
    if let Err(error) = std::fs::write(&manifest, MANIFEST) {
        eprintln!("error: cannot write {}: {error}", manifest.display());
        std::process::exit(2);
    }
    let toolwire = PathBuf::from(env!("CARGO_BIN_EXE_toolwire"));
    let mut call = Command::new(&toolwire);
    call.args(["call", "noop", "--args", r#"{"message": "hi"}"#, "--manifest"]).arg(&manifest);
    let mut baseline = Command::new("true");
    baseline.arg("hi");
    let (mut calls, mut trues) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs.min(10) {
        time(&mut call);
        time(&mut baseline);
    }
    for _ in 0..runs {
        calls.push(time(&mut call));
        trues.push(time(&mut baseline));
    }
    let _ = std::fs::remove_file(&manifest);
    let (call, baseline) = (median(&mut calls), median(&mut trues));
    let ratio = call.as_secs_f64() / baseline.as_secs_f64();
    let verdict = if call < TARGET { "under" } else { "OVER" };
    println!("startup/true (baseline)   median {:>9.3} ms   1.00x", ms(baseline));
    println!(
        "startup/toolwire_call     median {:>9.3} ms   {ratio:.2}x   +{:.3} ms",
        ms(call),
        ms(call.saturating_sub(baseline))
    );
    println!(
        "{runs} runs each, interleaved; `toolwire call` is {verdict} the {} ms target",
        TARGET.as_millis()
    );
}

/// Spawns and waits for `command`, its output discarded.
fn time(command: &mut Command) -> Duration {
    let started = Instant::now();
    let status = command.stdout(Stdio::null()).stderr(Stdio::null()).status();
    let elapsed = started.elapsed();
    match status {
        Ok(status) if status.success() => elapsed,
        other => {
            eprintln!("error: {command:?} failed: {other:?}");
            std::process::exit(1);
        }
    }
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort_unstable();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
