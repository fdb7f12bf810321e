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

/// The calls of the scenario: those its context lists (`toolCalls`), if any; `add_numbers`
/// for `tools_call`; the echo of the focal tool's schema, as imported, for
/// `json-schema-2020-12-preservation`; otherwise every tool, with arguments made from its
/// schema. Every call is made; the first failure is returned.
async fn call_tools(
    registry: &Registry,
    names: &toolwire::provider::names::NameMapper,
    scenario: &str,
) -> Result<(), String> {
    let remote = |tool: &toolwire::Tool| {
        names
            .original_name(tool.name())
            .and_then(|n| n.strip_prefix("conformance__"))
            .map(str::to_owned)
    };
    let calls: Vec<(String, Value)> = match scenario {
        "initialize" => Vec::new(),
        "tools_call" => vec![("add_numbers".into(), json!({"a": 5, "b": 3}))],
        "json-schema-2020-12-preservation" => registry
            .tools()
            .iter()
            .filter(|tool| remote(tool).as_deref() == Some("json_schema_2020_12_tool"))
            .map(|tool| ("json_schema_echo".to_owned(), json!({"schema": tool.parameters()})))
            .collect(),
        _ => match context_calls() {
            Some(calls) => calls,
            None => registry
                .tools()
                .iter()
                .filter_map(|tool| Some((remote(tool)?, arguments_for(tool.parameters()))))
                .collect(),
        },
    };
    let mut outcome = Ok(());
    for (tool, args) in calls {
        let local = names
            .provider_name(&format!("conformance__{tool}"))
            .ok_or_else(|| format!("the server has no tool {tool:?}"))?;
        let receipt = registry.invoke(local, args).await;
        let result = &receipt.result;
        println!("{tool}: {}", serde_json::to_string(result).unwrap_or_default());
        if !result.is_success() && outcome.is_ok() {
            outcome = Err(format!("{tool} failed: {}", result.text().unwrap_or_default()));
        }
    }
    outcome
}

/// The calls the scenario's context (`MCP_CONFORMANCE_CONTEXT`) lists, if it lists any. An
/// argument given as `null` is left out: toolwire validates arguments against the tool's
/// schema, where `null` is not a boolean, and an omitted argument is what `null` stands for
/// here (`http-custom-headers` checks that no header is sent for it).
fn context_calls() -> Option<Vec<(String, Value)>> {
    let text = std::env::var("MCP_CONFORMANCE_CONTEXT").ok()?;
    let context: Value = serde_json::from_str(&text).ok()?;
    let calls = context.get("toolCalls")?.as_array()?;
    let call = |call: &Value| {
        let name = call.get("name")?.as_str()?.to_owned();
        let mut arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
        if let Some(fields) = arguments.as_object_mut() {
            fields.retain(|_, value| !value.is_null());
        }
        Some((name, arguments))
    };
    Some(calls.iter().filter_map(call).collect())
}

/// Arguments that satisfy a plain object schema: each required property's default, first
/// enum value, or a value of its type.
fn arguments_for(schema: &Value) -> Value {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    let mut arguments = serde_json::Map::new();
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let property = properties.and_then(|p| p.get(name)).cloned().unwrap_or_default();
        let value = property
            .get("default")
            .or_else(|| property.get("enum").and_then(|e| e.get(0)))
            .cloned()
            .unwrap_or_else(|| match property.get("type").and_then(Value::as_str) {
                Some("integer" | "number") => json!(1),
                Some("boolean") => json!(true),
                Some("object") => json!({}),
                Some("array") => json!([]),
                _ => json!("test"),
            });
        arguments.insert(name.to_owned(), value);
    }
    Value::Object(arguments)
}
