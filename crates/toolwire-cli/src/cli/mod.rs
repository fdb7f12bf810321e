//! The command line: every subcommand and flag, as clap reads them.

use std::path::PathBuf;
use std::time::Duration;

use toolwire::Provider;

use clap::{Args, Parser, Subcommand};

mod journaled;

pub(crate) use journaled::{ApprovalsCommand, LogArgs, ResolveArgs};

/// The manifest read unless `--manifest` names another.
pub(crate) const DEFAULT_MANIFEST: &str = "toolwire.toml";

/// The turn limit of `toolwire run`, unless `--max-turns` says otherwise.
pub(crate) const DEFAULT_MAX_TURNS: u32 = 16;

/// The exit codes, as `--help` documents them.
pub(crate) const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  the tool failed (its result says why)
  2  usage or manifest error
  3  the call waits for an approval (answer it with `toolwire approvals`)
  4  unknown outcome: a crash cut the call off, and the tool is not idempotent
     (settle it with `toolwire resolve CALL_ID`)
  130  interrupted (SIGINT, SIGTERM or SIGHUP): the calls under way were stopped, with
       every process they started";

/// Declare tools in a TOML manifest, call them, serve them over MCP, and lint them for every
/// model provider.
#[derive(Debug, Parser)]
#[command(name = "toolwire", version, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    /// The manifest of tools.
    #[arg(long, short, global = true, value_name = "PATH", default_value = DEFAULT_MANIFEST)]
    pub(crate) manifest: PathBuf,
    /// The journal: an SQLite file, by default `journal.sqlite` in the platform's data folder,
    /// or a PostgreSQL URL (postgres://...) that several processes share.
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub(crate) journal: Option<PathBuf>,
    /// How long the journal holds a running call for its process (30s by default; also
    /// TOOLWIRE_LEASE). After a crash, the call's id is held this long before it reports an
    /// unknown outcome; with serve, a stopped server's MCP tasks are held this long before
    /// another server takes them over.
    #[arg(long, global = true, value_name = "DURATION", value_parser = lease)]
    pub(crate) lease: Option<Duration>,
    /// Export traces (OpenTelemetry GenAI spans: execute_tool, invoke_agent, chat) to the
    /// OTLP/HTTP receiver at URL, such as http://127.0.0.1:4318; also
    /// OTEL_EXPORTER_OTLP_ENDPOINT, with OTEL_SERVICE_NAME (default toolwire).
    #[arg(long, global = true, value_name = "URL")]
    pub(crate) otlp: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Serve the manifest's tools over MCP, on stdio or streamable HTTP.
    ///
    /// With --journal, approvals are sealed with the journal's key and spent in it: servers
    /// that share a journal (a PostgreSQL URL) accept each other's MCP 2026-07-28
    /// requestStates, each once, so a load balancer may send a client's retry to any of them.
    Serve(ServeArgs),
    /// Run one call of a tool.
    #[command(after_help = EXIT_CODES)]
    Call(CallArgs),
    /// Print the tools' definitions for a provider, and each schema's change report.
    Schema(SchemaArgs),
    /// Lint the manifest for every provider.
    Check,
    /// Work with MCP servers' configurations.
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Run the agent loop on a prompt with the manifest's tools.
    ///
    /// The API key comes from OPENAI_API_KEY (openai, responses), ANTHROPIC_API_KEY, or
    /// GEMINI_API_KEY (then GOOGLE_API_KEY). It is required for the provider's own API, and
    /// optional for a server given with --base-url on another host.
    ///
    /// A call that needs approval is accepted with --yes or asked in the terminal; otherwise
    /// the run is kept in the journal and exits 3, to be answered with `toolwire approvals
    /// answer` and continued with `toolwire approvals resume RUN_ID`.
    #[command(after_help = EXIT_CODES)]
    Run(RunArgs),
    /// List, answer and resume the calls and agent runs that wait for an approval in the
    /// journal.
    #[command(subcommand)]
    Approvals(ApprovalsCommand),
    /// Settle a call whose outcome is unknown (exit code 4): a crash cut it off, and its
    /// tool is not idempotent, so only you can tell whether it took effect.
    Resolve(ResolveArgs),
    /// Show the audit trail from the journal.
    Log(LogArgs),
    /// Manage the users file: the named clients of `serve --http --users FILE`, or the
    /// approvers of `inbox --users FILE`.
    #[command(subcommand)]
    Users(UsersCommand),
    /// Answer waiting calls in the browser: a page listing every call, agent run and MCP
    /// task that waits for an approval in the journal, with a JSON API under it.
    ///
    /// It prints its address with an access token (http://127.0.0.1:PORT/?token=...), which
    /// the page exchanges for a session cookie. An approval runs the call (or continues the
    /// run) exactly once, and the journal records who gave it.
    Inbox(InboxArgs),
}

/// `toolwire inbox`.
#[derive(Debug, Args)]
pub(crate) struct InboxArgs {
    /// Listen at ADDR (loopback by default).
    #[arg(long, value_name = "ADDR", default_value = crate::inbox::DEFAULT_ADDR)]
    pub(crate) addr: String,
    /// Approvers: a users file (`toolwire users add NAME --file FILE`); each token logs in
    /// as its name, which the journal records with every answer.
    #[arg(long, value_name = "FILE")]
    pub(crate) users: Option<PathBuf>,
    /// POST a small JSON message to URL whenever a call starts waiting.
    #[arg(long, value_name = "URL")]
    pub(crate) notify: Option<String>,
}

/// `toolwire users`.
#[derive(Debug, Subcommand)]
pub(crate) enum UsersCommand {
    /// Add a user with a new random token, printed once on stdout; the file keeps only its
    /// SHA-256. The file is made, readable by its owner only, if it does not exist.
    Add {
        /// The user's name: what policies see as `Client::"NAME"` and receipts record.
        name: String,
        /// The users file.
        #[arg(long, value_name = "FILE")]
        file: PathBuf,
    },
}

/// `toolwire serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Serve streamable HTTP at ADDR, at /mcp, instead of stdio; without ADDR, 127.0.0.1:3000.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:3000")]
    pub(crate) http: Option<String>,
    /// Require this bearer token on HTTP, read from the environment variable NAME.
    #[arg(long, value_name = "NAME", requires = "http")]
    pub(crate) token_env: Option<String>,
    /// Named clients on HTTP: a TOML file of `[[user]]` entries (`name`, `token_sha256`),
    /// made with `toolwire users add`. A request's token names its client, which policies
    /// see as `Client::"NAME"`. With --token-env too, either token is accepted.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub(crate) users: Option<PathBuf>,
    /// Serve the approvals inbox too, at ADDR (without ADDR, 127.0.0.1:8380), as
    /// `toolwire inbox` does; needs --journal.
    #[arg(
        long,
        value_name = "ADDR",
        num_args = 0..=1,
        default_missing_value = crate::inbox::DEFAULT_ADDR,
        requires = "http"
    )]
    pub(crate) inbox: Option<String>,
    /// The inbox's approvers: a users file of their tokens (not --users: the MCP clients
    /// named there do not approve their own calls).
    #[arg(long, value_name = "FILE", requires = "inbox")]
    pub(crate) inbox_users: Option<PathBuf>,
    /// With --inbox: POST a small JSON message to URL whenever a call starts waiting.
    #[arg(long, value_name = "URL", requires = "inbox")]
    pub(crate) notify: Option<String>,
}

/// `toolwire call`.
#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// The tool's name.
    pub(crate) name: String,
    /// The arguments, as a JSON object.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub(crate) args: String,
    /// Approve the call without asking.
    #[arg(long, short)]
    pub(crate) yes: bool,
    /// Print the receipt as JSON on stdout, and show no progress bar or prompt.
    #[arg(long)]
    pub(crate) json: bool,
    /// Run the call through the journal under this id: once only, its result recorded.
    #[arg(long, value_name = "ID")]
    pub(crate) call_id: Option<String>,
    /// Give the call a deadline, such as 10s.
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub(crate) timeout: Option<Duration>,
    /// Write the result's images, audio, files and resources into this folder, one file
    /// each, named `<n>-<name>`.
    #[arg(long, value_name = "DIR")]
    pub(crate) save: Option<PathBuf>,
}

/// `toolwire schema`.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The provider whose definitions to print.
    #[arg(long, short, value_parser = ProviderParser)]
    pub(crate) provider: Provider,
}

/// Reads a provider on the command line as [`Provider`]'s `FromStr` does (any case, and its
/// other names), offering every provider's name in help and completions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProviderParser;

impl clap::builder::TypedValueParser for ProviderParser {
    type Value = Provider;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Provider, clap::Error> {
        let text = value.to_string_lossy();
        text.parse::<Provider>().map_err(|error| {
            clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{error}\n"))
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let names = Provider::ALL
            .into_iter()
            .map(|p| clap::builder::PossibleValue::new(p.as_str()).help(p.title()));
        Some(Box::new(names))
    }
}

/// `toolwire mcp`.
#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// List the tools of the MCP servers configured in an mcp.json, as they would be imported.
    ///
    /// Exits 1 when a server cannot be reached (the others are still listed).
    Import {
        /// The configuration (`{"mcpServers": {...}}`).
        config: PathBuf,
        /// Print the tools' MCP definitions as one JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Trust the current definitions of an MCP server's tools (SERVER), or of one of them
    /// (the name it is imported under, such as SERVER__TOOL), in toolwire.lock beside the
    /// manifest.
    ///
    /// A tool that is not pinned there is not imported; one whose definition changed since
    /// is refused, naming the change, until it is accepted again.
    Accept {
        /// The server's name in the manifest, or the tool's imported name.
        target: String,
    },
    /// Log in to an MCP server over HTTP that needs OAuth (the MCP authorization flow).
    ///
    /// Opens the authorization page in a browser (and prints its address), waits for the
    /// redirect on a loopback port, and keeps the tokens in a file only you can read, in
    /// $XDG_CONFIG_HOME/toolwire/logins (else ~/.config/toolwire/logins). `call`, `run`,
    /// `serve` and `check` then use the login, and renew it while they can.
    Login {
        /// The server's name in the manifest.
        server: String,
        /// Print the address only; start no browser.
        #[arg(long)]
        no_browser: bool,
        /// How long to wait for the login to be completed in the browser.
        #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = login_timeout)]
        timeout: Duration,
    },
    /// Forget the stored login of an MCP server.
    Logout {
        /// The server's name in the manifest.
        server: String,
    },
    /// Show each MCP server over HTTP and its login: whether there is one, its client, its
    /// scopes and when it expires. Never a token.
    Status {
        /// Print one JSON array.
        #[arg(long)]
        json: bool,
    },
}

/// `toolwire run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// What to ask the model.
    pub(crate) prompt: String,
    /// The model, as PROVIDER:MODEL (such as anthropic:claude-sonnet-4-5).
    #[arg(long, value_name = "PROVIDER:MODEL")]
    pub(crate) model: String,
    /// Stop after this many model turns since the prompt, counted over every resumption.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TURNS)]
    pub(crate) max_turns: u32,
    /// Send the requests to this server instead of the provider's own (any server speaking
    /// the provider's API, such as an OpenAI-compatible one), which may need no API key.
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,
    /// Approve every call without asking.
    #[arg(long, short)]
    pub(crate) yes: bool,
}

/// A lease: a duration longer than zero.
pub(crate) fn lease(text: &str) -> Result<Duration, String> {
    match duration(text)? {
        lease if lease.is_zero() => Err("a lease must be longer than zero".to_owned()),
        lease => Ok(lease),
    }
}

/// A login's timeout: a duration longer than zero.
fn login_timeout(text: &str) -> Result<Duration, String> {
    match duration(text)? {
        timeout if timeout.is_zero() => Err("a timeout must be longer than zero".to_owned()),
        timeout => Ok(timeout),
    }
}

/// A duration such as `10s` or `1m 30s`.
fn duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text).map_err(|error| error.to_string())
}
