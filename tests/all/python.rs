//! Running Python: output, exit codes, argv/cwd/stdin mapping, libraries, files.

use llm_in_sandbox::runtime::Outcome;

use crate::common::{code, ok, own_runtime, py, py_stdin, sandbox, settled, show};

#[tokio::test]
async fn print_gives_stdout_and_exit_zero() {
    let r = code("print('hello', 6 * 7)").await;
    assert_eq!(ok(&r), "hello 42\n");
    assert_eq!(r.outcome, Outcome::Exited);
    assert!(r.stderr.is_empty(), "{}", show(&r));
}

#[tokio::test]
async fn final_expression_is_not_echoed() {
    // `turn` has REPL semantics; python3 -c must not print the value of a final expression.
    assert_eq!(ok(&code("1 + 1").await), "");
}

#[tokio::test]
async fn exit_codes_follow_sys_exit() {
    assert_eq!(code("import sys; sys.exit(3)").await.exit_code, 3);
    assert_eq!(code("raise SystemExit(0)").await.exit_code, 0);
    let r = code("import sys; sys.exit('bad thing')").await;
    assert_eq!(r.exit_code, 1);
    assert_eq!(r.stderr_text(), "bad thing\n");
    assert_eq!(code("import os; os._exit(7)").await.exit_code, 7);
}

#[tokio::test]
async fn exception_gives_exit_one_and_a_clean_traceback() {
    let r = code("def f():\n    return 1 / 0\nf()").await;
    assert_eq!(r.exit_code, 1, "{}", show(&r));
    let err = r.stderr_text();
    assert!(
        err.starts_with("Traceback (most recent call last):\n"),
        "{err}"
    );
    assert!(err.contains("File \"<string>\", line 2, in f"), "{err}");
    assert!(
        err.trim_end()
            .ends_with("ZeroDivisionError: division by zero"),
        "{err}"
    );
    assert!(
        !err.contains("lis"),
        "driver frames leak into the traceback: {err}"
    );
}

#[tokio::test]
async fn syntax_error_is_reported_like_cpython() {
    let r = code("x = (").await;
    assert_eq!(r.exit_code, 1);
    assert!(r.stderr_text().contains("SyntaxError"), "{}", show(&r));
}

#[tokio::test]
async fn argv_and_cwd_for_dash_c() {
    let r = py(
        &sandbox(),
        &[
            "-c",
            "import sys, os; print(sys.argv, os.getcwd())",
            "a",
            "-b",
        ],
    )
    .await;
    assert_eq!(ok(&r), "['-c', 'a', '-b'] /testbed\n");
}

#[tokio::test]
async fn script_file_with_args_relative_to_the_workspace() {
    let sb = sandbox();
    sb.workspace()
        .write(
            "src/prog.py",
            "import sys, helper\nprint(sys.argv, helper.X, __name__)\n",
        )
        .unwrap();
    sb.workspace().write("src/helper.py", "X = 5\n").unwrap();
    let r = py(&sb, &["src/prog.py", "1", "two"]).await;
    assert_eq!(ok(&r), "['src/prog.py', '1', 'two'] 5 __main__\n");
    let r = py(&sb, &["missing.py"]).await;
    assert_eq!(r.exit_code, 2, "{}", show(&r));
    assert!(
        r.stderr_text()
            .contains("can't open file '/testbed/missing.py'"),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn program_and_input_from_stdin() {
    let sb = sandbox();
    let r = py_stdin(&sb, &[], b"import sys\nprint('from stdin', sys.argv)\n").await;
    assert_eq!(ok(&r), "from stdin ['']\n");
    let r = py_stdin(&sb, &["-"], b"print(2)\n").await;
    assert_eq!(ok(&r), "2\n");
    let r = py_stdin(&sb, &["-c", "print(input().upper())"], b"shout\n").await;
    assert_eq!(ok(&r), "SHOUT\n");
}

#[tokio::test]
async fn dash_m_runs_a_module_as_main() {
    let sb = sandbox();
    sb.workspace()
        .write(
            "mymod.py",
            "import sys\nif __name__ == '__main__':\n    print('main', sys.argv[1:])\n",
        )
        .unwrap();
    assert_eq!(ok(&py(&sb, &["-m", "mymod", "x"]).await), "main ['x']\n");
    sb.workspace()
        .write("d.json", "{\"b\": 1, \"a\": [1, 2]}")
        .unwrap();
    let r = py(&sb, &["-m", "json.tool", "--sort-keys", "d.json"]).await;
    assert!(ok(&r).starts_with("{\n    \"a\": [\n"), "{}", show(&r));
    let r = py(&sb, &["-m", "no_such_module_here"]).await;
    assert_eq!(r.exit_code, 1);
    assert!(
        r.stderr_text()
            .contains("No module named no_such_module_here"),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn version_and_bad_options() {
    assert_eq!(ok(&py(&sandbox(), &["--version"]).await), "Python 3.15.0\n");
    let r = py(&sandbox(), &["-Z"]).await;
    assert_eq!(r.exit_code, 2);
    assert!(r.stderr_text().contains("Unknown option: -Z"));
}

#[tokio::test]
async fn numpy_sympy_scipy_compute() {
    let r = code(
        "import numpy as np, sympy as sp, scipy.integrate as si\n\
         print(int(np.arange(10).sum()))\n\
         x = sp.symbols('x'); print(sp.integrate(x**2, (x, 0, 3)))\n\
         print(round(si.quad(lambda t: t**2, 0, 3)[0], 6))",
    )
    .await;
    assert_eq!(ok(&r), "45\n9\n9.0\n");
}

#[tokio::test]
async fn files_cross_between_guest_and_host_through_the_workspace() {
    let sb = sandbox();
    sb.workspace().write("input/data.txt", "3 4\n").unwrap();
    let r = py(
        &sb,
        &["-c", "a, b = map(int, open('input/data.txt').read().split())\nopen('/testbed/answer.txt', 'w').write(str(a * b))"],
    )
    .await;
    ok(&r);
    assert_eq!(sb.workspace().read_to_string("answer.txt").unwrap(), "12");
}

#[tokio::test]
async fn env_is_the_sandboxs_not_the_hosts() {
    let r = code(
        "import os; print(os.environ.get('HOME'), os.environ.get('TMPDIR'), 'CARGO' in os.environ)",
    )
    .await;
    assert_eq!(ok(&r), "/root /tmp False\n");
}

#[tokio::test]
async fn random_differs_between_runs() {
    // The preloaded snapshot froze every generator it holds: stdlib `random`, numpy's global
    // RandomState and sympy's own `random.Random`s. Each call must reseed all of them.
    let src = "import random, uuid, numpy, sympy, sympy.core.random as sr\n\
               print(random.random(), uuid.uuid4(), numpy.random.random(), sr.rng.random(), \
               sr._assumptions_rng.random(), sympy.randMatrix(1, 3, 0, 10**9).tolist())";
    let a = ok(&code(src).await);
    let b = ok(&code(src).await);
    let (a, b): (Vec<&str>, Vec<&str>) = (a.splitn(6, ' ').collect(), b.splitn(6, ' ').collect());
    assert_eq!(a.len(), 6, "{a:?}");
    for i in 0..6 {
        assert_ne!(a[i], b[i], "value {i} repeats between calls");
    }
}

#[tokio::test]
async fn the_environment_is_exactly_the_requests_whatever_the_snapshot_held() {
    // Calls start from the snapshot's environment and only what differs is changed: a name
    // the snapshot had and the request lacks is gone, a changed value is the request's.
    let sb = sandbox();
    let dump = "import os, json; print(json.dumps(dict(os.environ), sort_keys=True))";
    let snapshot_env = ok(&py(&sb, &["-c", dump]).await);
    let base: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&snapshot_env).expect("env as JSON");
    let (dropped, changed) = {
        let mut keys = base.keys();
        (
            keys.next().expect("a name").clone(),
            keys.next().expect("two names").clone(),
        )
    };
    let mut env: Vec<(String, String)> = base
        .iter()
        .filter(|(k, _)| **k != dropped)
        .map(|(k, v)| {
            let v = if *k == changed {
                "changed".to_string()
            } else {
                v.clone()
            };
            (k.clone(), v)
        })
        .collect();
    env.push(("LIS_ADDED".into(), "1".into()));
    let inv = llm_in_sandbox::runtime::Invocation::parse(&["-c".to_string(), dump.to_string()])
        .expect("invocation");
    let r = sb
        .run_with_limits(
            inv,
            b"",
            &env,
            "/testbed",
            llm_in_sandbox::runtime::Limits::default(),
        )
        .await
        .expect("run");
    let got: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&ok(&r)).expect("env as JSON");
    let want: std::collections::BTreeMap<String, String> = env.into_iter().collect();
    assert_eq!(got, want);
}

#[tokio::test]
async fn generators_start_each_call_from_fresh_state_at_its_start() {
    // The snapshot's Mersenne Twisters get fresh state words before user code runs: every
    // generator is at the start of a new block, and a draw moves it on as CPython's does.
    let src = "import random, numpy, sympy.core.random as sr\n\
               print(random.getstate()[1][624], sr.rng.getstate()[1][624], \
               numpy.random.get_state()[2])\n\
               random.random(); numpy.random.random()\n\
               print(random.getstate()[1][624], numpy.random.get_state()[2])\n\
               print(random.getstate()[1][:624] != tuple([0] * 624))";
    let a = ok(&code(src).await);
    assert_eq!(a, "624 624 624\n2 2\nTrue\n");
}

#[tokio::test]
async fn tmp_is_private_and_writable() {
    let sb = sandbox();
    let r = py(&sb, &["-c", "import tempfile\nwith tempfile.NamedTemporaryFile('w', delete=False) as f: f.write('x')\nprint(f.name.startswith('/tmp/'))"]).await;
    assert_eq!(ok(&r), "True\n");
}

#[tokio::test]
async fn matplotlib_renders_a_png() {
    let sb = sandbox();
    let r = py(
        &sb,
        &[
            "-c",
            "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.savefig('p.png')",
        ],
    )
    .await;
    ok(&r);
    let png = sb.workspace().read("p.png").unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
}

#[tokio::test]
async fn numpy_and_sympy_come_preloaded_and_state_does_not_leak() {
    // The default runtime starts from a snapshot with the scientific stack imported.
    let r = code(
        "import sys; print(all(m in sys.modules for m in ('numpy', 'sympy', 'scipy.stats', \
         'pandas', 'matplotlib.pyplot', 'networkx', 'mpmath')))",
    )
    .await;
    assert_eq!(ok(&r), "True\n");
    // ...and they work in a fresh instance: a pandas frame from a workspace file, a scipy fit.
    let sb = sandbox();
    sb.workspace()
        .write("d.csv", "x,y\n0,1\n1,3\n2,5\n")
        .unwrap();
    let r = py(
        &sb,
        &[
            "-c",
            "import pandas as pd, scipy.stats as st\nd = pd.read_csv('d.csv')\n\
             f = st.linregress(d.x, d.y)\nprint(round(f.slope, 6), round(f.intercept, 6))",
        ],
    )
    .await;
    assert_eq!(ok(&r), "2.0 1.0\n", "{}", show(&r));
    // What one call changes in those modules is gone in the next call.
    ok(&code("import numpy; numpy.LEAKED = 1; import os; os.environ['LEAK'] = '1'").await);
    let r = code("import numpy, os; print(hasattr(numpy, 'LEAKED'), 'LEAK' in os.environ)").await;
    assert_eq!(ok(&r), "False False\n");
}

#[tokio::test]
async fn the_host_door_gives_user_code_nothing() {
    // The driver takes its run request through `_host.call` once; user code calling the door
    // afterwards is refused, so it can neither read nor replace the request.
    let r = code(
        "import _host\nfor frame in (b'request', b'x' * 100):\n    try:\n        print(_host.call(frame))\n    except ConnectionRefusedError:\n        print('refused')",
    )
    .await;
    assert_eq!(ok(&r), "refused\nrefused\n", "{}", show(&r));
    // Every call gets its own request, not a stale one.
    let sb = sandbox();
    for word in ["one", "two"] {
        let r = py(&sb, &["-c", "import sys; print(sys.argv[1])", word]).await;
        assert_eq!(ok(&r), format!("{word}\n"));
    }
}

/// The memory idle slots keep for fast restarts goes back to the system once the runtime has
/// been quiet long enough, never while a call runs, once per quiet spell; and the slots still
/// start clean from the snapshot afterwards.
#[tokio::test(flavor = "multi_thread")]
async fn idle_slots_give_their_memory_back_and_still_start_clean() {
    use std::time::Duration;
    let rt = own_runtime(2).await;
    let sb = std::sync::Arc::new(
        llm_in_sandbox::sandbox::Sandbox::builder(rt.clone())
            .build()
            .unwrap(),
    );
    let probe = "import json, sys\n\
                 print('lis_mark' in sys.modules, json.__dict__.get('X'), sum(bytearray(3 << 20)))\n\
                 sys.modules['lis_mark'] = json; json.X = 1";
    let first = ok(&py(&sb, &["-c", probe]).await);
    assert_eq!(first, "False None 0\n");
    settled(&rt).await;
    let kept = rt.kept_bytes();
    if wasmtime::PoolingAllocationConfig::is_pagemap_scan_available() {
        assert!(
            kept > 1 << 20,
            "a finished call's slot keeps its written pages: {kept}"
        );
    } else {
        assert_eq!(kept, 0, "without PAGEMAP_SCAN nothing is kept");
    }
    assert_eq!(
        rt.release_idle_memory(Duration::from_secs(3600)),
        None,
        "not quiet for an hour yet"
    );

    // A call in flight: nothing is released.
    let ws = sb.workspace().host_path().to_path_buf();
    let sb2 = sb.clone();
    let running = tokio::spawn(async move {
        py(
            &sb2,
            &[
                "-c",
                "import time; open('started', 'w').close(); time.sleep(1.5); print('done')",
            ],
        )
        .await
    });
    let t0 = std::time::Instant::now();
    while !ws.join("started").exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the call never started"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        rt.release_idle_memory(Duration::ZERO),
        None,
        "a call is running"
    );
    assert_eq!(ok(&running.await.unwrap()), "done\n");

    settled(&rt).await;
    let kept = rt.kept_bytes();
    assert_eq!(rt.release_idle_memory(Duration::ZERO), Some(kept));
    assert_eq!(rt.kept_bytes(), 0);
    assert_eq!(
        rt.release_idle_memory(Duration::ZERO),
        Some(0),
        "one release per quiet spell"
    );
    // Released slots start from the clean snapshot, and the next call keeps pages again.
    for _ in 0..3 {
        assert_eq!(ok(&py(&sb, &["-c", probe]).await), first);
    }
    settled(&rt).await;
    if wasmtime::PoolingAllocationConfig::is_pagemap_scan_available() {
        assert!(rt.kept_bytes() > 1 << 20);
    }
}

#[tokio::test]
async fn a_call_that_writes_a_lot_leaves_nothing_for_the_next() {
    // A call that writes more than a slot keeps resident (32 MiB) makes the slot release all
    // its memory; one that writes less has its pages copied back. Either way the next call
    // starts from the clean snapshot. A runtime with two slots (a finished call's instance may
    // still be being dropped when the next starts), so calls keep reusing the same two.
    let one_slot = own_runtime(2).await;
    let sb = llm_in_sandbox::sandbox::Sandbox::builder(one_slot)
        .build()
        .unwrap();
    for size in [1usize << 20, 96 << 20, 1 << 20, 96 << 20, 1 << 20, 1 << 20] {
        let r = py(
            &sb,
            &[
                "-c",
                &format!(
                    "import json, numpy, sys\n\
                     print(hasattr(numpy, 'MARK'), 'lis_mark' in sys.modules, json.__dict__.get('X'))\n\
                     buf = bytearray(b'\\xab') * {size}\n\
                     numpy.MARK = 1; sys.modules['lis_mark'] = json; json.X = len(buf)"
                ),
            ],
        )
        .await;
        assert_eq!(
            ok(&r),
            "False False None\n",
            "after a call that wrote {size} bytes"
        );
    }
}

/// How many of this process's descriptors are open on `folder` (compared by device and inode,
/// so however its path is spelled). Only what this sandbox holds can be open on its folders:
/// a folder is handed to a sandbox only once no one else holds it (`workspace.rs`'s
/// `recycled`), so other tests' sandboxes running meanwhile do not count.
fn descriptors_on(folder: &std::path::Path) -> usize {
    use std::os::unix::fs::MetadataExt;
    let id = |m: std::fs::Metadata| (m.dev(), m.ino());
    let want = id(std::fs::metadata(folder).expect("the folder"));
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .filter_map(|e| std::fs::metadata(e.ok()?.path()).ok())
        .filter(|m| m.is_dir() && id(m.clone()) == want)
        .count()
}

/// A running call opens no descriptor for its folders: its preopens share the sandbox's own
/// (and the runtime's library folders, opened once per process).
#[tokio::test(flavor = "multi_thread")]
async fn a_running_call_shares_its_folders_descriptors() {
    let sb = std::sync::Arc::new(sandbox());
    let folder = sb.workspace().host_path().to_path_buf();
    let pointing_at_folder = || descriptors_on(&folder);
    assert_eq!(
        pointing_at_folder(),
        1,
        "the sandbox holds its workspace once"
    );
    let call = {
        let sb = sb.clone();
        tokio::spawn(async move {
            py(
                &sb,
                &[
                    "-c",
                    "import os, time\nopen('waiting', 'w').close()\n\
                     t = time.time()\n\
                     while not os.path.exists('go') and time.time() - t < 60: time.sleep(0.05)\n\
                     print(sorted(os.listdir('.')))",
                ],
            )
            .await
        })
    };
    let waited = std::time::Instant::now();
    while !sb.workspace().exists("waiting") {
        assert!(waited.elapsed().as_secs() < 60, "the call never started");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let during = pointing_at_folder();
    sb.workspace().write("go", "").expect("go");
    let r = call.await.expect("call");
    assert_eq!(ok(&r), "['go', 'waiting']\n");
    assert_eq!(during, 1, "a running call opened its workspace again");
}

/// A sandbox's `/tmp` and `/root` hold no descriptor until something uses them: a shell over
/// the sandbox and a call that does not touch them open nothing (so a process keeps one
/// descriptor per sandbox, the workspace's). The first use opens the folder once, and from
/// then on the guest, the shell and the quota share that one capability. A runtime of the
/// test's own, so that it can wait for its calls' instances to be dropped (just after each
/// call answered) before it drops the sandbox: until then they hold the folders, and a folder
/// held when its sandbox goes is removed later, once let go.
#[tokio::test(flavor = "multi_thread")]
async fn tmp_and_home_are_opened_on_first_use_then_shared() {
    use llm_in_sandbox::shell::{Shell, ShellSettings};
    let rt = own_runtime(2).await;
    let sb = std::sync::Arc::new(
        llm_in_sandbox::sandbox::Sandbox::builder(rt.clone())
            .build()
            .expect("sandbox"),
    );
    let (tmp, home) = (sb.scratch_shared(), sb.home_shared());
    let (tmp_path, home_path) = (
        tmp.host_path().to_path_buf(),
        home.host_path().to_path_buf(),
    );
    assert!(tmp_path.is_dir() && home_path.is_dir());
    let held = || (descriptors_on(&tmp_path), descriptors_on(&home_path));
    let mut shell = Shell::new(sb.clone(), ShellSettings::default()).expect("shell");
    let r = shell.exec("echo hi; cd /testbed; ls").await.expect("exec");
    assert_eq!(r.stdout, "hi\n", "{}", r.stderr);
    assert_eq!(ok(&py(&sb, &["-c", "print(1)"]).await), "1\n");
    assert_eq!(
        held(),
        (0, 0),
        "a shell and a call that do not touch /tmp or /root opened them"
    );

    let r = py(&sb, &["-c", "open('/tmp/x', 'w').write('abc')"]).await;
    assert_eq!(ok(&r), "");
    assert_eq!(held(), (1, 0));
    assert_eq!(
        std::fs::read_to_string(tmp_path.join("x")).expect("x"),
        "abc"
    );

    let r = shell
        .exec("cat /tmp/x; echo hello > /root/y")
        .await
        .expect("exec");
    assert_eq!(r.stdout, "abc", "{}", r.stderr);
    let r = py(&sb, &["-c", "print(open('/root/y').read(), end='')"]).await;
    assert_eq!(ok(&r), "hello\n");
    assert_eq!(held(), (1, 1), "each folder is opened once and shared");
    let usage = sb.quota().usage();
    assert_eq!(
        (usage.files, usage.bytes),
        (2, 9),
        "the quota counts both folders"
    );
    drop(shell);
    drop(tmp);
    drop(home);
    settled(&rt).await;
    assert_eq!(
        std::sync::Arc::strong_count(&sb),
        1,
        "something still holds the sandbox"
    );
    drop(sb);
    assert!(
        !tmp_path.exists() && !home_path.exists(),
        "a used folder is removed with its sandbox"
    );
}

/// The snapshot's objects are immortal (PEP 683; `src/runtime/immortal.py`): calls do not
/// write their reference counts. What a call makes is mortal as usual: freed when its last
/// reference goes (weakref callbacks, `__del__`), cycles collected, and the optimisations
/// that need a sole reference (in-place `str +=`) still work.
#[tokio::test]
async fn snapshot_objects_are_immortal_and_a_calls_own_objects_are_not() {
    let r = code(
        "import sys, gc, json, weakref, numpy as np\n\
         print(sys._is_immortal(json.dumps), sys._is_immortal(np.ndarray), \
         sys._is_immortal(sys.modules))\n\
         class C:\n    def __del__(self): print('del')\n\
         c = C(); w = weakref.ref(c)\n\
         print(sys._is_immortal(c), sys.getrefcount(c))\n\
         del c\n\
         print(w() is None)\n\
         a = C(); b = C(); a.b = b; b.a = a; w = weakref.ref(a); del a, b\n\
         gc.collect(); print(w() is None)\n\
         x = np.arange(3.0); x += 1; print(x.tolist())\n\
         s = 'ab' * 3\n\
         for _ in range(3): s += 'c'\n\
         print(s)\n\
         json.extra = 1; print(json.extra, sys.modules['json'].extra)",
    )
    .await;
    assert_eq!(
        ok(&r),
        "True True True\nFalse 2\ndel\nTrue\ndel\ndel\nTrue\n[1.0, 2.0, 3.0]\nabababccc\n1 1\n"
    );
}

/// A call copies few pages of the snapshot: the allocator's free chunks were filled when it
/// was made, so a call's new objects come packed from the heap's top instead of landing on
/// pages all over the image (the snapshot's objects being immortal is tested above). A `pass`
/// call wrote 215 pages without the fill; it writes about 110.
#[tokio::test(flavor = "multi_thread")]
async fn a_call_copies_few_pages_of_the_snapshot() {
    use std::time::Duration;
    if !wasmtime::PoolingAllocationConfig::is_pagemap_scan_available() {
        eprintln!("not checked: this kernel has no PAGEMAP_SCAN, so slots keep nothing to count");
        return;
    }
    let rt = own_runtime(2).await;
    let sb = std::sync::Arc::new(
        llm_in_sandbox::sandbox::Sandbox::builder(rt.clone())
            .build()
            .unwrap(),
    );
    rt.release_idle_memory(Duration::ZERO);
    assert_eq!(rt.kept_bytes(), 0);
    assert_eq!(ok(&py(&sb, &["-c", "pass"]).await), "");
    settled(&rt).await;
    let pages = rt.kept_bytes() / 4096;
    eprintln!("a `pass` call wrote {pages} pages of guest memory");
    assert!(
        (1..160).contains(&pages),
        "a `pass` call wrote {pages} pages of guest memory (215 without the filled free chunks)"
    );
}
