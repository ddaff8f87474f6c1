//! `perf --packages`: the costs of packages beyond the built-in set and of Python's network
//! (issue 14), each against a baseline measured in the same run: `import math_verify` from the
//! site layer (a fresh sandbox, stock import) vs from a snapshot that preloaded it; the first
//! `pip install` of a small package in an episode (the host's pip against a loopback index)
//! vs the same install answered from the shared cache; one Python HTTP GET through the host
//! door vs the same GET from a native `python3` process, both against a loopback server.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use llm_in_sandbox::packages::{self, PipSettings, Requirement};
use llm_in_sandbox::runtime::{Runtime, RuntimeConfig};
use llm_in_sandbox::sandbox::{NetworkPolicy, Sandbox};

use super::{Row, fresh_call, median, print_rows, repeat};
use crate::cli::GlobalArgs;

/// GETs per process in the HTTP rows (their mean is one sample).
const GETS: usize = 50;

/// Measure and print the table.
pub fn run(
    global: &GlobalArgs,
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    n: usize,
    native_python: &str,
) -> anyhow::Result<ExitCode> {
    let mut rows: Vec<Row> = Vec::new();
    eprintln!("measuring {n} iterations each (packages and Python's network)...");
    math_verify_rows(global, runtime, rt, n, &mut rows)?;
    install_rows(runtime, rt, n, &mut rows)?;
    http_rows(runtime, rt, n, native_python, &mut rows)?;
    print_rows(&rows);
    Ok(ExitCode::SUCCESS)
}

/// `import math_verify` in a fresh sandbox: from the layer (the runtime's snapshot, which does
/// not import it) and from a snapshot made with `+math_verify` (made once if missing).
fn math_verify_rows(
    global: &GlobalArgs,
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    n: usize,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let in_layer = runtime.site_layer().is_some_and(|l| {
        l.packages
            .iter()
            .any(|p| packages::normalize(&p.name) == packages::normalize("math-verify"))
    });
    if !in_layer {
        eprintln!(
            "skipping the math_verify rows: math-verify is not in the site layer (run \
             `llm-in-sandbox setup --with math-verify` first)"
        );
        return Ok(());
    }
    let code = "import math_verify; print(1)";
    let cold = repeat(n.min(5), fresh_call(rt, runtime, code))?;
    let setup = global.setup_options();
    let mut config = RuntimeConfig::new(setup.cache_root.clone());
    config.preload = llm_in_sandbox::runtime::parse_preload("+math_verify");
    if let Some(spec) = &global.with {
        config.with = spec.clone();
    }
    eprintln!("loading the snapshot with math_verify preloaded (made once if missing, minutes)");
    let progress = |msg: &str| eprintln!("llm-in-sandbox: {msg}");
    let preloaded = Arc::new(
        llm_in_sandbox::load_runtime(&setup, &config, &progress)
            .context("cannot load the runtime with math_verify preloaded")?,
    );
    let warm = repeat(n, fresh_call(rt, &preloaded, code))?;
    rows.push((
        "fresh sandbox + `import math_verify`, preloaded (`--preload +math_verify`)".into(),
        warm,
        None,
    ));
    rows.push((
        "fresh sandbox + `import math_verify` from the site layer (not preloaded)".into(),
        cold,
        Some((warm, "preloaded")),
    ));
    Ok(())
}

/// The first `pip install` of a small pure-Python package in a sandbox (the host's pip
/// resolves it from a loopback index; a new name each time, so nothing is cached) vs the same
/// install in a fresh sandbox answered from the shared cache.
fn install_rows(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    n: usize,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let firsts = n.clamp(1, 3);
    let names: Vec<String> = (0..=firsts)
        .map(|i| format!("lisperf_{stamp}_{i}"))
        .collect();
    let wheels: Vec<(String, String, Vec<u8>)> = names
        .iter()
        .map(|name| -> anyhow::Result<_> {
            Ok((
                packages::normalize(name),
                format!("{name}-1.0-py3-none-any.whl"),
                wheel(name, "1.0")?,
            ))
        })
        .collect::<anyhow::Result<_>>()?;
    let url = serve(move |path| index_page(&wheels, path))?;
    let settings = PipSettings {
        index_url: Some(format!("{url}/simple/")),
        ..runtime.pip_settings().clone()
    };
    let install = |name: &str| -> anyhow::Result<Duration> {
        let req = Requirement::parse(name)?;
        let sandbox = Sandbox::builder(runtime.clone())
            .pip_settings(settings.clone())
            .build()?;
        let started = Instant::now();
        let got = rt.block_on(sandbox.pip_install(vec![req], Duration::from_secs(300)))?;
        let elapsed = started.elapsed();
        if got.len() != 1 {
            bail!("pip install {name} installed {got:?}");
        }
        Ok(elapsed)
    };
    // The first name warms pip itself (its own imports, the host's page cache).
    install(&names[firsts])?;
    let mut first = Vec::new();
    for name in &names[..firsts] {
        first.push(install(name)?);
    }
    let first = median(first);
    let cached = repeat(n, || install(&names[0]))?;
    rows.push((
        "`pip install` of a small package, answered from the shared cache (fresh sandbox)".into(),
        cached,
        None,
    ));
    rows.push((
        "`pip install` of a small package, first time (host pip, loopback index)".into(),
        first,
        Some((cached, "cached")),
    ));
    Ok(())
}

/// One HTTP GET from Python through the host door (in one `python3` call, `GETS` requests,
/// the mean) vs the same script in a native `python3` process, both to a loopback server.
fn http_rows(
    runtime: &Arc<Runtime>,
    rt: &tokio::runtime::Runtime,
    n: usize,
    native_python: &str,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let url = serve(|_| ("200 OK", b"hello\n".to_vec(), "text/plain"))?;
    let host = url.trim_start_matches("http://").to_string();
    let script = format!(
        "import time, urllib.request\n\
         u = '{url}/x'\n\
         urllib.request.urlopen(u).read()\n\
         t = time.perf_counter()\n\
         for _ in range({GETS}):\n    \
             assert urllib.request.urlopen(u).read() == b'hello\\n'\n\
         print((time.perf_counter() - t) / {GETS})\n"
    );
    let per_get = |out: &str| -> anyhow::Result<Duration> {
        let secs: f64 = out
            .trim()
            .parse()
            .with_context(|| format!("the GET loop printed {out:?}"))?;
        Ok(Duration::from_secs_f64(secs))
    };
    let sandbox = Sandbox::builder(runtime.clone())
        .network(NetworkPolicy::allow(&[host])?)
        .build()?;
    let mut door = Vec::new();
    let mut native = Vec::new();
    for _ in 0..n.clamp(1, 5) {
        let r = rt.block_on(sandbox.python(&["-c".into(), script.clone()], b""))?;
        if r.exit_code != 0 {
            bail!("the GET loop failed in the sandbox: {}", r.stderr_text());
        }
        door.push(per_get(&String::from_utf8_lossy(&r.stdout))?);
        let out = Command::new(native_python)
            .args(["-c", &script])
            .output()
            .with_context(|| format!("cannot start {native_python}"))?;
        if !out.status.success() {
            bail!(
                "the GET loop failed in native {native_python}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        native.push(per_get(&String::from_utf8_lossy(&out.stdout))?);
    }
    let (door, native) = (median(door), median(native));
    rows.push((
        "native `python3`: one `urllib.request.urlopen` GET, loopback server".into(),
        native,
        None,
    ));
    rows.push((
        "sandbox Python: one `urllib.request.urlopen` GET through the host door, same server"
            .into(),
        door,
        Some((native, "native python3")),
    ));
    Ok(())
}

/// A pure-Python wheel `name-version` with `name/__init__.py` and its dist-info.
fn wheel(name: &str, version: &str) -> anyhow::Result<Vec<u8>> {
    use zip::write::SimpleFileOptions;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let info = format!("{name}-{version}.dist-info");
    let files = [
        (format!("{name}/__init__.py"), "X = 1\n".to_string()),
        (
            format!("{info}/METADATA"),
            format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"),
        ),
        (
            format!("{info}/WHEEL"),
            "Wheel-Version: 1.0\nGenerator: llm-in-sandbox-perf\nRoot-Is-Purelib: true\n\
             Tag: py3-none-any\n"
                .to_string(),
        ),
    ];
    let mut record = String::new();
    for (path, body) in &files {
        zip.start_file(path.as_str(), SimpleFileOptions::default())?;
        zip.write_all(body.as_bytes())?;
        record.push_str(&format!("{path},,\n"));
    }
    record.push_str(&format!("{info}/RECORD,,\n"));
    zip.start_file(format!("{info}/RECORD"), SimpleFileOptions::default())?;
    zip.write_all(record.as_bytes())?;
    Ok(zip.finish()?.into_inner())
}

/// A PEP 503 simple index over `wheels` (normalized name, file name, bytes).
fn index_page(
    wheels: &[(String, String, Vec<u8>)],
    path: &str,
) -> (&'static str, Vec<u8>, &'static str) {
    if let Some(project) = path.strip_prefix("/simple/") {
        let project = packages::normalize(project.trim_end_matches('/'));
        let links: Vec<String> = wheels
            .iter()
            .filter(|w| w.0 == project)
            .map(|(_, file, bytes)| {
                let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(bytes));
                format!("<a href=\"/files/{file}#sha256={sha}\">{file}</a>")
            })
            .collect();
        if !links.is_empty() {
            let body = format!("<html><body>\n{}\n</body></html>", links.join("\n"));
            return ("200 OK", body.into_bytes(), "text/html");
        }
    }
    if let Some(file) = path.strip_prefix("/files/")
        && let Some(w) = wheels.iter().find(|w| w.1 == file)
    {
        return ("200 OK", w.2.clone(), "application/octet-stream");
    }
    ("404 Not Found", b"not found".to_vec(), "text/plain")
}

/// A loopback HTTP/1.1 server (one connection at a time, `Connection: close`) answering each
/// path with `route`; lives as long as the process. Returns `http://127.0.0.1:PORT`.
fn serve(
    route: impl Fn(&str) -> (&'static str, Vec<u8>, &'static str) + Send + 'static,
) -> anyhow::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").context("cannot bind a loopback port")?;
    let url = format!("http://{}", listener.local_addr()?);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let Ok(read_half) = stream.try_clone() else {
                continue;
            };
            let mut reader = BufReader::new(read_half);
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
            let (status, body, kind) = route(&path);
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    Ok(url)
}
