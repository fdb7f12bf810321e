//! A [`Provider`]'s name, read back from text, and the schema dialect its shape carries.

use std::fmt;
use std::str::FromStr;

use super::Provider;
use crate::dialect::Dialect;

impl Provider {
    /// Every provider, in declaration order.
    pub const ALL: [Provider; 6] = [
        Provider::OpenAi,
        Provider::FlatFunction,
        Provider::Responses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Mcp,
    ];

    /// The provider's name, as configuration files, run states and the command line spell
    /// it: `openai`, `flat_function`, `responses`, `anthropic`, `gemini` or `mcp`. It parses
    /// back with [`FromStr`].
    ///
    /// ```
    /// use toolwire::Provider;
    /// for provider in Provider::ALL {
    ///     assert_eq!(provider.as_str().parse::<Provider>(), Ok(provider));
    /// }
    /// assert_eq!("Google".parse::<Provider>(), Ok(Provider::Gemini));
    /// assert!("bard".parse::<Provider>().unwrap_err().to_string().contains("expected openai"));
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::FlatFunction => "flat_function",
            Provider::Responses => "responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Mcp => "mcp",
        }
    }

    /// The dialect a tool's parameters are compiled to in this provider's shape: the strict
    /// one for a strict tool where the provider has one, else JSON Schema as it is
    /// ([`Dialect::Anthropic`]) or the provider's own subset.
    pub const fn dialect(self, strict: bool) -> Dialect {
        match self {
            Provider::OpenAi | Provider::FlatFunction | Provider::Responses if strict => {
                Dialect::OpenAiStrict
            }
            Provider::Anthropic if strict => Dialect::AnthropicStrict,
            Provider::Gemini => Dialect::Gemini,
            Provider::Mcp => Dialect::Mcp,
            _ => Dialect::Anthropic,
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider name that [`Provider::from_str`] does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProvider(String);

impl fmt::Display for UnknownProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown provider {:?}: expected openai, responses, anthropic, gemini, mcp or \
             flat_function",
            crate::record::clip(&self.0, 64)
        )
    }
}

impl std::error::Error for UnknownProvider {}

impl FromStr for Provider {
    type Err = UnknownProvider;

    /// Reads a name as [`as_str`](Provider::as_str) writes it, in any case and with white
    /// space around it; also `chat` (OpenAI), `openai-responses`, `google` (Gemini) and
    /// `flat`.
    fn from_str(name: &str) -> Result<Self, UnknownProvider> {
        match name.trim().to_ascii_lowercase().as_str() {
            "openai" | "chat" => Ok(Provider::OpenAi),
            "flat_function" | "flat" => Ok(Provider::FlatFunction),
            "responses" | "openai-responses" => Ok(Provider::Responses),
            "anthropic" => Ok(Provider::Anthropic),
            "gemini" | "google" => Ok(Provider::Gemini),
            "mcp" => Ok(Provider::Mcp),
            _ => Err(UnknownProvider(name.to_owned())),
        }
    }
}
