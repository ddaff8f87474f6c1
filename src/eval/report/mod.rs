//! Results: one JSON line per finished row (`results.jsonl`), and the summary (`results.json`,
//! a table, an SVG chart) computed from those lines only, so a merge of shards gives the same
//! summary as one run.

mod chart;
mod finish;

pub use chart::svg;
pub(crate) use finish::safe;
pub use finish::{finish, finish_with, log_stem, trajectory_dir};

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
    /// Model turns without a tool call the episode recognized (each got the nudge).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub no_call_steps: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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

#[derive(Default)]
struct Group {
    n: usize,
    scored: usize,
    errors: usize,
    sum: f64,
    /// Per repeat index: (score sum with errors as 0, rows).
    repeats: BTreeMap<u32, (f64, usize)>,
}

impl Group {
    fn add(&mut self, r: &RowResult) {
        self.n += 1;
        let rep = self.repeats.entry(r.repeat).or_default();
        rep.1 += 1;
        match r.score {
            Some(s) => {
                self.scored += 1;
                self.sum += s;
                rep.0 += s;
            }
            None => self.errors += 1,
        }
    }
    /// `mean_score` counts error rows as 0, as the reference does; `mean_score_scored` is the
    /// mean over the rows that have a score, so nothing is hidden. With more than one repeat,
    /// `spread` is the lowest and highest of the per-repeat mean scores.
    fn json(&self) -> Value {
        let mean = (self.n > 0).then(|| self.sum / self.n as f64);
        let scored = (self.scored > 0).then(|| self.sum / self.scored as f64);
        let mut out = json!({"mean_score": mean, "mean_score_scored": scored, "rows": self.n,
               "scored": self.scored, "errors": self.errors});
        if self.repeats.len() > 1 {
            let means: Vec<f64> = self
                .repeats
                .values()
                .map(|(sum, n)| sum / (*n).max(1) as f64)
                .collect();
            let min = means.iter().copied().fold(f64::INFINITY, f64::min);
            let max = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            out["spread"] = json!({"repeats": means.len(), "min": min, "max": max});
        }
        out
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
    let mut no_call = 0u64;
    for r in &sorted {
        overall.add(r);
        domains.entry(&r.domain).or_default().add(r);
        tokens += r.tokens;
        no_call += u64::from(r.no_call_steps);
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
        "turns_without_tool_call": no_call,
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
    let pct = pct_or_dash;
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
    if let Some(n) = summary["turns_without_tool_call"]
        .as_u64()
        .filter(|n| *n > 0)
    {
        out.push_str(&format!(
            "turns without a tool call: {n} (each got the reference's \"use a function call\" nudge)\n"
        ));
    }
    out
}

/// Text safe inside XML 1.0 (element text or a quoted attribute): the five special characters
/// escaped, and the characters XML 1.0 cannot carry at all (most C0 controls, lone surrogates
/// cannot occur in a `str`, U+FFFE/U+FFFF) dropped. Answers may contain anything.
/// Ours rather than `quick-xml`'s escaping: that one keeps the characters XML 1.0 cannot carry.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

fn esc(s: &str) -> String {
    xml_escape(s)
}

fn pct_or_dash(v: &Value) -> String {
    v.as_f64()
        .map_or("-".to_string(), |s| format!("{:.1}%", s * 100.0))
}

/// A Markdown summary (`summary.md`, and what goes to `$GITHUB_STEP_SUMMARY`): a heading
/// naming the task, model and mode, and a table per domain plus the overall row.
pub fn markdown(summary: &Value) -> String {
    let c = &summary["config"];
    let cell = |s: &str| s.replace('|', "\\|").replace(['\n', '\r'], " ");
    let mut out = format!(
        "### {} ({}, {})\n\n| domain | rows | errors | score | scored |\n|---|---:|---:|---:|---:|\n",
        cell(summary["task"].as_str().unwrap_or("benchmark")),
        cell(c["model"].as_str().unwrap_or("?")),
        cell(c["mode"].as_str().unwrap_or("?")),
    );
    let row = |name: &str, g: &Value, bold: bool| {
        let b = if bold { "**" } else { "" };
        format!(
            "| {b}{}{b} | {} | {} | {b}{}{b} | {} |\n",
            cell(name),
            g["rows"].as_u64().unwrap_or(0),
            g["errors"].as_u64().unwrap_or(0),
            pct_or_dash(&g["mean_score"]),
            pct_or_dash(&g["mean_score_scored"]),
        )
    };
    if let Some(d) = summary["domains"].as_object() {
        for (name, g) in d {
            out.push_str(&row(name, g, false));
        }
    }
    out.push_str(&row("overall", &summary["overall"], true));
    out.push_str(&format!(
        "\nscore: error rows count as 0; scored: mean over rows with a score. {:.0} s.\n",
        summary["elapsed_time_seconds"].as_f64().unwrap_or(0.0)
    ));
    out
}

/// At most `max` characters of `s`, with `...` when cut.
fn clip(s: &str, max: usize) -> String {
    let mut chars = s.chars();
    let head: String = chars.by_ref().take(max).collect();
    if chars.next().is_some() {
        format!("{head}...")
    } else {
        head
    }
}

/// JUnit XML of a run's rows, the shape CI systems read (GitHub, GitLab, Jenkins): one
/// `<testsuite>` per domain inside `<testsuites>`, one `<testcase>` per row (`classname` the
/// domain, `name` the id, with `#repeat` when rows ran more than once, `time` the row's model
/// plus sandbox seconds). A row scoring below 1 has a `<failure>` (answer vs ground truth), a
/// row without a score an `<error>` (its message).
/// Written by hand rather than with an XML or JUnit crate: one fixed shape, escaped by
/// [`xml_escape`], and no dependency for a few dozen lines.
pub fn junit(results: &[RowResult], task: &str) -> String {
    let mut sorted: Vec<&RowResult> = results.iter().collect();
    sorted.sort_by(|a, b| a.key.cmp(&b.key));
    sorted.dedup_by(|a, b| a.key == b.key);
    let repeated = sorted.iter().any(|r| r.repeat > 0);
    let mut suites: BTreeMap<&str, Vec<&RowResult>> = BTreeMap::new();
    for r in &sorted {
        suites.entry(r.domain.as_str()).or_default().push(r);
    }
    let time = |r: &RowResult| (r.llm_seconds + r.sandbox_seconds).max(0.0);
    let count = |rows: &[&RowResult]| {
        let errors = rows.iter().filter(|r| r.score.is_none()).count();
        let failures = rows
            .iter()
            .filter(|r| r.score.is_some_and(|s| s < 1.0))
            .count();
        let seconds: f64 = rows.iter().map(|r| time(r)).sum();
        (rows.len(), failures, errors, seconds)
    };
    let (n, f, e, t) = count(&sorted);
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{}\" tests=\"{n}\" failures=\"{f}\" errors=\"{e}\" time=\"{t:.3}\">\n",
        esc(task)
    );
    for (domain, rows) in &suites {
        let (n, f, e, t) = count(rows);
        let name = if domain.is_empty() { "(none)" } else { domain };
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{n}\" failures=\"{f}\" errors=\"{e}\" skipped=\"0\" time=\"{t:.3}\">\n",
            esc(name)
        ));
        for r in rows {
            let case = if repeated {
                format!("{}#{}", r.id, r.repeat)
            } else {
                r.id.clone()
            };
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                esc(name),
                esc(&case),
                time(r)
            ));
            let answer = r.answer.as_deref().unwrap_or("");
            match (r.score, &r.error) {
                (Some(s), _) if s >= 1.0 => out.push_str("/>\n"),
                (Some(s), _) => out.push_str(&format!(
                    ">\n      <failure message=\"{}\" type=\"score\">score: {s}\nanswer: {}\nground truth: {}</failure>\n    </testcase>\n",
                    esc(&format!(
                        "score {s:.2}: answer {:?} vs ground truth {:?}",
                        clip(answer, 120),
                        clip(&r.ground_truth, 120)
                    )),
                    esc(answer),
                    esc(&r.ground_truth)
                )),
                (None, error) => {
                    let msg = error.as_deref().unwrap_or("no score");
                    out.push_str(&format!(
                        ">\n      <error message=\"{}\" type=\"error\">{}</error>\n    </testcase>\n",
                        esc(&clip(msg, 200)),
                        esc(msg)
                    ));
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
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

    fn row(id: &str, repeat: u32, domain: &str, score: Option<f64>) -> RowResult {
        RowResult {
            key: format!("{id}#{repeat}"),
            id: id.into(),
            repeat,
            domain: domain.into(),
            score,
            error: score.is_none().then(|| "LLM error: boom".to_string()),
            answer: Some("a\u{0}b\u{1b}[31m<&>\u{fffe}".into()),
            ground_truth: "1".into(),
            stop: "submitted".into(),
            steps: 1,
            tokens: 1,
            llm_seconds: 0.25,
            sandbox_seconds: 0.5,
            warning: None,
            problem_statement: None,
            reward: None,
            judge: None,
            no_call_steps: 0,
        }
    }

    #[test]
    fn spread_is_the_min_and_max_of_the_per_repeat_means() {
        // Repeat 0: 2/2 right; repeat 1: 1/2 (an error counts 0); repeat 2: 0/2.
        let rows = [
            row("a", 0, "math", Some(1.0)),
            row("b", 0, "math", Some(1.0)),
            row("a", 1, "math", Some(1.0)),
            row("b", 1, "math", None),
            row("a", 2, "math", Some(0.0)),
            row("b", 2, "math", Some(0.0)),
        ];
        let s = summarize(&rows, &json!({}), 0.0);
        assert_eq!(
            s["domains"]["math"]["spread"],
            json!({"repeats": 3, "min": 0.0, "max": 1.0})
        );
        assert_eq!(s["overall"]["mean_score"], 0.5);
        // One repeat: no spread.
        let s = summarize(&rows[..2], &json!({}), 0.0);
        assert!(s["overall"].get("spread").is_none(), "{s}");
        let svg = svg(&[("m llm", &summarize(&rows, &json!({}), 0.0))]);
        assert_eq!(
            svg.matches("class=\"spread\"").count(),
            2,
            "math and overall"
        );
    }

    #[test]
    fn junit_drops_what_xml_cannot_carry_and_counts_right() {
        let rows = [
            row("ok", 0, "math", Some(1.0)),
            row("half", 0, "math", Some(0.5)),
            row("err", 0, "phys<ics>", None),
        ];
        let xml = junit(&rows, "t&t");
        assert!(!xml.contains('\u{0}') && !xml.contains('\u{1b}') && !xml.contains('\u{fffe}'));
        assert!(xml.contains("ab[31m&lt;&amp;&gt;"), "{xml}");
        assert!(
            xml.contains("<testsuites name=\"t&amp;t\" tests=\"3\" failures=\"1\" errors=\"1\" time=\"2.250\">"),
            "{xml}"
        );
        assert!(
            xml.contains(
                "<testsuite name=\"phys&lt;ics&gt;\" tests=\"1\" failures=\"0\" errors=\"1\""
            ),
            "{xml}"
        );
        assert!(
            xml.contains("<testcase classname=\"math\" name=\"ok\" time=\"0.750\"/>"),
            "{xml}"
        );
    }
}
