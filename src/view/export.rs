//! `view --export FILE` and `benchmark --report-html FILE`: the page with the runs' data
//! embedded, one HTML file that works from disk with no server and no network (for a CI
//! job's artifacts). Every row's episode is included, with long texts cut and files inlined
//! up to the limits below.

use std::path::Path;

use base64::Engine;
use serde_json::{Value, json};

use super::query::{brief, clip, join};
use super::{Runs, ViewError, page};

/// How much of a run goes into the file.
#[derive(Debug, Clone, Copy)]
pub struct ExportLimits {
    /// Characters kept of each observation, thought or argument (default 32,000).
    pub text_chars: usize,
    /// Text files inlined up to this size (default 256 KiB).
    pub text_file_bytes: u64,
    /// Images inlined up to this size (default 2 MiB).
    pub image_bytes: u64,
}

impl Default for ExportLimits {
    fn default() -> Self {
        ExportLimits {
            text_chars: 32_000,
            text_file_bytes: 256 << 10,
            image_bytes: 2 << 20,
        }
    }
}

/// What was written.
#[derive(Debug, Clone)]
pub struct ExportStats {
    /// Rows in the report.
    pub rows: usize,
    /// Bytes of the file.
    pub bytes: usize,
}

/// Cut every string longer than `max` characters inside `v`, saying how much was cut.
fn cut_strings(v: &mut Value, max: usize) {
    match v {
        Value::String(s) if s.chars().count() > max => {
            let total = s.chars().count();
            *s = format!(
                "{}\n[... {} more characters not included in the exported report]",
                clip(s, max).trim_end_matches('…'),
                total - max
            );
        }
        Value::Array(a) => a.iter_mut().for_each(|x| cut_strings(x, max)),
        Value::Object(o) => o.values_mut().for_each(|x| cut_strings(x, max)),
        _ => {}
    }
}

fn embed_episode(runs: &Runs, run: usize, key: &str, limits: &ExportLimits) -> Value {
    let mut e = match runs.episode(run, key) {
        Ok(e) => e,
        Err(err) => return json!({"note": err.to_string()}),
    };
    cut_strings(&mut e["trajectory"], limits.text_chars);
    cut_strings(&mut e["attempts"], limits.text_chars);
    cut_strings(&mut e["log"], limits.text_chars);
    let Ok(folder) = runs.get(run) else {
        return e;
    };
    if let Some(files) = e["files"].as_array_mut() {
        for f in files {
            let path = f["path"].as_str().unwrap_or("").to_string();
            let size = f["size"].as_u64().unwrap_or(0);
            let image = f["kind"] == "image";
            let limit = if image {
                limits.image_bytes
            } else {
                limits.text_file_bytes
            };
            if size > limit {
                f["omitted"] = json!(format!(
                    "{size} bytes: over the {limit}-byte limit of the exported report"
                ));
                continue;
            }
            match folder.row_file(key, &path) {
                Ok(bytes) if image => {
                    f["data_url"] = json!(format!(
                        "data:{};base64,{}",
                        page::content_type(&path),
                        base64::engine::general_purpose::STANDARD.encode(&bytes)
                    ));
                }
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => f["text"] = json!(text),
                    Err(_) => f["omitted"] = json!("a binary file"),
                },
                Err(err) => f["omitted"] = json!(err.to_string()),
            }
        }
    }
    e
}

/// The data the page reads instead of asking a server: the summary, every joined row, and
/// every row's episode(s).
pub fn data(runs: &Runs, limits: &ExportLimits) -> Value {
    let summary = runs.summary();
    let folders = runs.folders();
    let a = folders.first().map(|r| r.rows().0).unwrap_or_default();
    let b = folders.get(1).map(|r| r.rows().0);
    let joined = join(&a, b.as_deref());
    let with_text = |r: &crate::eval::report::RowResult| {
        let mut v = brief(r);
        v["problem_statement"] = json!(r.problem_statement.as_deref().map(|p| clip(p, 2000)));
        v
    };
    let mut rows = Vec::with_capacity(joined.len());
    let mut episodes = serde_json::Map::new();
    for j in &joined {
        rows.push(json!({"key": j.key, "a": j.a.map(with_text), "b": j.b.map(with_text), "delta": j.delta()}));
        let side = |run: usize, present: bool| {
            if present {
                embed_episode(runs, run, j.key, limits)
            } else {
                Value::Null
            }
        };
        episodes.insert(
            j.key.to_string(),
            json!([side(0, j.a.is_some()), side(1, j.b.is_some())]),
        );
    }
    json!({"embedded": true, "summary": summary, "rows": rows, "episodes": episodes})
}

/// Write the self-contained report to `out`.
///
/// # Errors
/// [`ViewError::Io`] when the file cannot be written.
pub fn export(runs: &Runs, out: &Path, limits: &ExportLimits) -> Result<ExportStats, ViewError> {
    let data = data(runs, limits);
    let rows = data["rows"].as_array().map_or(0, Vec::len);
    let html = page::render(Some(&data));
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| ViewError::io(parent, e))?;
    }
    crate::fsutil::write_atomic(out, html.as_bytes()).map_err(|e| ViewError::io(out, e))?;
    Ok(ExportStats {
        rows,
        bytes: html.len(),
    })
}
