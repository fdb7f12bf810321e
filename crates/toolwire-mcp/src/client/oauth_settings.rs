//! [`OAuthSettings`]: what a server's configuration says about logging in to it, as editors
//! write it in `mcp.json` (`"oauth": {"clientId": …, "scopes": […]}`).

use std::fmt;

/// How toolwire logs in to a server that needs OAuth (the MCP authorization flow).
///
/// Every field is optional: a server that publishes its metadata and takes dynamic client
/// registration needs none of them. The client secret is shown as `[redacted]` by `Debug`.
#[non_exhaustive]
#[derive(Clone, Default, PartialEq, Eq)]
pub struct OAuthSettings {
    /// A client id registered with the authorization server beforehand; without one, a
    /// Client ID Metadata Document or dynamic registration is used.
    pub client_id: Option<String>,
    /// The secret of a pre-registered confidential client.
    pub client_secret: Option<String>,
    /// The scopes to ask for; without them, those of the server's challenge, else those its
    /// metadata lists, else none.
    pub scopes: Vec<String>,
    /// The HTTPS address of this client's Client ID Metadata Document, used as its client id
    /// where the authorization server supports such documents.
    pub client_metadata_url: Option<String>,
    /// The loopback port the login's redirect comes back to; any free one when `None`.
    pub redirect_port: Option<u16>,
    /// Hosts other than the authorization server's own that its metadata may send the
    /// token, authorization or registration requests to (some providers split them across
    /// hosts). Any other host is refused.
    pub trusted_hosts: Vec<String>,
}

impl OAuthSettings {
    /// No settings: discovery and registration decide everything.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses a client id registered beforehand.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The secret of the pre-registered client.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// Asks for `scopes` rather than those the server suggests.
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Names this client's Client ID Metadata Document.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// The loopback port of the login's redirect.
    pub fn redirect_port(mut self, port: u16) -> Self {
        self.redirect_port = Some(port);
        self
    }

    /// Lets the authorization server's endpoints be on `host` too.
    pub fn trust_host(mut self, host: impl Into<String>) -> Self {
        self.trusted_hosts.push(host.into());
        self
    }
}

impl fmt::Debug for OAuthSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthSettings")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "[redacted]"))
            .field("scopes", &self.scopes)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("redirect_port", &self.redirect_port)
            .field("trusted_hosts", &self.trusted_hosts)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::OAuthSettings;

    #[test]
    fn debug_output_redacts_the_client_secret() {
        let settings = OAuthSettings::new().client_id("app").client_secret("s3cr3t-value");
        let shown = format!("{settings:?}");
        assert!(!shown.contains("s3cr3t-value"), "{shown}");
        assert!(shown.contains("[redacted]") && shown.contains("app"), "{shown}");
    }
}
