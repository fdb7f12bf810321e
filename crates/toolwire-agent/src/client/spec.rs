//! Reading a provider's name for a model client.

use toolwire::Provider;

use crate::{Error, ErrorKind};

/// The provider called `name`, as [`Provider::from_str`](std::str::FromStr) reads it, among
/// those a model is reached by ([`Provider::model_api`] is `Some`; not `mcp` or
/// `flat_function`).
///
/// # Errors
///
/// A [`Config`](ErrorKind::Config) error for any other name.
pub fn parse_provider(name: &str) -> Result<Provider, Error> {
    let unknown = |why: String| Error::new(ErrorKind::Config, why);
    let provider = name.parse::<Provider>().map_err(|error| unknown(error.to_string()))?;
    if provider.model_api().is_some() {
        return Ok(provider);
    }
    Err(unknown(format!(
        "provider {provider} describes tools but runs no model: expected {}",
        model_providers()
    )))
}

/// The names of the providers a model is reached by, as `a, b or c`.
pub(crate) fn model_providers() -> String {
    let names: Vec<&str> = Provider::ALL
        .into_iter()
        .filter(|provider| provider.model_api().is_some())
        .map(Provider::as_str)
        .collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}
