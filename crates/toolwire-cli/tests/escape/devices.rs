//! Escapes through devices and privileges: a disk through a device node made in the working
//! folder, terminal injection, a network interface reconfigured, root's capabilities.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::PathBuf;

use super::{Case, PY, SH, everyone, unique};

/// A loop device over a file of 1 MiB, detached when it drops.
struct Loop {
    device: PathBuf,
    _backing: tempfile::NamedTempFile,
}

impl Loop {
    /// A new loop device; `None` when this machine cannot make one (not root).
    fn new() -> Option<Self> {
        let backing = tempfile::NamedTempFile::new().ok()?;
        backing.as_file().set_len(1 << 20).ok()?;
        let output = std::process::Command::new("losetup")
            .args(["-f", "--show"])
            .arg(backing.path())
            .output()
            .ok()?;
        let device = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        output.status.success().then_some(Self { device, _backing: backing })
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = std::process::Command::new("losetup").arg("-d").arg(&self.device).status();
    }
}

#[test]
fn regression_a_tool_cannot_make_a_block_device_and_write_a_disk() {
    let disk = Loop::new();
    assert!(
        disk.is_some() || !nix::unistd::geteuid().is_root(),
        "root cannot make a loop device here"
    );
    // Without one (not root), the root file system's own device is the target.
    let rdev = match &disk {
        Some(disk) => std::fs::metadata(&disk.device).map(|meta| meta.rdev()).unwrap_or_default(),
        None => std::fs::metadata("/").map(|meta| meta.dev()).unwrap_or_default(),
    };
    let (major, minor) = (nix::sys::stat::major(rdev), nix::sys::stat::minor(rdev));
    let mark = unique("PWNED");
    for who in everyone() {
        let case = Case::new(who, SH);
        let attack =
            case.sh(&format!("mknod ./disk b {major} {minor} && printf {mark} > ./disk; sync"));
        if let Some(disk) = &disk {
            let mut head = vec![0u8; 4096];
            let read = std::fs::File::open(&disk.device)
                .and_then(|mut file| std::io::Read::read(&mut file, &mut head));
            assert!(read.is_ok(), "the disk cannot be read");
            assert!(
                !String::from_utf8_lossy(&head).contains(&mark),
                "{who:?}: the disk was written: {attack:?}"
            );
        }
        let node = std::fs::symlink_metadata(case.path().join("disk"));
        assert!(
            !node.is_ok_and(|meta| meta.file_type().is_block_device()),
            "{who:?}: a device node was made: {attack:?}"
        );
        // Nor is any disk of the host's there to read.
        if let Some(disk) = &disk {
            let read = case
                .sh(&format!("head -c 64 {} | od -c | head -2; ls /dev", disk.device.display()));
            assert!(!read.text.contains(&mark) && !read.text.contains("loop"), "{who:?}: {read:?}");
        }
    }
}

/// A Python harness that runs `sys.argv[1:]` with a terminal of its own as its controlling
/// terminal, and a second terminal beside it, whose name is in `$OTHER_TTY`; then prints what
/// each terminal's input holds, which only an injection could have put there.
const TERMINALS: &str = r#"
import fcntl, os, subprocess, sys, termios, tty
master, slave = os.openpty()
other_master, other_slave = os.openpty()
for fd in (slave, other_slave):
    tty.setraw(fd)
def take_terminal():
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
env = dict(os.environ, OTHER_TTY=os.ttyname(other_slave))
subprocess.run(sys.argv[1:], stdin=slave, stdout=slave, stderr=slave, start_new_session=True, preexec_fn=take_terminal, env=env)
for fd in (slave, other_slave):
    os.set_blocking(fd, False)
    try:
        print("INPUT", os.read(fd, 4096))
    except BlockingIOError:
        print("INPUT none")
"#;

#[test]
fn regression_a_tool_cannot_inject_input_into_its_terminal_or_another() {
    let code = "import fcntl, os, termios\n\
        for path in ('/dev/tty', os.environ.get('OTHER_TTY', '/dev/pts/0')):\n    \
            try:\n        \
                fd = os.open(path, os.O_RDONLY | os.O_NOCTTY)\n        \
                for c in b'touch /tmp/injected\\n': fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))\n    \
            except OSError as error: print(path, error)";
    for who in everyone() {
        let case = Case::new(who, PY);
        // The tool's own variables: the other terminal's name.
        let manifest = std::fs::read_to_string(case.manifest()).unwrap_or_default();
        super::write(who, &case.manifest(), &format!("{manifest}env = [\"OTHER_TTY\"]\n"));
        let args = serde_json::json!({ "code": code }).to_string();
        let outcome = case.wrapped(TERMINALS, &["call", "py", "--yes", "--args", &args]);
        assert!(
            !outcome.text.contains("touch /tmp/injected"),
            "{who:?}: input was injected: {outcome:?}"
        );
        assert_eq!(outcome.text.matches("INPUT none").count(), 2, "{who:?}: {outcome:?}");
    }
}

/// The MTU of the host's loopback interface.
fn loopback_mtu() -> String {
    std::fs::read_to_string("/sys/class/net/lo/mtu").unwrap_or_default().trim().to_owned()
}

#[test]
fn regression_a_tool_cannot_reconfigure_a_network_interface() {
    let code = "import fcntl, socket, struct\n\
        s = socket.socket()\n\
        try: fcntl.ioctl(s, 0x8922, struct.pack('16si', b'lo', 1280))\n\
        except OSError as error: print(error)";
    let before = loopback_mtu();
    for who in everyone() {
        for network in ["", "[tool.command.sandbox]\nnetwork = \"on\"\n"] {
            let case = Case::new(who, &format!("{PY}{network}"));
            let outcome = case.py(code);
            let after = loopback_mtu();
            if after != before {
                let _ = std::process::Command::new("ip")
                    .args(["link", "set", "lo", "mtu", &before])
                    .status();
            }
            assert_eq!(
                after, before,
                "{who:?}, {network:?}: the host's interface changed: {outcome:?}"
            );
        }
    }
}

#[test]
fn regression_a_tool_has_no_capability_even_when_toolwire_runs_as_root() {
    // Each call is harmless when refused, and when allowed, too: reboot with an unknown
    // command, bpf making a one-entry array map, the host name set to what it is.
    let code = "import ctypes, socket\n\
        libc = ctypes.CDLL(None, use_errno=True)\n\
        def errno(result): return 0 if result == 0 else ctypes.get_errno()\n\
        name = socket.gethostname().encode()\n\
        print('reboot', errno(libc.syscall(169, 0xfee1dead, 672274793, 0xdeadbeef, None)))\n\
        attr = (ctypes.c_uint32 * 18)(2, 4, 4, 1)\n\
        print('bpf', 0 if libc.syscall(321, 0, attr, 72) >= 0 else ctypes.get_errno())\n\
        print('sethostname', errno(libc.sethostname(name, len(name))))\n\
        print(open('/proc/self/status').read())";
    for who in everyone() {
        let case = Case::new(who, PY);
        let outcome = case.py(code);
        for call in ["reboot", "bpf", "sethostname"] {
            assert!(
                outcome.text.contains(&format!("{call} 1\n")),
                "{who:?}: {call} was not refused with EPERM: {outcome:?}"
            );
        }
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            assert!(
                outcome.text.contains(&format!("{set}:\t0000000000000000")),
                "{who:?}: {set}: {outcome:?}"
            );
        }
    }
}
