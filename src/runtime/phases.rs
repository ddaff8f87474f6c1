//! Where a call's time goes, counted for every call since the runtime was loaded: building
//! its store (WASI context, limits), instantiating the snapshot in a pool slot, running the
//! guest's turn, and resetting the slot afterwards (finding the pages the call wrote and
//! copying the snapshot's back). A few clock reads a call; `perf` prints them as rows.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The phases of a call, each a total over every call so far.
#[derive(Debug, Default)]
pub(super) struct PhaseCounters {
    calls: AtomicU64,
    store_ns: AtomicU64,
    instantiate_ns: AtomicU64,
    guest_ns: AtomicU64,
    reset_ns: AtomicU64,
}

/// The totals at one moment; subtract two with [`PhaseTimes::since`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    /// Calls that reached the guest.
    pub calls: u64,
    /// The call's store: its WASI context (arguments, environment, stdio, preopens), memory
    /// limiter and deadline.
    pub store: Duration,
    /// wasmtime making the instance from the snapshot in a pool slot (copy-on-write memory,
    /// tables, the exports looked up).
    pub instantiate: Duration,
    /// The guest's turn: the Python code running, with the host calls it makes.
    pub guest: Duration,
    /// The slot's reset after the answer (off the answer's path, still CPU): the pages the
    /// call wrote are found and the snapshot's copied back.
    pub reset: Duration,
}

impl PhaseTimes {
    /// What happened between `earlier` and `self`.
    #[must_use]
    pub fn since(&self, earlier: &PhaseTimes) -> PhaseTimes {
        PhaseTimes {
            calls: self.calls.saturating_sub(earlier.calls),
            store: self.store.saturating_sub(earlier.store),
            instantiate: self.instantiate.saturating_sub(earlier.instantiate),
            guest: self.guest.saturating_sub(earlier.guest),
            reset: self.reset.saturating_sub(earlier.reset),
        }
    }
}

/// Which counter a span adds to.
#[derive(Debug, Clone, Copy)]
pub(super) enum Phase {
    Store,
    Instantiate,
    Guest,
    Reset,
}

impl PhaseCounters {
    /// Add the time since `from` to `phase`; returns now, the start of the next span.
    pub(super) fn add(&self, phase: Phase, from: Instant) -> Instant {
        let now = Instant::now();
        let ns = u64::try_from(now.duration_since(from).as_nanos()).unwrap_or(u64::MAX);
        let counter = match phase {
            Phase::Store => &self.store_ns,
            Phase::Instantiate => &self.instantiate_ns,
            Phase::Guest => {
                self.calls.fetch_add(1, Ordering::Relaxed);
                &self.guest_ns
            }
            Phase::Reset => &self.reset_ns,
        };
        counter.fetch_add(ns, Ordering::Relaxed);
        now
    }

    pub(super) fn now(&self) -> PhaseTimes {
        let d = |c: &AtomicU64| Duration::from_nanos(c.load(Ordering::Relaxed));
        PhaseTimes {
            calls: self.calls.load(Ordering::Relaxed),
            store: d(&self.store_ns),
            instantiate: d(&self.instantiate_ns),
            guest: d(&self.guest_ns),
            reset: d(&self.reset_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_add_up_per_phase_and_subtract() {
        let c = PhaseCounters::default();
        let start = Instant::now() - Duration::from_millis(5);
        let next = c.add(Phase::Store, start);
        let before = c.now();
        assert!(before.store >= Duration::from_millis(5));
        assert_eq!(before.calls, 0);
        c.add(Phase::Guest, next - Duration::from_millis(2));
        let after = c.now();
        let d = after.since(&before);
        assert_eq!(d.calls, 1);
        assert_eq!(d.store, Duration::ZERO);
        assert!(d.guest >= Duration::from_millis(2));
        assert_eq!(d.reset, Duration::ZERO);
    }
}
