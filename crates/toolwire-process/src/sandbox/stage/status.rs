//! How a stage ends as the process it waited for ended: the same exit code, or the same
//! signal.

use nix::sys::signal::{Signal, raise};
use nix::sys::wait::WaitStatus;

/// How a process ended, as the init stage reports it to the outer one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ended {
    /// It exited with this code.
    Exit(i32),
    /// A signal killed it.
    Signal(i32),
}

impl Ended {
    /// How `status` ended, if it is an end.
    pub(super) fn of(status: WaitStatus) -> Option<Self> {
        match status {
            WaitStatus::Exited(_, code) => Some(Ended::Exit(code)),
            WaitStatus::Signaled(_, signal, _) => Some(Ended::Signal(signal as i32)),
            _ => None,
        }
    }

    /// Its text on the report pipe: `exit 3`, `signal 9`.
    pub(super) fn to_text(self) -> String {
        match self {
            Ended::Exit(code) => format!("exit {code}"),
            Ended::Signal(signal) => format!("signal {signal}"),
        }
    }

    /// The end a report's text names.
    pub(super) fn parse(text: &str) -> Option<Self> {
        let (kind, number) = text.trim().split_once(' ')?;
        let number = number.parse().ok()?;
        match kind {
            "exit" => Some(Ended::Exit(number)),
            "signal" => Some(Ended::Signal(number)),
            _ => None,
        }
    }

    /// Ends this process the same way.
    pub(super) fn mirror(self) -> ! {
        match self {
            Ended::Exit(code) => std::process::exit(code),
            Ended::Signal(number) => {
                if let Ok(signal) = Signal::try_from(number) {
                    // Its default action ends this process, unless this process ignores it.
                    let _ = raise(signal);
                }
                std::process::exit(128 + number)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ended;

    #[test]
    fn an_end_reads_back_from_its_text() {
        for ended in [Ended::Exit(0), Ended::Exit(3), Ended::Signal(9)] {
            assert_eq!(Ended::parse(&ended.to_text()), Some(ended));
        }
        assert_eq!(Ended::parse("nonsense"), None);
    }
}
