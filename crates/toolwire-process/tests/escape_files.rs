//! Escapes through the file system: each is stopped, and the file it aimed at is checked
//! from the outside.

use std::path::PathBuf;

use crate::common::{default_sandbox, folder, run, sandbox, text};

#[test]
fn a_write_outside_the_allowlist_is_refused() {
    let (work, outside) = (folder(), folder());
    let marker = outside.path().join("marker");
    let script = format!("echo pwned > {}", marker.display());
    let result = run(default_sandbox(), work.path(), &["sh", "-c", &script]);
    assert!(!result.is_success(), "the write succeeded: {}", text(&result));
    // Read-only in the program's view of the files, and refused by Landlock beneath that.
    let refused = ["Permission denied", "Read-only file system"];
    assert!(refused.iter().any(|why| text(&result).contains(why)), "{}", text(&result));
    assert!(!marker.exists(), "the marker outside the allowlist was written");
}

#[test]
fn a_write_in_the_working_folder_and_the_temporary_folder_passes() {
    let work = folder();
    let script = "echo ok > inside && echo ok > \"$TMPDIR/scratch\" && echo $TMPDIR";
    let result = run(default_sandbox(), work.path(), &["sh", "-c", script]);
    assert!(result.is_success(), "{}", text(&result));
    assert!(work.path().join("inside").exists());
    let temp = PathBuf::from(text(&result).trim());
    assert!(!temp.exists(), "the call's temporary folder {} outlived it", temp.display());
}

/// Regression: the default sandbox refused writes to `/dev/null`, so a program that silences
/// itself the usual way (pyenv's `python3` shim does) failed, or wrote errors, in every
/// sandboxed call. The harmless sinks are writable; other devices, and a file created in
/// `/dev`, are not.
#[test]
fn regression_dev_null_is_writable_in_the_default_sandbox_and_other_devices_are_not() {
    let work = folder();
    let script = "echo quiet > /dev/null && echo quiet > /dev/zero && echo done";
    let result = run(default_sandbox(), work.path(), &["sh", "-c", script]);
    assert!(result.is_success(), "{}", text(&result));
    assert_eq!(text(&result).trim(), "done");
    // Writing /dev/urandom works outside the sandbox (it stirs the pool), but is no sink.
    for target in ["/dev/toolwire-test-marker", "/dev/urandom"] {
        let script = format!("echo pwned > {target}");
        let result = run(default_sandbox(), work.path(), &["sh", "-c", &script]);
        assert!(!result.is_success(), "{target}: {}", text(&result));
    }
    assert!(!std::path::Path::new("/dev/toolwire-test-marker").exists());
}

#[test]
fn a_write_through_a_symlink_to_outside_is_refused() {
    let (work, outside) = (folder(), folder());
    std::os::unix::fs::symlink(outside.path(), work.path().join("link"))
        .unwrap_or_else(|error| panic!("cannot make the symlink: {error}"));
    let result = run(default_sandbox(), work.path(), &["sh", "-c", "echo pwned > link/marker"]);
    assert!(!result.is_success(), "the write succeeded: {}", text(&result));
    assert!(!outside.path().join("marker").exists(), "the symlink's target was written");
}

#[test]
fn a_write_through_dot_dot_to_outside_is_refused() {
    let parent = folder();
    let work = parent.path().join("work");
    std::fs::create_dir(&work).unwrap_or_else(|error| panic!("{error}"));
    let result = run(default_sandbox(), &work, &["sh", "-c", "echo pwned > ../marker"]);
    assert!(!result.is_success(), "the write succeeded: {}", text(&result));
    assert!(!parent.path().join("marker").exists(), "the .. path was written");
}

#[test]
fn an_allowlisted_symlink_opens_only_what_it_points_to() {
    // The rule is made for the symlink's target: the folder beside it stays closed.
    let (work, target, beside) = (folder(), folder(), folder());
    let link = work.path().join("out");
    std::os::unix::fs::symlink(target.path(), &link).unwrap_or_else(|error| panic!("{error}"));
    let policy = sandbox(|policy| {
        policy.write_working_folder = false;
        policy.write = vec![link.clone()];
    });
    let script = format!("echo ok > out/fine; echo pwned > {}/marker", beside.path().display());
    let result = run(policy, work.path(), &["sh", "-c", &script]);
    assert!(!result.is_success(), "{}", text(&result));
    assert!(target.path().join("fine").exists(), "the symlink's target was not writable");
    assert!(!beside.path().join("marker").exists());
}

#[test]
fn a_read_outside_the_read_list_is_refused() {
    let (work, home) = (folder(), folder());
    let ssh = home.path().join(".ssh");
    std::fs::create_dir(&ssh).unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(ssh.join("id_ed25519"), "SECRET-KEY-MATERIAL").unwrap_or_else(|e| panic!("{e}"));
    let policy = sandbox(|policy| {
        policy.read = ["/usr", "/bin", "/lib", "/lib64", "/etc"]
            .iter()
            .map(PathBuf::from)
            .filter(|path| path.exists())
            .collect();
    });
    let key = ssh.join("id_ed25519");
    let result = run(policy, work.path(), &["cat", &key.display().to_string()]);
    assert!(!result.is_success(), "the key was read: {}", text(&result));
    assert!(!text(&result).contains("SECRET"), "{}", text(&result));
    assert!(!result.json().to_string().contains("SECRET"));
}

#[test]
fn a_missing_allowlisted_path_fails_before_the_program_runs() {
    let work = folder();
    let policy = sandbox(|policy| policy.write = vec![PathBuf::from("does/not/exist")]);
    let result = run(policy, work.path(), &["sh", "-c", "echo ran > marker"]);
    assert!(!result.is_success());
    assert!(text(&result).contains("cannot be resolved"), "{}", text(&result));
    assert!(!work.path().join("marker").exists(), "the program ran");
}

#[test]
fn no_sandbox_is_explicit_and_lets_the_write_through() {
    let (work, outside) = (folder(), folder());
    let marker = outside.path().join("marker");
    let script = format!("echo written > {}", marker.display());
    let result = run(toolwire_process::sandbox::Sandbox::None, work.path(), &["sh", "-c", &script]);
    assert!(result.is_success(), "{}", text(&result));
    assert!(marker.exists());
}
