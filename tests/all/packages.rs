//! Packages beyond the built-in set: the site layer (`setup --with`), `pip install` in an
//! episode, and what the guest may not choose. Wheels are built here and served by a local
//! package index (PEP 503 simple pages) started by each test; the index reaches pip only
//! through the operator's setting (`PipSettings::index_url`, `$LLM_IN_SANDBOX_PIP_INDEX_URL`).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use llm_in_sandbox::packages::{self, PackageError, PipSettings};
use llm_in_sandbox::runtime::{Runtime, RuntimeConfig};
use llm_in_sandbox::sandbox::{NetworkPolicy, Sandbox};

use crate::common::{bash, ok, py, runtime, setup_options, shell_over, show};

/// One wheel: `name-version-tag.whl` with `name/__init__.py` (the given source) and its
/// dist-info (METADATA with `Requires-Dist` lines, WHEEL, RECORD).
struct Wheel {
    name: &'static str,
    version: &'static str,
    tag: &'static str,
    init: String,
    requires: Vec<&'static str>,
}

impl Wheel {
    fn pure(name: &'static str, version: &'static str, init: &str) -> Wheel {
        Wheel {
            name,
            version,
            tag: "py3-none-any",
            init: init.to_string(),
            requires: Vec::new(),
        }
    }

    fn file_name(&self) -> String {
        format!("{}-{}-{}.whl", self.name, self.version, self.tag)
    }

    fn bytes(&self) -> Vec<u8> {
        use zip::write::SimpleFileOptions;
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let info = format!("{}-{}.dist-info", self.name, self.version);
        let mut metadata = format!(
            "Metadata-Version: 2.1\nName: {}\nVersion: {}\n",
            self.name.replace('_', "-"),
            self.version
        );
        for r in &self.requires {
            metadata.push_str(&format!("Requires-Dist: {r}\n"));
        }
        let wheel = format!(
            "Wheel-Version: 1.0\nGenerator: llm-in-sandbox-tests\nRoot-Is-Purelib: true\nTag: {}\n",
            self.tag
        );
        let files = [
            (format!("{}/__init__.py", self.name), self.init.clone()),
            (format!("{info}/METADATA"), metadata),
            (format!("{info}/WHEEL"), wheel),
        ];
        let mut record = String::new();
        for (path, body) in &files {
            zip.start_file(path.as_str(), SimpleFileOptions::default())
                .unwrap();
            zip.write_all(body.as_bytes()).unwrap();
            record.push_str(&format!("{path},,\n"));
        }
        record.push_str(&format!("{info}/RECORD,,\n"));
        zip.start_file(format!("{info}/RECORD"), SimpleFileOptions::default())
            .unwrap();
        zip.write_all(record.as_bytes()).unwrap();
        zip.finish().unwrap().into_inner()
    }
}

/// A local package index: `/simple/` and `/simple/NAME/` pages and `/files/WHEEL`, with a
/// log of the paths asked for.
struct Index {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Index {
    fn start(wheels: &[Wheel]) -> Index {
        let files: Vec<(String, String, Vec<u8>)> = wheels
            .iter()
            .map(|w| (packages::normalize(w.name), w.file_name(), w.bytes()))
            .collect();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/simple/", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).map_or(true, |n| n == 0) || h == "\r\n" {
                        break;
                    }
                }
                let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                log.lock().unwrap().push(path.clone());
                let (status, body, kind) = route(&files, &path);
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        Index { url, requests }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    fn settings(&self) -> PipSettings {
        PipSettings {
            index_url: Some(self.url.clone()),
            timeout: Duration::from_secs(120),
            ..PipSettings::from_env()
        }
    }
}

fn route(files: &[(String, String, Vec<u8>)], path: &str) -> (&'static str, Vec<u8>, &'static str) {
    let html = "text/html";
    if path == "/simple/" {
        let mut names: Vec<&String> = files.iter().map(|f| &f.0).collect();
        names.dedup();
        let links: String = names
            .iter()
            .map(|n| format!("<a href=\"/simple/{n}/\">{n}</a>\n"))
            .collect();
        return (
            "200 OK",
            format!("<html><body>{links}</body></html>").into_bytes(),
            html,
        );
    }
    if let Some(project) = path.strip_prefix("/simple/") {
        let project = packages::normalize(project.trim_end_matches('/'));
        let links: Vec<String> = files
            .iter()
            .filter(|f| f.0 == project)
            .map(|(_, file, bytes)| {
                let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(bytes));
                format!("<a href=\"/files/{file}#sha256={sha}\">{file}</a>")
            })
            .collect();
        if links.is_empty() {
            return ("404 Not Found", b"not found".to_vec(), "text/plain");
        }
        let body = format!("<html><body>\n{}\n</body></html>", links.join("\n"));
        return ("200 OK", body.into_bytes(), html);
    }
    if let Some(file) = path.strip_prefix("/files/")
        && let Some((_, _, bytes)) = files.iter().find(|f| f.1 == file)
    {
        return ("200 OK", bytes.clone(), "application/octet-stream");
    }
    ("404 Not Found", b"not found".to_vec(), "text/plain")
}

/// A runtime from the stock snapshot (its compiled form does not depend on the layer) with
/// the site layer for `with`.
fn runtime_with(with: &str, pip: PipSettings) -> Result<Arc<Runtime>, llm_in_sandbox::LoadError> {
    let setup = setup_options();
    let mut config = RuntimeConfig::new(setup.cache_root.clone());
    config.preload = Vec::new();
    config.max_instances = 8;
    config.with = with.to_string();
    config.pip = pip;
    llm_in_sandbox::load_runtime(&setup, &config, &|m| eprintln!("setup: {m}")).map(Arc::new)
}

fn cache_root() -> PathBuf {
    setup_options().cache_root
}

fn read_only(p: &Path) -> bool {
    std::fs::metadata(p).unwrap().permissions().readonly()
}

#[tokio::test(flavor = "multi_thread")]
async fn setup_with_a_pure_package_makes_a_read_only_layer_every_sandbox_imports() {
    let mut a = Wheel::pure(
        "lislayer_a",
        "1.0",
        "from lislayer_b import B\nA = 'a' + B\n",
    );
    a.requires = vec!["lislayer-b>=2", "sympy"];
    let b = Wheel::pure("lislayer_b", "2.0", "B = 'b'\n");
    // A fake of a built-in package: resolved (it is a dependency) but never unpacked.
    let fake = Wheel::pure(
        "sympy",
        "0.0.1",
        "raise ImportError('the fake shadowed sympy')\n",
    );
    let index = Index::start(&[a, b, fake]);
    let rt = tokio::task::spawn_blocking({
        let s = index.settings();
        move || runtime_with("lislayer-a==1.0", s)
    })
    .await
    .unwrap()
    .expect("runtime with the layer");
    let layer = rt.site_layer().expect("a site layer").clone();
    let names: Vec<(&str, &str)> = layer
        .packages
        .iter()
        .map(|p| (p.name.as_str(), p.version.as_str()))
        .collect();
    assert_eq!(names, [("lislayer_a", "1.0"), ("lislayer_b", "2.0")]);
    // The lock file records name, version and SHA-256 of every wheel, the built-in one too.
    let lock = std::fs::read_to_string(&layer.lock_file).unwrap();
    for p in &layer.packages {
        assert!(
            lock.contains(&format!("{} {} {}", p.name, p.version, p.sha256)),
            "{lock}"
        );
        assert_eq!(p.sha256.len(), 64);
    }
    // lislayer_b's dependency on sympy resolves to the runtime's own sympy, offered to pip as
    // installed (as for an install inside an episode), not to the index's 0.0.1.
    let sympy = lock
        .lines()
        .find(|l| l.starts_with("sympy "))
        .unwrap_or_else(|| panic!("no sympy line in the lock:\n{lock}"));
    assert!(!sympy.starts_with("sympy 0.0.1 "), "{lock}");
    let init = layer.lib_dir.join("site-packages/lislayer_a/__init__.py");
    assert!(
        read_only(&init),
        "the layer's files are read-only on the host"
    );
    assert!(!layer.lib_dir.join("site-packages/sympy").exists());

    let sb = Sandbox::builder(rt.clone()).build().unwrap();
    let src = "import lislayer_a, sympy, os\n\
               print(lislayer_a.A, sympy.__version__ != '0.0.1', lislayer_a.__file__)\n\
               try:\n    open('/usr/local/lib/site-packages/lislayer_a/x.py', 'w')\n\
               except OSError as e:\n    print(type(e).__name__)\n";
    let out = ok(&py(&sb, &["-c", src]).await);
    assert_eq!(
        out,
        "ab True /usr/local/lib/site-packages/lislayer_a/__init__.py\nPermissionError\n"
    );
    // A second sandbox sees the same layer; pip tells the truth about it.
    let mut shell = shell_over(Sandbox::builder(rt.clone()).build().unwrap());
    let r = bash(
        &mut shell,
        "pip list | grep -i lislayer; pip show lislayer-b",
    )
    .await;
    assert_eq!(r.exit_code, 0, "{r:?}");
    assert!(
        r.stdout.contains("lislayer_a 1.0") && r.stdout.contains("lislayer_b 2.0"),
        "{r:?}"
    );
    assert!(
        r.stdout.contains("Location: /usr/local/lib/site-packages"),
        "{r:?}"
    );

    // Loading again answers from the lock: no pip run, no index request.
    let before = index.requests().len();
    let again = tokio::task::spawn_blocking({
        let s = index.settings();
        move || runtime_with("lislayer-a==1.0", s)
    })
    .await
    .unwrap()
    .unwrap();
    assert_eq!(again.site_layer().unwrap().key, layer.key);
    assert_eq!(index.requests().len(), before, "{:?}", index.requests());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_native_only_package_is_refused_by_name() {
    let native = Wheel {
        tag: "cp315-cp315-manylinux_2_17_x86_64",
        ..Wheel::pure("lisnative", "1.0", "")
    };
    let index = Index::start(&[native]);
    let reqs = packages::parse_list("lisnative").unwrap();
    let settings = index.settings();
    let err =
        tokio::task::spawn_blocking(move || packages::resolve(&cache_root(), &reqs, &settings))
            .await
            .unwrap()
            .unwrap_err();
    assert!(
        matches!(&err, PackageError::NotPure { name } if name == "lisnative"),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("lisnative") && msg.contains("native code"),
        "{msg}"
    );

    // The same through the command line: `setup --with` fails naming it and records nothing.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"))
        .args(["setup", "--with", "lisnative"])
        .env("LLM_IN_SANDBOX_CACHE", cache_root())
        .env("LLM_IN_SANDBOX_PIP_INDEX_URL", &index.url)
        .env("LLM_IN_SANDBOX_PRELOAD", "none")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("cannot install lisnative") && err.contains("native code"),
        "{err}"
    );
    assert!(!packages::with_file(&cache_root()).exists());

    // In an episode: the same refusal.
    crate::common::runtime();
    let sb = Sandbox::builder(runtime())
        .pip_settings(index.settings())
        .build()
        .unwrap();
    let mut shell = shell_over(sb);
    let r = bash(&mut shell, "pip install lisnative").await;
    assert_eq!(r.exit_code, 1, "{r:?}");
    assert!(
        r.stderr.contains("cannot install lisnative") && r.stderr.contains("native code"),
        "{r:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn pip_install_in_an_episode_is_importable_next_call_and_downloads_once() {
    let mut w = Wheel::pure(
        "lisep_pkg",
        "1.3",
        "from lisep_dep import D\nVALUE = 41 + D\n",
    );
    w.requires = vec!["lisep-dep"];
    let dep = Wheel::pure("lisep_dep", "0.1", "D = 1\n");
    let index = Index::start(&[w, dep]);
    let sb = Sandbox::builder(runtime())
        .pip_settings(index.settings())
        .build()
        .unwrap();
    let used_before = sb.quota().usage();
    let mut shell = shell_over(sb);
    let r = bash(&mut shell, "pip install -q lisep-pkg==1.3 numpy").await;
    assert_eq!(r.exit_code, 0, "{r:?}");
    assert!(
        r.stdout.contains("Requirement already satisfied: numpy"),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("Successfully installed lisep_dep-0.1 lisep_pkg-1.3"),
        "{r:?}"
    );
    let r = bash(
        &mut shell,
        "python3 -c 'import lisep_pkg; print(lisep_pkg.VALUE, lisep_pkg.__file__)'",
    )
    .await;
    assert_eq!(r.exit_code, 0, "{r:?}");
    assert_eq!(
        r.stdout,
        "42 /tmp/.local/lib/python3.15/site-packages/lisep_pkg/__init__.py\n"
    );
    let r = bash(
        &mut shell,
        "pip list | grep lisep; pip show lisep-pkg; pip install lisep-pkg",
    )
    .await;
    assert!(
        r.stdout.contains("lisep_pkg 1.3") && r.stdout.contains("lisep_dep 0.1"),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("Location: /tmp/.local/lib/python3.15/site-packages"),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("Requirement already satisfied: lisep_pkg 1.3"),
        "{r:?}"
    );
    let first = index.requests();
    assert!(
        first.iter().any(|p| p.starts_with("/files/lisep_pkg")),
        "{first:?}"
    );

    // A second sandbox installing the same is answered from the shared cache: no request.
    let sb2 = Sandbox::builder(runtime())
        .pip_settings(index.settings())
        .build()
        .unwrap();
    let q2 = sb2.quota().clone();
    let before = q2.usage();
    let mut shell2 = shell_over(sb2);
    let r = bash(
        &mut shell2,
        "pip install lisep-pkg==1.3 && python3 -c 'import lisep_pkg; print(lisep_pkg.VALUE)'",
    )
    .await;
    assert_eq!(r.exit_code, 0, "{r:?}");
    assert!(r.stdout.ends_with("42\n"), "{r:?}");
    assert_eq!(
        index.requests(),
        first,
        "the second install must not reach the index"
    );
    // The installed files are the sandbox's own, counted by its quota.
    assert!(
        q2.usage().files > before.files,
        "{before:?} {:?}",
        q2.usage()
    );
    let _ = used_before;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_episodes_installs_are_recorded_in_its_trajectory() {
    use llm_in_sandbox::agent::trajectory::Recorder;
    use llm_in_sandbox::agent::{Episode, EpisodeSettings, StopReason};
    use llm_in_sandbox::llm::fake::{FakeServer, Reply};
    use llm_in_sandbox::llm::{Client, LlmConfig};
    use llm_in_sandbox::tools::Toolbox;

    let wheel = Wheel::pure("listraj", "2.5", "X = 7\n");
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(wheel.bytes()));
    let index = Index::start(&[wheel]);
    let server = FakeServer::scripted(
        vec![
            Reply::calls(&[(
                "execute_bash",
                r#"{"command": "pip install listraj==2.5 numpy && python3 -c 'import listraj; print(listraj.X)' > /testbed/answer.txt"}"#,
            )]),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    )
    .unwrap();
    let mut llm = LlmConfig::new(&server.url, "fake-model");
    llm.retry_base = Duration::from_millis(10);
    let sb = Sandbox::builder(runtime())
        .pip_settings(index.settings())
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let recorder =
        Recorder::start(dir.path(), serde_json::json!({"problem_statement": "task"})).unwrap();
    let result = Episode::new(
        Client::new(llm).unwrap(),
        Toolbox::new(shell_over(sb)),
        EpisodeSettings::default(),
        recorder,
    )
    .run("Install listraj and print X.")
    .await;
    assert_eq!(result.stop, StopReason::Submitted, "{result:?}");
    assert_eq!(result.answer.as_deref(), Some("7\n"), "{result:?}");
    let names: Vec<(&str, &str)> = result
        .installed
        .iter()
        .map(|p| (p.name.as_str(), p.version.as_str()))
        .collect();
    assert_eq!(
        names,
        [("listraj", "2.5")],
        "built-in numpy is not an install"
    );
    let t: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("trajectory.json")).unwrap())
            .unwrap();
    assert_eq!(
        t["installed"],
        serde_json::json!([{"name": "listraj", "version": "2.5", "sha256": sha}]),
        "{t}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn guest_chosen_indexes_urls_files_and_flags_are_refused() {
    let index = Index::start(&[Wheel::pure("lisguest", "1.0", "X = 1\n")]);
    let sb = Sandbox::builder(runtime())
        .pip_settings(PipSettings {
            // The operator's index is a closed port: nothing may reach pip anyway.
            index_url: Some("http://127.0.0.1:9/simple/".into()),
            ..index.settings()
        })
        .build()
        .unwrap();
    sb.write_workspace_file("req.txt", b"lisguest\n").unwrap();
    let mut shell = shell_over(sb);
    let url = &index.url;
    let cases = [
        (
            format!("pip install --index-url {url} lisguest"),
            "option --index-url",
        ),
        (format!("pip install -i {url} lisguest"), "option -i"),
        (
            format!("pip install --extra-index-url={url} lisguest"),
            "option --extra-index-url",
        ),
        (
            format!("python3 -m pip install --find-links {url} lisguest"),
            "option --find-links",
        ),
        ("pip install -r req.txt".to_string(), "option -r"),
        ("pip install -e .".to_string(), "option -e"),
        (
            "pip install --target /tmp/x lisguest".to_string(),
            "option --target",
        ),
        (
            format!("pip install {url}../files/lisguest-1.0-py3-none-any.whl"),
            "URLs",
        ),
        (
            "pip install 'lisguest @ http://127.0.0.1/x.whl'".to_string(),
            "URLs",
        ),
        ("pip install ./lisguest".to_string(), "paths"),
        ("pip install /testbed/x.whl".to_string(), "paths"),
        (
            "pip install 'lisguest; os_name == \"posix\"'".to_string(),
            "markers",
        ),
        (
            "pip install 'lisguest==1.0 --pre'".to_string(),
            "not a version",
        ),
    ];
    for (cmd, why) in cases {
        let r = bash(&mut shell, &cmd).await;
        assert_eq!(r.exit_code, 1, "{cmd}: {r:?}");
        assert!(
            r.stderr.starts_with("ERROR: ") && r.stderr.contains(why),
            "{cmd}: {r:?}"
        );
    }
    assert!(index.requests().is_empty(), "{:?}", index.requests());
}

#[tokio::test(flavor = "multi_thread")]
async fn pip_off_refuses_installs_cleanly() {
    let index = Index::start(&[Wheel::pure("lisoff", "1.0", "X = 1\n")]);
    let sb = Sandbox::builder(runtime())
        .pip_settings(index.settings())
        .network(NetworkPolicy::off().with_pip(false))
        .build()
        .unwrap();
    let mut shell = shell_over(sb);
    let r = bash(&mut shell, "pip install lisoff").await;
    assert_eq!(r.exit_code, 1, "{r:?}");
    assert_eq!(
        r.stderr,
        "ERROR: pip install is off for this sandbox (its network policy does not let pip reach \
         the package index: --pip off): no package can be installed; the built-in packages \
         (`pip list`) are available\n"
    );
    let r = bash(&mut shell, "pip install numpy sympy").await;
    assert_eq!(
        r.exit_code, 0,
        "built-in packages are still satisfied: {r:?}"
    );
    assert!(index.requests().is_empty(), "{:?}", index.requests());

    // The switch on the command line.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"))
        .args(["exec", "--pip", "off", "--bash", "pip install lisoff"])
        .env("LLM_IN_SANDBOX_CACHE", cache_root())
        .env("LLM_IN_SANDBOX_PIP_INDEX_URL", &index.url)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("pip install is off"));
    assert!(index.requests().is_empty(), "{:?}", index.requests());
}

/// `setup --with math-verify` from pip's configured index (the real one: set
/// `LLM_IN_SANDBOX_SKIP_INDEX_TESTS=1` where there is none): the reference's math reward
/// scores `\boxed{\frac{1}{2}}` against `0.5` as correct inside the sandbox.
#[tokio::test(flavor = "multi_thread")]
async fn math_verify_from_the_layer_scores_inside_the_sandbox() {
    if std::env::var_os("LLM_IN_SANDBOX_SKIP_INDEX_TESTS").is_some() {
        eprintln!("skipped: LLM_IN_SANDBOX_SKIP_INDEX_TESTS is set");
        return;
    }
    let rt = tokio::task::spawn_blocking(|| runtime_with("math-verify", PipSettings::from_env()))
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("math-verify from pip's configured index: {e}"));
    let names: Vec<String> = rt
        .site_layer()
        .unwrap()
        .packages
        .iter()
        .map(|p| packages::normalize(&p.name))
        .collect();
    assert!(names.contains(&"math-verify".to_string()), "{names:?}");
    assert!(
        !names.contains(&"sympy".to_string()),
        "sympy is built in: {names:?}"
    );
    let sb = Sandbox::builder(rt).build().unwrap();
    // The reference's math reward, as it calls math_verify (default timeouts, which arm
    // `signal.alarm`).
    sb.write_workspace_file("reward.py", MATH_REWARD.as_bytes())
        .unwrap();
    let r = py(
        &sb,
        &[
            "-c",
            "from reward import compute_score\n\
             print(compute_score(r'The answer is \\boxed{\\frac{1}{2}}', '0.5'), compute_score(r'\\boxed{3}', '0.5'))",
        ],
    )
    .await;
    assert_eq!(ok(&r), "1.0 0.0\n", "{}", show(&r));
}

const MATH_REWARD: &str = r#"
from math_verify.metric import math_metric
from math_verify.parser import ExprExtractionConfig, LatexExtractionConfig


def extract_boxed(text):
    prefix = "\\boxed{"
    last = text.rfind(prefix)
    if last == -1:
        return text.strip()
    start = i = last + len(prefix)
    depth = 1
    while i < len(text) and depth > 0:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[start:i - 1].strip() if depth == 0 else text.strip()


def compute_score(agent_answer, ground_truth, **kwargs):
    verify_func = math_metric(
        gold_extraction_target=(LatexExtractionConfig(),),
        pred_extraction_target=(ExprExtractionConfig(), LatexExtractionConfig()),
    )
    score, _ = verify_func(
        ["\\boxed{" + ground_truth + "}"],
        ["\\boxed{" + extract_boxed(agent_answer) + "}"],
    )
    return float(score)
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_task_folders_requirements_are_installed_into_each_episode() {
    use llm_in_sandbox::agent::EpisodeSettings;
    use llm_in_sandbox::eval::runner::{self, BenchSettings};
    use llm_in_sandbox::eval::{TaskSpec, parse_jsonl};
    use llm_in_sandbox::llm::LlmConfig;
    use llm_in_sandbox::llm::fake::{FakeServer, Reply};

    let wheel = Wheel::pure("lisreq", "1.0", "ANSWER = 42\n");
    let index = Index::start(&[wheel]);
    let rt = runtime_with("", index.settings()).expect("runtime");
    let task_dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(task_dir.path().join(name), text).unwrap();
    write("config.yaml", "data: data.jsonl\nscorer: exact\n");
    write(
        "data.jsonl",
        "{\"id\": \"a\", \"problem_statement\": \"p\", \"ground_truth\": \"42\"}\n\
         {\"id\": \"b\", \"problem_statement\": \"q\", \"ground_truth\": \"42\"}\n",
    );
    write("requirements.txt", "# the task's packages\nlisreq==1.0\n");
    let task = TaskSpec::from_dir(task_dir.path()).await.expect("task");
    assert_eq!(task.requirements.len(), 1);
    let server = FakeServer::start(Box::new(|req: &serde_json::Value| {
        let msgs = req["messages"].as_array().cloned().unwrap_or_default();
        if msgs.iter().any(|m| m["role"] == "tool") {
            Reply::calls(&[("submit", "{}")])
        } else {
            // No `pip install` by the model: the task's requirements are already there.
            Reply::calls(&[(
                "execute_bash",
                r#"{"command": "python3 -c 'import lisreq; print(lisreq.ANSWER)' > /testbed/answer.txt"}"#,
            )])
        }
    }))
    .unwrap();
    let settings = |dir: &Path| {
        let mut llm = LlmConfig::new(&server.url, "fake");
        llm.retry_base = Duration::from_millis(10);
        BenchSettings {
            workers: 2,
            episode: EpisodeSettings {
                max_steps: 4,
                ..EpisodeSettings::default()
            },
            ..BenchSettings::new(llm, dir.to_path_buf())
        }
    };
    let (rows, errors) = parse_jsonl(&task.data);
    assert!(errors.is_empty());
    let out_dir = tempfile::tempdir().unwrap();
    let out = runner::run(rt.clone(), &task, rows.clone(), settings(out_dir.path()))
        .await
        .expect("run");
    let s = &out.summary;
    assert_eq!(s["overall"]["errors"], 0, "{s}");
    assert_eq!(s["overall"]["mean_score"], 1.0, "{s}");
    let t: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out_dir.path().join("trajectories/a_0/trajectory.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(t["installed"][0]["name"], "lisreq", "{t}");

    // A reward.py that imports the task's package gets it in the sandbox it runs in.
    write(
        "reward.py",
        "import lisreq\n\
         def compute_score(agent_answer, ground_truth, **kwargs):\n\
         \x20   return 1.0 if agent_answer.strip() == str(lisreq.ANSWER) == ground_truth else 0.0\n",
    );
    let scored = TaskSpec::from_dir(task_dir.path()).await.expect("task");
    assert_eq!(scored.scorer.name(), "reward.py");
    let reward_dir = tempfile::tempdir().unwrap();
    let out = runner::run(
        rt.clone(),
        &scored,
        rows.clone(),
        settings(reward_dir.path()),
    )
    .await
    .expect("run scored by reward.py");
    let s = &out.summary;
    assert_eq!(s["overall"]["errors"], 0, "{s}");
    assert_eq!(s["overall"]["mean_score"], 1.0, "{s}");
    std::fs::remove_file(task_dir.path().join("reward.py")).unwrap();

    // pip off: refused before any row, saying why.
    let off_dir = tempfile::tempdir().unwrap();
    let mut off = settings(off_dir.path());
    off.sandbox.network = NetworkPolicy::off().with_pip(false);
    let err = runner::run(rt.clone(), &task, rows, off)
        .await
        .expect_err("pip off must refuse the task");
    assert!(
        err.to_string().contains("requirements.txt") && err.to_string().contains("pip is off"),
        "{err}"
    );

    // An option or a URL in requirements.txt: the task is refused when it is loaded.
    write(
        "requirements.txt",
        "--index-url http://evil.example/simple\nlisreq\n",
    );
    let err = TaskSpec::from_dir(task_dir.path())
        .await
        .expect_err("an option must be refused");
    assert!(err.to_string().contains("requirements.txt"), "{err}");
}

/// `serve` (and `mcp`) turn pip off for sandboxes without network unless `--pip on` asks for
/// it: a guest with no host allowed gets no channel out through the package index either.
#[test]
fn serve_turns_pip_off_without_network_unless_asked() {
    let index = Index::start(&[Wheel::pure("lisserve", "1.0", "X = 1\n")]);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let install = |extra: &[&str]| {
        let mut args = vec!["--no-token", "--access-log=off"];
        args.extend_from_slice(extra);
        let (mut child, base) = crate::common::spawn_serve(&args, |c| {
            c.env("LLM_IN_SANDBOX_PIP_INDEX_URL", &index.url);
        });
        let v: serde_json::Value = rt.block_on(async {
            reqwest::Client::builder()
                .no_proxy()
                .build()
                .unwrap()
                .post(format!("{base}/run_code"))
                .json(&serde_json::json!({
                    "language": "bash",
                    "code": "pip install lisserve && python3 -c 'import lisserve; print(lisserve.X)'",
                }))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap()
        });
        let _ = child.kill();
        let _ = child.wait();
        v
    };
    let off = install(&[]);
    let stderr = off["run_result"]["stderr"].as_str().unwrap_or_default();
    assert!(stderr.contains("pip install is off"), "{off}");
    assert!(index.requests().is_empty(), "{:?}", index.requests());
    let on = install(&["--pip", "on"]);
    let stdout = on["run_result"]["stdout"].as_str().unwrap_or_default();
    assert!(
        stdout.contains("Successfully installed lisserve-1.0") && stdout.ends_with("\n1\n"),
        "{on}"
    );
    assert!(!index.requests().is_empty());
}

/// Text that deflate cannot shrink much (a wheel that really is about `n` bytes).
fn incompressible(n: usize) -> String {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out = String::from("DATA = '");
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push_str(&format!("{x:016x}"));
    }
    out.push_str("'\n");
    out
}

/// The wheel cache stays under its bound: after a resolution, the wheels used longest ago (and
/// not in the new lock) are removed, and a lock that lost a wheel resolves again. A download
/// over the size cap is stopped and leaves nothing in the cache.
#[test]
fn the_wheel_cache_is_bounded_and_big_downloads_are_stopped() {
    let a = Wheel::pure("liscachea", "1.0", &incompressible(300_000));
    let b = Wheel::pure("liscacheb", "1.0", &incompressible(300_000));
    let index = Index::start(&[a, b]);
    let root = tempfile::tempdir().unwrap();
    let settings = PipSettings {
        max_cache_bytes: 200_000,
        ..index.settings()
    };
    let req = |n: &str| vec![packages::Requirement::parse(n).unwrap()];
    let first = packages::resolve(root.path(), &req("liscachea"), &settings).unwrap();
    assert!(first.fetched);
    let wheels = root.path().join("packages").join("wheels");
    let a_file = wheels.join(&first.packages[0].file);
    assert!(a_file.exists());
    // A used an hour ago (past the grace that protects wheels another process may be
    // unpacking), then B is fetched: together over the bound, so A goes.
    let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .append(true)
        .open(&a_file)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    let second = packages::resolve(root.path(), &req("liscacheb"), &settings).unwrap();
    assert!(second.fetched);
    assert!(!a_file.exists(), "the least recently used wheel was kept");
    assert!(wheels.join(&second.packages[0].file).exists());
    let again = packages::resolve(root.path(), &req("liscachea"), &settings).unwrap();
    assert!(
        again.fetched,
        "a lock whose wheel was evicted resolves again"
    );

    // Over the download cap: stopped, and nothing lands in the cache.
    let small = tempfile::tempdir().unwrap();
    let capped = PipSettings {
        max_bytes: 100_000,
        ..index.settings()
    };
    let err = packages::resolve(small.path(), &req("liscachea"), &capped).unwrap_err();
    assert!(matches!(err, PackageError::TooLarge { .. }), "{err}");
    let cached = std::fs::read_dir(small.path().join("packages").join("wheels"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(cached, 0);
}
