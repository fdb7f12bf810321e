//! A [`Provider`]'s name, read back from text, and the schema dialect its shape carries.

use std::fmt;
use std::str::FromStr;

use super::Provider;
use crate::dialect::Dialect;

impl Provider {
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
    pub fn as_str(self) -> &'static str {
        self.wire().name()
    }

    /// The dialect a tool's parameters are compiled to in this provider's shape: the strict
    /// one for a strict tool where the provider has one, else JSON Schema as it is
    /// ([`Dialect::Anthropic`]) or the provider's own subset.
    pub fn dialect(self, strict: bool) -> Dialect {
        self.wire().dialect(strict)
    }

    /// The wire format of its conversation with a model (requests, replies, streams, turns
    /// and results), for a provider a model is reached by; `None` for the shapes that only
    /// describe tools ([`Mcp`](Provider::Mcp) and [`FlatFunction`](Provider::FlatFunction)).
    ///
    /// ```
    /// use toolwire::Provider;
    ///
    /// let api = Provider::Gemini.model_api().expect("Gemini runs models");
    /// assert_eq!(api.endpoint("gemini-2.5-flash", false), "/models/gemini-2.5-flash:generateContent");
    /// assert!(Provider::Mcp.model_api().is_none());
    /// ```
    pub fn model_api(self) -> Option<super::ModelApi> {
        self.wire().model().map(|model| super::ModelApi::new(self, model))
    }

    /// Its full name, for people: `OpenAI Chat Completions`, `OpenAI Responses`, `Anthropic
    /// Messages`, `Gemini`, `MCP `tools/list``, or for the flat shape `OpenAI function (the
    /// flat shape)`.
    pub fn title(self) -> &'static str {
        self.wire().title()
    }

    /// The name messages give it, as in `invalid OpenAI response`.
    pub(super) fn label(self) -> &'static str {
        self.wire().label()
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
        write!(f, "unknown provider {:?}: expected ", crate::record::clip(&self.0, 64))?;
        let last = Provider::ALL.len() - 1;
        for (i, provider) in Provider::ALL.into_iter().enumerate() {
            let before = match i {
                0 => "",
                _ if i == last => " or ",
                _ => ", ",
            };
            write!(f, "{before}{provider}")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownProvider {}

impl FromStr for Provider {
    type Err = UnknownProvider;

    /// Reads a name as [`as_str`](Provider::as_str) writes it, in any case and with white
    /// space around it; also `chat` (OpenAI), `openai-responses`, `google` (Gemini) and
    /// `flat`.
    fn from_str(name: &str) -> Result<Self, UnknownProvider> {
        let wanted = name.trim().to_ascii_lowercase();
        Provider::ALL
            .into_iter()
            .find(|provider| {
                let wire = provider.wire();
                wire.name() == wanted || wire.aliases().contains(&wanted.as_str())
            })
            .ok_or_else(|| UnknownProvider(name.to_owned()))
    }
}

impl serde::Serialize for Provider {
    /// Writes [`as_str`](Provider::as_str).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Provider {
    /// Reads a name as [`FromStr`] does.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}
