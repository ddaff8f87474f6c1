//! Dataset rows in the reference format and task directories.

use std::path::{Path, PathBuf};

use serde_json::Value;

// Re-exported so the paths `eval::dataset::{Row, RowError, parse_jsonl}` keep working.
use super::package::PACKAGE;
pub use super::package::{imports_package, reference_modules};
pub use super::rows::{RowError, parse_jsonl};
pub use super::spec::Row;
use super::spec::{RewardScript, Scorer};
pub use super::task_error::TaskError;
use super::task_error::read;
use crate::agent::Prompts;
use crate::agent::prompt::Folders;

/// A task: its rows, scorer, prompts, and optional task code (`reward.py`,
/// `vanilla_llm_prompt.py`).
#[derive(Debug, Clone)]
pub struct TaskSpec {
    /// Name used in output folder names.
    pub name: String,
    /// The rows as JSONL text (JSON arrays, Parquet and Hub splits are turned into one line
    /// per record; a bad row is reported by its record number).
    pub data: String,
    /// Default scorer for rows without their own.
    pub scorer: Scorer,
    /// Prompts for sandbox mode (the task's inline prompts or prompt file; `None`: the run's).
    pub prompts: Option<Prompts>,
    /// Instruction for plain-LLM mode (replaces ours).
    pub llm_prompt: Option<String>,
    /// `vanilla_llm_prompt.py`: `create_prompt(row)` builds the plain-LLM prompt.
    pub llm_prompt_py: Option<String>,
    /// The task folder, when there is one.
    pub dir: Option<PathBuf>,
    /// The task folder's `requirements.txt` (validated: names and version specifiers only):
    /// pure-Python packages installed into each episode's sandbox before the episode.
    pub requirements: Vec<crate::packages::Requirement>,
    /// Things worth telling the user that did not stop loading (unused config keys, ...).
    pub warnings: Vec<String>,
    /// Whether `config.yaml` sets `working_dir` / `input_dir` / `output_dir` beside inline
    /// prompts. The reference's runner ignores such keys (its defaults apply); `benchmark`
    /// does the same unless `--task-folders config` ([`TaskSpec::reference_folders`]).
    pub inline_folders: bool,
}

/// Keys of a task's `config.yaml` we read (ours and the reference's).
const TASK_KEYS: &[&str] = &[
    "data",
    "data_path",
    "dataset",
    "data_files",
    "config",
    "split",
    "system_prompt",
    "instance_prompt",
    "working_dir",
    "input_dir",
    "output_dir",
    "prompt_config",
    "scorer",
    "llm_prompt",
    "name",
];

/// Where a task's rows come from.
enum Source {
    /// Local files (JSONL, a JSON array, or Parquet), in order.
    Files(Vec<PathBuf>),
    /// A Hugging Face dataset split.
    Hub {
        name: String,
        config: Option<String>,
        split: String,
    },
}

/// Rows for a task other than its `config.yaml`'s: another config or split of its Hub dataset
/// (e.g. the RL dataset's `*_mini` test configs for the `instruct_pretrain` task), or a local
/// file. The task's prompts and reward stay.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DatasetChoice {
    /// The Hub dataset's config (`--dataset-config`).
    pub config: Option<String>,
    /// The split (`--split`). Default: the task's own when the config is, else `test` (the
    /// split of the RL dataset's `*_mini` configs and of the reference's benchmark configs).
    pub split: Option<String>,
    /// A data file (JSON lines, a JSON array or Parquet) instead (`--task ... --data FILE`).
    pub data: Option<PathBuf>,
}

impl DatasetChoice {
    fn is_empty(&self) -> bool {
        self == &DatasetChoice::default()
    }

    /// The task's source with this config and split.
    fn apply(&self, source: Source, cfg_path: &Path) -> Result<Source, TaskError> {
        if self.is_empty() {
            return Ok(source);
        }
        match source {
            Source::Hub {
                name,
                config,
                split,
            } => {
                let own = self.config.is_none() || self.config == config;
                let split = match (&self.split, own) {
                    (Some(s), _) => s.clone(),
                    (None, true) => split,
                    (None, false) => "test".into(),
                };
                Ok(Source::Hub {
                    name,
                    config: self.config.clone().or(config),
                    split,
                })
            }
            Source::Files(_) => Err(TaskError::Choice(format!(
                "{} reads local files, not a Hub dataset: a config or split cannot be chosen \
                 (give the rows with --data FILE instead)",
                cfg_path.display()
            ))),
        }
    }

    /// The task's name with the rows chosen: `instruct_pretrain_math_mini`, `math_test_verl`.
    fn name(&self, name: &mut String) {
        let mut parts = Vec::new();
        if let Some(c) = &self.config {
            parts.push(c.clone());
        }
        if let Some(s) = &self.split {
            parts.push(s.clone());
        }
        if let Some(stem) = self.data.as_ref().and_then(|d| d.file_stem()) {
            parts.push(stem.to_string_lossy().into_owned());
        }
        for p in parts {
            name.push('_');
            name.push_str(&p);
        }
    }
}

/// A string setting of a task config (numbers are taken as their text).
fn cfg_text(
    map: &serde_norway::Mapping,
    key: &str,
    path: &Path,
) -> Result<Option<String>, TaskError> {
    match map.get(key) {
        None | Some(serde_norway::Value::Null) => Ok(None),
        Some(serde_norway::Value::String(s)) => Ok(Some(s.clone())),
        Some(serde_norway::Value::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(TaskError::Invalid {
            path: path.to_path_buf(),
            detail: format!("`{key}` must be a string"),
        }),
    }
}

/// A string, or a list of strings, from YAML.
fn strings(v: &serde_norway::Value) -> Option<Vec<String>> {
    match v {
        serde_norway::Value::String(s) => Some(vec![s.clone()]),
        serde_norway::Value::Sequence(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => None,
    }
}

/// Records of a local data file as JSONL text: JSON lines, a JSON array, or Parquet.
fn file_records(path: &Path) -> Result<String, TaskError> {
    let bytes = std::fs::read(path).map_err(|source| TaskError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    if bytes.starts_with(b"PAR1") {
        let rows = super::hub::parquet_rows(path).map_err(Box::new)?;
        return Ok(jsonl_of(rows.into_iter().map(Value::Object)));
    }
    let text = String::from_utf8(bytes).map_err(|_| TaskError::Invalid {
        path: path.to_path_buf(),
        detail: "not UTF-8 text (expected JSON lines, a JSON array, or Parquet)".into(),
    })?;
    if text.trim_start().starts_with('[') {
        let items: Vec<Value> = serde_json::from_str(&text).map_err(|e| TaskError::Invalid {
            path: path.to_path_buf(),
            detail: format!("looks like a JSON array but is not valid JSON: {e}"),
        })?;
        return Ok(jsonl_of(items.into_iter()));
    }
    Ok(text)
}

fn jsonl_of(items: impl Iterator<Item = Value>) -> String {
    let mut out = String::new();
    for item in items {
        out.push_str(&item.to_string());
        out.push('\n');
    }
    out
}

/// A task folder's `config.yaml`: a mapping of settings.
fn read_config(cfg_path: &Path) -> Result<serde_norway::Mapping, TaskError> {
    let invalid = |detail: String| TaskError::Invalid {
        path: cfg_path.to_path_buf(),
        detail,
    };
    let cfg: serde_norway::Value =
        serde_norway::from_str(&read(cfg_path)?).map_err(|e| invalid(e.to_string()))?;
    let Some(map) = cfg.as_mapping() else {
        return Err(invalid("expected a mapping of settings".into()));
    };
    Ok(map.clone())
}

/// A warning for each key of `config.yaml` we do not read.
fn unused_keys(map: &serde_norway::Mapping, cfg_path: &Path) -> Vec<String> {
    let mut warnings = Vec::new();
    for k in map.keys() {
        let name = k.as_str().map_or_else(|| format!("{k:?}"), str::to_string);
        if !TASK_KEYS.contains(&name.as_str()) {
            warnings.push(format!(
                "{}: key `{name}` is not used here",
                cfg_path.display()
            ));
        }
    }
    warnings
}

/// The task's rows as JSONL text, from its files or a Hub split.
async fn rows_of(source: Source) -> Result<String, TaskError> {
    Ok(match source {
        Source::Files(files) => {
            let mut data = String::new();
            for f in &files {
                let part = file_records(f)?;
                data.push_str(&part);
                if !data.is_empty() && !data.ends_with('\n') {
                    data.push('\n');
                }
            }
            data
        }
        Source::Hub {
            name,
            config,
            split,
        } => {
            let opts = super::hub::HubOptions::from_env();
            let progress = |line: &str| eprintln!("llm-in-sandbox: {line}");
            let rows = super::hub::load_split(&name, config.as_deref(), &split, &opts, &progress)
                .await
                .map_err(Box::new)?;
            jsonl_of(rows.into_iter().map(Value::Object))
        }
    })
}

/// The task's prompts (inline, a `prompt_config` file, or ours with its folders; `None`: the
/// run's), and whether inline prompts come with folders ([`TaskSpec::inline_folders`]).
fn task_prompts(
    dir: &Path,
    map: &serde_norway::Mapping,
    cfg_path: &Path,
) -> Result<(Option<Prompts>, bool), TaskError> {
    let text = |k: &str| cfg_text(map, k, cfg_path);
    let shown = cfg_path.display().to_string();
    let folders = Folders {
        working_dir: text("working_dir")?,
        input_dir: text("input_dir")?,
        output_dir: text("output_dir")?,
    };
    let (system, instance) = (text("system_prompt")?, text("instance_prompt")?);
    let inline_folders = (system.is_some() || instance.is_some()) && folders != Folders::default();
    let prompts = if system.is_some() || instance.is_some() {
        Some(Prompts::default().with(system, instance, &folders, &shown)?)
    } else if let Some(p) = text("prompt_config")? {
        // The reference reads a legacy prompt file relative to where it runs; try the task
        // folder first, then the folder holding it, then as given.
        let candidates = [
            dir.join(&p),
            dir.parent().unwrap_or(dir).join(&p),
            PathBuf::from(&p),
        ];
        let found = candidates.iter().find(|c| c.is_file()).cloned();
        let path = found.ok_or_else(|| TaskError::Invalid {
            path: cfg_path.to_path_buf(),
            detail: format!("prompt_config {p:?} not found"),
        })?;
        Some(
            Prompts::default()
                .with(None, None, &folders, &shown)?
                .load(&path)?,
        )
    } else if folders != Folders::default() {
        Some(Prompts::default().with(None, None, &folders, &shown)?)
    } else {
        None
    };
    Ok((prompts, inline_folders))
}

/// The task folder's `requirements.txt`, validated (none when there is no such file).
fn task_requirements(dir: &Path) -> Result<Vec<crate::packages::Requirement>, TaskError> {
    let req_path = dir.join("requirements.txt");
    if !req_path.is_file() {
        return Ok(Vec::new());
    }
    crate::packages::read_requirements(&req_path).map_err(|e| TaskError::Invalid {
        path: req_path.clone(),
        detail: format!(
            "{e} (a task's requirements.txt may hold only NAME[==VERSION] lines: its \
             pure-Python packages are installed into each episode's sandbox)"
        ),
    })
}

/// The task's scorer: the judge when `scorer: judge`, else its `reward.py` when it has one,
/// else the named built-in scorer (default `exact`).
fn task_scorer(
    dir: &Path,
    map: &serde_norway::Mapping,
    cfg_path: &Path,
    requirements: &[crate::packages::Requirement],
) -> Result<Scorer, TaskError> {
    let reward = dir.join("reward.py");
    let scorer_name = cfg_text(map, "scorer", cfg_path)?;
    Ok(match scorer_name.as_deref() {
        Some(n) if Scorer::by_name(n) == Some(Scorer::Judge) => Scorer::Judge,
        _ if reward.is_file() => {
            let source = read(&reward)?;
            // A task folder inside the reference package (`llm_in_sandbox/benchmark/NAME/`)
            // whose reward imports its siblings' rewards, as `instruct_pretrain`'s does.
            let package = dir
                .parent()
                .filter(|b| b.file_name().is_some_and(|n| n == "benchmark"))
                .and_then(Path::parent)
                .filter(|p| p.file_name().is_some_and(|n| n == PACKAGE));
            let modules = match package {
                Some(p) if imports_package(&source) => reference_modules(p)?,
                _ => Vec::new(),
            };
            Scorer::Reward(RewardScript {
                source,
                path: Some(reward.clone()),
                host: false,
                requirements: requirements.to_vec(),
                modules,
            })
        }
        name => {
            let name = name.unwrap_or("exact");
            Scorer::by_name(name).ok_or_else(|| TaskError::Invalid {
                path: cfg_path.to_path_buf(),
                detail: format!("unknown scorer {name:?}; use {}", Scorer::NAMES),
            })?
        }
    })
}

impl TaskSpec {
    /// The task's inline prompts with the reference runner's folders (`/testbed`,
    /// `/testbed/documents`, answer in `/testbed/answer.txt`), as the reference uses them
    /// whatever `config.yaml` says ([`TaskSpec::inline_folders`]).
    pub fn reference_folders(&mut self) {
        if !self.inline_folders {
            return;
        }
        if let Some(p) = self.prompts.take() {
            self.prompts = Some(Prompts {
                system: p.system,
                instance: p.instance,
                ..Prompts::default()
            });
        }
        self.inline_folders = false;
    }

    /// A task from its name, rows and scorer, with our prompts and nothing else.
    pub fn new(name: impl Into<String>, data: impl Into<String>, scorer: Scorer) -> TaskSpec {
        TaskSpec {
            name: name.into(),
            data: data.into(),
            scorer,
            prompts: None,
            llm_prompt: None,
            llm_prompt_py: None,
            dir: None,
            requirements: Vec::new(),
            warnings: Vec::new(),
            inline_folders: false,
        }
    }

    /// A task folder, ours or the reference's, read unchanged: `config.yaml` with the rows
    /// (`data: FILE` relative to the folder; or the reference's `dataset: json` + `data_files`,
    /// resolved against the folder that holds the task folder as there, then the task folder;
    /// or `dataset: OWNER/NAME` + `config` + `split` from the Hugging Face Hub cache), prompts
    /// (inline `system_prompt` / `instance_prompt` with `working_dir` / `input_dir` /
    /// `output_dir`, or a `prompt_config` file), `scorer`, `llm_prompt`; plus `reward.py`
    /// (which then scores), `vanilla_llm_prompt.py` and `requirements.txt` (validated here,
    /// installed into each episode's sandbox). Keys we do not use become warnings.
    ///
    /// # Errors
    /// [`TaskError`] naming the file at fault.
    pub async fn from_dir(dir: &Path) -> Result<TaskSpec, TaskError> {
        Self::from_dir_choosing(dir, &DatasetChoice::default()).await
    }

    /// [`TaskSpec::from_dir`] with other rows: another config or split of its Hub dataset, or
    /// a data file ([`DatasetChoice`]); the task's name then says which.
    ///
    /// # Errors
    /// [`TaskError`] naming the file at fault; [`TaskError::Choice`] when the choice does not
    /// apply to the task's rows.
    pub async fn from_dir_choosing(
        dir: &Path,
        choice: &DatasetChoice,
    ) -> Result<TaskSpec, TaskError> {
        let cfg_path = dir.join("config.yaml");
        let map = read_config(&cfg_path)?;
        let text = |k: &str| cfg_text(&map, k, &cfg_path);
        let mut warnings = unused_keys(&map, &cfg_path);
        let source = match &choice.data {
            Some(file) => Source::Files(vec![file.clone()]),
            None => choice.apply(Self::source(dir, &cfg_path, &map)?, &cfg_path)?,
        };
        let data = rows_of(source).await?;
        let (prompts, inline_folders) = task_prompts(dir, &map, &cfg_path)?;
        let requirements = task_requirements(dir)?;
        let scorer = task_scorer(dir, &map, &cfg_path, &requirements)?;
        if dir.join("judge.py").is_file() && scorer != Scorer::Judge {
            warnings.push(format!(
                "{}: this task has a judge.py (its reward.py may be a placeholder); score with \
                 an LLM judge by passing --judge-model and --judge-base-url, or run \
                 `llm-in-sandbox judge RUN_DIR` afterwards",
                dir.display()
            ));
        }
        let vanilla = dir.join("vanilla_llm_prompt.py");
        let mut name = text("name")?.unwrap_or_else(|| {
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "task".into())
        });
        choice.name(&mut name);
        Ok(TaskSpec {
            name,
            data,
            scorer,
            prompts,
            llm_prompt: text("llm_prompt")?
                .map(|p| read(&dir.join(p)))
                .transpose()?,
            llm_prompt_py: vanilla.is_file().then(|| read(&vanilla)).transpose()?,
            dir: Some(dir.to_path_buf()),
            requirements,
            warnings,
            inline_folders,
        })
    }

    fn source(
        dir: &Path,
        cfg_path: &Path,
        map: &serde_norway::Mapping,
    ) -> Result<Source, TaskError> {
        let get = |k: &str| map.get(k).filter(|v| !v.is_null());
        let text = |k: &str| cfg_text(map, k, cfg_path);
        let invalid = |detail: String| TaskError::Invalid {
            path: cfg_path.to_path_buf(),
            detail,
        };
        // A relative data path: against the task folder (ours), then the folder holding the
        // task folders (the reference's `benchmark/`), then the working directory.
        let locate = |p: &str| -> Result<PathBuf, TaskError> {
            let path = Path::new(p);
            if path.is_absolute() {
                return Ok(path.to_path_buf());
            }
            let candidates = [
                dir.join(path),
                dir.parent().unwrap_or(dir).join(path),
                PathBuf::from(path),
            ];
            candidates
                .iter()
                .find(|c| c.is_file())
                .cloned()
                .ok_or_else(|| {
                    let tried: Vec<String> =
                        candidates.iter().map(|c| c.display().to_string()).collect();
                    invalid(format!(
                        "data file {p:?} not found (tried {})",
                        tried.join(", ")
                    ))
                })
        };
        if let Some(p) = text("data")?.or(text("data_path")?) {
            return Ok(Source::Files(vec![locate(&p)?]));
        }
        let Some(dataset) = text("dataset")? else {
            return Err(invalid(
                "no rows: give `data: FILE.jsonl`, or `dataset: json` with `data_files`, or \
                 `dataset: OWNER/NAME` with `config` and `split`"
                    .into(),
            ));
        };
        match dataset.as_str() {
            "json" | "parquet" => {
                let files = get("data_files").and_then(strings).ok_or_else(|| {
                    invalid(format!(
                        "`dataset: {dataset}` needs `data_files` (a path or a list of paths)"
                    ))
                })?;
                Ok(Source::Files(
                    files.iter().map(|f| locate(f)).collect::<Result<_, _>>()?,
                ))
            }
            d if ["csv", "text", "arrow", "webdataset", "imagefolder"].contains(&d) => {
                Err(invalid(format!(
                    "`dataset: {d}` is not supported; convert the rows to JSON lines or Parquet"
                )))
            }
            d if d.ends_with(".jsonl")
                || d.ends_with(".json")
                || d.ends_with(".parquet")
                || dir.join(d).is_file() =>
            {
                Ok(Source::Files(vec![locate(d)?]))
            }
            d => Ok(Source::Hub {
                name: d.to_string(),
                config: text("config")?,
                split: text("split")?.unwrap_or_else(|| "test".into()),
            }),
        }
    }

    /// A bare data file (JSONL, a JSON array or Parquet) with a scorer.
    ///
    /// # Errors
    /// [`TaskError`] when the file cannot be read.
    pub fn from_data(path: &Path, scorer: Scorer) -> Result<TaskSpec, TaskError> {
        let name = path
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "data".into());
        Ok(TaskSpec::new(name, file_records(path)?, scorer))
    }

    /// A task shipped with the project (see `tasks/`); the reference's names `chem`,
    /// `biomed` and `instruct_follow` name our sets of the same domains.
    ///
    /// # Errors
    /// [`TaskError::Unknown`] listing the shipped names; [`TaskError::NotShipped`] for a
    /// reference task we have no set for.
    pub fn builtin(name: &str) -> Result<TaskSpec, TaskError> {
        let canonical = match name {
            "chem" => "chemistry",
            "biomed" => "biomedicine",
            "instruct_follow" => "instruction_following",
            "instruct_pretrain" => return Err(TaskError::NotShipped(name.to_string())),
            other => other,
        };
        let found = super::BUILTIN_TASKS
            .iter()
            .find(|(n, _, _)| *n == canonical);
        let Some((n, data, scorer)) = found else {
            let names: Vec<&str> = super::BUILTIN_TASKS.iter().map(|(n, _, _)| *n).collect();
            return Err(TaskError::Unknown(name.to_string(), names.join(", ")));
        };
        Ok(TaskSpec::new(
            *n,
            *data,
            Scorer::by_name(scorer).unwrap_or(Scorer::Exact),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let p = root.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        root
    }

    #[tokio::test]
    async fn task_folders_in_every_layout() {
        let row = |id: &str| {
            format!("{{\"id\": \"{id}\", \"problem_statement\": \"p\", \"ground_truth\": \"1\"}}")
        };
        // The reference's legacy layout: a separate prompt file, data files as a list
        // (JSON lines and a JSON array) relative to the folder that holds the task folder.
        let root = folder(&[
            (
                "t/config.yaml",
                "dataset: json\ndata_files: [t/a.jsonl, t/b.json]\nprompt_config: t/prompts.yaml\n",
            ),
            (
                "t/prompts.yaml",
                "system_prompt: S in {working_dir}\ninstance_prompt: '{problem_statement} -> {output_dir}'\noutput_dir: /testbed/out\n",
            ),
            ("t/a.jsonl", &format!("{}\n{}\n", row("a1"), row("a2"))),
            ("t/b.json", &format!("[{}]", row("b1"))),
        ]);
        let t = TaskSpec::from_dir(&root.path().join("t")).await.unwrap();
        let (rows, errors) = parse_jsonl(&t.data);
        assert!(errors.is_empty(), "{errors:?}");
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["a1", "a2", "b1"]);
        let p = t.prompts.unwrap();
        assert_eq!(p.instance("x"), "x -> /testbed/out");
        assert_eq!(p.answer_file, "/testbed/out/answer.txt");
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
        // Ours: `data:` relative to the task folder, a scorer, an unknown key warned about.
        let root = folder(&[
            (
                "u/config.yaml",
                "data: rows.jsonl\nscorer: numeric\ncolour: blue\n",
            ),
            ("u/rows.jsonl", &row("u1")),
        ]);
        let t = TaskSpec::from_dir(&root.path().join("u")).await.unwrap();
        assert_eq!(t.scorer, Scorer::Numeric);
        assert!(t.prompts.is_none());
        assert_eq!(t.warnings.len(), 1);
        assert!(t.warnings[0].contains("`colour`"), "{:?}", t.warnings);
        // What cannot work says so.
        let root = folder(&[("v/config.yaml", "dataset: csv\ndata_files: x.csv\n")]);
        let e = TaskSpec::from_dir(&root.path().join("v"))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("not supported"), "{e}");
        let root = folder(&[("w/config.yaml", "dataset: json\ndata_files: missing.json\n")]);
        let e = TaskSpec::from_dir(&root.path().join("w"))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("not found (tried"), "{e}");
    }
}
