//! [`RetryPolicy`]: which failures are retried, and how long to wait before each retry.
//!
//! The wait is the server's when it gives one, and exponential backoff with jitter when it
//! does not. The server's wait is read from, in order:
//!
//! - `retry-after-ms`, milliseconds (sent by OpenAI, and read by its official SDKs);
//! - `retry-after`, seconds or an HTTP date (RFC 9110 §10.2.3; sent by Anthropic on 429, see
//!   "Rate limits" in Anthropic's API docs, and by Gemini);
//! - OpenAI's `x-ratelimit-reset-requests` / `x-ratelimit-reset-tokens`, durations such as
//!   `1s`, `6m0s` or `12ms`, for a limit whose `x-ratelimit-remaining-*` is `0` (see "Rate
//!   limits" in OpenAI's platform guide);
//! - Anthropic's `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset`,
//!   RFC 3339 instants, for a limit whose `-remaining` is `0` (Anthropic's "Rate limits"
//!   page, response headers).

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// How a client retries a request that failed before any of its reply was used.
///
/// Retried: connection failures, time-outs before the reply's headers, and the statuses 408,
/// 409, 429, 500, 502, 503, 504 and 529 (Anthropic's "overloaded"). A stream is retried only
/// when it failed before its first event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt; 0 turns retrying off. Default: 3.
    pub max_retries: u32,
    /// The first backoff; each retry doubles it. Default: 500 ms.
    pub base_delay: Duration,
    /// The longest backoff. Default: 30 s.
    pub max_delay: Duration,
    /// The longest wait a server may ask for; a longer one ends the retries at once with a
    /// [`RateLimited`](crate::ErrorKind::RateLimited) error carrying the wait. Default: 60 s.
    pub max_server_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_server_wait: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn none() -> Self {
        Self { max_retries: 0, ..Self::default() }
    }

    /// Whether a reply with `status` is worth another attempt.
    pub(crate) fn retries_status(status: u16) -> bool {
        matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529)
    }

    /// The backoff before retry number `attempt` (from 0): half the doubled delay, plus a
    /// random share of the other half, capped.
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        let doubled = self.base_delay.saturating_mul(1u32 << attempt.min(20));
        let capped = doubled.min(self.max_delay);
        let half = capped / 2;
        half + half.mul_f64(fastrand::f64())
    }
}

/// The wait a reply's headers ask for, if any, as of `now`.
pub(crate) fn server_wait(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        return finite(ms / 1000.0);
    }
    if let Some(value) = text("retry-after") {
        return retry_after(value.trim(), now);
    }
    let exhausted = |name: String| text(&name).map(str::trim) == Some("0");
    let mut wait: Option<Duration> = None;
    for limit in ["requests", "tokens"] {
        if exhausted(format!("x-ratelimit-remaining-{limit}")) {
            let reset = text(&format!("x-ratelimit-reset-{limit}")).and_then(go_duration);
            wait = wait.max(reset);
        }
    }
    for limit in ["requests", "tokens", "input-tokens", "output-tokens"] {
        if exhausted(format!("anthropic-ratelimit-{limit}-remaining")) {
            let reset = text(&format!("anthropic-ratelimit-{limit}-reset"))
                .and_then(|at| humantime::parse_rfc3339_weak(at.trim()).ok())
                .map(|at| at.duration_since(now).unwrap_or_default());
            wait = wait.max(reset);
        }
    }
    wait
}

/// `Retry-After`: whole (or fractional) seconds, or an HTTP date.
fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    if let Ok(seconds) = value.parse::<f64>() {
        return finite(seconds);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or_default())
}

fn finite(seconds: f64) -> Option<Duration> {
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(1e9)))
}

/// A duration written as OpenAI's rate-limit headers write them: `1s`, `6m0s`, `12ms`,
/// `1h2m3.5s`.
pub(crate) fn go_duration(text: &str) -> Option<Duration> {
    let mut rest = text.trim();
    let mut total = 0.0f64;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "us" | "µs" => 0.000_001,
            "ns" => 0.000_000_001,
            _ => return None,
        };
        total += number * scale;
        rest = &rest[unit_len..];
    }
    finite(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap_or(HeaderValue::from_static("")));
        }
        map
    }

    #[test]
    fn reads_every_documented_form() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        let wait = |pairs| server_wait(&headers(pairs), now);
        assert_eq!(wait(&[("retry-after", "2")]), Some(Duration::from_secs(2)));
        assert_eq!(wait(&[("retry-after-ms", "250")]), Some(Duration::from_millis(250)));
        // 2015-10-21T07:28:00Z plus 5 s.
        assert_eq!(
            wait(&[("retry-after", "Wed, 21 Oct 2015 07:28:05 GMT")]),
            Some(Duration::from_secs(5))
        );
        let openai =
            [("x-ratelimit-remaining-requests", "0"), ("x-ratelimit-reset-requests", "6m0s")];
        assert_eq!(wait(&openai), Some(Duration::from_secs(360)));
        let anthropic = [
            ("anthropic-ratelimit-tokens-remaining", "0"),
            ("anthropic-ratelimit-tokens-reset", "2015-10-21T07:28:10Z"),
        ];
        assert_eq!(wait(&anthropic), Some(Duration::from_secs(10)));
        assert_eq!(wait(&[("x-ratelimit-reset-requests", "1s")]), None);
        assert_eq!(wait(&[("retry-after", "soon")]), None);
    }

    #[test]
    fn parses_openai_durations() {
        assert_eq!(go_duration("12ms"), Some(Duration::from_millis(12)));
        assert_eq!(go_duration("1h2m3.5s"), Some(Duration::from_millis(3_723_500)));
        assert_eq!(go_duration("3 parsecs"), None);
        assert_eq!(go_duration(""), None);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = RetryPolicy::default();
        for attempt in 0..40 {
            let wait = policy.backoff(attempt);
            assert!(wait <= policy.max_delay, "attempt {attempt}: {wait:?}");
            let floor =
                policy.base_delay.saturating_mul(1 << attempt.min(20)).min(policy.max_delay) / 2;
            assert!(wait >= floor, "attempt {attempt}: {wait:?} < {floor:?}");
        }
    }
}
