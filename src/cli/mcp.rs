//! `llm-in-sandbox mcp`: one MCP client on stdin/stdout (see `serve::mcp`). Stdout carries
//! the protocol only; everything else goes to stderr.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, anyhow};
use clap::Args;
use rmcp::ServiceExt;

use llm_in_sandbox::serve::mcp::SandboxMcp;
use llm_in_sandbox::serve::{ServeConfig, Server};

use super::GlobalArgs;
use super::serve::SandboxArgs;

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    #[command(flatten)]
    sandbox: SandboxArgs,
    /// Sandboxes at most (this session's own plus those named by a `sandbox` key).
    #[arg(long, default_value_t = 64, value_name = "N")]
    max_sandboxes: usize,
}

impl McpArgs {
    fn config(&self) -> anyhow::Result<ServeConfig> {
        let sandbox = self.sandbox.settings()?;
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
    super::serve::claim_temp_folders()?;
    let runtime = global.load_runtime_for(config.max_inflight)?;
    let rt = super::tokio_runtime()?;
    rt.block_on(async move {
        let server = Server::new(runtime, config);
        // Sessions live as long as the process; the reaper gives idle memory back.
        server.start_reaper();
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
