//! Tool names across providers: OpenAI and Anthropic accept `^[a-zA-Z0-9_-]{1,64}$`, while MCP
//! servers may name tools with dots and up to 128 characters.
//!
//! [`NameMapper`] gives every name a provider-safe one, and maps the provider's name back.
//! A name that is already safe keeps itself. Any other is sanitized (each other character
//! becomes `_`), cut short, and given a suffix from a hash of the original name, so it is the
//! same whatever other names the mapper holds.

use std::collections::HashMap;

/// The longest name OpenAI and Anthropic accept.
pub const MAX_PROVIDER_NAME: usize = crate::name::MAX_NAME_LEN;

/// Hex digits of the hash suffix: 48 bits, so a thousand names collide with odds of about
/// one in a billion, and a collision is resolved anyway.
const HASH_DIGITS: usize = 12;

/// A two-way map between tool names and names every provider accepts.
///
/// ```
/// use toolwire::provider::names::NameMapper;
///
/// let mapper = NameMapper::new(["get_weather", "github.create_issue"]);
/// assert_eq!(mapper.provider_name("get_weather"), Some("get_weather"));
/// let safe = mapper.provider_name("github.create_issue").unwrap();
/// assert!(safe.starts_with("github_create_issue_"));
/// assert_eq!(mapper.original_name(safe), Some("github.create_issue"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct NameMapper {
    to_provider: HashMap<String, String>,
    to_original: HashMap<String, String>,
}

impl NameMapper {
    /// Maps each of `names`; a name given twice is mapped once.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut mapper = Self::default();
        for name in names {
            mapper.insert(name);
        }
        mapper
    }

    /// Maps `name`, if it is not mapped yet, and returns its provider name.
    pub fn insert(&mut self, name: &str) -> &str {
        if !self.to_provider.contains_key(name) {
            let mut candidate = provider_name(name);
            let mut attempt = 1;
            while self.to_original.contains_key(&candidate) {
                attempt += 1;
                candidate = with_suffix(
                    name,
                    &format!("{:0width$x}_{attempt}", fnv1a(name), width = HASH_DIGITS),
                );
            }
            self.to_original.insert(candidate.clone(), name.to_owned());
            self.to_provider.insert(name.to_owned(), candidate);
        }
        self.to_provider.get(name).map_or("", String::as_str)
    }

    /// The provider-safe name of `name`, if it was mapped.
    pub fn provider_name(&self, name: &str) -> Option<&str> {
        self.to_provider.get(name).map(String::as_str)
    }

    /// The original name behind a provider name, if it is one of this mapper's.
    pub fn original_name(&self, provider_name: &str) -> Option<&str> {
        self.to_original.get(provider_name).map(String::as_str)
    }
}

/// Whether every provider accepts `name` as it is: the rule [`Tool::define`](crate::Tool::define)
/// checks.
pub fn is_provider_safe(name: &str) -> bool {
    crate::name::check_name(name).is_ok()
}

/// `name` itself if it is safe; otherwise its sanitized form with a hash suffix.
fn provider_name(name: &str) -> String {
    if is_provider_safe(name) {
        return name.to_owned();
    }
    with_suffix(name, &format!("{:0width$x}", fnv1a(name), width = HASH_DIGITS))
}

/// The sanitized start of `name`, cut so that `_` and `suffix` fit in the limit.
fn with_suffix(name: &str, suffix: &str) -> String {
    let room = MAX_PROVIDER_NAME - 1 - suffix.len();
    let start: String = name
        .chars()
        .take(room)
        .map(|c| if crate::name::is_name_char(c) { c } else { '_' })
        .collect();
    format!("{start}_{suffix}")
}

/// The 48-bit FNV-1a hash of `name`: stable across runs, platforms and versions.
fn fnv1a(name: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash & 0xffff_ffff_ffff
}
