//! `llm-in-sandbox serve`: the HTTP server over sandboxes (see docs/serve.md).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

use llm_in_sandbox::agent::SandboxSettings;
use llm_in_sandbox::serve::{ServeConfig, Server};
use llm_in_sandbox::shell::NetworkPolicy;

use super::{GlobalArgs, on_off, on_off_auto};

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on. Port 0 picks a free port; the first stdout line says which
    /// (`listening on http://ADDR`).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR")]
    bind: SocketAddr,
    /// Token every request but /healthz must carry, as `Authorization: Bearer T` or in the
    /// URL (`http://:T@HOST:PORT`, for clients that cannot set headers). Without --token,
    /// --token-file or --no-token, the server makes one and prints it on stderr.
    #[arg(
        long,
        env = "LLM_IN_SANDBOX_TOKEN",
        conflicts_with_all = ["token_file", "no_token"],
        hide_env_values = true
    )]
    token: Option<String>,
    /// Serve without a token (loopback addresses only): any local user, and any program
    /// running as one, can then run code in the sandboxes.
    #[arg(long, conflicts_with = "token_file")]
    no_token: bool,
    /// Model endpoints `/v1/episodes` may call besides loopback ones (`host` or `host:port`,
    /// repeat or comma-separate). Default: loopback endpoints only.
    #[arg(long, value_delimiter = ',', value_name = "HOST[:PORT],...")]
    model_host: Vec<String>,
    /// Open client connections at most; more wait until one closes.
    #[arg(long, default_value_t = 4096, value_name = "N")]
    max_connections: usize,
    /// Seconds a client may take to send a request's headers; slower ones are disconnected.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    header_timeout: f64,
    /// Read the token from this file (first line).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Live sessions at most (/v1/sandboxes); over it, 429 with Retry-After. Default: 1000
    /// (an idle session holds about 50 KiB of memory and one open file; their files share
    /// --disk-budget).
    #[arg(long, value_name = "N")]
    max_sandboxes: Option<usize>,
    /// MiB of files all sandboxes together may hold (each also within its --disk-quota);
    /// past it a write fails as on a full disk. Default: half the temporary folder's free
    /// space at start.
    #[arg(long, value_name = "MB")]
    disk_budget: Option<u64>,
    /// Sandbox calls running at once at most (all endpoints); more wait for a slot. Default:
    /// as many as three quarters of the machine's memory holds at --memory each (2 to 256).
    #[arg(long, value_name = "N")]
    max_inflight: Option<usize>,
    /// Calls that may wait for a slot at once; more get 429 with Retry-After.
    #[arg(long, default_value_t = 4096, value_name = "N")]
    max_queued: usize,
    /// Seconds a call waits for a slot before it gets 429 with Retry-After (default: one
    /// command's default timeout, so a client waiting that plus the command's own time and a
    /// margin gets an answer).
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS")]
    queue_wait: f64,
    /// Largest request body, file or tar in MiB; over it, 413.
    #[arg(long, default_value_t = 64, value_name = "MB")]
    max_body_mb: usize,
    #[command(flatten)]
    sandbox: SandboxArgs,
    /// Default and longest idle time of a session, seconds; then it is deleted.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    idle_ttl: f64,
    /// Default and longest lifetime of a session, seconds.
    #[arg(long, default_value_t = 86400.0, value_name = "SECONDS")]
    max_lifetime: f64,
    /// After SIGTERM/SIGINT: how long calls in flight may finish, seconds.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    grace: f64,
    /// One line per request on stderr.
    #[arg(long, default_value = "on", value_parser = on_off, action = clap::ArgAction::Set, value_name = "on|off")]
    access_log: bool,
    /// After this many seconds without a sandbox call, give back the memory idle instance
    /// slots keep so that the next call starts without page faults (the first call after
    /// pays a few ms once); 0: never, keep it.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    release_idle_after: f64,
}

/// The limits and network policy of every sandbox a server makes (`serve` and `mcp`); a
/// request can only tighten them.
#[derive(Debug, Args)]
pub(crate) struct SandboxArgs {
    /// Longest time a command may run, seconds (a request can ask for less).
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS")]
    timeout: f64,
    /// Memory cap of one Python call in MiB, at most 4096, the wasm32 limit (a request can ask
    /// for less).
    #[arg(long, default_value_t = 2048, value_name = "MB")]
    memory: u64,
    /// Disk quota of one sandbox (/testbed and /tmp) in MiB (a request can ask for less).
    #[arg(long, default_value_t = 1024, value_name = "MB")]
    disk_quota: u64,
    /// Hosts sandboxes may reach (curl/wget, Python's urllib). Default: no network.
    #[arg(long, value_delimiter = ',', value_name = "HOST,...")]
    allow_net: Vec<String>,
    /// Whether `pip install` in a sandbox may fetch pure-Python packages through the host's
    /// pip. `auto`: only when --allow-net names a host (a sandbox without network gets no
    /// channel out through the package index either); the built-in packages are always there.
    #[arg(long, default_value = "auto", value_parser = on_off_auto, value_name = "on|off|auto")]
    pip: super::OnOffAuto,
}

impl SandboxArgs {
    /// The validated settings.
    pub(crate) fn settings(&self) -> anyhow::Result<SandboxSettings> {
        if self.memory == 0 || self.memory > 4096 {
            bail!("--memory must be between 1 and 4096 MiB (the wasm32 limit)");
        }
        Ok(SandboxSettings {
            command_timeout: secs("timeout", self.timeout)?,
            memory_bytes: self.memory << 20,
            disk_quota: self.disk_quota.saturating_mul(1 << 20),
            network: NetworkPolicy::allow(&self.allow_net)?
                .with_pip(self.pip.0.unwrap_or(!self.allow_net.is_empty())),
            ..SandboxSettings::default()
        })
    }
}

/// How many calls and sessions a server takes: given, or sized from the machine so that the
/// limits multiplied out fit it (every call at its memory cap, every session at its disk
/// quota).
struct Sizes {
    inflight: usize,
    sandboxes: usize,
    /// The sandboxes' shared disk budget in bytes; None when the free space is unknown.
    disk_budget: Option<u64>,
}

/// Sessions `serve` keeps without --max-sandboxes.
const DEFAULT_SANDBOXES: usize = 1000;

/// The calls at once `serve` takes without --max-inflight: as many as three quarters of the
/// machine's memory holds at `memory_bytes` each, 2 to 256 (256 when the memory is unknown).
pub(crate) fn default_inflight(memory_bytes: u64) -> usize {
    machine_memory().map_or(256, |m| {
        usize::try_from(m / 4 * 3 / memory_bytes.max(1)).map_or(256, |n| n.clamp(2, 256))
    })
}

impl Sizes {
    fn of(
        sandbox: &SandboxSettings,
        inflight: Option<usize>,
        sandboxes: Option<usize>,
        disk_budget_mb: Option<u64>,
    ) -> Sizes {
        let (memory, disk) = (machine_memory(), free_disk(&std::env::temp_dir()));
        let sizes = Sizes {
            inflight: inflight
                .unwrap_or_else(|| default_inflight(sandbox.memory_bytes))
                .max(1),
            sandboxes: sandboxes.unwrap_or(DEFAULT_SANDBOXES).max(1),
            disk_budget: disk_budget_mb
                .map(|mb| mb.saturating_mul(1 << 20))
                .or(disk.map(|d| d / 2)),
        };
        let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
        let calls = sizes.inflight as u64 * sandbox.memory_bytes;
        let memory_note = match (inflight, memory) {
            (_, None) => String::new(),
            (None, Some(m)) => format!(
                " (as many as three quarters of the machine's {:.0} GiB hold)",
                gib(m)
            ),
            (Some(_), Some(m)) if calls > m => format!(
                " (the machine has {:.0} GiB, so the limit cannot hold)",
                gib(m)
            ),
            (Some(_), Some(m)) => format!(" (the machine has {:.0} GiB)", gib(m)),
        };
        let disk_note = match (sizes.disk_budget, disk_budget_mb, disk) {
            (None, _, _) => "no shared disk budget (the free space is unknown)".to_string(),
            (Some(b), None, Some(d)) => format!(
                "sharing {:.0} GiB of disk (half the {:.0} GiB free in the temporary folder)",
                gib(b),
                gib(d)
            ),
            (Some(b), _, Some(d)) if b > d => format!(
                "sharing {:.0} GiB of disk (only {:.0} GiB are free in the temporary folder, \
                 so the budget cannot hold)",
                gib(b),
                gib(d)
            ),
            (Some(b), _, _) => format!("sharing {:.0} GiB of disk", gib(b)),
        };
        eprintln!(
            "llm-in-sandbox serve: {} calls at once x {} MiB = {:.0} GiB of memory{}; up to {} \
             sessions{}, each with at most {} MiB of files, {} (--max-inflight, --memory, \
             --max-sandboxes, --disk-quota, --disk-budget)",
            sizes.inflight,
            sandbox.memory_bytes >> 20,
            gib(calls),
            memory_note,
            sizes.sandboxes,
            if sandboxes.is_none() {
                " (an idle one holds about 50 KiB)"
            } else {
                ""
            },
            sandbox.disk_quota >> 20,
            disk_note,
        );
        sizes
    }
}

/// The machine's physical memory in bytes, if the OS says.
fn machine_memory() -> Option<u64> {
    // SAFETY: sysinfo fills the struct it is given, nothing else.
    let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
    // SAFETY: as above; `info` is a valid, writable sysinfo.
    if unsafe { libc::sysinfo(&raw mut info) } != 0 {
        return None;
    }
    info.totalram.checked_mul(u64::from(info.mem_unit))
}

/// The free bytes of the file system holding `dir`, if the OS says.
fn free_disk(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt as _;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs fills the struct it is given from a NUL-terminated path.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above; `path` is NUL-terminated and `st` is valid and writable.
    if unsafe { libc::statvfs(path.as_ptr(), &raw mut st) } != 0 {
        return None;
    }
    st.f_bavail.checked_mul(st.f_frsize)
}

/// Where the server's token comes from.
enum Token {
    /// `--no-token`.
    None,
    /// `--token`, `--token-file` or `LLM_IN_SANDBOX_TOKEN`.
    Given(String),
    /// Made at start (none was given); printed on stderr.
    Made(String),
}

/// A fresh token: 128 random bits as 32 hex digits.
fn make_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot make a token (the OS random source failed: {e})"))?;
    Ok(hex::encode(bytes))
}

fn secs(name: &str, v: f64) -> anyhow::Result<Duration> {
    match Duration::try_from_secs_f64(v) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => bail!("--{name} must be a positive number of seconds"),
    }
}

impl ServeArgs {
    fn token(&self) -> anyhow::Result<Token> {
        if self.no_token {
            return Ok(Token::None);
        }
        if let Some(f) = &self.token_file {
            let text = std::fs::read_to_string(f)
                .with_context(|| format!("cannot read the token file {}", f.display()))?;
            let t = text.lines().next().unwrap_or("").trim().to_string();
            if t.is_empty() {
                bail!("the token file {} is empty", f.display());
            }
            return Ok(Token::Given(t));
        }
        match self.token.as_deref().map(str::trim) {
            Some("") => bail!(
                "--token (or LLM_IN_SANDBOX_TOKEN) is empty; pass --no-token to serve without one"
            ),
            Some(t) => Ok(Token::Given(t.to_string())),
            None => Ok(Token::Made(make_token()?)),
        }
    }

    /// The validated configuration.
    /// The validated configuration, and whether its token was made here (to be printed).
    pub(crate) fn config(&self) -> anyhow::Result<(ServeConfig, bool)> {
        let mut made_token = false;
        let token = match self.token()? {
            Token::None if !self.bind.ip().is_loopback() => bail!(
                "refusing to serve on {} without a token: anyone who reaches it could run code. \
                 Drop --no-token (a token is then made and printed), pass --token T (or \
                 --token-file F, or LLM_IN_SANDBOX_TOKEN), or bind to 127.0.0.1",
                self.bind
            ),
            Token::None => None,
            Token::Given(t) => Some(t),
            Token::Made(t) => {
                made_token = true;
                Some(t)
            }
        };
        let mut sandbox = self.sandbox.settings()?;
        let sizes = Sizes::of(
            &sandbox,
            self.max_inflight,
            self.max_sandboxes,
            self.disk_budget,
        );
        sandbox.disk_pool = sizes
            .disk_budget
            .map(llm_in_sandbox::sandbox::DiskPool::new);
        let config = ServeConfig {
            token,
            sandbox,
            max_sandboxes: sizes.sandboxes,
            max_inflight: sizes.inflight,
            max_queued: self.max_queued,
            queue_wait: Duration::try_from_secs_f64(self.queue_wait)
                .context("--queue-wait must be a number of seconds, 0 or more")?,
            max_body_bytes: self.max_body_mb.max(1) << 20,
            idle_ttl: secs("idle-ttl", self.idle_ttl)?,
            max_lifetime: secs("max-lifetime", self.max_lifetime)?,
            grace: secs("grace", self.grace)?,
            access_log: self.access_log,
            release_idle_after: match Duration::try_from_secs_f64(self.release_idle_after) {
                Ok(d) if d.is_zero() => None,
                Ok(d) => Some(d),
                Err(_) => bail!("--release-idle-after must be a number of seconds (0: never)"),
            },
            // Off loopback (a token is required there) clients name the host as they like.
            mcp_any_host: !self.bind.ip().is_loopback(),
            max_connections: self.max_connections.max(1),
            header_timeout: secs("header-timeout", self.header_timeout)?,
            model_hosts: self
                .model_host
                .iter()
                .map(|h| h.trim().to_lowercase())
                .collect(),
            // Read from the reference's package once the runtime is loaded.
            episode_tools: None,
        };
        Ok((config, made_token))
    }
}

/// Resolves on SIGTERM or SIGINT. The handlers are installed when this is called (not when
/// the future is first polled), so a signal sent right after the server says it listens is
/// not lost: call it before announcing the address.
pub(crate) fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let term = signal(SignalKind::terminate()).ok();
    let int = signal(SignalKind::interrupt()).ok();
    async move {
        let wait = |s: Option<tokio::signal::unix::Signal>| async move {
            match s {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = wait(term) => {},
            () = wait(int) => {},
        }
        eprintln!("llm-in-sandbox serve: shutting down (finishing calls in flight)");
    }
}

/// Claim this process's folder for sandbox folders, and remove what killed servers left.
pub(crate) fn claim_temp_folders() -> anyhow::Result<()> {
    let removed = llm_in_sandbox::workspace::claim_temp_root()
        .context("cannot make a folder for the sandboxes in the temporary directory")?;
    for dir in removed {
        eprintln!(
            "llm-in-sandbox: removed {}, left by a server that no longer runs",
            dir.display()
        );
    }
    Ok(())
}

pub(crate) fn run(global: &GlobalArgs, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let (mut config, made_token) = args.config()?;
    claim_temp_folders()?;
    // Sessions and the fresh sandboxes of calls in flight hold folders; clients, sockets.
    super::raise_open_files(
        config.max_sandboxes.saturating_add(config.max_inflight),
        config.max_connections,
    );
    let runtime = global.load_runtime_for(config.max_inflight)?;
    let rt = super::tokio_runtime()?;
    let reference = global.reference()?;
    config.episode_tools = Some(
        rt.block_on(reference.tools(&runtime))
            .context("cannot read the reference's tool definitions")?,
    );
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .with_context(|| format!("cannot listen on {}", args.bind))?;
        let addr = listener
            .local_addr()
            .context("cannot read the bound address")?;
        if made_token && let Some(t) = &config.token {
            eprintln!(
                "llm-in-sandbox serve: this server's token is {t}\n  \
                 clients send `Authorization: Bearer {t}`, or carry it in the URL: \
                 http://:{t}@{addr}\n  \
                 (the Python client reads LLM_IN_SANDBOX_TOKEN; --token T picks the token, \
                 --no-token serves without one, loopback only)"
            );
        }
        let server = Server::new(runtime, config);
        let shutdown = shutdown_signal();
        {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "listening on http://{addr}");
            let _ = out.flush();
        }
        server
            .serve(listener, shutdown)
            .await
            .context("the server failed")?;
        anyhow::Ok(())
    })?;
    // Waits for the blocking threads that delete the last sessions' folders.
    drop(rt);
    llm_in_sandbox::workspace::release_temp_root();
    Ok(ExitCode::SUCCESS)
}
