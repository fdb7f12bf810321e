//! The throwaway PostgreSQL server that the tests start when `TOOLWIRE_TEST_PG_URL` is not set
//! (`toolwire_test_support::pg`) is gone once its test process is: stopped, and its folder
//! removed, whether the process exits as `cargo test` ends it (its statics never dropped) or
//! is killed.
//!
//! The test processes are this test binary itself, started again with
//! `TOOLWIRE_PG_SERVER_CHILD` set: see [`server_process`].

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::pg;

const CHILD: &str = "TOOLWIRE_PG_SERVER_CHILD";

/// With `TOOLWIRE_PG_SERVER_CHILD` set, this process is a test process that starts the
/// server, makes a database on it, prints `server PORT PID FOLDER`, and then exits (`exit`) or
/// waits to be killed (`kill`). Without it, it checks that after each way of ending, nothing of
/// the server is left.
#[test]
fn server_process() {
    match std::env::var(CHILD).ok().as_deref() {
        Some(mode) => start_and_end(mode),
        None if std::env::var_os("TOOLWIRE_TEST_PG_URL").is_some() => {
            eprintln!("TOOLWIRE_TEST_PG_URL is set: the tests start no throwaway server to check");
        }
        None => {
            for mode in ["exit", "kill"] {
                nothing_is_left_after(mode);
            }
        }
    }
}

fn start_and_end(mode: &str) {
    let server = pg::throwaway().unwrap_or_else(|why| panic!("{why}"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let url = runtime.block_on(pg::fresh_database("toolwire_test"));
    assert!(url.starts_with("postgres://"), "{url}");
    let pid = std::fs::read_to_string(server.dir.join("data/postmaster.pid")).unwrap();
    let pid = pid.lines().next().unwrap().trim().to_owned();
    println!("server {} {pid} {}", server.port, server.dir.display());
    if mode == "kill" {
        std::thread::sleep(Duration::from_secs(120));
    }
}

fn nothing_is_left_after(mode: &str) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "pg_server::server_process", "--nocapture", "--test-threads=1"])
        .env(CHILD, mode)
        .env_remove("TOOLWIRE_TEST_PG_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    // Read to the end on a thread of its own: a child whose stdout closed would fail to print.
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (lines, found) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let line = found
        .iter()
        .find_map(|line| line.find("server ").map(|at| line[at + 7..].to_owned()))
        .unwrap_or_else(|| panic!("the {mode} child reported no server"));
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [port, pid, dir] = fields[..] else { panic!("a server line: {line:?}") };
    let (port, dir): (u16, PathBuf) = (port.parse().unwrap(), PathBuf::from(dir));
    assert!(listening(port), "the server listened while its process lived");
    assert!(running(pid), "the postmaster ran while its process lived");
    if mode == "kill" {
        child.kill().unwrap(); // SIGKILL: nothing of the process runs
    }
    let status = child.wait().unwrap();
    assert!(mode == "kill" || status.success(), "the {mode} child failed: {status}");
    let started = Instant::now();
    while listening(port) || running(pid) || dir.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "after the {mode} child ended, its server is left: listening {}, postmaster {pid} \
             running {}, {} exists {}",
            listening(port),
            running(pid),
            dir.display(),
            dir.exists()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!Path::new(&dir).exists());
}

fn listening(port: u16) -> bool {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    std::net::TcpStream::connect_timeout(&address, Duration::from_secs(1)).is_ok()
}

/// Whether the process `pid` exists (`kill -0`, which a zombie passes too).
fn running(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}
