//! `llm-in-sandbox mcp`: one MCP client on stdin/stdout (see `serve::mcp`). Stdout carries
//! the protocol only; everything else goes to stderr.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use clap::Args;
use rmcp::ServiceExt;

use llm_in_sandbox::agent::SandboxSettings;
use llm_in_sandbox::serve::mcp::SandboxMcp;
use llm_in_sandbox::serve::{ServeConfig, Server};
use llm_in_sandbox::shell::NetworkPolicy;

use super::{GlobalArgs, on_off};

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Longest time a command may run, seconds.
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS")]
    timeout: f64,
    /// Memory cap of one Python call in MiB (at most 4096, the wasm32 limit).
    #[arg(long, default_value_t = 2048, value_name = "MB")]
    memory: u64,
    /// Disk quota of one sandbox (/testbed and /tmp) in MiB.
    #[arg(long, default_value_t = 1024, value_name = "MB")]
    disk_quota: u64,
    /// Hosts sandboxes may reach (curl/wget, Python's urllib). Default: no network.
    #[arg(long, value_delimiter = ',', value_name = "HOST,...")]
    allow_net: Vec<String>,
    /// Whether `pip install` in a sandbox may fetch pure-Python packages through the host's pip.
    #[arg(long, default_value = "on", value_parser = on_off, action = clap::ArgAction::Set, value_name = "on|off")]
    pip: bool,
    /// Sandboxes at most (this session's own plus those named by a `sandbox` key).
    #[arg(long, default_value_t = 64, value_name = "N")]
    max_sandboxes: usize,
}

impl McpArgs {
    fn config(&self) -> anyhow::Result<ServeConfig> {
        if !(self.timeout.is_finite() && self.timeout > 0.0) {
            bail!("--timeout must be a positive number of seconds");
        }
        if self.memory == 0 || self.memory > 4096 {
            bail!("--memory must be between 1 and 4096 MiB (the wasm32 limit)");
        }
        let sandbox = SandboxSettings {
            command_timeout: Duration::from_secs_f64(self.timeout),
            memory_bytes: self.memory << 20,
            disk_quota: self.disk_quota.saturating_mul(1 << 20),
            network: NetworkPolicy::allow(&self.allow_net)?.with_pip(self.pip),
            ..SandboxSettings::default()
        };
        // One client for the life of the process: its sandboxes live as long.
        let forever = Duration::from_secs(100 * 365 * 86400);
        Ok(ServeConfig {
            token: None,
            sandbox,
            max_sandboxes: self.max_sandboxes.max(1),
            max_inflight: 16,
            idle_ttl: forever,
            max_lifetime: forever,
            access_log: false,
            ..ServeConfig::default()
        })
    }
}

pub(crate) fn run(global: &GlobalArgs, args: McpArgs) -> anyhow::Result<ExitCode> {
    let config = args.config()?;
    let runtime = global.load_runtime_for(config.max_inflight)?;
    let rt = super::tokio_runtime()?;
    rt.block_on(async move {
        let server = Server::new(runtime, config);
        let running = SandboxMcp::new(server)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| anyhow!("the MCP handshake failed: {e}"))?;
        running.waiting().await.context("the MCP session failed")?;
        anyhow::Ok(())
    })?;
    // A read of stdin may still be pending on a blocking thread: do not wait for it.
    rt.shutdown_timeout(Duration::from_millis(100));
    Ok(ExitCode::SUCCESS)
}
