//! The sandbox's network policy: which hosts anything in it may reach, and whether `pip install`
//! may reach the package index. One object per sandbox, read by every tool that can make a
//! request: the shell's `curl`/`wget`, Python's `urllib`/`http.client` (through the host door)
//! and `pip install` (through the host's pip).

/// An allow-list entry that is not a plain host or host:port.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid network allow-list entry {0:?}: give a host name or host:port, e.g. example.org")]
pub struct BadHost(pub String);

/// Which hosts the sandbox may reach, and whether `pip install` may fetch packages from the
/// package index. Default ([`NetworkPolicy::off`]): no host, pip on (the index is the
/// operator's, reached by the host's pip, never by the guest: see
/// [`crate::packages::PipSettings`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkPolicy {
    hosts: Vec<String>,
    pip: bool,
}

impl Default for NetworkPolicy {
    fn default() -> Self {
        Self {
            hosts: Vec::new(),
            pip: true,
        }
    }
}

impl NetworkPolicy {
    /// No host at all (the default); `pip install` stays on unless
    /// [`NetworkPolicy::with_pip`] turns it off.
    pub fn off() -> Self {
        Self::default()
    }

    /// The same policy with `pip install` allowed (`true`, the default) or refused (`false`)
    /// to fetch pure-Python packages from the package index through the host's pip. `--pip
    /// on|off` on the command line.
    #[must_use]
    pub fn with_pip(mut self, on: bool) -> Self {
        self.pip = on;
        self
    }

    /// Whether `pip install` may fetch packages from the package index.
    pub fn pip(&self) -> bool {
        self.pip
    }

    /// Allow `http(s)://HOST[:PORT]/...` for each entry, e.g. `example.org` or `127.0.0.1:8080`
    /// (pip on; see [`NetworkPolicy::with_pip`]).
    ///
    /// # Errors
    /// [`BadHost`] for an entry that is not a plain host or host:port.
    pub fn allow<S: AsRef<str>>(hosts: &[S]) -> Result<Self, BadHost> {
        let mut out = Vec::new();
        for h in hosts {
            let h = h.as_ref().trim();
            if h.is_empty()
                || h.contains(['/', '@', '?', '#', ' '])
                || h.starts_with(':')
                || h.split(':').count() > 2
            {
                return Err(BadHost(h.to_string()));
            }
            out.push(h.to_lowercase());
        }
        Ok(Self {
            hosts: out,
            pip: true,
        })
    }

    /// The allowed entries (`host` or `host:port`, lower case).
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// Whether no host is allowed (pip's reach to the package index is separate:
    /// [`NetworkPolicy::pip`]).
    pub fn is_off(&self) -> bool {
        self.hosts.is_empty()
    }

    /// The entries that are loopback names (`localhost`, `*.localhost`), without port: only
    /// these may resolve to loopback or private addresses. Every other name resolves to its
    /// public addresses only; an IP literal is reached only when an entry names it.
    pub fn loopback_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .hosts
            .iter()
            .map(|h| h.split(':').next().unwrap_or(h).to_string())
            .filter(|h| h == "localhost" || h.ends_with(".localhost"))
            .collect();
        names.dedup();
        names
    }

    /// Whether a request to `url` is allowed: scheme `http` or `https`, and the host with the
    /// URL's port (or the scheme's default) named by an entry: `host` allows ports 80 (http)
    /// and 443 (https), `host:port` that port on either scheme. The same rule as the shell's
    /// `curl`/`wget`. Names are matched as written, never resolved here; a name that resolves
    /// to a loopback or private address is refused when connecting unless it is a loopback
    /// name ([`NetworkPolicy::loopback_names`]).
    ///
    /// # Errors
    /// [`NetworkDenied`], whose text names the host and what the policy allows.
    pub fn check(&self, url: &reqwest::Url) -> Result<(), NetworkDenied> {
        let scheme = url.scheme();
        if scheme != "http" && scheme != "https" {
            return Err(NetworkDenied(format!(
                "{scheme}: URLs are not allowed by the sandbox's network policy (only http and \
                 https)"
            )));
        }
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return Err(NetworkDenied(format!("{url} names no host")));
        };
        let host = host.to_lowercase();
        let default = if scheme == "https" { 443 } else { 80 };
        let allowed = self.hosts.iter().any(|entry| match entry.split_once(':') {
            Some((h, p)) => h == host && p.parse::<u16>() == Ok(port),
            None => *entry == host && port == default,
        });
        if allowed {
            return Ok(());
        }
        let target = if port == default {
            host
        } else {
            format!("{host}:{port}")
        };
        Err(NetworkDenied(if self.is_off() {
            format!(
                "host {target} is not allowed: the sandbox's network policy allows no host \
                 (no network)"
            )
        } else {
            format!(
                "host {target} is not allowed by the sandbox's network policy (allowed: {})",
                self.hosts.join(", ")
            )
        }))
    }
}

/// A request the network policy refuses; the text names the host and the policy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NetworkDenied(pub String);

/// Whether `ip` is a globally reachable unicast address (not loopback, private, link-local,
/// shared, multicast, reserved, or a v6 form carrying such a v4 address).
pub fn is_public(ip: &std::net::IpAddr) -> bool {
    use std::net::IpAddr;
    match ip {
        IpAddr::V4(v4) => is_public_v4(*v4),
        IpAddr::V6(v6) => {
            let seg = v6.segments();
            let o = v6.octets();
            let embedded = |a, b, c, d| is_public_v4(std::net::Ipv4Addr::new(a, b, c, d));
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            if seg[..6] == [0; 6] {
                // `::`, `::1` and the deprecated IPv4-compatible `::a.b.c.d`.
                return seg[6] != 0 && embedded(o[12], o[13], o[14], o[15]);
            }
            if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                return embedded(o[12], o[13], o[14], o[15]); // NAT64
            }
            if seg[0] == 0x2002 {
                return embedded(o[2], o[3], o[4], o[5]); // 6to4
            }
            !(seg[..4] == [0x100, 0, 0, 0]
                || seg[..2] == [0x2001, 0]
                || seg[..3] == [0x64, 0xff9b, 1]
                || (seg[0] & 0xfe00) == 0xfc00
                || (seg[0] & 0xffc0) == 0xfe80
                || (seg[0] & 0xffc0) == 0xfec0
                || (seg[0] & 0xff00) == 0xff00)
        }
    }
}

fn is_public_v4(v4: std::net::Ipv4Addr) -> bool {
    let o = v4.octets();
    !(o[0] == 0
        || v4.is_loopback()
        || v4.is_private()
        || v4.is_link_local()
        || (o[0] == 100 && (o[1] & 0xC0) == 64)
        || (o[0] == 192 && o[1] == 0 && o[2] == 0)
        || (o[0] == 198 && (o[1] & 0xFE) == 18)
        || o[0] >= 224)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> reqwest::Url {
        reqwest::Url::parse(s).unwrap()
    }

    #[test]
    fn check_follows_the_shells_rule() {
        let p = NetworkPolicy::allow(&["example.org", "127.0.0.1:8080"]).unwrap();
        for ok in [
            "http://example.org/x",
            "https://example.org/",
            "http://EXAMPLE.org:80/",
            "http://127.0.0.1:8080/a?b",
            "https://127.0.0.1:8080/",
        ] {
            assert_eq!(p.check(&url(ok)), Ok(()), "{ok}");
        }
        for denied in [
            "http://example.org:8080/",
            "https://example.org:80/",
            "http://sub.example.org/",
            "http://127.0.0.1/",
            "http://127.0.0.1:8081/",
            "ftp://example.org/",
            "file:///etc/passwd",
            "http://[::1]:8080/",
        ] {
            assert!(p.check(&url(denied)).is_err(), "{denied}");
        }
        let e = p
            .check(&url("http://127.0.0.1:9/"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("127.0.0.1:9") && e.contains("example.org, 127.0.0.1:8080"),
            "{e}"
        );
        let off = NetworkPolicy::off()
            .check(&url("http://example.org/"))
            .unwrap_err();
        assert!(off.to_string().contains("allows no host"), "{off}");
    }

    #[test]
    fn check_agrees_with_bashkit_allowlist() {
        // The shell's curl/wget and Python must obey one rule.
        let entries = ["example.org", "127.0.0.1:8080", "localhost:3000"];
        let policy = NetworkPolicy::allow(&entries).unwrap();
        let mut list = bashkit::NetworkAllowlist::new();
        for h in policy.hosts() {
            list = list
                .allow(format!("http://{h}"))
                .allow(format!("https://{h}"));
        }
        let list = list.block_private_ips(false);
        for u in [
            "http://example.org/",
            "https://example.org/a",
            "http://example.org:443/",
            "https://example.org:80/",
            "http://example.org:8080/",
            "http://127.0.0.1:8080/",
            "https://127.0.0.1:8080/",
            "http://127.0.0.1/",
            "http://localhost:3000/x",
            "http://localhost/",
            "http://other.org/",
            "ftp://example.org/",
        ] {
            assert_eq!(policy.check(&url(u)).is_ok(), list.is_allowed(u), "{u}");
        }
    }

    #[test]
    fn public_addresses() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "::",
            "::ffff:127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "fd00::1",
            "fe80::1",
            "224.0.0.1",
        ] {
            assert!(!is_public(&private.parse().unwrap()), "{private}");
        }
        for public in ["93.184.216.34", "2606:2800:220:1::1", "8.8.8.8"] {
            assert!(is_public(&public.parse().unwrap()), "{public}");
        }
    }
}
