//! Where guest code, the shell and file work run: a thread pool of their own, apart from the
//! threads of the caller's async runtime that drive HTTP (model calls, a server's requests).
//!
//! A Python call runs on a thread until it finishes or its 10 ms epoch slice ends; on the
//! caller's runtime that delays every reply waiting for that thread. Here the pool's threads
//! also run at a lower scheduling priority (nice +5 on Linux), so when both are ready the kernel
//! picks the I/O threads first: they wake, hand off a reply and sleep again, while the pool gets
//! the rest of the CPU.

use std::future::Future;
use std::sync::OnceLock;

use super::RuntimeError;

/// Scheduling priority of the pool's threads (Linux `nice`; higher is lower priority).
const NICE: i32 = 5;

fn pool() -> Result<&'static tokio::runtime::Runtime, RuntimeError> {
    static POOL: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("lis-sandbox")
            .on_thread_start(lower_priority)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| RuntimeError::Engine(format!("cannot start the sandbox threads: {e}")))
}

fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls on the calling thread's own id; no memory is shared.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        // Best effort: a refusal leaves the thread at normal priority.
        let _ = libc::setpriority(libc::PRIO_PROCESS, tid, NICE);
    }
}

/// A panic's message (`panic!` with a literal or a formatted string), or "no message".
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

fn joined<T>(r: Result<T, tokio::task::JoinError>) -> Result<T, RuntimeError> {
    r.map_err(|e| {
        let why = if e.is_panic() {
            panic_text(e.into_panic().as_ref())
        } else {
            "cancelled".into()
        };
        RuntimeError::Panicked(why)
    })
}

/// Run `fut` on the sandbox threads and wait for it. Dropping the returned future cancels it.
///
/// # Errors
/// [`RuntimeError::Panicked`] when it panicked (the panic stops there, with its message);
/// [`RuntimeError::Engine`] when the pool cannot start.
pub async fn spawn<F>(fut: F) -> Result<F::Output, RuntimeError>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let task = pool()?.spawn(fut);
    let abort = task.abort_handle();
    // Cancel the task if our caller gives up on it (e.g. a timeout around the whole call).
    let mut guard = AbortOnDrop(Some(abort));
    let out = joined(task.await);
    guard.0 = None;
    out
}

/// Run blocking file work on the pool's blocking threads and wait for it.
///
/// # Errors
/// As [`spawn`].
pub async fn blocking<F, T>(f: F) -> Result<T, RuntimeError>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    joined(pool()?.spawn_blocking(f).await)
}

struct AbortOnDrop(Option<tokio::task::AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(a) = self.0.take() {
            a.abort();
        }
    }
}

/// Start `fut` on the sandbox threads without waiting for it (e.g. a writer task that owns a
/// file and drains a channel).
///
/// # Errors
/// [`RuntimeError::Engine`] when the pool cannot start.
pub fn detach<F>(fut: F) -> Result<(), RuntimeError>
where
    F: Future<Output = ()> + Send + 'static,
{
    drop(pool()?.spawn(fut));
    Ok(())
}
