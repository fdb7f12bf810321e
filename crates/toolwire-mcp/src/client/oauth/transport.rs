//! [`OAuthHttp`]: the HTTP client of a connection to a server that needs a login. rmcp's
//! [`AuthClient`] adds the stored token to each request, refreshes it before it expires and
//! retries once with a fresh one after a 401. Above it, this client answers a 401 or a 403
//! `insufficient_scope` that remains: with an [`Authorizer`](super::Authorizer), by
//! authorizing again (with the union of the scopes asked so far and those challenged) and
//! resending, at most [`MAX_AUTHORIZATIONS`] times for one request; without one, by failing
//! the request as needing a login.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::AuthClient;
use rmcp::transport::auth::AuthorizationManager;
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use tokio::sync::Mutex;

use super::super::oauth_settings::OAuthSettings;
use super::authorizer::SharedAuthorizer;
use super::flow;

/// How many times one request may send the user to authorize before it fails.
pub(crate) const MAX_AUTHORIZATIONS: u32 = 3;

/// What a connection needs to log in again.
pub(crate) struct Relogin {
    pub(crate) url: String,
    pub(crate) settings: OAuthSettings,
    pub(crate) authorizer: Option<SharedAuthorizer>,
    /// Where the connection's login is kept.
    store: super::TokenStore,
    /// How many authorizations this connection has made; requests that failed together
    /// authorize once.
    generation: Mutex<u64>,
}

impl Relogin {
    pub(crate) fn new(
        url: String,
        settings: OAuthSettings,
        authorizer: Option<SharedAuthorizer>,
        store: super::TokenStore,
    ) -> Self {
        Self { url, settings, authorizer, store, generation: Mutex::new(0) }
    }
}

/// The client; see the module.
#[derive(Clone)]
pub(crate) struct OAuthHttp {
    auth: AuthClient<reqwest::Client>,
    relogin: Arc<Relogin>,
}

type Failure = StreamableHttpError<reqwest::Error>;

impl OAuthHttp {
    pub(crate) fn new(
        http: reqwest::Client,
        manager: AuthorizationManager,
        relogin: Arc<Relogin>,
    ) -> Self {
        Self { auth: AuthClient::new(http, manager), relogin }
    }

    /// The authorization manager, shared with the connection's direct calls.
    pub(crate) fn manager(&self) -> super::super::direct::Bearer {
        Arc::clone(&self.auth.auth_manager)
    }

    /// Sends with `send` until it is not refused for want of a login, authorizing again
    /// between tries while that is allowed.
    async fn with_login<T, F, Fut>(&self, send: F) -> Result<T, Failure>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let mut authorizations = 0;
        loop {
            let seen = *self.relogin.generation.lock().await;
            let challenge = match send().await {
                Err(StreamableHttpError::AuthRequired(e)) => e.www_authenticate_header,
                Err(StreamableHttpError::InsufficientScope(e)) => e.www_authenticate_header,
                other => return other,
            };
            let Some(authorizer) = &self.relogin.authorizer else {
                return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(challenge)));
            };
            if authorizations == MAX_AUTHORIZATIONS {
                tracing::warn!(
                    url = %self.relogin.url,
                    "still refused after {MAX_AUTHORIZATIONS} authorizations; giving up"
                );
                return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(challenge)));
            }
            authorizations += 1;
            let mut generation = self.relogin.generation.lock().await;
            if *generation != seen {
                continue; // another request authorized meanwhile: try its tokens
            }
            let mut manager = self.auth.auth_manager.lock().await;
            // Held while this one authorizes: it reads the same stored login, so a request
            // whose authorization is dropped half-way leaves a connection that still sends
            // the stored token.
            let placeholder =
                flow::manager(&self.relogin.url, &self.relogin.store).await.map_err(auth_failed)?;
            let current = std::mem::replace(&mut *manager, placeholder);
            let (current, outcome) = flow::authorize(
                current,
                &self.relogin.url,
                &self.relogin.settings,
                Some(&challenge),
                authorizer.as_ref(),
            )
            .await;
            *manager = current;
            outcome.map_err(auth_failed)?;
            *generation += 1;
        }
    }
}

/// A failed authorization, as the transport's error.
fn auth_failed(error: super::OAuthError) -> Failure {
    StreamableHttpError::Auth(rmcp::transport::auth::AuthError::AuthorizationFailed(
        error.to_string(),
    ))
}

type Headers = HashMap<HeaderName, HeaderValue>;
type Events = BoxStream<'static, Result<sse_stream::Sse, SseError>>;

impl StreamableHttpClient for OAuthHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<StreamableHttpPostResponse, Failure> {
        self.with_login(|| {
            self.auth.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Failure> {
        self.with_login(|| {
            self.auth.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Failure> {
        self.with_login(|| {
            self.auth.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), Failure> {
        self.auth.delete_session(uri, session_id, auth_header, custom_headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<Events, Failure> {
        self.with_login(|| {
            self.auth.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<Events, Failure> {
        self.with_login(|| {
            self.auth.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}
