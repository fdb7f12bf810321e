//! `toolwire mcp login`, `logout` and `status`: the OAuth logins of the manifest's servers
//! over HTTP, kept in the user's folder of logins (`$XDG_CONFIG_HOME/toolwire/logins`, else
//! `~/.config/toolwire/logins`), one file per server address, readable by the user only.
//! Nothing here prints a token.

use std::path::Path;
use std::time::SystemTime;

use toolwire_mcp::client::ServerSpec;
use toolwire_mcp::client::oauth::{self, LoginStatus, LoopbackAuthorizer, TokenStore};

use crate::exit::{CliError, Exit};
use crate::manifest::{Manifest, ServerDef};

/// The store of the user's logins.
///
/// # Errors
///
/// When neither `XDG_CONFIG_HOME` nor `HOME` is set.
pub(crate) fn store() -> Result<TokenStore, CliError> {
    TokenStore::default_dir().map(TokenStore::in_dir).ok_or_else(|| {
        CliError::usage("cannot find the folder of logins: set HOME or XDG_CONFIG_HOME")
    })
}

/// The hint a server that needs a login fails with.
pub(crate) fn hint(server: &str) -> String {
    format!("run `toolwire mcp login {server}`")
}

/// `toolwire mcp login SERVER`.
pub(crate) async fn login(
    manifest: &Path,
    name: &str,
    no_browser: bool,
    timeout: std::time::Duration,
) -> Result<Exit, CliError> {
    let loaded = Manifest::load(manifest)?;
    let (url, settings) = http_server(&loaded, name)?;
    let store = store()?;
    let label = name.to_owned();
    let open = move |url: &str| {
        eprintln!("To log in to {label}, open this address in a browser:\n\n  {url}\n");
        if !no_browser {
            open_browser(url);
        }
    };
    let authorizer = LoopbackAuthorizer::bind(settings.redirect_port, open)
        .await
        .map_err(|e| {
            CliError::with_exit(
                Exit::ToolFailure,
                format!("cannot listen for the login's redirect: {e}"),
            )
        })?
        .timeout(timeout);
    eprintln!(
        "waiting for the login (redirect to {})",
        oauth::Authorizer::redirect_uri(&authorizer)
    );
    let status = oauth::login(&url, &settings, &store, &authorizer).await.map_err(|e| {
        CliError::with_exit(Exit::ToolFailure, format!("cannot log in to {name}: {e}"))
    })?;
    println!("logged in to {name}: {}", describe(&status));
    Ok(Exit::Success)
}

/// `toolwire mcp logout SERVER`.
pub(crate) fn logout(manifest: &Path, name: &str) -> Result<Exit, CliError> {
    let loaded = Manifest::load(manifest)?;
    let (url, _) = http_server(&loaded, name)?;
    let removed = store()?.remove(&url).map_err(|e| {
        CliError::with_exit(Exit::ToolFailure, format!("cannot log out of {name}: {e}"))
    })?;
    if removed {
        println!("logged out of {name}");
    } else {
        println!("no login was stored for {name}");
    }
    Ok(Exit::Success)
}

/// `toolwire mcp status`: each server over HTTP, and its login.
pub(crate) fn status(manifest: &Path, json: bool) -> Result<Exit, CliError> {
    let loaded = Manifest::load(manifest)?;
    let store = store()?;
    let mut rows = Vec::new();
    for server in &loaded.servers {
        let ServerSpec::Http(http) = &server.spec else { continue };
        let status = store
            .status(&http.url)
            .map_err(|e| CliError::with_exit(Exit::ToolFailure, format!("{}: {e}", server.name)))?;
        rows.push((server.name.as_str(), http.url.as_str(), status));
    }
    if json {
        let shown: Vec<_> =
            rows.iter().map(|(name, url, status)| as_json(name, url, status.as_ref())).collect();
        println!("{}", serde_json::Value::Array(shown));
        return Ok(Exit::Success);
    }
    if rows.is_empty() {
        println!("no mcp server over http in {}", manifest.display());
    }
    for (name, url, status) in rows {
        let state = status.as_ref().map_or_else(|| "not logged in".to_owned(), describe);
        println!("{name}  {url}  {state}");
    }
    Ok(Exit::Success)
}

/// The server `name` of the manifest, which must be over HTTP: its address and settings.
fn http_server(
    manifest: &Manifest,
    name: &str,
) -> Result<(String, toolwire_mcp::client::OAuthSettings), CliError> {
    let server: &ServerDef = manifest.servers.iter().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = manifest.servers.iter().map(|s| s.name.as_str()).collect();
        CliError::usage(format!(
            "no mcp server {name:?} in the manifest (it has: {})",
            known.join(", ")
        ))
    })?;
    match &server.spec {
        ServerSpec::Http(http) => Ok((http.url.clone(), http.oauth.clone().unwrap_or_default())),
        _ => Err(CliError::usage(format!(
            "mcp server {name:?} is started by toolwire (stdio); only a server over http logs in"
        ))),
    }
}

/// A login's state in words: its expiry, whether it renews itself, its scopes.
fn describe(status: &LoginStatus) -> String {
    let expiry = match status.expires_at {
        None => "no expiry given".to_owned(),
        Some(at) => match at.duration_since(SystemTime::now()) {
            Ok(left) => format!("expires in {}", humantime::format_duration(round(left))),
            Err(_) => "expired".to_owned(),
        },
    };
    let renews = if status.refreshable { ", renewed unattended" } else { "" };
    let scopes = if status.scopes.is_empty() {
        String::new()
    } else {
        format!(", scopes {}", status.scopes.join(" "))
    };
    format!("logged in as client {}, {expiry}{renews}{scopes}", status.client_id)
}

fn round(left: std::time::Duration) -> std::time::Duration {
    std::time::Duration::from_secs(left.as_secs())
}

fn as_json(name: &str, url: &str, status: Option<&LoginStatus>) -> serde_json::Value {
    let Some(status) = status else {
        return serde_json::json!({"server": name, "url": url, "logged_in": false});
    };
    let expires = status.expires_at.map(|at| humantime::format_rfc3339_seconds(at).to_string());
    serde_json::json!({
        "server": name, "url": url, "logged_in": true, "client_id": status.client_id,
        "issuer": status.issuer, "scopes": status.scopes, "expires_at": expires,
        "expired": status.expired(), "refreshable": status.refreshable,
    })
}

/// Opens `url` in the user's browser, where there is one; the address is printed anyway.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let graphical = cfg!(target_os = "macos")
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if !graphical {
        return;
    }
    let started = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if started.is_err() {
        eprintln!("(no browser could be started: open the address yourself)");
    }
}
