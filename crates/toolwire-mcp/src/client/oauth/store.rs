//! [`TokenStore`]: where logins are kept, one per server address, and what
//! [`LoginStatus`] says about one without showing its tokens.
//!
//! On disk each server's login is a JSON file named by a hash of its address, in a folder
//! only its owner may enter (mode 0700), written whole to a new file readable by its owner
//! only (mode 0600) and renamed into place, so a reader never sees half a login.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::error::OAuthError;

/// Where the tokens of logins are kept: a folder of files only the user can read, or memory.
///
/// Tokens are secrets: the store's `Debug` shows where it keeps them, never them.
#[derive(Clone, Debug)]
pub struct TokenStore {
    place: Place,
}

#[derive(Clone)]
enum Place {
    Dir(PathBuf),
    Memory(Arc<Mutex<HashMap<String, StoredCredentials>>>),
}

impl std::fmt::Debug for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Dir(dir) => f.debug_tuple("Dir").field(dir).finish(),
            Self::Memory(_) => f.write_str("Memory"),
        }
    }
}

/// One stored login, as a file holds it.
#[derive(Serialize, Deserialize)]
struct Saved {
    server: String,
    credentials: StoredCredentials,
}

/// What is known about a stored login, without its tokens.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginStatus {
    /// The client id the tokens were issued to.
    pub client_id: String,
    /// The authorization server that issued them, when it said.
    pub issuer: Option<String>,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// When the access token expires, when the server said.
    pub expires_at: Option<SystemTime>,
    /// Whether a refresh token is kept, so an expired access token is renewed unattended.
    pub refreshable: bool,
}

impl LoginStatus {
    /// Whether the access token's expiry has passed (a refresh may still renew it).
    pub fn expired(&self) -> bool {
        self.expires_at.is_some_and(|at| at <= SystemTime::now())
    }
}

impl TokenStore {
    /// Keeps logins as files in `dir`, created (mode 0700) when the first is saved.
    pub fn in_dir(dir: impl Into<PathBuf>) -> Self {
        Self { place: Place::Dir(dir.into()) }
    }

    /// Keeps logins in memory, for this process only.
    pub fn in_memory() -> Self {
        Self { place: Place::Memory(Arc::default()) }
    }

    /// The user's folder for logins: `$XDG_CONFIG_HOME/toolwire/logins`, else
    /// `$HOME/.config/toolwire/logins`; `None` when neither variable is set.
    pub fn default_dir() -> Option<PathBuf> {
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                let home = std::env::var_os("HOME").filter(|v| !v.is_empty())?;
                Some(Path::new(&home).join(".config"))
            })?;
        Some(config.join("toolwire").join("logins"))
    }

    /// What is stored for the server at `url`, if anything.
    ///
    /// # Errors
    ///
    /// When the login's file cannot be read or is not a login.
    pub fn status(&self, url: &str) -> Result<Option<LoginStatus>, OAuthError> {
        Ok(self.load(url)?.and_then(|saved| status_of(&saved)))
    }

    /// Forgets the login of the server at `url`; whether there was one.
    ///
    /// # Errors
    ///
    /// When its file cannot be removed.
    pub fn remove(&self, url: &str) -> Result<bool, OAuthError> {
        match &self.place {
            Place::Memory(map) => Ok(lock(map).remove(url).is_some()),
            Place::Dir(dir) => match std::fs::remove_file(file_of(dir, url)) {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
                Err(e) => Err(OAuthError::store(format!("cannot remove the login: {e}"))),
            },
        }
    }

    /// The store of one server's login, as rmcp's authorization manager uses it.
    pub(crate) fn for_server(&self, url: &str) -> ServerLogin {
        ServerLogin { store: self.clone(), url: url.to_owned() }
    }

    pub(crate) fn load(&self, url: &str) -> Result<Option<StoredCredentials>, OAuthError> {
        match &self.place {
            Place::Memory(map) => Ok(lock(map).get(url).cloned()),
            Place::Dir(dir) => {
                let path = file_of(dir, url);
                let text = match std::fs::read(&path) {
                    Ok(text) => text,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                    Err(e) => {
                        let detail = format!("cannot read {}: {e}", path.display());
                        return Err(OAuthError::store(detail));
                    }
                };
                let saved: Saved = serde_json::from_slice(&text).map_err(|e| {
                    // Only where it broke: serde's message may quote a value, a token perhaps.
                    let (line, column) = (e.line(), e.column());
                    let detail =
                        format!("{} is not a login (line {line}, column {column})", path.display());
                    OAuthError::store(detail)
                })?;
                // Two addresses whose hashes met would share a file: never hand one's
                // tokens to the other.
                Ok((saved.server == url).then_some(saved.credentials))
            }
        }
    }

    fn save(&self, url: &str, credentials: StoredCredentials) -> Result<(), OAuthError> {
        match &self.place {
            Place::Memory(map) => {
                lock(map).insert(url.to_owned(), credentials);
                Ok(())
            }
            Place::Dir(dir) => {
                let saved = Saved { server: url.to_owned(), credentials };
                write_private(dir, &file_of(dir, url), &saved)
            }
        }
    }
}

fn lock<T>(map: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    map.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The file of the login of the server at `url`.
fn file_of(dir: &Path, url: &str) -> PathBuf {
    let digest = Sha256::digest(url.as_bytes());
    let name: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{name}.json"))
}

/// Writes `saved` to `path` through a new file that only its owner can read.
fn write_private(dir: &Path, path: &Path, saved: &Saved) -> Result<(), OAuthError> {
    let failed = |what: &str, e: std::io::Error| OAuthError::store(format!("cannot {what}: {e}"));
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| failed(&format!("create {}", dir.display()), e))?;
    // A folder made before, by hand perhaps, is made the owner's alone too.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| failed(&format!("restrict {}", dir.display()), e))?;
    }
    let text = serde_json::to_vec(saved)
        .map_err(|e| OAuthError::store(format!("cannot encode the login: {e}")))?;
    // A name of its own per write, so that two writes at once never share a file.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
    // A new file, never one that is there already (a symlink planted at the name, say).
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&temp).and_then(|mut file| {
        file.write_all(&text)?;
        file.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&temp, path)) {
        let _ = std::fs::remove_file(&temp);
        return Err(failed(&format!("write {}", path.display()), e));
    }
    Ok(())
}

/// The longest lifetime a token's expiry is shown with: ten years.
const MAX_LIFETIME_SECONDS: u64 = 10 * 365 * 24 * 3600;

/// The latest time a login is taken to have been received at: the year 2200.
const MAX_SECONDS: u64 = 7_258_118_400;

fn status_of(credentials: &StoredCredentials) -> Option<LoginStatus> {
    // The token response is read as the JSON it is stored as: its `expires_in` and whether
    // it has a `refresh_token`. The tokens themselves are not copied out.
    let tokens = serde_json::to_value(credentials.token_response.as_ref()?).ok()?;
    let lasts = tokens.get("expires_in").and_then(serde_json::Value::as_u64);
    // An authorization server may say a token lasts any number of seconds: past ten years
    // it is taken as ten years, so the time stays one the clock and the formats can show.
    let expires_at = match (lasts, credentials.token_received_at) {
        (Some(lasts), Some(at)) => {
            let at = at.min(MAX_SECONDS).saturating_add(lasts.min(MAX_LIFETIME_SECONDS));
            UNIX_EPOCH.checked_add(Duration::from_secs(at))
        }
        _ => None,
    };
    Some(LoginStatus {
        client_id: credentials.client_id.clone(),
        issuer: credentials.issuer.clone(),
        scopes: credentials.granted_scopes.clone(),
        expires_at,
        refreshable: tokens.get("refresh_token").is_some_and(|t| !t.is_null()),
    })
}

/// One server's login in a [`TokenStore`], as rmcp's [`CredentialStore`].
#[derive(Clone)]
pub(crate) struct ServerLogin {
    store: TokenStore,
    url: String,
}

#[async_trait::async_trait]
impl CredentialStore for ServerLogin {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        self.store.load(&self.url).map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let (store, url) = (self.store.clone(), self.url.clone());
        tokio::task::spawn_blocking(move || store.save(&url, credentials))
            .await
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.store
            .remove(&self.url)
            .map(drop)
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(token: &str) -> StoredCredentials {
        let json = serde_json::json!({
            "client_id": "app",
            "token_response": {"access_token": token, "token_type": "bearer",
                               "expires_in": 3600, "refresh_token": "r-123"},
            "granted_scopes": ["read"],
            "token_received_at": 1_000,
        });
        serde_json::from_value(json).expect("stored credentials")
    }

    #[test]
    fn a_login_file_is_readable_by_its_owner_only_and_per_server() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = TokenStore::in_dir(dir.path().join("logins"));
        let url = "https://mcp.example.com/mcp";
        store.save(url, credentials("tok-secret")).expect("saved");
        let status = store.status(url).expect("read").expect("a login");
        assert_eq!(status.client_id, "app");
        assert!(status.refreshable);
        assert_eq!(status.expires_at, Some(UNIX_EPOCH + Duration::from_secs(4_600)));
        assert!(status.expired());
        assert_eq!(store.status("https://other.example.com/mcp").expect("read"), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let file = file_of(&dir.path().join("logins"), url);
            let mode = std::fs::metadata(&file).expect("file").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let folder = std::fs::metadata(dir.path().join("logins")).expect("dir");
            assert_eq!(folder.permissions().mode() & 0o777, 0o700);
        }
        assert!(!format!("{store:?}").contains("tok-secret"));
        assert!(store.remove(url).expect("removed"));
        assert!(!store.remove(url).expect("none left"));
        assert_eq!(store.status(url).expect("read"), None);
    }

    #[test]
    fn regression_a_huge_expires_in_panicked_every_connection() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = TokenStore::in_dir(dir.path());
        let mut credentials = credentials("t");
        let json = serde_json::json!({"access_token": "t", "token_type": "bearer",
                                      "expires_in": u64::MAX});
        credentials.token_response = Some(serde_json::from_value(json).expect("tokens"));
        credentials.token_received_at = Some(u64::MAX);
        store.save("https://a.example/mcp", credentials).expect("saved");
        let status = store.status("https://a.example/mcp").expect("read").expect("a login");
        let at = status.expires_at.expect("an expiry");
        assert!(at > SystemTime::now(), "far in the future, not a panic");
        assert!(!status.expired());
    }

    #[test]
    fn a_file_written_for_another_server_is_not_handed_over() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = TokenStore::in_dir(dir.path());
        let url = "https://a.example/mcp";
        let saved = Saved { server: "https://b.example/mcp".into(), credentials: credentials("t") };
        write_private(dir.path(), &file_of(dir.path(), url), &saved).expect("written");
        assert_eq!(store.status(url).expect("read"), None);
    }
}
