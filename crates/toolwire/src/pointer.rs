//! JSON pointers (RFC 6901), as every message and report in toolwire writes them.

use std::borrow::Cow;

/// `key` as one segment of a JSON pointer: `~` written `~0` and `/` written `~1`.
pub(crate) fn escape(key: &str) -> Cow<'_, str> {
    if !key.contains(['~', '/']) {
        return Cow::Borrowed(key);
    }
    Cow::Owned(key.replace('~', "~0").replace('/', "~1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_tilde_before_slash() {
        assert_eq!(escape("plain"), "plain");
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(escape("~1"), "~01");
    }
}
