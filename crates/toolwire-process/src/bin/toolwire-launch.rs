//! `toolwire-launch`: the launcher of `toolwire-process`, for hosts that do not call
//! `toolwire_process::launcher::run_if_requested` in their own `main`. Name it with
//! `Launcher::Path`.

fn main() {
    toolwire_process::launcher::run_if_requested();
    eprintln!(
        "toolwire-launch applies a command tool's sandbox and runs its program; it is started by \
         toolwire-process, with {} set",
        toolwire_process::launcher::PLAN_ENV
    );
    std::process::exit(2);
}
