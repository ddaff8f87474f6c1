//! The sandbox's network policy: which hosts anything in it may reach. One object per sandbox,
//! read by every tool that can make a request (today the shell's `curl`/`wget`).

/// An allow-list entry that is not a plain host or host:port.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid network allow-list entry {0:?}: give a host name or host:port, e.g. example.org")]
pub struct BadHost(pub String);

/// Which hosts the sandbox may reach. Off (empty) by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkPolicy {
    hosts: Vec<String>,
}

impl NetworkPolicy {
    /// No network at all (the default).
    pub fn off() -> Self {
        Self::default()
    }

    /// Allow `http(s)://HOST[:PORT]/...` for each entry, e.g. `example.org` or `127.0.0.1:8080`.
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
        Ok(Self { hosts: out })
    }

    /// The allowed entries (`host` or `host:port`, lower case).
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// Whether nothing is allowed.
    pub fn is_off(&self) -> bool {
        self.hosts.is_empty()
    }

    /// Whether an entry names a loopback or private address: reaching those is allowed only
    /// when the operator named them explicitly.
    pub fn names_private_address(&self) -> bool {
        self.hosts.iter().any(|h| {
            let host = h.split(':').next().unwrap_or(h);
            host == "localhost"
                || host
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback() || is_private(&ip))
        })
    }
}

fn is_private(ip: &std::net::IpAddr) -> bool {
    match ip {
        std::net::IpAddr::V4(v4) => v4.is_private() || v4.is_link_local(),
        std::net::IpAddr::V6(_) => false,
    }
}
