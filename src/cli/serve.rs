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

use super::{GlobalArgs, on_off};

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on. Port 0 picks a free port; the first stdout line says which
    /// (`listening on http://ADDR`). Off loopback a token is required.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR")]
    bind: SocketAddr,
    /// Bearer token every request but /healthz must carry (`Authorization: Bearer T`).
    #[arg(
        long,
        env = "LLM_IN_SANDBOX_TOKEN",
        conflicts_with = "token_file",
        hide_env_values = true
    )]
    token: Option<String>,
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
    /// Live sessions at most (/v1/sandboxes); over it, 429 with Retry-After.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    max_sandboxes: usize,
    /// Sandbox calls running at once at most (all endpoints); more wait for a slot.
    #[arg(long, default_value_t = 256, value_name = "N")]
    max_inflight: usize,
    /// Calls that may wait for a slot at once; more get 429 with Retry-After.
    #[arg(long, default_value_t = 4096, value_name = "N")]
    max_queued: usize,
    /// Seconds a call waits for a slot before it gets 429 with Retry-After.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
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
    /// Whether `pip install` in a sandbox may fetch pure-Python packages through the host's pip.
    #[arg(long, default_value = "on", value_parser = on_off, action = clap::ArgAction::Set, value_name = "on|off")]
    pip: bool,
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
            network: NetworkPolicy::allow(&self.allow_net)?.with_pip(self.pip),
            ..SandboxSettings::default()
        })
    }
}

fn secs(name: &str, v: f64) -> anyhow::Result<Duration> {
    match Duration::try_from_secs_f64(v) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => bail!("--{name} must be a positive number of seconds"),
    }
}

impl ServeArgs {
    fn token(&self) -> anyhow::Result<Option<String>> {
        if let Some(f) = &self.token_file {
            let text = std::fs::read_to_string(f)
                .with_context(|| format!("cannot read the token file {}", f.display()))?;
            let t = text.lines().next().unwrap_or("").trim().to_string();
            if t.is_empty() {
                bail!("the token file {} is empty", f.display());
            }
            return Ok(Some(t));
        }
        Ok(self.token.clone().filter(|t| !t.trim().is_empty()))
    }

    /// The validated configuration.
    pub(crate) fn config(&self) -> anyhow::Result<ServeConfig> {
        let token = self.token()?;
        if token.is_none() && !self.bind.ip().is_loopback() {
            bail!(
                "refusing to serve on {} without a token: anyone who reaches it could run code. \
                 Pass --token T (or --token-file F, or LLM_IN_SANDBOX_TOKEN), or bind to 127.0.0.1",
                self.bind
            );
        }
        let sandbox = self.sandbox.settings()?;
        Ok(ServeConfig {
            token,
            sandbox,
            max_sandboxes: self.max_sandboxes.max(1),
            max_inflight: self.max_inflight.max(1),
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
        })
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
    let mut config = args.config()?;
    claim_temp_folders()?;
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
