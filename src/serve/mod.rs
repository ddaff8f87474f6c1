//! `serve`: our sandboxes behind HTTP for RL trainers, reward workers and agent frameworks.
//! SandboxFusion's `/run_code` and `/run_jupyter` (fresh sandbox per call), a session API
//! (`/v1/sandboxes`: persistent shell, files, tar, tool calls, TTL reaping), episodes as a
//! service (`/v1/episodes`), and operations: bearer token, admission control (429 with
//! `Retry-After`), `/healthz`, Prometheus `/metrics`, graceful shutdown, an access log; and
//! MCP at `/mcp` (streamable HTTP; [`mcp`]).
//! The API is written down in `docs/serve.md`.

mod api;
mod episodes;
pub mod error;
pub mod files;
mod fusion;
pub mod mcp;
pub mod metrics;
pub mod sessions;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use crate::agent::SandboxSettings;
use crate::runtime::Runtime;
pub use error::ApiError;
use metrics::Metrics;
use sessions::Sessions;

/// How the server runs. Defaults: no token, the default sandbox settings, 1,000 sessions,
/// 256 calls in flight (4,096 more waiting up to 30 s for a slot), 64 MiB bodies, 10 minutes idle TTL, 24 h lifetime, 30 s grace,
/// idle memory given back after 10 s without calls.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Bearer token every request but `/healthz` must carry; `None`: no auth (loopback only).
    pub token: Option<String>,
    /// The most any sandbox may do; requests can only tighten it.
    pub sandbox: SandboxSettings,
    /// Live sessions at most; over it, 429.
    pub max_sandboxes: usize,
    /// Sandbox calls running at once at most; more wait for a slot (see `queue_wait`).
    pub max_inflight: usize,
    /// Calls that may wait for a slot at once; more are refused with 429.
    pub max_queued: usize,
    /// How long a call waits for a slot before it is refused with 429.
    pub queue_wait: Duration,
    /// Largest request body (and file or tar answered), bytes; over it, 413.
    pub max_body_bytes: usize,
    /// Default and longest idle time of a session.
    pub idle_ttl: Duration,
    /// Default and longest lifetime of a session.
    pub max_lifetime: Duration,
    /// How long calls in flight may finish after a shutdown signal.
    pub grace: Duration,
    /// One line per request on stderr.
    pub access_log: bool,
    /// After this long without a sandbox call, give back the memory idle instance slots
    /// keep for fast restarts (`None`: keep it).
    pub release_idle_after: Option<Duration>,
    /// Open client connections at most; more wait in the kernel's accept queue until one
    /// closes (`--max-connections`), so idle or slow clients cannot use up the descriptors.
    pub max_connections: usize,
    /// How long a client may take to send a request's headers (`--header-timeout`); slower
    /// ones are disconnected (a slowloris holds connections open this way).
    pub header_timeout: Duration,
    /// Whether every endpoint (not only `/mcp`) accepts any `Host` header; otherwise only
    /// loopback names (`localhost`, `127.0.0.1`, `::1`), a guard against DNS rebinding. Set
    /// it when serving off loopback (the `serve` command does).
    pub mcp_any_host: bool,
    /// Model endpoints `/v1/episodes` may call besides loopback ones: `host` or `host:port`
    /// entries (`--model-host`). Anything else is refused: otherwise a client makes the
    /// server send requests into the operator's network.
    pub model_hosts: Vec<String>,
    /// The `tools` `/v1/episodes` sends to the model: the reference's, read from its package
    /// (the `serve` command passes them). `None`: our own definitions.
    pub episode_tools: Option<serde_json::Value>,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            token: None,
            sandbox: SandboxSettings::default(),
            max_sandboxes: 1000,
            max_inflight: 256,
            max_queued: 4096,
            queue_wait: Duration::from_secs(30),
            max_body_bytes: 64 << 20,
            idle_ttl: Duration::from_secs(600),
            max_lifetime: Duration::from_secs(24 * 3600),
            grace: Duration::from_secs(30),
            access_log: true,
            release_idle_after: Some(Duration::from_secs(10)),
            max_connections: 4096,
            header_timeout: Duration::from_secs(10),
            mcp_any_host: false,
            model_hosts: Vec::new(),
            episode_tools: None,
        }
    }
}

/// The server's shared state.
#[derive(Debug)]
pub struct Server {
    /// The Python runtime every sandbox runs on.
    pub runtime: Arc<Runtime>,
    /// Settings.
    pub config: ServeConfig,
    /// Live sessions.
    pub sessions: Sessions,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    inflight: Arc<tokio::sync::Semaphore>,
    queued: AtomicUsize,
    closing: AtomicBool,
    /// Cancelled when shutdown begins: ends `/mcp`'s sessions and streams.
    mcp_cancel: tokio_util::sync::CancellationToken,
}

/// A sandbox call admitted under `--max-inflight`; counted and timed until dropped.
#[derive(Debug)]
pub struct Call {
    _permit: tokio::sync::OwnedSemaphorePermit,
    metrics: Arc<Metrics>,
    started: Instant,
}

impl Drop for Call {
    fn drop(&mut self) {
        self.metrics.inflight.fetch_sub(1, Ordering::Relaxed);
        self.metrics.observe_call(self.started.elapsed());
    }
}

impl Server {
    /// A server over `runtime`.
    pub fn new(runtime: Arc<Runtime>, config: ServeConfig) -> Arc<Server> {
        let metrics = Arc::new(Metrics::default());
        Arc::new(Server {
            runtime,
            sessions: Sessions::new(config.max_sandboxes, metrics.clone()),
            inflight: Arc::new(tokio::sync::Semaphore::new(config.max_inflight.max(1))),
            metrics,
            config,
            queued: AtomicUsize::new(0),
            closing: AtomicBool::new(false),
            mcp_cancel: tokio_util::sync::CancellationToken::new(),
        })
    }

    /// Admit one sandbox call: a free slot under `--max-inflight` now, or the first to free up
    /// within [`ServeConfig::queue_wait`]; past that, or with [`ServeConfig::max_queued`]
    /// calls already waiting, 429 (503 while shutting down).
    ///
    /// # Errors
    /// [`ApiError`] 429 or 503.
    pub async fn admit(&self) -> Result<Call, ApiError> {
        self.check_open()?;
        let permit = match self.inflight.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                let waiting = self.queued.fetch_add(1, Ordering::Relaxed);
                let got = if waiting < self.config.max_queued {
                    tokio::time::timeout(
                        self.config.queue_wait,
                        self.inflight.clone().acquire_owned(),
                    )
                    .await
                    .ok()
                    .and_then(Result::ok)
                } else {
                    None
                };
                self.queued.fetch_sub(1, Ordering::Relaxed);
                got.ok_or_else(|| {
                    self.metrics.rejected.fetch_add(1, Ordering::Relaxed);
                    ApiError::too_many(
                        format!(
                            "all {} call slots are busy (--max-inflight) and {} calls are waiting \
                             (--max-queued, --queue-wait); retry shortly",
                            self.config.max_inflight,
                            self.queued.load(Ordering::Relaxed)
                        ),
                        1,
                    )
                })?
            }
        };
        self.metrics.inflight.fetch_add(1, Ordering::Relaxed);
        Ok(Call {
            _permit: permit,
            metrics: self.metrics.clone(),
            started: Instant::now(),
        })
    }

    /// 503 once shutdown began.
    ///
    /// # Errors
    /// [`ApiError::unavailable`].
    pub fn check_open(&self) -> Result<(), ApiError> {
        if self.closing.load(Ordering::Relaxed) {
            return Err(ApiError::unavailable(
                "the server is shutting down; retry against another replica",
            ));
        }
        Ok(())
    }

    /// Every route, with auth, the body cap and the access log.
    pub fn router(self: &Arc<Self>) -> Router {
        let api = Router::new()
            .route("/metrics", get(metrics_text))
            .route("/v1/ping", get(fusion::ping))
            .route("/run_code", post(fusion::run_code))
            .route("/run_jupyter", post(fusion::run_jupyter))
            .route("/v1/sandboxes", post(api::create).get(api::list))
            .route("/v1/sandboxes/delete", post(api::delete_many))
            .route("/v1/sandboxes/{id}", get(api::info).delete(api::delete))
            .route("/v1/sandboxes/{id}/exec", post(api::exec))
            .route("/v1/sandboxes/{id}/python", post(api::python))
            .route(
                "/v1/sandboxes/{id}/files",
                get(api::get_file).put(api::put_file),
            )
            .route("/v1/sandboxes/{id}/list", get(api::list_dir))
            .route(
                "/v1/sandboxes/{id}/archive",
                get(api::get_archive).put(api::put_archive),
            )
            .route("/v1/sandboxes/{id}/tools", post(api::tool))
            .route("/v1/episodes", post(episodes::run))
            .nest_service(
                "/mcp",
                mcp::http_service(self, self.mcp_cancel.child_token()),
            )
            .fallback(not_found)
            .layer(middleware::from_fn_with_state(self.clone(), auth));
        Router::new()
            .route("/healthz", get(|| async { "ok" }))
            .merge(api)
            .layer(DefaultBodyLimit::max(self.config.max_body_bytes))
            .layer(middleware::from_fn_with_state(self.clone(), access))
            .with_state(self.clone())
    }

    /// Every second until the server is dropped: delete expired sessions, and once no call
    /// has run for [`ServeConfig::release_idle_after`], give back the memory idle slots keep.
    pub fn start_reaper(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut t = tokio::time::interval(Duration::from_secs(1));
            loop {
                t.tick().await;
                let Some(srv) = weak.upgrade() else { return };
                srv.sessions.reap();
                if let Some(idle) = srv.config.release_idle_after {
                    srv.release_idle_memory(idle).await;
                }
            }
        });
    }

    async fn release_idle_memory(&self, idle: Duration) {
        let rt = self.runtime.clone();
        // madvise over many slots and malloc_trim take milliseconds: off the async threads.
        let Ok(Some(bytes)) =
            tokio::task::spawn_blocking(move || rt.release_idle_memory(idle)).await
        else {
            return;
        };
        if bytes > 0 {
            self.metrics.releases.fetch_add(1, Ordering::Relaxed);
            self.metrics
                .released_bytes
                .fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// Serve on `listener` until `shutdown` resolves; then stop accepting, let calls in flight
    /// finish for up to [`ServeConfig::grace`], and return.
    ///
    /// # Errors
    /// The listener's I/O error.
    pub async fn serve(
        self: &Arc<Self>,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        self.start_reaper();
        let (tx, rx) = tokio::sync::watch::channel(false);
        let me = self.clone();
        tokio::spawn(async move {
            shutdown.await;
            me.closing.store(true, Ordering::Relaxed);
            // Open MCP streams would hold the graceful shutdown until the grace ran out.
            me.mcp_cancel.cancel();
            let _ = tx.send(true);
        });
        let server = self.accept_loop(listener, rx.clone());
        let grace = self.config.grace;
        let mut deadline = rx;
        tokio::select! {
            r = server => r,
            _ = async move {
                let _ = deadline.wait_for(|v| *v).await;
                tokio::time::sleep(grace).await;
            } => Ok(()),
        }
    }

    /// Accept connections until `stop` turns true, at most [`ServeConfig::max_connections`]
    /// open at once, each with [`ServeConfig::header_timeout`] to send its headers; then let
    /// the open ones finish their requests.
    async fn accept_loop(
        self: &Arc<Self>,
        listener: tokio::net::TcpListener,
        mut stop: tokio::sync::watch::Receiver<bool>,
    ) -> std::io::Result<()> {
        use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
        let router = self.router();
        let open = Arc::new(tokio::sync::Semaphore::new(
            self.config.max_connections.max(1),
        ));
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(self.config.header_timeout);
        builder
            .http2()
            .timer(TokioTimer::new())
            .keep_alive_interval(None);
        loop {
            let permit = tokio::select! {
                p = open.clone().acquire_owned() => match p {
                    Ok(p) => p,
                    Err(_) => break,
                },
                () = stopped(&mut stop) => break,
            };
            let (stream, peer) = tokio::select! {
                a = listener.accept() => match a {
                    Ok(a) => a,
                    // Out of descriptors or a connection reset before accept: go on.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                },
                () = stopped(&mut stop) => break,
            };
            let _ = stream.set_nodelay(true);
            let router = router.clone();
            let watcher = graceful.watcher();
            let builder = builder.clone();
            let header_timeout = self.config.header_timeout;
            let service = hyper::service::service_fn(
                move |mut req: axum::extract::Request<hyper::body::Incoming>| {
                    req.extensions_mut()
                        .insert(axum::extract::ConnectInfo(peer));
                    let router = router.clone();
                    async move {
                        use tower::ServiceExt as _;
                        router.oneshot(req.map(axum::body::Body::new)).await
                    }
                },
            );
            tokio::spawn(async move {
                // A connection that sends nothing is closed after the header timeout too
                // (hyper's own timer starts only once it knows the protocol).
                let mut first = [0u8; 1];
                match tokio::time::timeout(header_timeout, stream.peek(&mut first)).await {
                    Ok(Ok(n)) if n > 0 => {}
                    _ => return,
                }
                let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
                let _ = watcher.watch(conn.into_owned()).await;
                drop(permit);
            });
        }
        drop(listener);
        graceful.shutdown().await;
        Ok(())
    }
}

/// Resolves once `stop` is true (or its sender is gone).
async fn stopped(stop: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = stop.wait_for(|v| *v).await;
}

/// Constant-time comparison (the time does not depend on where the bytes differ).
fn same(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        let y = b.get(i % b.len().max(1)).copied().unwrap_or(0);
        diff |= usize::from(x ^ y);
    }
    diff == 0
}

/// Whether a request carries the token: `Authorization: Bearer T`, or `Basic` with T as the
/// password (what HTTP clients send for a URL such as `http://:T@host:port`, which lets
/// clients that cannot set headers, such as the `sandbox-fusion` package, carry it).
fn authorized(token: &str, headers: &HeaderMap) -> bool {
    let Some(v) = headers.get(header::AUTHORIZATION) else {
        return false;
    };
    if token.is_empty() {
        return false;
    }
    let v = v.as_bytes().trim_ascii();
    let Some(space) = v.iter().position(|b| *b == b' ') else {
        return false;
    };
    let (scheme, given) = (&v[..space], v[space + 1..].trim_ascii());
    if scheme.eq_ignore_ascii_case(b"bearer") {
        return same(given, token.as_bytes());
    }
    if scheme.eq_ignore_ascii_case(b"basic") {
        use base64::Engine as _;
        let Ok(pair) = base64::engine::general_purpose::STANDARD.decode(given) else {
            return false;
        };
        let Some(colon) = pair.iter().position(|b| *b == b':') else {
            return false;
        };
        return same(&pair[colon + 1..], token.as_bytes());
    }
    false
}

/// Whether `host` (`name`, `name:port`, `[v6]:port`) names this machine's loopback.
fn loopback_name(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(n, _)| n),
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether a request's `Host` (or HTTP/2 `:authority`) names this machine's loopback: a web
/// page that rebinds its own name to 127.0.0.1 sends its own name, and is refused. A request
/// that names no host at all comes from no browser, and passes.
fn loopback_host(req: &Request) -> bool {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .or_else(|| req.uri().authority().map(|a| a.as_str().to_string()));
    host.is_none_or(|h| loopback_name(&h))
}

/// Whether a request's `Origin` is absent (no browser sent it) or a loopback page's: a page on
/// another site that reaches a loopback server through the user's browser names its own
/// origin (or `null`), and is refused.
fn loopback_origin(req: &Request) -> bool {
    let Some(origin) = req.headers().get(header::ORIGIN) else {
        return true;
    };
    let Some(rest) = origin.to_str().ok().and_then(|o| {
        o.strip_prefix("http://")
            .or_else(|| o.strip_prefix("https://"))
    }) else {
        return false;
    };
    loopback_name(rest.split('/').next().unwrap_or_default())
}

async fn auth(State(srv): State<Arc<Server>>, req: Request, next: Next) -> Response {
    if !srv.config.mcp_any_host && !loopback_origin(&req) {
        return ApiError::forbidden(
            "this server answers web pages only from a loopback origin; serve on another \
             address with `--bind` to accept others",
        )
        .into_response();
    }
    if !srv.config.mcp_any_host && !loopback_host(&req) {
        return ApiError::forbidden(
            "this server answers only requests addressed to a loopback name (localhost, \
             127.0.0.1, [::1]); serve on another address with `--bind` to accept others",
        )
        .into_response();
    }
    if let Some(token) = &srv.config.token
        && !authorized(token, req.headers())
    {
        return ApiError::unauthorized().into_response();
    }
    next.run(req).await
}

async fn access(State(srv): State<Arc<Server>>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let peer = req
        .extensions()
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|c| c.0.to_string())
        .unwrap_or_default();
    let resp = next.run(req).await;
    let status = resp.status().as_u16();
    srv.metrics.observe_status(status);
    if srv.config.access_log {
        eprintln!(
            "{} {peer} {method} {path} {status} {:.1}ms",
            chrono::Local::now().format("%Y-%m-%dT%H:%M:%S%.3f"),
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    resp
}

async fn metrics_text(State(srv): State<Arc<Server>>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        srv.metrics.render(
            srv.runtime.kept_bytes(),
            srv.runtime.instances_in_use() as u64,
        ) + &srv
            .config
            .sandbox
            .disk_pool
            .as_ref()
            .map_or_else(String::new, |p| {
                metrics::render_disk_budget(p.used(), p.max_bytes())
            }),
    )
        .into_response()
}

async fn not_found(req: Request) -> ApiError {
    ApiError::not_found(format!(
        "no route {} {}: see docs/serve.md for the API",
        req.method(),
        req.uri().path()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_check_is_exact() {
        let mut h = HeaderMap::new();
        assert!(!authorized("secret", &h));
        h.insert(header::AUTHORIZATION, "Bearer secret".parse().unwrap());
        assert!(authorized("secret", &h));
        for wrong in [
            "Bearer secre",
            "Bearer secrets",
            "Bearer ",
            "Basic secret",
            // base64 of "secret" (no colon), ":secre", "secret:" and ":secret2"
            "Basic c2VjcmV0",
            "Basic OnNlY3Jl",
            "Basic c2VjcmV0Og==",
            "Basic OnNlY3JldDI=",
            "Basic !!!",
            "secret",
        ] {
            h.insert(header::AUTHORIZATION, wrong.parse().unwrap());
            assert!(!authorized("secret", &h), "{wrong}");
        }
        // base64 of ":secret" and "anyone:secret": the URL form http://:secret@host.
        for right in [
            "Basic OnNlY3JldA==",
            "basic YW55b25lOnNlY3JldA==",
            "BEARER secret",
        ] {
            h.insert(header::AUTHORIZATION, right.parse().unwrap());
            assert!(authorized("secret", &h), "{right}");
        }
        h.insert(header::AUTHORIZATION, "Bearer ".parse().unwrap());
        assert!(!authorized("", &h), "an empty token lets nobody in");
    }
}
