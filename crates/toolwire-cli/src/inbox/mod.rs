//! `toolwire inbox`, and `serve --inbox`: the calls that wait for a human, on a page in the
//! browser, with a JSON API under it.
//!
//! - [`items`]: what waits, read from the journal;
//! - [`feed`]: the journal read every half second, and what changed as numbered events;
//! - [`act`]: an answer, recorded with who gave it, and the call run exactly once;
//! - [`access`]: the token, the session cookie, CSRF, and the Host and Origin checks;
//! - [`page`] and [`api`]: the HTML and the routes.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use toolwire::Registry;

use crate::exit::{CliError, Exit};
use crate::hint::Places;
use crate::journal::{self, Journal};

mod access;
mod act;
mod api;
mod feed;
mod items;
mod page;

/// The address the inbox listens on unless told.
pub(crate) const DEFAULT_ADDR: &str = "127.0.0.1:8380";

/// What the inbox is started with.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// Where to listen.
    pub(crate) addr: String,
    /// The approvers' tokens, besides the one printed at start.
    pub(crate) users: Option<PathBuf>,
    /// Where to post the news that something waits.
    pub(crate) notify: Option<String>,
}

/// What every request of the inbox shares.
pub(crate) struct Inbox {
    journal: Journal,
    registry: Registry,
    access: access::Access,
    feed: feed::Feed,
    /// The answers given here lately.
    answers: act::Answers,
    /// `--notify`.
    notify: Option<String>,
    /// The inbox's own address, `http://HOST:PORT`.
    base: String,
}

/// The inbox, as handlers hold it.
pub(crate) type Shared = Arc<Inbox>;

/// Runs `toolwire inbox` until the process is stopped.
///
/// # Errors
///
/// A journal or manifest that cannot be opened, a bad users file, or an address that cannot
/// be listened on.
pub(crate) async fn run(places: Places<'_>, options: Options) -> Result<Exit, CliError> {
    let journal = journal::open(places).await?;
    let (registry, servers, _policy) = crate::remote::registry(places, Some(&journal)).await?;
    let serving = start(journal, registry, &options).await?;
    serving.await;
    drop(servers);
    Ok(Exit::Success)
}

/// Listens at `options.addr`, prints the inbox's address with its token, and returns the
/// future that serves it.
///
/// # Errors
///
/// A bad users file, or an address that cannot be listened on.
pub(crate) async fn start(
    journal: Journal,
    registry: Registry,
    options: &Options,
) -> Result<impl Future<Output = ()> + use<>, CliError> {
    let addr: SocketAddr = options.addr.parse().map_err(|e| {
        CliError::usage(format!("invalid inbox address {:?} (HOST:PORT): {e}", options.addr))
    })?;
    let users = options.users.as_deref().map(crate::users::load).transpose()?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| CliError::usage(format!("cannot listen on {addr} for the inbox: {e}")))?;
    let bound = listener.local_addr().map_err(|e| CliError::usage(e.to_string()))?;
    let (access, token) = access::Access::new(bound, users)?;
    let base = format!("http://{bound}");
    let inbox = Arc::new(Inbox {
        journal,
        registry,
        access,
        feed: feed::Feed::new(),
        answers: act::Answers::default(),
        notify: options.notify.clone(),
        base: base.clone(),
    });
    if !bound.ip().is_loopback() {
        eprintln!(
            "warning: the inbox listens on {bound}, beyond this machine, over plain HTTP: put \
             it behind a TLS proxy"
        );
    }
    eprintln!("inbox: {base}/?token={token}");
    let app = router(Arc::clone(&inbox));
    Ok(async move {
        tokio::spawn(feed::poll(Arc::clone(&inbox)));
        if let Err(error) = axum::serve(listener, app).await {
            eprintln!("error: the inbox stopped: {error}");
        }
    })
}

/// Every route, behind the access checks.
fn router(shared: Shared) -> Router {
    Router::new()
        .route("/", get(api::waiting_page))
        .route("/history", get(api::history_page))
        .route("/api/waiting", get(api::waiting))
        .route("/api/answer", post(api::answer))
        .route("/api/history", get(api::history))
        .route("/api/events", get(api::events))
        .route("/assets/inbox.js", get(api::script))
        .route("/assets/inbox.css", get(api::style))
        .fallback(api::not_found)
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&shared), access::guard))
        .with_state(shared)
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox").field("base", &self.base).finish_non_exhaustive()
    }
}
