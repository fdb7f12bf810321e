//! `toolwire`: declare tools in a TOML manifest, call them, serve them over MCP, and lint them
//! for every model provider.
//!
//! Run `toolwire --help` for the commands, and `toolwire call --help` for the exit codes.

#![forbid(unsafe_code)]

mod agent;
mod api_key;
mod build;
mod cli;
mod commands;
mod exit;
mod form;
mod hint;
mod http_tool;
mod import;
mod inbox;
mod interrupt;
mod journal;
mod login;
mod manifest;
mod parts;
mod principal;
mod progress;
mod prompt;
mod remote;
mod report;
mod users;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use crate::cli::{Cli, Command, McpCommand, UsersCommand};
use crate::exit::{CliError, Exit};
use crate::hint::Places;

/// mimalloc instead of glibc's allocator: as a gateway, `toolwire serve` spent a fifth of its
/// CPU in glibc's malloc and free, with lock waits (BENCHMARKS.md, issue 44).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How long the end of the program waits for blocked reads (such as stdin's) to return.
const SHUTDOWN: Duration = Duration::from_millis(500);

fn main() -> ExitCode {
    // A command tool's sandbox is applied by this binary, started again as its launcher.
    toolwire_process::launcher::run_if_requested();
    let cli = Cli::parse();
    // Before the runtime, and dropped after it: the exporter's client blocks.
    let _traces = match traces(cli.otlp.as_deref()) {
        Ok(guard) => guard,
        Err(error) => {
            eprintln!("error: {error}");
            return Exit::Usage.into();
        }
    };
    let outcome = runtime(&cli.command).and_then(|runtime| {
        let outcome = runtime.block_on(interrupt::until_stopped(run(cli)));
        // Drops the tasks left (killing the process groups of their commands).
        runtime.shutdown_timeout(SHUTDOWN);
        outcome
    });
    match outcome {
        Ok(exit) => exit.into(),
        Err(error) => {
            eprintln!("error: {error}");
            error.exit().into()
        }
    }
}

/// The OTLP export of traces and metrics `--otlp` or the OTEL_* variables ask for; `None`
/// when neither does.
fn traces(otlp: Option<&str>) -> Result<Option<toolwire_otel::OtelGuard>, CliError> {
    let config = match otlp {
        Some(url) => toolwire_otel::OtelConfig::from_env_at(url),
        None => toolwire_otel::OtelConfig::from_env(),
    };
    let Some(config) = config else { return Ok(None) };
    toolwire_otel::install(config).map(Some).map_err(CliError::usage)
}

/// A runtime on this thread for one call; worker threads for a server.
fn runtime(command: &Command) -> Result<tokio::runtime::Runtime, CliError> {
    let mut builder = match command {
        Command::Serve(_) | Command::Inbox(_) => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    };
    builder.enable_all().build().map_err(|error| {
        CliError::with_exit(Exit::Usage, format!("cannot start the runtime: {error}"))
    })
}

async fn run(cli: Cli) -> Result<Exit, CliError> {
    let manifest = cli.manifest.as_path();
    let journal = cli.journal.as_deref();
    let lease = match cli.lease {
        Some(lease) => Some(lease),
        None => lease_from_env()?,
    };
    let places = Places { manifest, journal, lease };
    match cli.command {
        Command::Serve(args) => commands::serve::run(places, args).await,
        Command::Call(args) => commands::call::run(places, args).await,
        Command::Schema(args) => commands::schema::run(manifest, args.provider).await,
        Command::Check => commands::check::run(manifest, journal).await,
        Command::Users(UsersCommand::Add { name, file }) => {
            let token = users::add(&file, &name)?;
            eprintln!("added {name:?} to {}; its token, shown only now:", file.display());
            println!("{token}");
            Ok(exit::Exit::Success)
        }
        Command::Mcp(McpCommand::Import { config, json }) => {
            import::list_tools(&config, json).await
        }
        Command::Mcp(McpCommand::Accept { target }) => {
            let loaded = manifest::Manifest::load(manifest)?;
            let mut lock = remote::LockFile::beside(manifest).map_err(CliError::usage)?;
            remote::accept(&loaded, &mut lock, &target).await
        }
        Command::Mcp(McpCommand::Login { server, no_browser, timeout }) => {
            login::login(manifest, &server, no_browser, timeout).await
        }
        Command::Mcp(McpCommand::Logout { server }) => login::logout(manifest, &server),
        Command::Mcp(McpCommand::Status { json }) => login::status(manifest, json),
        Command::Run(args) => agent::run(places, args).await,
        Command::Approvals(command) => commands::journaled::approvals(places, command).await,
        Command::Resolve(args) => commands::resolve::run(places, args).await,
        Command::Log(args) => commands::journaled::log(places, args).await,
        Command::Inbox(args) => {
            let options =
                inbox::Options { addr: args.addr, users: args.users, notify: args.notify };
            inbox::run(places, options).await
        }
    }
}

/// `TOOLWIRE_LEASE`, when set.
fn lease_from_env() -> Result<Option<Duration>, CliError> {
    let Some(text) = std::env::var_os("TOOLWIRE_LEASE") else { return Ok(None) };
    let text = text.to_string_lossy();
    cli::lease(&text)
        .map(Some)
        .map_err(|why| CliError::usage(format!("invalid TOOLWIRE_LEASE {text:?}: {why}")))
}
