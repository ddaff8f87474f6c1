//! Commands the shell adds to bashkit's builtins: `python`/`python3` (the WASM CPython), `pip`
//! (answers from the runtime's MANIFEST), and clear refusals for what cannot work here.

use std::sync::Arc;
use std::time::Duration;

use bashkit::{Builtin, BuiltinContext, ExecResult, StreamData};

use crate::runtime::{Invocation, Outcome, Runtime};
use crate::sandbox::{GUEST_HOME, GUEST_TMP, GUEST_WORKSPACE, Sandbox};

pub(super) fn result(stdout: Vec<u8>, stderr: Vec<u8>, exit_code: i32) -> ExecResult {
    let mut r = ExecResult::ok_bytes(stdout);
    r.stderr = StreamData::from(stderr);
    r.exit_code = exit_code;
    r
}

/// `python` / `python3`: runs in a fresh WASM CPython instance with the shell's cwd, exported
/// variables and stdin.
pub struct PythonCommand {
    pub(super) sandbox: Arc<Sandbox>,
    pub(super) pip: Arc<PipCommand>,
    /// Where a host failure is left for the shell to end the call with (see `ShellFault`).
    pub(super) faults: Arc<std::sync::Mutex<Option<String>>>,
    /// A shorter deadline for the current script only (see `Shell::exec_within`).
    pub(super) call_deadline: Arc<std::sync::Mutex<Option<std::time::Instant>>>,
    /// Set while the shell's call is stopped: interrupted, or past its per-call limit.
    pub(super) interrupt: Arc<tokio::sync::watch::Sender<bool>>,
    /// Where the program's `subprocess`/`os.system` commands run.
    pub(super) processes: Arc<super::processes::ShellProcesses>,
    /// The shell's own cancellation flag (set once the shell is built): a program stopped by
    /// the call's deadline sets it, so the script's next command does not run before the
    /// call's timer fires.
    pub(super) call_cancel: Arc<std::sync::OnceLock<Arc<std::sync::atomic::AtomicBool>>>,
}

pub(super) fn guest_cwd(cwd: &std::path::Path) -> Option<String> {
    let s = cwd.to_str()?;
    [GUEST_WORKSPACE, GUEST_TMP, GUEST_HOME]
        .iter()
        .any(|m| s == *m || s.starts_with(&format!("{m}/")))
        .then(|| s.to_string())
}

#[bashkit::async_trait]
impl Builtin for PythonCommand {
    async fn execute(&self, ctx: BuiltinContext<'_>) -> bashkit::Result<ExecResult> {
        let invocation = match Invocation::parse(ctx.args) {
            Ok(inv) => inv,
            Err(usage) => return Ok(result(Vec::new(), format!("{usage}\n").into_bytes(), 2)),
        };
        if let Invocation::Module { module, args } = &invocation
            && (module == "pip" || module == "pip3")
        {
            return Ok(until_stopped(
                &self.interrupt,
                self.pip
                    .answer(&self.sandbox, args, ctx.remaining_deadline()),
            )
            .await);
        }
        let (cwd, notes) = cwd_and_note(ctx.cwd);
        let mut env: Vec<(String, String)> = ctx
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        env.sort();
        let stdin = ctx.stdin_bytes().unwrap_or_default().to_vec();
        let limits = self.limits_within(ctx.remaining_deadline());
        let mut stop = self.interrupt.subscribe();
        let run = tokio::select! {
            r = self.sandbox.run_with_processes(
                invocation, &stdin, &env, &cwd, limits.clone(), Some(self.processes.clone())
            ) => r,
            // Dropping the run stops the instance at its next epoch check.
            _ = stop.wait_for(|v| *v) => {
                return Ok(result(Vec::new(), b"python3: stopped\n".to_vec(), 130));
            }
        };
        let r = match run {
            Ok(r) => r,
            Err(e) => return Ok(self.host_fault(&e)),
        };
        let mut stderr = notes;
        stderr.extend_from_slice(&r.stderr);
        let code = r.exit_code;
        stderr.extend_from_slice(&outcome_notes("python3", &r, &limits));
        if matches!(r.outcome, Outcome::Deadline)
            && self.call_time_is_up()
            && let Some(cancel) = self.call_cancel.get()
        {
            cancel.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        // The sandbox has already reported a quota breach on stderr.
        Ok(result(r.stdout, stderr, code))
    }
}

impl PythonCommand {
    /// The sandbox's limits, with the time limit cut to what is left of the script's deadline
    /// and of the call's own (at least 10 ms, so the call can start and say why it stopped).
    fn limits_within(&self, script_left: Option<Duration>) -> crate::runtime::Limits {
        limits_within(&self.sandbox, &self.call_deadline, script_left)
    }

    /// Whether the call's own deadline has passed, or is within one deadline check of it (a
    /// program given what was left of it is stopped at the next epoch tick, 10 ms).
    fn call_time_is_up(&self) -> bool {
        let call_deadline = *self
            .call_deadline
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        call_deadline.is_some_and(|at| std::time::Instant::now() + Duration::from_millis(20) >= at)
    }

    /// A host failure of the run: not the script's fault, so it is left for the shell to end
    /// the call with (see `ShellFault`); the command itself fails with it on stderr.
    fn host_fault(&self, e: &impl std::fmt::Display) -> ExecResult {
        let mut slot = self
            .faults
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slot.get_or_insert_with(|| format!("python3: {e}"));
        result(Vec::new(), format!("python3: {e}\n").into_bytes(), 1)
    }
}

/// The guest working directory for the shell's `cwd`, and a note for stderr when Python
/// cannot see it (it then starts in the workspace).
fn cwd_and_note(cwd: &std::path::Path) -> (String, Vec<u8>) {
    match guest_cwd(cwd) {
        Some(c) => (c, Vec::new()),
        None => (
            GUEST_WORKSPACE.to_string(),
            format!(
                "python3: note: {} is not visible to Python (only {GUEST_WORKSPACE}, {GUEST_TMP} and {GUEST_HOME} are); starting in {GUEST_WORKSPACE}\n",
                cwd.display()
            )
            .into_bytes(),
        ),
    }
}

/// What stderr says after the program's own output when the run was stopped (deadline,
/// memory limit, crash) or its output was cut.
/// `sandbox`'s limits, with the time limit cut to what is left of the script's deadline and of
/// the call's own (at least 10 ms, so a program can start and say why it stopped).
pub(super) fn limits_within(
    sandbox: &Sandbox,
    call_deadline: &std::sync::Mutex<Option<std::time::Instant>>,
    script_left: Option<Duration>,
) -> crate::runtime::Limits {
    let mut limits = sandbox.limits().clone();
    if let Some(left) = script_left {
        limits.timeout = limits.timeout.min(left.max(Duration::from_millis(10)));
    }
    let call_deadline = *call_deadline
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(at) = call_deadline {
        let left = at.saturating_duration_since(std::time::Instant::now());
        limits.timeout = limits.timeout.min(left.max(Duration::from_millis(10)));
    }
    limits
}

/// The lines `name` adds on stderr when a limit ended its run or cut its output.
pub(super) fn outcome_notes(
    name: &str,
    r: &crate::runtime::RunResult,
    limits: &crate::runtime::Limits,
) -> Vec<u8> {
    let mut stderr = Vec::new();
    match &r.outcome {
        Outcome::Deadline => stderr.extend_from_slice(
            format!(
                "{name}: killed: the {:.0} s time limit passed\n",
                limits.timeout.as_secs_f64()
            )
            .as_bytes(),
        ),
        Outcome::MemoryLimit => stderr.extend_from_slice(
            format!(
                "{name}: the {} MiB memory limit was reached\n",
                limits.memory_bytes >> 20
            )
            .as_bytes(),
        ),
        Outcome::Trap(msg) => {
            stderr.extend_from_slice(format!("{name}: crashed: {msg}\n").as_bytes())
        }
        _ => {}
    }
    if r.stdout_dropped + r.stderr_dropped > 0 {
        stderr.extend_from_slice(
            format!(
                "{name}: output truncated ({} bytes dropped)\n",
                r.stdout_dropped + r.stderr_dropped
            )
            .as_bytes(),
        );
    }
    stderr
}

/// `pip` / `pip3`: `install` fetches pure-Python wheels through the host (see
/// [`Sandbox::pip_install`]); `list`, `freeze` and `show` tell what is built in, in the site
/// layer and installed in this sandbox. The guest's arguments are data: only requirement
/// strings reach the host's pip, and options that would choose an index, a file or a URL are
/// refused.
pub struct PipCommand {
    packages: Vec<(String, String)>,
}

fn normalize(name: &str) -> String {
    let base = name
        .split(['=', '<', '>', '!', '~', '[', ';', ' '])
        .next()
        .unwrap_or(name);
    crate::packages::normalize(base)
}

/// Import names that differ from distribution names.
const ALIASES: &[(&str, &str)] = &[
    ("sklearn", "scikit-learn"),
    ("bs4", "beautifulsoup4"),
    ("yaml", "pyyaml"),
    ("pil", "pillow"),
    ("dateutil", "python-dateutil"),
];

/// `pip install` options that change nothing here and are accepted (and ignored).
const HARMLESS: &[&str] = &[
    "-q",
    "-qq",
    "-qqq",
    "--quiet",
    "-v",
    "--verbose",
    "-U",
    "--upgrade",
    "--user",
    "--no-cache-dir",
    "--break-system-packages",
    "--no-warn-script-location",
    "--disable-pip-version-check",
    "--root-user-action=ignore",
    "--progress-bar=off",
];

/// Where a package seen by `pip list` comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    BuiltIn,
    Layer,
    Installed,
}

impl Origin {
    fn location(self) -> &'static str {
        match self {
            Origin::BuiltIn => "/usr/local/lib/python315.zip",
            Origin::Layer => crate::runtime::layout::GUEST_SITE_LAYER,
            Origin::Installed => crate::runtime::layout::GUEST_USER_SITE,
        }
    }
}

impl PipCommand {
    /// The answers for `runtime`'s MANIFEST, read and parsed once per process (the artifacts
    /// are pinned, so every runtime in a process has the same MANIFEST).
    pub fn shared(runtime: &Runtime) -> Arc<PipCommand> {
        static SHARED: std::sync::OnceLock<Arc<PipCommand>> = std::sync::OnceLock::new();
        SHARED
            .get_or_init(|| {
                let text = std::fs::read_to_string(runtime.files().manifest()).unwrap_or_default();
                Arc::new(PipCommand::from_manifest(&text))
            })
            .clone()
    }

    /// From the runtime MANIFEST's `package NAME VERSION` lines.
    pub fn from_manifest(text: &str) -> PipCommand {
        let mut packages: Vec<(String, String)> = text
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some("package")).then_some(())?;
                Some((w.next()?.to_string(), w.next()?.to_string()))
            })
            .collect();
        packages.push(("scikit-learn".into(), "built-in".into()));
        packages.push(("scipy".into(), "built-in".into()));
        packages.push(("statsmodels".into(), "built-in".into()));
        packages.sort();
        packages.dedup_by(|a, b| normalize(&a.0) == normalize(&b.0));
        PipCommand { packages }
    }

    fn find(&self, requested: &str) -> Option<&(String, String)> {
        let want = normalize(requested);
        let want = ALIASES
            .iter()
            .find(|(alias, _)| *alias == want)
            .map_or(want.clone(), |(_, real)| (*real).to_string());
        self.packages.iter().find(|(n, _)| normalize(n) == want)
    }

    fn short_list(&self) -> String {
        self.packages
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Every package the sandbox's Python sees, by name, with where it comes from.
    fn all(&self, sandbox: &Sandbox) -> Vec<(String, String, Origin)> {
        let mut all: Vec<(String, String, Origin)> = self
            .packages
            .iter()
            .map(|(n, v)| (n.clone(), v.clone(), Origin::BuiltIn))
            .collect();
        let mut extra: Vec<(crate::packages::Locked, Origin)> = Vec::new();
        if let Some(layer) = sandbox.runtime().site_layer() {
            extra.extend(layer.packages.iter().cloned().map(|p| (p, Origin::Layer)));
        }
        extra.extend(
            sandbox
                .installed()
                .into_iter()
                .map(|p| (p, Origin::Installed)),
        );
        for (p, origin) in extra {
            if !all
                .iter()
                .any(|(n, _, _)| normalize(n) == normalize(&p.name))
            {
                all.push((p.name, p.version, origin));
            }
        }
        all.sort_by_key(|(n, _, _)| normalize(n));
        all
    }

    fn lookup(&self, sandbox: &Sandbox, requested: &str) -> Option<(String, String, Origin)> {
        if let Some((n, v)) = self.find(requested) {
            return Some((n.clone(), v.clone(), Origin::BuiltIn));
        }
        let want = normalize(requested);
        self.all(sandbox)
            .into_iter()
            .find(|(n, _, _)| normalize(n) == want)
    }

    pub(super) async fn answer(
        &self,
        sandbox: &Sandbox,
        args: &[String],
        deadline: Option<Duration>,
    ) -> ExecResult {
        let sub = args
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(String::as_str);
        let after: Vec<&String> = args
            .iter()
            .skip_while(|a| a.starts_with('-'))
            .skip(1)
            .collect();
        let names: Vec<&String> = after
            .iter()
            .copied()
            .filter(|a| !a.starts_with('-'))
            .collect();
        match sub {
            Some("install") => self.install(sandbox, &after, deadline).await,
            Some("list") | Some("freeze") => {
                let freeze = sub == Some("freeze");
                let mut out = if freeze {
                    String::new()
                } else {
                    "Package Version\n------- -------\n".to_string()
                };
                for (n, v, _) in self.all(sandbox) {
                    out.push_str(&if freeze {
                        format!("{n}=={v}\n")
                    } else {
                        format!("{n} {v}\n")
                    });
                }
                result(out.into_bytes(), Vec::new(), 0)
            }
            Some("show") => {
                let mut out = String::new();
                let mut code = 0;
                for n in names {
                    match self.lookup(sandbox, n) {
                        Some((name, version, origin)) => out.push_str(&format!(
                            "Name: {name}\nVersion: {version}\nLocation: {}\n",
                            origin.location()
                        )),
                        None => code = 1,
                    }
                }
                let err = if code == 0 {
                    Vec::new()
                } else {
                    b"WARNING: Package(s) not found\n".to_vec()
                };
                result(out.into_bytes(), err, code)
            }
            Some("--version") | None if args.iter().any(|a| a == "--version" || a == "-V") => {
                result(
                    b"pip (host-resolved, pure-Python wheels only) for Python 3.15\n".to_vec(),
                    Vec::new(),
                    0,
                )
            }
            _ => result(
                Vec::new(),
                b"pip: only `pip install NAME[==VERSION] ...`, `pip list`, `pip freeze` and `pip show` are answered here\n".to_vec(),
                1,
            ),
        }
    }

    async fn install(
        &self,
        sandbox: &Sandbox,
        args: &[&String],
        deadline: Option<Duration>,
    ) -> ExecResult {
        use crate::packages::Requirement;
        let refuse = |msg: String| result(Vec::new(), format!("ERROR: {msg}\n").into_bytes(), 1);
        let mut reqs = Vec::new();
        for a in args {
            if a.starts_with('-') {
                if HARMLESS.contains(&a.as_str()) {
                    continue;
                }
                return refuse(format!(
                    "option {a} is not accepted here: packages come only from the host's package \
                     index, so no -r/-e, index, find-links, target or other options; give package \
                     names with optional versions, e.g. `pip install pint==0.24`"
                ));
            }
            match Requirement::parse(a) {
                Ok(r) => reqs.push(r),
                Err(e) => return refuse(e.to_string()),
            }
        }
        if reqs.is_empty() {
            return refuse("You must give at least one requirement to install".into());
        }
        let mut out = String::new();
        let mut wanted = Vec::new();
        for r in reqs {
            match self.lookup(sandbox, r.name()) {
                Some((name, version, origin)) => out.push_str(&format!(
                    "Requirement already satisfied: {name} {version} (in {})\n",
                    match origin {
                        Origin::BuiltIn => "this sandbox's built-in Python packages",
                        Origin::Layer => "the sandbox's site layer",
                        Origin::Installed => "this sandbox",
                    }
                )),
                None => wanted.push(r),
            }
        }
        if wanted.is_empty() {
            return result(out.into_bytes(), Vec::new(), 0);
        }
        let timeout = deadline.unwrap_or(Duration::from_secs(300));
        match sandbox.pip_install(wanted, timeout).await {
            Ok(installed) if installed.is_empty() => {
                out.push_str("Nothing new to install (dependencies are built in)\n");
                result(out.into_bytes(), Vec::new(), 0)
            }
            Ok(installed) => {
                let list: Vec<String> = installed
                    .iter()
                    .map(|p| format!("{}-{}", p.name, p.version))
                    .collect();
                out.push_str(&format!("Successfully installed {}\n", list.join(" ")));
                result(out.into_bytes(), Vec::new(), 0)
            }
            Err(e) => {
                let mut err = format!("ERROR: {e}\n");
                if matches!(
                    e,
                    crate::sandbox::SandboxError::Packages(
                        crate::packages::PackageError::NotPure { .. }
                    )
                ) {
                    err.push_str(&format!("Built-in packages: {}\n", self.short_list()));
                }
                result(out.into_bytes(), err.into_bytes(), 1)
            }
        }
    }
}

/// The `pip` builtin (shares its table with `python3 -m pip`).
pub struct Pip(
    pub Arc<PipCommand>,
    pub Arc<Sandbox>,
    /// The shell's stop signal (see `Interrupter`).
    pub Arc<tokio::sync::watch::Sender<bool>>,
);

#[bashkit::async_trait]
impl Builtin for Pip {
    async fn execute(&self, ctx: BuiltinContext<'_>) -> bashkit::Result<ExecResult> {
        Ok(until_stopped(
            &self.2,
            self.0.answer(&self.1, ctx.args, ctx.remaining_deadline()),
        )
        .await)
    }
}

/// `work`, unless the shell's call is stopped first (interrupted, or past its per-call limit):
/// then `work` is dropped and the command fails with 130.
async fn until_stopped(
    stop: &tokio::sync::watch::Sender<bool>,
    work: impl std::future::Future<Output = ExecResult>,
) -> ExecResult {
    let mut stop = stop.subscribe();
    tokio::select! {
        r = work => r,
        _ = stop.wait_for(|v| *v) => result(Vec::new(), b"stopped\n".to_vec(), 130),
    }
}

/// A command that exists on a normal machine but cannot work here: exit 127 with the reason.
pub struct Unavailable {
    pub(super) name: &'static str,
    pub(super) reason: &'static str,
}

#[bashkit::async_trait]
impl Builtin for Unavailable {
    async fn execute(&self, _ctx: BuiltinContext<'_>) -> bashkit::Result<ExecResult> {
        Ok(result(
            Vec::new(),
            format!(
                "{}: not available in this sandbox: {}\n",
                self.name, self.reason
            )
            .into_bytes(),
            127,
        ))
    }
}

/// `id`: the one user, root (uid 0), as GNU `id` prints it in the reference's container.
pub struct Id;

#[bashkit::async_trait]
impl Builtin for Id {
    async fn execute(&self, ctx: BuiltinContext<'_>) -> bashkit::Result<ExecResult> {
        Ok(id(ctx.args))
    }
}

fn id(args: &[String]) -> ExecResult {
    let fail = |msg: String| result(Vec::new(), format!("id: {msg}\n").into_bytes(), 1);
    let (mut which, mut names) = (None, false);
    for a in args {
        match a.as_str() {
            "-u" | "--user" => which = Some('u'),
            "-g" | "--group" => which = Some('g'),
            "-G" | "--groups" => which = Some('G'),
            "-n" | "--name" => names = true,
            "-r" | "--real" | "-z" | "--zero" | "-a" => {}
            "root" | "0" => {}
            flags if flags.starts_with('-') && flags.len() > 1 && !flags.starts_with("--") => {
                for c in flags[1..].chars() {
                    match c {
                        'u' | 'g' | 'G' => which = Some(c),
                        'n' => names = true,
                        'r' | 'z' | 'a' => {}
                        _ => {
                            return fail(format!(
                                "invalid option -- '{c}'\nTry 'id --help' for more information."
                            ));
                        }
                    }
                }
            }
            flag if flag.starts_with("--") => {
                return fail(format!(
                    "unrecognized option '{flag}'\nTry 'id --help' for more information."
                ));
            }
            user => return fail(format!("'{user}': no such user")),
        }
    }
    let out = match (which, names) {
        (None, true) => {
            return fail("cannot print only names or real IDs in default format".into());
        }
        (None, false) => "uid=0(root) gid=0(root) groups=0(root)".to_string(),
        (Some(_), true) => "root".to_string(),
        (Some(_), false) => "0".to_string(),
    };
    result(format!("{out}\n").into_bytes(), Vec::new(), 0)
}

/// `whoami`: root.
pub struct Whoami;

#[bashkit::async_trait]
impl Builtin for Whoami {
    async fn execute(&self, ctx: BuiltinContext<'_>) -> bashkit::Result<ExecResult> {
        Ok(match ctx.args.first() {
            None => result(b"root\n".to_vec(), Vec::new(), 0),
            Some(extra) => result(
                Vec::new(),
                format!(
                    "whoami: extra operand '{extra}'\nTry 'whoami --help' for more information.\n"
                )
                .into_bytes(),
                1,
            ),
        })
    }
}

/// What each unavailable command says.
pub const UNAVAILABLE: &[(&str, &str)] = &[
    (
        "apt-get",
        "no system package manager (Python packages are built in; see `pip list`)",
    ),
    (
        "apt",
        "no system package manager (Python packages are built in; see `pip list`)",
    ),
    (
        "yum",
        "no system package manager (Python packages are built in; see `pip list`)",
    ),
    (
        "dnf",
        "no system package manager (Python packages are built in; see `pip list`)",
    ),
    (
        "apk",
        "no system package manager (Python packages are built in; see `pip list`)",
    ),
    (
        "conda",
        "no package manager (Python packages are built in; see `pip list`)",
    ),
    (
        "sudo",
        "there is one user and nothing to escalate to; run the command directly",
    ),
    (
        "su",
        "there is one user and nothing to escalate to; run the command directly",
    ),
    (
        "make",
        "no make here; run the compiler directly (`cc -O2 -o prog prog.c`) or write the steps in a shell script",
    ),
    (
        "cmake",
        "no cmake here; run the compiler directly (`cc -O2 -o prog prog.c`)",
    ),
    ("docker", "no containers inside the sandbox"),
    ("ssh", "no network access"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_says_root_as_gnu_id_does() {
        let run = |args: &[&str]| {
            let r = id(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            (r.stdout.text_lossy().into_owned(), r.exit_code)
        };
        assert_eq!(
            run(&[]),
            ("uid=0(root) gid=0(root) groups=0(root)\n".into(), 0)
        );
        assert_eq!(run(&["-u"]), ("0\n".into(), 0));
        assert_eq!(run(&["-un"]), ("root\n".into(), 0));
        assert_eq!(run(&["-g", "-n"]), ("root\n".into(), 0));
        assert_eq!(run(&["-G"]), ("0\n".into(), 0));
        assert_eq!(run(&["-n"]).1, 1);
        assert_eq!(run(&["bob"]).1, 1);
    }

    #[test]
    fn pip_knows_built_in_packages_by_any_spelling() {
        let pip =
            PipCommand::from_manifest("python 3.15.0\npackage numpy 2.5.2\npackage PyYAML 6.0.3\n");
        assert!(pip.find("NumPy>=1.0").is_some());
        assert!(pip.find("yaml").is_some());
        assert!(pip.find("scikit_learn").is_some());
        assert!(pip.find("torch").is_none());
    }
}
