//! What a recorded episode holds beyond its steps: a `run` folder's episode as a table row,
//! and the token usage per step from `events.jsonl`.

use std::path::Path;

use serde_json::{Value, json};

use crate::eval::report::RowResult;

/// A `run` folder's one episode as a row.
pub(super) fn episode_row(root: &Path, doc: &Value) -> RowResult {
    let stop = doc["stop"]["reason"]
        .as_str()
        .or_else(|| doc["status"].as_str())
        .unwrap_or("")
        .to_string();
    let steps = doc["num_steps"]
        .as_u64()
        .or_else(|| doc["steps"].as_array().map(|s| s.len() as u64))
        .unwrap_or(0);
    let answer = doc["answer"]
        .as_str()
        .map(str::to_string)
        .or_else(|| std::fs::read_to_string(root.join("files").join("answer.txt")).ok());
    let error = match doc["stop"]["reason"].as_str() {
        Some("llm_error") | Some("host_error") => Some(
            doc["stop"]["detail"]
                .as_str()
                .map_or_else(|| stop.clone(), str::to_string),
        ),
        _ => None,
    };
    RowResult {
        key: "run#0".into(),
        id: root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "run".into()),
        repeat: 0,
        domain: String::new(),
        score: None,
        error,
        answer,
        ground_truth: String::new(),
        stop,
        steps: u32::try_from(steps).unwrap_or(u32::MAX),
        tokens: doc["usage"]["total_tokens"].as_u64().unwrap_or(0),
        llm_seconds: doc["llm_seconds"].as_f64().unwrap_or(0.0),
        sandbox_seconds: doc["tool_seconds"].as_f64().unwrap_or(0.0),
        warning: None,
        problem_statement: doc["problem_statement"].as_str().map(str::to_string),
        reward: None,
        judge: None,
        no_call_steps: doc["turns_without_tool_call"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0),
    }
}

/// Token usage per step from `events.jsonl`'s `response` events (the last run in the file).
pub(super) fn step_usage(path: &Path) -> Value {
    let Ok(meta) = std::fs::metadata(path) else {
        return json!({});
    };
    if !meta.is_file() {
        return json!({});
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return json!({});
    };
    let mut out = serde_json::Map::new();
    for line in text.lines() {
        let Ok(e) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match e["type"].as_str() {
            Some("start") => out.clear(),
            Some("response") => {
                if let Some(step) = e["step"].as_u64() {
                    out.insert(
                        step.to_string(),
                        json!({"usage": e["usage"], "llm_time": e["llm_time"],
                               "finish_reason": e["finish_reason"]}),
                    );
                }
            }
            _ => {}
        }
    }
    Value::Object(out)
}
