//! The server's error answers: `{"error": {"code", "message", "retryable"}}` with a status.
//! What the guest did wrong is never one of these (it is a 200 with a status); only a bad
//! request, a missing thing, admission and our own faults are.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answer.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Machine-readable code (`not_found`, `too_many_requests`, ...).
    pub code: &'static str,
    /// What went wrong and what to do.
    pub message: String,
    /// Whether the same request may succeed later.
    pub retryable: bool,
    /// Seconds for `Retry-After` (429 and 503).
    pub retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            retryable: false,
            retry_after: None,
        }
    }

    /// 400: the request is malformed or asks for something not allowed.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 401: no or a wrong bearer token.
    pub fn unauthorized() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing or wrong bearer token: send `Authorization: Bearer <token>`",
        )
    }

    /// 403: a request this server refuses whoever sends it (e.g. a `Host` it does not serve).
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 413: the body is larger than the server takes.
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!(
                "the request body is larger than this server takes ({} bytes; see --max-body-mb)",
                limit
            ),
        )
    }

    /// 429: over an admission limit; retry after `seconds`.
    pub fn too_many(message: impl Into<String>, seconds: u64) -> Self {
        ApiError {
            retryable: true,
            retry_after: Some(seconds),
            ..Self::new(StatusCode::TOO_MANY_REQUESTS, "too_many_requests", message)
        }
    }

    /// 503: shutting down.
    pub fn unavailable(message: impl Into<String>) -> Self {
        ApiError {
            retryable: true,
            retry_after: Some(1),
            ..Self::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message)
        }
    }

    /// 500: our fault. The host's folders in the message (the temporary folder that holds
    /// the sandboxes, the runtime's cache folder) are named by placeholders: a client
    /// learns what failed, not where the host keeps things.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            without_host_folders(&message.into()),
        )
    }
}

/// `text` with the host's temporary and cache folders replaced by `$TMPDIR` and `$CACHE`.
fn without_host_folders(text: &str) -> String {
    let mut out = text.to_string();
    let folders = [
        (Some(std::env::temp_dir()), "$TMPDIR"),
        (Some(crate::artifacts::cache_root(None)), "$CACHE"),
    ];
    for (folder, name) in folders {
        let Some(folder) = folder else { continue };
        let f = folder.to_string_lossy();
        let f = f.trim_end_matches('/');
        if f.len() > 1 {
            out = out.replace(f, name);
        }
    }
    out
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {
            "code": self.code,
            "message": self.message,
            "retryable": self.retryable,
        }});
        let mut resp = (self.status, axum::Json(body)).into_response();
        if let Some(s) = self.retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        resp
    }
}

impl From<axum::extract::rejection::JsonRejection> for ApiError {
    fn from(r: axum::extract::rejection::JsonRejection) -> Self {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return ApiError::new(r.status(), "payload_too_large", r.body_text());
        }
        ApiError::bad_request(format!("bad JSON body: {}", r.body_text()))
    }
}

impl From<axum::extract::rejection::BytesRejection> for ApiError {
    fn from(r: axum::extract::rejection::BytesRejection) -> Self {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return ApiError::new(r.status(), "payload_too_large", r.body_text());
        }
        ApiError::bad_request(format!("cannot read the body: {}", r.body_text()))
    }
}

impl From<axum::extract::rejection::QueryRejection> for ApiError {
    fn from(r: axum::extract::rejection::QueryRejection) -> Self {
        ApiError::bad_request(format!("bad query string: {}", r.body_text()))
    }
}

/// A JSON body whose rejection is one of our error answers.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<S, T> axum::extract::FromRequest<S> for JsonBody<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        let axum::Json(v) = axum::Json::<T>::from_request(req, state).await?;
        Ok(JsonBody(v))
    }
}

/// Raw body bytes whose rejection is one of our error answers.
#[derive(Debug)]
pub struct RawBody(pub bytes::Bytes);

impl<S: Send + Sync> axum::extract::FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        Ok(RawBody(bytes::Bytes::from_request(req, state).await?))
    }
}

/// A query string whose rejection is one of our error answers.
#[derive(Debug)]
pub struct QueryArgs<T>(pub T);

impl<S, T> axum::extract::FromRequestParts<S> for QueryArgs<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, ApiError> {
        let axum::extract::Query(v) =
            axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(QueryArgs(v))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn internal_errors_do_not_name_host_folders() {
        let tmp = std::env::temp_dir();
        let e = super::ApiError::internal(format!(
            "cannot open workspace {}/llm-in-sandbox-pid-7/llm-in-sandbox-x1: Too many open files",
            tmp.display()
        ));
        assert!(
            !e.message.contains(&*tmp.to_string_lossy()),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("$TMPDIR/llm-in-sandbox-pid-7"),
            "{}",
            e.message
        );
    }
}
