//! The instance slots: a call waits for a free one, and a quiet runtime gives back the
//! memory its idle slots keep.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use std::sync::Arc;

use tokio::sync::OwnedSemaphorePermit;

use super::{Runtime, RuntimeError};

/// Marks the runtime active when made and again when dropped (a call's start and end), for
/// [`Runtime::release_idle_memory`].
struct Active(Arc<AtomicU64>, Instant);

impl Active {
    fn now(at: &Arc<AtomicU64>, born: Instant) -> Self {
        let me = Active(at.clone(), born);
        me.mark();
        me
    }

    fn mark(&self) {
        let ms = u64::try_from(self.1.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.0.fetch_max(ms, Ordering::Relaxed);
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        self.mark();
    }
}

/// A call's hold on an instance slot: marks the runtime active while held. Fields drop in
/// order: the activity mark first, then the slot. Owned, so a finished call's instance can
/// be reset off the answer's path with its slot still held (see `Runtime::turn`).
pub(super) struct Slot {
    _active: Active,
    _permit: OwnedSemaphorePermit,
}

impl Runtime {
    /// Wait for a free instance slot, so a full pool means waiting, never a failed
    /// instantiation. Waiting counts against the call's deadline: the time left after it is
    /// returned with the slot.
    ///
    /// # Errors
    /// [`RuntimeError::Busy`] when no slot came (or came too late to run anything) within
    /// `timeout`; [`RuntimeError::Instantiate`] when the runtime is shutting down.
    pub(super) async fn take_slot(
        &self,
        timeout: Duration,
        started: Instant,
    ) -> Result<(Slot, Duration), RuntimeError> {
        let permit = match tokio::time::timeout(timeout, self.slots.clone().acquire_owned()).await {
            Ok(Ok(permit)) => permit,
            Ok(Err(_closed)) => {
                return Err(RuntimeError::Instantiate(
                    "the runtime is shutting down".into(),
                ));
            }
            Err(_) => {
                return Err(RuntimeError::Busy {
                    slots: self.max_instances,
                    waited: started.elapsed(),
                });
            }
        };
        let slot = Slot {
            _active: Active::now(&self.last_active, self.born),
            _permit: permit,
        };
        let left = timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            // The slot came too late to run anything: still the pool's fault, not the guest's.
            return Err(RuntimeError::Busy {
                slots: self.max_instances,
                waited: started.elapsed(),
            });
        }
        Ok((slot, left))
    }

    /// Python instances alive now (instance slots held): calls running, a call whose caller
    /// went away until its instance has really stopped, and a finished call until its
    /// instance has been reset for the next one (just after the call answered).
    pub fn instances_in_use(&self) -> usize {
        (self.max_instances as usize).saturating_sub(self.slots.available_permits())
    }

    /// Bytes of guest memory that idle instance slots keep resident so the next call in each
    /// starts without page faults (at most 32 MiB a slot, written pages only; 0 on kernels
    /// without PAGEMAP_SCAN, where nothing is kept).
    pub fn kept_bytes(&self) -> u64 {
        self.engine
            .pooling_allocator_metrics()
            .map_or(0, |m| m.unused_memory_bytes_resident() as u64)
    }

    /// Give memory back once the runtime has gone quiet: when no call is running and none has
    /// run for `idle`, release the pages the idle instance slots keep (see
    /// [`Runtime::kept_bytes`]) and return the allocator's free heap memory to the system.
    /// The next call in each slot faults its pages in again (a few ms once: `perf`'s row for
    /// `print(1)` just after a numpy call measures such a slot), then runs as fast as before.
    /// Returns the slot bytes released (0 when this quiet spell was already released), or
    /// `None` when the runtime is busy or not idle long enough. Safe at any time: a call that
    /// starts meanwhile is not disturbed.
    pub fn release_idle_memory(&self, idle: Duration) -> Option<u64> {
        if self.slots.available_permits() < self.max_instances as usize {
            return None;
        }
        let last = self.last_active.load(Ordering::Relaxed);
        if self
            .born
            .elapsed()
            .saturating_sub(Duration::from_millis(last))
            < idle
        {
            return None;
        }
        if self.released_at.swap(last, Ordering::Relaxed) == last {
            return Some(0);
        }
        #[cfg(all(target_os = "linux", not(feature = "stock-wasmtime")))]
        let released = self
            .engine
            .pooling_allocator_metrics()
            .map_or(0, |m| m.release_unused_memory_resident() as u64);
        #[cfg(any(not(target_os = "linux"), feature = "stock-wasmtime"))]
        let released = 0;
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: `malloc_trim` only returns free heap pages to the kernel; it is thread-safe.
        unsafe {
            libc::malloc_trim(0);
        }
        Some(released)
    }
}
