//! The Linux box inside the guest (design.md 4b, docs/linux-compatibility.md): identity, HOME,
//! cooperative threads, asyncio, alarms and process pools, checked against the host's CPython
//! program by program, plus what Linux would hang on and what the shell says about the user.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use llm_in_sandbox::shell::{Shell, ShellSettings};

use crate::common::{code, ok, py, sandbox, sandbox_in, show};

/// The differential programs: each run by the host's `python3` in a fresh folder and by the
/// sandbox in its workspace; stdout and exit code must agree.
const PROGRAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/linux_programs");
/// The share of programs that must give Linux's output (each difference left is named in
/// docs/linux-compatibility.md).
const MIN_SAME: f64 = 0.95;
/// How many programs there are at least.
const MIN_PROGRAMS: usize = 300;
/// The packages the host's python needs (the guest's versions).
const HOST_REQUIREMENTS: &str = "tests/fixtures/linux_programs/host-requirements.txt";

/// The oracle (`LLM_IN_SANDBOX_TEST_HOST_PYTHON`, else a venv the tests make on first use).
fn host_python() -> String {
    crate::common::venv::oracle_python().unwrap_or_else(|| "python3".into())
}

/// (stdout, exit code) of `python3 prog.py` on the host, in a fresh folder, with the
/// reference container's locale. A package the host lacks fails the test, saying what to
/// install: a skipped program would hide a difference.
fn on_host(program: &Path, name: &str) -> (String, i32) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(program, dir.path().join("prog.py")).expect("copy program");
    let out = std::process::Command::new(host_python())
        .arg("prog.py")
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("LANG", "C.UTF-8")
        .env_remove("LC_ALL")
        .env_remove("PYTHONHASHSEED")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "this test compares against the host's CPython: cannot run `{}` ({e}); set \
                 LLM_IN_SANDBOX_TEST_HOST_PYTHON to a python3 (>= 3.12) with the packages of \
                 {HOST_REQUIREMENTS}",
                host_python()
            )
        });
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(missing) = stderr
        .lines()
        .find_map(|l| l.strip_prefix("ModuleNotFoundError: No module named "))
    {
        panic!(
            "the host's python (`{}`) lacks the module {missing}, which {name} imports: make a \
             venv with Python >= 3.12, `pip install -r {HOST_REQUIREMENTS}` in it, and set \
             LLM_IN_SANDBOX_TEST_HOST_PYTHON to its python (unset, the tests make that venv \
             in target/tmp/oracle-venv themselves)",
            host_python()
        );
    }
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[tokio::test]
async fn linux_programs_match_host_python() {
    if crate::common::venv::oracle_python().is_none() {
        crate::common::skip_unless_ci(
            "linux_programs_match_host_python",
            "no Python >= 3.12 on this machine for the oracle (install python3.12 or newer, or \
             set LLM_IN_SANDBOX_TEST_HOST_PYTHON)",
        );
        return;
    }
    let mut programs: Vec<_> = std::fs::read_dir(PROGRAMS)
        .expect("fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    programs.sort();
    assert!(
        programs.len() >= MIN_PROGRAMS,
        "fixtures missing: {programs:?}"
    );
    let mut same = 0;
    let mut report = String::new();
    for program in &programs {
        let name = program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let (want, want_code) = on_host(program, &name);
        // Through the shell, as models run programs (and so `subprocess` has a shell).
        let sb = Arc::new(sandbox());
        let source = std::fs::read(program).expect("read program");
        sb.write_workspace_file("prog.py", &source).expect("write");
        let mut shell = Shell::new(sb, ShellSettings::default()).expect("shell");
        let r = shell.exec("python3 prog.py").await.expect("shell");
        if r.stdout == want && r.exit_code == want_code {
            same += 1;
        } else {
            report.push_str(&format!(
                "--- {name}: host exit {want_code}\n{want}\n--- sandbox exit {}\n{}\n{}\n",
                r.exit_code, r.stdout, r.stderr
            ));
        }
    }
    eprint!("{report}");
    let ratio = same as f64 / programs.len() as f64;
    eprintln!(
        "linux programs: {same} of {} identical to host CPython ({:.1}%)",
        programs.len(),
        ratio * 100.0
    );
    assert!(
        ratio >= MIN_SAME,
        "only {same}/{} programs match:\n{report}",
        programs.len()
    );
}

#[tokio::test]
async fn identity_is_root_everywhere() {
    let r = code(
        "import os, pwd, grp, getpass\n\
         print(os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getgroups())\n\
         print(getpass.getuser(), os.getlogin(), pwd.getpwuid(0).pw_dir, grp.getgrgid(0)[0])\n\
         print(os.environ['HOME'], os.path.expanduser('~'), repr(pwd.getpwnam('root'))[:40])\n\
         from os import getuid\n\
         try:\n    pwd.getpwuid(1000)\nexcept KeyError as e:\n    print('KeyError', e)",
    )
    .await;
    assert_eq!(
        ok(&r),
        "0 0 0 0 [0]\nroot root /root root\n/root /root pwd.struct_passwd(pw_name='root', pw_pas\n\
         KeyError 'getpwuid(): uid not found: 1000'\n"
    );
    let mut shell =
        Shell::new(Arc::new(sandbox()), ShellSettings::default()).expect("shell over a sandbox");
    let r = shell
        .exec("id; id -u; id -un; whoami; echo $HOME; cd ~ && pwd")
        .await
        .expect("shell");
    assert_eq!(
        r.stdout, "uid=0(root) gid=0(root) groups=0(root)\n0\nroot\nroot\n/root\n/root\n",
        "{r:?}"
    );
}

#[tokio::test]
async fn home_is_writable_shared_and_counted_in_the_quota() {
    let sb = Arc::new(sandbox_in(|b| b.disk_quota(64 << 10)));
    let mut shell = Shell::new(sb.clone(), ShellSettings::default()).expect("shell");
    let r = shell
        .exec("echo from-shell > ~/note.txt && python3 -c \"from pathlib import Path; p = Path.home() / 'note.txt'; print(p.read_text().strip()); (Path.home() / '.cache').mkdir(); (Path.home() / '.cache' / 'x').write_text('y' * 1000)\"")
        .await
        .expect("shell");
    assert_eq!(r.stdout, "from-shell\n", "{r:?}");
    assert!(sb.quota().usage().bytes >= 1000, "{:?}", sb.quota().usage());
    // Past the quota, a write under /root fails like one under /testbed.
    let r = py(
        &sb,
        &["-c", "open('/root/big', 'wb').write(b'x' * (128 << 10))"],
    )
    .await;
    assert_ne!(r.exit_code, 0, "{}", show(&r));
    assert!(
        r.stderr_text().contains("No space left on device"),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn waits_that_would_hang_raise_a_clear_error() {
    // Timed from a loaded runtime (its first load may make the snapshot).
    let _ = crate::common::runtime();
    let started = Instant::now();
    let r = code(
        "import threading, queue\n\
         for what in (threading.Event().wait, queue.Queue().get, threading.Barrier(2).wait):\n\
         \x20   try:\n\
         \x20       what()\n\
         \x20   except RuntimeError as e:\n\
         \x20       print('RuntimeError', 'one at a time' in str(e))\n\
         a, b = threading.Event(), threading.Event()\n\
         def ping():\n\
         \x20   a.wait()\n\
         \x20   b.set()\n\
         threading.Thread(target=ping).start()\n\
         try:\n\
         \x20   b.wait()\n\
         except RuntimeError as e:\n\
         \x20   print('deadlock seen by main')",
    )
    .await;
    assert_eq!(
        ok(&r),
        "RuntimeError True\nRuntimeError True\nRuntimeError True\ndeadlock seen by main\n"
    );
    assert!(
        r.stderr_text().contains("Exception in thread") && r.stderr_text().contains("deadlock"),
        "{}",
        show(&r)
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[tokio::test]
async fn alarms_fire_in_sleeps_and_loops_and_default_kills() {
    // Timed from a loaded runtime (its first load may make the snapshot).
    let _ = crate::common::runtime();
    let started = Instant::now();
    let r = code(
        "import signal, time\n\
         hits = []\n\
         signal.signal(signal.SIGALRM, lambda s, f: hits.append(s))\n\
         signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)\n\
         time.sleep(0.3)\n\
         signal.setitimer(signal.ITIMER_REAL, 0)\n\
         print(len(hits) >= 3, set(hits) == {signal.SIGALRM})\n\
         print(signal.alarm(5), signal.alarm(0))\n\
         signal.signal(signal.SIGALRM, signal.SIG_DFL)\n\
         signal.alarm(1)\n\
         while True:\n    pass",
    )
    .await;
    assert_eq!(r.exit_code, 142, "{}", show(&r));
    assert!(r.stderr_text().contains("Alarm clock"), "{}", show(&r));
    assert!(started.elapsed() < Duration::from_secs(30));
    let r = code(
        "import signal, time\n\
         signal.signal(signal.SIGALRM, lambda s, f: print('fired'))\n\
         signal.setitimer(signal.ITIMER_REAL, 0.05)\n\
         signal.pause()\n\
         print(signal.getitimer(signal.ITIMER_REAL), signal.alarm(3), signal.alarm(0))",
    )
    .await;
    assert_eq!(ok(&r), "fired\n(0.0, 0.0) 0 3\n");
}

#[tokio::test]
async fn a_thread_that_cannot_go_on_is_stopped_and_named() {
    // The worker sleeps in a loop until its starter sets a flag: it runs inside the
    // starter's sleep and is stopped about a second after the starter could go on.
    // Timed from a loaded runtime (its first load may make the snapshot).
    let _ = crate::common::runtime();
    let started = Instant::now();
    let r = code(
        "import threading, time\n\
         stop = threading.Event()\n\
         def loop():\n\
         \x20   while not stop.is_set():\n\
         \x20       time.sleep(0.05)\n\
         t = threading.Thread(target=loop, name='poller')\n\
         t.start()\n\
         time.sleep(0.1)\n\
         stop.set()\n\
         t.join()\n\
         print('joined', t.is_alive())",
    )
    .await;
    assert_eq!(ok(&r), "joined False\n");
    assert!(
        r.stderr_text()
            .contains("'poller' was stopped in time.sleep()"),
        "{}",
        show(&r)
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[tokio::test]
async fn commands_nest_to_a_bound_and_need_a_shell() {
    // python3 -> shell -> python3 -> shell -> python3 -> shell -> python3: the fourth shell is
    // refused with a clear error.
    let sb = Arc::new(sandbox());
    sb.write_workspace_file(
        "nest.py",
        b"import subprocess, sys\n\
          n = int(sys.argv[1])\n\
          try:\n\
          \x20   r = subprocess.run(['python3', 'nest.py', str(n + 1)], capture_output=True, text=True)\n\
          \x20   print(n, r.stdout.strip())\n\
          except OSError as e:\n\
          \x20   print(n, 'refused:', 'at most 3 shells deep' in str(e))\n",
    )
    .expect("write");
    let mut shell = Shell::new(sb.clone(), ShellSettings::default()).expect("shell");
    let r = shell.exec("python3 nest.py 0").await.expect("shell");
    assert_eq!(r.stdout, "0 1 2 3 refused: True\n", "{r:?}");
    // A command's writes land in the same workspace.
    let r = shell
        .exec("python3 -c \"import os; os.system('echo made > made.txt')\"; cat made.txt")
        .await
        .expect("shell");
    assert_eq!(r.stdout, "made\n", "{r:?}");
    // Without a shell (the library's direct python3 call), a command fails clearly.
    let r = py(
        &sb,
        &["-c", "import subprocess\ntry:\n    subprocess.run('true', shell=True)\nexcept OSError as e:\n    print(e)"],
    )
    .await;
    assert!(
        ok(&r).contains("no shell to run commands in"),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn commands_run_without_a_shell_parent_with_the_same_bound() {
    // A python3 called directly (as `exec -- python3` and `/run_code` do) gets an in-process
    // shell over the same sandbox for its commands, with the same nesting bound.
    let sb = Arc::new(sandbox());
    sb.write_workspace_file(
        "nest.py",
        b"import subprocess, sys\n\
          n = int(sys.argv[1])\n\
          try:\n\
          \x20   r = subprocess.run([sys.executable, 'nest.py', str(n + 1)], capture_output=True, text=True)\n\
          \x20   print(n, r.stdout.strip())\n\
          except OSError as e:\n\
          \x20   print(n, 'refused:', 'at most 3 shells deep' in str(e))\n",
    )
    .expect("write");
    let commands = llm_in_sandbox::shell::guest_commands(&sb);
    let r = sb
        .python_with_processes(&["nest.py".into(), "0".into()], b"", Some(commands.clone()))
        .await
        .expect("python");
    assert_eq!(ok(&r), "0 1 2 3 refused: True\n");
    // Same workspace, same /tmp and /root: a command's files are the program's.
    let r = sb
        .python_with_processes(
            &[
                "-c".into(),
                "import os, subprocess\n\
                 os.system('echo shell > /tmp/made.txt; echo $HOME > home.txt')\n\
                 print(open('/tmp/made.txt').read().strip(), open('home.txt').read().strip())\n\
                 print(subprocess.check_output('cat /tmp/made.txt | tr a-z A-Z', shell=True, text=True).strip())"
                    .into(),
            ],
            b"",
            Some(commands),
        )
        .await
        .expect("python");
    assert_eq!(ok(&r), "shell /root\nSHELL\n");
}

#[test]
fn exec_python_without_bash_runs_commands() {
    let o = crate::cli::run(crate::cli::bin().args([
        "exec",
        "--",
        "python3",
        "-c",
        "import subprocess, os, shutil\n\
         print(subprocess.run(['echo', 'hi'], capture_output=True, text=True).stdout.strip())\n\
         print(os.system('exit 3') >> 8, shutil.which('python3'))",
    ]));
    assert_eq!(
        crate::cli::text(&o.stdout),
        "hi\n3 /usr/local/bin/python3\n",
        "{}",
        crate::cli::text(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread")]
async fn run_code_python_runs_commands() {
    let srv = crate::serve::start(crate::serve::quiet()).await;
    let url = format!("{}/run_code", srv.base);
    let (_, v) = crate::serve::post(
        &url,
        serde_json::json!({"code": "import subprocess, sys\n\
            r = subprocess.run([sys.executable, '-c', 'print(6 * 7)'], capture_output=True, text=True)\n\
            print(r.stdout.strip(), r.returncode)\n\
            open('f.txt', 'w').write('x')\n\
            print(subprocess.check_output('ls', shell=True, text=True).split())",
            "language": "python"}),
    )
    .await;
    assert_eq!(v["status"], "Success", "{v}");
    assert_eq!(v["run_result"]["stdout"], "42 0\n['f.txt']\n", "{v}");
}

#[tokio::test]
async fn popen_back_and_forth_raises_instead_of_hanging() {
    // The child runs when its output is first read; writing to it afterwards cannot reach
    // it, so the write raises (Linux would deliver it to the running child).
    let _ = crate::common::runtime();
    let started = Instant::now();
    let sb = Arc::new(sandbox());
    let r = sb
        .python_with_processes(
            &[
                "-c".into(),
                "import subprocess, sys\n\
                 p = subprocess.Popen([sys.executable, '-c', 'import sys\\nfor l in sys.stdin: print(l.strip().upper(), flush=True)'],\n\
                 \x20                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)\n\
                 p.stdin.write('one\\n'); p.stdin.flush()\n\
                 print(p.stdout.readline().strip())\n\
                 try:\n\
                 \x20   p.stdin.write('two\\n')\n\
                 except BrokenPipeError as e:\n\
                 \x20   print('BrokenPipeError', 'back-and-forth' in str(e), 'not supported' in str(e))\n\
                 print(p.wait())"
                    .into(),
            ],
            b"",
            Some(llm_in_sandbox::shell::guest_commands(&sb)),
        )
        .await
        .expect("python");
    assert_eq!(ok(&r), "ONE\nBrokenPipeError True True\n0\n");
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
#[ignore = "pip-installs 20 packages through the host's pip (needs the package index; minutes)"]
fn package_corpus_sample_imports() {
    // 20 packages spread over the corpus (`perf --packages-corpus` runs all of it): at least
    // 95% of those pip finds pure-Python wheels for must import.
    let o =
        crate::cli::run(crate::cli::bin().args(["perf", "--packages-corpus", "--sample", "20"]));
    let out = crate::cli::text(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        crate::cli::text(&o.stderr)
    );
    let figure = out
        .lines()
        .find_map(|l| l.strip_prefix("packages corpus: "))
        .unwrap_or_else(|| panic!("no figure in:\n{out}"));
    let mut words = figure.split_whitespace();
    let imported: usize = words.next().and_then(|w| w.parse().ok()).expect("N");
    let counted: usize = words.nth(1).and_then(|w| w.parse().ok()).expect("M");
    eprintln!("{out}");
    assert!(counted >= 15, "too few packages counted:\n{out}");
    assert!(imported * 100 >= counted * 95, "{out}");
}
