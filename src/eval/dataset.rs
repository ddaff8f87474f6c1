//! Dataset rows in the reference format and task directories.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::score::Scorer;

/// One task row: `{id, domain, problem_statement, ground_truth, input_files}`; other fields are
/// kept and passed to `reward.py` as keyword arguments.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Row {
    /// Row id (numbers are kept as their text).
    pub id: String,
    /// Domain, for per-domain scores (default `general`).
    pub domain: String,
    /// The task text.
    pub problem_statement: String,
    /// The expected answer, as text.
    pub ground_truth: String,
    /// Files given to the model under `/testbed/documents/`.
    pub input_files: BTreeMap<String, String>,
    /// A per-row scorer name (our extension; default: the task's scorer).
    pub scorer: Option<String>,
    /// Every other field of the row.
    pub extra: Map<String, Value>,
}

/// A row that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowError {
    /// 1-based line number in the JSONL file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn parse_row(line: &str) -> Result<Row, String> {
    let Value::Object(mut o) =
        serde_json::from_str::<Value>(line).map_err(|e| format!("not valid JSON: {e}"))?
    else {
        return Err("not a JSON object".into());
    };
    let mut take_text = |key: &str, required: bool| -> Result<Option<String>, String> {
        match o.remove(key) {
            None | Some(Value::Null) if required => Err(format!("missing field `{key}`")),
            None | Some(Value::Null) => Ok(None),
            Some(v) => text_of(&v)
                .map(Some)
                .ok_or_else(|| format!("field `{key}` must be a string or a number")),
        }
    };
    let id = take_text("id", true)?.unwrap_or_default();
    let problem_statement = take_text("problem_statement", true)?.unwrap_or_default();
    let ground_truth = take_text("ground_truth", true)?.unwrap_or_default();
    let domain = take_text("domain", false)?.unwrap_or_else(|| "general".into());
    let scorer = take_text("scorer", false)?;
    if let Some(name) = &scorer
        && Scorer::by_name(name).is_none()
    {
        return Err(format!("unknown scorer {name:?}; use {}", Scorer::NAMES));
    }
    let input_files = match o.remove("input_files") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::String(s)) if s.trim().is_empty() => BTreeMap::new(),
        Some(Value::String(s)) => files_of(
            &serde_json::from_str(&s)
                .map_err(|e| format!("`input_files` is a string but not JSON: {e}"))?,
        )?,
        Some(v) => files_of(&v)?,
    };
    for name in input_files.keys() {
        if name.is_empty() || name.starts_with('/') || name.split('/').any(|c| c == "..") {
            return Err(format!(
                "input file name {name:?} must be a relative path without `..`"
            ));
        }
    }
    Ok(Row {
        id,
        domain,
        problem_statement,
        ground_truth,
        input_files,
        scorer,
        extra: o,
    })
}

fn files_of(v: &Value) -> Result<BTreeMap<String, String>, String> {
    let Value::Object(o) = v else {
        return Err("`input_files` must map file names to contents".into());
    };
    o.iter()
        .map(|(k, v)| {
            text_of(v)
                .map(|t| (k.clone(), t))
                .ok_or_else(|| format!("input file {k:?} must have text content"))
        })
        .collect()
}

/// Parse JSONL: good rows, and errors with line numbers (blank lines are skipped).
pub fn parse_jsonl(text: &str) -> (Vec<Row>, Vec<RowError>) {
    let (mut rows, mut errors) = (Vec::new(), Vec::new());
    let mut seen = std::collections::HashSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_row(line) {
            Ok(row) if !seen.insert(row.id.clone()) => errors.push(RowError {
                line: i + 1,
                message: format!("duplicate id {:?}", row.id),
            }),
            Ok(row) => rows.push(row),
            Err(message) => errors.push(RowError {
                line: i + 1,
                message,
            }),
        }
    }
    (rows, errors)
}

/// A task: its rows, scorer, and optional prompts and `reward.py`.
#[derive(Debug, Clone)]
pub struct TaskSpec {
    /// Name used in output folder names.
    pub name: String,
    /// The JSONL text.
    pub data: String,
    /// Default scorer for rows without their own.
    pub scorer: Scorer,
    /// Prompt file for sandbox mode.
    pub prompt_config: Option<PathBuf>,
    /// Instruction for plain-LLM mode (replaces ours).
    pub llm_prompt: Option<String>,
}

/// Errors loading a task.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The task config is invalid.
    #[error("{path}: {detail}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// No such task.
    #[error("no task named {0:?}: give a task directory, or one of: {1}")]
    Unknown(String, String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskConfig {
    #[serde(alias = "dataset", alias = "data_path")]
    data: PathBuf,
    #[serde(default)]
    scorer: Option<String>,
    #[serde(default)]
    prompt_config: Option<PathBuf>,
    #[serde(default)]
    llm_prompt: Option<PathBuf>,
    #[serde(default)]
    name: Option<String>,
}

fn read(path: &Path) -> Result<String, TaskError> {
    std::fs::read_to_string(path).map_err(|source| TaskError::Read {
        path: path.to_path_buf(),
        source,
    })
}

impl TaskSpec {
    /// A task directory: `config.yaml` (`data`, `scorer`, optional `prompt_config` and
    /// `llm_prompt`, relative to the directory) and an optional `reward.py`, which then scores.
    ///
    /// # Errors
    /// [`TaskError`] naming the file at fault.
    pub fn from_dir(dir: &Path) -> Result<TaskSpec, TaskError> {
        let cfg_path = dir.join("config.yaml");
        let cfg: TaskConfig =
            serde_norway::from_str(&read(&cfg_path)?).map_err(|e| TaskError::Invalid {
                path: cfg_path.clone(),
                detail: e.to_string(),
            })?;
        let reward = dir.join("reward.py");
        let scorer = if reward.is_file() {
            Scorer::Reward(read(&reward)?)
        } else {
            let name = cfg.scorer.as_deref().unwrap_or("exact");
            Scorer::by_name(name).ok_or_else(|| TaskError::Invalid {
                path: cfg_path.clone(),
                detail: format!("unknown scorer {name:?}; use {}", Scorer::NAMES),
            })?
        };
        let name = cfg.name.unwrap_or_else(|| {
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "task".into())
        });
        Ok(TaskSpec {
            name,
            data: read(&dir.join(&cfg.data))?,
            scorer,
            prompt_config: cfg.prompt_config.map(|p| dir.join(p)),
            llm_prompt: cfg.llm_prompt.map(|p| read(&dir.join(p))).transpose()?,
        })
    }

    /// A bare JSONL file with a scorer.
    ///
    /// # Errors
    /// [`TaskError`] when the file cannot be read.
    pub fn from_data(path: &Path, scorer: Scorer) -> Result<TaskSpec, TaskError> {
        Ok(TaskSpec {
            name: path
                .file_stem()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "data".into()),
            data: read(path)?,
            scorer,
            prompt_config: None,
            llm_prompt: None,
        })
    }

    /// A task shipped with the project (see `tasks/`).
    ///
    /// # Errors
    /// [`TaskError::Unknown`] listing the shipped names.
    pub fn builtin(name: &str) -> Result<TaskSpec, TaskError> {
        let found = super::BUILTIN_TASKS.iter().find(|(n, _, _)| *n == name);
        let Some((n, data, scorer)) = found else {
            let names: Vec<&str> = super::BUILTIN_TASKS.iter().map(|(n, _, _)| *n).collect();
            return Err(TaskError::Unknown(name.to_string(), names.join(", ")));
        };
        Ok(TaskSpec {
            name: (*n).to_string(),
            data: (*data).to_string(),
            scorer: Scorer::by_name(scorer).unwrap_or(Scorer::Exact),
            prompt_config: None,
            llm_prompt: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_in_every_reference_shape() {
        let text = r#"{"id": 1, "domain": "math", "problem_statement": "p", "ground_truth": 5, "input_files": "{\"a.txt\": \"x\"}"}

{"id": "b", "problem_statement": "p", "ground_truth": "x", "input_files": {"d/b.txt": "y"}, "level": 3}
{"id": "c", "problem_statement": "p"}
not json
{"id": "d", "problem_statement": "p", "ground_truth": "1", "input_files": {"../x": "y"}}
{"id": 1, "problem_statement": "p", "ground_truth": 5}"#;
        let (rows, errors) = parse_jsonl(text);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].id, "1");
        assert_eq!(rows[0].ground_truth, "5");
        assert_eq!(rows[0].input_files["a.txt"], "x");
        assert_eq!(rows[1].domain, "general");
        assert_eq!(rows[1].extra["level"], 3);
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [4, 5, 6, 7]);
        assert!(errors[0].message.contains("ground_truth"));
        assert!(errors[3].message.contains("duplicate"));
    }
}
