//! Escapes through output: stderr without a bound.

use super::{Case, SH, everyone};

#[test]
fn regression_stderr_is_bounded_by_bytes_whatever_the_line_length() {
    let manifest = format!("{SH}output_limit = 65536\n");
    // The host's peak memory, and what it returns, measured from a parent of its own.
    let harness = "import resource, subprocess, sys\n\
        run = subprocess.run(sys.argv[1:], capture_output=True)\n\
        print('RETURNED', len(run.stdout) + len(run.stderr))\n\
        print('PEAK_KIB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n\
        print(run.stdout[-300:])";
    for who in everyone() {
        let case = Case::new(who, &manifest);
        // 128 MiB of stderr on one line.
        let script = serde_json::json!({ "script": "head -c 134217728 /dev/zero | tr '\\0' a >&2; echo done" });
        let outcome = case
            .wrapped(harness, &["call", "sh", "--yes", "--json", "--args", &script.to_string()]);
        let figure = |label: &str| -> u64 {
            let line = outcome.text.lines().find_map(|line| line.strip_prefix(label));
            line.and_then(|value| value.trim().parse().ok()).unwrap_or(u64::MAX)
        };
        assert!(figure("RETURNED ") < 1 << 20, "{who:?}: {} bytes returned", figure("RETURNED "));
        assert!(
            figure("PEAK_KIB ") < 96 * 1024,
            "{who:?}: toolwire grew to {} KiB",
            figure("PEAK_KIB ")
        );
        assert!(
            outcome.text.contains("stderr cut at 65536 bytes"),
            "{who:?}: {}",
            &outcome.text[..outcome.text.len().min(2000)]
        );
    }
}
