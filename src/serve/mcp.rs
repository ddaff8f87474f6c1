//! MCP (Model Context Protocol) over the server's sandboxes, with the official Rust SDK
//! (`rmcp`): `llm-in-sandbox mcp` serves one client on stdin/stdout, `serve` mounts the
//! streamable HTTP transport at `/mcp`.
//!
//! Tools: `run_python`, `run_bash`, `read_file`, `write_file`, and our agent's three tools
//! (`execute_bash`, `str_replace_editor`, `submit`, answering exactly the observation the model
//! would see). Each MCP session gets its own sandbox session, made on its first tool call
//! through [`Server::sessions`] (so `--max-sandboxes`, admission, metrics and reaping apply)
//! and deleted when the MCP session ends. A call with `sandbox: KEY` uses the session holding
//! that key instead (made on first use), so clients that reconnect per call keep their state.
//!
//! What the guest does (a non-zero exit, a traceback) is a successful result with an
//! `exit code: N` line; only bad arguments and our own faults (a full server, a path that
//! leaves the sandbox) are results with `isError: true`.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, ServerHandler, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::Server;
use super::error::ApiError;
use super::files::{self, GuestPath};
use super::sessions::{InUse, NewSession};
use crate::runtime::Outcome;
use crate::shell::{CommandOutcome, Interrupter};

/// Longest `sandbox` key.
const MAX_KEY: usize = 256;

/// What the server tells a client about itself on `initialize`.
const INSTRUCTIONS: &str = "A sandbox with Python 3 (numpy, scipy, sympy, pandas, matplotlib, \
    ...) and bash, in WebAssembly. The working directory is /testbed; /tmp is scratch space. \
    State (files, the shell's directory and variables) persists across calls of this MCP \
    session; pass the same `sandbox` key to keep it across sessions. run_python and run_bash \
    report stdout, stderr and the exit code; execute_bash, str_replace_editor and submit are \
    the llm-in-sandbox agent's tools and answer what its model sees.";

/// `run_python`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RunPythonArgs {
    /// Python source to run as `python3 -c CODE` (working directory /testbed).
    pub code: String,
    /// A key naming a sandbox to use (made on first use) instead of this session's own one.
    #[serde(default)]
    pub sandbox: Option<String>,
}

/// `run_bash`'s and `execute_bash`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BashArgs {
    /// The bash command or script; the shell's directory, variables and functions persist.
    pub command: String,
    /// A key naming a sandbox to use (made on first use) instead of this session's own one.
    #[serde(default)]
    pub sandbox: Option<String>,
}

/// `read_file`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReadFileArgs {
    /// Relative to /testbed, or absolute under /testbed or /tmp.
    pub path: String,
    /// A key naming a sandbox to use (made on first use) instead of this session's own one.
    #[serde(default)]
    pub sandbox: Option<String>,
}

/// `write_file`'s arguments.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct WriteFileArgs {
    /// Relative to /testbed, or absolute under /testbed or /tmp; folders are made as needed.
    pub path: String,
    /// The file's new content (UTF-8 text); an existing file is replaced.
    pub content: String,
    /// A key naming a sandbox to use (made on first use) instead of this session's own one.
    #[serde(default)]
    pub sandbox: Option<String>,
}

/// `str_replace_editor`'s arguments (the agent's editor).
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct EditorArgs {
    /// One of `view`, `create`, `str_replace`, `insert`, `undo_edit`.
    pub command: String,
    /// Absolute path of the file or folder, e.g. /testbed/solution.py.
    pub path: String,
    /// Content of the new file (`create`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_text: Option<String>,
    /// Exact text to replace; must occur once (`str_replace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_str: Option<String>,
    /// Replacement (`str_replace`) or text to insert (`insert`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_str: Option<String>,
    /// Insert after this line; 0 is the top (`insert`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insert_line: Option<i64>,
    /// Lines `[start, end]` to view; end -1 means to the end (`view`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view_range: Option<Vec<i64>>,
    /// A key naming a sandbox to use (made on first use) instead of this session's own one.
    #[serde(default, skip_serializing)]
    pub sandbox: Option<String>,
}

/// `submit`'s arguments.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct SubmitArgs {
    /// A key naming a sandbox to use instead of this session's own one.
    #[serde(default)]
    pub sandbox: Option<String>,
}

/// The sandbox session an MCP session made for itself; deleted when the last handle to it goes
/// (the MCP session ended).
#[derive(Debug)]
struct Own {
    server: Arc<Server>,
    id: tokio::sync::Mutex<Option<String>>,
}

impl Drop for Own {
    fn drop(&mut self) {
        if let Some(id) = self.id.get_mut().take() {
            self.server.sessions.remove(&id);
        }
    }
}

/// The MCP server of one MCP session (stdio: of the process). Cheap to make: the sandbox is
/// made on the first tool call.
#[derive(Debug, Clone)]
pub struct SandboxMcp {
    server: Arc<Server>,
    own: Arc<Own>,
    tool_router: ToolRouter<SandboxMcp>,
}

/// A tool-level failure: the client (or its model) sees `text` with `isError: true`.
fn refused(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.into())])
}

fn ok(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

/// An API error as a tool result.
fn api_refused(e: ApiError) -> CallToolResult {
    let mut text = e.message;
    if e.retryable {
        text.push_str(" (retryable)");
    }
    refused(text)
}

/// `Result<CallToolResult, ApiError>` flattened into a tool result.
/// A shell call that the MCP client may cancel (`notifications/cancelled`): on cancel the call
/// is interrupted and then awaited, so the session's shell stays whole. A failure is our fault
/// unless the client cancelled.
///
/// The caller holds the session's tools lock, so the only other call the shell can be running
/// is one whose caller already left (and which is being interrupted). The call may still be
/// waiting for that one to end, and starting clears the interrupt flag, so the interrupt is
/// repeated until the call has ended.
async fn unless_cancelled<T, E: std::fmt::Display>(
    work: impl std::future::Future<Output = Result<T, E>>,
    ct: &CancellationToken,
    stop: &Interrupter,
) -> Result<T, ApiError> {
    tokio::pin!(work);
    let r = tokio::select! {
        biased;
        r = &mut work => r,
        () = ct.cancelled() => loop {
            stop.interrupt();
            tokio::select! {
                r = &mut work => break r,
                () = tokio::time::sleep(std::time::Duration::from_millis(20)) => {}
            }
        }
    };
    r.map_err(|e| {
        if ct.is_cancelled() {
            cancelled()
        } else {
            ApiError::internal(format!("the sandbox failed: {e}"))
        }
    })
}

fn cancelled() -> ApiError {
    ApiError::bad_request("the client cancelled the call")
}

fn answer(r: Result<CallToolResult, ApiError>) -> Result<CallToolResult, McpError> {
    Ok(r.unwrap_or_else(api_refused))
}

/// A command's outcome as readable text: the exit code line, then the non-empty streams.
pub fn run_text(exit_code: i32, stdout: &str, stderr: &str, timed_out: Option<Duration>) -> String {
    let mut t = match timed_out {
        Some(d) => format!(
            "exit code: -1 (stopped: the {:.1} s time limit passed)\n",
            d.as_secs_f64()
        ),
        None => format!("exit code: {exit_code}\n"),
    };
    for (name, text) in [("stdout", stdout), ("stderr", stderr)] {
        if !text.is_empty() {
            t.push_str(&format!("--- {name} ---\n{text}"));
            if !text.ends_with('\n') {
                t.push('\n');
            }
        }
    }
    t
}

#[tool_router]
impl SandboxMcp {
    /// An MCP server over `server`'s sandboxes, for one MCP session.
    pub fn new(server: Arc<Server>) -> Self {
        SandboxMcp {
            own: Arc::new(Own {
                server: server.clone(),
                id: tokio::sync::Mutex::new(None),
            }),
            server,
            tool_router: Self::tool_router(),
        }
    }

    /// The id of the sandbox session this MCP session made, if it made one yet.
    pub async fn sandbox_id(&self) -> Option<String> {
        self.own.id.lock().await.clone()
    }

    fn spec(&self, key: Option<String>) -> NewSession {
        let c = &self.server.config;
        NewSession {
            key,
            settings: c.sandbox.clone(),
            idle_ttl: c.idle_ttl,
            max_lifetime: c.max_lifetime,
            ..NewSession::default()
        }
    }

    /// The sandbox session for a call: the one holding `key`, or this MCP session's own one
    /// (made on first use).
    async fn session(&self, key: Option<String>) -> Result<InUse, ApiError> {
        let srv = &self.server;
        srv.check_open()?;
        if let Some(k) = key {
            if k.is_empty() || k.len() > MAX_KEY {
                return Err(ApiError::bad_request(format!(
                    "sandbox must be a key of 1 to {MAX_KEY} bytes"
                )));
            }
            let (s, _) = srv
                .sessions
                .get_or_create(&srv.runtime, self.spec(Some(k)))
                .await?;
            return Ok(s);
        }
        let mut id = self.own.id.lock().await;
        if let Some(existing) = id.as_deref() {
            return match srv.sessions.get(existing) {
                Ok(s) => Ok(s),
                Err(_) => {
                    // Reaped (idle TTL or lifetime) or deleted through the API: say so once;
                    // the next call makes a fresh one.
                    *id = None;
                    Err(ApiError::not_found(format!(
                        "this MCP session's sandbox was deleted (idle for {:.0} s, older than \
                         {:.0} s, or deleted through the API); its files are gone. The next \
                         call starts a fresh sandbox",
                        srv.config.idle_ttl.as_secs_f64(),
                        srv.config.max_lifetime.as_secs_f64()
                    )))
                }
            };
        }
        let (s, _) = srv
            .sessions
            .get_or_create(&srv.runtime, self.spec(None))
            .await?;
        *id = Some(s.id.clone());
        Ok(s)
    }

    /// Run an agent tool and answer its observation.
    async fn agent_tool(
        &self,
        name: &str,
        arguments: Value,
        key: Option<String>,
        ct: &CancellationToken,
    ) -> Result<CallToolResult, ApiError> {
        let session = self.session(key).await?;
        let call = self.server.admit().await?;
        let mut tools = session.tools.lock().await;
        let stop = tools.shell_mut().interrupter();
        let text = super::api::arguments_text(&arguments);
        let out = unless_cancelled(tools.call(name, &text), ct, &stop).await?;
        drop(call);
        Ok(if out.error {
            refused(out.observation)
        } else {
            ok(out.observation)
        })
    }

    #[tool(
        description = "Run Python 3 code (python3 -c CODE) in the sandbox, working directory \
        /testbed. Answers the exit code, stdout and stderr. Files persist across calls; \
        each call is a fresh interpreter."
    )]
    async fn run_python(
        &self,
        Parameters(RunPythonArgs { code, sandbox }): Parameters<RunPythonArgs>,
        ct: CancellationToken,
    ) -> Result<CallToolResult, McpError> {
        let work = async {
            let session = self.session(sandbox).await?;
            let call = self.server.admit().await?;
            let sb = &session.sandbox;
            let r = sb
                .python_with_processes(
                    &["-c".to_string(), code],
                    b"",
                    Some(crate::shell::guest_commands(sb)),
                )
                .await
                .map_err(|e| ApiError::internal(format!("the sandbox failed: {e}")))?;
            drop(call);
            let timed_out = (r.outcome == Outcome::Deadline).then(|| sb.limits().timeout);
            Ok(ok(run_text(
                r.exit_code,
                &r.stdout_text(),
                &r.stderr_text(),
                timed_out,
            )))
        };
        // A cancelled call drops the run: the instance stops at its next epoch check and the
        // admission slot is freed (nothing of a fresh `python3 -c` needs to survive).
        answer(tokio::select! {
            r = work => r,
            () = ct.cancelled() => Err(cancelled()),
        })
    }

    #[tool(
        description = "Run a bash command or script in the sandbox's shell (working directory \
        /testbed; the directory, variables and functions persist across calls; python3, pip, \
        coreutils, grep, sed, awk, ...). Answers the exit code, stdout and stderr."
    )]
    async fn run_bash(
        &self,
        Parameters(BashArgs { command, sandbox }): Parameters<BashArgs>,
        ct: CancellationToken,
    ) -> Result<CallToolResult, McpError> {
        answer(
            async {
                let session = self.session(sandbox).await?;
                let call = self.server.admit().await?;
                let mut tools = session.tools.lock().await;
                let shell = tools.shell_mut();
                let stop = shell.interrupter();
                let r = unless_cancelled(shell.exec(&command), &ct, &stop).await?;
                drop(call);
                let timed_out = (r.outcome == CommandOutcome::Timeout).then_some(r.timeout);
                Ok(ok(run_text(r.exit_code, &r.stdout, &r.stderr, timed_out)))
            }
            .await,
        )
    }

    #[tool(
        description = "Read a text file from the sandbox: a path relative to /testbed, or \
        absolute under /testbed or /tmp. Answers its content."
    )]
    async fn read_file(
        &self,
        Parameters(ReadFileArgs { path, sandbox }): Parameters<ReadFileArgs>,
    ) -> Result<CallToolResult, McpError> {
        answer(
            async {
                let path = GuestPath::parse(&path)?;
                let session = self.session(sandbox).await?;
                let sb = session.sandbox.clone();
                let limit = self.server.config.max_body_bytes;
                let data =
                    super::api::blocking(move || files::read_file(&sb, &path, limit)).await?;
                Ok(ok(String::from_utf8_lossy(&data).into_owned()))
            }
            .await,
        )
    }

    #[tool(
        description = "Write a text file into the sandbox (replacing it if it exists; folders \
        are made): a path relative to /testbed, or absolute under /testbed or /tmp."
    )]
    async fn write_file(
        &self,
        Parameters(WriteFileArgs {
            path,
            content,
            sandbox,
        }): Parameters<WriteFileArgs>,
    ) -> Result<CallToolResult, McpError> {
        answer(
            async {
                let path = GuestPath::parse(&path)?;
                let guest = path.guest();
                let size = content.len();
                let session = self.session(sandbox).await?;
                let sb = session.sandbox.clone();
                super::api::blocking(move || files::write_file(&sb, &path, content.as_bytes()))
                    .await?;
                Ok(ok(format!("wrote {size} bytes to {guest}")))
            }
            .await,
        )
    }

    #[tool(
        description = "The llm-in-sandbox agent's shell tool: run a bash command in the \
        sandbox (working directory /testbed; state carries over between calls). Answers the \
        observation the agent's model sees (`Exit code: N`, then the output; long output is \
        cut to its first and last 40 lines)."
    )]
    async fn execute_bash(
        &self,
        Parameters(BashArgs { command, sandbox }): Parameters<BashArgs>,
        ct: CancellationToken,
    ) -> Result<CallToolResult, McpError> {
        let args = serde_json::json!({ "command": command });
        answer(self.agent_tool("execute_bash", args, sandbox, &ct).await)
    }

    #[tool(
        description = "The llm-in-sandbox agent's file editor. `view` shows a file with line \
        numbers (optionally `view_range` [start, end], end -1 = to the end) or lists a folder \
        two levels deep. `create` writes a new file (never overwrites). `str_replace` replaces \
        `old_str`, which must occur exactly once, with `new_str`. `insert` puts `new_str` \
        after line `insert_line` (0 = at the top). `undo_edit` reverts the last edit of \
        `path`. Paths are absolute, e.g. /testbed/solution.py."
    )]
    async fn str_replace_editor(
        &self,
        Parameters(args): Parameters<EditorArgs>,
        ct: CancellationToken,
    ) -> Result<CallToolResult, McpError> {
        let key = args.sandbox.clone();
        let r = match serde_json::to_value(&args) {
            Ok(v) => self.agent_tool("str_replace_editor", v, key, &ct).await,
            Err(e) => Err(ApiError::internal(format!(
                "cannot pass the arguments on: {e}"
            ))),
        };
        answer(r)
    }

    #[tool(
        description = "The llm-in-sandbox agent's `submit`: says the task is finished. Answers \
        `<<< Finished >>>`; the sandbox stays as it is."
    )]
    async fn submit(
        &self,
        Parameters(SubmitArgs { sandbox }): Parameters<SubmitArgs>,
        ct: CancellationToken,
    ) -> Result<CallToolResult, McpError> {
        answer(
            self.agent_tool("submit", Value::Object(Default::default()), sandbox, &ct)
                .await,
        )
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SandboxMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            // (`from_build_env` would name rmcp itself.)
            .with_server_info(
                Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
                    .with_title("llm-in-sandbox"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    // Only the protocol revisions with sessions: the sessionless 2026-07-28 one would make a
    // new server (and so a new sandbox) for every HTTP request.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }
}

/// The streamable HTTP service for `/mcp`: one [`SandboxMcp`] per MCP session, idle MCP
/// sessions closed after the server's idle TTL, stopped when `cancel` is cancelled. Only
/// loopback `Host` names are accepted unless [`super::ServeConfig::mcp_any_host`] is set.
pub fn http_service(
    server: &Arc<Server>,
    cancel: CancellationToken,
) -> StreamableHttpService<SandboxMcp, LocalSessionManager> {
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(cancel)
        .with_max_request_body_bytes(server.config.max_body_bytes);
    if server.config.mcp_any_host {
        config = config.disable_allowed_hosts();
    }
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(server.config.idle_ttl);
    let srv = server.clone();
    StreamableHttpService::new(
        move || Ok(SandboxMcp::new(srv.clone())),
        Arc::new(sessions),
        config,
    )
}
