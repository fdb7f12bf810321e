//! The tool-name rule every provider accepts, written once: `^[a-zA-Z0-9_-]{1,64}$`.

/// The longest name OpenAI and Anthropic accept.
pub(crate) const MAX_NAME_LEN: usize = 64;

/// Checks `name` against `^[a-zA-Z0-9_-]{1,64}$`, the pattern OpenAI, Anthropic and (as a
/// subset of its own) MCP accept; the error says what is wrong and where.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("must not be empty".into());
    }
    if let Some((at, bad)) = name.char_indices().find(|&(_, c)| !is_name_char(c)) {
        return Err(format!(
            "{bad:?} at byte {at} is not allowed; use only a-z, A-Z, 0-9, '_' and '-'"
        ));
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!("{} characters is too long; the limit is {MAX_NAME_LEN}", name.len()));
    }
    Ok(())
}

/// Whether `c` may stand in a tool name.
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}
