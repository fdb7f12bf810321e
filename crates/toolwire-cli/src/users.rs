//! The users file: named clients of `serve --http` (and approvers), each with the SHA-256 of
//! its token, never the token itself.
//!
//! ```toml
//! [[user]]
//! name = "ci-bot"
//! token_sha256 = "9f86d0…"  # 64 hex digits
//! ```

use std::io::Write as _;
use std::path::Path;

use serde::Deserialize;
use toolwire_mcp::server::{Users, token_sha256};

use crate::exit::CliError;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UsersFile {
    #[serde(default)]
    user: Vec<UserEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UserEntry {
    name: String,
    token_sha256: String,
}

/// The users of the file at `path`.
///
/// # Errors
///
/// A file that cannot be read or parsed, an empty or repeated name, a hash that is not 64
/// hex digits, two users with one token, or no users at all.
pub(crate) fn load(path: &Path) -> Result<Users, CliError> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::usage(format!("cannot read the users file {shown}: {e}")))?;
    let file: UsersFile = toml::from_str(&text).map_err(|e| {
        CliError::usage(format!("the users file {shown} is not valid: {}", e.message()))
    })?;
    if file.user.is_empty() {
        return Err(CliError::usage(format!("the users file {shown} lists no [[user]]")));
    }
    file.user.into_iter().try_fold(Users::new(), |users, entry| {
        users
            .add_hashed(entry.name, &entry.token_sha256)
            .map_err(|e| CliError::usage(format!("the users file {shown}: {e}")))
    })
}

/// Adds `name` to the users file at `path` (made if missing, readable by its owner only) with
/// a new random token, and returns the token: the only time it is shown.
///
/// # Errors
///
/// A name that is empty, has characters other than letters, digits, `-`, `_` and `.`, or is
/// taken; a file that cannot be read or written.
pub(crate) fn add(path: &Path, name: &str) -> Result<String, CliError> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !valid {
        let why =
            format!("the user name {name:?} must be 1 to 64 letters, digits, '-', '_' or '.'");
        return Err(CliError::usage(why));
    }
    if path.exists() {
        let users = load(path)?;
        if users.names().any(|taken| taken == name) {
            return Err(CliError::usage(format!("{name:?} is in {} already", path.display())));
        }
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| CliError::usage(format!("no randomness for a token: {e}")))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let token = format!("tw_{token}");
    let entry =
        format!("\n[[user]]\nname = \"{name}\"\ntoken_sha256 = \"{}\"\n", token_sha256(&token));
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(path)
        .map_err(|e| CliError::usage(format!("cannot write {}: {e}", path.display())))?;
    file.write_all(entry.as_bytes())
        .map_err(|e| CliError::usage(format!("cannot write {}: {e}", path.display())))?;
    Ok(token)
}
