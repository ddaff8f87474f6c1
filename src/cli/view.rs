//! `llm-in-sandbox view`: a local web page over one or two run folders (see docs/view.md).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;

use llm_in_sandbox::view::{Runs, export, server};

#[derive(Debug, Args)]
pub(crate) struct ViewArgs {
    /// The run folder (benchmark, shard, merge or `run` output); a second one to compare.
    #[arg(required = true, num_args = 1..=2, value_name = "RUN_DIR")]
    dirs: Vec<PathBuf>,
    /// Address to listen on. Port 0 picks a free port; the first stdout line says which
    /// (`listening on http://ADDR`). Off loopback a token is required.
    #[arg(long, default_value = "127.0.0.1:8765", value_name = "ADDR")]
    bind: SocketAddr,
    /// Token the page must be opened with (`http://ADDR/?token=T`; API clients may send
    /// `Authorization: Bearer T`).
    #[arg(long, env = "LLM_IN_SANDBOX_VIEW_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Open the page in the default browser (xdg-open / open).
    #[arg(long)]
    open: bool,
    /// Write one self-contained HTML file (data embedded, no network) and exit.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["open", "token"])]
    export: Option<PathBuf>,
}

pub(crate) fn run(args: ViewArgs) -> anyhow::Result<ExitCode> {
    let runs = Runs::open(&args.dirs)?;
    if let Some(out) = &args.export {
        let stats = export::export(&runs, out, &export::ExportLimits::default())
            .with_context(|| format!("cannot write {}", out.display()))?;
        println!(
            "wrote {} ({} rows, {} bytes)",
            out.display(),
            stats.rows,
            stats.bytes
        );
        return Ok(ExitCode::SUCCESS);
    }
    let token = args.token.clone().filter(|t| !t.trim().is_empty());
    if token.is_none() && !args.bind.ip().is_loopback() {
        bail!(
            "refusing to serve run folders on {} without a token: pass --token T (or \
             LLM_IN_SANDBOX_VIEW_TOKEN), or bind to 127.0.0.1",
            args.bind
        );
    }
    let rt = super::tokio_runtime()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .with_context(|| format!("cannot listen on {}", args.bind))?;
        let addr = listener
            .local_addr()
            .context("cannot read the bound address")?;
        let url = match &token {
            Some(t) => format!("http://{addr}/?token={t}"),
            None => format!("http://{addr}/"),
        };
        let shutdown = super::serve::shutdown_signal();
        {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "listening on http://{addr}");
            let _ = writeln!(out, "open {url}");
            let _ = out.flush();
        }
        if args.open {
            open_browser(&url);
        }
        server::serve(runs, listener, token, shutdown)
            .await
            .context("the viewer failed")?;
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The user's browser, through the desktop's opener; failing is only a message.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("llm-in-sandbox view: cannot start {opener} ({e}); open {url} yourself");
    }
}
