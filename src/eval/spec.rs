//! The nouns a task is made of, shared by loading ([`super::dataset`]) and scoring
//! ([`super::score`]): a row, a scorer, and a task's own Python code.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

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

/// How answers are scored.
#[derive(Debug, Clone, PartialEq)]
pub enum Scorer {
    /// Equal after normalisation (case, spaces, surrounding `$`, trailing `.`).
    Exact,
    /// Numbers equal within a relative tolerance of 1e-4 (or 1e-9 absolute).
    Numeric,
    /// The same multiple-choice letter.
    Choice,
    /// `\boxed{}` answers: equal text, equal numbers, or symbolically equal (sympy).
    Math,
    /// A task's `reward.py`.
    Reward(RewardScript),
    /// An LLM judge (the runner's `--judge-model`) decides.
    Judge,
}

/// A task's Python code (`reward.py`, `vanilla_llm_prompt.py`) and where it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct RewardScript {
    /// The source.
    pub source: String,
    /// The file it came from (the host mode imports it from there, so files beside it are
    /// found as in the reference).
    pub path: Option<PathBuf>,
    /// Run with the host's `python3` (trusted task code; the answer is passed as data).
    pub host: bool,
    /// The task's `requirements.txt`: installed (pure-Python wheels, from the cache every
    /// sandbox shares) into the sandbox the script runs in. Not used with `host`.
    pub requirements: Vec<crate::packages::Requirement>,
    /// Python files the script may import beyond its own folder, as (path under an import
    /// root, source); the root goes on `sys.path` wherever the script runs. The reference's
    /// `instruct_pretrain/reward.py` imports the other tasks' rewards as
    /// `llm_in_sandbox.benchmark.<task>.reward` ([`super::dataset::reference_modules`]).
    pub modules: Vec<(String, String)>,
}

impl RewardScript {
    /// A script from its source, run in the sandbox, with nothing beside it.
    pub fn new(source: impl Into<String>) -> RewardScript {
        RewardScript {
            source: source.into(),
            path: None,
            host: false,
            requirements: Vec::new(),
            modules: Vec::new(),
        }
    }
}

impl Scorer {
    /// Names accepted by [`Scorer::by_name`].
    pub const NAMES: &'static str = "exact, numeric, choice, math, judge";

    /// The scorer's name (`reward.py` for a task's own).
    pub fn name(&self) -> &'static str {
        match self {
            Scorer::Exact => "exact",
            Scorer::Numeric => "numeric",
            Scorer::Choice => "choice",
            Scorer::Math => "math",
            Scorer::Reward(_) => "reward.py",
            Scorer::Judge => "judge",
        }
    }

    /// A built-in scorer by name.
    pub fn by_name(name: &str) -> Option<Scorer> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "exact" | "exact_match" | "string" => Scorer::Exact,
            "numeric" | "number" => Scorer::Numeric,
            "choice" | "mcq" | "multiple_choice" | "letter" => Scorer::Choice,
            "math" | "boxed" => Scorer::Math,
            "judge" | "llm_judge" | "llm-judge" => Scorer::Judge,
            _ => return None,
        })
    }
}
