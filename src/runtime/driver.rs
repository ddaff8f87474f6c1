//! The Python driver every call runs: its source (with the Linux-box shims), its compiled
//! form cached on disk, and the request it reads through the host door.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::{Invocation, Limits, Outcome, RunRequest, Runtime, RuntimeError, layout};

/// The driver and, appended (one code object), the Linux-box shims it installs: identity,
/// cooperative threads and asyncio, alarms, process pools, `ssl` and commands (the last file
/// installs them all; docs/linux-compatibility.md).
pub(super) const DRIVER: &str = concat!(
    include_str!("driver.py"),
    include_str!("linux_box/identity.py"),
    include_str!("linux_box/threads.py"),
    include_str!("linux_box/signals.py"),
    include_str!("linux_box/pools.py"),
    include_str!("linux_box/ssl.py"),
    include_str!("linux_box/commands.py"),
);
/// The driver's code file name; its frames are dropped from tracebacks under this name.
pub(super) const DRIVER_FILENAME: &str = "<lis-driver>";

impl Runtime {
    /// The code a call hands `turn`: the driver's entry point. The request goes through the
    /// host door (see door.rs), so the code is constant.
    pub(super) async fn driver_call(&self) -> Result<String, RuntimeError> {
        if !self.preloaded.is_empty() {
            return Ok("_lis_main()".to_string());
        }
        let driver = self
            .driver
            .get_or_try_init(|| self.compile_driver())
            .await?;
        Ok(format!(
            "exec(__import__('marshal').loads(bytes.fromhex({driver})), _lis_g := {{'__builtins__': __builtins__}}); _lis_g['_lis_main']()"
        ))
    }

    /// Compile the driver once per runtime, inside the guest, and keep its marshalled code:
    /// compiling ~100 lines of Python costs ~3 ms per call in WASM, unmarshalling ~0.1 ms.
    async fn compile_driver(&self) -> Result<String, RuntimeError> {
        // Marshalled code is specific to the interpreter build, which the cache key pins.
        let hex = match std::fs::read_to_string(&self.driver_cache) {
            Ok(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => hex,
            _ => {
                let hex = self.compile_driver_in_guest().await?;
                // Best effort: without the file the next process compiles again.
                let _ = crate::fsutil::replace(&self.driver_cache, hex.as_bytes());
                hex
            }
        };
        // `turn` cuts very long lines: split the literal into implicitly joined short pieces.
        let pieces: Vec<String> = hex
            .as_bytes()
            .chunks(1000)
            .map(|c| format!("'{}'", String::from_utf8_lossy(c)))
            .collect();
        Ok(format!("(\n{}\n)", pieces.join("\n")))
    }

    async fn compile_driver_in_guest(&self) -> Result<String, RuntimeError> {
        let code = format!(
            "import marshal, sys; sys.stdout.write(marshal.dumps(compile({}, '{DRIVER_FILENAME}', 'exec')).hex()); sys.stdout.flush()",
            json_literal(DRIVER)
        );
        let req = RunRequest {
            invocation: Invocation::Version,
            env: Vec::new(),
            cwd: "/".into(),
            stdin: Vec::new(),
            limits: Limits {
                timeout: Duration::from_secs(60),
                ..Limits::default()
            },
            mounts: Vec::new(),
            quota: None,
            network: None,
            processes: None,
        };
        let r = self.turn(&code, &req, None, Instant::now()).await?;
        let hex = r.stdout_text();
        if r.exit_code != 0
            || r.outcome != Outcome::Exited
            || hex.is_empty()
            || !hex.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(RuntimeError::Instantiate(format!(
                "the driver does not compile in the guest: {}",
                r.stderr_text()
            )));
        }
        Ok(hex)
    }
}

/// A string as a JSON string literal, which is also a valid Python string literal.
fn json_literal(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

#[derive(Serialize)]
struct DriverRequest<'a> {
    mode: &'static str,
    code: Option<&'a str>,
    path: Option<&'a str>,
    module: Option<&'a str>,
    argv: Vec<&'a str>,
    cwd: &'a str,
    site: [&'static str; 2],
    env: std::collections::BTreeMap<&'a str, &'a str>,
}

/// The request the driver reads through the host door, as JSON, or `None` for invocations
/// answered without the guest.
pub(super) fn request_json(req: &RunRequest) -> Option<Vec<u8>> {
    let (mode, code, path, module, argv): (_, _, _, _, Vec<&str>) = match &req.invocation {
        Invocation::Code { code, args } => (
            "code",
            Some(code.as_str()),
            None,
            None,
            std::iter::once("-c")
                .chain(args.iter().map(String::as_str))
                .collect(),
        ),
        Invocation::Module { module, args } => (
            "module",
            None,
            None,
            Some(module.as_str()),
            std::iter::once("-m")
                .chain(args.iter().map(String::as_str))
                .collect(),
        ),
        Invocation::File { path, args } => (
            "file",
            None,
            Some(path.as_str()),
            None,
            std::iter::once(path.as_str())
                .chain(args.iter().map(String::as_str))
                .collect(),
        ),
        Invocation::Stdin { argv0, args } => (
            "stdin",
            None,
            None,
            None,
            std::iter::once(argv0.as_str())
                .chain(args.iter().map(String::as_str))
                .collect(),
        ),
        Invocation::Version | Invocation::Help => return None,
    };
    let env = req
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    serde_json::to_vec(&DriverRequest {
        mode,
        code,
        path,
        module,
        argv,
        cwd: &req.cwd,
        site: [layout::GUEST_SITE_LAYER, layout::GUEST_USER_SITE],
        env,
    })
    .ok()
}
