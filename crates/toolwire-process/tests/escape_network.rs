//! Escapes through the network: each connection is refused, and the listener, on loopback,
//! saw none.

use std::net::TcpListener;
use std::time::Duration;

use crate::common::{PYTHON, default_sandbox, folder, run, sandbox, text};
use toolwire_process::sandbox::{Network, Sandbox};

/// A listener on loopback that never blocks when asked for a connection.
fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|error| panic!("{error}"));
    listener.set_nonblocking(true).unwrap_or_else(|error| panic!("{error}"));
    let port = listener.local_addr().unwrap_or_else(|error| panic!("{error}")).port();
    (listener, port)
}

/// Whether `listener` has a connection waiting (given a moment to arrive).
fn saw_a_connection(listener: &TcpListener) -> bool {
    std::thread::sleep(Duration::from_millis(50));
    listener.accept().is_ok()
}

fn connect(port: u16) -> String {
    format!(
        "import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('connected')"
    )
}

#[test]
fn a_connection_with_the_network_off_is_refused() {
    let work = folder();
    let (listener, port) = listener();
    let result = run(default_sandbox(), work.path(), &[PYTHON, "-c", &connect(port)]);
    assert!(!result.is_success(), "it connected: {}", text(&result));
    assert!(text(&result).contains("Permission denied"), "{}", text(&result));
    assert!(!saw_a_connection(&listener), "the listener saw a connection");
}

#[test]
fn a_listener_with_the_network_off_is_refused() {
    let work = folder();
    let script = "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); print('listening')";
    let result = run(default_sandbox(), work.path(), &[PYTHON, "-c", script]);
    assert!(!result.is_success(), "it listened: {}", text(&result));
}

#[test]
fn a_port_outside_the_allowed_list_is_refused() {
    let work = folder();
    let ((allowed, allowed_port), (other, other_port)) = (listener(), listener());
    let policy = sandbox(|policy| policy.network = Network::Ports(vec![allowed_port]));
    let ok = run(policy.clone(), work.path(), &[PYTHON, "-c", &connect(allowed_port)]);
    assert!(ok.is_success(), "the allowed port was refused: {}", text(&ok));
    assert!(saw_a_connection(&allowed), "the allowed listener saw no connection");
    let refused = run(policy, work.path(), &[PYTHON, "-c", &connect(other_port)]);
    assert!(!refused.is_success(), "it connected: {}", text(&refused));
    assert!(!saw_a_connection(&other), "the listener outside the list saw a connection");
}

#[test]
fn the_network_on_lets_a_connection_through() {
    let work = folder();
    let (listener, port) = listener();
    let policy = sandbox(|policy| policy.network = Network::On);
    let result = run(policy, work.path(), &[PYTHON, "-c", &connect(port)]);
    assert!(result.is_success(), "{}", text(&result));
    assert!(saw_a_connection(&listener));
}

/// A UDP socket on loopback that never blocks when read.
fn udp_listener() -> (std::net::UdpSocket, u16) {
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap_or_else(|error| panic!("{error}"));
    socket.set_nonblocking(true).unwrap_or_else(|error| panic!("{error}"));
    let port = socket.local_addr().unwrap_or_else(|error| panic!("{error}")).port();
    (socket, port)
}

/// Whether `socket` received a datagram (given a moment to arrive).
fn saw_a_datagram(socket: &std::net::UdpSocket) -> bool {
    std::thread::sleep(Duration::from_millis(50));
    let mut buf = [0u8; 64];
    socket.recv(&mut buf).is_ok()
}

#[test]
fn a_udp_datagram_with_the_network_off_is_refused() {
    let work = folder();
    let (socket, port) = udp_listener();
    let script = format!(
        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); \
         s.sendto(b'secret', ('127.0.0.1', {port})); print('sent')"
    );
    let result = run(default_sandbox(), work.path(), &[PYTHON, "-c", &script]);
    assert!(!result.is_success(), "it sent: {}", text(&result));
    assert!(text(&result).contains("Permission denied"), "{}", text(&result));
    assert!(!saw_a_datagram(&socket), "the UDP socket received the datagram");
}

/// Regression: the x32 ABI's `socket` (the x86-64 number with bit 30 set) was a second door
/// past the socket rules on a kernel built with x32. The filter refuses every x32 call with `EACCES` before the kernel looks at
/// it; without the filter, a kernel without x32 (this one) answers `ENOSYS`, so the errno
/// tells the two apart.
#[cfg(target_arch = "x86_64")]
#[test]
fn regression_an_x32_system_call_is_refused_by_the_filter() {
    let work = folder();
    let script = "import ctypes; libc = ctypes.CDLL(None, use_errno=True); \
        r = libc.syscall(0x40000000 | 41, 2, 2, 0); print(r, ctypes.get_errno())";
    let sandboxed = run(default_sandbox(), work.path(), &[PYTHON, "-c", script]);
    assert_eq!(text(&sandboxed).trim(), format!("-1 {}", nix::libc::EACCES), "{sandboxed:?}");
    let unfiltered = run(Sandbox::None, work.path(), &[PYTHON, "-c", script]);
    assert_eq!(text(&unfiltered).trim(), format!("-1 {}", nix::libc::ENOSYS), "{unfiltered:?}");
}

#[test]
fn udp_over_ipv6_and_raw_sockets_are_refused_too() {
    let work = folder();
    for (what, script) in [
        ("udp6", "import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); print('made')"),
        ("raw", "import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, 1); print('made')"),
        (
            "packet",
            "import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW); print('made')",
        ),
        (
            "netlink",
            "import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM); print('made')",
        ),
    ] {
        let result = run(default_sandbox(), work.path(), &[PYTHON, "-c", script]);
        assert!(!result.is_success(), "{what}: it made the socket: {}", text(&result));
    }
}

#[test]
fn a_unix_socket_outside_the_sandbox_cannot_be_reached_with_the_network_off() {
    let work = folder();
    let outside = folder();
    let path = outside.path().join("agent.sock");
    let listener =
        std::os::unix::net::UnixListener::bind(&path).unwrap_or_else(|error| panic!("{error}"));
    listener.set_nonblocking(true).unwrap_or_else(|error| panic!("{error}"));
    let script = format!(
        "import socket; s = socket.socket(socket.AF_UNIX); s.connect({:?}); print('connected')",
        path.display().to_string()
    );
    let result = run(default_sandbox(), work.path(), &[PYTHON, "-c", &script]);
    assert!(!result.is_success(), "it connected: {}", text(&result));
    std::thread::sleep(Duration::from_millis(50));
    assert!(listener.accept().is_err(), "the Unix listener saw a connection");
    // An abstract socket has no path for the file rules to guard.
    let abstract_script = "import socket; s = socket.socket(socket.AF_UNIX); \
        s.connect('\\0toolwire-test-abstract'); print('connected')";
    let result = run(default_sandbox(), work.path(), &[PYTHON, "-c", abstract_script]);
    assert!(!result.is_success(), "abstract: {}", text(&result));
}

#[test]
fn allowed_ports_let_tcp_through_but_not_udp() {
    let work = folder();
    let (socket, port) = udp_listener();
    let policy = sandbox(|policy| policy.network = Network::Ports(vec![port]));
    let script = format!(
        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); \
         s.sendto(b'secret', ('127.0.0.1', {port})); print('sent')"
    );
    let result = run(policy, work.path(), &[PYTHON, "-c", &script]);
    assert!(!result.is_success(), "it sent: {}", text(&result));
    assert!(!saw_a_datagram(&socket), "the UDP socket received the datagram");
}

#[test]
fn the_network_on_lets_a_udp_datagram_through() {
    let work = folder();
    let (socket, port) = udp_listener();
    let policy = sandbox(|policy| policy.network = Network::On);
    let script = format!(
        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); \
         s.sendto(b'hello', ('127.0.0.1', {port})); print('sent')"
    );
    let result = run(policy, work.path(), &[PYTHON, "-c", &script]);
    assert!(result.is_success(), "{}", text(&result));
    assert!(saw_a_datagram(&socket));
}
