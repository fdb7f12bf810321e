//! Logging in to MCP servers that need OAuth: the MCP authorization flow (OAuth 2.1 with
//! PKCE, found through Protected Resource Metadata), on rmcp's `auth` support.
//!
//! rmcp discovers the authorization server (from the server's `WWW-Authenticate`
//! challenge, else the well-known paths, path-based first, in the OAuth and OpenID Connect
//! forms), refuses metadata whose `resource` or `issuer` does not match, registers the
//! client (a pre-registered one, a Client ID Metadata Document, else dynamic registration),
//! runs the authorization code flow with PKCE S256, the `resource` parameter and the scopes
//! the server asks for, checks RFC 9207's `iss` exactly, and refreshes tokens before they
//! expire. toolwire adds:
//!
//! - [`login`]: one login, with an [`Authorizer`] that obtains the user's consent (a browser
//!   and a loopback redirect, [`LoopbackAuthorizer`]), stored in a [`TokenStore`];
//! - refusals of its own: the server, the authorization server or any of its endpoints on
//!   plain HTTP off loopback, and an endpoint on another host than the issuer's;
//! - connections that use the stored login ([`ClientOptions::logins`]) and, with an
//!   authorizer ([`ClientOptions::authorizer`]), log in again when the server asks, for
//!   more scopes for instance, a bounded number of times;
//! - tokens kept out of every message, log line and `Debug` output.
//!
//! [`ClientOptions::logins`]: super::ClientOptions::logins
//! [`ClientOptions::authorizer`]: super::ClientOptions::authorizer

mod authorizer;
mod error;
mod flow;
mod guard;
mod store;
mod transport;

pub use authorizer::{AuthorizeFuture, Authorizer, HeadlessAuthorizer, LoopbackAuthorizer};
pub use error::{OAuthError, OAuthErrorKind};
pub use flow::login;
pub use store::{LoginStatus, TokenStore};

pub(crate) use authorizer::SharedAuthorizer;
pub(crate) use flow::{Stored, manager, resume};
pub(crate) use transport::{OAuthHttp, Relogin};
