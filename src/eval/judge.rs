//! LLM-as-judge: a second model decides whether an answer agrees with the official one, the way
//! the reference package's `judge.py` scores its physics and long-context tasks after a run.
//!
//! The protocol, as the reference does it: one user message per repeat (default 4) asking for
//! CORRECT or INCORRECT, with the question given for reference only; text up to the first
//! `</think>` of the candidate is dropped; sampled at temperature 0.7 with at most 16384 new
//! tokens; the verdict is the later of the last `CORRECT` (not part of `INCORRECT`) and the last
//! `INCORRECT`, case-insensitively; a row's score is the mean over its repeats with CORRECT = 1
//! and INCORRECT, UNKNOWN (neither word) and ERROR (a failed call) = 0.
//!
//! [`rejudge_run`] applies this to a finished benchmark run folder, resumably.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::task::JoinSet;

use super::report::{RowResult, read_results};
use crate::llm::{Client, LlmConfig, LlmError, Message};

/// The reference's judge temperature.
pub const DEFAULT_TEMPERATURE: f64 = 0.7;
/// The reference's judge repeats per row.
pub const DEFAULT_REPEATS: u32 = 4;
/// The reference's judge `max_tokens`.
pub const DEFAULT_MAX_TOKENS: u32 = 16384;

/// Settings of a judge.
#[derive(Debug, Clone)]
pub struct JudgeSettings {
    /// The judge model's endpoint (its `temperature` is sent with every call).
    pub llm: LlmConfig,
    /// Calls per answer; the score is their mean. At least 1 is used.
    pub repeats: u32,
    /// `max_tokens` of each call.
    pub max_tokens: u32,
    /// The user message, with `{question}`, `{ground_truth}` and `{model_answer}` to fill: the
    /// reference's own (its `judge.py`'s f-string, [`crate::reference::Reference::judge_template`]),
    /// as the commands pass it. `None`: our wording ([`prompt`]).
    pub template: Option<String>,
}

impl JudgeSettings {
    /// The reference's defaults: 4 repeats, 16384 tokens, temperature 0.7 unless `llm` sets one.
    pub fn new(mut llm: LlmConfig) -> Self {
        llm.temperature.get_or_insert(DEFAULT_TEMPERATURE);
        JudgeSettings {
            llm,
            repeats: DEFAULT_REPEATS,
            max_tokens: DEFAULT_MAX_TOKENS,
            template: None,
        }
    }
}

/// What one judge reply says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    /// The candidate agrees with the official answer.
    Correct,
    /// It does not.
    Incorrect,
    /// The reply says neither.
    Unknown,
}

impl Verdict {
    /// `CORRECT`, `INCORRECT` or `UNKNOWN`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Correct => "CORRECT",
            Verdict::Incorrect => "INCORRECT",
            Verdict::Unknown => "UNKNOWN",
        }
    }

    /// 1 for CORRECT, 0 otherwise.
    pub fn score(self) -> f64 {
        if self == Verdict::Correct { 1.0 } else { 0.0 }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict of a judge reply: compared case-insensitively (the reply is upper-cased), the
/// later of the last `CORRECT` that is not the tail of an `INCORRECT` and the last `INCORRECT`
/// wins; a reply with neither is [`Verdict::Unknown`].
pub fn verdict(reply: &str) -> Verdict {
    let upper = reply.to_uppercase();
    let last_incorrect = upper.rfind("INCORRECT");
    let last_correct = upper
        .rmatch_indices("CORRECT")
        .map(|(i, _)| i)
        .find(|&i| !upper[..i].ends_with("IN"));
    match (last_correct, last_incorrect) {
        (None, None) => Verdict::Unknown,
        (Some(c), Some(i)) if i > c => Verdict::Incorrect,
        (None, Some(_)) => Verdict::Incorrect,
        (Some(_), _) => Verdict::Correct,
    }
}

/// The answer without the model's thinking: when it contains `</think>`, what follows the first
/// one, trimmed; otherwise the text unchanged.
pub fn strip_thinking(text: &str) -> &str {
    match text.split_once("</think>") {
        Some((_, after)) => after.trim(),
        None => text,
    }
}

/// The judge's user message for one answer (the candidate's thinking already dropped).
pub fn prompt(question: &str, candidate: &str, ground_truth: &str) -> String {
    format!(
        "Decide whether the CANDIDATE ANSWER below is CORRECT or INCORRECT. It is correct only \
         if it agrees with the OFFICIAL ANSWER.\n\n\
         Question (given for reference only): {question}\n\
         OFFICIAL ANSWER: {ground_truth}\n\
         CANDIDATE ANSWER: {candidate}\n\n\
         Reply with one word only: CORRECT or INCORRECT."
    )
}

/// `template` with `{question}`, `{ground_truth}` and `{model_answer}` filled in one pass (as
/// the reference's f-string: a value that contains a placeholder's text is left as it is).
pub fn fill_template(
    template: &str,
    question: &str,
    candidate: &str,
    ground_truth: &str,
) -> String {
    let mut out = String::with_capacity(template.len() + question.len() + candidate.len());
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let hit = [
            ("{question}", question),
            ("{ground_truth}", ground_truth),
            ("{model_answer}", candidate),
        ]
        .into_iter()
        .find(|(p, _)| tail.starts_with(p));
        match hit {
            Some((p, value)) => {
                out.push_str(value);
                rest = &tail[p.len()..];
            }
            None => {
                out.push('{');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The judgment of one answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgment {
    /// Mean over the repeats of 1 for CORRECT and 0 for anything else: INCORRECT, UNKNOWN and
    /// ERROR all count 0, as in the reference.
    pub score: f64,
    /// One per repeat, in repeat order: `CORRECT`, `INCORRECT`, `UNKNOWN`, or `ERROR: message`
    /// when the call failed.
    pub verdicts: Vec<String>,
}

impl Judgment {
    /// Whether a call failed (such a judgment is made again by the next [`rejudge_run`]).
    pub fn has_error(&self) -> bool {
        self.verdicts.iter().any(|v| v.starts_with("ERROR"))
    }
}

/// A judge model: one HTTP client shared by every call.
#[derive(Debug, Clone)]
pub struct Judge {
    client: Client,
    repeats: u32,
    max_tokens: u32,
    template: Option<String>,
}

impl Judge {
    /// Build the judge's client.
    ///
    /// # Errors
    /// [`LlmError::Setup`] when the HTTP client cannot be built.
    pub fn new(settings: JudgeSettings) -> Result<Judge, LlmError> {
        Ok(Judge {
            client: Client::new(settings.llm)?,
            repeats: settings.repeats.max(1),
            max_tokens: settings.max_tokens,
            template: settings.template,
        })
    }

    /// The judge model's name.
    pub fn model(&self) -> &str {
        &self.client.config().model
    }

    /// Calls per answer.
    pub fn repeats(&self) -> u32 {
        self.repeats
    }

    /// One call: the verdict's name, or `ERROR: message`.
    async fn call(client: Client, max_tokens: u32, prompt: String) -> String {
        let messages = [Message::text("user", prompt)];
        match client.chat(&messages, None, Some(max_tokens)).await {
            Ok(r) => verdict(r.message.content.as_deref().unwrap_or(""))
                .as_str()
                .to_string(),
            Err(e) => format!("ERROR: {e}"),
        }
    }

    /// Judge `candidate` against `ground_truth` with all repeats at once. Never fails: a failed
    /// call is an `ERROR: ...` verdict that scores 0.
    pub async fn judge(&self, question: &str, candidate: &str, ground_truth: &str) -> Judgment {
        let candidate = strip_thinking(candidate);
        let text = match &self.template {
            Some(t) => fill_template(t, question, candidate, ground_truth),
            None => prompt(question, candidate, ground_truth),
        };
        let mut calls = JoinSet::new();
        for i in 0..self.repeats {
            let (client, text) = (self.client.clone(), text.clone());
            let max_tokens = self.max_tokens;
            calls.spawn(async move { (i, Judge::call(client, max_tokens, text).await) });
        }
        let mut verdicts = vec![String::new(); self.repeats as usize];
        while let Some(joined) = calls.join_next().await {
            match joined {
                Ok((i, v)) => {
                    if let Some(slot) = verdicts.get_mut(i as usize) {
                        *slot = v;
                    }
                }
                Err(e) => {
                    if let Some(slot) = verdicts.iter_mut().find(|s| s.is_empty()) {
                        *slot = format!("ERROR: the judge call did not finish: {e}");
                    }
                }
            }
        }
        let correct = verdicts
            .iter()
            .filter(|v| v.as_str() == Verdict::Correct.as_str())
            .count();
        Judgment {
            score: correct as f64 / verdicts.len().max(1) as f64,
            verdicts,
        }
    }
}

/// Why a run folder could not be judged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JudgeError {
    /// No `results.jsonl`, or none of its lines is a row.
    #[error("{} has no finished rows to judge (no readable results.jsonl in it)", dir.display())]
    NoResults {
        /// The run folder.
        dir: PathBuf,
    },
    /// `config.json` is missing or not JSON.
    #[error("cannot read the run's settings {}: {detail}", path.display())]
    Config {
        /// `config.json`.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// A file of the run folder could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

fn io_err<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> JudgeError + 'a {
    move |source| JudgeError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The folder name the benchmark gives an episode's trajectory: the row id with every
/// character other than ASCII letters, digits, `-`, `_` and `.` replaced by `_`, then
/// `_<repeat>`. This is the id part.
fn trajectory_dir_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The id part of a trajectory folder name `<id>_<repeat>` (only the last `_<digits>` is the
/// repeat, so `a_1_0` is row `a_1`, and `10_0` is never row `1`).
fn id_of_trajectory_dir(name: &str) -> Option<&str> {
    let (id, repeat) = name.rsplit_once('_')?;
    (!repeat.is_empty() && repeat.bytes().all(|b| b.is_ascii_digit())).then_some(id)
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The problem statement of each row of a run folder, by row id: from the reference's combined
/// `RUN_DIR/trajectory.json` (id -> `{problem_statement, ...}`) when present, and from each
/// episode's `RUN_DIR/trajectories/<id>_<repeat>/trajectory.json` (its `problem_statement`,
/// keyed by its `id` field, or, for a trajectory without one, by the folder name's id part as
/// the benchmark spells it). Unreadable files are skipped: a missing statement is judged as the
/// empty question, as the reference does.
pub fn problem_statements(run_dir: &Path) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let combined = run_dir.join("trajectory.json");
    if std::fs::metadata(&combined).is_ok_and(|m| m.is_file())
        && let Ok(bytes) = std::fs::read(&combined)
        && let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(&bytes)
    {
        for (id, entry) in map {
            if let Some(ps) = entry.get("problem_statement").and_then(Value::as_str) {
                out.insert(id, ps.to_string());
            }
        }
    }
    let Ok(entries) = std::fs::read_dir(run_dir.join("trajectories")) else {
        return out;
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let Ok(doc) = crate::agent::trajectory::read(&dir) else {
            continue;
        };
        let Some(ps) = doc.get("problem_statement").and_then(Value::as_str) else {
            continue;
        };
        let id = match doc.get("id").and_then(text_of) {
            Some(id) => id,
            None => {
                let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
                match name.as_deref().and_then(id_of_trajectory_dir) {
                    Some(id) => id.to_string(),
                    None => continue,
                }
            }
        };
        out.entry(id).or_insert_with(|| ps.to_string());
    }
    out
}

/// One line of `judgments.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct JudgmentLine {
    key: String,
    id: String,
    score: f64,
    verdicts: Vec<String>,
    judge_model: String,
    /// The row's score before any judge touched it.
    #[serde(default)]
    previous_score: Option<f64>,
    /// The scorer's error the judged score replaced, if there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous_error: Option<String>,
}

/// Whether a row is judged: every row except those whose episode failed (an error and no
/// answer); a row whose scorer failed on an answer is judged, and the judge's score replaces
/// the error.
fn judgeable(r: &RowResult) -> bool {
    r.error.is_none() || r.answer.is_some()
}

/// Re-score a finished benchmark run folder with `judge`, rows `workers` at a time (each row
/// sends its repeats at once, so up to `workers × repeats` calls are in flight).
///
/// Each row's judgment is appended to `RUN_DIR/judgments.jsonl` (`{key, id, score, verdicts,
/// judge_model, previous_score}`) and flushed as it finishes, so a killed re-judge resumes:
/// rows already judged there by the same model are not judged again, except judgments with an
/// `ERROR` verdict (a failed call), which are retried. Rows whose episode failed (an error, no
/// answer) keep their error; a missing answer is judged as the empty answer. Then
/// `results.jsonl` is rewritten (temporary file + rename) with each judged row's score set to
/// its judged score, and `results.json` regenerated (its `config` gains a `judge` entry); its
/// content is returned. `progress(done, total)` is called after each row judged now.
///
/// # Errors
/// [`JudgeError`]: no `results.jsonl` rows, unreadable `config.json`, or a file of the folder
/// that cannot be read or written (judgments already appended stay for the next attempt).
pub async fn rejudge_run(
    run_dir: &Path,
    judge: &Judge,
    workers: usize,
    progress: &dyn Fn(usize, usize),
) -> Result<Value, JudgeError> {
    let results_path = run_dir.join("results.jsonl");
    let rows = read_results(&results_path);
    if rows.is_empty() {
        return Err(JudgeError::NoResults {
            dir: run_dir.to_path_buf(),
        });
    }
    let mut config = read_config(&run_dir.join("config.json"))?;
    let judgments_path = run_dir.join("judgments.jsonl");
    let mut earlier = Judgments::read(&judgments_path, judge.model())?;
    let statements = problem_statements(run_dir);
    let todo = earlier.to_judge(&rows);
    if !todo.is_empty() {
        let sink = JudgmentSink::open(&judgments_path)?;
        judge_rows(
            todo,
            judge,
            workers,
            &statements,
            &mut earlier,
            sink,
            progress,
        )
        .await?;
    }
    rewrite_results(&results_path, rows, &earlier.done)?;
    if let Some(c) = config.as_object_mut() {
        c.insert(
            "judge".into(),
            json!({"model": judge.model(), "repeats": judge.repeats()}),
        );
    }
    super::report::finish(run_dir, &config).map_err(io_err("write the results in", run_dir))
}

/// The run's `config.json`.
fn read_config(config_path: &Path) -> Result<Value, JudgeError> {
    let config_text = std::fs::read(config_path).map_err(|e| JudgeError::Config {
        path: config_path.to_path_buf(),
        detail: e.to_string(),
    })?;
    serde_json::from_slice(&config_text).map_err(|e| JudgeError::Config {
        path: config_path.to_path_buf(),
        detail: format!("not valid JSON: {e}"),
    })
}

/// What earlier re-judges recorded in `judgments.jsonl`.
struct Judgments {
    /// By row key, the judgments of this judge model (the last line of a key wins).
    done: HashMap<String, JudgmentLine>,
    /// By row key, the score and error the row had before any judge (the first line wins).
    original: HashMap<String, (Option<f64>, Option<String>)>,
}

impl Judgments {
    fn read(judgments_path: &Path, model: &str) -> Result<Judgments, JudgeError> {
        let mut done: HashMap<String, JudgmentLine> = HashMap::new();
        let mut original: HashMap<String, (Option<f64>, Option<String>)> = HashMap::new();
        if std::fs::metadata(judgments_path).is_ok_and(|m| m.is_file()) {
            let text =
                std::fs::read_to_string(judgments_path).map_err(io_err("read", judgments_path))?;
            for line in text.lines() {
                let Ok(j) = serde_json::from_str::<JudgmentLine>(line) else {
                    continue; // a torn line from a kill
                };
                original
                    .entry(j.key.clone())
                    .or_insert((j.previous_score, j.previous_error.clone()));
                if j.judge_model == model {
                    done.insert(j.key.clone(), j);
                } else {
                    done.remove(&j.key);
                }
            }
        }
        Ok(Judgments { done, original })
    }

    /// The judgeable rows (each key once, by key) not judged yet or whose judgment failed.
    fn to_judge<'r>(&self, rows: &'r [RowResult]) -> Vec<&'r RowResult> {
        let mut seen = HashSet::new();
        let mut todo: Vec<&RowResult> = rows
            .iter()
            .filter(|r| judgeable(r) && seen.insert(r.key.clone()))
            .filter(|r| {
                self.done
                    .get(&r.key)
                    .is_none_or(|j| j.verdicts.iter().any(|v| v.starts_with("ERROR")))
            })
            .collect();
        todo.sort_by(|a, b| a.key.cmp(&b.key));
        todo
    }
}

/// `judgments.jsonl` opened for appending, a torn last line from a kill removed first.
struct JudgmentSink {
    path: PathBuf,
    file: std::fs::File,
}

impl JudgmentSink {
    fn open(path: &Path) -> Result<JudgmentSink, JudgeError> {
        crate::fsutil::drop_torn_tail(path).map_err(io_err("repair", path))?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io_err("open", path))?;
        Ok(JudgmentSink {
            path: path.to_path_buf(),
            file,
        })
    }

    /// One line, flushed at once.
    fn append(&mut self, line: &JudgmentLine) -> Result<(), JudgeError> {
        let mut text = serde_json::to_vec(line).map_err(|e| JudgeError::Io {
            action: "encode a judgment for",
            path: self.path.clone(),
            source: e.into(),
        })?;
        text.push(b'\n');
        self.file
            .write_all(&text)
            .and_then(|()| self.file.flush())
            .map_err(io_err("append to", &self.path))
    }
}

/// Judge `todo`, `workers` rows at a time, appending each judgment to `sink` as it comes and
/// recording it in `earlier.done`.
async fn judge_rows(
    todo: Vec<&RowResult>,
    judge: &Judge,
    workers: usize,
    statements: &HashMap<String, String>,
    earlier: &mut Judgments,
    mut sink: JudgmentSink,
    progress: &dyn Fn(usize, usize),
) -> Result<(), JudgeError> {
    let statement = |id: &str| {
        statements
            .get(id)
            .or_else(|| statements.get(&trajectory_dir_id(id)))
            .cloned()
            .unwrap_or_default()
    };
    let total = todo.len();
    let mut pending = todo.into_iter();
    let mut running = JoinSet::new();
    let mut finished = 0;
    loop {
        while running.len() < workers.max(1)
            && let Some(r) = pending.next()
        {
            let previous = earlier
                .original
                .get(&r.key)
                .cloned()
                .unwrap_or((r.score, r.error.clone()));
            running.spawn(judge_one(judge.clone(), statement(&r.id), r, previous));
        }
        let Some(joined) = running.join_next().await else {
            break;
        };
        // A judging task only awaits calls that cannot panic; one that did is not
        // recorded, and the next re-judge does it again.
        let Ok(line) = joined else { continue };
        sink.append(&line)?;
        earlier.done.insert(line.key.clone(), line);
        finished += 1;
        progress(finished, total);
    }
    Ok(())
}

/// The judgment of one row (a future owning all it needs, to run on the join set).
fn judge_one(
    judge: Judge,
    question: String,
    r: &RowResult,
    (prev_score, prev_error): (Option<f64>, Option<String>),
) -> impl std::future::Future<Output = JudgmentLine> + Send + 'static {
    let candidate = r.answer.clone().unwrap_or_default();
    let truth = r.ground_truth.clone();
    let (key, id, model) = (r.key.clone(), r.id.clone(), judge.model().to_string());
    async move {
        let j = judge.judge(&question, &candidate, &truth).await;
        JudgmentLine {
            key,
            id,
            score: j.score,
            verdicts: j.verdicts,
            judge_model: model,
            previous_score: prev_score,
            previous_error: prev_error,
        }
    }
}

/// Rewrite `results.jsonl` (temporary file + rename) with each judged row's judged score.
fn rewrite_results(
    results_path: &Path,
    rows: Vec<RowResult>,
    done: &HashMap<String, JudgmentLine>,
) -> Result<(), JudgeError> {
    let mut out = Vec::new();
    for mut r in rows {
        if judgeable(&r)
            && let Some(j) = done.get(&r.key)
        {
            r.score = Some(j.score);
            r.error = None;
        }
        let line = serde_json::to_vec(&r).map_err(|e| JudgeError::Io {
            action: "encode a row for",
            path: results_path.to_path_buf(),
            source: e.into(),
        })?;
        out.extend_from_slice(&line);
        out.push(b'\n');
    }
    crate::fsutil::write_atomic(results_path, &out).map_err(io_err("rewrite", results_path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trajectory_folder_names_give_back_the_id() {
        assert_eq!(id_of_trajectory_dir("10_0"), Some("10"));
        assert_eq!(id_of_trajectory_dir("a_1_3"), Some("a_1"));
        assert_eq!(id_of_trajectory_dir("a_b"), None);
        assert_eq!(id_of_trajectory_dir("a_"), None);
        assert_eq!(trajectory_dir_id("x/y z"), "x_y_z");
    }

    #[test]
    fn templates_fill_in_one_pass() {
        assert_eq!(
            fill_template(
                "Q: {question}\nA: {ground_truth}\nC: {model_answer} {x}",
                "{ground_truth}?",
                "c",
                "g"
            ),
            "Q: {ground_truth}?\nA: g\nC: c {x}"
        );
    }

    #[test]
    fn a_correct_inside_incorrect_is_not_counted() {
        // The last CORRECT that is not the tail of INCORRECT comes first here.
        assert_eq!(verdict("CORRECT? no: INCORRECT"), Verdict::Incorrect);
        assert_eq!(verdict("incorrectly... correct"), Verdict::Correct);
    }
}
