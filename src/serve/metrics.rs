//! Counters for `/metrics` (Prometheus text format, version 0.0.4).
//!
//! Written out by hand rather than through the `prometheus` or `metrics` crates: a dozen
//! counters and one histogram need no registry or global recorder, and the text format is
//! stable and small.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds (seconds) of the call latency histogram's buckets.
const BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0,
];

/// The server's counters. All updates are relaxed atomics: figures, not synchronisation.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Sessions alive now.
    pub sessions: AtomicU64,
    /// Sandbox calls running now (exec, python, tools, run_code, ...).
    pub inflight: AtomicU64,
    /// Requests refused with 429.
    pub rejected: AtomicU64,
    /// Sessions deleted by the reaper (idle TTL or lifetime).
    pub reaped: AtomicU64,
    /// Sessions created.
    pub created: AtomicU64,
    /// Times idle memory was given back (`--release-idle-after`).
    pub releases: AtomicU64,
    /// Bytes of instance-slot memory given back in all.
    pub released_bytes: AtomicU64,
    /// Requests answered, by status class.
    pub responses: [AtomicU64; 5],
    calls: AtomicU64,
    call_micros: AtomicU64,
    buckets: [AtomicU64; BUCKETS.len()],
}

impl Metrics {
    /// Record one finished sandbox call.
    pub fn observe_call(&self, took: Duration) {
        let secs = took.as_secs_f64();
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.call_micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
        for (b, le) in self.buckets.iter().zip(BUCKETS) {
            if secs <= le {
                b.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Record a response's status.
    pub fn observe_status(&self, status: u16) {
        let class = usize::from(status / 100).clamp(1, 5) - 1;
        self.responses[class].fetch_add(1, Ordering::Relaxed);
    }

    /// The Prometheus text; `kept_bytes` is what idle instance slots keep resident now,
    /// `instances` the Python instances alive now.
    pub fn render(&self, kept_bytes: u64, instances: u64) -> String {
        let mut s = String::new();
        self.render_gauges_and_counters(&mut s, kept_bytes, instances);
        self.render_responses(&mut s);
        self.render_latency(&mut s);
        s
    }

    /// The metrics of one value each.
    fn render_gauges_and_counters(&self, s: &mut String, kept_bytes: u64, instances: u64) {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let mut one = |name: &str, kind: &str, help: &str, v: u64| {
            let _ = writeln!(s, "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}");
        };
        one(
            "llm_in_sandbox_sessions",
            "gauge",
            "Live sandbox sessions.",
            g(&self.sessions),
        );
        one(
            "llm_in_sandbox_calls_in_flight",
            "gauge",
            "Sandbox calls running now.",
            g(&self.inflight),
        );
        one(
            "llm_in_sandbox_instances_in_use",
            "gauge",
            "Python instances alive now (a call whose client left keeps one until it stops).",
            instances,
        );
        one(
            "llm_in_sandbox_rejected_total",
            "counter",
            "Requests refused with 429 by admission control.",
            g(&self.rejected),
        );
        one(
            "llm_in_sandbox_reaped_total",
            "counter",
            "Sessions deleted after their idle TTL or lifetime.",
            g(&self.reaped),
        );
        one(
            "llm_in_sandbox_sessions_created_total",
            "counter",
            "Sessions created.",
            g(&self.created),
        );
        one(
            "llm_in_sandbox_kept_bytes",
            "gauge",
            "Guest memory idle instance slots keep resident for the next call.",
            kept_bytes,
        );
        one(
            "llm_in_sandbox_memory_releases_total",
            "counter",
            "Times the memory kept by idle slots was given back after a quiet spell.",
            g(&self.releases),
        );
        one(
            "llm_in_sandbox_memory_released_bytes_total",
            "counter",
            "Bytes of idle slot memory given back.",
            g(&self.released_bytes),
        );
    }

    /// Responses by status class.
    fn render_responses(&self, s: &mut String) {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let _ = writeln!(
            s,
            "# HELP llm_in_sandbox_responses_total HTTP responses by status class.\n\
             # TYPE llm_in_sandbox_responses_total counter"
        );
        for (i, c) in self.responses.iter().enumerate() {
            let _ = writeln!(
                s,
                "llm_in_sandbox_responses_total{{class=\"{}xx\"}} {}",
                i + 1,
                g(c)
            );
        }
    }

    /// The call latency histogram.
    fn render_latency(&self, s: &mut String) {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let _ = writeln!(
            s,
            "# HELP llm_in_sandbox_call_seconds Latency of sandbox calls.\n\
             # TYPE llm_in_sandbox_call_seconds histogram"
        );
        for (b, le) in self.buckets.iter().zip(BUCKETS) {
            let _ = writeln!(
                s,
                "llm_in_sandbox_call_seconds_bucket{{le=\"{le}\"}} {}",
                g(b)
            );
        }
        let n = g(&self.calls);
        let _ = writeln!(
            s,
            "llm_in_sandbox_call_seconds_bucket{{le=\"+Inf\"}} {n}\n\
             llm_in_sandbox_call_seconds_sum {}\n\
             llm_in_sandbox_call_seconds_count {n}",
            g(&self.call_micros) as f64 / 1e6
        );
    }
}

/// The sandboxes' shared disk budget (`--disk-budget`): bytes their files hold now, and the
/// budget.
pub fn render_disk_budget(used: u64, budget: u64) -> String {
    format!(
        "# HELP llm_in_sandbox_disk_used_bytes Bytes the sandboxes' files hold together.\n\
         # TYPE llm_in_sandbox_disk_used_bytes gauge\nllm_in_sandbox_disk_used_bytes {used}\n\
         # HELP llm_in_sandbox_disk_budget_bytes What they may hold together (--disk-budget).\n\
         # TYPE llm_in_sandbox_disk_budget_bytes gauge\nllm_in_sandbox_disk_budget_bytes {budget}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_is_cumulative_and_counts_match() {
        let m = Metrics::default();
        m.observe_call(Duration::from_micros(800));
        m.observe_call(Duration::from_millis(30));
        m.observe_call(Duration::from_secs(100));
        let t = m.render(0, 0);
        assert!(
            t.contains("llm_in_sandbox_call_seconds_bucket{le=\"0.001\"} 1\n"),
            "{t}"
        );
        assert!(
            t.contains("llm_in_sandbox_call_seconds_bucket{le=\"0.05\"} 2\n"),
            "{t}"
        );
        assert!(
            t.contains("llm_in_sandbox_call_seconds_bucket{le=\"60\"} 2\n"),
            "{t}"
        );
        assert!(
            t.contains("llm_in_sandbox_call_seconds_bucket{le=\"+Inf\"} 3\n"),
            "{t}"
        );
        assert!(t.contains("llm_in_sandbox_call_seconds_count 3\n"), "{t}");
    }
}
