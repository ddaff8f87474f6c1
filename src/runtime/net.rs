//! HTTP for the guest, as the runtime sees it: the guest hands a request to the host door as
//! data and gets status, headers and body back. The runtime knows only this interface; the
//! sandbox implements it (its network policy, its client, its caps), so the guest never holds a
//! socket and reaches nothing the sandbox does not allow.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// One HTTP request from the guest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// The method, as the guest wrote it (`GET`, `POST`, ...).
    pub method: String,
    /// The absolute `http://` or `https://` URL.
    pub url: String,
    /// Header names and raw values, in the guest's order.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body (empty for none).
    pub body: Vec<u8>,
    /// How long the request may take: the guest's own timeout, if any, already bounded by
    /// what is left of the command's deadline.
    pub timeout: Duration,
}

/// The answer to an [`HttpRequest`]. Redirects are answers too: the guest's library follows
/// them, each hop a new request checked on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The reason phrase (the canonical one for the status when the server's is unknown).
    pub reason: String,
    /// `10` for HTTP/1.0, `11` for HTTP/1.1 and later.
    pub version: u8,
    /// Header names and raw values, in the server's order (repeated names kept).
    pub headers: Vec<(String, Vec<u8>)>,
    /// The whole body, as sent (not decompressed).
    pub body: Vec<u8>,
}

/// Why a request got no answer. Each kind becomes its own Python exception in the guest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HttpRefusal {
    /// The network policy does not allow the URL (host, port or scheme); nothing was sent.
    #[error("{0}")]
    Denied(String),
    /// The request or the response is larger than the sandbox allows.
    #[error("{0}")]
    TooLarge(String),
    /// The request took longer than allowed.
    #[error("{0}")]
    Timeout(String),
    /// The server refused the connection.
    #[error("{0}")]
    Refused(String),
    /// The request is malformed (bad URL, method or header).
    #[error("{0}")]
    BadRequest(String),
    /// Any other failure on the way (DNS, TLS, connection reset, ...).
    #[error("{0}")]
    Failed(String),
}

impl HttpRefusal {
    /// The kind's name in the door protocol.
    pub fn kind(&self) -> &'static str {
        match self {
            HttpRefusal::Denied(_) => "denied",
            HttpRefusal::TooLarge(_) => "too_large",
            HttpRefusal::Timeout(_) => "timeout",
            HttpRefusal::Refused(_) => "refused",
            HttpRefusal::BadRequest(_) => "bad_request",
            HttpRefusal::Failed(_) => "failed",
        }
    }
}

/// A boxed future of [`GuestNetwork::fetch`].
pub type Fetching<'a> =
    Pin<Box<dyn Future<Output = Result<HttpResponse, HttpRefusal>> + Send + 'a>>;

/// What the guest's HTTP requests go to. Implementations decide what is allowed; the runtime
/// only moves bytes between the guest and this.
pub trait GuestNetwork: Send + Sync + std::fmt::Debug {
    /// Whether a request to `url` would be allowed, without sending anything (the guest asks
    /// when it opens a connection, so a denied host fails before any request is built).
    ///
    /// # Errors
    /// [`HttpRefusal::Denied`] or [`HttpRefusal::BadRequest`].
    fn check(&self, url: &str) -> Result<(), HttpRefusal>;

    /// Make the request (checking it again) and return the whole response. Must not block the
    /// calling thread: it runs on the sandbox threads, inside the guest's call.
    fn fetch(&self, request: HttpRequest) -> Fetching<'_>;

    /// The largest request (URL, headers and body) the guest may hand over, in bytes.
    fn max_request_bytes(&self) -> usize;
}
