//! The viewer's HTTP server: the page, and JSON under `/api/` (`summary`, `rows`, `episode`,
//! `file`). Loopback by default; off loopback a token is required (checked as `serve` does).
//! Every request's `Host` must name the address served, so a page on another site cannot
//! reach the viewer through a DNS name it points at 127.0.0.1 (DNS rebinding).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use serde_json::json;

use super::{Runs, ViewError, page, query::RowQuery};

/// How the viewer serves.
#[derive(Debug, Clone)]
pub struct ViewConfig {
    /// The address actually bound (with the real port when 0 was asked for).
    pub addr: SocketAddr,
    /// Token every request must carry (`Authorization: Bearer T` or `?token=T`); required
    /// when `addr` is not loopback. Default: none.
    pub token: Option<String>,
}

struct Viewer {
    runs: Runs,
    config: ViewConfig,
    page: String,
    csp: String,
}

/// The router over `runs`.
pub fn router(runs: Runs, config: ViewConfig) -> Router {
    let viewer = Arc::new(Viewer {
        runs,
        config,
        page: page::render(None),
        csp: page::csp(),
    });
    Router::new()
        .route("/", get(index))
        .route("/api/summary", get(summary))
        .route("/api/rows", get(rows))
        .route("/api/episode", get(episode))
        .route("/api/file", get(file))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such page") })
        .layer(middleware::from_fn_with_state(viewer.clone(), guard))
        .with_state(viewer)
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, axum::Json(json!({"error": message.into()}))).into_response()
}

impl IntoResponse for ViewError {
    fn into_response(self) -> Response {
        let status = match &self {
            ViewError::BadPath(_) => StatusCode::BAD_REQUEST,
            ViewError::NoRow(_) | ViewError::NoRun(_) | ViewError::NotFound(_) => {
                StatusCode::NOT_FOUND
            }
            ViewError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        error(status, self.to_string())
    }
}

/// Whether `host` (a `Host` header) names the address served: a loopback name or the bound
/// IP, with the bound port. A server on an unspecified address (0.0.0.0, with a token) is
/// reached by names it cannot know, so there any host passes.
pub fn host_allowed(host: &str, addr: SocketAddr) -> bool {
    if addr.ip().is_unspecified() {
        return true;
    }
    let Some((name, port)) = host.rsplit_once(':') else {
        return false;
    };
    if port.parse::<u16>().ok() != Some(addr.port()) {
        return false;
    }
    let name = name.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = name.parse::<std::net::IpAddr>() {
        return ip == addr.ip() || (addr.ip().is_loopback() && ip.is_loopback());
    }
    addr.ip().is_loopback() && name.eq_ignore_ascii_case("localhost")
}

fn token_given(headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    if let Some(v) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        && let Some(t) = v
            .strip_prefix("Bearer ")
            .or_else(|| v.strip_prefix("bearer "))
    {
        return Some(t.trim().to_string());
    }
    query?.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k == "token").then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                match s
                    .get(i + 1..i + 3)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(v) => {
                        out.push(v);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Constant-time comparison.
fn same(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        diff |= usize::from(x ^ b.get(i % b.len().max(1)).copied().unwrap_or(0));
    }
    diff == 0
}

async fn guard(State(v): State<Arc<Viewer>>, req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()))
        .unwrap_or("");
    if !host_allowed(host, v.config.addr) {
        return error(
            StatusCode::FORBIDDEN,
            format!(
                "refused Host {host:?}: this viewer answers only to {} (a guard against DNS \
                 rebinding); open http://{}/",
                v.config.addr, v.config.addr
            ),
        );
    }
    if let Some(token) = &v.config.token {
        let given = token_given(req.headers(), req.uri().query());
        if !given.is_some_and(|g| same(g.as_bytes(), token.as_bytes())) {
            return error(
                StatusCode::UNAUTHORIZED,
                "this viewer needs its token: open the page as /?token=T (the page sends it on)",
            );
        }
    }
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    resp
}

async fn index(State(v): State<Arc<Viewer>>) -> Response {
    let mut resp = (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        v.page.clone(),
    )
        .into_response();
    if let Ok(csp) = HeaderValue::from_str(&v.csp) {
        resp.headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    resp
}

/// The JSON endpoints read files: off the async threads.
async fn blocking<T: Send + 'static>(
    v: &Arc<Viewer>,
    f: impl FnOnce(&Runs) -> T + Send + 'static,
) -> Result<T, Response> {
    let v = v.clone();
    tokio::task::spawn_blocking(move || f(&v.runs))
        .await
        .map_err(|e| error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

async fn summary(State(v): State<Arc<Viewer>>) -> Response {
    match blocking(&v, |runs| runs.summary()).await {
        Ok(s) => axum::Json(s).into_response(),
        Err(r) => r,
    }
}

async fn rows(
    State(v): State<Arc<Viewer>>,
    q: Result<Query<RowQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(q)) = q else {
        return error(StatusCode::BAD_REQUEST, "bad rows query (see docs/view.md)");
    };
    match blocking(&v, move |runs| runs.rows(&q)).await {
        Ok(p) => axum::Json(p).into_response(),
        Err(r) => r,
    }
}

#[derive(Debug, Deserialize)]
struct RowRef {
    #[serde(default)]
    run: usize,
    key: String,
    #[serde(default)]
    path: Option<String>,
}

async fn episode(
    State(v): State<Arc<Viewer>>,
    q: Result<Query<RowRef>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(r)) = q else {
        return error(StatusCode::BAD_REQUEST, "give run and key");
    };
    match blocking(&v, move |runs| runs.episode(r.run, &r.key)).await {
        Ok(Ok(e)) => axum::Json(e).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(r) => r,
    }
}

async fn file(
    State(v): State<Arc<Viewer>>,
    q: Result<Query<RowRef>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(r)) = q else {
        return error(StatusCode::BAD_REQUEST, "give run, key and path");
    };
    let Some(path) = r.path.clone() else {
        return error(StatusCode::BAD_REQUEST, "give path");
    };
    let p = path.clone();
    let read = blocking(&v, move |runs| runs.get(r.run)?.row_file(&r.key, &p)).await;
    match read {
        Ok(Ok(bytes)) => {
            let mut resp =
                ([(header::CONTENT_TYPE, page::content_type(&path))], bytes).into_response();
            // Opened on its own, a file can never run as part of the viewer.
            resp.headers_mut().insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static("sandbox; default-src 'none'; img-src 'self'"),
            );
            resp
        }
        Ok(Err(e)) => e.into_response(),
        Err(r) => r,
    }
}

/// Serve until `shutdown` resolves.
///
/// # Errors
/// The listener's I/O error.
pub async fn serve(
    runs: Runs,
    listener: tokio::net::TcpListener,
    token: Option<String>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let addr = listener.local_addr()?;
    let app = router(runs, ViewConfig { addr, token });
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_must_name_the_address_served() {
        let lo: SocketAddr = "127.0.0.1:8123".parse().unwrap();
        for ok in [
            "127.0.0.1:8123",
            "localhost:8123",
            "LOCALHOST:8123",
            "[::1]:8123",
        ] {
            assert!(host_allowed(ok, lo), "{ok}");
        }
        for bad in [
            "evil.example:8123",
            "127.0.0.1:80",
            "127.0.0.1",
            "",
            "localhost.evil:8123",
        ] {
            assert!(!host_allowed(bad, lo), "{bad}");
        }
        let any: SocketAddr = "0.0.0.0:9000".parse().unwrap();
        assert!(host_allowed("box.internal:9000", any));
    }

    #[test]
    fn tokens_come_from_the_header_or_the_query() {
        let mut h = HeaderMap::new();
        assert_eq!(token_given(&h, Some("a=1&token=s%20t")), Some("s t".into()));
        h.insert(header::AUTHORIZATION, "Bearer abc".parse().unwrap());
        assert_eq!(token_given(&h, None), Some("abc".into()));
        assert!(same(b"abc", b"abc") && !same(b"abc", b"abd") && !same(b"abc", b"ab"));
    }
}
