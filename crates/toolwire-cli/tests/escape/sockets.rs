//! Escapes through sockets the network rules do not cover: Unix datagrams to a socket path
//! or an abstract name outside, with the network off.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::UnixDatagram;

use super::{Case, PY, everyone, folder, unique};

#[test]
fn regression_a_tool_cannot_send_unix_datagrams_outside_with_the_network_off() {
    for who in everyone() {
        let case = Case::new(who, PY);
        let outside = folder(who, "outside");
        let path = outside.path().join("listener.sock");
        let by_path = UnixDatagram::bind(&path).unwrap_or_else(|error| panic!("{error}"));
        super::give(who, &path);
        let name = unique("toolwire-test-abstract");
        let abstract_name = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())
            .unwrap_or_else(|error| panic!("{error}"));
        let by_name =
            UnixDatagram::bind_addr(&abstract_name).unwrap_or_else(|error| panic!("{error}"));
        for socket in [&by_path, &by_name] {
            socket.set_nonblocking(true).unwrap_or_else(|error| panic!("{error}"));
        }
        let code = format!(
            "import socket\n\
             for make in (lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0], lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)):\n    \
                 for address in ({p:?}, '\\0' + {n:?}):\n        \
                     try: make().sendto(b'pwned', address)\n        \
                     except OSError as error: print(error)",
            p = path.display().to_string(),
            n = name
        );
        let outcome = case.py(&code);
        let mut buffer = [0u8; 64];
        assert!(
            by_path.recv(&mut buffer).is_err(),
            "{who:?}: a datagram reached the socket path: {outcome:?}"
        );
        assert!(
            by_name.recv(&mut buffer).is_err(),
            "{who:?}: a datagram reached the abstract socket: {outcome:?}"
        );
    }
}
