//! The attempts an episode's `events.jsonl` holds. A row run again (a benchmark resumed after
//! a kill or a Ctrl-C) appends a new attempt to the same file: its `start` event carries its
//! number and why the one before it ended, and every event carries its attempt's number.

use std::path::Path;

use serde_json::{Value, json};

/// One attempt recorded in an `events.jsonl`.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// 1-based.
    pub number: u32,
    /// The steps it recorded, in the `trajectory.json` shape.
    pub steps: Vec<Value>,
    /// Its `finish` summary, when it got that far.
    pub summary: Option<Value>,
    /// When its last event was written (Unix seconds), if known.
    pub last_time: Option<f64>,
}

impl Attempt {
    /// How it ended, in words: `finished: submitted`, `interrupted (Ctrl-C) after step 3`,
    /// `stopped without finishing after step 3 (...)`.
    pub fn ending(&self) -> String {
        let after = match self.steps.len() {
            0 => "before its first step".to_string(),
            n => format!("after step {n}"),
        };
        match &self.summary {
            Some(s) if s["status"] == "interrupted" => format!("interrupted (Ctrl-C) {after}"),
            Some(s) => format!(
                "finished ({}) but its result was not recorded, so it ran again",
                crate::agent::report::stop_words(s["stop"]["reason"].as_str().unwrap_or(""))
            ),
            None => format!(
                "stopped without finishing {after}: the run was interrupted, killed or crashed"
            ),
        }
    }

    /// What the next attempt's `start` event says about this one.
    pub fn previous(&self) -> Value {
        json!({
            "attempt": self.number,
            "ended": self.ending(),
            "steps": self.steps.len(),
            "finished": self.summary.is_some(),
            "last_time": self.last_time,
        })
    }
}

/// The attempts in `events.jsonl` (empty when there is no such file), oldest first. Lines
/// written before attempts were numbered count by their `start` events.
pub fn read(path: &Path) -> Vec<Attempt> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Vec::new();
    }
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut out: Vec<Attempt> = Vec::new();
    for line in text.lines() {
        let Ok(e) = serde_json::from_str::<Value>(line) else {
            continue; // a torn last line
        };
        if e["type"] == "start" || out.is_empty() {
            let number = e["attempt"]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(out.len() as u32 + 1);
            out.push(Attempt {
                number,
                steps: Vec::new(),
                summary: None,
                last_time: None,
            });
        }
        let Some(a) = out.last_mut() else { continue };
        if let Some(t) = e["time"].as_f64() {
            a.last_time = Some(t);
        }
        match e["type"].as_str() {
            Some("step") => a.steps.push(e["step"].clone()),
            Some("finish") => a.summary = Some(e["summary"].clone()),
            _ => {}
        }
    }
    out
}
