//! Live sandbox sessions: a sandbox with a persistent shell and our agent's tools, found by
//! an unguessable id or by a client key (get-or-create), deleted on request, after an idle
//! TTL or at the end of its lifetime.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::metrics::Metrics;
use crate::agent::SandboxSettings;
use crate::runtime::{Runtime, executor};
use crate::sandbox::Sandbox;
use crate::shell::Shell;
use crate::tools::Toolbox;

/// The smallest memory cap a session may ask for: the preloaded snapshot alone is ~140 MiB.
const MIN_MEMORY: u64 = 256 << 20;

/// Limits a request may ask for; each is clamped to the server's.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsRequest {
    /// Seconds per command.
    pub timeout_s: Option<f64>,
    /// Memory per Python call, MiB.
    pub memory_mb: Option<u64>,
    /// Bytes kept per output stream.
    pub output_bytes: Option<usize>,
    /// Disk quota over `/testbed` and `/tmp`, MiB.
    pub disk_mb: Option<u64>,
    /// Files over `/testbed` and `/tmp`.
    pub max_files: Option<u64>,
}

impl LimitsRequest {
    /// The server's settings tightened by this request (never loosened).
    ///
    /// # Errors
    /// 400 for a non-positive or non-finite timeout.
    pub fn tighten(&self, server: &SandboxSettings) -> Result<SandboxSettings, ApiError> {
        let mut s = server.clone();
        if let Some(t) = self.timeout_s {
            if !(t.is_finite() && t > 0.0) {
                return Err(ApiError::bad_request(format!(
                    "timeout_s must be a positive number of seconds, not {t}"
                )));
            }
            s.command_timeout = s.command_timeout.min(Duration::from_secs_f64(t.min(1e6)));
        }
        if let Some(m) = self.memory_mb {
            s.memory_bytes = s
                .memory_bytes
                .min(m.saturating_mul(1 << 20).max(MIN_MEMORY));
        }
        if let Some(o) = self.output_bytes {
            s.output_bytes = s.output_bytes.min(o.max(1024));
        }
        if let Some(d) = self.disk_mb {
            s.disk_quota = s.disk_quota.min(d.saturating_mul(1 << 20));
        }
        if let Some(f) = self.max_files {
            s.max_files = s.max_files.min(f);
        }
        Ok(s)
    }

    /// The effective limits, as the API reports them.
    pub fn of(s: &SandboxSettings) -> LimitsRequest {
        LimitsRequest {
            timeout_s: Some(s.command_timeout.as_secs_f64()),
            memory_mb: Some(s.memory_bytes >> 20),
            output_bytes: Some(s.output_bytes),
            disk_mb: Some(s.disk_quota >> 20),
            max_files: Some(s.max_files),
        }
    }
}

/// One live session.
pub struct Session {
    /// Unguessable id (`sb-` + 128 random bits in hex).
    pub id: String,
    /// The client's key, when it gave one.
    pub key: Option<String>,
    /// The sandbox (shared with the shell).
    pub sandbox: Arc<Sandbox>,
    /// The shell and the agent's tools; one call at a time.
    pub tools: tokio::sync::Mutex<Toolbox>,
    /// Effective limits.
    pub settings: SandboxSettings,
    /// Whether every `exec` starts from the state at creation ([`NewSession::fresh_shell`]).
    pub fresh_shell: bool,
    /// Unix seconds of creation.
    pub created_at: u64,
    created: Instant,
    /// Milliseconds since `created` of the last use.
    last_used_ms: AtomicU64,
    /// Calls running now (never reaped while > 0).
    busy: AtomicU64,
    /// Idle time after which it is deleted.
    pub idle_ttl: Duration,
    /// Age at which it is deleted.
    pub max_lifetime: Duration,
}

impl Drop for Session {
    /// A session's folders may hold anything a guest left (100,000 files): they are deleted
    /// by a blocking thread that holds the last reference to the sandbox, never by whichever
    /// async thread happens to drop the session last (or while the session table is locked).
    fn drop(&mut self) {
        bury(self.sandbox.clone());
    }
}

/// Delete `sandbox`'s folders off the async threads: the blocking thread waits until every
/// other holder (the session, its shell, a call still finishing) has let go, then drops it.
fn bury(sandbox: Arc<Sandbox>) {
    let Ok(rt) = tokio::runtime::Handle::try_current() else {
        return; // no runtime (the server is gone): drop here, there is no one to stall.
    };
    rt.spawn_blocking(move || {
        let started = Instant::now();
        // Holders drop within a call's deadline; past an hour something leaked a reference,
        // and whoever drops last deletes.
        while Arc::strong_count(&sandbox) > 1 && started.elapsed() < Duration::from_secs(3600) {
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(sandbox);
    });
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// Holds a session busy (not reapable) and marks it used when dropped.
#[derive(Debug)]
pub struct InUse(Arc<Session>);

impl std::ops::Deref for InUse {
    type Target = Arc<Session>;
    fn deref(&self) -> &Arc<Session> {
        &self.0
    }
}

impl InUse {
    /// One more busy mark on the same session (it is reapable once every mark is dropped).
    pub fn again(&self) -> InUse {
        self.0.busy.fetch_add(1, Ordering::Relaxed);
        InUse(self.0.clone())
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What the API says about a session.
#[derive(Debug, Serialize)]
pub struct Info {
    /// Id.
    pub id: String,
    /// Client key.
    pub key: Option<String>,
    /// Whether this request created it (false for get-or-create of an existing key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<bool>,
    /// Guest working directory.
    pub workdir: &'static str,
    /// The shell's current directory.
    pub cwd: String,
    /// Unix seconds.
    pub created_at: u64,
    /// Unix seconds of the last call.
    pub last_used_at: u64,
    /// Idle TTL, seconds.
    pub idle_ttl_s: f64,
    /// Lifetime, seconds.
    pub max_lifetime_s: f64,
    /// `reference` (every `exec` a fresh `bash -c`) or `persistent`.
    pub shell: &'static str,
    /// Effective limits.
    pub limits: LimitsRequest,
}

impl Session {
    fn touch(&self) {
        let ms = self.created.elapsed().as_millis() as u64;
        self.last_used_ms.store(ms, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        let used = Duration::from_millis(self.last_used_ms.load(Ordering::Relaxed));
        self.created.elapsed().saturating_sub(used)
    }

    fn expired(&self) -> bool {
        self.busy.load(Ordering::Relaxed) == 0
            && (self.idle_for() >= self.idle_ttl || self.created.elapsed() >= self.max_lifetime)
    }

    /// The API's view; `cwd` is read from the shell when it is free.
    pub fn info(&self, created: Option<bool>) -> Info {
        let cwd = self
            .tools
            .try_lock()
            .map(|t| t.shell().cwd())
            .unwrap_or_else(|_| crate::sandbox::GUEST_WORKSPACE.to_string());
        let used = Duration::from_millis(self.last_used_ms.load(Ordering::Relaxed));
        Info {
            id: self.id.clone(),
            key: self.key.clone(),
            created,
            workdir: crate::sandbox::GUEST_WORKSPACE,
            cwd,
            created_at: self.created_at,
            last_used_at: self.created_at + used.as_secs(),
            idle_ttl_s: self.idle_ttl.as_secs_f64(),
            max_lifetime_s: self.max_lifetime.as_secs_f64(),
            shell: if self.fresh_shell {
                "reference"
            } else {
                "persistent"
            },
            limits: LimitsRequest::of(&self.settings),
        }
    }
}

/// What a new session is made of (validated).
#[derive(Debug, Default)]
pub struct NewSession {
    /// Client key for get-or-create.
    pub key: Option<String>,
    /// Files (guest path, content).
    pub files: Vec<(super::files::GuestPath, Vec<u8>)>,
    /// Guest environment.
    pub env: Vec<(String, String)>,
    /// Effective limits.
    pub settings: SandboxSettings,
    /// Idle TTL.
    pub idle_ttl: Duration,
    /// Lifetime.
    pub max_lifetime: Duration,
    /// Every `exec` starts from the session's state at creation, as a fresh `bash -c` would
    /// (the reference's `docker exec`); otherwise state carries over between calls.
    pub fresh_shell: bool,
}

/// All live sessions.
#[derive(Debug)]
pub struct Sessions {
    inner: Mutex<Table>,
    max: usize,
    metrics: Arc<Metrics>,
}

#[derive(Debug, Default)]
struct Table {
    by_id: HashMap<String, Arc<Session>>,
    by_key: HashMap<String, String>,
    /// Sessions being made (counted against the limit before they exist).
    pending: usize,
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A fresh unguessable id.
pub fn new_id(prefix: &str) -> String {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // No OS randomness: still unique, though guessable; never expected on Linux.
        static N: AtomicU64 = AtomicU64::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        b[..8].copy_from_slice(&n.to_le_bytes());
        b[8..].copy_from_slice(&(unix_now() ^ u64::from(std::process::id())).to_le_bytes());
    }
    format!("{prefix}{}", hex::encode(b))
}

impl Sessions {
    /// An empty table holding at most `max` sessions.
    pub fn new(max: usize, metrics: Arc<Metrics>) -> Self {
        Sessions {
            inner: Mutex::new(Table::default()),
            max,
            metrics,
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Live sessions.
    pub fn len(&self) -> usize {
        self.table().by_id.len()
    }

    /// Whether none is alive.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The session with this id, held busy.
    ///
    /// # Errors
    /// 404.
    pub fn get(&self, id: &str) -> Result<InUse, ApiError> {
        let t = self.table();
        let s = t.by_id.get(id).cloned().ok_or_else(|| {
            ApiError::not_found(format!(
                "no sandbox {id:?} (deleted, expired or never made)"
            ))
        })?;
        s.busy.fetch_add(1, Ordering::Relaxed);
        Ok(InUse(s))
    }

    /// The session holding this key, if any.
    pub fn by_key(&self, key: &str) -> Option<InUse> {
        let t = self.table();
        let s = t.by_key.get(key).and_then(|id| t.by_id.get(id)).cloned()?;
        s.busy.fetch_add(1, Ordering::Relaxed);
        Some(InUse(s))
    }

    /// All sessions.
    pub fn all(&self) -> Vec<Arc<Session>> {
        let mut v: Vec<_> = self.table().by_id.values().cloned().collect();
        v.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        v
    }

    /// Get the session for `spec.key`, or make one. Returns it and whether it was made.
    ///
    /// # Errors
    /// 429 when the table is full; 500 when the sandbox cannot be made; 4xx for bad files.
    pub async fn get_or_create(
        &self,
        runtime: &Arc<Runtime>,
        spec: NewSession,
    ) -> Result<(InUse, bool), ApiError> {
        if let Some(key) = &spec.key
            && let Some(s) = self.by_key(key)
        {
            return Ok((s, false));
        }
        {
            let mut t = self.table();
            if t.by_id.len() + t.pending >= self.max {
                self.metrics.rejected.fetch_add(1, Ordering::Relaxed);
                return Err(ApiError::too_many(
                    format!(
                        "this server holds at most {} sandboxes (--max-sandboxes); delete some or retry later",
                        self.max
                    ),
                    1,
                ));
            }
            t.pending += 1;
        }
        let made = make(runtime, &spec).await;
        let mut t = self.table();
        t.pending -= 1;
        let session = made?;
        // Another request may have made the same key meanwhile: the first one wins.
        if let Some(key) = &spec.key
            && let Some(existing) = t.by_key.get(key).and_then(|id| t.by_id.get(id)).cloned()
        {
            existing.busy.fetch_add(1, Ordering::Relaxed);
            return Ok((InUse(existing), false));
        }
        let session = Arc::new(session);
        if let Some(key) = &spec.key {
            t.by_key.insert(key.clone(), session.id.clone());
        }
        t.by_id.insert(session.id.clone(), session.clone());
        self.metrics
            .sessions
            .store(t.by_id.len() as u64, Ordering::Relaxed);
        self.metrics.created.fetch_add(1, Ordering::Relaxed);
        session.busy.fetch_add(1, Ordering::Relaxed);
        Ok((InUse(session), true))
    }

    /// Delete one session; whether it existed. Its directories go when the last call on it
    /// ends.
    pub fn remove(&self, id: &str) -> bool {
        let mut t = self.table();
        let Some(s) = t.by_id.remove(id) else {
            return false;
        };
        // Dropping `s` here only hands its folders to a blocking thread (`Drop for Session`).
        if let Some(k) = &s.key
            && t.by_key.get(k) == Some(&s.id)
        {
            t.by_key.remove(k);
        }
        self.metrics
            .sessions
            .store(t.by_id.len() as u64, Ordering::Relaxed);
        true
    }

    /// Delete the sessions that are idle past their TTL or older than their lifetime; how many.
    pub fn reap(&self) -> usize {
        let expired: Vec<String> = self
            .table()
            .by_id
            .values()
            .filter(|s| s.expired())
            .map(|s| s.id.clone())
            .collect();
        let n = expired.iter().filter(|id| self.remove(id)).count();
        self.metrics.reaped.fetch_add(n as u64, Ordering::Relaxed);
        n
    }
}

/// Make the sandbox, its files and its shell on the sandbox threads.
async fn make(runtime: &Arc<Runtime>, spec: &NewSession) -> Result<Session, ApiError> {
    let runtime = runtime.clone();
    let settings = spec.settings.clone();
    let files = spec.files.clone();
    let env = spec.env.clone();
    let fresh = spec.fresh_shell;
    let built = executor::blocking(move || -> Result<(Arc<Sandbox>, Toolbox), ApiError> {
        let sandbox = env
            .into_iter()
            .fold(settings.builder(&runtime, None), |b, (k, v)| b.env(k, v))
            .build()
            .map_err(|e| ApiError::internal(format!("cannot make a sandbox: {e}")))?;
        for (path, data) in &files {
            super::files::write_file(&sandbox, path, data)?;
        }
        let sandbox = Arc::new(sandbox);
        let shell = Shell::new(sandbox.clone(), settings.shell())
            .map_err(|e| ApiError::internal(format!("cannot make the shell: {e}")))?;
        // After the toolbox (which sets the shell's mode for its own tools): `exec` follows
        // what the session asked for.
        let mut tools = Toolbox::new(shell);
        tools.shell_mut().set_fresh_per_call(fresh);
        Ok((sandbox, tools))
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))??;
    let (sandbox, tools) = built;
    let s = Session {
        id: new_id("sb-"),
        key: spec.key.clone(),
        sandbox,
        tools: tokio::sync::Mutex::new(tools),
        settings: spec.settings.clone(),
        fresh_shell: spec.fresh_shell,
        created_at: unix_now(),
        created: Instant::now(),
        last_used_ms: AtomicU64::new(0),
        busy: AtomicU64::new(0),
        idle_ttl: spec.idle_ttl,
        max_lifetime: spec.max_lifetime,
    };
    Ok(s)
}
