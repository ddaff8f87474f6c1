//! The in-process bash: compatibility with GNU bash, escapes, limits, persistence, and the
//! commands that cannot work here.

use std::sync::Arc;
use std::time::Duration;

use llm_in_sandbox::runtime::Limits;
use llm_in_sandbox::shell::{
    CommandOutcome, CommandResult, NetworkPolicy, ObservationFormat, Shell, ShellSettings,
    observation,
};

use llm_in_sandbox::sandbox::SandboxBuilder;

use crate::common::{sandbox_in, sandbox_with};

fn shell_with(settings: ShellSettings, limits: Limits) -> Shell {
    Shell::new(Arc::new(sandbox_with(limits)), settings).expect("shell")
}

/// A shell over a sandbox built with `f` (quota, network policy, ...).
fn shell_in(f: impl FnOnce(SandboxBuilder) -> SandboxBuilder) -> Shell {
    Shell::new(Arc::new(sandbox_in(f)), ShellSettings::default()).expect("shell")
}

fn shell() -> Shell {
    shell_with(ShellSettings::default(), Limits::default())
}

fn show(r: &CommandResult) -> String {
    observation(r, &ObservationFormat::default())
}

#[derive(serde::Deserialize)]
struct Fixture {
    generated_by: String,
    data_txt: String,
    scores_csv: String,
    cases: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    name: String,
    script: String,
    stdout: String,
    exit_code: i32,
}

/// Cases whose output differs from GNU bash, with the reason. A case listed here that starts
/// passing is reported; a case not listed here that fails fails the test.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

#[tokio::test]
async fn agent_one_liners_match_gnu_bash() {
    let fixture: Fixture =
        serde_json::from_str(include_str!("../fixtures/bash_compat.json")).expect("fixture");
    let mut passed = 0;
    let mut failures = Vec::new();
    let mut fixed = Vec::new();
    for case in &fixture.cases {
        let mut sh = shell();
        let ws = sh.sandbox().workspace();
        ws.write("data.txt", &fixture.data_txt).unwrap();
        ws.write("scores.csv", &fixture.scores_csv).unwrap();
        let r = sh.exec(&case.script).await.unwrap();
        let ok = r.stdout == case.stdout && r.exit_code == case.exit_code;
        let known = KNOWN_DIFFERENCES.iter().any(|(n, _)| *n == case.name);
        match (ok, known) {
            (true, false) => passed += 1,
            (true, true) => fixed.push(case.name.clone()),
            (false, true) => {}
            (false, false) => failures.push(format!(
                "{}: expected exit {} {:?}\n  got {}",
                case.name,
                case.exit_code,
                case.stdout,
                show(&r).replace('\n', "\n  ")
            )),
        }
    }
    eprintln!(
        "bash compatibility: {passed}/{} cases byte-identical to {} ({} known differences)",
        fixture.cases.len(),
        fixture.generated_by,
        KNOWN_DIFFERENCES.len()
    );
    if !fixed.is_empty() {
        eprintln!("now passing, remove from KNOWN_DIFFERENCES: {fixed:?}");
    }
    assert!(fixture.cases.len() >= 60);
    assert!(
        failures.is_empty(),
        "{} regressions:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn state_persists_between_calls() {
    let mut sh = shell();
    let r = sh
        .exec("mkdir -p work && cd work && X=42 && greet() { echo \"hi $1\"; }")
        .await
        .unwrap();
    assert_eq!(r.exit_code, 0, "{}", show(&r));
    let r = sh
        .exec("pwd; echo $X; greet there; python3 -c 'import os; print(os.getcwd())'")
        .await
        .unwrap();
    assert_eq!(
        r.stdout,
        "/testbed/work\n42\nhi there\n/testbed/work\n",
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn host_files_are_invisible() {
    let mut sh = shell();
    // /etc is the sandbox's own (Debian 12's base files, as in the reference's image),
    // never the host's.
    let r = sh.exec("cat /etc/passwd; cat /etc/hostname").await.unwrap();
    let files = llm_in_sandbox::runtime::linux_files::etc_files();
    let text = |path: &str| {
        files
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.clone())
            .unwrap_or_default()
    };
    let own = text("/etc/passwd") + &text("/etc/hostname");
    assert!(
        own.starts_with("root:x:0:0:") && own.ends_with("sandbox\n"),
        "{own}"
    );
    assert_eq!(r.stdout, own, "{}", show(&r));
    let r = sh.exec("cd /; ls").await.unwrap();
    assert_eq!(r.exit_code, 0);
    for name in r.stdout.lines() {
        assert!(
            [
                "bin", "dev", "etc", "home", "proc", "root", "testbed", "tmp", "usr"
            ]
            .contains(&name),
            "unexpected entry in the virtual root: {name}\n{}",
            show(&r)
        );
    }
    let r = sh
        .exec("ls /work /home/user 2>&1; cat /proc/self/environ 2>&1 | grep -c CARGO")
        .await
        .unwrap();
    assert!(!r.stdout.contains("main"), "{}", show(&r));
    assert!(r.stdout.trim_end().ends_with('0'), "{}", show(&r));
}

#[tokio::test]
async fn symlinks_cannot_lead_out() {
    let mut sh = shell();
    let r = sh
        .exec("ln -s /etc x; echo rc=$?; cat x/passwd 2>&1 | grep -c root:x:0:0")
        .await
        .unwrap();
    assert!(
        r.stdout.starts_with("rc=1\n"),
        "absolute link must be refused\n{}",
        show(&r)
    );
    let r = sh
        .exec("ln -s ../../.. up; echo rc=$?; ls up 2>&1 | head -3")
        .await
        .unwrap();
    assert!(
        r.stdout.starts_with("rc=1\n"),
        "escaping link must be refused\n{}",
        show(&r)
    );
    let host = sh.sandbox().workspace().host_path().to_path_buf();
    assert!(std::fs::symlink_metadata(host.join("x")).is_err());
    assert!(std::fs::symlink_metadata(host.join("up")).is_err());
    // A link that stays inside works, for the shell and for Python.
    let r = sh.exec("mkdir d && echo in > d/f && ln -s d/f inside && cat inside && python3 -c \"print(open('inside').read().strip())\"").await.unwrap();
    assert_eq!(r.stdout, "in\nin\n", "{}", show(&r));
    // A link planted on the host (e.g. by an earlier tool) is not followed out either.
    std::os::unix::fs::symlink("/etc/passwd", host.join("planted")).unwrap();
    let r = sh.exec("cat planted; echo rc=$?").await.unwrap();
    assert!(!r.stdout.contains("root:x:0:0"), "{}", show(&r));
}

#[tokio::test]
async fn cd_out_of_testbed_and_write_stays_virtual() {
    let mut sh = shell();
    let r = sh
        .exec("cd ..; pwd; echo data > escaped.txt; ls")
        .await
        .unwrap();
    assert!(r.stdout.starts_with("/\n"), "{}", show(&r));
    // Whatever the shell did at `/`, nothing reached the host next to the workspace.
    let host = sh.sandbox().workspace().host_path().to_path_buf();
    assert!(!host.parent().unwrap().join("escaped.txt").exists());
    // Python sees the sandbox's own virtual /etc, as the shell does, never the host's.
    let r = sh
        .exec("cd /etc; python3 -c \"print(open('/etc/hostname').read(), end='')\"; echo rc=$?")
        .await
        .unwrap();
    assert_eq!(r.stdout, "sandbox\nrc=0\n", "{}", show(&r));
}

#[tokio::test]
async fn python_forms_in_the_shell() {
    let mut sh = shell();
    let r = sh
        .exec("cd /tmp && printf 'import sys\\nprint(sys.stdin.read().upper())' > up.py && echo abc | python3 up.py && python -m json.tool <<< '{\"a\":1}'").await.unwrap();
    assert_eq!(r.stdout, "ABC\n\n{\n    \"a\": 1\n}\n", "{}", show(&r));
}

#[tokio::test]
async fn busy_loop_times_out_cleanly() {
    let settings = ShellSettings {
        timeout: Duration::from_secs(1),
        ..ShellSettings::default()
    };
    let mut sh = shell_with(settings, Limits::default());
    let r = sh
        .exec("echo before; while true; do :; done")
        .await
        .unwrap();
    assert_eq!(r.outcome, CommandOutcome::Timeout, "{}", show(&r));
    assert_eq!(r.exit_code, 124);
    assert_eq!(r.stdout, "before\n");
    // The model sees the reference's timeout text with our limit; the output is dropped.
    assert!(
        show(&r).ends_with("\\[STDOUT]\nThe command took too long to execute (>1s)"),
        "{}",
        show(&r)
    );
    // The shell is still usable afterwards.
    assert_eq!(sh.exec("echo after").await.unwrap().stdout, "after\n");
}

#[tokio::test]
async fn python_busy_loop_inside_the_shell_times_out() {
    let settings = ShellSettings {
        timeout: Duration::from_secs(2),
        ..ShellSettings::default()
    };
    let mut sh = shell_with(settings, Limits::default());
    let r = sh
        .exec("python3 -c 'while True: pass'; echo rc=$?")
        .await
        .unwrap();
    // Either the Python deadline (shortened to the shell's remaining time) or the shell's own.
    assert!(
        r.outcome == CommandOutcome::Timeout || r.stdout.contains("rc=124"),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn yes_into_head_ends_cleanly() {
    let mut sh = shell();
    let r = sh.exec("yes | head -c 10000000 | wc -c").await.unwrap();
    assert_eq!(r.outcome, CommandOutcome::Completed, "{}", show(&r));
    assert!(r.stdout.trim().parse::<u64>().is_ok(), "{}", show(&r));
}

#[tokio::test]
async fn disk_quota_stops_big_writes() {
    let mut sh = shell_in(|b| b.disk_quota(4 << 20));
    let ws_size = |sh: &Shell| {
        let ws = sh.sandbox().workspace();
        ["big.txt", "big.bin"]
            .iter()
            .filter_map(|f| ws.read(f).ok())
            .map(|b| b.len())
            .sum::<usize>()
    };
    // Through a shell redirection: refused before anything is written.
    let r = sh
        .exec("python3 -c \"print('x' * (6 << 20))\" > big.txt; echo rc=$?")
        .await
        .unwrap();
    assert_eq!(r.stdout, "rc=1\n", "{}", show(&r));
    assert!(r.stderr.contains("disk quota exceeded"), "{}", show(&r));
    assert!(ws_size(&sh) < 4 << 20);
    // Python writing a file itself (1 GB, in 64 MB pieces): stopped at the quota with ENOSPC.
    let r = sh
        .exec("python3 -c \"f = open('big.bin', 'wb')\nfor _ in range(16): f.write(b'0' * (64 << 20))\"; echo rc=$?").await.unwrap();
    assert!(r.stdout.ends_with("rc=1\n"), "{}", show(&r));
    assert!(r.stderr.contains("No space left on device"), "{}", show(&r));
    assert!(ws_size(&sh) <= 4 << 20, "{} bytes written", ws_size(&sh));
    // Once the file is removed, writing works again.
    let r = sh
        .exec("rm -f big.bin big.txt; echo small > s.txt; cat s.txt")
        .await
        .unwrap();
    assert_eq!(r.stdout, "small\n", "{}", show(&r));
}

#[tokio::test]
async fn pip_and_missing_tools_answer_clearly() {
    let mut sh = shell();
    let r = sh.exec("pip install numpy sympy").await.unwrap();
    assert_eq!(r.exit_code, 0, "{}", show(&r));
    assert!(
        r.stdout.contains("Requirement already satisfied: numpy"),
        "{}",
        show(&r)
    );
    let r = sh.exec("pip install torch").await.unwrap();
    assert_eq!(r.exit_code, 1);
    assert!(
        r.stderr.contains("cannot install torch") && r.stderr.contains("sympy"),
        "{}",
        show(&r)
    );
    let r = sh.exec("python3 -m pip install pandas").await.unwrap();
    assert!(r.stdout.contains("pandas"), "{}", show(&r));
    for cmd in ["apt-get install -y jq", "make all", "sudo ls"] {
        let r = sh.exec(cmd).await.unwrap();
        assert_eq!(r.exit_code, 127, "{cmd}: {}", show(&r));
        assert_eq!(r.stderr.lines().count(), 1, "{cmd}: {}", show(&r));
        assert!(
            r.stderr.contains("not available in this sandbox"),
            "{cmd}: {}",
            show(&r)
        );
    }
}

#[tokio::test]
async fn network_is_off_by_default() {
    // A server that is really there: only the policy can keep the shell from it.
    let port = serve("must not be seen\n");
    let mut sh = shell();
    for cmd in [
        format!("curl -s http://127.0.0.1:{port}/x; echo rc=$?"),
        format!("wget -q -O - http://localhost:{port}/x; echo rc=$?"),
    ] {
        let r = sh.exec(&cmd).await.unwrap();
        assert!(
            !r.stdout.contains("must not be seen"),
            "{cmd}: {}",
            show(&r)
        );
        assert!(!r.stdout.contains("rc=0"), "{cmd}: {}", show(&r));
    }
    // The same server is reachable when the policy names it (so the refusal above was the
    // policy's, not a dead port).
    let mut allowed =
        shell_in(|b| b.network(NetworkPolicy::allow(&[format!("127.0.0.1:{port}")]).unwrap()));
    let r = allowed
        .exec(&format!("curl -s http://127.0.0.1:{port}/x"))
        .await
        .unwrap();
    assert_eq!(r.stdout, "must not be seen\n", "{}", show(&r));
}

#[tokio::test]
async fn file_count_cap_holds_for_shell_and_python() {
    let mut sh = shell_in(|b| b.max_files(5));
    let r = sh
        .exec("for i in 1 2 3 4 5 6 7; do echo $i > f$i.txt || echo refused $i; done; ls | wc -l")
        .await
        .unwrap();
    assert!(r.stdout.contains("refused 6"), "{}", show(&r));
    assert!(r.stderr.contains("may hold 5 files"), "{}", show(&r));
    assert_eq!(r.stdout.lines().last(), Some("5"), "{}", show(&r));
    // Python is held to the same count, live: a new file fails with ENOSPC, an existing one
    // can still be rewritten.
    let r = sh
        .exec("python3 -c \"open('f1.txt', 'w').write('again'); open('new.txt', 'w')\"; echo rc=$?")
        .await
        .unwrap();
    assert!(r.stdout.ends_with("rc=1\n"), "{}", show(&r));
    assert!(r.stderr.contains("No space left on device"), "{}", show(&r));
    assert_eq!(sh.sandbox().workspace().read("f1.txt").unwrap(), b"again");
    assert!(!sh.sandbox().workspace().exists("new.txt"));
    // Deleting makes room again, for both.
    let r = sh
        .exec("rm f5.txt && python3 -c \"open('new.txt', 'w').write('ok')\" && cat new.txt")
        .await
        .unwrap();
    assert_eq!(r.stdout, "ok", "{}", show(&r));
}

/// A one-shot HTTP server on loopback answering every request with `body`.
fn serve(body: &'static str) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(4) {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

#[tokio::test]
async fn allow_listed_hosts_are_reachable_and_others_are_not() {
    let port = serve("hello from the allowed host\n");
    let other = serve("must not be seen\n");
    let mut sh =
        shell_in(|b| b.network(NetworkPolicy::allow(&[format!("127.0.0.1:{port}")]).unwrap()));
    let r = sh
        .exec(&format!("curl -s http://127.0.0.1:{port}/x"))
        .await
        .unwrap();
    assert_eq!(r.stdout, "hello from the allowed host\n", "{}", show(&r));
    let r = sh
        .exec(&format!("curl -s http://127.0.0.1:{other}/x; echo rc=$?"))
        .await
        .unwrap();
    assert!(!r.stdout.contains("must not be seen"), "{}", show(&r));
    assert!(NetworkPolicy::allow(&["http://x/y"]).is_err());
}

/// The machine's own host name (from `gethostname`), when it resolves to loopback or private
/// addresses only, as it does in containers and VMs (`/etc/hosts`).
fn private_host_name() -> Option<String> {
    use std::net::ToSocketAddrs as _;
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } != 0 {
        return None;
    }
    let end = buf.iter().position(|b| *b == 0)?;
    let name = String::from_utf8(buf[..end].to_vec()).ok()?.to_lowercase();
    let addrs: Vec<_> = (name.as_str(), 80).to_socket_addrs().ok()?.collect();
    let private = |ip: std::net::IpAddr| match ip {
        std::net::IpAddr::V4(v4) => v4.is_loopback() || v4.is_private() || v4.is_link_local(),
        std::net::IpAddr::V6(v6) => v6.is_loopback() || (v6.segments()[0] & 0xfe00) == 0xfc00,
    };
    (!addrs.is_empty() && addrs.iter().all(|a| private(a.ip())) && name != "localhost")
        .then_some(name)
}

/// Naming one private address (or `localhost`) in the allow-list reaches that address and
/// lifts the private-address filter for no other name: an allowed name that resolves to the
/// host's own network is refused, for curl and Python alike.
#[tokio::test]
async fn naming_a_private_address_lifts_the_filter_for_no_other_name() {
    let Some(name) = private_host_name() else {
        eprintln!("SKIPPED: this machine's host name does not resolve to private addresses only");
        return;
    };
    let port = serve("from loopback\n");
    let sb = Arc::new(sandbox_in(|b| {
        b.network(
            NetworkPolicy::allow(&[
                format!("127.0.0.1:{port}"),
                format!("localhost:{port}"),
                format!("{name}:{port}"),
            ])
            .unwrap(),
        )
    }));
    let mut sh = Shell::new(sb.clone(), ShellSettings::default()).expect("shell");
    for host in ["127.0.0.1", "localhost"] {
        let r = sh
            .exec(&format!("curl -s http://{host}:{port}/x"))
            .await
            .unwrap();
        assert_eq!(r.stdout, "from loopback\n", "{host}: {}", show(&r));
    }
    let r = sh
        .exec(&format!("curl -sS http://{name}:{port}/x; echo rc=$?"))
        .await
        .unwrap();
    assert!(!r.stdout.contains("from loopback"), "{}", show(&r));
    assert!(
        r.stderr.contains("loopback or private addresses"),
        "{}",
        show(&r)
    );
    let code = format!(
        "import urllib.request\ntry:\n    urllib.request.urlopen('http://{name}:{port}/x', timeout=10)\n    print('reached')\nexcept OSError as e:\n    print('refused', e)\n"
    );
    let out = crate::common::ok(&crate::common::py(&sb, &["-c", &code]).await);
    assert!(
        out.starts_with("refused") && out.contains("loopback or private addresses"),
        "{out}"
    );
}
