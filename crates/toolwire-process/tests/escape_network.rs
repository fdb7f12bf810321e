//! Escapes through the network: each connection is refused, and the listener, on loopback,
//! saw none.

use std::net::TcpListener;
use std::time::Duration;

use crate::common::{PYTHON, default_sandbox, folder, run, sandbox, text};
use toolwire_process::sandbox::Network;

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
