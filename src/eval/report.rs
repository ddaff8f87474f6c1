//! Results: one JSON line per finished row (`results.jsonl`), and the summary (`results.json`,
//! a table, an SVG chart) computed from those lines only, so a merge of shards gives the same
//! summary as one run.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One finished row (a line of `results.jsonl`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RowResult {
    /// `id#repeat`: unique within a run.
    pub key: String,
    /// Row id.
    pub id: String,
    /// Repeat index (0-based).
    pub repeat: u32,
    /// Domain.
    pub domain: String,
    /// Score, when scoring worked.
    pub score: Option<f64>,
    /// Why there is no score (episode or scorer failure).
    pub error: Option<String>,
    /// The answer that was scored.
    pub answer: Option<String>,
    /// The ground truth.
    pub ground_truth: String,
    /// Why the episode ended.
    pub stop: String,
    /// Model turns.
    pub steps: u32,
    /// Tokens used.
    pub tokens: u64,
    /// Seconds waiting for the model.
    pub llm_seconds: f64,
    /// Seconds in the sandbox (tools and scoring).
    pub sandbox_seconds: f64,
    /// A problem that did not stop the row, e.g. its trajectory could not be fully written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The task text (for the combined `trajectory.json` a judge reads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem_statement: Option<String>,
    /// What `reward.py` (or the built-in scorer) gave, when an LLM judge set `score`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<f64>,
    /// The judge's verdicts per repeat, when an LLM judge set `score`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<Value>,
}

/// Read the rows already finished in a `results.jsonl` (a torn last line from a kill is ignored).
pub fn read_results(path: &Path) -> Vec<RowResult> {
    // Only a regular file: a device (e.g. /dev/zero linked in its place) would never end.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Vec::new();
    }
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[derive(Default, Serialize)]
struct Group {
    n: usize,
    scored: usize,
    errors: usize,
    sum: f64,
}

impl Group {
    fn add(&mut self, r: &RowResult) {
        self.n += 1;
        match r.score {
            Some(s) => {
                self.scored += 1;
                self.sum += s;
            }
            None => self.errors += 1,
        }
    }
    /// `mean_score` counts error rows as 0, as the reference does; `mean_score_scored` is the
    /// mean over the rows that have a score, so nothing is hidden.
    fn json(&self) -> Value {
        let mean = (self.n > 0).then(|| self.sum / self.n as f64);
        let scored = (self.scored > 0).then(|| self.sum / self.scored as f64);
        json!({"mean_score": mean, "mean_score_scored": scored, "rows": self.n,
               "scored": self.scored, "errors": self.errors})
    }
}

/// The summary of a set of finished rows (deterministic: sorted by key; the one wall-clock
/// field, `elapsed_time_seconds`, is what the caller passes). Besides ours it has the
/// reference's fields: `task`, `total`, `mean_score` (error rows count as 0), `num_errors`,
/// `elapsed_time_seconds`, and its agent settings inside `config`.
pub fn summarize(results: &[RowResult], config: &Value, elapsed: f64) -> Value {
    let mut sorted: Vec<&RowResult> = results.iter().collect();
    sorted.sort_by(|a, b| a.key.cmp(&b.key));
    sorted.dedup_by(|a, b| a.key == b.key);
    let mut overall = Group::default();
    let mut domains: BTreeMap<&str, Group> = BTreeMap::new();
    let (mut tokens, mut llm, mut sandbox) = (0u64, 0f64, 0f64);
    for r in &sorted {
        overall.add(r);
        domains.entry(&r.domain).or_default().add(r);
        tokens += r.tokens;
        llm += r.llm_seconds;
        sandbox += r.sandbox_seconds;
    }
    let busy = (llm + sandbox).max(f64::MIN_POSITIVE);
    let overall_json = overall.json();
    json!({
        "task": config["task"],
        "total": overall.n,
        "mean_score": overall_json["mean_score"].as_f64().unwrap_or(0.0),
        "mean_score_scored": overall_json["mean_score_scored"],
        "num_errors": overall.errors,
        "elapsed_time_seconds": elapsed,
        "config": config,
        "overall": overall_json,
        "domains": domains.iter().map(|(d, g)| (d.to_string(), g.json())).collect::<serde_json::Map<_, _>>(),
        "tokens": tokens,
        "llm_seconds": llm,
        "sandbox_seconds": sandbox,
        "time_share": {"llm": llm / busy, "sandbox": sandbox / busy},
    })
}

/// A plain-text table of a summary.
pub fn table(summary: &Value) -> String {
    let mut out = format!(
        "{:<24} {:>6} {:>7} {:>7} {:>8}\n",
        "domain", "rows", "errors", "score", "scored"
    );
    let pct = |v: &Value| {
        v.as_f64()
            .map_or("-".to_string(), |s| format!("{:.1}%", s * 100.0))
    };
    let row = |name: &str, g: &Value| {
        format!(
            "{name:<24} {:>6} {:>7} {:>7} {:>8}\n",
            g["rows"].as_u64().unwrap_or(0),
            g["errors"].as_u64().unwrap_or(0),
            pct(&g["mean_score"]),
            pct(&g["mean_score_scored"]),
        )
    };
    if let Some(d) = summary["domains"].as_object() {
        for (name, g) in d {
            out.push_str(&row(name, g));
        }
    }
    out.push_str(&row("overall", &summary["overall"]));
    out.push_str(
        "score: error rows count as 0 (as the reference); scored: mean over rows with a score\n",
    );
    out
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A bar chart (SVG) of the score per domain for one or more labelled summaries (e.g.
/// sandbox vs llm mode).
pub fn svg(series: &[(&str, &Value)]) -> String {
    let mut domains: Vec<String> = series
        .iter()
        .flat_map(|(_, s)| {
            s["domains"]
                .as_object()
                .map(|d| d.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        })
        .collect();
    domains.sort();
    domains.dedup();
    domains.push("overall".into());
    let colors = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759"];
    let (bar, gap, left, top, height) =
        (22.0, 18.0, 60.0, 30.0 + 16.0 * series.len() as f64, 300.0);
    let group = bar * series.len() as f64 + gap;
    let width = (left + group * domains.len() as f64 + 40.0).max(420.0);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{:.0}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{left}\" y=\"22\" font-size=\"15\">Score per domain</text>\n",
        top + height + 90.0
    );
    for pct in [0, 25, 50, 75, 100] {
        let y = top + height * (1.0 - pct as f64 / 100.0);
        out.push_str(&format!(
            "<line x1=\"{left}\" x2=\"{:.0}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\">{pct}%</text>\n",
            width - 30.0,
            left - 6.0,
            y + 4.0
        ));
    }
    for (i, d) in domains.iter().enumerate() {
        let x0 = left + gap / 2.0 + group * i as f64;
        for (j, (_, s)) in series.iter().enumerate() {
            let g = if d == "overall" {
                &s["overall"]
            } else {
                &s["domains"][d.as_str()]
            };
            let Some(score) = g["mean_score"].as_f64() else {
                continue;
            };
            let h = height * score.clamp(0.0, 1.0);
            out.push_str(&format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{bar}\" height=\"{h:.1}\" fill=\"{}\"><title>{}: {:.1}%</title></rect>\n",
                x0 + bar * j as f64,
                top + height - h,
                colors[j % colors.len()],
                esc(d),
                score * 100.0
            ));
        }
        out.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" transform=\"rotate(-35 {:.1} {:.1})\">{}</text>\n",
            x0 + group / 2.0,
            top + height + 16.0,
            x0 + group / 2.0,
            top + height + 16.0,
            esc(d)
        ));
    }
    for (j, (label, _)) in series.iter().enumerate() {
        out.push_str(&format!(
            "<rect x=\"{:.0}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.0}\" y=\"{}\">{}</text>\n",
            width - 190.0,
            8 + 16 * j,
            colors[j % colors.len()],
            width - 174.0,
            19 + 16 * j,
            esc(label)
        ));
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_written_before_the_warning_field_still_resume() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        // A line as earlier versions wrote it (no `warning`), then one with it, then a torn one.
        let old = r#"{"key":"1#0","id":"1","repeat":0,"domain":"math","score":1.0,"error":null,"answer":"42","ground_truth":"42","stop":"submitted","steps":2,"tokens":10,"llm_seconds":0.1,"sandbox_seconds":0.2}"#;
        let mut new: RowResult = serde_json::from_str(old).unwrap();
        new.key = "2#0".into();
        new.warning = Some("the trajectory is incomplete".into());
        let text = format!(
            "{old}\n{}\n{{\"key\":\"3#",
            serde_json::to_string(&new).unwrap()
        );
        std::fs::write(&path, text).unwrap();
        let rows = read_results(&path);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].key.as_str(), rows[0].warning.as_deref()),
            ("1#0", None)
        );
        assert_eq!(
            rows[1].warning.as_deref(),
            Some("the trajectory is incomplete")
        );
        // Rows without a warning are written without the field, as before.
        assert!(!serde_json::to_string(&rows[0]).unwrap().contains("warning"));
    }
}
