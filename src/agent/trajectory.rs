//! The episode's record, written as it happens by one writer task that receives events over a
//! channel (no interleaved writes): `events.jsonl` gets one line per event, flushed at once, and
//! `trajectory.json` (the reference system's shape) gets each step appended in place (only the
//! closing `]}` is rewritten, so the cost of a step does not grow with the episode), staying
//! valid JSON after every step; at the end it is replaced whole with the summary. A crash or
//! Ctrl-C leaves a valid partial trajectory, and [`read`] rebuilds one from `events.jsonl` if a
//! write was torn. A folder recorded into again (a benchmark row resumed after a kill) keeps
//! the earlier attempts in `events.jsonl`: each event carries its attempt's number, and the new
//! `start` says why the one before ended ([`super::attempts`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

/// One step (one model turn) in the reference system's `trajectory.json` shape. A turn
/// without a usable tool call is a step too, with `function` `""` and the nudge as its
/// observation, as there.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// The model's text before its tool call.
    pub thought: String,
    /// The reasoning the server returned beside the text (`reasoning_content`), or `""`.
    pub reasoning_content: String,
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
    /// Seconds the model call of this turn took (the reference's `exec_time`).
    pub exec_time: f64,
    /// The same as `exec_time`, under the name it had here before.
    pub llm_time: f64,
    /// Seconds the tool took.
    pub tool_time: f64,
    /// Exit code of `execute_bash`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

enum Msg {
    Event(Value),
    Step(Box<Step>),
    Flush(oneshot::Sender<()>),
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

/// `trajectory.json` while the episode runs: the header, `"status": "running"` and the steps
/// array last, so a step is appended in place by rewriting only the closing `]}`.
struct Open {
    file: std::fs::File,
    /// Where the closing `]}` starts.
    tail: u64,
    steps: usize,
}

struct Writer {
    dir: PathBuf,
    events: std::fs::File,
    header: Value,
    trajectory: Open,
    steps: Vec<Step>,
    /// The first write that failed before the end (reported by `finish`, not dropped).
    failed: Option<String>,
    /// Which attempt at this episode this is (1 unless `events.jsonl` held earlier ones).
    attempt: u32,
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
            o.insert("attempt".into(), json!(self.attempt));
        }
        // One write per line (formatting straight into the file would be a syscall per token).
        let mut line = serde_json::to_vec(&e)?;
        line.push(b'\n');
        self.events.write_all(&line)?;
        still_linked(&self.events)
    }

    /// Append one step to the open `trajectory.json`; it is valid JSON before and after.
    fn append_step(&mut self, step: &Step) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        let t = &mut self.trajectory;
        let sep = if t.steps == 0 { "\n" } else { ",\n" };
        let text = format!("{sep}{}]}}", serde_json::to_string(step)?);
        t.file.write_all_at(text.as_bytes(), t.tail)?;
        t.tail += text.len() as u64 - 2;
        t.steps += 1;
        // Cut whatever an earlier write that failed half way may have left past the end.
        t.file.set_len(t.tail + 2)?;
        still_linked(&t.file)
    }

    /// The whole document, pretty, replacing the open one atomically.
    fn write_final(&self, summary: &Value) -> std::io::Result<()> {
        let doc = document(&self.header, &self.steps, summary);
        crate::fsutil::replace(
            &self.dir.join("trajectory.json"),
            &serde_json::to_vec_pretty(&doc)?,
        )
    }
}

/// `trajectory.json`'s shape: the header's fields, `steps`, then the summary's fields.
fn document(header: &Value, steps: &[Step], summary: &Value) -> Value {
    let mut doc = header.clone();
    if let Some(o) = doc.as_object_mut() {
        o.insert("steps".into(), json!(steps));
        if let Some(s) = summary.as_object() {
            for (k, v) in s {
                o.insert(k.clone(), v.clone());
            }
        }
    }
    doc
}

/// Open `trajectory.json` for appending: `{...header, "status": "running", "steps": []}`.
fn open_trajectory(dir: &Path, header: &Value) -> std::io::Result<Open> {
    use std::os::unix::fs::FileExt;
    let mut head = match header {
        Value::Object(o) if !o.is_empty() => {
            let s = serde_json::to_string(o)?;
            format!("{},", &s[..s.len() - 1])
        }
        _ => "{".to_string(),
    };
    head.push_str("\"status\":\"running\",\"steps\":[");
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(dir.join("trajectory.json"))?;
    file.write_all_at(format!("{head}]}}").as_bytes(), 0)?;
    Ok(Open {
        file,
        tail: head.len() as u64,
        steps: 0,
    })
}

/// A write into a file whose folder was removed succeeds but lands nowhere: say so.
fn still_linked(f: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    if f.metadata()?.nlink() == 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the file was deleted while being written",
        ));
    }
    Ok(())
}

fn unix_time() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Read a recorded trajectory: `trajectory.json` when it is whole and valid, otherwise (a
/// torn write at a crash) rebuilt from `events.jsonl`, which holds the header, every step and
/// the summary.
///
/// # Errors
/// When neither file can be read.
pub fn read(dir: &Path) -> std::io::Result<Value> {
    if let Ok(doc) = std::fs::read(dir.join("trajectory.json"))
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice::<Value>(&b).map_err(|e| e.to_string()))
    {
        return Ok(doc);
    }
    let text = std::fs::read_to_string(dir.join("events.jsonl"))?;
    let (mut header, mut steps, mut summary) =
        (json!({}), Vec::new(), json!({"status": "running"}));
    for line in text.lines() {
        let Ok(e) = serde_json::from_str::<Value>(line) else {
            continue; // a torn last line
        };
        match e["type"].as_str() {
            // A rerun (e.g. after --resume) appends a new start: only the last run counts.
            Some("start") => {
                header = e["header"].clone();
                steps.clear();
                summary = json!({"status": "running"});
            }
            Some("step") => steps.push(e["step"].clone()),
            Some("finish") => summary = e["summary"].clone(),
            _ => {}
        }
    }
    let mut doc = header;
    if let Some(o) = doc.as_object_mut() {
        o.insert("steps".into(), Value::Array(steps));
        if let Some(s) = summary.as_object() {
            for (k, v) in s {
                o.insert(k.clone(), v.clone());
            }
        }
    }
    Ok(doc)
}

impl Recorder {
    /// Start recording into `dir` (created if missing). `header` holds the fixed fields of
    /// `trajectory.json` (e.g. `problem_statement`, model). The writer runs on the sandbox
    /// threads.
    ///
    /// # Errors
    /// When the directory or the files cannot be created.
    pub fn start(dir: &Path, header: Value) -> std::io::Result<Recorder> {
        std::fs::create_dir_all(dir)?;
        let earlier = super::attempts::read(&dir.join("events.jsonl"));
        let previous = earlier.last().map(super::attempts::Attempt::previous);
        let attempt = earlier.last().map_or(1, |a| a.number + 1);
        let mut header = header;
        if attempt > 1
            && let Some(o) = header.as_object_mut()
        {
            o.insert("attempt".into(), json!(attempt));
            o.insert(
                "previous_attempt".into(),
                previous.clone().unwrap_or_default(),
            );
        }
        let events = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("events.jsonl"))?;
        let trajectory = open_trajectory(dir, &header)?;
        let mut w = Writer {
            dir: dir.to_path_buf(),
            events,
            header,
            trajectory,
            steps: Vec::new(),
            failed: None,
            attempt,
        };
        let mut start = json!({"type": "start", "header": w.header});
        if let Some(p) = previous {
            start["previous"] = p;
        }
        let r = w.event(start);
        w.check("writing events.jsonl", 0, r);
        let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
        crate::runtime::executor::detach(async move {
            // Small sequential writes; one task owns the files.
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
                        let r = w.append_step(&s);
                        w.check("writing trajectory.json", step, r);
                        w.steps.push(*s);
                    }
                    Msg::Flush(done) => {
                        let _ = done.send(());
                    }
                    Msg::Finish(summary, done) => {
                        let r = w.event(json!({"type": "finish", "summary": summary}));
                        w.check("writing events.jsonl", w.steps.len(), r);
                        let last = w.write_final(&summary);
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
        })
        .map_err(std::io::Error::other)?;
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

    /// Record a completed step (appended to `events.jsonl` and `trajectory.json`).
    pub fn step(&self, s: Step) {
        let _ = self.tx.send(Msg::Step(Box::new(s)));
    }

    /// Wait until everything recorded so far has been written.
    pub async fn flush(&self) {
        let (done, wait) = oneshot::channel();
        let _ = self.tx.send(Msg::Flush(done));
        let _ = wait.await;
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
            reasoning_content: String::new(),
            action: Action {
                function: "execute_bash".into(),
                parameters: json!({}),
            },
            observation: format!("step {n}"),
            metadata: StepMeta {
                step: n,
                exec_time: 0.0,
                llm_time: 0.0,
                tool_time: 0.0,
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
        rec.flush().await;
        let partial = read(&dir).unwrap();
        assert_eq!(partial["status"], "running");
        assert_eq!(partial["steps"][0]["observation"], "step 1");
        // The folder disappears: the next step cannot be written...
        std::fs::remove_dir_all(&dir).unwrap();
        rec.step(step(2));
        rec.flush().await;
        // ...and comes back before the end, so the final write itself succeeds.
        std::fs::create_dir_all(&dir).unwrap();
        let err = rec.finish(json!({"status": "finished"})).await.unwrap_err();
        let msg = err.to_string();
        assert!(
            (msg.contains("events.jsonl") || msg.contains("trajectory.json"))
                && msg.contains("step 2"),
            "{msg}"
        );
        assert!(dir.join("trajectory.json").is_file());
    }

    #[tokio::test]
    async fn a_folder_recorded_again_marks_each_attempt_and_why_the_last_ended() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        // Attempt 1: killed after two steps (no finish).
        let rec = Recorder::start(&dir, json!({"problem_statement": "x"})).unwrap();
        rec.step(step(1));
        rec.step(step(2));
        rec.flush().await;
        drop(rec);
        // Attempt 2: interrupted after one step.
        let rec = Recorder::start(&dir, json!({"problem_statement": "x"})).unwrap();
        rec.step(step(1));
        rec.finish(json!({"status": "interrupted"})).await.unwrap();
        // Attempt 3 finishes.
        let rec = Recorder::start(&dir, json!({"problem_statement": "x"})).unwrap();
        rec.step(step(1));
        rec.finish(json!({"status": "finished", "stop": {"reason": "submitted"}}))
            .await
            .unwrap();
        let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
        let events: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let starts: Vec<&Value> = events.iter().filter(|e| e["type"] == "start").collect();
        assert_eq!(starts.len(), 3);
        assert_eq!(starts[0]["attempt"], 1);
        assert!(starts[0].get("previous").is_none());
        assert_eq!(starts[1]["attempt"], 2);
        assert_eq!(starts[1]["previous"]["attempt"], 1);
        assert_eq!(
            starts[1]["previous"]["ended"],
            "stopped without finishing after step 2: the run was interrupted, killed or crashed"
        );
        assert_eq!(
            starts[2]["previous"]["ended"],
            "interrupted (Ctrl-C) after step 1"
        );
        // Every line says which attempt it belongs to, in order.
        let numbers: Vec<u64> = events
            .iter()
            .map(|e| e["attempt"].as_u64().unwrap())
            .collect();
        assert!(numbers.windows(2).all(|w| w[0] <= w[1]), "{numbers:?}");
        let attempts = crate::agent::attempts::read(&dir.join("events.jsonl"));
        assert_eq!(attempts.len(), 3);
        assert_eq!(attempts[0].steps.len(), 2);
        assert!(attempts[2].ending().starts_with("finished (submitted)"));
        // trajectory.json is the last attempt's, and says which it is.
        let doc = read(&dir).unwrap();
        assert_eq!(doc["attempt"], 3);
        assert_eq!(doc["steps"].as_array().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_torn_trajectory_is_rebuilt_from_the_event_log() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        let rec = Recorder::start(&dir, json!({"problem_statement": "x"})).unwrap();
        rec.step(step(1));
        rec.step(step(2));
        rec.flush().await;
        let whole = std::fs::read(dir.join("trajectory.json")).unwrap();
        let valid: Value = serde_json::from_slice(&whole).unwrap();
        assert_eq!(valid["steps"].as_array().unwrap().len(), 2);
        // A crash in the middle of a write: the file ends half way.
        std::fs::write(dir.join("trajectory.json"), &whole[..whole.len() / 2]).unwrap();
        let rebuilt = read(&dir).unwrap();
        assert_eq!(rebuilt["problem_statement"], "x");
        assert_eq!(rebuilt["status"], "running");
        assert_eq!(rebuilt["steps"][1]["observation"], "step 2");
        rec.finish(json!({"status": "finished"})).await.unwrap();
        assert_eq!(read(&dir).unwrap()["status"], "finished");
    }
}
