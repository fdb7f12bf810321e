//! The authorization flow itself, on rmcp's [`AuthorizationManager`]: discovery from the
//! server's challenge, toolwire's checks on what was discovered, registration, the user's
//! consent through an [`Authorizer`], and the code exchanged for tokens, which the manager
//! saves to the [`TokenStore`].

use rmcp::transport::auth::{
    AuthorizationCallback, AuthorizationManager, AuthorizationRequest, AuthorizationSession,
    OAuthClientConfig,
};

use super::super::oauth_settings::OAuthSettings;
use super::authorizer::Authorizer;
use super::error::{OAuthError, OAuthErrorKind};
use super::guard;
use super::store::{LoginStatus, TokenStore};

/// The client name sent with a dynamic registration.
const CLIENT_NAME: &str = "toolwire";

/// Logs in to the MCP server at `url`: asks it for its challenge, discovers its
/// authorization server, registers (or uses the settings' client), has `authorizer` obtain
/// the user's consent, exchanges the code and stores the tokens in `store`, replacing any
/// login kept for `url`.
///
/// # Errors
///
/// An [`OAuthError`] saying which step failed; nothing is stored then. Refused outright: a
/// server or authorization server on plain HTTP off loopback, an endpoint on another host
/// than the issuer's, metadata whose `resource` or `issuer` does not match, and a redirect
/// with a wrong `state` or `iss`.
pub async fn login(
    url: &str,
    settings: &OAuthSettings,
    store: &TokenStore,
    authorizer: &dyn Authorizer,
) -> Result<LoginStatus, OAuthError> {
    crate::install_tls_provider();
    let challenge = challenge(url).await?;
    let manager = manager(url, store).await?;
    let (_manager, outcome) =
        authorize(manager, url, settings, challenge.as_deref(), authorizer).await;
    outcome?;
    store.status(url)?.ok_or_else(|| OAuthError::store("the login was not stored"))
}

/// An authorization manager for the server at `url`, keeping its login in `store`.
pub(crate) async fn manager(
    url: &str,
    store: &TokenStore,
) -> Result<AuthorizationManager, OAuthError> {
    guard::secure("the mcp server", url)?;
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| OAuthError::flow(format!("the mcp server's address {url:?}: {e}")))?;
    manager.set_credential_store(store.for_server(url));
    Ok(manager)
}

/// Loads the stored login into `manager`, after discovering and checking its authorization
/// server; whether there was one it can use.
///
/// A login issued by another authorization server than the one the server names now (or
/// by one with an issuer, where the server now names none, or the reverse) is
/// [`Stored::Changed`] and must not be used: its refresh token would go to a new place,
/// and its access token to a server that may no longer be the one it was issued for.
pub(crate) async fn resume(
    manager: &mut AuthorizationManager,
    url: &str,
    settings: &OAuthSettings,
    store: &TokenStore,
) -> Result<Stored, OAuthError> {
    // Nothing stored, nothing to discover for: the connection starts without a login.
    let Some(stored) = store.load(url)? else { return Ok(Stored::Absent) };
    let resolution = manager.resolve_metadata().await.map_err(|e| flow("discovery", &e))?;
    guard::check(&resolution.metadata, url, settings)?;
    if stored.issuer != resolution.metadata.issuer {
        tracing::warn!(
            url,
            stored = ?stored.issuer,
            now = ?resolution.metadata.issuer,
            "the server's authorization server changed since the login; it is not used"
        );
        return Ok(Stored::Changed);
    }
    manager.set_metadata(resolution.metadata);
    let loaded =
        manager.initialize_from_store().await.map_err(|e| flow("reading the stored login", &e))?;
    // rmcp configures a stored client without its secret: a confidential client's refresh
    // must authenticate, so the configured secret is put back.
    if loaded && let Some(secret) = &settings.client_secret {
        let config = OAuthClientConfig::new(stored.client_id.clone(), PLACEHOLDER_REDIRECT)
            .with_client_secret(secret.clone());
        manager.configure_client(config).map_err(|e| flow("the stored client", &e))?;
    }
    Ok(if loaded { Stored::Loaded } else { Stored::Absent })
}

/// What [`resume`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stored {
    /// A login, loaded.
    Loaded,
    /// None (or none rmcp could use).
    Absent,
    /// A login of another authorization server, not to be used.
    Changed,
}

/// The redirect URI of a client configured for refreshes only, which redirect nowhere.
const PLACEHOLDER_REDIRECT: &str = "http://127.0.0.1/callback";

/// Runs one authorization on `manager`, answering `challenge` (a `WWW-Authenticate` value),
/// and gives the manager back with the outcome: on success it holds the new tokens.
pub(crate) async fn authorize(
    mut manager: AuthorizationManager,
    url: &str,
    settings: &OAuthSettings,
    challenge: Option<&str>,
    authorizer: &dyn Authorizer,
) -> (AuthorizationManager, Result<(), OAuthError>) {
    let resolution = match manager.resolve_metadata_from_challenge(challenge).await {
        Ok(resolution) => resolution,
        Err(e) => return (manager, Err(flow("discovery", &e))),
    };
    if let Err(e) = guard::check(&resolution.metadata, url, settings)
        .and_then(|()| guard::secret_allowed(&resolution.metadata, url, settings))
    {
        return (manager, Err(e));
    }
    manager.set_metadata(resolution.metadata);
    let redirect_uri = authorizer.redirect_uri();
    let mut request = AuthorizationRequest::new(redirect_uri.clone()).with_client_name(CLIENT_NAME);
    if !settings.scopes.is_empty() {
        request = request.with_scopes(settings.scopes.iter().cloned());
    }
    if let Some(client_id) = &settings.client_id {
        request = request.with_preregistered_client(client_id.clone());
    }
    if let Some(secret) = &settings.client_secret {
        request = request.with_client_secret(secret.clone());
    }
    if let Some(document) = &settings.client_metadata_url {
        request = request.with_client_metadata_url(document.clone());
    }
    let session = match AuthorizationSession::new(manager, request).await {
        Ok(session) => session,
        Err((manager, e)) => return (manager, Err(flow("registration", &e))),
    };
    let outcome = consent(&session, &redirect_uri, authorizer).await;
    (session.auth_manager, outcome)
}

/// Has the user consent, and exchanges the code the redirect brings for tokens.
async fn consent(
    session: &AuthorizationSession,
    redirect_uri: &str,
    authorizer: &dyn Authorizer,
) -> Result<(), OAuthError> {
    let redirect = authorizer
        .authorize(session.auth_url.clone())
        .await
        .map_err(|why| OAuthError::new(OAuthErrorKind::Redirect, why))?;
    let callback = callback(&redirect, redirect_uri)?;
    session
        .handle_callback_with_issuer(
            &callback.code,
            &callback.csrf_token,
            callback.issuer.as_deref(),
        )
        .await
        .map(drop)
        .map_err(|e| OAuthError::new(OAuthErrorKind::Redirect, format!("the redirect: {e}")))
}

/// The code, state and issuer of `redirect`, once it is known to come back to
/// `redirect_uri` and not to carry an error.
fn callback(redirect: &str, redirect_uri: &str) -> Result<AuthorizationCallback, OAuthError> {
    let refused = |why: String| OAuthError::new(OAuthErrorKind::Redirect, why);
    let url = reqwest::Url::parse(redirect)
        .map_err(|e| refused(format!("the redirect is not an address: {e}")))?;
    let expected = reqwest::Url::parse(redirect_uri)
        .map_err(|e| refused(format!("the redirect uri {redirect_uri:?}: {e}")))?;
    let place = |u: &reqwest::Url| {
        (
            u.scheme().to_owned(),
            u.host_str().map(str::to_owned),
            u.port_or_known_default(),
            u.path().to_owned(),
        )
    };
    if place(&url) != place(&expected) {
        return Err(refused(format!(
            "the authorization server redirected elsewhere than {redirect_uri}"
        )));
    }
    let query =
        |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    if let Some(error) = query("error") {
        let described = query("error_description").map(|d| format!(": {d}")).unwrap_or_default();
        return Err(refused(format!(
            "the authorization server refused the login ({error}){described}"
        )));
    }
    AuthorizationCallback::from_redirect_url(redirect)
        .map_err(|e| refused(format!("the redirect: {e}")))
}

/// The `WWW-Authenticate` challenge the server at `url` answers an unauthenticated request
/// with, or `None` when it answers without asking for a login.
async fn challenge(url: &str) -> Result<Option<String>, OAuthError> {
    guard::secure("the mcp server", url)?;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(std::time::Duration::from_secs(10))
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|e| OAuthError::flow(format!("cannot build the HTTP client: {e}")))?;
    let probe =
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {}});
    let answer = http
        .post(url)
        .header(reqwest::header::ACCEPT, "application/json, text/event-stream")
        .header("MCP-Protocol-Version", crate::client::DEFAULT_PROTOCOL_VERSION)
        .json(&probe)
        .send()
        .await
        .map_err(|e| OAuthError::flow(format!("cannot reach the mcp server {url}: {e}")))?;
    let status = answer.status();
    if status != reqwest::StatusCode::UNAUTHORIZED && status != reqwest::StatusCode::FORBIDDEN {
        return Ok(None);
    }
    Ok(answer
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned))
}

/// An rmcp error at `step`, as an [`OAuthError`].
fn flow(step: &str, error: &rmcp::transport::auth::AuthError) -> OAuthError {
    use rmcp::transport::auth::AuthError;
    let kind = match error {
        AuthError::AuthorizationServerMismatch { .. }
        | AuthError::AuthorizationServerMissingIssuer { .. }
        | AuthError::ProtectedResourceMetadataInvalid { .. } => OAuthErrorKind::Refused,
        _ => OAuthErrorKind::Flow,
    };
    OAuthError::new(kind, format!("{step}: {error}"))
}
