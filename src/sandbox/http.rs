//! The sandbox's network: the host side of the guest's `urllib`/`http.client` requests and of
//! the shell's `curl`/`wget` ([`ShellTransport`]). Every request is checked against the
//! sandbox's [`NetworkPolicy`] and made by the host's own client (rustls), never following a
//! redirect itself: a 3xx goes back to the guest, whose library asks again, so each hop is
//! checked. A name resolves to public addresses only, unless the allow-list names it as a
//! loopback name (`localhost`); a loopback or private address is reached only when the
//! allow-list names that address itself.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::network::{NetworkPolicy, is_public};
use crate::runtime::net::{Fetching, GuestNetwork, HttpRefusal, HttpRequest, HttpResponse};

/// A root certificate that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the root certificate: {0}")]
pub struct BadCertificate(String);

/// Caps and trust for Python's HTTP requests. Defaults: 64 MiB per response, 16 MiB per
/// request, 60 s per request (never past the command's deadline), the system's root
/// certificates.
#[derive(Debug, Clone)]
pub struct HttpSettings {
    max_response_bytes: usize,
    max_request_bytes: usize,
    timeout: Duration,
    roots: Vec<reqwest::Certificate>,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            max_response_bytes: 64 << 20,
            max_request_bytes: 16 << 20,
            timeout: Duration::from_secs(60),
            roots: Vec::new(),
        }
    }
}

impl HttpSettings {
    /// Largest response body accepted; a larger one fails the request (Python sees an
    /// `OSError` saying so). Default 64 MiB.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// Largest request (URL, headers and body) the guest may hand over; a larger one is
    /// refused before it is read. Default 16 MiB.
    pub fn max_request_bytes(mut self, bytes: usize) -> Self {
        self.max_request_bytes = bytes;
        self
    }

    /// Longest one request may take, body included. Default 60 s; the guest's own timeout and
    /// what is left of the command's deadline bound it further.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Trust the root certificates in `pem` as well as the system's (e.g. a private CA).
    ///
    /// # Errors
    /// [`BadCertificate`] when `pem` holds no readable certificate.
    pub fn trust_pem(mut self, pem: &[u8]) -> Result<Self, BadCertificate> {
        let certs = reqwest::Certificate::from_pem_bundle(pem)
            .map_err(|e| BadCertificate(e.to_string()))?;
        if certs.is_empty() {
            return Err(BadCertificate("no certificate in the PEM text".into()));
        }
        self.roots.extend(certs);
        Ok(self)
    }
}

/// The guest's network: the policy, the caps, and a client made on first use.
#[derive(Debug)]
pub(super) struct HttpDoor {
    policy: NetworkPolicy,
    settings: HttpSettings,
    client: tokio::sync::OnceCell<reqwest::Client>,
}

/// A `Refused` error's marker: the resolver found only addresses the policy does not reach.
const NOT_PUBLIC: &str = "resolves only to loopback or private addresses";

/// Resolves a name to its public addresses only, so an allowed name cannot be pointed at the
/// host's own network, unless the allow-list names it as a loopback name (`localhost`,
/// `*.localhost`): then it resolves as the host resolves it. Each name is judged on its own:
/// naming `127.0.0.1:8080` or `localhost` lifts the filter for nothing else. (An IP literal
/// is never resolved; the policy reaches it only when an entry names it.)
struct PublicOnly {
    loopback_names: Arc<[String]>,
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let any = self.loopback_names.contains(&host);
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| any || is_public(&a.ip()))
                .collect();
            if found.is_empty() {
                return Err(
                    format!("{host} {NOT_PUBLIC}, which the sandbox does not reach").into(),
                );
            }
            let addrs: Addrs = Box::new(found.into_iter());
            Ok(addrs)
        })
    }
}

/// Request headers the host sets itself (framing, connection, target), never the guest's.
const HOST_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "upgrade",
];

impl HttpDoor {
    pub(super) fn new(policy: NetworkPolicy, settings: HttpSettings) -> Self {
        Self {
            policy,
            settings,
            client: tokio::sync::OnceCell::new(),
        }
    }

    fn parse(&self, url: &str) -> Result<reqwest::Url, HttpRefusal> {
        let url = reqwest::Url::parse(url)
            .map_err(|e| HttpRefusal::BadRequest(format!("bad URL {url:?}: {e}")))?;
        self.policy
            .check(&url)
            .map_err(|d| HttpRefusal::Denied(d.to_string()))?;
        Ok(url)
    }

    /// The client, made once per sandbox on the blocking threads (it reads the system's
    /// certificates).
    async fn client(&self) -> Result<&reqwest::Client, HttpRefusal> {
        self.client
            .get_or_try_init(|| async {
                let roots = self.settings.roots.clone();
                let loopback_names: Arc<[String]> = self.policy.loopback_names().into();
                let made = tokio::task::spawn_blocking(move || {
                    let _ = rustls::crypto::ring::default_provider().install_default();
                    reqwest::Client::builder()
                        .redirect(reqwest::redirect::Policy::none())
                        .no_proxy()
                        .referer(false)
                        .connect_timeout(Duration::from_secs(15))
                        .pool_max_idle_per_host(4)
                        .tls_certs_merge(roots)
                        .dns_resolver(PublicOnly { loopback_names })
                        .build()
                })
                .await;
                match made {
                    Ok(Ok(client)) => Ok(client),
                    Ok(Err(e)) => Err(HttpRefusal::Failed(format!(
                        "cannot set up the host's HTTP client: {e}"
                    ))),
                    Err(e) => Err(HttpRefusal::Failed(format!(
                        "cannot set up the host's HTTP client: {e}"
                    ))),
                }
            })
            .await
    }

    async fn exchange(&self, req: HttpRequest) -> Result<HttpResponse, HttpRefusal> {
        let url = self.parse(&req.url)?;
        let bad = |what: String| HttpRefusal::BadRequest(what);
        let method = reqwest::Method::from_bytes(req.method.as_bytes())
            .map_err(|_| bad(format!("bad method {:?}", req.method)))?;
        if method == reqwest::Method::CONNECT {
            return Err(bad("CONNECT is not supported".into()));
        }
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in &req.headers {
            let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| bad(format!("bad header name {name:?}")))?;
            if HOST_HEADERS.contains(&name.as_str()) {
                continue;
            }
            let value = reqwest::header::HeaderValue::from_bytes(value)
                .map_err(|_| bad(format!("bad value for header {name}")))?;
            headers.append(name, value);
        }
        // An empty body is sent only when the guest framed one (`Content-Length: 0` on a POST).
        let framed = !req.body.is_empty()
            || req
                .headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("content-length"));
        let timeout = req.timeout.min(self.settings.timeout);
        let client = self.client().await?;
        let host = url.host_str().unwrap_or_default().to_string();
        let cap = self.settings.max_response_bytes;
        let call = async {
            let mut builder = client.request(method, url).headers(headers);
            if framed {
                builder = builder.body(req.body);
            }
            let mut resp = builder.send().await.map_err(|e| refusal(&host, &e))?;
            if resp.content_length().is_some_and(|n| n > cap as u64) {
                return Err(too_large(&host, cap));
            }
            let mut body = Vec::new();
            while let Some(chunk) = resp.chunk().await.map_err(|e| refusal(&host, &e))? {
                if body.len() + chunk.len() > cap {
                    return Err(too_large(&host, cap));
                }
                body.extend_from_slice(&chunk);
            }
            let status = resp.status();
            Ok(HttpResponse {
                status: status.as_u16(),
                reason: status.canonical_reason().unwrap_or("").to_string(),
                version: if resp.version() == reqwest::Version::HTTP_10 {
                    10
                } else {
                    11
                },
                headers: resp
                    .headers()
                    .iter()
                    .map(|(k, v)| (k.as_str().to_string(), v.as_bytes().to_vec()))
                    .collect(),
                body,
            })
        };
        match tokio::time::timeout(timeout, call).await {
            Ok(result) => result,
            Err(_) => Err(HttpRefusal::Timeout(format!(
                "the request to {host} timed out after {:.1} s",
                timeout.as_secs_f64()
            ))),
        }
    }
}

fn too_large(host: &str, cap: usize) -> HttpRefusal {
    HttpRefusal::TooLarge(format!(
        "the response from {host} is larger than the sandbox's cap of {cap} bytes"
    ))
}

/// A client error as the guest should see it, with the whole chain of causes.
fn refusal(host: &str, e: &reqwest::Error) -> HttpRefusal {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    let mut refused = false;
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            refused |= io.kind() == std::io::ErrorKind::ConnectionRefused;
        }
        source = s.source();
    }
    if text.contains(NOT_PUBLIC) {
        HttpRefusal::Denied(format!(
            "host {host} is not allowed by the sandbox's network policy: it {NOT_PUBLIC}"
        ))
    } else if e.is_timeout() {
        HttpRefusal::Timeout(text)
    } else if refused {
        HttpRefusal::Refused(text)
    } else {
        HttpRefusal::Failed(text)
    }
}

impl GuestNetwork for HttpDoor {
    fn check(&self, url: &str) -> Result<(), HttpRefusal> {
        self.parse(url).map(|_| ())
    }

    fn fetch(&self, request: HttpRequest) -> Fetching<'_> {
        Box::pin(self.exchange(request))
    }

    fn max_request_bytes(&self) -> usize {
        self.settings.max_request_bytes
    }
}

/// The shell's `curl` and `wget` through the same door as Python: one policy check, one
/// resolver, one client per sandbox. bashkit's own allow-list still runs first; its private
/// address filter is off, as this door filters per name.
pub(crate) struct ShellTransport(pub(super) Arc<HttpDoor>);

#[async_trait::async_trait]
impl bashkit::HttpTransport for ShellTransport {
    async fn execute(
        &self,
        request: bashkit::HttpTransportRequest,
    ) -> Result<bashkit::HttpResponse, bashkit::HttpTransportError> {
        use bashkit::HttpTransportError as E;
        let cap = request.max_response_bytes;
        let answer = self
            .0
            .exchange(HttpRequest {
                method: request.method.as_str().to_string(),
                url: request.url,
                headers: request
                    .headers
                    .into_iter()
                    .map(|(k, v)| (k, v.into_bytes()))
                    .collect(),
                body: request.body.unwrap_or_default(),
                timeout: request.timeout,
            })
            .await
            .map_err(|refusal| match refusal {
                HttpRefusal::Denied(why) => E::Denied(why),
                HttpRefusal::Timeout(_) => E::Timeout,
                HttpRefusal::TooLarge(why) => E::TooLarge(why),
                HttpRefusal::Refused(why)
                | HttpRefusal::BadRequest(why)
                | HttpRefusal::Failed(why) => E::Transport(why),
            })?;
        if answer.body.len() > cap {
            return Err(E::TooLarge(format!(
                "{} bytes, over the cap of {cap}",
                answer.body.len()
            )));
        }
        Ok(bashkit::HttpResponse {
            status: answer.status,
            headers: answer
                .headers
                .into_iter()
                .map(|(k, v)| (k, String::from_utf8_lossy(&v).into_owned()))
                .collect(),
            body: answer.body,
        })
    }
}

/// The door for a policy, shared by every call of one sandbox.
pub(super) fn door(policy: &NetworkPolicy, settings: &HttpSettings) -> Arc<HttpDoor> {
    Arc::new(HttpDoor::new(policy.clone(), settings.clone()))
}
