//! SandboxFusion's protocol (`/run_code`, `/run_jupyter`, `/v1/ping`), so its published client
//! and verl's reward and tool paths work unchanged. Each call is a fresh sandbox. As there,
//! what the code did is a 200 with a status: `Success` (exit 0), `Failed` (non-zero exit or
//! time limit), `SandboxError` (we could not run it, e.g. an unsupported language).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Server;
use super::error::{ApiError, JsonBody};
use super::files::{self, GuestPath};
use crate::agent::SandboxSettings;
use crate::runtime::{Invocation, Outcome, RunResult};
use crate::sandbox::Sandbox;
use crate::shell::{CommandOutcome, Shell};

/// SandboxFusion's default `run_timeout` (seconds).
const DEFAULT_RUN_TIMEOUT: f64 = 10.0;
/// SandboxFusion's default `total_timeout` of a notebook (seconds).
const DEFAULT_TOTAL_TIMEOUT: f64 = 45.0;

/// `POST /run_code`'s body. Fields we do not use are accepted and ignored, as there.
#[derive(Debug, Deserialize)]
pub(super) struct RunCode {
    code: String,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    run_timeout: Option<f64>,
    #[serde(default, rename = "memory_limit_MB")]
    memory_limit_mb: Option<i64>,
    #[serde(default)]
    stdin: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, Option<String>>,
    #[serde(default)]
    fetch_files: Vec<String>,
}

/// `POST /run_jupyter`'s body.
#[derive(Debug, Deserialize)]
pub(super) struct RunJupyter {
    cells: Vec<String>,
    #[serde(default)]
    cell_timeout: Option<f64>,
    #[serde(default)]
    total_timeout: Option<f64>,
    #[serde(default)]
    kernel: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, Option<String>>,
    #[serde(default)]
    fetch_files: Vec<String>,
}

/// A `SandboxError` answer (HTTP 200, as SandboxFusion sends it).
fn sandbox_error(message: impl Into<String>) -> Json<Value> {
    Json(json!({
        "status": "SandboxError",
        "message": message.into(),
        "compile_result": null,
        "run_result": null,
        "executor_pod_name": null,
        "files": {},
    }))
}

/// The server's sandbox settings with this call's time and memory.
fn settings(srv: &Server, timeout: f64, memory_mb: Option<i64>) -> SandboxSettings {
    let mut s = srv.config.sandbox.clone();
    let t = if timeout.is_finite() && timeout > 0.0 {
        timeout.min(1e6)
    } else {
        DEFAULT_RUN_TIMEOUT
    };
    s.command_timeout = s.command_timeout.min(Duration::from_secs_f64(t));
    if let Some(mb) = memory_mb.filter(|m| *m > 0) {
        // What the code may allocate on top of the interpreter with its preloaded modules
        // (a process's baseline in SandboxFusion is a bare python3 of a few MiB).
        let cap = srv
            .runtime
            .base_memory_bytes()
            .saturating_add((mb as u64).saturating_mul(1 << 20));
        s.memory_bytes = s.memory_bytes.min(cap);
    }
    s
}

/// A fresh sandbox with `files` written.
async fn fresh(
    srv: &Server,
    settings: &SandboxSettings,
    files: &BTreeMap<String, Option<String>>,
) -> Result<Arc<Sandbox>, String> {
    let mut decoded = Vec::new();
    for (p, b64) in files {
        let Some(b64) = b64 else { continue };
        let path = GuestPath::parse(p).map_err(|e| e.message)?;
        let data = base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .map_err(|e| format!("file {p:?} is not base64: {e}"))?;
        decoded.push((path, data));
    }
    if decoded.is_empty() {
        // Nothing to write: two small directories, made here rather than after a hop to the
        // blocking threads and back.
        return settings
            .sandbox(&srv.runtime, None)
            .map(Arc::new)
            .map_err(|e| format!("cannot make a sandbox: {e}"));
    }
    let runtime = srv.runtime.clone();
    let settings = settings.clone();
    super::api::blocking(move || {
        let sb = settings
            .sandbox(&runtime, None)
            .map_err(|e| ApiError::internal(format!("cannot make a sandbox: {e}")))?;
        for (path, data) in &decoded {
            files::write_file(&sb, path, data)?;
        }
        Ok(Arc::new(sb))
    })
    .await
    .map_err(|e| e.message)
}

/// `fetch_files`: the ones that exist as files, base64; the others are left out, as there.
async fn fetch(sb: &Arc<Sandbox>, paths: &[String], limit: usize) -> Value {
    if paths.is_empty() {
        return json!({});
    }
    let sb = sb.clone();
    let paths = paths.to_vec();
    let got = super::api::blocking(move || {
        let mut out = serde_json::Map::new();
        for p in paths {
            let Ok(path) = GuestPath::parse(&p) else {
                continue;
            };
            if let Ok(data) = files::read_file(&sb, &path, limit) {
                out.insert(
                    p,
                    json!(base64::engine::general_purpose::STANDARD.encode(data)),
                );
            }
        }
        Ok(Value::Object(out))
    })
    .await;
    got.unwrap_or_else(|_| json!({}))
}

fn run_result(status: &str, secs: f64, code: Option<i32>, stdout: String, stderr: String) -> Value {
    json!({
        "status": status,
        "execution_time": secs,
        "return_code": code,
        "stdout": stdout,
        "stderr": stderr,
    })
}

fn python_run_result(r: &RunResult) -> Value {
    let secs = r.duration.as_secs_f64();
    match r.outcome {
        Outcome::Deadline => run_result(
            "TimeLimitExceeded",
            secs,
            None,
            r.stdout_text(),
            r.stderr_text(),
        ),
        _ => run_result(
            "Finished",
            secs,
            Some(r.exit_code),
            r.stdout_text(),
            r.stderr_text(),
        ),
    }
}

pub(super) async fn run_code(
    State(srv): State<Arc<Server>>,
    JsonBody(req): JsonBody<RunCode>,
) -> Result<Json<Value>, ApiError> {
    let language = req.language.as_deref().unwrap_or("python");
    if !matches!(language, "python" | "python3" | "bash") {
        return Ok(sandbox_error(format!(
            "language {language:?} is not supported by this server: it runs `python` (CPython \
             3.15 in WebAssembly) and `bash` (an in-process bash); send one of those"
        )));
    }
    let call = srv.admit().await?;
    let settings = settings(
        &srv,
        req.run_timeout.unwrap_or(DEFAULT_RUN_TIMEOUT),
        req.memory_limit_mb,
    );
    let sb = match fresh(&srv, &settings, &req.files).await {
        Ok(sb) => sb,
        Err(m) => return Ok(sandbox_error(m)),
    };
    let stdin = req.stdin.unwrap_or_default();
    let result = if language == "bash" {
        run_bash(&sb, &settings, &req.code, &stdin, Box::new(call)).await
    } else {
        let inv = Invocation::parse(&["-c".to_string(), req.code])
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        // Commands the code starts run in an in-process shell over the same sandbox.
        let commands = crate::shell::guest_commands(&sb);
        // A client that goes away drops this run: the instance stops at its next epoch check.
        let r = sb
            .run_with_processes(
                inv,
                stdin.as_bytes(),
                sb.env(),
                sb.cwd(),
                sb.limits().clone(),
                Some(commands),
            )
            .await
            .map(|r| python_run_result(&r))
            .map_err(|e| e.to_string());
        drop(call);
        r
    };
    let rr = match result {
        Ok(rr) => rr,
        Err(m) => return Ok(sandbox_error(format!("the sandbox failed: {m}"))),
    };
    let ok = rr["status"] == "Finished" && rr["return_code"] == 0;
    let files = fetch(&sb, &req.fetch_files, srv.config.max_body_bytes).await;
    // Removing its two directories is file system work off the answer's path; nothing can
    // reach the sandbox any more (the next call gets new ones).
    tokio::task::spawn_blocking(move || drop(sb));
    Ok(Json(json!({
        "status": if ok { "Success" } else { "Failed" },
        "message": "",
        "compile_result": null,
        "run_result": rr,
        "executor_pod_name": null,
        "files": files,
    })))
}

/// Bash through our in-process shell; stdin comes from a file in `/tmp`. `hold` (the call's
/// admission slot) is kept until the script has really ended: a client that goes away
/// interrupts it (see `Shell::exec_holding`).
async fn run_bash(
    sb: &Arc<Sandbox>,
    settings: &SandboxSettings,
    code: &str,
    stdin: &str,
    hold: Box<dyn std::any::Any + Send>,
) -> Result<Value, String> {
    let script = if stdin.is_empty() {
        code.to_string()
    } else {
        let path = GuestPath::parse("/tmp/.run_code_stdin").map_err(|e| e.message)?;
        let (sb2, data) = (sb.clone(), stdin.as_bytes().to_vec());
        super::api::blocking(move || files::write_file(&sb2, &path, &data))
            .await
            .map_err(|e| e.message)?;
        format!("{{\n{code}\n}} < /tmp/.run_code_stdin")
    };
    let mut shell = Shell::new(sb.clone(), settings.shell()).map_err(|e| e.to_string())?;
    let r = shell
        .exec_holding(&script, None, None, Some(hold))
        .await
        .map_err(|e| e.to_string())?;
    let secs = r.duration.as_secs_f64();
    Ok(if r.outcome == CommandOutcome::Timeout {
        run_result("TimeLimitExceeded", secs, None, r.stdout, r.stderr)
    } else {
        run_result("Finished", secs, Some(r.exit_code), r.stdout, r.stderr)
    })
}

pub(super) async fn run_jupyter(
    State(srv): State<Arc<Server>>,
    JsonBody(req): JsonBody<RunJupyter>,
) -> Result<Json<Value>, ApiError> {
    if let Some(k) = req.kernel.as_deref()
        && k != "python3"
    {
        return Ok(sandbox_error(format!(
            "kernel {k:?} is not supported: only python3"
        )));
    }
    let call = srv.admit().await?;
    let mut total = req.total_timeout.unwrap_or(DEFAULT_TOTAL_TIMEOUT);
    if let Some(c) = req.cell_timeout.filter(|c| *c > 0.0) {
        // Cells share one call: the cell budget bounds the whole notebook.
        total = total.min(c * req.cells.len().max(1) as f64);
    }
    let settings = settings(&srv, total, None);
    let sb = match fresh(&srv, &settings, &req.files).await {
        Ok(sb) => sb,
        Err(m) => return Ok(sandbox_error(m)),
    };
    let cells = serde_json::to_vec(&req.cells).unwrap_or_default();
    let inv = Invocation::parse(&["-c".to_string(), include_str!("jupyter.py").to_string()])
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let commands = crate::shell::guest_commands(&sb);
    let run = sb
        .run_with_processes(
            inv,
            &cells,
            sb.env(),
            sb.cwd(),
            sb.limits().clone(),
            Some(commands),
        )
        .await
        .map_err(|e| e.to_string());
    drop(call);
    let r = match run {
        Ok(r) => r,
        Err(m) => return Ok(sandbox_error(format!("the sandbox failed: {m}"))),
    };
    // The guest can write to this log too: read it bounded.
    let text = sb
        .scratch_dir()
        .and_then(|dir| {
            crate::fsutil::read_capped_string(
                dir,
                std::path::Path::new(".run_jupyter.jsonl"),
                crate::fsutil::GUEST_READ_LIMIT,
            )
        })
        .unwrap_or_default();
    let mut done: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let finished = done.len() == req.cells.len();
    let mut message = String::new();
    if !finished {
        let why = match r.outcome {
            Outcome::Deadline => format!("the notebook passed its time limit ({total} s)"),
            Outcome::MemoryLimit => "the notebook passed its memory limit".to_string(),
            _ => format!("the kernel stopped (exit code {})", r.exit_code),
        };
        message = format!("{why} in cell {}", done.len() + 1);
        done.push(json!({
            "stdout": "", "stderr": r.stderr_text(), "display": [],
            "error": [{"ename": "KernelError", "evalue": message, "traceback": []}],
        }));
    }
    let files = fetch(&sb, &req.fetch_files, srv.config.max_body_bytes).await;
    Ok(Json(json!({
        "status": if finished { "Success" } else { "Failed" },
        "message": message,
        "driver": python_run_result(&r),
        "cells": done,
        "executor_pod_name": null,
        "files": files,
    })))
}

pub(super) async fn ping() -> Json<Value> {
    Json(json!("pong"))
}
