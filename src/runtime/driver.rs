//! The Python driver every call runs: its source (with the Linux-box shims), its compiled
//! form cached on disk, and the request it reads through the host door.

use std::time::{Duration, Instant};

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
    include_str!("linux_box/system.py"),
    include_str!("linux_box/sockets.py"),
    include_str!("linux_box/kill.py"),
    include_str!("linux_box/install.py"),
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
            loopback: None,
        };
        let (r, _) = self.turn(&code, &req, None, Instant::now()).await?;
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

/// The request the driver reads through the host door, in Python's `marshal` format (see
/// [`Marshal`]), or `None` for invocations answered without the guest.
///
/// # Errors
/// [`RuntimeError::Instantiate`] for a string too long to frame (over 2 GiB).
pub(super) fn request_frame(req: &RunRequest) -> Result<Option<Vec<u8>>, RuntimeError> {
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
        Invocation::Version | Invocation::Help => return Ok(None),
    };
    // A later value of the same name wins, as when a shell exports it again.
    let env: std::collections::BTreeMap<&str, &str> = req
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let frame = || {
        let mut m = Marshal::default();
        m.dict_start();
        m.key("mode")?.str(mode)?;
        m.key("code")?.opt(code)?;
        m.key("path")?.opt(path)?;
        m.key("module")?.opt(module)?;
        m.key("argv")?.list(&argv)?;
        m.key("cwd")?.str(&req.cwd)?;
        m.key("site")?
            .list(&[layout::GUEST_SITE_LAYER, layout::GUEST_USER_SITE])?;
        m.key("env")?.dict_start();
        for (k, v) in &env {
            m.str(k)?.str(v)?;
        }
        m.dict_end();
        m.dict_end();
        Some(m.0)
    };
    frame().map(Some).ok_or_else(|| {
        RuntimeError::Instantiate(
            "the command cannot be handed to the guest: a string in it (code, argument, \
             folder or environment variable) is over 2 GiB"
                .into(),
        )
    })
}

/// Python's `marshal` format for the few types a request holds: `str`, `None`, a list of
/// `str` and `dict`. `marshal.loads` reads it in one pass of C, where `json.loads` in the
/// guest cost tens of microseconds a call. These type codes and their layout (a code byte,
/// then a little-endian 32-bit count and the items or UTF-8 bytes; a dict's pairs end with
/// `0`) are the same in every marshal version since Python 3.4.
#[derive(Default)]
struct Marshal(Vec<u8>);

impl Marshal {
    fn count(&mut self, n: usize) -> Option<&mut Self> {
        let n = i32::try_from(n).ok()?;
        self.0.extend_from_slice(&n.to_le_bytes());
        Some(self)
    }

    fn str(&mut self, s: &str) -> Option<&mut Self> {
        self.0.push(b'u');
        self.count(s.len())?;
        self.0.extend_from_slice(s.as_bytes());
        Some(self)
    }

    fn key(&mut self, k: &str) -> Option<&mut Self> {
        self.str(k)
    }

    fn opt(&mut self, s: Option<&str>) -> Option<&mut Self> {
        match s {
            Some(s) => self.str(s),
            None => {
                self.0.push(b'N');
                Some(self)
            }
        }
    }

    fn list(&mut self, items: &[&str]) -> Option<&mut Self> {
        self.0.push(b'[');
        self.count(items.len())?;
        for item in items {
            self.str(item)?;
        }
        Some(self)
    }

    fn dict_start(&mut self) {
        self.0.push(b'{');
    }

    fn dict_end(&mut self) {
        self.0.push(b'0');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(invocation: Invocation, env: &[(&str, &str)]) -> RunRequest {
        RunRequest {
            invocation,
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect(),
            cwd: "/testbed/sub dir".into(),
            stdin: Vec::new(),
            limits: Limits::default(),
            mounts: Vec::new(),
            quota: None,
            network: None,
            processes: None,
            loopback: None,
        }
    }

    /// What the host's `python3` makes of a frame: `marshal.loads`, back as JSON.
    fn python_reads(frame: &[u8]) -> serde_json::Value {
        let out = std::process::Command::new("python3")
            .args([
                "-c",
                "import json, marshal, sys; \
                 print(json.dumps(marshal.loads(bytes.fromhex(sys.argv[1]))))",
                &hex::encode(frame),
            ])
            .output()
            .expect("the host's python3 reads the frame (it is the oracle here)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("json")
    }

    #[test]
    fn the_request_frame_is_what_python_marshal_reads() {
        // Non-ASCII, quotes, escapes, a NUL and a character outside the BMP.
        let code = "print('\u{e9}t\u{e9}', \"\\n\")\n\0x = '\u{1f600}'";
        let req = request(
            Invocation::Code {
                code: code.into(),
                args: vec!["a b".into(), "-x".into()],
            },
            &[
                ("HOME", "/root"),
                ("LANG", "C.UTF-8"),
                ("HOME", "/elsewhere"),
            ],
        );
        let got = python_reads(&framed(&req));
        let want = serde_json::json!({
            "mode": "code",
            "code": code,
            "path": null,
            "module": null,
            "argv": ["-c", "a b", "-x"],
            "cwd": "/testbed/sub dir",
            "site": [layout::GUEST_SITE_LAYER, layout::GUEST_USER_SITE],
            "env": {"HOME": "/elsewhere", "LANG": "C.UTF-8"},
        });
        assert_eq!(got, want);
    }

    #[test]
    fn each_invocation_frames_its_mode_and_argv() {
        let cases = [
            (
                Invocation::Module {
                    module: "json.tool".into(),
                    args: vec!["f.json".into()],
                },
                serde_json::json!(["module", null, null, "json.tool", ["-m", "f.json"]]),
            ),
            (
                Invocation::File {
                    path: "s.py".into(),
                    args: vec![],
                },
                serde_json::json!(["file", null, "s.py", null, ["s.py"]]),
            ),
            (
                Invocation::Stdin {
                    argv0: "-".into(),
                    args: vec!["1".into()],
                },
                serde_json::json!(["stdin", null, null, null, ["-", "1"]]),
            ),
        ];
        for (invocation, want) in cases {
            let got = python_reads(&framed(&request(invocation, &[])));
            let fields = ["mode", "code", "path", "module", "argv"].map(|k| got[k].clone());
            assert_eq!(serde_json::Value::from(fields.to_vec()), want);
            assert_eq!(got["env"], serde_json::json!({}));
        }
        assert!(
            request_frame(&request(Invocation::Version, &[]))
                .expect("no error")
                .is_none()
        );
    }

    fn framed(req: &RunRequest) -> Vec<u8> {
        request_frame(req).expect("no error").expect("a frame")
    }

    #[test]
    fn a_count_past_marshals_32_bits_is_refused_not_wrapped() {
        let mut m = Marshal::default();
        assert!(m.count(i32::MAX as usize).is_some());
        assert!(m.count(1 << 31).is_none());
        assert_eq!(
            m.0,
            i32::MAX.to_le_bytes(),
            "nothing written for the refused count"
        );
    }
}
