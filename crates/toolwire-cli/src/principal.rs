//! Who the command's calls are made as: the local user who runs it.

use toolwire::Principal;

/// The local user's name: `$USER`, else `$LOGNAME`, else `uid N` from the kernel. The person
/// at this machine controls these anyway; a model's output cannot set them.
pub(crate) fn local_name() -> String {
    let named = ["USER", "LOGNAME"]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|name| !name.is_empty());
    named.unwrap_or_else(|| match uid() {
        Some(uid) => format!("uid {uid}"),
        None => "unknown".to_owned(),
    })
}

/// The local user, as the principal of `call`, a stdio server's calls and resumed calls.
pub(crate) fn local_user() -> Principal {
    Principal::user(local_name())
}

/// The real user id, from `/proc/self/status`.
fn uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("Uid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
