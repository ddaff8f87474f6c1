//! The native session API under `/v1/sandboxes` (see docs/serve.md).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Server;
use super::error::{ApiError, JsonBody, QueryArgs, RawBody};
use super::files::{self, GuestPath};
use super::sessions::{LimitsRequest, NewSession};
use crate::runtime::{Invocation, executor};
use crate::shell::{CommandOutcome, CommandResult};

/// Longest client key.
const MAX_KEY: usize = 256;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateRequest {
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    limits: LimitsRequest,
    #[serde(default)]
    idle_ttl_s: Option<f64>,
    #[serde(default)]
    max_lifetime_s: Option<f64>,
    /// `persistent` (default: state carries over between `exec` calls) or `reference` (every
    /// `exec` starts from the state at creation, as the reference's `docker exec bash -c`).
    #[serde(default)]
    shell: Option<String>,
}

/// Decode `{path: base64}` into guest paths and bytes.
pub(super) fn decode_files(
    map: &BTreeMap<String, String>,
) -> Result<Vec<(GuestPath, Vec<u8>)>, ApiError> {
    map.iter()
        .map(|(p, b64)| {
            let path = GuestPath::parse(p)?;
            let data = base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .map_err(|e| ApiError::bad_request(format!("file {p:?} is not base64: {e}")))?;
            Ok((path, data))
        })
        .collect()
}

fn seconds(name: &str, v: Option<f64>, server: Duration) -> Result<Duration, ApiError> {
    match v {
        None => Ok(server),
        Some(s) if s.is_finite() && s > 0.0 => Ok(server.min(Duration::from_secs_f64(s.min(1e9)))),
        Some(s) => Err(ApiError::bad_request(format!(
            "{name} must be a positive number of seconds, not {s}"
        ))),
    }
}

pub(super) async fn create(
    State(srv): State<Arc<Server>>,
    JsonBody(req): JsonBody<CreateRequest>,
) -> Result<Response, ApiError> {
    if let Some(k) = &req.key
        && (k.is_empty() || k.len() > MAX_KEY)
    {
        return Err(ApiError::bad_request(format!(
            "key must be 1 to {MAX_KEY} bytes"
        )));
    }
    for k in req.env.keys() {
        let ok = !k.is_empty()
            && !k.starts_with(|c: char| c.is_ascii_digit())
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok {
            return Err(ApiError::bad_request(format!(
                "env name {k:?} is not a shell variable name"
            )));
        }
    }
    let fresh_shell = match req.shell.as_deref() {
        None | Some("persistent") => false,
        Some("reference") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "shell must be \"persistent\" or \"reference\", not {other:?}"
            )));
        }
    };
    let spec = NewSession {
        key: req.key,
        fresh_shell,
        files: decode_files(&req.files)?,
        env: req.env.into_iter().collect(),
        settings: req.limits.tighten(&srv.config.sandbox)?,
        idle_ttl: seconds("idle_ttl_s", req.idle_ttl_s, srv.config.idle_ttl)?,
        max_lifetime: seconds(
            "max_lifetime_s",
            req.max_lifetime_s,
            srv.config.max_lifetime,
        )?,
    };
    srv.check_open()?;
    let (s, made) = srv.sessions.get_or_create(&srv.runtime, spec).await?;
    let status = if made {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(s.info(Some(made)))).into_response())
}

pub(super) async fn list(State(srv): State<Arc<Server>>) -> Json<Value> {
    let all: Vec<_> = srv.sessions.all().iter().map(|s| s.info(None)).collect();
    Json(json!({ "sandboxes": all }))
}

pub(super) async fn info(
    State(srv): State<Arc<Server>>,
    Path(id): Path<String>,
) -> Result<Json<super::sessions::Info>, ApiError> {
    Ok(Json(srv.sessions.get(&id)?.info(None)))
}

pub(super) async fn delete(
    State(srv): State<Arc<Server>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    if srv.sessions.remove(&id) {
        Ok(Json(json!({"deleted": 1})))
    } else {
        Err(ApiError::not_found(format!("no sandbox {id:?}")))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BulkDelete {
    #[serde(default)]
    ids: Vec<String>,
    #[serde(default)]
    keys: Vec<String>,
    #[serde(default)]
    all: bool,
}

pub(super) async fn delete_many(
    State(srv): State<Arc<Server>>,
    JsonBody(req): JsonBody<BulkDelete>,
) -> Json<Value> {
    let mut ids = req.ids;
    if req.all {
        ids.extend(srv.sessions.all().iter().map(|s| s.id.clone()));
    }
    for k in &req.keys {
        if let Some(s) = srv.sessions.by_key(k) {
            ids.push(s.id.clone());
        }
    }
    ids.sort();
    ids.dedup();
    let n = ids.iter().filter(|id| srv.sessions.remove(id)).count();
    Json(json!({ "deleted": n }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExecRequest {
    command: String,
    #[serde(default)]
    timeout_s: Option<f64>,
    #[serde(default)]
    stream: bool,
}

fn shell_result(r: &CommandResult, cwd: String) -> Value {
    let timed_out = r.outcome == CommandOutcome::Timeout;
    json!({
        "exit_code": if timed_out { -1 } else { r.exit_code },
        "stdout": r.stdout,
        "stderr": r.stderr,
        "timed_out": timed_out,
        "duration_s": r.duration.as_secs_f64(),
        "cwd": cwd,
    })
}

/// NDJSON lines, one object each.
fn ndjson(rx: tokio::sync::mpsc::Receiver<Value>) -> Response {
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        let v = rx.recv().await?;
        let mut line = serde_json::to_vec(&v).unwrap_or_default();
        line.push(b'\n');
        Some((
            Ok::<_, std::convert::Infallible>(bytes::Bytes::from(line)),
            rx,
        ))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(stream),
    )
        .into_response()
}

/// Send heartbeats every 5 s while the command's senders live (the stream ends with them).
fn heartbeats(tx: &tokio::sync::mpsc::Sender<Value>) {
    let weak = tx.downgrade();
    tokio::spawn(async move {
        let mut t = tokio::time::interval(Duration::from_secs(5));
        t.tick().await;
        loop {
            t.tick().await;
            let Some(tx) = weak.upgrade() else { return };
            if tx.send(json!({"type": "heartbeat"})).await.is_err() {
                return;
            }
        }
    });
}

pub(super) async fn exec(
    State(srv): State<Arc<Server>>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<ExecRequest>,
) -> Result<Response, ApiError> {
    let session = srv.sessions.get(&id)?;
    let limit = match req.timeout_s {
        None => None,
        Some(_) => Some(seconds(
            "timeout_s",
            req.timeout_s,
            session.settings.command_timeout,
        )?),
    };
    let call = srv.admit().await?;
    if !req.stream {
        let mut tools = session.tools.lock().await;
        let shell = tools.shell_mut();
        // If the client goes away the call is interrupted, not aborted; until it has ended it
        // keeps its admission slot and keeps the session from being reaped.
        let hold: Box<dyn std::any::Any + Send> = Box::new((call, session.again()));
        let r = shell
            .exec_holding(&req.command, None, limit, Some(hold))
            .await
            .map_err(|e| ApiError::internal(format!("the sandbox failed: {e}")))?;
        let v = shell_result(&r, shell.cwd());
        return Ok(Json(v).into_response());
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<Value>(256);
    heartbeats(&tx);
    tokio::spawn(async move {
        let mut tools = session.tools.lock().await;
        let shell = tools.shell_mut();
        // As without streaming: a reader that goes away interrupts the call, which keeps its
        // admission slot and its session busy until it has really ended.
        let hold: Box<dyn std::any::Any + Send> = Box::new((call, session.again()));
        let out = tx.clone();
        let sink: crate::shell::OutputSink = Box::new(move |o, e| {
            for (kind, data) in [("stdout", o), ("stderr", e)] {
                if !data.is_empty() {
                    // A slow reader loses pieces rather than stalling the shell.
                    let _ =
                        out.try_send(json!({"type": kind, "data": String::from_utf8_lossy(data)}));
                }
            }
        });
        let run = shell.exec_holding(&req.command, Some(sink), limit, Some(hold));
        let outcome = tokio::select! {
            r = run => r,
            // Dropping `run` interrupts the call.
            () = tx.closed() => return,
        };
        let last = match outcome {
            Ok(r) => {
                let mut v = shell_result(&r, shell.cwd());
                if let Some(o) = v.as_object_mut() {
                    o.remove("stdout");
                    o.remove("stderr");
                    o.insert("type".into(), json!("exit"));
                }
                v
            }
            Err(e) => {
                json!({"type": "error", "error": {"code": "internal", "message": format!("the sandbox failed: {e}"), "retryable": false}})
            }
        };
        let _ = tx.send(last).await;
    });
    Ok(ndjson(rx))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PythonRequest {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    args: Option<Vec<String>>,
    #[serde(default)]
    stdin: Option<String>,
    #[serde(default)]
    timeout_s: Option<f64>,
    #[serde(default)]
    stream: bool,
}

/// A Python run's answer in the API's shape.
pub(super) fn python_result(r: &crate::runtime::RunResult, cwd: &str) -> Value {
    let timed_out = r.outcome == crate::runtime::Outcome::Deadline;
    json!({
        "exit_code": if timed_out { -1 } else { r.exit_code },
        "stdout": r.stdout_text(),
        "stderr": r.stderr_text(),
        "timed_out": timed_out,
        "duration_s": r.duration.as_secs_f64(),
        "cwd": cwd,
    })
}

pub(super) async fn python(
    State(srv): State<Arc<Server>>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<PythonRequest>,
) -> Result<Response, ApiError> {
    let session = srv.sessions.get(&id)?;
    let args = match (req.code, req.args) {
        (Some(code), None) => vec!["-c".to_string(), code],
        (None, Some(args)) => args,
        _ => {
            return Err(ApiError::bad_request(
                "give either `code` (run as python3 -c CODE) or `args` (python3 ARGS...)",
            ));
        }
    };
    let invocation = match Invocation::parse(&args) {
        Ok(i) => i,
        Err(usage) => return Err(ApiError::bad_request(usage.to_string())),
    };
    let mut limits = session.sandbox.limits().clone();
    limits.timeout = seconds("timeout_s", req.timeout_s, limits.timeout)?;
    let call = srv.admit().await?;
    let sb = &session.sandbox;
    let r = sb
        .run_with_processes(
            invocation,
            req.stdin.unwrap_or_default().as_bytes(),
            sb.env(),
            sb.cwd(),
            limits,
            Some(crate::shell::guest_commands(sb)),
        )
        .await
        .map_err(|e| ApiError::internal(format!("the sandbox failed: {e}")))?;
    drop(call);
    let v = python_result(&r, sb.cwd());
    if !req.stream {
        return Ok(Json(v).into_response());
    }
    // Python output arrives when the call ends: the stream holds it, then the exit line.
    let (tx, rx) = tokio::sync::mpsc::channel::<Value>(4);
    let mut exit = v;
    let mut lines = Vec::new();
    if let Some(o) = exit.as_object_mut() {
        for kind in ["stdout", "stderr"] {
            if let Some(Value::String(s)) = o.remove(kind)
                && !s.is_empty()
            {
                lines.push(json!({"type": kind, "data": s}));
            }
        }
        o.insert("type".into(), json!("exit"));
    }
    lines.push(exit);
    tokio::spawn(async move {
        for l in lines {
            if tx.send(l).await.is_err() {
                return;
            }
        }
    });
    Ok(ndjson(rx))
}

#[derive(Debug, Deserialize)]
pub(super) struct PathQuery {
    #[serde(default)]
    path: Option<String>,
}

impl PathQuery {
    fn guest(&self, default: &str) -> Result<GuestPath, ApiError> {
        GuestPath::parse(self.path.as_deref().unwrap_or(default))
    }
}

pub(super) async fn put_file(
    State(srv): State<Arc<Server>>,
    Path(id): Path<String>,
    QueryArgs(q): QueryArgs<PathQuery>,
    RawBody(body): RawBody,
) -> Result<Json<Value>, ApiError> {
    let session = srv.sessions.get(&id)?;
    let path = q.guest("")?;
    let size = body.len();
    let guest = path.guest();
    let sb = session.sandbox.clone();
    blocking(move || files::write_file(&sb, &path, &body)).await?;
    Ok(Json(json!({"path": guest, "size": size})))
}

pub(super) async fn get_file(
    State(srv): State<Arc<Server>>,
    Path(id): Path<String>,
    QueryArgs(q): QueryArgs<PathQuery>,
) -> Result<Response, ApiError> {
    let session = srv.sessions.get(&id)?;
    let path = q.guest("")?;
    let sb = session.sandbox.clone();
    let limit = srv.config.max_body_bytes;
    let data = blocking(move || files::read_file(&sb, &path, limit)).await?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], data).into_response())
}

pub(super) async fn list_dir(
    State(srv): State<Arc<Server>>,
    Path(id): Path<String>,
    QueryArgs(q): QueryArgs<PathQuery>,
) -> Result<Json<Value>, ApiError> {
    let session = srv.sessions.get(&id)?;
    let path = q.guest(".")?;
    let guest = path.guest();
    let sb = session.sandbox.clone();
    let entries = blocking(move || files::list(&sb, &path)).await?;
    Ok(Json(json!({"path": guest, "entries": entries})))
}

pub(super) async fn get_archive(
    State(srv): State<Arc<Server>>,
    Path(id): Path<String>,
    QueryArgs(q): QueryArgs<PathQuery>,
) -> Result<Response, ApiError> {
    let session = srv.sessions.get(&id)?;
    let path = q.guest(".")?;
    let sb = session.sandbox.clone();
    let limit = srv.config.max_body_bytes;
    let data = blocking(move || files::tar_folder(&sb, &path, limit)).await?;
    Ok(([(header::CONTENT_TYPE, "application/x-tar")], data).into_response())
}

pub(super) async fn put_archive(
    State(srv): State<Arc<Server>>,
    Path(id): Path<String>,
    QueryArgs(q): QueryArgs<PathQuery>,
    RawBody(body): RawBody,
) -> Result<Json<files::Extracted>, ApiError> {
    let session = srv.sessions.get(&id)?;
    let path = q.guest(".")?;
    let sb = session.sandbox.clone();
    Ok(Json(
        blocking(move || files::untar(&sb, &path, &body)).await?,
    ))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ToolRequest {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// A tool call's arguments as the JSON text a model would send.
pub(super) fn arguments_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(super) async fn tool(
    State(srv): State<Arc<Server>>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<ToolRequest>,
) -> Result<Json<Value>, ApiError> {
    let session = srv.sessions.get(&id)?;
    let call = srv.admit().await?;
    let mut tools = session.tools.lock().await;
    let out = tools
        .call(&req.name, &arguments_text(&req.arguments))
        .await
        .map_err(|e| ApiError::internal(format!("the sandbox failed: {e}")))?;
    drop(call);
    Ok(Json(json!({
        "output": out.observation,
        "done": out.submitted,
        "exit_code": out.exit_code,
        "error": out.error,
    })))
}

/// File work on the sandbox threads.
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    executor::blocking(f)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
}
