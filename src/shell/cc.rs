//! `cc`, `gcc`, `g++`, `c++`, `clang`, `clang++` (and `ar`, `nm`, `ranlib`, `strip`): the C
//! toolchain built for WebAssembly (`crate::toolchain`), run inside the sandbox; and the
//! programs it builds, run as WASI programs when the shell executes their files.
//!
//! The toolchain cannot start processes, so the compiler driver is run twice as a real `gcc`
//! would run its passes: first with `-###`, which prints the jobs (the compiler proper and the
//! linker) without running them, then each job in turn. Programs target `wasm32-wasip1`:
//! standard C and C++ (libc++) with files, stdin/stdout, `argv`, `getenv`, time and maths;
//! no threads, no `fork`/`exec`, no sockets, no C++ exceptions.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use bashkit::{Builtin, BuiltinContext, ExecResult};

use super::commands::{guest_cwd, limits_within, outcome_notes, result};
use crate::runtime::{Limits, Program, ProgramError, RunResult};
use crate::sandbox::{GUEST_WORKSPACE, Sandbox};

/// The names the compiler answers to, and the driver mode each runs in.
pub const COMPILERS: &[(&str, &str)] = &[
    ("cc", "clang"),
    ("gcc", "clang"),
    ("clang", "clang"),
    ("c++", "clang++"),
    ("g++", "clang++"),
    ("clang++", "clang++"),
];

/// The binary tools that run as they are (`argv[0]` picks the tool in the multi-call module).
pub const TOOLS: &[&str] = &["ar", "nm", "ranlib", "strip", "objdump", "wasm-ld"];

/// Add the compilers, the tools and the runner of built programs to a shell's builder.
pub(super) fn register(mut b: bashkit::BashBuilder, toolchain: &Toolchain) -> bashkit::BashBuilder {
    for (name, mode) in COMPILERS {
        let compiler = Compiler {
            name,
            mode,
            toolchain: toolchain.clone(),
        };
        b = b.builtin(*name, Box::new(compiler));
    }
    for name in TOOLS {
        let tool = Tool {
            name,
            toolchain: toolchain.clone(),
        };
        b = b.builtin(*name, Box::new(tool));
    }
    b.builtin(
        bashkit::BINARY_EXEC_BUILTIN,
        Box::new(BinaryExec(toolchain.clone())),
    )
}

/// What a compiler or tool run shares with the shell: the sandbox, the script's own deadline
/// and the call's stop signal.
#[derive(Clone)]
pub struct Toolchain {
    pub(super) sandbox: Arc<Sandbox>,
    pub(super) call_deadline: Arc<Mutex<Option<Instant>>>,
    pub(super) interrupt: Arc<tokio::sync::watch::Sender<bool>>,
}

impl Toolchain {
    /// The answer of `name` when the toolchain is not set up on this machine (exit 127).
    fn missing(&self, name: &str) -> Option<ExecResult> {
        (!self.sandbox.has_c_toolchain()).then(|| {
            let text = format!("{name}: {}\n", ProgramError::NoToolchain);
            result(Vec::new(), text.into_bytes(), 127)
        })
    }

    /// Run `program` with `argv` in the shell's folder, stopped when the call is.
    async fn run(
        &self,
        ctx: &BuiltinContext<'_>,
        program: Program,
        argv: Vec<String>,
        stdin: Vec<u8>,
    ) -> Result<(RunResult, Limits), String> {
        let cwd = guest_cwd(ctx.cwd).unwrap_or_else(|| GUEST_WORKSPACE.to_string());
        let mut env: Vec<(String, String)> = ctx
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !env.iter().any(|(k, _)| k == "TMPDIR") {
            env.push(("TMPDIR".into(), "/tmp".into()));
        }
        env.sort();
        let limits = limits_within(&self.sandbox, &self.call_deadline, ctx.remaining_deadline());
        let mut stop = self.interrupt.subscribe();
        tokio::select! {
            r = self.sandbox.run_program(program, argv, stdin, env, &cwd, limits.clone()) => {
                r.map(|r| (r, limits)).map_err(|e| e.to_string())
            }
            // Dropping the run stops the instance at its next epoch check.
            _ = stop.wait_for(|v| *v) => Err("stopped".into()),
        }
    }
}

/// The end of a program's run as the shell shows it: its output, and a line on stderr when a
/// limit stopped it or cut its output.
fn finished(name: &str, (r, limits): (RunResult, Limits)) -> ExecResult {
    let mut stderr = r.stderr.clone();
    stderr.extend_from_slice(&outcome_notes(name, &r, &limits));
    result(r.stdout, stderr, r.exit_code)
}

/// `cc`, `gcc`, `g++`, ...: the driver's jobs, run one after another.
pub struct Compiler {
    pub(super) name: &'static str,
    pub(super) mode: &'static str,
    pub(super) toolchain: Toolchain,
}

/// Options that mean "this machine" and so, for this target, nothing.
fn kept(arg: &str) -> bool {
    !matches!(arg, "-march=native" | "-mtune=native" | "-mcpu=native")
}

/// wasi-libc's emulations of what Linux programs use and WASI lacks (`clock()`, `signal()`,
/// `getpid()`, `mmap()`): declared by these macros, linked from these libraries.
const EMULATED: &[&str] = &["process-clocks", "signal", "getpid", "mman"];

/// The user's arguments with what this target needs to build what gcc builds on Linux: the
/// emulated parts of libc, and C++ without exceptions (its runtime has none; a `throw` then
/// fails to compile with a clear error instead of failing to link). `-march=native` and the
/// like are dropped.
fn with_target_defaults(mode: &str, user: &[String]) -> Vec<String> {
    if runs_directly(user) {
        return user.iter().filter(|a| kept(a)).cloned().collect();
    }
    let mut args = vec!["-Wno-unused-command-line-argument".to_string()];
    for lib in EMULATED {
        args.push(format!(
            "-D_WASI_EMULATED_{}",
            lib.replace('-', "_").to_uppercase()
        ));
    }
    let wants_exceptions = user
        .iter()
        .any(|a| a == "-fexceptions" || a == "-fwasm-exceptions");
    if mode == "clang++" && !wants_exceptions {
        args.push("-fno-exceptions".into());
    }
    args.extend(user.iter().filter(|a| kept(a)).cloned());
    let links = !user.iter().any(|a| {
        matches!(
            a.as_str(),
            "-c" | "-S" | "-E" | "-M" | "-MM" | "-fsyntax-only"
        )
    });
    if links {
        args.extend(EMULATED.iter().map(|lib| format!("-lwasi-emulated-{lib}")));
    }
    args
}

/// Whether the driver must run as it is (it prints and does no job): `--version`, `-###`, ...
fn runs_directly(args: &[String]) -> bool {
    args.is_empty()
        || args.iter().any(|a| {
            matches!(
                a.as_str(),
                "--version" | "-###" | "--help" | "-dumpversion" | "-dumpmachine"
            ) || a.starts_with("-print-")
        })
}

/// The jobs `-###` printed (each a quoted argv on a line of its own, after the header).
fn jobs(listing: &str) -> Vec<Vec<String>> {
    listing
        .lines()
        .filter(|l| l.starts_with(" \""))
        .map(|l| {
            let mut argv = unquote(l);
            // The compiler proper runs in the driver's own process: its path comes first, empty.
            if argv.first().is_some_and(String::is_empty) {
                argv.remove(0);
            }
            argv
        })
        .filter(|argv| !argv.is_empty())
        .collect()
}

/// The file a linker job writes (`wasm-ld ... -o FILE`).
fn linker_output(job: &[String]) -> Option<&str> {
    if job.first().map(String::as_str) != Some("wasm-ld") {
        return None;
    }
    let at = job.iter().position(|a| a == "-o")?;
    job.get(at + 1).map(String::as_str)
}

/// The arguments of one `-###` line: ` "a" "b c" "d\"e"`.
fn unquote(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut arg = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        arg.push(next);
                    }
                }
                '"' => break,
                c => arg.push(c),
            }
        }
        out.push(arg);
    }
    out
}

/// The header `-###` prints before the jobs, which a real `gcc` prints only with `-v`.
fn is_header(line: &str) -> bool {
    [
        "clang version",
        "Target:",
        "Thread model:",
        "InstalledDir:",
        "Build config:",
        " (in-process)",
    ]
    .iter()
    .any(|h| line.starts_with(h))
        || line.starts_with(" \"")
}

#[bashkit::async_trait]
impl Builtin for Compiler {
    async fn execute(&self, ctx: BuiltinContext<'_>) -> bashkit::Result<ExecResult> {
        let name = self.name;
        if let Some(missing) = self.toolchain.missing(name) {
            return Ok(missing);
        }
        let args = with_target_defaults(self.mode, ctx.args);
        let stdin = ctx.stdin_bytes().unwrap_or_default().to_vec();
        let argv = |rest: &[String]| {
            let mut v = vec![self.mode.to_string()];
            v.extend_from_slice(rest);
            v
        };
        if runs_directly(&args) {
            return Ok(
                match self
                    .toolchain
                    .run(&ctx, Program::Toolchain, argv(&args), stdin)
                    .await
                {
                    Ok(r) => finished(name, r),
                    Err(e) => result(Vec::new(), format!("{name}: {e}\n").into_bytes(), 1),
                },
            );
        }
        let mut listed = vec!["-###".to_string()];
        listed.extend(args.iter().cloned());
        let listing = match self
            .toolchain
            .run(&ctx, Program::Toolchain, argv(&listed), Vec::new())
            .await
        {
            Ok((r, _)) => r,
            Err(e) => return Ok(result(Vec::new(), format!("{name}: {e}\n").into_bytes(), 1)),
        };
        let text = String::from_utf8_lossy(&listing.stderr).into_owned();
        let verbose = args.iter().any(|a| a == "-v");
        let mut stderr: Vec<u8> = text
            .lines()
            .filter(|l| verbose || !is_header(l))
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect();
        if listing.exit_code != 0 {
            return Ok(result(listing.stdout, stderr, listing.exit_code));
        }
        let mut stdout = Vec::new();
        for job in jobs(&text) {
            let linked = linker_output(&job).map(str::to_string);
            let r = match self
                .toolchain
                .run(&ctx, Program::Toolchain, job, stdin.clone())
                .await
            {
                Ok(r) => r,
                Err(e) => {
                    stderr.extend_from_slice(format!("{name}: {e}\n").as_bytes());
                    return Ok(result(stdout, stderr, 1));
                }
            };
            let failed = r.0.exit_code != 0;
            let done = finished(name, r);
            stdout.extend_from_slice(done.stdout.as_bytes());
            stderr.extend_from_slice(done.stderr.as_bytes());
            if failed {
                return Ok(result(stdout, stderr, done.exit_code));
            }
            // The linker's output is a program: executable, as a linker's output is on Linux.
            if let Some(out) = linked {
                let path = ctx.cwd.join(&out);
                if let Err(e) = ctx.fs.chmod(&path, 0o755).await {
                    stderr.extend_from_slice(format!("{name}: {out}: {e}\n").as_bytes());
                    return Ok(result(stdout, stderr, 1));
                }
            }
        }
        Ok(result(stdout, stderr, 0))
    }
}

/// `ar`, `nm`, ...: one run of the multi-call module under that name.
pub struct Tool {
    pub(super) name: &'static str,
    pub(super) toolchain: Toolchain,
}

#[bashkit::async_trait]
impl Builtin for Tool {
    async fn execute(&self, ctx: BuiltinContext<'_>) -> bashkit::Result<ExecResult> {
        let name = self.name;
        if let Some(missing) = self.toolchain.missing(name) {
            return Ok(missing);
        }
        let mut argv = vec![name.to_string()];
        argv.extend(ctx.args.iter().cloned());
        let stdin = ctx.stdin_bytes().unwrap_or_default().to_vec();
        Ok(
            match self
                .toolchain
                .run(&ctx, Program::Toolchain, argv, stdin)
                .await
            {
                Ok(r) => finished(name, r),
                Err(e) => result(Vec::new(), format!("{name}: {e}\n").into_bytes(), 1),
            },
        )
    }
}

impl Toolchain {
    /// Run a built program: `module` is its file's content, `argv[0]` the path it was run by.
    pub async fn run_built(
        &self,
        ctx: &BuiltinContext<'_>,
        module: Vec<u8>,
        argv: Vec<String>,
    ) -> ExecResult {
        let name = argv.first().cloned().unwrap_or_default();
        let stdin = ctx.stdin_bytes().unwrap_or_default().to_vec();
        match self
            .run(ctx, Program::Module(Arc::new(module)), argv, stdin)
            .await
        {
            Ok(r) => finished(&name, r),
            Err(e) => result(Vec::new(), format!("bash: {name}: {e}\n").into_bytes(), 126),
        }
    }
}

/// What the shell runs for an executable file that holds a WebAssembly module (see
/// `bashkit::BINARY_EXEC_BUILTIN`): the program, with `$0` the path it was run by.
pub struct BinaryExec(pub(super) Toolchain);

#[bashkit::async_trait]
impl Builtin for BinaryExec {
    async fn execute(&self, ctx: BuiltinContext<'_>) -> bashkit::Result<ExecResult> {
        let Some(name) = ctx.args.first().cloned() else {
            return Ok(result(Vec::new(), b"bash: no program given\n".to_vec(), 2));
        };
        let path = ctx.cwd.join(&name);
        let module = match ctx.fs.read_file(&path).await {
            Ok(bytes) => bytes,
            Err(e) => {
                return Ok(result(
                    Vec::new(),
                    format!("bash: {name}: {e}\n").into_bytes(),
                    126,
                ));
            }
        };
        Ok(self.0.run_built(&ctx, module, ctx.args.to_vec()).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_are_read_from_the_listing() {
        let listing = "clang version 22.1.0\nTarget: wasm32-unknown-wasip1\nThread model: posix\nInstalledDir: \n (in-process)\n \"\" \"clang\" \"-cc1\" \"-o\" \"/tmp/a b.o\" \"-x\" \"c\" \"x.c\"\n \"wasm-ld\" \"-m\" \"wasm32\" \"/tmp/a b.o\" \"-o\" \"a.out\"\n";
        assert_eq!(
            jobs(listing),
            vec![
                vec!["clang", "-cc1", "-o", "/tmp/a b.o", "-x", "c", "x.c"],
                vec!["wasm-ld", "-m", "wasm32", "/tmp/a b.o", "-o", "a.out"],
            ]
        );
        assert_eq!(unquote(r#" "a\"b" "c\\d""#), vec!["a\"b", "c\\d"]);
        let link = &jobs(listing)[1];
        assert_eq!(linker_output(link), Some("a.out"));
        assert_eq!(linker_output(&jobs(listing)[0]), None);
    }

    #[test]
    fn native_machine_options_mean_the_default_target() {
        assert!(!kept("-march=native"));
        assert!(kept("-O2"));
        assert!(runs_directly(&["--version".into()]));
        assert!(runs_directly(&["-print-search-dirs".into()]));
        assert!(!runs_directly(&["-O2".into(), "x.c".into()]));
        let args = with_target_defaults("clang++", &["-c".into(), "-march=native".into()]);
        assert!(args.contains(&"-fno-exceptions".to_string()));
        assert!(args.contains(&"-D_WASI_EMULATED_PROCESS_CLOCKS".to_string()));
        assert!(
            !args
                .iter()
                .any(|a| a.starts_with("-l") || a == "-march=native")
        );
        let args = with_target_defaults("clang", &["x.c".into(), "-lm".into()]);
        assert!(!args.contains(&"-fno-exceptions".to_string()));
        assert_eq!(
            args.last().map(String::as_str),
            Some("-lwasi-emulated-mman")
        );
    }
}
