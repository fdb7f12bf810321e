//! The API key of `toolwire run`: read from the provider's usual variable, and required when
//! the requests go to the provider's own API.
//!
//! A server given with `--base-url` on another host (a local model server, a proxy) may need
//! no key: there it is sent when set, and left out when not.

use toolwire::provider::ModelApi;

use crate::exit::CliError;

/// The key of `provider` from its variables (an empty one counts as unset).
///
/// # Errors
///
/// A usage error naming the variable, when none is set and the requests would go to the
/// provider's own API: `base_url` is absent, or on the host of the provider's default URL.
pub(crate) fn api_key(api: ModelApi, base_url: Option<&str>) -> Result<Option<String>, CliError> {
    let names = api.key_variables();
    let key = names.iter().find_map(|name| std::env::var(name).ok().filter(|key| !key.is_empty()));
    if key.is_some() || !own_api(api, base_url) {
        return Ok(key);
    }
    let url = base_url.unwrap_or(api.default_base_url());
    Err(CliError::usage(format!(
        "no API key: set {} for the requests to {url} (only a server of your own, given with \
         --base-url, may do without one)",
        names.join(" or ")
    )))
}

/// Whether requests to `base_url` go to the provider's own API.
fn own_api(api: ModelApi, base_url: Option<&str>) -> bool {
    let Some(base_url) = base_url else { return true };
    let default = host(api.default_base_url());
    default.is_some() && host(base_url) == default
}

/// The host of `url`, if it is a URL.
fn host(url: &str) -> Option<String> {
    reqwest::Url::parse(url.trim()).ok()?.host_str().map(str::to_ascii_lowercase)
}
