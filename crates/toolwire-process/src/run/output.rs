//! Reading a command's output: stdout under a byte limit, and stderr, whose progress lines
//! become progress events.
//!
//! A command reports progress by writing lines like `::progress 2/5 copying` (or
//! `::progress 2` when it does not know the total) to stderr.

use std::future::Future;
use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use toolwire::ToolContext;

use super::group::Group;

/// How long the output is still read once the program has exited: for what its last writes
/// left in the pipes. A background process still holding them after that is killed, with
/// the rest of the group, and what it wrote so far is kept.
pub(crate) const DRAIN: Duration = Duration::from_millis(150);

/// What a command left when it finished.
#[derive(Debug)]
pub(crate) struct Finished {
    /// How it exited.
    pub(crate) status: ExitStatus,
    /// What it wrote to stdout.
    pub(crate) stdout: Vec<u8>,
    /// What it wrote to stderr, without its progress lines, cut at the limit.
    pub(crate) stderr: String,
}

/// Waits for the program of `group` to exit, reading its output, and drains the pipes for
/// at most [`DRAIN`] after that: the call ends with the program, not with the last process
/// holding its stdout.
///
/// # Errors
///
/// When stdout passes `limit` bytes, or the program cannot be waited for.
///
/// # Cancel safety
///
/// Dropping the future drops the group, which kills every process in it.
pub(crate) async fn collect(
    mut group: Group,
    limit: u64,
    ctx: &ToolContext,
) -> Result<Finished, String> {
    let Some((stdout_pipe, stderr_pipe)) = group.pipes() else {
        return Err("the command's output was not captured".to_owned());
    };
    let (mut stdout, mut stderr) = (Vec::new(), String::new());
    let reading = async {
        let read_err = async {
            read_stderr(stderr_pipe, limit, ctx, &mut stderr).await;
            Ok(())
        };
        tokio::try_join!(read_limited(stdout_pipe, limit, &mut stdout), read_err).map(drop)
    };
    // On a flood, `?` returns, which drops the group and so stops it at once.
    let status = settle(&mut group, reading).await?;
    Ok(Finished { status, stdout, stderr })
}

/// The program's exit status once it has exited and `reading` has ended: at once when the
/// pipes close, or [`DRAIN`] after the exit, when the group still there is killed.
async fn settle(
    group: &mut Group,
    reading: impl Future<Output = Result<(), String>>,
) -> Result<ExitStatus, String> {
    tokio::pin!(reading);
    let status = tokio::select! {
        read = &mut reading => {
            read?;
            group.wait().await
        }
        status = group.wait() => {
            if let Ok(read) = tokio::time::timeout(DRAIN, &mut reading).await {
                read?;
            } else {
                group.kill();
                if let Ok(read) = tokio::time::timeout(DRAIN, &mut reading).await {
                    read?;
                }
            }
            status
        }
    };
    status.map_err(|error| format!("cannot wait for the command: {error}"))
}

async fn read_limited(
    stream: impl AsyncRead + Unpin,
    limit: u64,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let read = stream.take(limit.saturating_add(1)).read_to_end(out).await;
    read.map_err(|error| format!("cannot read the command's stdout: {error}"))?;
    if out.len() as u64 > limit {
        return Err(format!("the command wrote more than {limit} bytes to stdout"));
    }
    Ok(())
}

async fn read_stderr(
    stream: impl AsyncRead + Unpin,
    limit: u64,
    ctx: &ToolContext,
    kept: &mut String,
) {
    let mut lines = BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(report) = line.strip_prefix("::progress ") {
            progress(report, ctx);
        } else if (kept.len() as u64) < limit {
            kept.push_str(&line);
            kept.push('\n');
        }
    }
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
