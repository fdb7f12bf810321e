//! The checks toolwire makes on an authorization server's metadata before it sends anything
//! there, beyond rmcp's own (PKCE S256, the `resource` and `issuer` matches, RFC 9207 `iss`):
//!
//! - no plain HTTP off loopback: the issuer and every endpoint must be `https`, unless their
//!   host is `localhost` or a loopback address;
//! - no endpoint on another host: the authorization, token and registration endpoints must
//!   be on the issuer's host (the MCP server's, for metadata without an issuer), or one the
//!   settings trust, so metadata cannot send the authorization code, the PKCE verifier or a
//!   client secret to a third party.

use std::net::IpAddr;

use reqwest::Url;
use rmcp::transport::auth::AuthorizationMetadata;

use super::super::oauth_settings::OAuthSettings;
use super::error::OAuthError;

/// Whether `url` may be used without TLS: its host is loopback.
pub(crate) fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else { return false };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Refuses `url` (named `what` in the error) unless it is `https`, or `http` on loopback.
pub(crate) fn secure(what: &str, url: &str) -> Result<Url, OAuthError> {
    let parsed =
        Url::parse(url).map_err(|e| OAuthError::refused(format!("{what} {url:?}: {e}")))?;
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if is_loopback(&parsed) => Ok(parsed),
        "http" => Err(OAuthError::refused(format!(
            "{what} {url} is plain http off loopback; a login is only sent over https"
        ))),
        other => Err(OAuthError::refused(format!("{what} {url}: unsupported scheme {other:?}"))),
    }
}

/// Checks `metadata`, found for the MCP server at `server`, as the module says.
pub(crate) fn check(
    metadata: &AuthorizationMetadata,
    server: &str,
    settings: &OAuthSettings,
) -> Result<(), OAuthError> {
    let issuer = match &metadata.issuer {
        Some(issuer) => secure("the authorization server's issuer", issuer)?,
        None => secure("the mcp server", server)?,
    };
    let mut endpoints = vec![
        ("authorization endpoint", metadata.authorization_endpoint.as_str()),
        ("token endpoint", metadata.token_endpoint.as_str()),
    ];
    if let Some(registration) = &metadata.registration_endpoint {
        endpoints.push(("registration endpoint", registration.as_str()));
    }
    for (what, endpoint) in endpoints {
        let url = secure(&format!("the authorization server's {what}"), endpoint)?;
        let host = url.host_str().unwrap_or_default();
        if !allowed_host(host, &issuer, settings) {
            return Err(OAuthError::refused(format!(
                "the authorization server {issuer} names its {what} on another host, {host}; \
                 refused (trust it with the oauth setting trustedHosts, or trusted_hosts in a manifest)"
            )));
        }
    }
    Ok(())
}

/// A client secret goes only to an authorization server on the MCP server's host or on one
/// the settings trust: the MCP server names the authorization server, and must not be able
/// to send the user's secret to one of its choosing.
pub(crate) fn secret_allowed(
    metadata: &AuthorizationMetadata,
    server: &str,
    settings: &OAuthSettings,
) -> Result<(), OAuthError> {
    if settings.client_secret.is_none() {
        return Ok(());
    }
    let server = secure("the mcp server", server)?;
    let issuer = match &metadata.issuer {
        Some(issuer) => secure("the authorization server's issuer", issuer)?,
        None => return Ok(()), // its endpoints are on the MCP server's host (see `check`)
    };
    if allowed_host(issuer.host_str().unwrap_or_default(), &server, settings) {
        return Ok(());
    }
    Err(OAuthError::refused(format!(
        "the server names {issuer} as its authorization server; the client secret is only sent \
         to one on the server's host or named by the oauth setting trustedHosts (trusted_hosts \
         in a manifest)"
    )))
}

/// Whether `host` is `home`'s host, or one the settings trust.
fn allowed_host(host: &str, home: &Url, settings: &OAuthSettings) -> bool {
    host.eq_ignore_ascii_case(home.host_str().unwrap_or_default())
        || settings.trusted_hosts.iter().any(|trusted| trusted.eq_ignore_ascii_case(host))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(issuer: &str, token: &str) -> AuthorizationMetadata {
        let json = serde_json::json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/authorize"),
            "token_endpoint": token,
        });
        serde_json::from_value(json).expect("metadata")
    }

    #[test]
    fn a_token_endpoint_on_another_host_is_refused_unless_trusted() {
        let settings = OAuthSettings::new();
        let good = metadata("https://as.example.com", "https://as.example.com/token");
        let server = "https://mcp.example.com/mcp";
        assert!(check(&good, server, &settings).is_ok());
        let bad = metadata("https://as.example.com", "https://evil.example.net/token");
        let error = check(&bad, server, &settings).expect_err("refused");
        assert!(error.to_string().contains("evil.example.net"), "{error}");
        assert!(check(&bad, server, &settings.trust_host("evil.example.net")).is_ok());
    }

    #[test]
    fn plain_http_is_refused_off_loopback_only() {
        let settings = OAuthSettings::new();
        let server = "http://127.0.0.1:9000/mcp";
        let remote = metadata("http://as.example.com", "http://as.example.com/token");
        assert!(
            check(&remote, server, &settings)
                .expect_err("refused")
                .to_string()
                .contains("plain http")
        );
        let local = metadata("http://127.0.0.1:9000", "http://127.0.0.1:9000/token");
        assert!(check(&local, server, &settings).is_ok());
        let named = metadata("http://localhost:9000", "http://localhost:9000/token");
        assert!(check(&named, server, &settings).is_ok());
        let https_issuer = metadata("https://as.example.com", "http://as.example.com/token");
        assert!(check(&https_issuer, server, &settings).is_err(), "an http token endpoint");
    }

    #[test]
    fn regression_a_client_secret_went_to_any_authorization_server_the_server_named() {
        let server = "https://mcp.example.com/mcp";
        let elsewhere =
            metadata("https://login.other.example", "https://login.other.example/token");
        let public = OAuthSettings::new().client_id("app");
        assert!(secret_allowed(&elsewhere, server, &public).is_ok(), "no secret, no limit");
        let secret = public.client_secret("s3cr3t");
        let error = secret_allowed(&elsewhere, server, &secret).expect_err("refused");
        assert!(error.to_string().contains("login.other.example"), "{error}");
        assert!(!error.to_string().contains("s3cr3t"), "{error}");
        assert!(
            secret_allowed(&elsewhere, server, &secret.clone().trust_host("login.other.example"))
                .is_ok()
        );
        let same = metadata("https://mcp.example.com", "https://mcp.example.com/token");
        assert!(secret_allowed(&same, server, &secret).is_ok());
    }

    #[test]
    fn without_an_issuer_the_endpoints_must_be_on_the_mcp_server_s_host() {
        let mut bare = metadata("https://mcp.example.com", "https://elsewhere.example.net/token");
        bare.issuer = None;
        let server = "https://mcp.example.com/mcp";
        let error = check(&bare, server, &OAuthSettings::new()).expect_err("refused");
        assert!(error.to_string().contains("elsewhere.example.net"), "{error}");
        bare.token_endpoint = "https://mcp.example.com/token".into();
        assert!(check(&bare, server, &OAuthSettings::new()).is_ok());
    }
}
