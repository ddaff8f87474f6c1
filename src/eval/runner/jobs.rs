//! The jobs of a run (rows × repeats, in this shard, less those recorded) and running them:
//! at most `workers` at once, each finished row recorded before another starts.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use tokio::task::JoinSet;

use super::folder::append;
use super::progress::Progress;
use super::row::run_job;
use super::settings::BenchSettings;
use super::{Job, RunError, Shared, blank_result};
use crate::eval::dataset::Row;
use crate::eval::report::RowResult;

/// The jobs of this run (rows x repeats, in this shard), less those already recorded.
pub(super) fn plan(
    rows: Vec<Row>,
    settings: &BenchSettings,
    finished: &HashSet<String>,
) -> (Vec<Job>, usize) {
    let end = settings.end.unwrap_or(rows.len()).min(rows.len());
    let mut jobs = Vec::new();
    let mut index = 0u32;
    for row in rows.into_iter().take(end).skip(settings.start) {
        let row = Arc::new(row);
        for repeat in 0..settings.repeat.max(1) {
            let j = index;
            index += 1;
            if settings.shard.is_some_and(|s| j % s.count != s.index) {
                continue;
            }
            jobs.push(Job {
                key: format!("{}#{repeat}", row.id),
                row: row.clone(),
                repeat,
            });
        }
    }
    let before = jobs.len();
    jobs.retain(|j| !finished.contains(&j.key));
    let resumed = before - jobs.len();
    (jobs, resumed)
}

/// Run the jobs, each finished row appended to `sink` and shown on `progress`.
pub(super) async fn record_jobs(
    shared: &Arc<Shared>,
    jobs: Vec<Job>,
    sink: std::fs::File,
    progress: &mut Progress,
    dir: &Path,
) -> Result<(), RunError> {
    let ran = jobs.len();
    let workers = shared.settings.workers.max(1);
    let mut watch = Recording { sink, progress };
    let recorded = drive(
        jobs,
        workers,
        |job| {
            let shared = shared.clone();
            async move { run_job(&shared, &job).await }
        },
        &mut watch,
    )
    .await;
    if let Err((source, done)) = recorded {
        return Err(RunError::Record {
            path: dir.join("results.jsonl"),
            dir: dir.display().to_string(),
            done,
            pending: ran - done,
            source,
        });
    }
    Ok(())
}

/// What [`drive`] tells as jobs start and finish, and while they run.
pub(super) trait Watch {
    /// A job starts.
    fn started(&mut self, job: &Job);
    /// A job's row is done: record it (an error stops the run).
    fn finished(&mut self, result: &RowResult) -> std::io::Result<()>;
    /// When [`Watch::tick`] is next due while jobs run (`None`: never).
    fn next_due(&self) -> Option<Instant>;
    /// The time `next_due` named has come.
    fn tick(&mut self);
}

/// A run's rows appended to `results.jsonl` and shown on the progress.
struct Recording<'a> {
    sink: std::fs::File,
    progress: &'a mut Progress,
}

impl Watch for Recording<'_> {
    fn started(&mut self, job: &Job) {
        self.progress.live().started(&job.key);
    }

    fn finished(&mut self, result: &RowResult) -> std::io::Result<()> {
        // One line per finished row, flushed at once: a kill loses only rows in flight.
        append(&mut self.sink, result)?;
        self.progress.update(result);
        Ok(())
    }

    fn next_due(&self) -> Option<Instant> {
        self.progress.next_due()
    }

    fn tick(&mut self) {
        self.progress.tick();
    }
}

/// Run `jobs` with at most `workers` at once, handing each finished row to `watch` before
/// another job starts, and ticking `watch` when it asks while jobs run. A job that panics is
/// recorded as an error row with the panic's message. When recording fails, every job still
/// running is cancelled and no other starts: the error comes back with the number of rows
/// recorded before it.
async fn drive<F, Fut>(
    jobs: Vec<Job>,
    workers: usize,
    start: F,
    watch: &mut impl Watch,
) -> Result<usize, (std::io::Error, usize)>
where
    F: Fn(Job) -> Fut,
    Fut: std::future::Future<Output = RowResult> + Send + 'static,
{
    let mut pending = jobs.into_iter();
    let mut running: JoinSet<RowResult> = JoinSet::new();
    let mut in_flight: HashMap<tokio::task::Id, RowResult> = HashMap::new();
    let mut done = 0;
    loop {
        while running.len() < workers
            && let Some(job) = pending.next()
        {
            watch.started(&job);
            let blank = blank_result(&job);
            let handle = running.spawn(start(job));
            in_flight.insert(handle.id(), blank);
        }
        // `join_next_with_id` is cancel-safe: a tick loses no finished job.
        let next = match watch.next_due() {
            Some(due) if !running.is_empty() => tokio::select! {
                j = running.join_next_with_id() => j,
                _ = tokio::time::sleep_until(due.into()) => {
                    watch.tick();
                    continue;
                }
            },
            _ => running.join_next_with_id().await,
        };
        let Some(joined) = next else {
            return Ok(done);
        };
        let result = match joined {
            Ok((id, result)) => {
                in_flight.remove(&id);
                result
            }
            Err(e) => {
                let mut result = in_flight
                    .remove(&e.id())
                    .unwrap_or_else(|| blank_result(&Job::unknown()));
                result.error = Some(panic_message(e));
                result
            }
        };
        if let Err(e) = watch.finished(&result) {
            running.abort_all();
            return Err((e, done));
        }
        done += 1;
    }
}

fn panic_message(e: tokio::task::JoinError) -> String {
    if !e.is_panic() {
        return "the job was cancelled".into();
    }
    let p = e.into_panic();
    format!(
        "internal error: the job panicked: {}",
        crate::runtime::executor::panic_text(p.as_ref())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(n: usize) -> Vec<Job> {
        (0..n)
            .map(|i| Job {
                key: format!("r{i}#0"),
                row: Arc::new(Row {
                    id: format!("r{i}"),
                    domain: "math".into(),
                    problem_statement: String::new(),
                    ground_truth: "1".into(),
                    input_files: Default::default(),
                    scorer: None,
                    extra: Default::default(),
                }),
                repeat: 0,
            })
            .collect()
    }

    /// Rows kept in memory, a failure on demand, ticks counted.
    struct Collect {
        rows: Vec<RowResult>,
        started: usize,
        fail: bool,
        ticks: usize,
        every: Option<std::time::Duration>,
    }

    impl Collect {
        fn new() -> Collect {
            Collect {
                rows: Vec::new(),
                started: 0,
                fail: false,
                ticks: 0,
                every: None,
            }
        }
    }

    impl Watch for Collect {
        fn started(&mut self, _: &Job) {
            self.started += 1;
        }
        fn finished(&mut self, r: &RowResult) -> std::io::Result<()> {
            if self.fail {
                return Err(std::io::Error::other("disk full"));
            }
            self.rows.push(r.clone());
            Ok(())
        }
        fn next_due(&self) -> Option<Instant> {
            self.every.map(|e| Instant::now() + e)
        }
        fn tick(&mut self) {
            self.ticks += 1;
        }
    }

    #[tokio::test]
    async fn a_panicking_job_becomes_an_error_row_with_its_message() {
        let mut watch = Collect::new();
        let done = drive(
            jobs(4),
            2,
            |job| async move {
                if job.key == "r2#0" {
                    panic!("boom in row two");
                }
                let mut r = blank_result(&job);
                r.score = Some(1.0);
                r
            },
            &mut watch,
        )
        .await
        .unwrap();
        assert_eq!(done, 4);
        let mut rows = watch.rows;
        rows.sort_by(|a, b| a.key.cmp(&b.key));
        let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["r0#0", "r1#0", "r2#0", "r3#0"]);
        let bad = &rows[2];
        assert_eq!((bad.id.as_str(), bad.domain.as_str()), ("r2", "math"));
        assert_eq!(bad.score, None);
        let msg = bad.error.as_deref().unwrap_or_default();
        assert!(
            msg.contains("panicked") && msg.contains("boom in row two"),
            "{msg}"
        );
    }

    #[tokio::test]
    async fn a_failed_record_stops_new_jobs() {
        let mut watch = Collect::new();
        watch.fail = true;
        let err = drive(
            jobs(10),
            1,
            |job| async move { blank_result(&job) },
            &mut watch,
        )
        .await
        .unwrap_err();
        assert_eq!(err.1, 0);
        assert_eq!(watch.started, 1);
    }

    #[tokio::test]
    async fn slow_jobs_are_ticked_while_they_run() {
        let mut watch = Collect::new();
        watch.every = Some(std::time::Duration::from_millis(20));
        let done = drive(
            jobs(2),
            2,
            |job| async move {
                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                blank_result(&job)
            },
            &mut watch,
        )
        .await
        .unwrap();
        assert_eq!(done, 2);
        assert!(watch.ticks >= 3, "{} ticks over 300 ms", watch.ticks);
    }
}
