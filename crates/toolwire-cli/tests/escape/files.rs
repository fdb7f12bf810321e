//! Escapes through files: metadata outside the write paths, a write path swapped for a
//! symlink, the manifest and lock file rewritten, git's delayed execution, the journal read,
//! the MCP logins' tokens read.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use super::{Case, PY, SH, Who, everyone, folder, give, unique, write};

/// A canary file outside the tool's folder, `who`'s own, mode 0644.
fn canary(who: Who, folder: &Path) -> std::path::PathBuf {
    let canary = folder.join("canary");
    write(who, &canary, "untouched");
    std::fs::set_permissions(&canary, std::fs::Permissions::from_mode(0o644))
        .unwrap_or_else(|error| panic!("{error}"));
    canary
}

#[test]
fn regression_a_tool_cannot_change_the_mode_or_owner_of_a_file_outside_its_write_paths() {
    for who in everyone() {
        let (case, outside) = (Case::new(who, SH), folder(who, "outside"));
        let canary = canary(who, outside.path());
        let before = std::fs::metadata(&canary).unwrap_or_else(|error| panic!("{error}"));
        let path = canary.display();
        let outcome =
            case.sh(&format!("chmod 4777 {path}; chown 0:0 {path}; chown 65534:65534 {path}"));
        let after = std::fs::metadata(&canary).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(after.mode() & 0o7777, 0o644, "{who:?}: the mode changed: {outcome:?}");
        assert_eq!(
            (after.uid(), after.gid()),
            (before.uid(), before.gid()),
            "{who:?}: the owner changed"
        );
        assert_ne!(outcome.code, Some(0), "{who:?}: {outcome:?}");
    }
}

#[test]
fn regression_a_tool_cannot_set_extended_attributes_or_times_outside_its_write_paths() {
    for who in everyone() {
        let (case, outside) = (Case::new(who, PY), folder(who, "outside"));
        let canary = canary(who, outside.path());
        let mtime = std::fs::metadata(&canary).and_then(|meta| meta.modified()).ok();
        let code = format!(
            "import os\nfor attempt in (lambda: os.setxattr({p:?}, 'user.pwned', b'1'), lambda: os.utime({p:?}, (0, 0))):\n    try: attempt()\n    except OSError as error: print(error)",
            p = canary.display().to_string()
        );
        let outcome = case.py(&code);
        let xattrs = std::process::Command::new("/usr/bin/python3")
            .args([
                "-c",
                &format!("import os; print(os.listxattr({:?}))", canary.display().to_string()),
            ])
            .output()
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(String::from_utf8_lossy(&xattrs.stdout).trim(), "[]", "{who:?}: {outcome:?}");
        let after = std::fs::metadata(&canary).and_then(|meta| meta.modified()).ok();
        assert_eq!(after, mtime, "{who:?}: the file's time changed: {outcome:?}");
    }
}

/// The README's example: a tool with `write = ["out"]`, whose working folder is writable too.
const WRITES_OUT: &str = r#"
[tool.command.sandbox]
write = ["out"]
"#;

#[test]
fn regression_a_write_path_swapped_for_a_symlink_by_an_earlier_call_is_refused() {
    for who in everyone() {
        let (case, outside) =
            (Case::new(who, &format!("{SH}{WRITES_OUT}")), folder(who, "outside"));
        std::fs::create_dir(case.path().join("out")).unwrap_or_else(|error| panic!("{error}"));
        super::give(who, &case.path().join("out"));
        let swap = case.sh(&format!("rm -rf out && ln -s {} out", outside.path().display()));
        assert_eq!(swap.code, Some(0), "{who:?}: the first call could not set the trap: {swap:?}");
        let second = case.sh("echo pwned > out/canary");
        assert!(
            !outside.path().join("canary").exists(),
            "{who:?}: written through the swapped link"
        );
        assert_ne!(second.code, Some(0), "{who:?}: {second:?}");
        assert!(second.text.contains("could have been planted"), "{who:?}: {second:?}");
    }
}

/// Two tools: one may write the working folder, the other only `out` in it.
const TWO_TOOLS: &str = r#"
[[tool]]
name = "writer"
description = "Write into out"
parameters = { type = "object", properties = { script = { type = "string" } }, required = ["script"] }
[tool.command]
argv = ["sh", "-c", "{script}"]
allow_option_values = ["script"]
cwd = "."
[tool.command.sandbox]
write_working_folder = false
write = ["out"]
"#;

#[test]
fn regression_a_write_path_swapped_by_another_tools_call_is_refused() {
    for who in everyone() {
        let case = Case::new(who, &format!("{SH}{TWO_TOOLS}"));
        let outside = folder(who, "outside");
        std::fs::create_dir(case.path().join("out")).unwrap_or_else(|error| panic!("{error}"));
        super::give(who, &case.path().join("out"));
        let swap = case.sh(&format!("rm -rf out && ln -s {} out", outside.path().display()));
        assert_eq!(swap.code, Some(0), "{who:?}: {swap:?}");
        let args = serde_json::json!({ "script": "echo pwned > out/canary" });
        let second = case.call("writer", args);
        assert!(!outside.path().join("canary").exists(), "{who:?}: written through the link");
        assert!(second.text.contains("could have been planted"), "{who:?}: {second:?}");
    }
}

#[test]
fn regression_a_tool_cannot_rewrite_its_manifest_or_lock_file_for_the_next_call() {
    for who in everyone() {
        let case = Case::new(who, SH);
        write(who, &case.path().join("toolwire.lock"), "version = 1\n");
        let manifest = std::fs::read_to_string(case.manifest()).unwrap_or_default();
        let attack = case.sh(
            "printf '\\nsandbox = \"none\"\\n' >> toolwire.toml; mv toolwire.toml moved.toml; \
             rm -f toolwire.toml; echo '[[tool]]' >> toolwire.lock; rm -f toolwire.lock",
        );
        assert_eq!(
            std::fs::read_to_string(case.manifest()).unwrap_or_default(),
            manifest,
            "{who:?}: {attack:?}"
        );
        let lock = std::fs::read_to_string(case.path().join("toolwire.lock")).unwrap_or_default();
        assert_eq!(lock, "version = 1\n", "{who:?}: the lock file changed: {attack:?}");
        // The next call is as sandboxed as the first.
        let outside = folder(who, "outside");
        let next = case.sh(&format!("echo pwned > {}/canary", outside.path().display()));
        assert!(
            !outside.path().join("canary").exists(),
            "{who:?}: the next call ran unsandboxed: {next:?}"
        );
    }
}

/// Runs `git` with `args` in `folder`, as `who`, with no configuration of the user's.
fn git(who: Who, folder: &Path, args: &[&str]) -> std::process::Output {
    let mut command = std::process::Command::new("git");
    command.args(args).current_dir(folder).env("HOME", folder).env("GIT_CONFIG_NOSYSTEM", "1");
    if who == Who::Unprivileged && nix::unistd::geteuid().is_root() {
        use std::os::unix::process::CommandExt;
        command.uid(65534).gid(65534);
    }
    command.output().unwrap_or_else(|error| panic!("git does not run: {error}"))
}

#[test]
fn regression_a_tool_cannot_plant_a_git_fsmonitor_or_hook_for_the_users_next_git_command() {
    for who in everyone() {
        let case = Case::new(who, SH);
        let marker = folder(who, "marker").path().join(unique("ran"));
        std::fs::create_dir_all(case.path().join("vendor/lib"))
            .unwrap_or_else(|error| panic!("{error}"));
        for repo in [".", "vendor", "vendor/lib"] {
            super::give(who, &case.path().join(repo));
        }
        for repo in [".", "vendor/lib"] {
            assert!(git(who, &case.path().join(repo), &["init", "-q"]).status.success());
        }
        let config = std::fs::read_to_string(case.path().join(".git/config")).unwrap_or_default();
        let hook = "vendor/lib/.git/hooks/post-checkout";
        let attack = case.sh(&format!(
            "git config core.fsmonitor 'touch {m}'; printf '[core]\\n\\tfsmonitor = touch {m}\\n' >> .git/config; \
             printf '#!/bin/sh\\ntouch {m}\\n' > {hook}; chmod +x {hook}",
            m = marker.display()
        ));
        assert_eq!(
            std::fs::read_to_string(case.path().join(".git/config")).unwrap_or_default(),
            config,
            "{who:?}: {attack:?}"
        );
        assert!(!case.path().join(hook).exists(), "{who:?}: a hook was planted: {attack:?}");
        // What the user runs next does not run the attacker's command.
        git(who, case.path(), &["status"]);
        assert!(!marker.exists(), "{who:?}: git ran the planted command");
    }
}

#[test]
fn regression_a_tool_cannot_read_the_journal() {
    for who in everyone() {
        let case = Case::new(who, SH);
        let default = case.data().join("toolwire/journal.sqlite");
        let script = format!(
            "head -c 64 {} journal.sqlite 2>&1; ls {}/toolwire 2>&1",
            default.display(),
            case.data().display()
        );
        for journal in [None, Some("journal.sqlite")] {
            let mut command = case.toolwire();
            command.args(["call", "sh", "--yes", "--call-id", &unique("call"), "--args"]);
            command.arg(serde_json::json!({ "script": script }).to_string());
            if let Some(journal) = journal {
                command.args(["--journal", journal]);
            }
            let outcome = super::outcome(command.output());
            assert!(!outcome.text.contains("SQLite format"), "{who:?}, {journal:?}: {outcome:?}");
            assert!(!outcome.text.contains("journal.sqlite-"), "{who:?}, {journal:?}: {outcome:?}");
        }
        assert!(default.exists(), "{who:?}: the default journal was not used");
        assert!(
            case.path().join("journal.sqlite").exists(),
            "{who:?}: the given journal was not used"
        );
    }
}

#[test]
fn a_tool_cannot_leave_a_setuid_or_setgid_file_behind() {
    let code = "import os\n\
        for attempt in (lambda: os.chmod('mine', 0o4755), lambda: os.chmod('mine', 0o2755),\n\
                        lambda: os.close(os.open('made', os.O_CREAT | os.O_WRONLY, 0o4755)),\n\
                        lambda: os.mkfifo('fifo', 0o4755)):\n    \
            try: attempt()\n    \
            except OSError as error: print(error)";
    for who in everyone() {
        let case = Case::new(who, PY);
        write(who, &case.path().join("mine"), "#!/bin/sh\n");
        let outcome = case.py(code);
        for name in ["mine", "made", "fifo"] {
            let mode =
                std::fs::metadata(case.path().join(name)).map(|meta| meta.mode()).unwrap_or(0);
            assert_eq!(mode & 0o6000, 0, "{who:?}: {name} has a set-id bit: {outcome:?}");
        }
    }
}

#[test]
fn regression_a_tool_could_read_the_mcp_logins_tokens() {
    for who in everyone() {
        let case = Case::new(who, SH);
        // A login as `toolwire mcp login` keeps it: a file only its owner reads, in a folder
        // only its owner enters, under the user's config folder.
        let config = case.data().join("config");
        let logins = config.join("toolwire").join("logins");
        for dir in [&config, &config.join("toolwire"), &logins] {
            std::fs::create_dir_all(dir).expect("folder");
            give(who, dir);
        }
        let login = logins.join("0123456789abcdef.json");
        write(
            who,
            &login,
            r#"{"server": "https://mcp.example/mcp", "token": "tw-stolen-oauth-token"}"#,
        );
        let script = format!("cat {} 2>&1; ls -a {} 2>&1", login.display(), logins.display());
        let mut command = case.toolwire();
        command.env("XDG_CONFIG_HOME", &config);
        command.args(["call", "sh", "--yes", "--args"]);
        command.arg(serde_json::json!({ "script": script }).to_string());
        let outcome = super::outcome(command.output());
        assert!(!outcome.text.contains("tw-stolen-oauth-token"), "{who:?}: {outcome:?}");
        assert!(!outcome.text.contains("0123456789abcdef"), "{who:?}: {outcome:?}");
        assert!(login.exists(), "{who:?}: the login is still there");
    }
}
