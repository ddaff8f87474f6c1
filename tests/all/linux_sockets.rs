//! Sockets on the sandbox's own loopback (issue 46, item 2; docs/linux-compatibility.md):
//! between the programs of one sandbox (a background job's server, a later command's
//! client), and confined both ways: nothing reaches the host's loopback, nothing of one
//! sandbox reaches another, and no host port is opened. The programs of one thread, asyncio
//! and `select` are in the corpus (`tests/fixtures/linux_programs/net_*.py`), compared with
//! the host's CPython.

use std::io::ErrorKind;
use std::net::TcpListener;

use crate::common::{bash, shell_with, shown};

/// A client that retries its connection until the background server listens (bounded), so
/// the test does not depend on how soon the job starts.
const CLIENT: &str = r#"
import sys, time, urllib.request, urllib.error
port = int(sys.argv[1])
for attempt in range(400):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/note.txt", timeout=10) as r:
            print(r.status, r.read().decode().strip())
        break
    except (ConnectionRefusedError, urllib.error.URLError) as e:
        time.sleep(0.05)
else:
    print("never answered")
"#;

#[tokio::test]
async fn a_background_server_answers_the_next_commands() {
    let mut shell = shell_with(&[
        ("note.txt", "hello from the sandbox\n"),
        ("client.py", CLIENT),
    ]);
    let r = bash(
        &mut shell,
        "python3 -m http.server 8765 --bind 127.0.0.1 2> /dev/null &\n\
         python3 client.py 8765\n\
         python3 client.py 8765\n\
         kill %1; wait %1; echo $?",
    )
    .await;
    assert_eq!(
        r.stdout,
        "200 hello from the sandbox\n200 hello from the sandbox\n143\n",
        "{}",
        shown(&r)
    );
}

/// A program that tries `port` over a socket and over urllib and prints what happened.
fn probe(port: u16) -> String {
    format!(
        r#"
import errno, socket, urllib.request
s = socket.socket()
try:
    s.connect(("127.0.0.1", {port}))
    print("socket: connected")
except OSError as e:
    print("socket:", type(e).__name__, errno.errorcode.get(e.errno))
try:
    urllib.request.urlopen("http://127.0.0.1:{port}/", timeout=5)
    print("urllib: answered")
except Exception as e:
    print("urllib:", type(e).__name__)
"#
    )
}

#[tokio::test]
async fn the_hosts_loopback_is_out_of_reach() {
    let host = TcpListener::bind("127.0.0.1:0").expect("a host listener");
    host.set_nonblocking(true).expect("nonblocking");
    let port = host.local_addr().expect("addr").port();
    let mut shell = shell_with(&[("probe.py", &probe(port))]);
    let r = bash(&mut shell, "python3 probe.py").await;
    assert_eq!(
        r.stdout,
        "socket: ConnectionRefusedError ECONNREFUSED\nurllib: URLError\n",
        "{}",
        shown(&r)
    );
    match host.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the host's listener was reached: {other:?}"),
    }
}

#[tokio::test]
async fn a_sandbox_listener_is_its_own_and_opens_no_host_port() {
    // A port no host process holds now; a background job of sandbox A listens on it while
    // the test looks from the host and from sandbox B, then A's own client connects.
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").expect("a free port");
        l.local_addr().expect("addr").port()
    };
    let server = format!(
        r#"
import socket
s = socket.create_server(("127.0.0.1", {port}))
s.settimeout(60)
open("ready", "w").close()
conn, _ = s.accept()
conn.sendall(b"inside\n")
conn.close()
"#
    );
    let client = format!(
        r#"
import os, socket, time
for _ in range(1200):
    if os.path.exists("go"):
        break
    time.sleep(0.05)
print(socket.create_connection(("127.0.0.1", {port})).recv(100).decode().strip())
"#
    );
    let mut a = shell_with(&[("server.py", &server), ("client.py", &client)]);
    let mut b = shell_with(&[("probe.py", &probe(port))]);
    let a_files = a.sandbox().clone();
    let look = async {
        let ws = a_files.workspace();
        for _ in 0..1200 {
            if ws.exists("ready") {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert!(ws.exists("ready"), "the server never listened");
        // Nothing was opened on the host: the host can take the same port.
        let taken = TcpListener::bind(("127.0.0.1", port));
        assert!(
            taken.is_ok(),
            "the sandbox's listener holds a host port: {taken:?}"
        );
        drop(taken);
        let o = bash(&mut b, "python3 probe.py").await;
        ws.write("go", "").expect("go");
        o
    };
    let (r, o) = tokio::join!(
        bash(&mut a, "python3 server.py &\npython3 client.py; wait"),
        look
    );
    assert!(
        o.stdout
            .starts_with("socket: ConnectionRefusedError ECONNREFUSED\n"),
        "another sandbox reached the listener: {}",
        shown(&o)
    );
    assert_eq!(r.stdout, "inside\n", "{}", shown(&r));
}

#[tokio::test]
async fn a_conversation_between_threads_that_cannot_run_is_named() {
    // Several round trips between two threads of one program need both to run at once,
    // which cooperative threads cannot: the program gets the deadlock error, not a hang.
    let program = r#"
import socket, threading
srv = socket.create_server(("127.0.0.1", 0))
def echo():
    conn, _ = srv.accept()
    while data := conn.recv(100):
        conn.sendall(data)
threading.Thread(target=echo, daemon=True).start()
c = socket.create_connection(srv.getsockname())
for word in (b"one", b"two"):
    c.sendall(word)
    print(c.recv(100).decode())
"#;
    let mut shell = shell_with(&[("echo.py", program)]);
    let r = bash(&mut shell, "python3 echo.py").await;
    assert_eq!(r.exit_code, 1, "{}", shown(&r));
    assert!(r.stdout.starts_with("one\n"), "{}", shown(&r));
    assert!(
        r.stderr.contains("RuntimeError: deadlock") && r.stderr.contains("socket.recv()"),
        "{}",
        shown(&r)
    );
}
