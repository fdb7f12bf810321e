//! The call options that a journaled call and a journaled dispatch share, and the builder
//! methods that set them, written once.

/// Generates the option methods of a journal builder whose fields `timeout`
/// (`Option<Duration>`), `signal` (`Option<AbortSignal>`) and `options` (`CallOptions`) hold
/// them: `timeout`, `signal`, `state` and `options`. Each method takes the doc comment written
/// before its name, since each builder says what the option means for its calls.
///
/// The timeout and the signal are kept beside the options, not only in them: they bound the
/// journal's own wait on the same call id running elsewhere too.
macro_rules! journal_call_options {
    (
        $builder:ty {
            $(#[$timeout:meta])* timeout;
            $(#[$signal:meta])* signal;
            $(#[$state:meta])* state;
            $(#[$options:meta])* options;
        }
    ) => {
        impl $builder {
            $(#[$timeout])*
            pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
                self.timeout = Some(timeout);
                self
            }

            $(#[$signal])*
            pub fn signal(mut self, signal: toolwire::AbortSignal) -> Self {
                self.signal = Some(signal);
                self
            }

            $(#[$state])*
            pub fn state<S: std::any::Any + Send + Sync>(
                mut self,
                state: std::sync::Arc<S>,
            ) -> Self {
                self.options = std::mem::take(&mut self.options).state(state);
                self
            }

            $(#[$options])*
            pub fn options(mut self, options: toolwire::CallOptions) -> Self {
                if let Some(timeout) = options.get_timeout() {
                    self.timeout = Some(timeout);
                }
                if let Some(signal) = options.get_signal() {
                    self.signal = Some(signal.clone());
                }
                self.options = options;
                self
            }
        }
    };
}

pub(super) use journal_call_options;
