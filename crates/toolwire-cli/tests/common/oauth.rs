//! A small OAuth authorization server and an MCP server that needs its tokens, on one
//! loopback port, for the login tests: it serves Protected Resource Metadata, authorization
//! server metadata, dynamic registration, an authorization endpoint that consents at once
//! (redirecting with `code`, `state` and `iss`), and a token endpoint that checks PKCE
//! (S256), the redirect URI and the `resource`, and issues access and refresh tokens. What
//! it receives is recorded, so a test can say that no token was asked for.
//!
//! A [`Mode`] makes it misbehave as an attacker's server would.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// How the server behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// As the spec says.
    Honest,
    /// The redirect carries another `state` than the one sent.
    WrongState,
    /// The redirect carries another issuer as `iss`.
    WrongIss,
    /// The metadata puts the token endpoint on another host.
    TokenElsewhere,
    /// The metadata's authorization endpoint is plain HTTP off loopback.
    PlainHttp,
    /// The Protected Resource Metadata names another resource.
    ResourceMismatch,
    /// Access tokens last one second.
    ShortLived,
    /// The server names another authorization server (the same one, as `localhost`, an
    /// issuer of another name), as a server taken over would.
    OtherIssuer,
}

/// What the server received.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// Authorization requests, as their query.
    pub(crate) authorizations: Vec<HashMap<String, String>>,
    /// Token requests, as their form.
    pub(crate) token_requests: Vec<HashMap<String, String>>,
    /// Access tokens issued.
    pub(crate) issued: Vec<String>,
    /// MCP requests, and whether each carried a token this server issued.
    pub(crate) mcp_requests: Vec<bool>,
    /// How many MCP requests carried a token that was refused (unknown, or revoked).
    pub(crate) refused_tokens: usize,
    /// How many of the issued tokens the MCP server no longer takes (the first ones).
    pub(crate) revoked: usize,
}

struct Shared {
    mode: Mutex<Mode>,
    origin: String,
    seen: Mutex<Seen>,
    /// Codes issued, with the PKCE challenge and redirect URI they were issued for.
    codes: Mutex<HashMap<String, (String, String)>>,
}

/// The servers, stopped when dropped.
pub(crate) struct OAuthServers {
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The MCP endpoint.
    pub(crate) url: String,
}

impl Drop for OAuthServers {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl OAuthServers {
    /// Starts both on a free loopback port, behaving as `mode` says, serving `registry`'s
    /// tools over MCP to a bearer of a token it issued.
    pub(crate) fn start(mode: Mode, registry: toolwire::Registry) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().expect("bound").port();
        let origin = format!("http://127.0.0.1:{port}");
        let shared = Arc::new(Shared {
            mode: Mutex::new(mode),
            origin: origin.clone(),
            seen: Mutex::default(),
            codes: Mutex::default(),
        });
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let state = Arc::clone(&shared);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let mcp = toolwire_mcp::server::router(
                    toolwire_mcp::server::McpServer::new(registry),
                    toolwire_mcp::server::HttpOptions::default(),
                )
                .layer(axum::middleware::from_fn_with_state(Arc::clone(&state), bearer));
                let app = Router::new()
                    .route("/.well-known/oauth-protected-resource/mcp", get(resource_metadata))
                    .route("/.well-known/oauth-authorization-server", get(server_metadata))
                    .route("/register", post(register))
                    .route("/authorize", get(authorize))
                    .route("/token", post(token))
                    .with_state(state)
                    .merge(mcp);
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        Self { shared, stop: Some(stop), thread: Some(thread), url: format!("{origin}/mcp") }
    }

    /// Behaves as `mode` says from now on.
    pub(crate) fn set_mode(&self, mode: Mode) {
        *self.shared.mode.lock().expect("mode") = mode;
    }

    /// Stops taking every token issued so far (their refresh tokens still work).
    pub(crate) fn revoke_all(&self) {
        let mut seen = self.shared.seen.lock().expect("seen");
        seen.revoked = seen.issued.len();
    }

    /// What it has received so far.
    pub(crate) fn seen<T>(&self, read: impl FnOnce(&Seen) -> T) -> T {
        read(&self.shared.seen.lock().expect("seen"))
    }
}

type Shared_ = State<Arc<Shared>>;

impl Shared {
    fn mode(&self) -> Mode {
        *self.mode.lock().expect("mode")
    }

    /// The authorization server's issuer: its origin, or as `localhost` for `OtherIssuer`.
    fn issuer(&self) -> String {
        if self.mode() == Mode::OtherIssuer {
            self.origin.replace("127.0.0.1", "localhost")
        } else {
            self.origin.clone()
        }
    }
}

/// The MCP endpoint's guard: a token this server issued, or 401 with the challenge.
async fn bearer(State(shared): Shared_, request: Request, next: Next) -> Response {
    let sent = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let valid = {
        let mut seen = shared.seen.lock().expect("seen");
        let revoked = seen.revoked;
        let valid = sent
            .as_ref()
            .is_some_and(|token| seen.issued.iter().skip(revoked).any(|issued| issued == token));
        seen.mcp_requests.push(valid);
        if sent.is_some() && !valid {
            seen.refused_tokens += 1;
        }
        valid
    };
    if valid {
        return next.run(request).await;
    }
    let challenge = format!(
        "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"tools\"",
        shared.origin
    );
    (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, challenge)], "login required")
        .into_response()
}

async fn resource_metadata(State(shared): Shared_) -> impl IntoResponse {
    let resource = if shared.mode() == Mode::ResourceMismatch {
        "https://other-resource.example.com/mcp".to_owned()
    } else {
        format!("{}/mcp", shared.origin)
    };
    axum::Json(json!({
        "resource": resource,
        "authorization_servers": [shared.issuer()],
        "scopes_supported": ["tools"],
    }))
}

async fn server_metadata(State(shared): Shared_) -> impl IntoResponse {
    let origin = &shared.issuer();
    let mut token = format!("{origin}/token");
    let mut authorization = format!("{origin}/authorize");
    match shared.mode() {
        Mode::TokenElsewhere => token = token.replace("127.0.0.1", "127.0.0.2"),
        Mode::PlainHttp => authorization = "http://login.attacker.example/authorize".to_owned(),
        _ => {}
    }
    axum::Json(json!({
        "issuer": origin,
        "authorization_endpoint": authorization,
        "token_endpoint": token,
        "registration_endpoint": format!("{origin}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": ["tools", "offline_access"],
        "authorization_response_iss_parameter_supported": true,
    }))
}

async fn register(axum::Json(body): axum::Json<Value>) -> impl IntoResponse {
    let mut answer =
        json!({"client_id": "toolwire-test-client", "token_endpoint_auth_method": "none"});
    answer["redirect_uris"] = body.get("redirect_uris").cloned().unwrap_or_default();
    (StatusCode::CREATED, axum::Json(answer))
}

async fn authorize(
    State(shared): Shared_,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    shared.seen.lock().expect("seen").authorizations.push(query.clone());
    let (Some(redirect), Some(state), Some(challenge)) =
        (query.get("redirect_uri"), query.get("state"), query.get("code_challenge"))
    else {
        return (StatusCode::BAD_REQUEST, "redirect_uri, state and code_challenge needed")
            .into_response();
    };
    let code = format!("code-{}", shared.codes.lock().expect("codes").len());
    shared.codes.lock().expect("codes").insert(code.clone(), (challenge.clone(), redirect.clone()));
    let state = if shared.mode() == Mode::WrongState { "forged-state" } else { state.as_str() };
    let iss =
        if shared.mode() == Mode::WrongIss { "https://evil.example.com" } else { &shared.origin };
    let mut to = reqwest::Url::parse(redirect).expect("a redirect uri");
    to.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", state)
        .append_pair("iss", iss);
    (StatusCode::FOUND, [(header::LOCATION, to.to_string())]).into_response()
}

async fn token(State(shared): Shared_, _headers: HeaderMap, body: String) -> Response {
    let form: HashMap<String, String> = reqwest::Url::parse(&format!("http://form/?{body}"))
        .expect("a form")
        .query_pairs()
        .into_owned()
        .collect();
    shared.seen.lock().expect("seen").token_requests.push(form.clone());
    let refused = |why: &str| {
        (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": "invalid_grant", "error_description": why})),
        )
            .into_response()
    };
    if form.get("resource").map(String::as_str) != Some(&format!("{}/mcp", shared.origin)) {
        return refused("resource");
    }
    match form.get("grant_type").map(String::as_str) {
        Some("authorization_code") => {
            let issued =
                form.get("code").and_then(|code| shared.codes.lock().expect("codes").remove(code));
            let Some((challenge, redirect)) = issued else { return refused("unknown code") };
            let verifier = form.get("code_verifier").cloned().unwrap_or_default();
            let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(Sha256::digest(verifier.as_bytes()));
            if computed != challenge {
                return refused("PKCE");
            }
            if form.get("redirect_uri") != Some(&redirect) {
                return refused("redirect_uri");
            }
        }
        Some("refresh_token") => {
            if !form.get("refresh_token").is_some_and(|t| t.starts_with("tw-refresh-")) {
                return refused("refresh token");
            }
        }
        _ => return refused("grant_type"),
    }
    let mut seen = shared.seen.lock().expect("seen");
    let access = format!("tw-access-{}-9f2c4e1a7b", seen.issued.len());
    seen.issued.push(access.clone());
    axum::Json(json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": if shared.mode() == Mode::ShortLived { 1 } else { 3600 },
        "refresh_token": format!("tw-refresh-{}-5d8e3b", seen.issued.len()),
        "scope": "tools",
    }))
    .into_response()
}
