//! The progress bar of `toolwire call`: drawn on stderr from the call's progress events,
//! only once one arrives, and never when stderr is not a terminal.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::Value;

/// A progress bar fed by a call's events.
#[derive(Debug, Clone)]
pub(crate) struct Progress {
    bar: ProgressBar,
    enabled: bool,
    started: Arc<AtomicBool>,
}

impl Progress {
    /// A bar that shows when `enabled` and stderr is a terminal.
    pub(crate) fn new(enabled: bool) -> Self {
        Self { bar: ProgressBar::hidden(), enabled, started: Arc::default() }
    }

    /// Shows one event, if it is a progress event.
    pub(crate) fn event(&self, event: &Value) {
        if !self.enabled || event["type"] != "progress" {
            return;
        }
        if !self.started.swap(true, Ordering::Relaxed) {
            self.start(event["total"].as_u64());
        }
        if let Some(total) = event["total"].as_u64() {
            self.bar.set_length(total);
        }
        self.bar.set_position(event["progress"].as_u64().unwrap_or(0));
        if let Some(message) = event["message"].as_str() {
            self.bar.set_message(message.to_owned());
        }
    }

    fn start(&self, total: Option<u64>) {
        let template = match total {
            Some(_) => "{spinner} [{bar:30}] {pos}/{len} {msg}",
            None => "{spinner} {pos} {msg}",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            self.bar.set_style(style.progress_chars("=> "));
        }
        self.bar.set_draw_target(ProgressDrawTarget::stderr());
        self.bar.enable_steady_tick(Duration::from_millis(100));
    }

    /// Removes the bar from the terminal.
    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
