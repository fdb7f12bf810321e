//! An MCP client for the official conformance suite: it connects to the suite's mock server
//! over streamable HTTP, imports its tools into a toolwire registry and calls them.
//!
//! The suite (npm `@modelcontextprotocol/conformance`) runs it as
//! `mcp_conformance_client <serverUrl>`, with the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`:
//!
//! ```text
//! npx conformance client --command "target/debug/examples/mcp_conformance_client" --scenario initialize
//! ```
//!
//! It offers MCP 2026-07-28, toolwire's default, through `server/discover`, except in the
//! scenarios that test a 2025-11-25 session (`initialize`, `sse-retry` and
//! `elicitation-sep1034-client-defaults`), whose mock servers answer `server/discover` with an
//! empty result rather than an error, so the client could not tell they are older.
//!
//! What each scenario needs:
//! - `initialize`: the handshake, offering protocol 2025-11-25 and a client name and version;
//! - `tools_call`: call `add_numbers` (on either revision);
//! - `request-metadata`: on 2026-07-28, the protocol version, client info and capabilities
//!   in every request's `_meta`, and the `MCP-Protocol-Version` header;
//! - `elicitation-sep1034-client-defaults`: declare elicitation and accept it, filling in the
//!   requested schema's defaults;
//! - `sse-retry`: call the tool whose SSE stream the server closes; rmcp's transport resumes
//!   it by GET with `Last-Event-ID` after the `retry:` delay.
//!
//! - `auth/*`: log in when the server answers 401, through `toolwire_mcp::client::oauth`
//!   with a [`HeadlessAuthorizer`] (the suite's authorization server redirects at once), the
//!   tokens kept in memory; a pre-registered client id and secret come from the scenario's
//!   `MCP_CONFORMANCE_CONTEXT`, and the client's metadata document is the suite's. A
//!   scenario that tests a refusal expects the login to fail, and then the client exits
//!   non-zero.
//!
//! Other scenarios call every tool with empty arguments. The exit code is 0 when every call
//! succeeded.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::Registry;
use toolwire_mcp::client::oauth::{HeadlessAuthorizer, TokenStore};
use toolwire_mcp::client::{
    ClientOptions, ElicitationReply, HttpConfig, OAuthSettings, RemoteServer,
};

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: mcp_conformance_client <server-url>");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match run(&url, &scenario).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("scenario {scenario:?}: {why}");
            ExitCode::FAILURE
        }
    }
}

/// The scenarios of a 2025-11-25 session.
const LEGACY_SCENARIOS: [&str; 3] =
    ["initialize", "sse-retry", "elicitation-sep1034-client-defaults"];

/// Connects, runs the scenario's calls and closes the session.
async fn run(url: &str, scenario: &str) -> Result<(), String> {
    let mut options = ClientOptions::new()
        .client_info("toolwire-conformance-client", env!("CARGO_PKG_VERSION"))
        .idle_timeout(Duration::from_secs(20))
        .on_elicitation(|request| async move {
            eprintln!("elicitation from {}: {}", request.server, request.message);
            ElicitationReply::accept_defaults(&request.schema)
        });
    if LEGACY_SCENARIOS.contains(&scenario) {
        options = options.protocol_version("2025-11-25");
    }
    let mut config = HttpConfig::new(url);
    if scenario.starts_with("auth/") {
        let authorizer = HeadlessAuthorizer::new(REDIRECT_URI)?;
        options = options.logins(TokenStore::in_memory()).authorizer(authorizer);
        config = config.oauth(oauth_settings());
    }
    let server = RemoteServer::connect("conformance", &config.into(), options)
        .await
        .map_err(|e| e.to_string())?;
    let import = server.import();
    let names = import.names.clone();
    let registry =
        Registry::builder().register_all(import.tools).seal().map_err(|e| e.to_string())?;
    let outcome = call_tools(&registry, &names, scenario).await;
    server.close().await;
    outcome
}

/// Where the suite's authorization server is told to redirect; nothing listens there, the
/// headless authorizer reads the redirect instead.
const REDIRECT_URI: &str = "http://127.0.0.1:3000/callback";

/// The client's metadata document, as the suite expects it (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The login's settings: the suite's metadata document, and the pre-registered client of
/// the scenario's context (`auth/pre-registration`), if any.
fn oauth_settings() -> OAuthSettings {
    let mut settings = OAuthSettings::new().client_metadata_url(CLIENT_METADATA_URL);
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    if let Some(id) = context.get("client_id").and_then(Value::as_str) {
        settings = settings.client_id(id);
    }
    if let Some(secret) = context.get("client_secret").and_then(Value::as_str) {
        settings = settings.client_secret(secret);
    }
    settings
}

/// The calls of the scenario: `add_numbers` for `tools_call`, every tool otherwise.
async fn call_tools(
    registry: &Registry,
    names: &toolwire::provider::names::NameMapper,
    scenario: &str,
) -> Result<(), String> {
    let calls: Vec<(String, Value)> = match scenario {
        "initialize" => Vec::new(),
        "tools_call" => vec![("add_numbers".into(), json!({"a": 5, "b": 3}))],
        _ => registry
            .tools()
            .iter()
            .filter_map(|tool| names.original_name(tool.name()))
            .filter_map(|name| name.strip_prefix("conformance__"))
            .map(|name| (name.to_owned(), json!({})))
            .collect(),
    };
    for (tool, args) in calls {
        let local = names
            .provider_name(&format!("conformance__{tool}"))
            .ok_or_else(|| format!("the server has no tool {tool:?}"))?;
        let receipt = registry.invoke(local, args).await;
        let result = &receipt.result;
        println!("{tool}: {}", serde_json::to_string(result).unwrap_or_default());
        if !result.is_success() {
            return Err(format!("{tool} failed: {}", result.text().unwrap_or_default()));
        }
    }
    Ok(())
}
