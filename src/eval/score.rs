//! Scoring an answer against the ground truth: built-in scorers, and a task's `reward.py`
//! (`compute_score(agent_answer, ground_truth, **row)`) run unchanged, inside the WASM Python
//! or (`--reward-python host`) with the host's `python3` as the reference does. Task code may
//! print: its result travels in a file, not on stdout. A scorer that fails gives an error,
//! never a silent 0.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

// Re-exported so the paths `eval::score::{Scorer, RewardScript}` keep working.
use super::spec::Row;
pub use super::spec::{RewardScript, Scorer};
use crate::runtime::{Limits, Runtime, executor};
use crate::sandbox::Sandbox;

/// A score or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub enum Score {
    /// 0.0 to 1.0 (reward.py may return other values; they are kept).
    Value(f64),
    /// The scorer failed.
    Error(String),
}

impl Scorer {
    /// Score `answer` for `row`. `runtime` runs `reward.py` and symbolic checks.
    pub async fn score(&self, answer: Option<&str>, row: &Row, runtime: &Arc<Runtime>) -> Score {
        let Some(answer) = answer else {
            return match self {
                Scorer::Reward(script) => reward(script, "", row, runtime).await,
                Scorer::Judge => Score::Error(JUDGE_NEEDED.into()),
                _ => Score::Value(0.0),
            };
        };
        let truth = row.ground_truth.as_str();
        match self {
            Scorer::Exact => Score::Value(f(normalize(&extract(answer)) == normalize(truth))),
            Scorer::Numeric => Score::Value(f(match (number(&extract(answer)), number(truth)) {
                (Some(a), Some(b)) => close(a, b),
                _ => false,
            })),
            Scorer::Choice => Score::Value(f(match (letter(answer), letter(truth)) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            })),
            Scorer::Math => math(&extract(answer), &extract(truth), runtime).await,
            Scorer::Reward(script) => reward(script, answer, row, runtime).await,
            Scorer::Judge => Score::Error(JUDGE_NEEDED.into()),
        }
    }
}

fn f(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9_f64.max(1e-4 * b.abs())
}

/// The content of the last `\boxed{...}` (braces matched), if any.
pub fn last_boxed(text: &str) -> Option<String> {
    let start = text.rfind("\\boxed{")? + "\\boxed{".len();
    let mut depth = 1;
    for (i, c) in text[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(text[start..start + i].to_string());
                }
            }
            _ => {}
        }
    }
    None
}

/// The answer part of a reply: the last `\boxed{}`, else what follows a final `Answer:`, else
/// the whole text.
pub fn extract(text: &str) -> String {
    if let Some(b) = last_boxed(text) {
        return b;
    }
    let lower = text.to_lowercase();
    if let Some(i) = lower.rfind("answer:") {
        return text[i + "answer:".len()..].trim().to_string();
    }
    text.trim().to_string()
}

/// Lower case, single spaces, without surrounding `$`, `.` or quotes.
pub fn normalize(s: &str) -> String {
    let s = s.trim();
    let s = s
        .strip_suffix('.')
        .unwrap_or(s)
        .trim()
        .trim_matches('$')
        .trim();
    let s = s.strip_suffix('.').unwrap_or(s);
    let s = s.trim_matches(|c| c == '"' || c == '\'');
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A number written plainly, with thousands separators, `%`, `$`, a LaTeX `\frac{a}{b}` or `a/b`.
pub fn number(s: &str) -> Option<f64> {
    let t = normalize(s)
        .replace([',', '$', '%', ' '], "")
        .replace("\\!", "")
        .replace("\\dfrac", "\\frac")
        .replace("\\tfrac", "\\frac");
    if let Some(rest) = t.strip_prefix("\\frac{") {
        let (a, b) = rest.strip_suffix('}')?.split_once("}{")?;
        return Some(a.parse::<f64>().ok()? / b.parse::<f64>().ok()?);
    }
    if let Some((a, b)) = t.split_once('/') {
        return Some(a.parse::<f64>().ok()? / b.parse::<f64>().ok()?);
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The multiple-choice letter in an answer: `B`, `(B)`, `B.`, `Answer: B`, `\boxed{B}`.
pub fn letter(s: &str) -> Option<char> {
    let s = extract(s);
    let t = s
        .trim()
        .trim_matches(|c| c == '(' || c == ')' || c == '.' || c == '*');
    let mut chars = t.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && c.is_ascii_alphabetic()
    {
        return Some(c.to_ascii_uppercase());
    }
    // A sentence: the last standalone capital letter A-J.
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() == 1)
        .filter_map(|w| w.chars().next())
        .rfind(|c| ('A'..='J').contains(c))
}

const SYMBOLIC: &str = r#"
import json, re, sys, sympy
def conv(s):
    s = s.strip().strip('$')
    for _ in range(8):
        t = re.sub(r'\\sqrt\{([^{}]*)\}', r'sqrt(\1)', s)
        t = re.sub(r'\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}', r'((\1)/(\2))', t)
        if t == s:
            break
        s = t
    for a, b in [('\\left', ''), ('\\right', ''), ('\\cdot', '*'), ('\\times', '*'), ('\\pi', 'pi'),
                 ('^', '**'), ('{', '('), ('}', ')'), ('\\', '')]:
        s = s.replace(a, b)
    return sympy.sympify(s, locals={'e': sympy.E, 'E': sympy.E, 'pi': sympy.pi})
a, b = json.load(open('input.json'))
try:
    print(1 if sympy.simplify(conv(a) - conv(b)) == 0 else 0)
except Exception:
    print(0)
"#;

async fn math(answer: &str, truth: &str, runtime: &Arc<Runtime>) -> Score {
    if normalize(answer) == normalize(truth) {
        return Score::Value(1.0);
    }
    if let (Some(a), Some(b)) = (number(answer), number(truth)) {
        return Score::Value(f(close(a, b)));
    }
    let input = json!([answer, truth]).to_string();
    match run_python(
        runtime,
        &[("check.py", SYMBOLIC), ("input.json", input.as_str())],
        &["check.py"],
        "",
        &[],
    )
    .await
    {
        Ok(out) => Score::Value(f(out.trim() == "1")),
        Err(e) => Score::Error(format!("symbolic check failed: {e}")),
    }
}

const JUDGE_NEEDED: &str =
    "this task is scored by an LLM judge: give --judge-model and --judge-base-url";

/// Runs task code on a request read from `request.json`, writing `result.json`: the task's
/// own prints go wherever they go.
const TASK_RUNNER: &str = r#"
import importlib.util, json, os, sys
req = json.load(open(sys.argv[1]))
sys.path.insert(0, os.path.dirname(os.path.abspath(req['path'])))
if req.get('lib'):
    sys.path.insert(1, os.path.abspath(req['lib']))
spec = importlib.util.spec_from_file_location(req['module'], req['path'])
mod = importlib.util.module_from_spec(spec)
# Imports the task's own file tried and could not make, even those it caught itself (a reward
# that swallows its ImportError scores 0 on every row without an error).
import builtins
_lis_failed, _lis_import = [], builtins.__import__
_lis_target = os.path.abspath(req['path'])
def _lis_tracking_import(name, globals=None, locals=None, fromlist=(), level=0):
    try:
        return _lis_import(name, globals, locals, fromlist, level)
    except ImportError:
        try:
            if os.path.abspath(sys._getframe(1).f_code.co_filename) == _lis_target and name not in _lis_failed:
                _lis_failed.append(name)
        except Exception:
            pass
        raise
builtins.__import__ = _lis_tracking_import
out = {}
try:
    spec.loader.exec_module(mod)
    if req['call'] == 'compute_score':
        row = dict(req['row'])
        truth = row.pop('ground_truth', '')
        s = mod.compute_score(req['answer'], truth, **row)
        if isinstance(s, dict):
            s = s.get('score', s.get('reward'))
        out = {'score': float(s)}
    else:
        if not hasattr(mod, 'create_prompt'):
            out = {'prompt': req['row']['problem_statement']}
        else:
            out = {'prompt': str(mod.create_prompt(dict(req['row'])))}
except ImportError as e:
    # A module that re-raises a missing import as its own ImportError (the reference's
    # math/reward.py does) names it only in the error it chains to.
    name, cause = getattr(e, 'name', None), e
    for _ in range(8):
        if name or cause is None:
            break
        cause = cause.__cause__ or cause.__context__
        name = getattr(cause, 'name', None)
    out = {'error': 'import', 'module': name or '', 'message': str(e)}
except BaseException as e:
    import traceback
    traceback.print_exc()
    out = {'error': type(e).__name__, 'message': str(e)}
builtins.__import__ = _lis_import
out['failed_imports'] = _lis_failed
with open(req['result'], 'w') as f:
    json.dump(out, f)
"#;

/// Every field of the row as `reward.py` and `create_prompt` see it: `input_files` as the
/// dataset gave it (the reference passes the raw value), else as our map.
pub fn row_fields(row: &Row) -> serde_json::Map<String, Value> {
    let mut fields = row.extra.clone();
    fields.insert("id".into(), Value::from(row.id.clone()));
    fields.insert("domain".into(), Value::from(row.domain.clone()));
    fields.insert(
        "problem_statement".into(),
        Value::from(row.problem_statement.clone()),
    );
    fields.insert("ground_truth".into(), Value::from(row.ground_truth.clone()));
    if !fields.contains_key("input_files") {
        fields.insert(
            "input_files".into(),
            serde_json::to_value(&row.input_files).unwrap_or(Value::Null),
        );
    }
    fields
}

/// What task code said: its result object, or an error naming what went wrong.
async fn run_task_code(
    script: &RewardScript,
    module: &str,
    call: &str,
    answer: &str,
    fields: serde_json::Map<String, Value>,
    runtime: &Arc<Runtime>,
) -> Result<serde_json::Map<String, Value>, String> {
    let file = format!("{module}.py");
    let out = if script.host {
        let path = script
            .path
            .clone()
            .ok_or_else(|| format!("{file} has no file on the host to run"))?;
        host_python(&path, &script.modules, module, call, answer, fields).await?
    } else {
        let request = json!({
            "module": module, "path": file, "call": call, "answer": answer, "row": fields,
            "result": "result.json", "lib": MODULES_ROOT,
        })
        .to_string();
        let modules: Vec<(String, &str)> = script
            .modules
            .iter()
            .map(|(name, source)| (format!("{MODULES_ROOT}/{name}"), source.as_str()))
            .collect();
        let mut files = vec![
            (file.as_str(), script.source.as_str()),
            ("runner.py", TASK_RUNNER),
            ("request.json", request.as_str()),
        ];
        files.extend(modules.iter().map(|(n, s)| (n.as_str(), *s)));
        run_python(
            runtime,
            &files,
            &["runner.py", "request.json"],
            "result.json",
            &script.requirements,
        )
        .await
        .map_err(|e| format!("{file}: {e}"))?
    };
    let Value::Object(out) = serde_json::from_str::<Value>(&out)
        .map_err(|_| format!("{file} left no result (its output: {})", short(&out)))?
    else {
        return Err(format!("{file} left no result"));
    };
    if let Some(kind) = out.get("error").and_then(Value::as_str) {
        let message = out.get("message").and_then(Value::as_str).unwrap_or("");
        if kind == "import" {
            let module = out.get("module").and_then(Value::as_str).unwrap_or("?");
            let place = if script.host {
                "the host's python3"
            } else {
                "the sandbox"
            };
            let advice = if script.host {
                format!("install it (python3 -m pip install {module})")
            } else {
                "if it is pure Python, list its package in the task's requirements.txt or add \
                 it with `llm-in-sandbox setup --with PACKAGE`; otherwise run the script with \
                 the host's Python (--reward-python host, with the package installed there)"
                    .into()
            };
            return Err(format!(
                "{file} needs the Python module `{module}`, which {place} lacks ({message}); {advice}"
            ));
        }
        return Err(format!("{file} failed: {kind}: {message}"));
    }
    Ok(out)
}

fn short(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(300) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

async fn reward(script: &RewardScript, answer: &str, row: &Row, runtime: &Arc<Runtime>) -> Score {
    let out = run_task_code(
        script,
        "reward",
        "compute_score",
        answer,
        row_fields(row),
        runtime,
    );
    match out.await {
        Ok(o) => match o.get("score").and_then(Value::as_f64) {
            Some(s) => Score::Value(s),
            None => Score::Error("reward.py returned no number".into()),
        },
        Err(e) => Score::Error(e),
    }
}

/// Before a run, as the reference does: `compute_score("test", "test")` once, so a missing
/// package stops the run instead of failing every row. Other failures are fine here.
///
/// # Errors
/// The message naming the missing module.
pub async fn check_reward(script: &RewardScript, runtime: &Arc<Runtime>) -> Result<(), String> {
    let mut fields = serde_json::Map::new();
    fields.insert("ground_truth".into(), Value::from("test"));
    match run_task_code(script, "reward", "compute_score", "test", fields, runtime).await {
        Err(e) if e.contains("needs the Python module") => Err(e),
        _ => Ok(()),
    }
}

/// What a reward gave the rows' own ground truths ([`check_reward_on_truth`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TruthCheck {
    /// Rows scored.
    pub rows: usize,
    /// Whether every one of them scored 0 (or failed).
    pub all_zero: bool,
    /// Imports `reward.py` itself tried and could not make, even ones it caught.
    pub failed_imports: Vec<String>,
    /// The first failure, if a row's scoring failed.
    pub error: Option<String>,
}

/// Score each row's ground truth as the answer: a reward that gives 0 to the truth of every
/// sampled row, while an import of its own failed, is broken in a way that would otherwise
/// score the whole run 0 without an error (the reference's `instruct_follow/reward.py` catches
/// its own failed import and returns 0).
pub async fn check_reward_on_truth(
    script: &RewardScript,
    rows: &[Row],
    runtime: &Arc<Runtime>,
) -> TruthCheck {
    let mut check = TruthCheck {
        all_zero: true,
        ..TruthCheck::default()
    };
    for row in rows {
        check.rows += 1;
        let out = run_task_code(
            script,
            "reward",
            "compute_score",
            &row.ground_truth,
            row_fields(row),
            runtime,
        )
        .await;
        match out {
            Ok(o) => {
                if o.get("score")
                    .and_then(Value::as_f64)
                    .is_some_and(|s| s != 0.0)
                {
                    check.all_zero = false;
                }
                for name in o
                    .get("failed_imports")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !check.failed_imports.iter().any(|n| n == name) {
                        check.failed_imports.push(name.to_string());
                    }
                }
            }
            Err(e) => {
                check.error.get_or_insert(e);
            }
        }
    }
    check
}

/// `vanilla_llm_prompt.py`'s `create_prompt(row)`: the plain-LLM prompt (the problem statement
/// when the file has no such function, as in the reference).
///
/// # Errors
/// What went wrong running it.
pub async fn create_prompt(
    script: &RewardScript,
    row: &Row,
    runtime: &Arc<Runtime>,
) -> Result<String, String> {
    let out = run_task_code(
        script,
        "vanilla_llm_prompt",
        "create_prompt",
        "",
        row_fields(row),
        runtime,
    )
    .await?;
    out.get("prompt")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| "vanilla_llm_prompt.py returned no prompt".into())
}

/// The folder, beside the task code, that holds [`RewardScript::modules`] and goes on its
/// `sys.path`.
const MODULES_ROOT: &str = "lib";

/// Run task code with the host's `python3` in a temporary folder: the request (answer and
/// row) is a JSON file, never part of the program; 60 s at most.
async fn host_python(
    path: &std::path::Path,
    modules: &[(String, String)],
    module: &str,
    call: &str,
    answer: &str,
    fields: serde_json::Map<String, Value>,
) -> Result<String, String> {
    let tmp = tempfile::tempdir().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let (runner, request, result) = (
        tmp.path().join("runner.py"),
        tmp.path().join("request.json"),
        tmp.path().join("result.json"),
    );
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let lib = tmp.path().join(MODULES_ROOT);
    let body = json!({
        "module": module, "path": abs, "call": call, "answer": answer, "row": fields,
        "result": result, "lib": lib,
    });
    std::fs::write(&runner, TASK_RUNNER)
        .and_then(|_| std::fs::write(&request, body.to_string()))
        .map_err(|e| format!("cannot write the request: {e}"))?;
    for (name, source) in modules {
        let dest = lib.join(name);
        dest.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| std::fs::write(&dest, source))
            .map_err(|e| format!("cannot write {}: {e}", dest.display()))?;
    }
    let mut cmd = tokio::process::Command::new("python3");
    cmd.arg(&runner)
        .arg(&request)
        .current_dir(abs.parent().unwrap_or(tmp.path()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the host's python3 (--reward-python host): {e}"))?;
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .map_err(|_| format!("{module}.py took longer than 60 s (host python3)"))?
        .map_err(|e| format!("host python3 failed: {e}"))?;
    match std::fs::read_to_string(&result) {
        Ok(text) => Ok(text),
        Err(_) => {
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err.lines().last().unwrap_or("no output");
            Err(format!(
                "host python3 exited with {} before a result: {last}",
                out.status
            ))
        }
    }
}

/// Run a small Python program in a fresh sandbox; the text of `result` (a file it writes in
/// its workspace), or of its stdout when `result` is empty; else the last line of its error.
async fn run_python(
    runtime: &Arc<Runtime>,
    files: &[(&str, &str)],
    args: &[&str],
    result: &str,
    requirements: &[crate::packages::Requirement],
) -> Result<String, String> {
    // Directory work (temporary folders, files in, removal) off the async threads.
    let runtime = runtime.clone();
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(n, c)| ((*n).to_string(), (*c).to_string()))
        .collect();
    let sandbox = executor::blocking(move || {
        let sandbox = Sandbox::builder(runtime)
            .limits(Limits {
                timeout: Duration::from_secs(60),
                ..Limits::default()
            })
            .build()
            .map_err(|e| e.to_string())?;
        for (name, content) in &files {
            sandbox
                .workspace()
                .write(name, content)
                .map_err(|e| e.to_string())?;
        }
        Ok::<_, String>(sandbox)
    })
    .await
    .map_err(|e| e.to_string())??;
    if !requirements.is_empty() {
        sandbox
            .pip_install(requirements.to_vec(), Duration::from_secs(300))
            .await
            .map_err(|e| format!("cannot install the task's requirements.txt: {e}"))?;
    }
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let r = sandbox.python(&args, b"").await;
    let result = result.to_string();
    let written = executor::blocking(move || {
        let text = if result.is_empty() {
            None
        } else {
            sandbox.workspace().read_to_string(&result).ok()
        };
        drop(sandbox);
        text
    })
    .await
    .ok()
    .flatten();
    let r = r.map_err(|e| e.to_string())?;
    if let Some(text) = written {
        return Ok(text);
    }
    if r.exit_code != 0 {
        let err = r.stderr_text();
        let last = err.lines().last().unwrap_or("no output").to_string();
        return Err(format!("exit {} ({:?}): {last}", r.exit_code, r.outcome));
    }
    Ok(r.stdout_text())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extraction_and_normalisation() {
        assert_eq!(
            last_boxed("so \\boxed{\\frac{1}{2}} and \\boxed{x^{2}}"),
            Some("x^{2}".into())
        );
        assert_eq!(extract("Work...\nAnswer: 42"), "42");
        assert_eq!(normalize(" $Paris$. "), "paris");
        assert_eq!(number("1,234.5"), Some(1234.5));
        assert_eq!(number("\\frac{3}{4}"), Some(0.75));
        assert_eq!(number("50%"), Some(50.0));
        assert_eq!(letter("The answer is (C)."), Some('C'));
        assert_eq!(letter("\\boxed{b}"), Some('B'));
        assert!(close(0.1 + 0.2, 0.3));
    }
}
