//! The episode's record, written as it happens by one writer task that receives events over a
//! channel (no interleaved writes): `events.jsonl` gets one line per event, flushed at once, and
//! `trajectory.json` (the reference system's shape) is rewritten atomically after every step, so
//! a crash or Ctrl-C leaves a valid partial trajectory.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

/// One step in the reference system's `trajectory.json` shape.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// The model's text before its tool call.
    pub thought: String,
    /// The call.
    pub action: Action,
    /// What the model was shown.
    pub observation: String,
    /// Step number and timings.
    pub metadata: StepMeta,
}

/// A tool call in a step.
#[derive(Debug, Clone, Serialize)]
pub struct Action {
    /// Tool name.
    pub function: String,
    /// Parsed arguments (or the raw text when they were not JSON).
    pub parameters: Value,
}

/// Per-step metadata.
#[derive(Debug, Clone, Serialize)]
pub struct StepMeta {
    /// 1-based step (model turn) number.
    pub step: u32,
    /// Seconds the tool took.
    pub exec_time: f64,
    /// Seconds the model took for the turn that made this call.
    pub llm_time: f64,
    /// Exit code of `execute_bash`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

enum Msg {
    Event(Value),
    Step(Box<Step>),
    Finish(Value, oneshot::Sender<std::io::Result<()>>),
}

/// Handle to the writer task.
#[derive(Debug, Clone)]
pub struct Recorder {
    tx: mpsc::UnboundedSender<Msg>,
    dir: PathBuf,
}

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Msg")
    }
}

struct Writer {
    dir: PathBuf,
    events: std::fs::File,
    header: Value,
    steps: Vec<Step>,
    summary: Value,
    /// The first write that failed before the end (reported by `finish`, not dropped).
    failed: Option<String>,
}

impl Writer {
    fn check(&mut self, what: &str, step: usize, r: std::io::Result<()>) {
        if let Err(e) = r
            && self.failed.is_none()
        {
            self.failed = Some(format!(
                "{what} in {} failed at step {step}: {e}",
                self.dir.display()
            ));
        }
    }

    fn event(&mut self, mut e: Value) -> std::io::Result<()> {
        if let Some(o) = e.as_object_mut() {
            o.insert("time".into(), json!(unix_time()));
        }
        writeln!(self.events, "{e}")?;
        self.events.flush()
    }

    fn write_trajectory(&self) -> std::io::Result<()> {
        let mut doc = self.header.clone();
        if let Some(o) = doc.as_object_mut() {
            o.insert("steps".into(), json!(self.steps));
            if let Some(s) = self.summary.as_object() {
                for (k, v) in s {
                    o.insert(k.clone(), v.clone());
                }
            }
        }
        let path = self.dir.join("trajectory.json");
        let tmp = self.dir.join("trajectory.json.partial");
        std::fs::write(&tmp, serde_json::to_vec_pretty(&doc).unwrap_or_default())?;
        std::fs::rename(tmp, path)
    }
}

fn unix_time() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

impl Recorder {
    /// Start recording into `dir` (created if missing). `header` holds the fixed fields of
    /// `trajectory.json` (e.g. `problem_statement`, model).
    ///
    /// # Errors
    /// When the directory or the events file cannot be created.
    pub fn start(dir: &Path, header: Value) -> std::io::Result<Recorder> {
        std::fs::create_dir_all(dir)?;
        let events = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("events.jsonl"))?;
        let mut w = Writer {
            dir: dir.to_path_buf(),
            events,
            header,
            steps: Vec::new(),
            summary: json!({"status": "running"}),
            failed: None,
        };
        w.write_trajectory()?;
        let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
        tokio::spawn(async move {
            // Blocking writes are small and sequential; one task owns the files.
            while let Some(msg) = rx.recv().await {
                match msg {
                    Msg::Event(e) => {
                        let r = w.event(e);
                        w.check("writing events.jsonl", w.steps.len(), r);
                    }
                    Msg::Step(s) => {
                        let step = s.metadata.step as usize;
                        let r = w.event(json!({"type": "step", "step": *s}));
                        w.check("writing events.jsonl", step, r);
                        w.steps.push(*s);
                        let r = w.write_trajectory();
                        w.check("writing trajectory.json", step, r);
                    }
                    Msg::Finish(summary, done) => {
                        let r = w.event(json!({"type": "finish", "summary": summary}));
                        w.check("writing events.jsonl", w.steps.len(), r);
                        w.summary = summary;
                        let last = w.write_trajectory();
                        // The final write may succeed after earlier ones failed: those steps
                        // may be missing from the files, so say so (both, when both failed).
                        let _ = done.send(match (last, w.failed.take()) {
                            (Err(e), None) => Err(e),
                            (Err(e), Some(earlier)) => Err(std::io::Error::other(format!(
                                "{earlier}; the final trajectory.json: {e}"
                            ))),
                            (Ok(()), Some(earlier)) => Err(std::io::Error::other(earlier)),
                            (Ok(()), None) => Ok(()),
                        });
                    }
                }
            }
        });
        Ok(Recorder {
            tx,
            dir: dir.to_path_buf(),
        })
    }

    /// The folder being written.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Record an event (`{"type": ..., ...}`).
    pub fn event(&self, e: Value) {
        let _ = self.tx.send(Msg::Event(e));
    }

    /// Record a completed step (also rewrites `trajectory.json`).
    pub fn step(&self, s: Step) {
        let _ = self.tx.send(Msg::Step(Box::new(s)));
    }

    /// Write the final summary into `trajectory.json` and wait until it is on disk.
    ///
    /// # Errors
    /// When the final write fails, or an earlier write did (the first such failure is kept
    /// and reported here, since `event` and `step` do not wait for the disk).
    pub async fn finish(&self, summary: Value) -> std::io::Result<()> {
        let (done, wait) = oneshot::channel();
        let _ = self.tx.send(Msg::Finish(summary, done));
        wait.await
            .unwrap_or_else(|_| Err(std::io::Error::other("trajectory writer stopped")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(n: u32) -> Step {
        Step {
            thought: String::new(),
            action: Action {
                function: "execute_bash".into(),
                parameters: json!({}),
            },
            observation: format!("step {n}"),
            metadata: StepMeta {
                step: n,
                exec_time: 0.0,
                llm_time: 0.0,
                exit_code: None,
            },
        }
    }

    #[tokio::test]
    async fn a_failed_write_before_the_end_is_reported_by_finish() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        let rec = Recorder::start(&dir, json!({"problem_statement": "x"})).unwrap();
        rec.step(step(1));
        // One writer task on this (current-thread) runtime: a sleep lets it drain the queue.
        let drain = || tokio::time::sleep(std::time::Duration::from_millis(50));
        drain().await;
        // The folder disappears: the next step cannot be written...
        std::fs::remove_dir_all(&dir).unwrap();
        rec.step(step(2));
        drain().await;
        // ...and comes back before the end, so the final write itself succeeds.
        std::fs::create_dir_all(&dir).unwrap();
        let err = rec.finish(json!({"status": "finished"})).await.unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("trajectory.json") && msg.contains("step 2"),
            "{msg}"
        );
        assert!(dir.join("trajectory.json").is_file());
    }
}
