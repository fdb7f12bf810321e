//! [`Authorizer`]: how a user's consent is obtained, given the authorization URL: a browser
//! and a loopback redirect ([`LoopbackAuthorizer`], RFC 8252), or a direct request that reads
//! the redirect from the answer ([`HeadlessAuthorizer`], for authorization servers that
//! consent without a person, as test servers do).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::Mutex;

/// The future of [`Authorizer::authorize`]: the address the authorization server
/// redirected to, with its query (`code`, `state`, `iss`), or why there is none.
pub type AuthorizeFuture<'a> = Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'a>>;

/// Obtains the user's consent for a login.
pub trait Authorizer: Send + Sync + 'static {
    /// The redirect URI registered with the authorization server and sent with each
    /// authorization request.
    fn redirect_uri(&self) -> String;

    /// Has the user visit `authorization_url` and returns the address the authorization
    /// server redirected back to.
    fn authorize(&self, authorization_url: String) -> AuthorizeFuture<'_>;
}

/// The path of the redirect URI on the loopback listener.
const CALLBACK_PATH: &str = "/callback";

/// How much of a redirect request is read: its request line and headers.
const MAX_REQUEST_BYTES: usize = 16 * 1024;

/// A browser login: the authorization URL is handed to `open` (which starts a browser, or
/// prints the URL where there is none), and the redirect comes back to a listener on
/// `127.0.0.1` (RFC 8252, section 7.3) that answers it with a page saying the login is done.
pub struct LoopbackAuthorizer {
    listener: Mutex<TcpListener>,
    port: u16,
    open: Box<dyn Fn(&str) + Send + Sync>,
    timeout: Duration,
}

impl std::fmt::Debug for LoopbackAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackAuthorizer")
            .field("redirect_uri", &self.redirect_uri())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LoopbackAuthorizer {
    /// Listens on `127.0.0.1:port` (any free port when `port` is `None`), handing each
    /// authorization URL to `open`; a login not completed within five minutes fails.
    ///
    /// # Errors
    ///
    /// When the port cannot be listened on.
    pub async fn bind(
        port: Option<u16>,
        open: impl Fn(&str) + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port.unwrap_or(0))).await?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener: Mutex::new(listener),
            port,
            open: Box::new(open),
            timeout: Duration::from_secs(300),
        })
    }

    /// How long a login may take before it fails.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Waits for the redirect: the first request for the callback path that carries
    /// `state`, the authorization request's. Anything else (another page of this machine
    /// probing the port, say) is answered 400 and the wait goes on.
    async fn redirected(&self, state: &str) -> Result<String, String> {
        let listener = self.listener.lock().await;
        loop {
            let (mut stream, _) =
                listener.accept().await.map_err(|e| format!("the redirect listener: {e}"))?;
            let Ok(Ok(target)) =
                tokio::time::timeout(Duration::from_secs(5), request_target(&mut stream)).await
            else {
                continue;
            };
            let (status, body) = if is_callback(&target, state) {
                (
                    "200 OK",
                    "toolwire has the answer; close this tab and see the terminal for the login's outcome.",
                )
            } else {
                ("400 Bad Request", "Not the redirect of the login under way.")
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n\
                 content-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            let _ = stream.shutdown().await;
            if status.starts_with("200") {
                return Ok(format!("http://127.0.0.1:{}{target}", self.port));
            }
        }
    }
}

impl Authorizer for LoopbackAuthorizer {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    fn authorize(&self, authorization_url: String) -> AuthorizeFuture<'_> {
        Box::pin(async move {
            let state = query_value(&authorization_url, "state").unwrap_or_default();
            (self.open)(&authorization_url);
            tokio::time::timeout(self.timeout, self.redirected(&state)).await.map_err(|_| {
                format!(
                    "no redirect came back within {:?}; the login was not completed",
                    self.timeout
                )
            })?
        })
    }
}

/// Whether `target` is the callback path with the query parameter `state` equal to `state`.
fn is_callback(target: &str, state: &str) -> bool {
    let Some((path, _)) = target.split_once('?') else { return false };
    path == CALLBACK_PATH
        && query_value(&format!("http://127.0.0.1{target}"), "state").as_deref() == Some(state)
}

/// The value of the query parameter `name` of `url`, decoded.
fn query_value(url: &str, name: &str) -> Option<String> {
    let url = reqwest::Url::parse(url).ok()?;
    url.query_pairs().find(|(key, _)| key == name).map(|(_, value)| value.into_owned())
}

/// Reads a request's line and headers and returns its target, such as `/callback?code=…`.
async fn request_target(stream: &mut tokio::net::TcpStream) -> Result<String, String> {
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0_u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut chunk).await.map_err(|e| e.to_string())?;
        if read == 0 || head.len() + read > MAX_REQUEST_BYTES {
            return Err("not a request".into());
        }
        head.extend_from_slice(&chunk[..read]);
    }
    let line = head.split(|b| *b == b'\r').next().unwrap_or_default();
    let line = std::str::from_utf8(line).map_err(|_| "not a request".to_owned())?;
    let mut parts = line.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) if target.starts_with('/') => Ok(target.to_owned()),
        _ => Err("not a GET".into()),
    }
}

/// A login without a person: the authorization URL is requested directly and its redirect
/// (`Location`) is the answer. For authorization servers that consent at once, such as test
/// servers; a real one answers with a login page, which fails the login.
#[derive(Debug, Clone)]
pub struct HeadlessAuthorizer {
    redirect_uri: String,
    http: reqwest::Client,
}

impl HeadlessAuthorizer {
    /// Sends `redirect_uri` as the redirect URI; nothing listens there.
    ///
    /// # Errors
    ///
    /// When the HTTP client cannot be built.
    pub fn new(redirect_uri: impl Into<String>) -> Result<Self, String> {
        crate::install_tls_provider();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Self { redirect_uri: redirect_uri.into(), http })
    }
}

impl Authorizer for HeadlessAuthorizer {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, authorization_url: String) -> AuthorizeFuture<'_> {
        Box::pin(async move {
            let answer = self
                .http
                .get(&authorization_url)
                .send()
                .await
                .map_err(|e| format!("the authorization request failed: {e}"))?;
            let location = answer.headers().get(reqwest::header::LOCATION);
            let location = location.and_then(|v| v.to_str().ok()).ok_or_else(|| {
                format!("the authorization server answered {} without a redirect", answer.status())
            })?;
            Ok(location.to_owned())
        })
    }
}

/// An [`Authorizer`] shared by the connections that may log in again.
pub(crate) type SharedAuthorizer = Arc<dyn Authorizer>;

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::{Authorizer, LoopbackAuthorizer};

    /// GETs `target` from the listener on `port`; the status line.
    fn get(port: u16, target: &str) -> String {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
        write!(stream, "GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").expect("sends");
        let mut reply = String::new();
        let _ = stream.read_to_string(&mut reply);
        reply.lines().next().unwrap_or_default().to_owned()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn regression_any_local_request_to_the_callback_ended_the_login() {
        let authorizer = LoopbackAuthorizer::bind(None, |_| {}).await.expect("binds");
        let port: u16 = authorizer
            .redirect_uri()
            .split(':')
            .nth(2)
            .and_then(|p| p.split('/').next())
            .and_then(|p| p.parse().ok())
            .expect("a port");
        let waiting = tokio::spawn(async move {
            authorizer.authorize("https://as.example/authorize?state=s-123&x=1".into()).await
        });
        let probes = tokio::task::spawn_blocking(move || {
            let forged = get(port, "/callback?code=evil&state=other");
            let elsewhere = get(port, "/favicon.ico");
            // Not HTTP at all: dropped, and the wait goes on.
            let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
            let _ = stream.write_all(b"\x16\x03\x01 not http\r\n\r\n");
            drop(stream);
            let real = get(port, "/callback?code=good&state=s-123&iss=https%3A%2F%2Fas.example");
            (forged, elsewhere, real)
        });
        let (forged, elsewhere, real) = probes.await.expect("probes");
        assert!(forged.contains("400"), "{forged}");
        assert!(elsewhere.contains("400"), "{elsewhere}");
        assert!(real.contains("200"), "{real}");
        let redirect = waiting.await.expect("joined").expect("the real redirect");
        assert!(redirect.contains("code=good") && redirect.contains("state=s-123"), "{redirect}");
    }
}
