//! Python's network through the host door: `urllib.request`, `http.client` and pandas reach the
//! hosts the sandbox's policy allows and nothing else. Every refusal is shown against a loopback
//! server that is really there (and is checked to have seen no connection).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use llm_in_sandbox::runtime::Limits;
use llm_in_sandbox::sandbox::{HttpSettings, NetworkPolicy, Sandbox, SandboxBuilder};

use crate::common::{ok, py, sandbox_in, show};

/// One request as the test server received it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A loopback HTTP (or HTTPS) server on its own threads, counting connections and keeping
/// every request.
struct Server {
    port: u16,
    accepted: Arc<AtomicUsize>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    fn start() -> Server {
        Self::start_with(None)
    }

    fn start_tls() -> Server {
        let _ = rustls::crypto::ring::default_provider().install_default();
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let certs = vec![CertificateDer::from_pem_slice(SERVER_CERT).unwrap()];
        let key = PrivateKeyDer::from_pem_slice(SERVER_KEY).unwrap();
        let config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap();
        Self::start_with(Some(Arc::new(config)))
    }

    fn start_with(tls: Option<Arc<rustls::ServerConfig>>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (count, log) = (accepted.clone(), seen.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                count.fetch_add(1, Ordering::SeqCst);
                let (log, tls) = (log.clone(), tls.clone());
                std::thread::spawn(move || {
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
                    match tls {
                        None => serve_one(stream, &log),
                        Some(config) => {
                            let Ok(conn) = rustls::ServerConnection::new(config) else {
                                return;
                            };
                            serve_one(rustls::StreamOwned::new(conn, stream), &log);
                        }
                    }
                });
            }
        });
        Server {
            port,
            accepted,
            seen,
        }
    }

    fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// That it is really there: a connection of the test's own is accepted.
    fn assert_reachable(&self) {
        let before = self.accepted();
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let _ = s.write_all(b"GET /hello HTTP/1.0\r\n\r\n");
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        assert!(answer.contains("hello from loopback"), "{answer}");
        assert_eq!(self.accepted(), before + 1);
    }
}

const CA: &[u8] = include_bytes!("fixtures/test-ca.pem");
const SERVER_CERT: &[u8] = include_bytes!("fixtures/test-server.pem");
const SERVER_KEY: &[u8] = include_bytes!("fixtures/test-server-key.pem");

/// Read one request, answer it by its path, close.
fn serve_one<S: Read + Write>(stream: S, log: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (
        parts.next().unwrap_or("").to_string(),
        parts.next().unwrap_or("").to_string(),
    );
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let seen = Seen {
        method,
        target,
        headers,
        body,
    };
    log.lock().unwrap().push(seen.clone());
    let (path, query) = seen
        .target
        .split_once('?')
        .unwrap_or((seen.target.as_str(), ""));
    let arg = |name: &str| {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
            .unwrap_or("")
            .to_string()
    };
    let mut out = reader.into_inner();
    let reply = |out: &mut S, status: &str, extra: &str, body: &[u8]| {
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
            body.len()
        );
        let _ = out.write_all(head.as_bytes());
        let _ = out.write_all(body);
        let _ = out.flush();
    };
    match path {
        "/hello" => reply(
            &mut out,
            "200 OK",
            "Content-Type: text/plain\r\nX-Test: yes\r\n",
            b"hello from loopback\n",
        ),
        "/echo" => {
            let mut body = format!("{} ", seen.method).into_bytes();
            body.extend_from_slice(&seen.body);
            reply(&mut out, "201 Created", "", &body);
        }
        "/redirect" => reply(
            &mut out,
            "302 Found",
            &format!("Location: {}\r\n", arg("to")),
            b"",
        ),
        "/big" => {
            let n: usize = arg("n").parse().unwrap_or(0);
            if arg("chunked") == "1" {
                let _ = out.write_all(
                    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
                );
                let chunk = vec![b'x'; 1000];
                let mut left = n;
                while left > 0 {
                    let k = left.min(chunk.len());
                    let _ = write!(out, "{k:x}\r\n");
                    let _ = out.write_all(&chunk[..k]);
                    let _ = out.write_all(b"\r\n");
                    left -= k;
                }
                let _ = out.write_all(b"0\r\n\r\n");
                let _ = out.flush();
            } else {
                reply(&mut out, "200 OK", "", &vec![b'x'; n]);
            }
        }
        "/csv" => reply(
            &mut out,
            "200 OK",
            "Content-Type: text/csv\r\n",
            b"a,b\n1,2\n3,4\n",
        ),
        "/slow" => {
            std::thread::sleep(Duration::from_secs(6));
            reply(&mut out, "200 OK", "", b"late\n");
        }
        _ => reply(&mut out, "404 Not Found", "", b"not found\n"),
    }
}

fn allowing(ports: &[u16]) -> impl FnOnce(SandboxBuilder) -> SandboxBuilder {
    let hosts: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    move |b| b.network(NetworkPolicy::allow(&hosts).unwrap())
}

async fn run(sb: &Sandbox, code: &str) -> llm_in_sandbox::runtime::RunResult {
    py(sb, &["-c", code]).await
}

#[tokio::test]
async fn urlopen_reaches_an_allowed_host_and_is_refused_elsewhere() {
    let (allowed, other) = (Server::start(), Server::start());
    let sb = sandbox_in(allowing(&[allowed.port]));
    let code = format!(
        r#"
import urllib.request
r = urllib.request.urlopen("http://127.0.0.1:{p}/hello")
print(r.status, r.reason, r.headers["X-Test"], r.headers.get_content_type())
print(r.read().decode(), end="")
req = urllib.request.Request("http://127.0.0.1:{p}/echo", data=b"payload \x00\xff",
                             headers={{"X-Custom": "one"}}, method="PUT")
r = urllib.request.urlopen(req)
print(r.status, r.read())
"#,
        p = allowed.port
    );
    let out = ok(&run(&sb, &code).await);
    assert_eq!(
        out,
        "200 OK yes text/plain\nhello from loopback\n201 b'PUT payload \\x00\\xff'\n"
    );
    let seen = allowed.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(
        (seen[0].method.as_str(), seen[0].target.as_str()),
        ("GET", "/hello")
    );
    assert!(
        seen[0]
            .header("user-agent")
            .is_some_and(|v| v.starts_with("Python-urllib/")),
        "{seen:?}"
    );
    assert_eq!(seen[1].method, "PUT");
    assert_eq!(seen[1].body, b"payload \x00\xff");
    assert_eq!(seen[1].header("x-custom"), Some("one"));

    // The other server is up, but not in the policy: refused at once, naming host and policy.
    let code = format!(
        r#"
import time, urllib.request, urllib.error
t = time.monotonic()
try:
    urllib.request.urlopen("http://127.0.0.1:{q}/hello", timeout=30)
    print("reached")
except urllib.error.URLError as e:
    print(type(e.reason).__name__, e.reason)
print("fast" if time.monotonic() - t < 1 else "slow")
"#,
        q = other.port
    );
    let out = ok(&run(&sb, &code).await);
    assert_eq!(
        out,
        format!(
            "PermissionError host 127.0.0.1:{q} is not allowed by the sandbox's network policy \
             (allowed: 127.0.0.1:{p})\nfast\n",
            q = other.port,
            p = allowed.port
        )
    );
    assert_eq!(other.accepted(), 0, "the denied server saw a connection");
    other.assert_reachable();
}

#[tokio::test]
async fn http_client_works_directly_and_refuses_at_connect() {
    let (allowed, other) = (Server::start(), Server::start());
    let sb = sandbox_in(allowing(&[allowed.port]));
    let code = format!(
        r#"
import http.client
c = http.client.HTTPConnection("127.0.0.1", {p}, timeout=10)
c.request("POST", "/echo", body=b"abc", headers={{"Content-Type": "text/plain"}})
r = c.getresponse()
print(r.status, r.reason, r.getheader("content-length"), r.read())
# The server closes each connection; the next request opens a new one.
c.request("GET", "/nothing-here")
r = c.getresponse()
print(r.status, r.read())
# Hand-driven, with a chunked body.
c.putrequest("POST", "/echo")
c.putheader("Transfer-Encoding", "chunked")
c.endheaders()
c.send(b"3\r\nxyz\r\n0\r\n\r\n")
print(c.getresponse().read())
c.close()
print(http.client.HTTPSConnection.default_port)
d = http.client.HTTPConnection("127.0.0.1", {q})
try:
    d.connect()
except PermissionError as e:
    print("refused:", e)
"#,
        p = allowed.port,
        q = other.port
    );
    let out = ok(&run(&sb, &code).await);
    assert_eq!(
        out,
        format!(
            "201 Created 8 b'POST abc'\n404 b'not found\\n'\nb'POST xyz'\n443\nrefused: host \
             127.0.0.1:{q} is not allowed by the sandbox's network policy (allowed: \
             127.0.0.1:{p})\n",
            p = allowed.port,
            q = other.port
        )
    );
    let seen = allowed.seen();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(seen[0].header("content-type"), Some("text/plain"));
    assert_eq!(seen[2].body, b"xyz");
    assert_eq!(other.accepted(), 0);
    other.assert_reachable();
}

#[tokio::test]
async fn a_redirect_to_a_host_not_allowed_is_refused() {
    let (allowed, other) = (Server::start(), Server::start());
    let sb = sandbox_in(allowing(&[allowed.port]));
    let code = format!(
        r#"
import urllib.request, urllib.error
r = urllib.request.urlopen("http://127.0.0.1:{p}/redirect?to=/hello")
print(r.geturl(), r.read().decode(), end="")
try:
    urllib.request.urlopen("http://127.0.0.1:{p}/redirect?to=http://127.0.0.1:{q}/hello")
    print("followed")
except urllib.error.URLError as e:
    print(e.reason)
"#,
        p = allowed.port,
        q = other.port
    );
    let out = ok(&run(&sb, &code).await);
    assert_eq!(
        out,
        format!(
            "http://127.0.0.1:{p}/hello hello from loopback\nhost 127.0.0.1:{q} is not allowed by \
             the sandbox's network policy (allowed: 127.0.0.1:{p})\n",
            p = allowed.port,
            q = other.port
        )
    );
    assert_eq!(other.accepted(), 0, "the redirect target saw a connection");
    other.assert_reachable();
}

#[tokio::test]
async fn responses_and_requests_are_capped() {
    let server = Server::start();
    let settings = HttpSettings::default()
        .max_response_bytes(10_000)
        .max_request_bytes(50_000);
    let sb = sandbox_in(|b| allowing(&[server.port])(b).http(settings));
    let code = format!(
        r#"
import urllib.request, urllib.error
base = "http://127.0.0.1:{p}"
print(len(urllib.request.urlopen(base + "/big?n=10000").read()))
for url in ("/big?n=10001", "/big?n=200000&chunked=1"):
    try:
        urllib.request.urlopen(base + url)
        print("got it")
    except urllib.error.URLError as e:
        print(e.reason)
try:
    urllib.request.urlopen(base + "/echo", data=b"y" * 60000)
except urllib.error.URLError as e:
    print(e.reason)
"#,
        p = server.port
    );
    let out = ok(&run(&sb, &code).await);
    let cap = "the response from 127.0.0.1 is larger than the sandbox's cap of 10000 bytes";
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[..3], ["10000", cap, cap], "{out}");
    assert!(
        lines[3].contains("the sandbox passes at most 50000 bytes"),
        "{out}"
    );
    // The oversized upload never reached the server.
    assert!(server.seen().iter().all(|s| s.target != "/echo"));
}

#[tokio::test]
async fn https_goes_through_the_hosts_tls() {
    let server = Server::start_tls();
    let trusted = HttpSettings::default().trust_pem(CA).unwrap();
    let sb = sandbox_in(|b| allowing(&[server.port])(b).http(trusted));
    let code = format!(
        r#"
import urllib.request, urllib.error, http.client
r = urllib.request.urlopen("https://127.0.0.1:{p}/hello")
print(r.status, r.read().decode(), end="")
c = http.client.HTTPSConnection("127.0.0.1", {p}, context=None)
c.request("GET", "/hello")
print(c.getresponse().read().decode(), end="")
# localhost is the same server, but not in the policy.
try:
    urllib.request.urlopen("https://localhost:{p}/hello")
except urllib.error.URLError as e:
    print(e.reason)
"#,
        p = server.port
    );
    let out = ok(&run(&sb, &code).await);
    assert_eq!(
        out,
        format!(
            "200 hello from loopback\nhello from loopback\nhost localhost:{p} \
             is not allowed by the sandbox's network policy (allowed: 127.0.0.1:{p})\n",
            p = server.port
        )
    );
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn https_checks_the_certificate_and_the_policy() {
    let server = Server::start_tls();
    let hosts = vec![
        format!("127.0.0.1:{}", server.port),
        format!("localhost:{}", server.port),
    ];
    // Allowed, but the test CA is not trusted: the host's TLS refuses the certificate.
    let sb = sandbox_in(|b| b.network(NetworkPolicy::allow(&hosts).unwrap()));
    let code = format!(
        r#"
import urllib.request, urllib.error
try:
    urllib.request.urlopen("https://127.0.0.1:{p}/hello")
    print("reached")
except urllib.error.URLError as e:
    print("refused:", e.reason)
"#,
        p = server.port
    );
    let out = ok(&run(&sb, &code).await);
    assert!(out.starts_with("refused:"), "{out}");
    assert!(out.to_lowercase().contains("certificate"), "{out}");
    // Trusted, by name: the certificate names localhost too.
    let trusted = HttpSettings::default().trust_pem(CA).unwrap();
    let sb = sandbox_in(|b| {
        b.network(NetworkPolicy::allow(&hosts).unwrap())
            .http(trusted)
    });
    let code = format!(
        r#"
import urllib.request
print(urllib.request.urlopen("https://localhost:{p}/hello").read().decode(), end="")
"#,
        p = server.port
    );
    assert_eq!(ok(&run(&sb, &code).await), "hello from loopback\n");
    assert!(
        HttpSettings::default()
            .trust_pem(b"not a certificate")
            .is_err()
    );
}

#[tokio::test]
async fn the_default_policy_refuses_everything() {
    let server = Server::start();
    let sb = sandbox_in(|b| b);
    let code = format!(
        r#"
import urllib.request, urllib.error, http.client
for url in ("http://127.0.0.1:{p}/hello", "https://127.0.0.1:{p}/hello", "http://example.org/"):
    try:
        urllib.request.urlopen(url)
        print("reached")
    except urllib.error.URLError as e:
        print(e.reason)
"#,
        p = server.port
    );
    let out = ok(&run(&sb, &code).await);
    let p = server.port;
    assert_eq!(
        out,
        format!(
            "host 127.0.0.1:{p} is not allowed: the sandbox's network policy allows no host (no \
             network)\nhost 127.0.0.1:{p} is not allowed: the sandbox's network policy allows no \
             host (no network)\nhost example.org is not allowed: the sandbox's network policy \
             allows no host (no network)\n"
        )
    );
    assert_eq!(server.accepted(), 0);
    server.assert_reachable();
}

#[tokio::test]
async fn pandas_reads_a_csv_from_an_allowed_url() {
    let server = Server::start();
    let sb = sandbox_in(allowing(&[server.port]));
    let code = format!(
        "import pandas as pd\nprint(pd.read_csv('http://127.0.0.1:{}/csv')['b'].sum())",
        server.port
    );
    assert_eq!(ok(&run(&sb, &code).await), "6\n");
}

#[tokio::test]
async fn a_request_is_bounded_by_its_timeout_and_the_commands_deadline() {
    let server = Server::start();
    let sb = sandbox_in(|b| {
        allowing(&[server.port])(b).limits(Limits {
            timeout: Duration::from_secs(2),
            ..Limits::default()
        })
    });
    // The guest's own timeout.
    let code = format!(
        r#"
import urllib.request, urllib.error
try:
    urllib.request.urlopen("http://127.0.0.1:{p}/slow", timeout=0.5)
except urllib.error.URLError as e:
    print(type(e.reason).__name__)
"#,
        p = server.port
    );
    let started = Instant::now();
    assert_eq!(ok(&run(&sb, &code).await), "TimeoutError\n");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // No timeout of its own: the command's 2 s deadline stops it.
    let code = format!(
        "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:{}/slow')\nprint('no')",
        server.port
    );
    let started = Instant::now();
    let r = run(&sb, &code).await;
    assert!(!r.stdout_text().contains("no"), "{}", show(&r));
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn the_door_refuses_a_hostile_guest() {
    let server = Server::start();
    let sb = sandbox_in(allowing(&[server.port]));
    let code = format!(
        r#"
import _host, json
# The run request is handed out once per run.
try:
    _host.call(b"request")
    print("run request again")
except Exception as e:
    print("refused again")
# Oversized: refused before it is read.
print(json.loads(_host.call(b"http\0" + b"x" * (17 << 20)))["error"])
# Malformed.
print(json.loads(_host.call(b"http\0{{not json"))["error"])
# Not http(s), or a URL without the port the policy names.
for url in ("file:///etc/passwd", "ftp://127.0.0.1:{p}/", "http://127.0.0.1/"):
    print(json.loads(_host.call(b"http-check\0" + json.dumps({{"url": url}}).encode()))["error"])
"#,
        p = server.port
    );
    let out = ok(&run(&sb, &code).await);
    assert_eq!(
        out, "refused again\ntoo_large\nbad_request\ndenied\ndenied\ndenied\n",
        "{out}"
    );
    assert_eq!(server.accepted(), 0);
}

#[test]
fn exec_allow_net_reaches_python_too() {
    let server = Server::start();
    let bin = || {
        crate::common::runtime();
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"));
        c.stdin(std::process::Stdio::null())
            .env("LLM_IN_SANDBOX_CACHE", crate::common::cache_root());
        c
    };
    let code = format!(
        "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:{}/hello').read().decode(), end='')",
        server.port
    );
    let allowed = format!("127.0.0.1:{}", server.port);
    let o = bin()
        .args([
            "exec",
            "--allow-net",
            &allowed,
            "--",
            "python3",
            "-c",
            &code,
        ])
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "hello from loopback\n");
    // The same command without the flag is refused by the policy; the shell's python3 too.
    let o = bin()
        .args(["exec", "--bash", &format!("python3 -c \"{code}\"")])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("allows no host"),
        "{}",
        text(&o.stderr)
    );
    let before = server.accepted();
    let o = bin()
        .args([
            "exec",
            "--allow-net",
            &allowed,
            "--bash",
            &format!("python3 -c \"{code}\""),
        ])
        .output()
        .unwrap();
    assert_eq!(
        text(&o.stdout),
        "hello from loopback\n",
        "{}",
        text(&o.stderr)
    );
    assert_eq!(server.accepted(), before + 1);
}
