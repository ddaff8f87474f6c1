//! Shared fixtures: one runtime per test binary, sandboxes, and results that explain failures.

pub mod cache;
pub mod venv;

use std::sync::{Arc, OnceLock};

use llm_in_sandbox::artifacts::SetupOptions;
use llm_in_sandbox::runtime::{Limits, RunResult, Runtime, RuntimeConfig};
use llm_in_sandbox::sandbox::Sandbox;
use llm_in_sandbox::shell::{CommandResult, Shell, ShellSettings};

pub use cache::cache_root;

/// A test whose host prerequisite (a program, a Python) is missing: outside CI, one loud line on
/// stderr naming the test and what to install, and the caller returns; under `CI` (which
/// installs everything, see `.ci/run`) a failure saying the same, so CI never skips it.
///
/// # Panics
/// When the `CI` environment variable is set.
pub fn skip_unless_ci(test: &str, why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{test} cannot run: {why} (CI is set: there a missing prerequisite is a failure, not \
         a skip)"
    );
    venv::say(&format!("\n*** SKIPPED {test}: {why} ***\n"));
}

/// Where the tests' runtime comes from: the tests' cache folder (the runtime shared with the
/// user's cache, see [`cache_root`]) and `$LLM_IN_SANDBOX_ARTIFACTS`.
pub fn setup_options() -> SetupOptions {
    SetupOptions {
        cache_root: cache_root(),
        source: std::env::var_os("LLM_IN_SANDBOX_ARTIFACTS").map(Into::into),
    }
}

/// The shared runtime, set up on first use (download + compile on a cold cache).
pub fn runtime() -> Arc<Runtime> {
    static RT: OnceLock<Arc<Runtime>> = OnceLock::new();
    RT.get_or_init(|| {
        // Tests run side by side in this process, and guests together may hold half the
        // open-files limit: the soft limit goes up to the hard one, as the binary does.
        let _ = llm_in_sandbox::runtime::raise_open_file_limit(0);
        // The sandboxes' temporary folders go in a folder of this process's own, removed by
        // the next test process once this one has ended, as `serve` does: the folders kept
        // for the next sandbox, and those a finishing call still held when the test ended,
        // are never removed in the process that made them.
        llm_in_sandbox::workspace::claim_temp_root()
            .unwrap_or_else(|e| panic!("cannot make the sandboxes' temporary folder: {e}"));
        let setup = setup_options();
        let config = RuntimeConfig::new(setup.cache_root.clone());
        let rt = llm_in_sandbox::load_runtime(&setup, &config, &|m| eprintln!("setup: {m}"))
            .unwrap_or_else(|e| panic!("cannot load the runtime: {e}"));
        Arc::new(rt)
    })
    .clone()
}

/// A runtime of the calling test's own with `slots` instance slots, loaded from the shared
/// cache: the slots its calls hold (a finished call's instance until it is reset, see
/// [`settled`]) are then that test's alone, whatever other tests run meanwhile, and with few
/// slots its calls keep reusing the same ones.
pub async fn own_runtime(slots: u32) -> Arc<Runtime> {
    let setup = setup_options();
    let mut config = RuntimeConfig::new(setup.cache_root.clone());
    config.max_instances = slots;
    runtime(); // the shared cache is ready: no second setup races it
    tokio::task::spawn_blocking(move || {
        llm_in_sandbox::load_runtime(&setup, &config, &|_| {}).map(Arc::new)
    })
    .await
    .expect("loading the runtime panicked")
    .unwrap_or_else(|e| panic!("cannot load the runtime: {e}"))
}

/// Wait until every instance slot of `rt` is back. A finished call's instance is dropped on
/// the sandbox threads just after the call answered, and until then it holds the sandbox's
/// folders (a sandbox dropped meanwhile leaves them for later, see `workspace.rs`'s
/// `recycled`); under a parallel load that can take a while.
///
/// # Panics
/// When a slot is not back within 60 s.
pub async fn settled(rt: &Runtime) {
    let t0 = std::time::Instant::now();
    while rt.instances_in_use() > 0 {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "a slot was never given back"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// A fresh sandbox with default limits.
pub fn sandbox() -> Sandbox {
    sandbox_with(Limits::default())
}

/// A fresh sandbox with these limits.
pub fn sandbox_with(limits: Limits) -> Sandbox {
    Sandbox::builder(runtime())
        .limits(limits)
        .build()
        .expect("sandbox")
}

/// A fresh sandbox built with `f` (quota, network policy, ...).
pub fn sandbox_in(
    f: impl FnOnce(llm_in_sandbox::sandbox::SandboxBuilder) -> llm_in_sandbox::sandbox::SandboxBuilder,
) -> Sandbox {
    f(Sandbox::builder(runtime())).build().expect("sandbox")
}

/// Run `python3 ARGS...` in `sb`.
pub async fn py(sb: &Sandbox, args: &[&str]) -> RunResult {
    py_stdin(sb, args, b"").await
}

/// Run `python3 ARGS...` in `sb` with stdin.
pub async fn py_stdin(sb: &Sandbox, args: &[&str], stdin: &[u8]) -> RunResult {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    sb.python(&args, stdin).await.expect("host-side failure")
}

/// Run `python3 -c CODE` in a fresh sandbox.
pub async fn code(src: &str) -> RunResult {
    py(&sandbox(), &["-c", src]).await
}

/// Everything about a result, for assertion messages.
pub fn show(r: &RunResult) -> String {
    format!(
        "exit={} outcome={:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        r.exit_code,
        r.outcome,
        r.stdout_text().chars().take(4000).collect::<String>(),
        r.stderr_text().chars().take(4000).collect::<String>()
    )
}

/// Assert a clean exit 0 and return stdout.
pub fn ok(r: &RunResult) -> String {
    assert_eq!(r.exit_code, 0, "{}", show(r));
    r.stdout_text()
}

/// A fake model that answers each task with one `execute_bash` writing `42` to
/// `/testbed/answer.txt`, then `submit`; every reply after `delay`.
pub fn answering_model(delay: std::time::Duration) -> llm_in_sandbox::llm::fake::FakeServer {
    use llm_in_sandbox::llm::fake::{FakeServer, Reply};
    FakeServer::start(Box::new(move |req: &serde_json::Value| {
        let reply = if req["messages"].to_string().contains("\"role\":\"tool\"") {
            Reply::calls(&[("submit", "{}")])
        } else {
            Reply::calls(&[(
                "execute_bash",
                r#"{"command": "echo 42 > /testbed/answer.txt"}"#,
            )])
        };
        reply.delayed(delay)
    }))
    .expect("fake model")
}

/// `llm-in-sandbox serve --bind 127.0.0.1:0 ARGS...` on the tests' cache, with `configure`
/// applied to the command first (environment, stderr; stderr is dropped unless it says
/// otherwise). Returns the child and the base URL its first stdout line names.
pub fn spawn_serve(
    args: &[&str],
    configure: impl FnOnce(&mut std::process::Command),
) -> (std::process::Child, String) {
    use std::io::BufRead as _;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"));
    cmd.args(["serve", "--bind", "127.0.0.1:0"])
        .args(args)
        .env("LLM_IN_SANDBOX_CACHE", cache_root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    configure(&mut cmd);
    let mut child = cmd.spawn().expect("start serve");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the first line");
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    (child, base)
}

/// A shell with default settings over `sb`.
pub fn shell_over(sb: Sandbox) -> Shell {
    Shell::new(Arc::new(sb), ShellSettings::default()).expect("shell")
}

/// A shell over a fresh sandbox whose workspace holds `files`.
pub fn shell_with(files: &[(&str, &str)]) -> Shell {
    let sb = sandbox();
    for (name, text) in files {
        sb.write_workspace_file(name, text.as_bytes())
            .expect("write");
    }
    shell_over(sb)
}

/// Run `script` in `shell`; panics only when the shell itself fails (host side).
pub async fn bash(shell: &mut Shell, script: &str) -> CommandResult {
    shell.exec(script).await.expect("the shell itself failed")
}

/// Everything about a shell command's result, for assertion messages.
pub fn shown(r: &CommandResult) -> String {
    format!(
        "exit {}\n--- stdout\n{}--- stderr\n{}",
        r.exit_code, r.stdout, r.stderr
    )
}
