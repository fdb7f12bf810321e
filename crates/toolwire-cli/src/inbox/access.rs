//! Who may use the inbox, and from where.
//!
//! - The token printed at start (or a `--users` token) is exchanged once, at `/?token=`, for
//!   a session cookie that scripts cannot read (`HttpOnly`) and other sites never send
//!   (`SameSite=Strict`); the token leaves the address bar with a redirect.
//! - Every change (`POST`) made with the cookie carries the session's CSRF token in
//!   `X-CSRF-Token`. An API client sends its token as `Authorization: Bearer` instead, which no
//!   browser adds by itself, and needs none.
//! - `Host` must name the address the inbox listens on (no DNS rebinding), and `Origin`,
//!   when sent, must be the inbox's own.
//! - Every response forbids inline script, framing and other origins (Content-Security-Policy).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use toolwire::Principal;
use toolwire_mcp::server::Users;

use super::Shared;
use crate::exit::CliError;

/// How the session cookie's name begins; the inbox's port ends it, since browsers send a
/// host's cookies to all its ports: two inboxes on one host keep their sessions apart.
const COOKIE: &str = "toolwire_inbox_";

/// How long a session lasts.
const SESSION_LIFE: Duration = Duration::from_secs(12 * 60 * 60);

/// At most this many sessions at once; the oldest goes first.
const MAX_SESSIONS: usize = 1024;

/// The policy on every response: scripts, styles and requests from the inbox only, no
/// inline script or style, no frames, no forms sent elsewhere.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The inbox's access rules and its sessions.
#[derive(Debug)]
pub(crate) struct Access {
    /// The tokens that log in: the one printed at start, as the local user, and the
    /// `--users` file's.
    users: Users,
    /// The `Host` values the inbox answers to.
    hosts: Vec<String>,
    /// The session cookie's name.
    cookie: String,
    /// The sessions, by cookie.
    sessions: Mutex<HashMap<String, Session>>,
}

/// A logged-in browser.
#[derive(Debug, Clone)]
struct Session {
    who: Principal,
    csrf: String,
    since: Instant,
}

/// Who makes a request, as the handlers see it.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    /// The approver: the local user, or a `--users` name.
    pub(crate) who: Principal,
    /// The session's CSRF token, for the page to put in its requests; `None` for a bearer
    /// token.
    pub(crate) csrf: Option<String>,
}

impl Access {
    /// The rules of an inbox listening at `addr`, with `users` besides the owner's token;
    /// and that token, to print.
    ///
    /// # Errors
    ///
    /// When the system has no randomness for the token.
    pub(crate) fn new(addr: SocketAddr, users: Option<Users>) -> Result<(Self, String), CliError> {
        let token = format!("tw_{}", random_hex()?);
        let owner = crate::principal::local_name();
        let users = users.unwrap_or_default().add(owner, &token);
        let port = addr.port();
        let mut hosts = vec![format!("{}:{port}", host_of(addr))];
        if addr.ip().is_loopback() {
            hosts.extend([format!("localhost:{port}"), format!("127.0.0.1:{port}")]);
            hosts.push(format!("[::1]:{port}"));
        }
        let cookie = format!("{COOKIE}{port}");
        let access = Self { users, hosts, cookie, sessions: Mutex::new(HashMap::new()) };
        Ok((access, token))
    }

    /// Who `token` logs in as, if anyone.
    fn verify(&self, token: &str) -> Option<Principal> {
        self.users.verify(token).map(Principal::user)
    }

    /// A new session for `who`: its cookie and CSRF token.
    fn open(&self, who: Principal) -> Result<String, CliError> {
        let id = random_hex()?;
        let session = Session { who, csrf: random_hex()?, since: Instant::now() };
        let mut sessions = self.sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        sessions.retain(|_, s| s.since.elapsed() < SESSION_LIFE);
        if sessions.len() >= MAX_SESSIONS {
            let oldest = sessions.iter().min_by_key(|(_, s)| s.since).map(|(id, _)| id.clone());
            oldest.map(|id| sessions.remove(&id));
        }
        sessions.insert(id.clone(), session);
        Ok(id)
    }

    /// The session whose cookie `headers` carry, if one is live: every cookie of that name
    /// is tried, since another page of the host may have set one too.
    fn session(&self, headers: &HeaderMap) -> Option<Session> {
        let sessions = self.sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        cookies(headers, &self.cookie)
            .find_map(|id| sessions.get(id).filter(|s| s.since.elapsed() < SESSION_LIFE).cloned())
    }

    /// Whether `Host` names this inbox.
    fn host_ok(&self, headers: &HeaderMap) -> bool {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
        host.is_some_and(|host| self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)))
    }

    /// Whether `Origin`, when sent, is this inbox's own; a cross-site fetch is refused too.
    fn origin_ok(&self, headers: &HeaderMap) -> bool {
        if cross_site(headers) {
            return false;
        }
        let Some(origin) = headers.get(header::ORIGIN) else { return true };
        let Ok(origin) = origin.to_str() else { return false };
        let Some(host) = origin.strip_prefix("http://") else { return false };
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }
}

/// The checks before every route: Host and Origin, the token's exchange for a cookie, the
/// caller's identity, and the CSRF token of a change; and the security headers after.
pub(crate) async fn guard(
    State(shared): State<Shared>,
    mut request: Request,
    next: Next,
) -> Response {
    let access = &shared.access;
    let headers = request.headers();
    let page = matches!(request.uri().path(), "/" | "/history");
    let mut response = if !access.host_ok(headers) {
        refuse(StatusCode::FORBIDDEN, "the Host header does not name this inbox")
    } else if request.method() == Method::GET && page && cross_site(headers) {
        reload_here()
    } else if !access.origin_ok(headers) {
        refuse(StatusCode::FORBIDDEN, "the request comes from another site (Origin)")
    } else if let Some(token) = login_token(&request) {
        login(access, &token)
    } else if request.uri().path().starts_with("/assets/") {
        next.run(request).await
    } else {
        match caller(access, &request) {
            Err((status, why)) => refuse(status, why),
            Ok(caller) => {
                request.extensions_mut().insert(caller);
                next.run(request).await
            }
        }
    };
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.entry(header::CACHE_CONTROL).or_insert(HeaderValue::from_static("no-store"));
    response
}

/// The caller of `request`, or the refusal: a bearer token, or a session cookie (with its
/// CSRF token on a change).
fn caller(access: &Access, request: &Request) -> Result<Caller, (StatusCode, &'static str)> {
    let headers = request.headers();
    let bearer = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    if let Some(value) = bearer {
        let who = value.strip_prefix("Bearer ").and_then(|token| access.verify(token));
        return match who {
            Some(who) => Ok(Caller { who, csrf: None }),
            None => Err((StatusCode::UNAUTHORIZED, "the bearer token is not valid")),
        };
    }
    let Some(session) = access.session(headers) else {
        return Err((
            StatusCode::UNAUTHORIZED,
            "not logged in: open the inbox's address with its token, as `toolwire inbox` \
             printed it (http://HOST:PORT/?token=...)",
        ));
    };
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let sent = headers.get("x-csrf-token").map(HeaderValue::as_bytes);
        if !sent.is_some_and(|sent| same(sent, session.csrf.as_bytes())) {
            return Err((
                StatusCode::FORBIDDEN,
                "the request lacks this session's CSRF token (X-CSRF-Token)",
            ));
        }
    }
    Ok(Caller { who: session.who, csrf: Some(session.csrf) })
}

/// The token of a `GET /?token=...`, if the request is one.
fn login_token(request: &Request) -> Option<String> {
    if request.method() != Method::GET || request.uri().path() != "/" {
        return None;
    }
    let query = request.uri().query()?;
    query.split('&').find_map(|pair| pair.strip_prefix("token=")).map(str::to_owned)
}

/// Exchanges `token` for a session: a redirect to `/` that sets the cookie.
fn login(access: &Access, token: &str) -> Response {
    let Some(who) = access.verify(token) else {
        return refuse(StatusCode::UNAUTHORIZED, "the token is not valid");
    };
    let id = match access.open(who) {
        Ok(id) => id,
        Err(error) => return refuse(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
    };
    let cookie = format!("{}={id}; HttpOnly; SameSite=Strict; Path=/", access.cookie);
    let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// A refusal, in plain text.
fn refuse(status: StatusCode, why: &str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], format!("{why}\n"))
        .into_response()
}

/// The session id in the request's cookie, if it has one.
fn cookies<'a>(headers: &'a HeaderMap, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    (headers.get_all(header::COOKIE).iter())
        .filter_map(|v| v.to_str().ok())
        .flat_map(|line| line.split(';'))
        .filter_map(move |pair| pair.trim().strip_prefix(name)?.strip_prefix('='))
}

/// Whether the browser says the request comes from another site.
fn cross_site(headers: &HeaderMap) -> bool {
    headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) == Some("cross-site")
}

/// The answer to a link followed from another site (a chat's notification) to a page: the
/// browser sends no `SameSite=Strict` cookie with it, so the page reloads itself, from the
/// inbox's own origin, which does. No data, and no script.
fn reload_here() -> Response {
    let page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\">\
                <meta http-equiv=\"refresh\" content=\"0\"><title>toolwire inbox</title>\
                </head><body>Opening the inbox…</body></html>";
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
}

/// Whether `a` and `b` are equal, in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 32 random bytes, in hex.
fn random_hex() -> Result<String, CliError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| CliError::usage(format!("no randomness for a token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// How `addr`'s host is written in a `Host` header.
fn host_of(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(v4) => v4.ip().to_string(),
        SocketAddr::V6(v6) => format!("[{}]", v6.ip()),
    }
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn tokens_are_compared_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
    }
}
