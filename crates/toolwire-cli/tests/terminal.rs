//! The terminal behaviour of `toolwire call`, through a pseudo-terminal: the approval prompt
//! and the progress bar.

use crate::common;

use std::fs::File;
use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{binary, example};

/// `toolwire` running with a pseudo-terminal as its stdin, stdout and stderr.
pub(crate) struct Terminal {
    master: File,
    child: Child,
    screen: Arc<Mutex<Vec<u8>>>,
}

impl Terminal {
    fn start(args: &[&str]) -> Self {
        Self::start_with(&example(), args)
    }

    /// `toolwire ARGS --manifest MANIFEST` in a fresh pseudo-terminal.
    pub(crate) fn start_with(manifest: &std::path::Path, args: &[&str]) -> Self {
        let pty = nix::pty::openpty(None, None).unwrap_or_else(|error| panic!("openpty: {error}"));
        let clone = |fd: &std::os::fd::OwnedFd| {
            fd.try_clone().unwrap_or_else(|error| panic!("dup: {error}"))
        };
        let child = Command::new(binary())
            .args(args)
            .arg("--manifest")
            .arg(manifest)
            .env("TERM", "xterm-256color")
            .stdin(Stdio::from(clone(&pty.slave)))
            .stdout(Stdio::from(clone(&pty.slave)))
            .stderr(Stdio::from(pty.slave))
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start toolwire: {error}"));
        let master = File::from(pty.master);
        let screen = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap_or_else(|error| panic!("dup: {error}"));
        let sink = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(read @ 1..) = reader.read(&mut buffer) {
                sink.lock().map(|mut screen| screen.extend_from_slice(&buffer[..read])).ok();
            }
        });
        Self { master, child, screen }
    }

    fn screen(&self) -> String {
        self.screen
            .lock()
            .map(|screen| String::from_utf8_lossy(&screen).into_owned())
            .unwrap_or_default()
    }

    /// Waits until the screen shows `text`. The first prompt may wait for an MCP server to
    /// start (the Python SDK's takes seconds on a loaded two-core machine), so the deadline is
    /// generous: it only bounds how long a broken test hangs.
    pub(crate) fn expect(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.screen().contains(text) {
            assert!(
                Instant::now() < deadline,
                "{text:?} never showed; the screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub(crate) fn type_keys(&mut self, keys: &str) {
        self.master
            .write_all(keys.as_bytes())
            .unwrap_or_else(|error| panic!("cannot type: {error}"));
    }

    pub(crate) fn wait(mut self) -> (ExitStatus, String) {
        let status = self.child.wait().unwrap_or_else(|error| panic!("wait: {error}"));
        std::thread::sleep(Duration::from_millis(100));
        (status, self.screen())
    }
}

impl Drop for Terminal {
    /// A test that fails while the program waits at a prompt leaves no program behind.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn regression_a_terminal_dropped_at_a_prompt_leaves_no_process() {
    let terminal = Terminal::start(&["call", "deploy", "--args", r#"{"env": "staging"}"#]);
    terminal.expect(r#"allow a call of "deploy"?"#);
    let pid = terminal.child.id();
    drop(terminal);
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "toolwire {pid} was left running"
    );
}

#[test]
fn the_approval_prompt_runs_the_call_when_accepted() {
    let mut terminal = Terminal::start(&["call", "deploy", "--args", r#"{"env": "staging"}"#]);
    terminal.expect(r#"arguments: {"env":"staging"}"#);
    terminal.expect(r#"allow a call of "deploy"?"#);
    terminal.type_keys("y");
    terminal.expect("deployed to staging");
    let (status, _) = terminal.wait();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn the_approval_prompt_declines_and_nothing_runs() {
    let mut terminal = Terminal::start(&["call", "deploy", "--args", r#"{"env": "production"}"#]);
    terminal.expect(r#"allow a call of "deploy"?"#);
    terminal.type_keys("n");
    let (status, screen) = terminal.wait();
    assert_eq!(status.code(), Some(1), "{screen}");
    assert!(screen.contains("declined in the terminal"), "{screen}");
    assert!(!screen.contains("deployed to"), "{screen}");
}

#[test]
fn json_never_prompts_even_in_a_terminal() {
    let terminal =
        Terminal::start(&["call", "deploy", "--json", "--args", r#"{"env": "staging"}"#]);
    let (status, screen) = terminal.wait();
    assert_eq!(status.code(), Some(3), "{screen}");
    assert!(!screen.contains("[y/N]"), "{screen}");
}

#[test]
fn a_call_that_reports_progress_shows_a_progress_bar() {
    let terminal = Terminal::start(&["call", "steps", "--args", r#"{"count": 5}"#]);
    terminal.expect("/5 step");
    terminal.expect("finished 5 steps");
    let (status, screen) = terminal.wait();
    assert_eq!(status.code(), Some(0), "{screen}");
    assert!(screen.contains("=>") || screen.contains("=="), "no bar was drawn: {screen:?}");
}

#[test]
fn no_progress_bar_without_a_terminal() {
    let output = common::toolwire()
        .args(["call", "steps", "--args", r#"{"count": 2}"#, "-m"])
        .arg(example())
        .output();
    let output = output.unwrap_or_else(|error| panic!("toolwire did not run: {error}"));
    assert_eq!(common::stdout(&output), "finished 2 steps\n");
    assert_eq!(common::stderr(&output), "");
}
