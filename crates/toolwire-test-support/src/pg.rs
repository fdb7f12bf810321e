//! The PostgreSQL server of the tests and benchmarks that need one (toolwire-journal's and
//! toolwire-cli's): the one `TOOLWIRE_TEST_PG_URL` names, or else a throwaway server that this
//! process starts once, from the machine's `initdb` and `postgres`, and that stops when the
//! process exits.
//!
//! The throwaway server lives in a temporary folder and listens on a free loopback port, with
//! a superuser `toolwire` whose password is made at random. It runs as the process's own user;
//! as root, which `initdb` and `postgres` refuse, it runs as the `postgres` account, which then
//! owns the folder. Its postmaster is the child of a watchdog, `/bin/sh`, whose standard input
//! is a pipe that this process holds for as long as it lives: when the process exits, however
//! it exits (its statics are never dropped, and a SIGKILL runs nothing), the kernel closes the
//! pipe, and the watchdog stops the server (a fast shutdown) and removes the folder.

use std::fs::File;
use std::io::{Read, Seek};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use sqlx::Connection;

/// The watchdog: starts the postmaster (`$1`) on the data folder `$2` and port `$3`, stops it
/// when its standard input closes (SIGQUIT, PostgreSQL's immediate shutdown: the data is thrown
/// away), then removes the folder `$4`. It exits when the postmaster does, so a server that
/// fails to start shows as a watchdog that ended.
///
/// It ignores the signals a terminal or a runner sends a whole process group (SIGINT, SIGQUIT,
/// SIGHUP, SIGTERM), so that it outlives the test process and cleans up after it; the
/// postmaster sets its own handlers, and the reader of the pipe is ended with SIGKILL.
const WATCHDOG: &str = r#"
exec 3<&0
trap '' INT QUIT HUP TERM
"$1" -D "$2" -p "$3" -c listen_addresses=127.0.0.1 -c unix_socket_directories= \
  -c max_connections=200 &
server=$!
( read -r _ <&3; kill -QUIT "$server" 2>/dev/null ) &
reader=$!
wait "$server"
kill -KILL "$reader" 2>/dev/null
rm -rf "$4"
"#;

/// How long the server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A throwaway server, started by [`throwaway`].
#[derive(Debug)]
pub struct Server {
    /// A superuser's URL, to the `postgres` database.
    pub url: String,
    /// The loopback port it listens on.
    pub port: u16,
    /// Its temporary folder, which the watchdog removes after stopping it.
    pub dir: PathBuf,
    /// The watchdog's standard input, never written: it closes when this process exits.
    _lifeline: ChildStdin,
    _watchdog: Child,
}

/// The URL of a role that may create databases: `TOOLWIRE_TEST_PG_URL` when it is set, or
/// else the throwaway server's, which the first call starts. It may block for seconds.
pub fn admin_url() -> Result<String, String> {
    match std::env::var("TOOLWIRE_TEST_PG_URL") {
        Ok(url) => Ok(url),
        Err(_) => throwaway().map(|server| server.url.clone()),
    }
}

/// This process's throwaway server, started on the first call; every call after it gets the
/// same server, or the same reason it could not start.
pub fn throwaway() -> Result<&'static Server, String> {
    static SERVER: OnceLock<Result<Server, String>> = OnceLock::new();
    SERVER.get_or_init(start).as_ref().map_err(Clone::clone)
}

/// Creates a database named `prefix` and a random suffix on the test server, and returns its
/// URL. Fails (never skips) when there is no server.
pub async fn fresh_database(prefix: &str) -> String {
    let admin = tokio::task::spawn_blocking(admin_url)
        .await
        .unwrap_or_else(|e| panic!("starting the throwaway PostgreSQL panicked: {e}"))
        .unwrap_or_else(|why| panic!("{why}"));
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap_or_else(|e| {
        let whose = match std::env::var_os("TOOLWIRE_TEST_PG_URL") {
            Some(_) => "named by TOOLWIRE_TEST_PG_URL",
            None => "the throwaway server",
        };
        panic!(
            "the PostgreSQL tests cannot reach their server at {} ({whose}): {e}",
            redacted(&admin)
        )
    });
    let name = format!("{prefix}_{:016x}", fastrand::u64(..));
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("CREATE DATABASE {name} on {}: {e}", redacted(&admin)));
    let _ = conn.close().await;
    let (base, _) = admin.rsplit_once('/').expect("a database URL with a path");
    format!("{base}/{name}")
}

/// `url` without its password, for messages.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{}{user}:***{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_owned(),
    }
}

/// Starts the server; a start that loses its port to another process is tried again.
fn start() -> Result<Server, String> {
    let bin = server_binaries()?;
    let mut tries = 0;
    loop {
        tries += 1;
        match start_once(&bin) {
            Err(Start::PortTaken(_)) if tries < 3 => continue,
            Err(Start::PortTaken(why) | Start::Failed(why)) => return Err(why),
            Ok(server) => return Ok(server),
        }
    }
}

/// Why a start failed.
enum Start {
    /// Another process took the free port first.
    PortTaken(String),
    Failed(String),
}

fn start_once(bin: &Path) -> Result<Server, Start> {
    let folder = tempfile::Builder::new().prefix("toolwire-pg-").tempdir().map_err(|e| {
        Start::Failed(format!("cannot make a temporary folder for PostgreSQL: {e}"))
    })?;
    let dir = folder.path().to_owned();
    let account = server_account(&dir).map_err(Start::Failed)?;
    if let Some((uid, gid)) = account {
        std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).map_err(|e| {
            Start::Failed(format!("cannot give {} to the postgres account: {e}", dir.display()))
        })?;
    }
    let password = format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..));
    init(bin, &dir, account, &password).map_err(Start::Failed)?;

    let port = free_port().map_err(Start::Failed)?;
    let log_path = dir.join("server.log");
    let log = File::create(&log_path)
        .map_err(|e| Start::Failed(format!("cannot make {}: {e}", log_path.display())))?;
    // Read through a handle of its own: the watchdog removes the file when the server ends.
    let mut reader = File::open(&log_path)
        .map_err(|e| Start::Failed(format!("cannot read {}: {e}", log_path.display())))?;
    let stderr =
        log.try_clone().map_err(|e| Start::Failed(format!("cannot share the log: {e}")))?;
    let mut watchdog = Command::new("/bin/sh");
    watchdog
        .args(["-c", WATCHDOG, "toolwire-pg-watchdog"])
        .arg(bin.join("postgres"))
        .arg(dir.join("data"))
        .arg(port.to_string())
        .arg(&dir)
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(log)
        .stderr(stderr);
    as_account(&mut watchdog, account);
    let mut watchdog = watchdog
        .spawn()
        .map_err(|e| Start::Failed(format!("cannot start /bin/sh for PostgreSQL: {e}")))?;
    let lifeline = watchdog.stdin.take().expect("a piped stdin");
    // From here the watchdog owns the folder: it removes it when the server ends.
    let dir = folder.keep();

    let started = Instant::now();
    loop {
        if is_ready(&dir.join("data")) {
            let url = format!("postgres://toolwire:{password}@127.0.0.1:{port}/postgres");
            return Ok(Server { url, port, dir, _lifeline: lifeline, _watchdog: watchdog });
        }
        let ended = watchdog.try_wait().ok().flatten();
        if ended.is_some() || started.elapsed() > START_TIMEOUT {
            drop(lifeline); // stops the server, if it runs, and removes the folder
            let _ = watchdog.wait();
            let text = tail(&mut reader);
            let why = match ended {
                Some(status) => format!("it exited ({status})"),
                None => format!("it did not accept connections within {START_TIMEOUT:?}"),
            };
            let message = format!(
                "the throwaway PostgreSQL ({}) on port {port} did not start: {why}; its log:\n{text}",
                bin.join("postgres").display()
            );
            return Err(if text.contains("could not bind") || text.contains("already in use") {
                Start::PortTaken(message)
            } else {
                Start::Failed(message)
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `initdb` into `dir/data`, with the superuser `toolwire` and `password`.
fn init(bin: &Path, dir: &Path, account: Option<(u32, u32)>, password: &str) -> Result<(), String> {
    let pwfile = dir.join("password");
    std::fs::write(&pwfile, password)
        .map_err(|e| format!("cannot write {}: {e}", pwfile.display()))?;
    if let Some((uid, gid)) = account {
        std::os::unix::fs::chown(&pwfile, Some(uid), Some(gid)).map_err(|e| {
            format!("cannot give {} to the postgres account: {e}", pwfile.display())
        })?;
    }
    let mut initdb = Command::new(bin.join("initdb"));
    initdb
        .arg("--pgdata")
        .arg(dir.join("data"))
        .args(["--username=toolwire", "--auth=scram-sha-256", "--locale=C", "--encoding=UTF8"])
        .arg("--no-sync")
        .arg(format!("--pwfile={}", pwfile.display()))
        .current_dir(dir)
        .stdin(Stdio::null());
    as_account(&mut initdb, account);
    let output =
        initdb.output().map_err(|e| format!("cannot run {}: {e}", bin.join("initdb").display()))?;
    let _ = std::fs::remove_file(&pwfile);
    if output.status.success() {
        return Ok(());
    }
    let reach = match account {
        Some(_) => {
            " (as root, the tests run it as the postgres account, which must reach the folder)"
        }
        None => "",
    };
    Err(format!(
        "{} failed ({}) in {}{reach}:\n{}{}",
        bin.join("initdb").display(),
        output.status,
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// Runs `command` as `account`, when there is one.
fn as_account(command: &mut Command, account: Option<(u32, u32)>) {
    if let Some((uid, gid)) = account {
        command.uid(uid).gid(gid);
    }
}

/// `None` to run the server as this process's user; as root, which PostgreSQL refuses, the
/// uid and gid of the `postgres` account. `dir`, just made, tells who this process is.
fn server_account(dir: &Path) -> Result<Option<(u32, u32)>, String> {
    let owner =
        std::fs::metadata(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?.uid();
    if owner != 0 {
        return Ok(None);
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let account = passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        match fields.as_slice() {
            ["postgres", _, uid, gid, ..] => Some((uid.parse().ok()?, gid.parse().ok()?)),
            _ => None,
        }
    });
    account.map(Some).ok_or_else(|| {
        "the journal's PostgreSQL tests run as root, and initdb refuses root: they run the \
         throwaway server as the `postgres` account, which this machine does not have (create \
         it, e.g. `useradd --system postgres`, which Debian's postgresql package does), or set \
         TOOLWIRE_TEST_PG_URL to a server whose role may create databases"
            .to_owned()
    })
}

/// The folder with PostgreSQL's `initdb` and `postgres`: `pg_config --bindir`, then `PATH`,
/// then `/usr/lib/postgresql/*/bin`, newest version first.
fn server_binaries() -> Result<PathBuf, String> {
    let mut places = Vec::new();
    if let Ok(output) = Command::new("pg_config").arg("--bindir").output()
        && output.status.success()
    {
        places.push(PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()));
    }
    if let Some(path) = std::env::var_os("PATH") {
        places.extend(std::env::split_paths(&path));
    }
    places.extend(debian_versions(Path::new("/usr/lib/postgresql")));
    places
        .into_iter()
        .find(|dir| dir.join("initdb").is_file() && dir.join("postgres").is_file())
        .ok_or_else(|| {
            "the journal's PostgreSQL tests start a throwaway server from PostgreSQL's `initdb` \
             and `postgres`, and found no folder with both (looked in `pg_config --bindir`, PATH and \
             /usr/lib/postgresql/*/bin): install PostgreSQL's server binaries (Debian: apt-get \
             install postgresql; Fedora: dnf install postgresql-server; macOS: brew install \
             postgresql), or set TOOLWIRE_TEST_PG_URL to a server whose role may create databases"
                .to_owned()
        })
}

/// `root/VERSION/bin` for each version folder in `root`, newest first.
fn debian_versions(root: &Path) -> Vec<PathBuf> {
    let mut versions: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let version = name.split('.').map(str::parse).collect::<Result<Vec<u32>, _>>().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    versions.sort_by(|a, b| b.0.cmp(&a.0));
    versions.into_iter().map(|(_, bin)| bin).collect()
}

/// A loopback port that nothing listens on right now.
fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("cannot find a free loopback port: {e}"))?;
    listener.local_addr().map(|addr| addr.port()).map_err(|e| format!("no local address: {e}"))
}

/// Whether the postmaster in `data` accepts connections: the status line of its
/// `postmaster.pid` (its eighth) says `ready`.
fn is_ready(data: &Path) -> bool {
    std::fs::read_to_string(data.join("postmaster.pid"))
        .is_ok_and(|pid| pid.lines().nth(7).is_some_and(|status| status.trim() == "ready"))
}

/// The last lines of the log.
fn tail(log: &mut File) -> String {
    let mut text = String::new();
    let _ = log.rewind();
    let _ = log.read_to_string(&mut text);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}
