//! Reading a command's output: stdout under a byte limit, and stderr, whose progress lines
//! become progress events.
//!
//! A command reports progress by writing lines like `::progress 2/5 copying` (or
//! `::progress 2` when it does not know the total) to stderr.

use std::process::ExitStatus;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::process::Child;
use toolwire::ToolContext;

/// What a command left when it finished.
#[derive(Debug)]
pub(super) struct Finished {
    /// How it exited.
    pub(super) status: ExitStatus,
    /// What it wrote to stdout.
    pub(super) stdout: Vec<u8>,
    /// What it wrote to stderr, without its progress lines, cut at the limit.
    pub(super) stderr: String,
}

/// Waits for `child`, reading its output.
///
/// # Errors
///
/// When stdout passes `limit` bytes (the child is then killed), or the output cannot be read.
///
/// # Cancel safety
///
/// Dropping the future drops the child, which was spawned with `kill_on_drop`.
pub(super) async fn collect(
    mut child: Child,
    limit: u64,
    ctx: &ToolContext,
) -> Result<Finished, String> {
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("the command's output was not captured".to_owned());
    };
    let stdout = async {
        let read = read_limited(stdout, limit).await;
        if read.is_err() {
            // Stop a flood at once: stderr closes when the child dies.
            let _ = child.start_kill();
        }
        read
    };
    let (stdout, stderr) = tokio::join!(stdout, read_stderr(stderr, limit, ctx));
    let stdout = stdout?;
    let status =
        child.wait().await.map_err(|error| format!("cannot wait for the command: {error}"))?;
    Ok(Finished { status, stdout, stderr })
}

async fn read_limited(stream: impl AsyncRead + Unpin, limit: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let read = stream.take(limit.saturating_add(1)).read_to_end(&mut out).await;
    read.map_err(|error| format!("cannot read the command's stdout: {error}"))?;
    if out.len() as u64 > limit {
        return Err(format!("the command wrote more than {limit} bytes to stdout"));
    }
    Ok(out)
}

async fn read_stderr(stream: impl AsyncRead + Unpin, limit: u64, ctx: &ToolContext) -> String {
    let mut lines = BufReader::new(stream).lines();
    let mut kept = String::new();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(report) = line.strip_prefix("::progress ") {
            progress(report, ctx);
        } else if (kept.len() as u64) < limit {
            kept.push_str(&line);
            kept.push('\n');
        }
    }
    kept
}

/// Reports `2/5 copying`, `2/5` or `2 copying` as progress.
fn progress(report: &str, ctx: &ToolContext) {
    let (count, message) = report.split_once(' ').unwrap_or((report, ""));
    let (done, total) = match count.split_once('/') {
        Some((done, total)) => (done.parse().ok(), total.parse().ok()),
        None => (count.parse().ok(), None),
    };
    if let Some(done) = done {
        ctx.progress(done, total, message.trim());
    }
}
